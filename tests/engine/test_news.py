"""The summary of what arrived (`engine.core.news`) and F&E's wording of its events.

The F&E cases read the events of the recorded Wind game (`tests/golden/fe_wind.msgpack`),
replayed packet by packet, so they summarize what real packets do.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from engine.core.face import headline_of
from engine.core.game import apply_packet
from engine.core.news import (
    MAX_LINE,
    PER_KIND,
    PER_SEAT,
    left_off,
    news_words,
    plain_headline,
    shorten,
    summarize,
    without_rule,
)
from engine.core.packets import key_id, open_packet
from engine.core.ruleset import Event
from engine.fe import headlines
from engine.fe.face import FeFace
from saves.registry import ruleset_for
from tests.golden.companion import read_golden

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "fe_wind.msgpack"


@cache
def wind_packets() -> tuple[tuple[str, tuple[Event, ...]], ...]:
    """Each packet of the recorded Wind game as (author seat, the events it caused)."""
    golden = read_golden(GOLDEN)
    ruleset = ruleset_for("fe")
    keys: dict[bytes, bytes] = {}
    state = None
    found = []
    for data in golden.packets:
        packet = open_packet(data, lambda kid: [keys[kid]] if kid in keys else [])
        if packet.envelope.public_key:
            keys[key_id(packet.envelope.public_key)] = packet.envelope.public_key
        result = apply_packet(ruleset, state, packet)
        state = result.state
        found.append((packet.body.seat, tuple(result.events)))
    return tuple(found)


def test_routine_events_are_counted_and_the_rest_listed_by_the_packets_author() -> None:
    packets = [
        ("coalition", [Event("step-auto", "1A2 done by the engine"), Event("move", "moved A")]),
        ("alliance", [Event("chat", "hello\nthere"), Event("step-passed", "nothing to do")]),
        ("coalition", [Event("battle", "battle at 0701 (302.9)", seat="")]),
    ]
    news = summarize(packets)
    assert news.packets == 3
    assert [(s.seat, s.packets) for s in news.seats] == [("coalition", 2), ("alliance", 1)]
    coalition, alliance = news.seats
    assert coalition.lines == ("moved A", "battle at 0701")  # the rule reference dropped
    assert coalition.routine == 1
    assert alliance.lines == ("says: hello there",)  # a chat line stays one line
    assert alliance.routine == 1
    assert news_words(coalition) == "moved A; battle at 0701; 1 routine step"


def test_a_flood_of_packets_gives_a_few_lines_and_counts() -> None:
    kinds = ["move", "build", "place", "war", "release"]
    packets = [
        ("alliance", [Event(kinds[n % 5], f"event {n}"), Event("step-done", "done")])
        for n in range(1000)
    ]
    news = summarize(packets)
    [seat] = news.seats
    assert seat.packets == 1000
    assert len(seat.lines) <= PER_SEAT
    assert seat.lines[:2] == ("event 0", "event 1")
    per_kind = {
        kind: sum(line in {f"event {n}" for n in range(k, 1000, 5)} for line in seat.lines)
        for k, kind in enumerate(kinds)
    }
    assert max(per_kind.values()) <= PER_KIND
    assert len(seat.lines) + sum(count for _, count in seat.more) == 1000
    assert seat.routine == 1000
    assert left_off(seat).startswith("more: ")
    assert len(news_words(seat)) < 400


def test_hostile_text_is_kept_on_one_line_and_cut() -> None:
    event = Event("adjust", "A" * 500 + "\n\x1b[2J fake line")
    line = plain_headline(event)
    assert line is not None and len(line) == MAX_LINE and line.endswith("...")
    assert "\n" not in shorten("one\ntwo\r\nthree") == "one two three"
    assert plain_headline(Event("commit", "x committed")) is None
    # A resignation under its seat's heading: the seat is not said twice.
    resigned = Event("resign", "alliance resigned: outplayed", "alliance")
    assert plain_headline(resigned) == "resigned: outplayed"
    assert plain_headline(Event("note", "   ")) is None


def test_a_trailing_rule_reference_is_dropped_and_nothing_else() -> None:
    assert without_rule("fighters come back (530.12, 501.5)") == "fighters come back"
    assert without_rule("retreats to 0601 (302.71)") == "retreats to 0601"
    assert without_rule("LYR sets up Home Fleet in 0111 (19 units)") == (
        "LYR sets up Home Fleet in 0111 (19 units)"
    )


def test_a_face_without_headlines_falls_back_to_the_plain_wording() -> None:
    assert headline_of(object()) is None
    hook = headline_of(FeFace())
    assert hook is not None
    assert hook(Event("supply", "LYR: 104 in supply (410.22)")) is None


def test_the_coalitions_first_economic_turn_reads_as_income_and_builds() -> None:
    """Packets 6 to 8 of the Wind: the coalition's income and its two builds (431.0)."""
    packets = [p for p in wind_packets()[6:9] if p[0] == "coalition"]
    news = summarize(packets, headlines.headline)
    [coalition] = news.seats
    assert coalition.lines == (
        "LYR collects 115 EP",
        "KLI collects 142 EP",
        "LYR built FF at 0408 (2.5 EP)",
        "KLI built F5 at 1411 (3 EP)",
    )
    assert coalition.routine > 10  # supply checks, automatic and completed steps


