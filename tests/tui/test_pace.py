"""``hexpost pace GAME``: a game's hand-offs per seat, part of play and step, timed by the
packets' stamps (`tui.services.pace`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import msgspec
import pytest
from textual.widgets import Static

from engine.core import pace as core_pace
from engine.core.packets import kept_body
from mail.loopback import LoopbackNetwork
from saves.archive import FORMAT, VERSION, Archive, import_game
from saves.home import Home
from tests.golden.companion import read_golden
from tests.saves import conftest as saves
from tests.saves.conftest import now
from tests.tui.test_app import SIZE, Tutorial, app_for, open_game, settle
from tests.tui.test_hostile_text import run_cli
from tui import render
from tui.columns import columns
from tui.pace_text import overview_text as pace_text_overview
from tui.pace_text import pace_text
from tui.screens.help import HelpScreen
from tui.screens.pace import WIDTH, PaceScreen
from tui.services import pace
from tui.services.pace import StepFacts, Written
from tui.when import span, stamp_seconds

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "fe_wind.msgpack"
HOUR = 3600


def written(
    seq: int, seat: str, stamp: int | None, *, auto: bool = False, step: str = ""
) -> Written:
    return Written(seq, seat, auto, stamp, step)


def test_waits_are_timed_by_the_stamps_and_counted_per_seat() -> None:
    chain = [
        written(0, "a", 0),
        written(1, "b", 10 * HOUR, step="join"),  # b's player: 10 h
        written(2, "a", 12 * HOUR, step="1A1"),  # a's player: 2 h
        written(3, "a", 13 * HOUR, step="2B3"),  # a again: no hand-off
        written(4, "b", 13 * HOUR + 60, auto=True),  # b's hexpost alone: 1 min
        written(5, "a", 20 * HOUR, step="1A1"),  # a's player: 7 h less the minute
        written(6, "b", 19 * HOUR, step="1A1"),  # b's clock behind a's: no wait
        written(7, "a", None, step="3B2"),  # a's stamp does not read: not timed
    ]
    report = pace.count(chain, {}, {"1A1": StepFacts("Bases become active")})
    assert (report.packets, report.human, report.machine) == (8, 5, 1)
    a, b = report.seats
    assert (a.seat, a.human, a.machine, a.human_timed) == ("a", 3, 0, 2)
    assert (a.human_median, a.human_total) == ((9 * HOUR - 60) // 2, 9 * HOUR - 60)
    assert a.machine_median is None
    assert (b.seat, b.human, b.machine, b.human_timed) == ("b", 2, 1, 2)
    assert (b.human_median, b.human_total, b.machine_median) == (5 * HOUR, 10 * HOUR, 60)
    first, *rest = report.steps
    assert (first.step, first.title, first.total, first.seats) == (
        "1A1", "Bases become active", 3, {"a": 2, "b": 1}
    )  # fmt: skip
    assert [(s.step, s.title, s.total) for s in rest] == [("join", "", 1), ("3B2", "", 1)]


def test_a_seat_that_never_wrote_is_listed_with_nothing_waited_for() -> None:
    """The invited seat of a game not yet joined: pace lists it, so the report shows whom the
    game has, not only who wrote."""
    chain = [written(0, "a", 0), written(1, "a", HOUR, step="1A1")]
    report = pace.count(chain, {}, {}, roster=("b", "a"))
    assert [(s.seat, s.human, s.machine, s.human_median) for s in report.seats] == [
        ("a", 0, 0, None),
        ("b", 0, 0, None),
    ]  # the writers first, in the order they wrote
    assert pace.count([], {}, {}, roster=("a", "b")).seats[1].seat == "b"


def test_a_part_of_play_begins_after_the_packet_that_opened_it() -> None:
    chain = [
        written(0, "a", 0),
        written(1, "b", HOUR),
        written(2, "b", 2 * HOUR),  # opens turn 1: it is the start's last packet
        written(3, "a", 5 * HOUR),
        written(4, "b", 6 * HOUR, auto=True),
        written(5, "a", 30 * HOUR),  # opens turn 2 and ends the game: no part after it
    ]
    report = pace.count(chain, {2: "Turn 1", 5: "Turn 2"}, {})
    assert [(p.label, p.first, p.last, p.packets, p.human, p.machine, p.took) for p in
            report.parts] == [
        (pace.FIRST_PART, 0, 2, 3, 1, 0, 2 * HOUR),
        ("Turn 1", 3, 5, 3, 2, 1, 28 * HOUR),  # from packet 2's stamp to packet 5's
    ]  # fmt: skip
    assert sum(p.human for p in report.parts) == report.human
    assert sum(p.machine for p in report.parts) == report.machine


def test_an_empty_game_and_a_stamp_that_is_not_a_time() -> None:
    report = pace.count([], {}, {})
    assert (report.packets, report.human, report.machine, report.parts) == (0, 0, 0, ())
    assert stamp_seconds("1970-01-01T00:00:10Z") == 10
    assert stamp_seconds("2030-01-01T00:00:00.000000042Z") == 1_893_456_000  # the second counts
    for junk in ("", "yesterday", "2030-13-01T00:00:00Z", "9" * 64):
        assert stamp_seconds(junk) is None, junk
    assert [span(s) for s in (None, 0, 59, 61, 3660, 90061)] == [
        "-",
        "0s",
        "59s",
        "1m",
        "1h 1m",
        "1d 1h",
    ]


# --- a stored game ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def golden_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A home holding the walked-through Wind golden game (unstamped) as the coalition."""
    path = tmp_path_factory.mktemp("pace") / "home"
    holder = Home(path)
    try:
        archive = Archive(
            format=FORMAT, version=VERSION, name="wind", my_seat="coalition", status="active",
            packets=read_golden(GOLDEN).packets,
        )  # fmt: skip
        import_game(holder.replica(), msgspec.msgpack.encode(archive), now=now())
    finally:
        holder.close()
    yield path


