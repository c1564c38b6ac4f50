"""The service layer alone (`tui.services`): no Textual, no terminal, no `hexpost` process.

Two homes play the tutorial through the services only, each given a fixed clock and its own
loopback transport, as the command line and the app give theirs: identities made, a game
created, joined and its joined key accepted, set up with orders, synced. Then each service is
asked what the faces ask it: the games list, a game's page, the log, the review, a verdict
on bad orders (naming which order and where), a sync's words and whether it needs the
player. A last group reads the services' source to hold them to their rules: no Textual or
Rich, no printing or prompting, no wall clock, no transport built behind the caller's back.
"""

from __future__ import annotations

import ast
import asyncio
import itertools
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from engine.core.errors import HexpostError, IllegalOrder
from mail.loopback import LoopbackNetwork, LoopbackTransport
from mail.sync import SendFailure, SyncReport
from saves.home import Home
from saves.outcome import Outcome
from saves.replica import Replica
from tests.engine.fe.steps.tutorial_states import TUTORIAL_SETUP
from tui.screens.hexinfo import status_lines
from tui.services import games, home, log, orders, review, show, start
from tui.services import sync as syncing
from tui.services.jsonform import json_form
from tui.services.ports import Clock

SERVICES = Path(__file__).resolve().parents[2] / "tui" / "services"


def fixed_clock(day: int) -> Clock:
    """A clock that moves one second per reading, on a day no wall clock shows."""
    ticks = itertools.count()

    def clock() -> str:
        tick = next(ticks)
        return f"2031-02-{day:02d}T10:{tick // 60 % 60:02d}:{tick % 60:02d}Z"

    return clock


@dataclass
class Seat:
    home: Home
    signer: Replica
    transport: LoopbackTransport
    clock: Clock

    def sync(self) -> SyncReport:
        replies = syncing.auto_replies(self.home)
        return asyncio.run(syncing.sync_once(self.signer, self.transport, self.clock, replies))


@dataclass
class Table:
    alice: Seat
    bob: Seat
    network: LoopbackNetwork
    game_id: bytes
    reports: dict[str, SyncReport]


def make_seat(root: Path, name: str, network: LoopbackNetwork, day: int) -> Seat:
    where = Home(root / name.lower())
    record = home.create_identity(where, f" {name} ", f"{name.lower()}@example.org ", None)
    assert (record.name, record.encrypted) == (name, False)  # the service strips the words
    signer = home.signer(where, None)  # an unencrypted key needs no passphrase
    transport = LoopbackTransport(network, f"loopback:{name.lower()}")
    return Seat(where, signer, transport, fixed_clock(day))


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Table]:
    root = tmp_path_factory.mktemp("services")
    network = LoopbackNetwork()
    alice = make_seat(root, "Alice", network, 3)
    bob = make_seat(root, "Bob", network, 4)
    made = start.new_game(
        alice.signer, "tutorial", "coalition", "bob@example.org", clock=alice.clock, name="tut"
    )
    game_id = bytes.fromhex(made.game)
    reports = {"alice-invites": alice.sync(), "bob-invited": bob.sync()}
    assert start.is_invitation(bob.signer, game_id)
    joined = start.join(bob.signer, game_id, bob.clock)
    assert joined.joined and joined.text == "joined tut as alliance"
    bob.sync()
    reports["alice-sees-join"] = alice.sync()
    # The creator signs nothing in the game before accepting the key that joined: a client
    # that tries anyway (here, orders) is refused by the same check the faces go through.
    early = orders.sign(alice.signer, game_id, [{"type": "note", "text": "hi"}], alice.clock)
    assert not early.legal and "hexpost accept tut" in early.refusal
    fp = home.identity_record(bob.home)
    assert fp is not None
    accepted = start.accept_key(alice.signer, game_id, alice.clock, expected=fp.fingerprint)
    assert not accepted.joined and accepted.packet is not None
    alice.sync()
    bob.sync()
    for seat_name in ("alliance", "coalition"):  # the Kzinti place first
        seat = bob if seat_name == "alliance" else alice
        other = alice if seat is bob else bob
        verdict = orders.sign(seat.signer, game_id, TUTORIAL_SETUP[seat_name], seat.clock)
        assert verdict.legal and verdict.signed, verdict.refusal
        seat.sync()
        other.sync()
    yield Table(alice, bob, network, game_id, reports)
    alice.home.close()
    bob.home.close()


