"""Reaction movement (205.0) on small hand-made boards on the real map.

The Klingons are phasing. Geometry used below: column 14 runs north 1409, 1408, 1407, 1406,
each hex adjacent to the next; 1408's neighbours are 1407, 1508, 1509, 1409, 1309 and 1308.
"""

from __future__ import annotations

import msgspec

from engine.core.ruleset import Violation
from engine.fe.forces import Board, Unit, war_pairs
from engine.fe.galaxy import load_galaxy
from engine.fe.movement import Move, apply_move, check_move
from engine.fe.reaction import (
    Candidate,
    apply_reaction,
    check_reaction,
    mark_reacted,
    reach,
    reaction_candidates,
    why_not,
)

G = load_galaxy()
PHASING = ("KLI",)


def unit(uid: str, cls: str, h: int, crippled: bool = False, fleet: str = "") -> Unit:
    return Unit(uid, uid[:3], cls, h, crippled, fleet)


def board(*units: Unit, released: tuple[tuple[str, str], ...] = ()) -> Board:
    return Board(at_war=war_pairs([("KLI", "KZI")]), released=released).with_units(units)


def step(b: Board, uid: str, a: int, c: int) -> Board:
    """The phasing unit ``uid`` moves one hex, checked."""
    move = Move((uid,), (a, c))
    assert check_move(G, b, "KLI", move) == []
    return apply_move(b, move)


def ids(found: list[Candidate]) -> list[str]:
    return [c.unit_id for c in found]


def test_a_unit_within_one_hex_may_react_into_the_hex() -> None:
    b = board(unit("KLI-01", "D7", 1409), unit("KZI-01", "FF", 1407), unit("KZI-02", "CC", 1405))
    b = step(b, "KLI-01", 1409, 1408)
    found = reaction_candidates(G, b, PHASING, 1408, 1409)
    assert found == [Candidate("KZI-01", 1407, 1)]  # 1405 is three hexes off
    reaction = Move(("KZI-01",), (1407, 1408))
    assert check_reaction(G, b, PHASING, 1408, 1409, reaction) == []
    after = apply_reaction(b, reaction)
    assert after.unit("KZI-01").hex == 1408
    assert mark_reacted((), reaction) == ("KZI-01",)


def test_not_when_the_enemy_moved_away() -> None:
    # Two Klingons sit with a Kzinti frigate in 1409; one leaves (the other pins the FF).
    b = board(unit("KLI-01", "D7", 1409), unit("KLI-02", "D7", 1409), unit("KZI-01", "FF", 1409))
    b = step(b, "KLI-01", 1409, 1408)
    assert reaction_candidates(G, b, PHASING, 1408, 1409) == []
    assert why_not(b, PHASING, 1408, 1409, b.unit("KZI-01")) == Violation(
        "the enemy moved away from KZI-01 (1409->1408)", "205.0"
    )


def test_when_the_enemy_stops_within_range() -> None:
    b = board(unit("KLI-01", "D7", 1408), unit("KZI-01", "FF", 1407))
    assert ids(reaction_candidates(G, b, PHASING, 1408, 1408)) == ["KZI-01"]


def test_moving_past_at_the_same_distance_is_not_away() -> None:
    # 1407 is adjacent to both 1508 and 1408.
    b = board(unit("KLI-01", "D7", 1508), unit("KZI-01", "FF", 1407))
    b = step(b, "KLI-01", 1508, 1408)
    assert ids(reaction_candidates(G, b, PHASING, 1408, 1508)) == ["KZI-01"]


def test_a_unit_reacts_once_per_phase() -> None:
    b = board(unit("KLI-01", "D7", 1409), unit("KZI-01", "FF", 1407))
    b = step(b, "KLI-01", 1409, 1408)
    reacted = mark_reacted((), Move(("KZI-01",), (1407, 1408)))
    assert reaction_candidates(G, b, PHASING, 1408, 1409, reacted) == []
    found = check_reaction(G, b, PHASING, 1408, 1409, Move(("KZI-01",), (1407, 1408)), reacted)
    assert found == [Violation("KZI-01 has already reacted this phase", "205.0")]


def test_pinned_units_may_not_react() -> None:
    # A Klingon F5 sits with the Kzinti FF in 1407: the FF is pinned there.
    b = board(unit("KLI-01", "D7", 1409), unit("KLI-02", "F5", 1407), unit("KZI-01", "FF", 1407))
    b = step(b, "KLI-01", 1409, 1408)
    assert reaction_candidates(G, b, PHASING, 1408, 1409) == []
    found = why_not(b, PHASING, 1408, 1409, b.unit("KZI-01"))
    assert found == Violation(
        "KZI-01 is pinned: 1407 holds 1 enemy ship equivalent; 0 stays to pin them, 1 is needed",
        "203.5",
    )
    refused = check_reaction(G, b, PHASING, 1408, 1409, Move(("KZI-01",), (1407, 1408)))
    assert [v.rule for v in refused] == ["203.5"]


def test_units_in_excess_of_the_pin_may_react_but_not_all_of_them() -> None:
    b = board(
        unit("KLI-01", "D7", 1409),
        unit("KLI-02", "F5", 1407),
        unit("KZI-01", "FF", 1407),
        unit("KZI-02", "FF", 1407),
    )
    b = step(b, "KLI-01", 1409, 1408)
    assert ids(reaction_candidates(G, b, PHASING, 1408, 1409)) == ["KZI-01", "KZI-02"]
    one = Move(("KZI-02",), (1407, 1408))
    assert check_reaction(G, b, PHASING, 1408, 1409, one) == []
    both = Move(("KZI-01", "KZI-02"), (1407, 1408))
    assert check_reaction(G, b, PHASING, 1408, 1409, both) == [
        Violation("1407 holds 1 enemy ship equivalent; 0 stays to pin them, 1 is needed", "203.5")
    ]