def test_a_stored_game_is_counted_as_the_engine_counts_its_packets(golden_home: Path) -> None:
    code, out, err = run_cli(golden_home, "pace", "wind", "--json")
    assert code == 0, err
    report = json.loads(out)
    bodies = [kept_body(data)[1] for data in read_golden(GOLDEN).packets]
    expected = core_pace.count([(body.seat, core_pace.automatic(body)) for body in bodies])
    assert (report["packets"], report["human"], report["machine"]) == tuple(expected)
    assert report["machine"] > 0 and report["human"] > 0
    parts = report["parts"]
    assert [p["label"] for p in parts] == [
        pace.FIRST_PART,
        "Turn 1, Fall Y168: coalition player turn begins",
        "Turn 1, Fall Y168: alliance player turn begins",
    ]
    assert sum(p["packets"] for p in parts) == len(bodies)
    assert [p["first"] for p in parts[1:]] == [p["last"] + 1 for p in parts[:-1]]
    assert sum(p["human"] + p["machine"] for p in parts) == report["human"] + report["machine"]
    assert {s["seat"]: s["human"] + s["machine"] for s in report["seats"]} == {
        seat: sum(1 for h in core_pace.hand_offs([(b.seat, core_pace.automatic(b)) for b in
                                                  bodies]) if h.seat == seat)
        for seat in ("coalition", "alliance")
    }  # fmt: skip
    # (5-3E: from fe 5.10 the flagship is chosen there too, and 5-3C and 5-3D ask nobody)
    secret = next(s for s in report["steps"] if s["step"] == "5-3E")
    assert secret["title"] == "Secretly choose the battle force"  # from the checklist
    assert (secret["kind"], secret["actor"], secret["standing"]) == ("secret", "both", [])
    assert all(s["human_median"] is None for s in report["seats"])  # a golden has no stamps
    assert all(s["title"] for s in report["steps"]), report["steps"]

    code, text, err = run_cli(golden_home, "pace", "wind")
    assert code == 0, err
    lines = text.splitlines()
    assert (
        lines[0] == f"wind: {len(bodies)} packets, {report['human'] + report['machine']} hand-offs"
    )
    assert "      7      5       0       - Start of the game" in lines
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)