# --- games, a game's page, the log --------------------------------------------------------------


def test_the_games_list_is_typed_and_prints_the_documented_keys(table: Table) -> None:
    (summary,) = games.summaries(table.alice.signer)
    assert isinstance(summary, games.GameSummary)
    assert (summary.name, summary.my_seat, summary.status) == ("tut", "coalition", "active")
    assert summary.waiting_for == ("coalition",) and summary.step == "1A1"
    assert summary.turn is not None
    assert (summary.turn.number, summary.turn.tag) == (1, "T1 Fall Y168")
    assert summary.unsent == 0 and summary.notes == () and summary.frozen is None
    assert summary.drafts == 0
    printed = json_form(summary)
    assert printed["waiting_for"] == ["coalition"]  # as the JSON says it: a list
    assert list(printed) == [
        "game", "name", "scenario", "my_seat", "status", "seq", "turn", "step",
        "waiting_for", "since", "unread", "frozen", "unsent", "drafts", "claim", "notes", "waits",
        "waits_text", "ended", "archived",
    ]  # fmt: skip
    assert printed["waits"] == {
        "seat": "coalition", "who": "Alice", "mine": True, "step": "1A1", "kind": "orders",
        "what": printed["waits"]["what"],
    }  # fmt: skip
    assert printed["waits"]["what"].startswith("1A1 ")
    assert printed["waits_text"] == f"waits for you: {printed['waits']['what']}"
    assert printed["ended"] == "" and printed["archived"] == ""


def test_a_key_accepted_for_the_next_packet_leaves_the_list_on_that_move(
    tmp_path: Path,
) -> None:
    """In The Wind the creator's seat sets up first, so accepting the joined key signs
    nothing: the set-up orders carry the acceptance. Until they are signed, the games list
    and a game's page show the set-up step as the player's next move and say the acceptance
    goes with it; they do not send the player to `hexpost accept` again."""
    network = LoopbackNetwork()
    alice = make_seat(tmp_path, "Alice", network, 3)
    bob = make_seat(tmp_path, "Bob", network, 4)
    try:
        made = start.new_game(
            alice.signer, "the-wind", "coalition", "bob@example.org", clock=alice.clock, name="w"
        )
        game_id = bytes.fromhex(made.game)
        alice.sync()
        bob.sync()
        assert start.join(bob.signer, game_id, bob.clock).joined
        bob.sync()
        alice.sync()
        (before,) = games.summaries(alice.signer)
        assert before.step == "join" and "then `hexpost accept w`" in before.notes[0]

        accepted = start.accept_key(alice.signer, game_id, alice.clock)
        assert accepted.packet is None, "the set-up orders carry the acceptance"

        (after,) = games.summaries(alice.signer)
        assert after.step == "0-LYR" and after.waiting_for == ("coalition",)
        assert after.waits is not None and after.waits.step == "0-LYR" and after.waits.mine
        bob_key = home.identity_record(bob.home)
        assert bob_key is not None
        assert after.notes == (
            f"you accepted Bob <bob@example.org> as alliance, key {bob_key.fingerprint}: "
            "your next packet (0-LYR) carries the acceptance",
        )
        row = alice.signer.find("w")
        page = show.show(alice.signer, row, at=None, checklist=False)
        assert page.notes == after.notes
        assert page.owed_step == "0-LYR" and page.pending[0].kind == "orders"
        # the news of Bob's join, as the app opens the game with it: the same next move
        view = show.game_view(alice.signer, game_id, mark_read=False)
        assert view.news and view.news[-1].startswith("  waits for you: 0-LYR"), view.news
        assert view.news_line.startswith("your move: 0-LYR"), view.news_line
        history = show.show(alice.signer, row, at=row.head_seq, checklist=False)
        assert history.pending[0].kind == "accept", "a past position shows what it owed"
        (bobs,) = games.summaries(bob.signer)
        assert bobs.notes == ("waiting for coalition to accept your key",)
    finally:
        alice.home.close()
        bob.home.close()