def test_the_reaction_goes_toward_the_enemy_and_no_farther_than_its_reach() -> None:
    b = board(unit("KLI-01", "D7", 1409), unit("KZI-01", "FF", 1407))
    b = step(b, "KLI-01", 1409, 1408)
    sideways = check_reaction(G, b, PHASING, 1408, 1409, Move(("KZI-01",), (1407, 1406)))
    assert sideways == [Violation("a reaction moves toward 1408; 1407->1406 does not", "205.0")]
    too_far = check_reaction(G, b, PHASING, 1408, 1409, Move(("KZI-01",), (1407, 1408, 1409)))
    assert [v.message for v in too_far] == [
        "1407->1409 is 2 hexes; the stack may react 1",
        "a reaction moves toward 1408; 1408->1409 does not",
        "1408 holds 1 enemy ship equivalent; 0 stays to pin them, 1 is needed",
    ]


def test_extended_reaction_reaches_two_hexes_but_not_when_the_enemy_moves_away() -> None:
    b = board(unit("KLI-01", "D7", 1410), unit("KZI-01", "FF", 1406))
    b = step(b, "KLI-01", 1410, 1409)
    assert reaction_candidates(G, b, PHASING, 1409, 1410) == []  # three hexes
    b = step(b, "KLI-01", 1409, 1408)
    assert reaction_candidates(G, b, PHASING, 1408, 1409) == []  # two hexes, reach 1
    found = reaction_candidates(G, b, PHASING, 1408, 1409, extended=("KZI-01",))
    assert found == [Candidate("KZI-01", 1406, 2)]
    reaction = Move(("KZI-01",), (1406, 1407, 1408))
    assert check_reaction(G, b, PHASING, 1408, 1409, reaction, extended=("KZI-01",)) == []
    assert check_reaction(G, b, PHASING, 1408, 1409, reaction)[0].rule == "205.0"
    # The enemy comes closer to 1407 (adjacent to the FF) and then moves on, away from it:
    near = board(unit("KLI-01", "D7", 1407), unit("KZI-01", "FF", 1406))
    near = step(near, "KLI-01", 1407, 1408)
    assert reaction_candidates(G, near, PHASING, 1408, 1407, extended=("KZI-01",)) == []


def test_extended_reaction_stops_at_an_enemy_ship_on_the_way() -> None:
    # A Klingon F5 waits in 1407, between the Kzinti FF and the hex the D7 enters.
    b = board(unit("KLI-01", "D7", 1409), unit("KLI-02", "F5", 1407), unit("KZI-01", "FF", 1406))
    b = step(b, "KLI-01", 1409, 1408)
    extended = ("KZI-01",)
    reaction = Move(("KZI-01",), (1406, 1407, 1408))
    assert [v.rule for v in check_reaction(G, b, PHASING, 1408, 1409, reaction, (), extended)] == [
        "203.5"
    ]
    stop = Move(("KZI-01",), (1406, 1407))
    assert check_reaction(G, b, PHASING, 1408, 1409, stop, (), extended) == []


def test_who_cannot_react() -> None:
    b = Board(
        at_war=war_pairs([("KLI", "KZI")]), released=()
    ).with_units([
        unit("KLI-01", "D7", 1408),
        unit("KLI-02", "F5", 1407),       # phasing
        unit("KZI-01", "SB", 1407),       # a base cannot move
        unit("KZI-02", "FF", 1407, fleet="Home"),  # not released
        unit("FED-01", "FF", 1509),       # not at war with the Klingons
        unit("KZI-03", "FF", 1408),       # already there
    ])  # fmt: skip
    assert reaction_candidates(G, b, PHASING, 1408, 1408) == []
    assert reach(b.unit("KZI-01")) == 0
    assert why_not(b, PHASING, 1408, 1408, b.unit("KZI-02")) == Violation(
        "KZI-02: fleet Home (KZI) is not released (600-series scenario rules)", "600.3"
    )
    assert why_not(b, PHASING, 1408, 1408, b.unit("FED-01")) == Violation(
        "no enemy of FED has entered 1408", "205.0"
    )
    assert why_not(b, PHASING, 1408, 1408, b.unit("KZI-03")) == Violation(
        "KZI-03 is already in 1408", "205.0"
    )
    released = msgspec.structs.replace(b, released=(("KZI", "Home"),))
    # Released now, but pinned by the F5 (the base does not pin).
    assert why_not(released, PHASING, 1408, 1408, released.unit("KZI-02")) is not None


def test_reactions_are_deterministic() -> None:
    units = [unit("KLI-01", "D7", 1408)] + [
        unit(f"KZI-0{k}", "FF", h) for k, h in enumerate((1407, 1509, 1309, 1508), 1)
    ]
    b1, b2 = board(*units), board(*reversed(units))
    first = reaction_candidates(G, b1, PHASING, 1408, 1408)
    assert first == reaction_candidates(G, b2, PHASING, 1408, 1408)
    assert ids(first) == ["KZI-01", "KZI-02", "KZI-03", "KZI-04"]
    assert mark_reacted(("KZI-03",), Move(("KZI-02", "KZI-01"), (1407, 1408))) == (
        "KZI-01", "KZI-02", "KZI-03",
    )  # fmt: skip