def test_a_played_game_is_timed_by_its_packets_stamps(tmp_path: Path) -> None:
    """The Wind set up by two homes, each packet stamped by the test clock (a second apart)."""
    network = LoopbackNetwork()
    alice = saves.Player(tmp_path / "alice", "Alice", "alice@example.org", network)
    bob = saves.Player(tmp_path / "bob", "Bob", "bob@example.org", network)
    try:
        game_id = saves.start_game(alice, bob)
        row = alice.replica.game(game_id)
        report = pace.pace_report(alice.replica, row)
        bodies = [kept_body(data)[1] for _, data in alice.replica.packets(game_id)]
    finally:
        alice.close()
        bob.close()
    stamps = [datetime.fromisoformat(body.written_at[:19]) for body in bodies]
    found = core_pace.hand_offs([(body.seat, core_pace.automatic(body)) for body in bodies])
    for seat in report.seats:
        waits = sorted(
            int((stamps[h.at] - stamps[h.at - 1]).total_seconds())
            for h in found if h.seat == seat.seat and not h.machine
        )  # fmt: skip
        assert seat.human_timed == seat.human == len(waits) > 0
        assert seat.human_total == sum(waits)
        assert seat.human_median == (waits[(len(waits) - 1) // 2] + waits[len(waits) // 2]) // 2
    (start,) = [p for p in report.parts if p.label == pace.FIRST_PART]
    assert start.took == int((stamps[start.last] - stamps[0]).total_seconds()) > 0
    # The join (Bob's, and Alice's acceptance of his key) is the protocol's step, in no
    # ruleset's checklist: named all the same.
    (join,) = [s for s in report.steps if s.step == "join"]
    assert (join.title, join.kind) == ("Join the game, accept the key that joined", "join")
    assert join.seats == {"coalition": 1, "alliance": 1}
    # The set-up's steps left the checklist when the set-up ended: named all the same.
    assert [(s.step, s.title, s.kind, s.actor) for s in report.steps[1:]] == [
        (f"0-{empire}", f"{empire} places its starting fleets", "decision", "phasing")
        for empire in ("KZI", "KLI", "FED")
    ]


def test_pace_without_a_game_gives_each_game_a_line(golden_home: Path) -> None:
    code, out, err = run_cli(golden_home, "pace", "--json")
    assert code == 0, err
    (line,) = json.loads(out)
    code, one, err = run_cli(golden_home, "pace", "wind", "--json")
    assert code == 0, err
    report = json.loads(one)
    assert (line["game"], line["name"], line["packets"], line["human"], line["machine"]) == (
        report["game"], "wind", report["packets"], report["human"], report["machine"]
    )  # fmt: skip
    assert line["parts"] == len(report["parts"]) - 1 == 2  # two player turns begun
    assert line["my_median"] is line["their_median"] is None  # a golden has no stamps
    code, text, err = run_cli(golden_home, "pace")
    assert code == 0, err
    lines = text.splitlines()
    assert lines[0].split() == ["GAME", "NAME", "PACKETS", "PLAYER", "HEXPOST", "PER", "PART",
                                "YOU", "THEM"]  # fmt: skip
    per_part = (line["human"] * 10 + 1) // 2  # tenths, rounded half up
    assert lines[1].split() == [
        line["game"][:8], "wind", str(line["packets"]), str(line["human"]),
        str(line["machine"]), f"{per_part // 10}.{per_part % 10}", "-", "-",
    ]  # fmt: skip
    assert max(len(text_line) for text_line in lines) <= 80


def test_the_overview_names_the_slowest_other_player() -> None:
    chain = [
        written(0, "a", 0),
        written(1, "b", 4 * HOUR),  # b: 4 h
        written(2, "c", 5 * HOUR),  # c: 1 h
        written(3, "a", 7 * HOUR),  # a: 2 h
        written(4, "b", 15 * HOUR),  # b: 8 h
    ]
    line = pace.game_pace(pace.count(chain, {3: "Turn 1"}, {}, me="a", roster=("a", "b", "c")))
    assert (line.my_median, line.their_seat, line.their_median, line.parts) == (
        2 * HOUR, "b", 6 * HOUR, 1
    )  # fmt: skip
    alone = pace.game_pace(pace.count([written(0, "a", 0)], {}, {}, me="a", roster=("a", "b")))
    assert (alone.my_median, alone.their_seat, alone.their_median, alone.parts) == (
        None, "", None, 0
    )  # fmt: skip
    assert "-" in pace_text_overview([render.builtins(alone)]).splitlines()[1].split()
    assert pace_text_overview([]) == "no games in this home"


def test_a_game_not_yet_joined_lists_the_invited_seat(tmp_path: Path) -> None:
    alice = saves.Player(tmp_path / "alice", "Alice", "alice@example.org", LoopbackNetwork())
    try:
        game_id = saves.create_game(alice)
        report = pace.pace_report(alice.replica, alice.replica.game(game_id))
    finally:
        alice.close()
    assert [(s.seat, s.human + s.machine) for s in report.seats] == [
        ("coalition", 0),
        ("alliance", 0),
    ]
    assert report.packets == 1


def test_pace_names_an_unknown_game() -> None:
    code, _, err = run_cli(Path("/nonexistent/hexpost-home"), "pace", "nothing")
    assert code == 1
    assert "no game matches 'nothing'" in err


@pytest.mark.parametrize(("reply_after", "hinted"), [(60, False), (2 * HOUR, True)])
def test_the_text_suggests_watching_when_this_home_s_own_answers_waited(
    reply_after: int, hinted: bool
) -> None:
    chain = [
        written(0, "a", 0),
        written(1, "b", HOUR),
        written(2, "a", HOUR + reply_after, auto=True),  # a's hexpost, at a's next sync
        written(3, "b", 9 * HOUR),
    ]
    text = pace_text(render.builtins(pace.count(chain, {}, {}, name="g", me="a")))
    assert ("`hexpost sync --watch`" in text) is hinted, text
    assert text.splitlines()[4].split() == ["a", "(you)", "0", "-", "-", "1", span(reply_after)]
    mirrored = pace_text(render.builtins(pace.count(chain, {}, {}, name="g", me="b")))
    assert "sync --watch" not in mirrored  # only this home's own answers


def test_the_text_names_what_would_have_answered_this_home_s_waits() -> None:
    chain = [
        written(0, "a", 0),
        written(1, "b", HOUR, step="1D"),  # b at bookkeeping
        written(2, "a", 2 * HOUR, step="3B3"),  # a reacts in b's turn
        written(3, "b", 3 * HOUR, step="3B2"),  # b moves: its own turn
        written(4, "a", 4 * HOUR, step="1D"),  # a at bookkeeping, now under a's standing order
        written(5, "b", 5 * HOUR, step="3B2"),
        written(6, "a", 6 * HOUR, step="5-3E"),  # a's secret choice
    ]
    facts = {
        "5-3E": StepFacts(
            "Secretly choose the battle force", "secret", "both", policy_order="policy"
        ),
        "1D": StepFacts("Remove reserve markers", "manual", "phasing", ("a",)),
        "3B3": StepFacts("Reaction", "decision", "non-phasing", policy_order="reaction"),
        "3B2": StepFacts("Movement", "decision", "phasing"),
    }
    report = pace.count(chain, {}, facts, name="g", me="b")
    assert [(s.step, s.kind, s.actor, s.standing) for s in report.steps] == [
        ("1D", "manual", "phasing", ("a",)),
        ("3B2", "decision", "phasing", ()),
        ("3B3", "decision", "non-phasing", ()),
        ("5-3E", "secret", "both", ()),
    ]
    b_text = pace_text(render.builtins(report))
    assert "1D         1  1  manual   Remove reserve markers" in b_text.splitlines()
    flat = " ".join(b_text.split())  # the hints are wrapped to the width
    assert "bookkeeping the engine does not play (1D): the standing order `manual`" in flat
    assert "always answer the same" not in flat  # b waited at 3B2 only: its own turn
    assert "now: those waits are past" not in flat
    assert "Secret choices" not in flat  # only a waited at 5-3E
    a_text = pace_text(render.builtins(pace.count(chain, {}, facts, name="g", me="a")))
    a_flat = " ".join(a_text.split())
    assert "`manual`" not in a_flat  # a's standing order covers 1D already
    assert "Your standing order covers 1D now: those waits are past." in a_flat
    assert (
        "Where you always answer the same (3B3), a standing order naming the step answers for "
        "you at once, or a signed policy: `reaction` for 3B3." in a_flat
    )
    assert (
        "Secret choices (5-3E): no standing order makes them, but a policy signed in advance "
        "does: `policy` for 5-3E (P in the app)." in a_flat
    )
    bare = {step: fact._replace(policy_order="") for step, fact in facts.items()}  # none
    bare_flat = " ".join(
        pace_text(render.builtins(pace.count(chain, {}, bare, name="g", me="a"))).split()
    )
    assert "(3B3), a standing order naming the step answers for you at once." in bare_flat
    assert "Secret choices (5-3E): no standing order makes them, and no policy" in bare_flat
    for text in (a_text, b_text):
        assert max(len(line) for line in text.splitlines()) <= 80
    plain = pace_text(render.builtins(pace.count(chain, {}, {}, name="g", me="a")))
    assert "A standing order or policy signed in advance answers such steps at once." in " ".join(
        plain.split()
    )


def test_waits_at_a_player_s_own_moves_are_not_said_to_take_a_standing_order() -> None:
    """Joining and the phasing seat's own decisions are the player's to make: the text does not
    offer a standing order for them, as it does where it cannot tell what a step is."""
    chain = [
        written(0, "a", 0),
        written(1, "b", HOUR, step="join"),
        written(2, "a", 2 * HOUR, step="3B2"),
        written(3, "b", 3 * HOUR, step="3B2"),
    ]
    facts = {
        "join": StepFacts("Join the game", "join"),
        "3B2": StepFacts("Movement", "decision", "phasing"),
    }
    for me in ("a", "b"):
        flat = " ".join(pace_text(render.builtins(pace.count(chain, {}, facts, me=me))).split())
        assert "answers such steps at once" not in flat, flat
        assert "nothing signed in advance makes them" in flat, flat
    b_flat = " ".join(pace_text(render.builtins(pace.count(chain, {}, facts, me="b"))).split())
    assert "You were waited for at moves of your own (3B2, join)" in b_flat, b_flat
    unknown = " ".join(pace_text(render.builtins(pace.count(chain, {}, {}, me="b"))).split())
    assert "answers such steps at once" in unknown


def test_a_policy_signed_since_makes_those_waits_past_and_asks_for_none() -> None:
    chain = [
        written(0, "a", 0),
        written(1, "b", HOUR, step="3B2"),
        written(2, "a", 2 * HOUR, step="3B3"),  # a reacts in b's turn
        written(3, "b", 3 * HOUR, step="3B2"),
        written(4, "a", 4 * HOUR, step="5-3E"),  # a's secret choices
        written(5, "b", 5 * HOUR, step="3B2"),
        written(6, "a", 6 * HOUR, step="5-3X2"),
    ]
    facts = {  # a's reaction policy answers 3B3 now, its combat policy 5-3E; not 5-3X2
        "3B3": StepFacts("Reaction", "decision", "non-phasing", policy=("a",)),
        "3B2": StepFacts("Movement", "decision", "phasing"),
        "5-3E": StepFacts("Secretly choose the battle force", "secret", "both", policy=("a",)),
        "5-3X2": StepFacts(
            "Secretly choose the BIR", "secret", "both", policy=("b",), policy_order="policy"
        ),
    }
    report = pace.count(chain, {}, facts, name="g", me="a")
    assert {s.step: s.policy for s in report.steps}["5-3E"] == ("a",)
    flat = " ".join(pace_text(render.builtins(report)).split())
    assert "always answer the same" not in flat  # 3B3 is answered by a's policy now
    assert "Secret choices (5-3X2): no standing order makes them, but a policy signed" in flat
    assert "Your policy answers 3B3, 5-3E now: those waits are past." in flat


# --- the app's pace dialog (w) ----------------------------------------------------------------


async def test_w_on_a_game_shows_its_pace_as_the_command_line_words_it(tutorial: Tutorial) -> None:
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        await pilot.press("w")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, PaceScreen)
        shown = str(dialog.query_one("#pace-text", Static).content)
        code, out, err = run_cli(tutorial.alice.home.path, "pace", tutorial.game_id.hex())
        assert code == 0, err
        assert shown.splitlines()[:3] == out.splitlines()[:3]  # the same report
        assert shown.splitlines()[0].startswith(f"{dialog.game_name}: ")
        assert max(len(line) for line in shown.splitlines()) <= WIDTH
        box = dialog.query_one("#pace").region
        assert box.width <= SIZE[0] and box.height <= SIZE[1]
        await pilot.press("w")
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("escape")  # the games list: w there shows the highlighted game's
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        listed = app.screen
        assert isinstance(listed, PaceScreen) and listed is not dialog
        assert str(listed.query_one("#pace-text", Static).content) == shown
        await pilot.press("escape")
        await settle(pilot)
        screen = await open_game(pilot)  # back on the game for ? below
        await pilot.press("question_mark")  # ? lists it though the footer has no room for it
        await pilot.pause()
        helped = app.screen
        assert isinstance(helped, HelpScreen)
        assert any(line.split()[:2] == ["w", "Pace:"] for line in helped.keys), helped.keys


def test_the_overview_lines_up_a_name_of_wide_characters() -> None:
    """A game named in Japanese (two terminal columns a character) was cut and padded by its
    characters, so its numbers stood to the right of their headings."""
    alone = pace.game_pace(pace.count([written(0, "a", 0)], {}, {}, me="a", roster=("a", "b")))
    record = {**render.builtins(alone), "name": "戦争ゲーム長い名前です"}
    head, line = pace_text_overview([record]).splitlines()[:2]
    # the packet count (1) ends in the column where its heading ends
    assert columns(line[: line.index(" 1 ") + 2]) == columns(head[: head.index("PACKETS") + 7])
    assert "戦争ゲーム長い" in line and "戦争ゲーム長い名" not in line  # cut at 15 columns