def test_an_imported_copy_of_another_seat_shows_the_game_and_cannot_play(
    table: Table, tmp_path: Path
) -> None:
    """Anyone may import a public export (to read it, or check a frozen game's evidence):
    that home holds the game under the archive's seat without its key. It lists and shows
    the game but never says it is its move, and it refuses to sign, saying whose key the
    seat plays with, instead of "no entropy seed"."""
    from saves.archive import export_game, import_game

    data = export_game(table.alice.signer, table.game_id, public=True)
    reader = make_seat(tmp_path, "Carol", LoopbackNetwork(), 5)
    try:
        row = import_game(reader.signer, data, now=reader.clock())
        assert row.my_seat == "coalition"
        (summary,) = games.summaries(reader.signer)
        assert summary.waits is not None and not summary.waits.mine
        assert summary.waits_text.startswith("waits for Alice (coalition)")
        (note,) = summary.notes
        alice = home.identity_record(table.alice.home)
        carol = home.identity_record(reader.home)
        assert alice is not None and carol is not None
        assert (
            f"coalition plays with the key of Alice <alice@example.org>, {alice.fingerprint}"
            in note
        )
        assert f"this home's is {carol.fingerprint}: this copy shows the game" in note
        page = show.show(reader.signer, reader.signer.find("tut"), at=None, checklist=False)
        assert page.notes == summary.notes and not page.plays and page.owed_step is None
        assert show.show_builtins(page)["plays"] is False
        assert "waiting for coalition" in status_lines(page)
        assert not any("YOUR MOVE" in line for line in status_lines(page))
        mine = show.show(
            table.alice.signer, table.alice.signer.find("tut"), at=None, checklist=False
        )
        assert mine.plays and "plays" not in show.show_builtins(mine), "the JSON is as it was"
        verdict = orders.sign(reader.signer, table.game_id, [{"type": "done"}], reader.clock)
        assert (
            not verdict.legal
            and "this copy shows the game, it cannot play in it" in verdict.refusal
        )
        assert games.summaries(table.alice.signer)[0].waits.mine  # type: ignore[union-attr]
        # No reminder, ask or automatic reply is written for it: not among the active games.
        assert reader.signer.active_games() == []
        assert [r.game_id for r in table.alice.signer.active_games()] == [table.game_id]
    finally:
        reader.home.close()


def test_a_game_shown_through_the_services(table: Table) -> None:
    row = table.bob.signer.find("tut")
    record = show.show(table.bob.signer, row, at=None, checklist=True)
    assert record.seq == row.head_seq and record.state_hash == row.state_hash.hex()
    seats = {seat.seat: seat for seat in record.seats}
    alice = home.identity_record(table.alice.home)
    assert alice is not None and seats["coalition"].fingerprint == alice.fingerprint
    assert record.pending[0].seats == ("coalition",) and record.owed_step is None
    assert record.checklist is not None
    assert [line.step for line in record.checklist if line.status == "current"] == ["1A1"]
    shown = show.show_builtins(record)
    # The board stays where ``hexpost show --json`` always had it: at the top level, between
    # the notes and the checklist.
    keys = list(shown)
    assert keys.index("notes") < keys.index("units") < keys.index("checklist")
    assert "views" not in shown and {"empires", "units", "hexes"} <= shown.keys()
    without = show.show_builtins(show.show(table.bob.signer, row, at=1, checklist=False))
    assert "checklist" not in without and without["seq"] == 1