def test_the_coalitions_movement_names_the_stacks_and_their_ends() -> None:
    news = summarize(wind_packets()[12:40], headlines.headline)
    coalition = next(s for s in news.seats if s.seat == "coalition")
    assert "LYR moved 6 units 0303->0701" in coalition.lines
    alliance = next(s for s in news.seats if s.seat == "alliance")
    assert any(line.startswith("Battle hexes: 0701") for line in alliance.lines)


def test_set_up_of_dozens_of_units_is_a_few_lines_and_a_count() -> None:
    """Packet 2 places 35 Lyran stacks one by one: two lines, the rest counted."""
    news = summarize(wind_packets()[2:3], headlines.headline)
    [coalition] = news.seats
    places = [line for line in coalition.lines if " sets up " in line]
    assert len(places) == PER_KIND
    assert ("place", 35 - PER_KIND) in coalition.more


def test_every_recorded_event_gets_a_line_or_counts_as_routine() -> None:
    """No F&E event makes the headline raise or return an empty line."""
    for _, events in wind_packets():
        for event in events:
            line = headlines.headline(event)
            assert line is None or 0 < len(line) <= MAX_LINE, event


def test_a_rare_kind_after_many_common_ones_still_shows() -> None:
    """Each kind's first line is chosen before any kind's second: a war declared after a
    dozen releases and set-ups shows, in the order it came."""
    events = [Event("place", f"set up {n}") for n in range(12)]
    events += [Event("release", f"released {n}") for n in range(12)]
    events.append(Event("war", "KLI declares war on KZI"))
    [seat] = summarize([("coalition", events)]).seats
    assert seat.lines == (
        "set up 0", "set up 1", "released 0", "released 1", "KLI declares war on KZI",
    )  # fmt: skip
    assert seat.more == (("place", 10), ("release", 10))
    many = [Event(f"kind-{n}", f"line {n}") for n in range(PER_SEAT + 3)]
    [crowded] = summarize([("alliance", many)]).seats
    assert crowded.lines == tuple(f"line {n}" for n in range(PER_SEAT))
    assert crowded.more == tuple((f"kind-{n}", 1) for n in range(PER_SEAT, PER_SEAT + 3))


def test_a_combat_phase_without_battles_is_said_once() -> None:
    """Two areas say which hexes a combat phase fights: the battle-hex list (a line) and the
    combat loop's order of them, routine unless there are two hexes or more to order."""
    listed = Event("battle-hexes", "No battle hexes: nobody fights (302.0)", "coalition")
    passed = Event("battle", "no battle hexes: the phase passes", "coalition", "5-1", {"hexes": []})
    one = Event("battle", "battle hexes in order: 0701", "coalition", "5-1", {"hexes": ["0701"]})
    two = Event("battle", "in order: 0701, 1105", "coalition", "5-1", {"hexes": ["0701", "1105"]})
    assert headlines.headline(listed) == "No battle hexes: nobody fights"
    assert headlines.headline(passed) is None
    assert headlines.headline(one) is None  # one hex: no order to tell
    assert headlines.headline(two) == "in order: 0701, 1105"


def test_a_die_asked_for_is_routine_as_the_die_rolled() -> None:
    """What the die decides is the ruleset's own event (the damage of a round): the request
    that armed it, like the roll, is bookkeeping."""
    asked = Event("roll-armed", "alliance asked for 1d6 for combat die, 1107 round 1")
    news = summarize([("alliance", [asked])], headlines.headline)
    assert news.seats[0].lines == () and news.seats[0].routine == 1


def test_a_step_answered_by_a_policy_is_routine() -> None:
    """A step the seats' signed policies answered is bookkeeping: what the policy chose raises
    its own events (a secret committed, a flagship named), and the line "5-3D ...: answered
    for the seats" in the news said nothing a player acts on."""
    answered = Event("step-policy", "5-3D Secretly choose flagships: answered for the seats")
    moved = Event("move", "moved A")
    for headline in (None, headlines.headline):
        news = summarize([("alliance", [moved, answered])], headline)
        assert news.seats[0].lines == ("moved A",) and news.seats[0].routine == 1


def test_a_player_s_own_dice_are_news_and_the_engine_s_are_routine() -> None:
    """A ``roll`` order's dice are kept nowhere but in the core's roll event (no rule of the
    engine reads them): counted as routine, a player who rolled for a rule played by hand
    never read the result in the news. The engine's own dice (combat, variable BIR, pursuit,
    capture) stay routine: the damage and the other events they decide are listed."""
    from engine.fe.steps import combat_capture, combat_round, pursuit_die, pursuit_round

    def rolled(purpose: str) -> Event:
        text = f"coalition rolled 2d6 for {purpose}: 3, 4"
        return Event("roll", text, "coalition", "4A", {"purpose": purpose, "dice": [3, 4]})

    assert headlines.headline(rolled("planetary assault")) == (
        "coalition rolled 2d6 for planetary assault: 3, 4"
    )
    engine_purposes = (
        combat_round.VBIR_PURPOSE,
        combat_round.DAMAGE_PURPOSE,
        pursuit_round.VBIR_PURPOSE,
        pursuit_round.DAMAGE_PURPOSE,
        combat_capture.CAPTURE_PURPOSE,
        pursuit_die.PURSUIT_PURPOSE,
    )
    for purpose in engine_purposes:
        assert headlines.headline(rolled(f"{purpose}, 1107 round 2, coalition")) is None
    assert headlines.headline(Event("roll", "no data", "coalition")) is None  # (an older event)