def test_the_log_carries_the_clock_it_was_given(table: Table) -> None:
    row = table.alice.signer.find("tut")
    records = log.log_records(table.alice.signer, row)
    assert [r.seq for r in records] == list(range(row.head_seq + 1))
    stamps = {r.seat: r.written_at[:10] for r in records if r.seq > 0}
    # Each home stamped its packets with its own clock: no wall clock anywhere.
    assert stamps == {"alliance": "2031-02-04", "coalition": "2031-02-03"}
    assert records[0].kind == "genesis" and records[1].kind == "join"


def test_the_review_indexes_the_chain_and_builds_typed_records(table: Table) -> None:
    index = review.index(table.alice.signer, table.game_id, mark_read=False)
    assert index.name == "tut" and index.last == len(index.packets) - 1
    assert any(mark.turn for mark in index.packets)  # set-up over, turn 1 begins
    built = review.records(table.alice.signer, table.game_id, [1, index.last])
    assert built[1].seq == 1 and built[index.last].seq == index.last
    assert isinstance(built[1], show.ShowRecord)


def test_a_review_at_the_head_takes_the_board_the_game_screen_worked_out(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The head's record reads the state the replica keeps, whose board views the engine
    kept when the game screen read its board: only the packet before it is worked out."""
    from engine.fe import views
    from tui.services.board import current_board

    replica, game = table.alice.signer, table.game_id
    last = review.index(replica, game, mark_read=False).last
    current_board(replica, game)  # what the game screen reads
    worked: list[object] = []
    real = views.views

    def counted(state: Any) -> Any:
        worked.append(state)
        return real(state)

    monkeypatch.setattr(views, "views", counted)
    built = review.records(replica, game, [last - 1, last])
    assert len(worked) == 1
    assert list(built) == [last - 1, last]
    assert built[last] == show.show(
        replica,
        replica.game(game),
        at=last,
        checklist=True,
        extras=False,
        hashed=False,
        choices=False,
    )


# --- orders -----------------------------------------------------------------------------------


def test_a_refused_order_names_which_order_and_where(table: Table) -> None:
    row = table.alice.signer.find("tut")
    items: list[dict[str, Any]] = [
        {"type": "done", "note": "first step"},
        {"type": "move", "units": ["KLI-0001"], "path": ["1307", "1306"]},
    ]
    verdict = orders.check(table.alice.signer, row.game_id, items, table.alice.clock)
    assert not verdict.legal and not verdict.signed
    (violation,) = verdict.violations
    assert violation.order == 2, violation
    assert violation.step and violation.step != "1A1"  # the step the first order led to
    assert violation.text.startswith("order 2 at step ")
    assert table.alice.signer.game(row.game_id).head_seq == row.head_seq  # nothing stored


def test_a_legal_dry_run_says_what_it_would_make_and_signs_nothing(table: Table) -> None:
    row = table.alice.signer.find("tut")
    items = [{"type": "done", "note": "checking"}]
    verdict = orders.check(table.alice.signer, row.game_id, items, table.alice.clock)
    assert verdict.legal and not verdict.signed and verdict.seq == row.head_seq + 1
    assert verdict.after is not None and verdict.events
    assert table.alice.signer.game(row.game_id).head_seq == row.head_seq


def test_violation_reads_where_from_the_engine_words() -> None:
    where = orders.violation(IllegalOrder("order 3 at step 3B2: too far", rule="301.2"))
    assert (where.order, where.step, where.rule) == (3, "3B2", "301.2")
    assert where.text == "order 3 at step 3B2: too far (301.2)"
    whole = orders.violation(HexpostError("game tut is frozen: desync"))
    assert (whole.order, whole.step) == (None, None)


def test_orders_documents_are_json_or_toml_and_errors_say_where() -> None:
    toml = '[[orders]]\ntype = "done"\n'
    assert orders.parse_orders(toml, "turn.toml") == [{"type": "done"}]  # "[" is not JSON
    assert orders.parse_orders('{"orders": [{"type": "note"}]}', "x") == [{"type": "note"}]
    with pytest.raises(HexpostError, match=r"turn\.json: not valid JSON at line 1"):
        orders.parse_orders("{", "turn.json", ".json")
    missing_comma = '[{"type": "move",\n  "path": ["1307" "1206"]}]'
    with pytest.raises(
        HexpostError, match=r"^x\.json: not valid JSON at line 2, column 19: Expecting ','"
    ):
        orders.parse_orders(missing_comma, "x.json", ".json")
    with pytest.raises(HexpostError, match=r"stdin: expected a list of orders"):
        orders.parse_orders('{"orders": {"type": "done"}}', "stdin")


def test_a_bare_json_list_of_orders_is_an_orders_document() -> None:
    """A player writes a list of orders, as the app's orders box takes them; from a file
    named .json or sniffed on stdin ("[{" or "[]" starts no TOML document)."""
    placed = [{"type": "place", "fleet": "Home Fleet", "hex": "0408"}, {"type": "done"}]
    text = json.dumps(placed, indent=1)
    assert orders.parse_orders(text, "kzi.json", ".json") == placed
    assert orders.parse_orders(text, "stdin") == placed
    assert orders.parse_orders(" [ ]", "stdin") == []
    with pytest.raises(HexpostError, match=r"stdin: expected a list of orders"):
        orders.parse_orders('[{"type": "done"}, 3]', "stdin")
    with pytest.raises(HexpostError, match=r"kzi\.json: expected a list of orders"):
        orders.parse_orders('"done"', "kzi.json", ".json")


@pytest.mark.parametrize(
    ("text", "suffix"),
    [
        ("[" * 100_000, ".json"),
        ('{"orders": ' + "[" * 100_000, ""),
        ("x = " + "[" * 100_000, ".toml"),
    ],
    ids=["json", "sniffed-json", "toml"],
)
def test_an_orders_document_nested_past_any_reader_is_refused_with_where(
    text: str, suffix: str
) -> None:
    """A document nested deeper than the parser's stack (a mistake, or a file made to crash
    the command) is refused with its name, not a traceback."""
    with pytest.raises(HexpostError, match=r"turn: .*nested too deeply"):
        orders.parse_orders(text, "turn", suffix)


# --- sync --------------------------------------------------------------------------------------


def test_a_copy_of_a_packet_already_held_is_counted_apart() -> None:
    """A shared mailbox shows a home its own packet back, and the other side may send one
    twice: "received 1, applied 0" after every send read as a fault."""
    game = b"\x01" * 16
    copy = Outcome("duplicate", "packet 5 is already in the chain", game, 5)
    new = Outcome("applied", "", game, 6, applied=[6])
    report = SyncReport(received=[copy], sent=[], failed=[])
    assert syncing.describe(report, signing=True).summary == (
        "synced: received 0, applied 0, sent 0, 1 already held"
    )
    both = SyncReport(received=[copy, new], sent=[7], failed=[])
    assert syncing.describe(both, signing=True).summary == (
        "synced: received 1, applied 1, sent 1, 1 already held"
    )


def test_a_chat_message_is_counted_as_one_not_as_a_packet() -> None:
    """A line of chat came as "received 1, applied 0", read as a packet that failed."""
    chat = Outcome("chat", "chat message: Good luck", b"\x01" * 16, seat="coalition")
    report = SyncReport(received=[chat, chat], sent=[], failed=[])
    assert syncing.describe(report, signing=True).summary == (
        "synced: received 0, applied 0, sent 0, 2 chat messages"
    )


def test_sync_through_a_loopback_transport_given_to_it(table: Table) -> None:
    invited = table.reports["bob-invited"]
    outcome = syncing.describe(invited, signing=True)
    assert outcome.summary.startswith("synced: received 1, applied 0, sent 0")
    assert outcome.ok and outcome.changed == {table.game_id.hex()}
    lines = syncing.sync_lines(invited, {}, signing=True)
    assert [line.kind for line in lines] == ["received"]
    assert lines[0].text.startswith("received: invitation: ")
    assert "Alice <alice@example.org> invites you" in lines[0].text
    seen = table.reports["alice-sees-join"]
    names = syncing.game_names(table.alice.signer)
    lines = syncing.sync_lines(seen, names, signing=True)
    joined = next(line for line in lines if line.text.startswith("received: applied: "))
    assert joined.game == table.game_id.hex() and "Bob <bob@example.org> joined tut" in joined.text
    assert not syncing.needs_player(seen, names)


def test_a_packet_not_sent_needs_the_player(table: Table) -> None:
    row = table.alice.signer.find("tut")
    note = [{"type": "note", "text": "x"}]
    verdict = orders.sign(table.alice.signer, row.game_id, note, table.alice.clock)
    assert verdict.signed
    table.network.fail_next_sends = 1
    report = table.alice.sync()
    names = syncing.game_names(table.alice.signer)
    lines = syncing.sync_lines(report, names, signing=False)
    assert [line.kind for line in lines if line.kind != "received"] == ["not-sent", "note"]
    assert "not sent: packet " in lines[-2].text
    assert syncing.needs_player(report, names)
    assert not syncing.describe(report, signing=False).ok
    again = table.alice.sync()  # the network is back: the outbox is sent
    assert again.sent and not syncing.needs_player(again, names)
    table.bob.sync()


def test_a_reminder_a_one_shot_sync_sent_is_said_in_its_lines_and_summary() -> None:
    line = "reminded bob@example.org: tut has waited on alliance since 2030-01-01T00:00:00Z"
    report = SyncReport([], [], [], reminders=[line])
    assert [(x.kind, x.text) for x in syncing.sync_lines(report, {}, signing=True)] == [
        ("request", line)
    ]
    outcome = syncing.describe(report, signing=True)
    assert outcome.summary.endswith(", 1 reminder") and outcome.details == (line,)
    assert not syncing.needs_player(report, {})


def test_a_silent_check_is_said_as_one_not_as_a_reminder() -> None:
    """Nobody was reminded: the app's summary counts the check as what it is."""
    line = "tut has waited on alliance since 2030-01-01T00:00:00Z: asked alliance's hexpost"
    report = SyncReport([], [], [], checks=[line])
    assert [(x.kind, x.text) for x in syncing.sync_lines(report, {}, signing=True)] == [
        ("request", line)
    ]
    outcome = syncing.describe(report, signing=True)
    assert outcome.summary.endswith(", 1 lost-move check") and outcome.details == (line,)
    assert "reminder" not in outcome.summary


def test_only_trouble_in_a_game_of_this_home_needs_the_player() -> None:
    ours, stranger = b"\x01" * 16, b"\x02" * 16
    names = {ours: "ours"}
    damaged = Outcome("rejected", "damaged", game_id=stranger, attention=True)
    assert not syncing.needs_player(SyncReport([damaged], [], []), names)
    refused = Outcome("rejected", "bad signature", game_id=ours, seq=4, attention=True)
    assert syncing.needs_player(SyncReport([refused], [], []), names)
    assert syncing.needs_player(SyncReport([], [], [SendFailure(3, "550")]), names)
    line = syncing.outcome_line(names, refused)
    assert line == "rejected: ours packet 4: bad signature"


def test_an_applied_packet_s_line_does_not_say_so_twice() -> None:
    """``applied: ours packet 4 from coalition``, not ``...: applied packet 4``; what the
    detail adds (packets buffered before it, a warning) is still said."""
    ours = b"\x01" * 16
    names = {ours: "ours"}
    alone = Outcome("applied", "applied packet 4", ours, 4, [4], "coalition")
    assert syncing.outcome_line(names, alone) == "applied: ours packet 4 from coalition"
    more = Outcome("applied", "applied packets 4, 5", ours, 4, [4, 5], "coalition")
    line = syncing.outcome_line(names, more)
    assert line == "applied: ours packet 4 from coalition: applied packets 4, 5"
    warned = Outcome("applied", "applied packet 4; a warning", ours, 4, [4], "coalition")
    assert syncing.outcome_line(names, warned).endswith("coalition: applied packet 4; a warning")


def test_auto_replies_follow_the_config_and_the_flag(tmp_path: Path) -> None:
    where = Home(tmp_path / "h")
    assert syncing.auto_replies(where)
    assert not syncing.auto_replies(where, refused=True)
    where.save_config({"sync": {"auto_replies": False}})
    assert not syncing.auto_replies(where)
    where.save_config({"sync": {"auto_replies": "no"}})
    with pytest.raises(HexpostError, match=r"sync.auto_replies must be true or false, not 'no'"):
        syncing.auto_replies(where)


# --- the key ----------------------------------------------------------------------------------


def test_a_locked_key_receives_without_asking_and_signs_only_with_its_passphrase(
    tmp_path: Path,
) -> None:
    where = Home(tmp_path / "locked")
    assert home.key_state(where, secret_at_hand=False) is home.KeyState.NONE
    with pytest.raises(home.NoIdentity):
        home.signer(where, None)
    where.create_identity("Carol", "carol@example.org", b"open sesame", scrypt_n=2)
    assert home.key_state(where, secret_at_hand=False) is home.KeyState.LOCKED
    assert home.key_state(where, secret_at_hand=True) is home.KeyState.READY
    asked: list[str] = []

    def ask() -> bytes:
        asked.append("asked")
        return b"open sesame"

    reader, signing = home.sync_replica(where, None)
    assert not signing and asked == []  # no way to ask: receive only, nothing asked
    assert reader.identity is not None and reader.identity.key is None
    signer, signing = home.sync_replica(where, ask)
    assert signing and asked == ["asked"]
    assert signer.identity is not None and signer.identity.key is not None
    with pytest.raises(home.WrongPassphrase):
        home.unlock(where, "open sesame!")
    secret, _ = home.unlock(where, "open sesame")
    assert secret == b"open sesame"
    with pytest.raises(HexpostError, match="the passphrase is empty"):
        home.passphrase_bytes("")
    with pytest.raises(HexpostError, match="already has an identity"):
        home.create_identity(where, "Carol", "carol@example.org", None)
    where.close()


# --- the services' own rules --------------------------------------------------------------------


FORBIDDEN_MODULES = ("textual", "rich", "argparse", "getpass", "tui.safe_text", "tui.screens",
                     "tui.widgets", "tui.commands", "tui.cli", "tui.app")  # fmt: skip
FORBIDDEN_CALLS = ("print", "input", "exit", "now", "time", "getpass", "FolderTransport",
                   "MailTransport")  # fmt: skip


def _imports(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module


def _called(tree: ast.AST) -> Iterator[tuple[str, int]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            yield name, node.lineno


@pytest.mark.parametrize("path", sorted(SERVICES.glob("*.py")), ids=lambda p: p.name)
def test_a_service_imports_no_face_and_reads_no_clock(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for module in _imports(tree):  # function-level imports too
        for banned in FORBIDDEN_MODULES:
            assert module != banned and not module.startswith(banned + "."), (path.name, module)
    allowed: dict[str, Callable[[Path], bool]] = {
        # The one place a transport is built from config.toml: the faces' default factory.
        "FolderTransport": lambda p: p.name == "transport.py",
        "MailTransport": lambda p: p.name == "transport.py",
    }
    for name, line in _called(tree):
        if name in FORBIDDEN_CALLS and not (name in allowed and allowed[name](path)):
            pytest.fail(f"{path.name}:{line} calls {name}()")
