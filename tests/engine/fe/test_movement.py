"""Operational movement (203.1) and pinning (203.5) on small hand-made boards on the real map.

Geometry used below (odd columns sit half a hex higher): column 14 runs north from the
Klingon capital 1411 through 1410, 1409, ... 1404, each hex adjacent to the next, so
1411 -> 1405 is six hexes and 1411 -> 1404 seven.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from engine.core.ruleset import Violation
from engine.fe import board_views
from engine.fe.forces import Board, Unit, war_pairs
from engine.fe.galaxy import load_galaxy
from engine.fe.movement import (
    Move,
    apply_move,
    check_allowance,
    check_move,
    check_released,
    limit,
    remaining,
    spend,
)
from engine.fe.pinning import (
    PinNeed,
    PinStrength,
    covers,
    enemies_in,
    free_to_leave,
    is_ship,
    pin_need,
    pin_strength,
)

G = load_galaxy()


def north(start: int, hexes: int) -> tuple[int, ...]:
    """``start`` and the ``hexes`` hexes due north of it, in the same column."""
    return tuple(start - k for k in range(hexes + 1))


def unit(uid: str, cls: str, h: int, crippled: bool = False, fleet: str = "") -> Unit:
    return Unit(uid, uid[:3], cls, h, crippled, fleet)


def board(*units: Unit, war: bool = True, released: tuple[tuple[str, str], ...] = ()) -> Board:
    at_war = war_pairs([("KLI", "KZI")]) if war else ()
    return Board(at_war=at_war, released=released).with_units(units)


def messages(found: list[Violation]) -> list[str]:
    return [v.message for v in found]


# --- allowance and path ------------------------------------------------------------------


def test_a_warship_moves_exactly_its_allowance() -> None:
    b = board(unit("KLI-01", "D7", 1411))
    move = Move(("KLI-01",), north(1411, 6))
    assert check_move(G, b, "KLI", move) == []
    after = apply_move(b, move)
    assert after.unit("KLI-01").hex == 1405
    assert b.unit("KLI-01").hex == 1411  # the board is immutable


def test_one_hex_more_than_the_allowance_is_refused() -> None:
    b = board(unit("KLI-01", "D7", 1411))
    found = check_move(G, b, "KLI", Move(("KLI-01",), north(1411, 7)))
    assert found == [Violation("KLI-01 (D7): 1411->1404 needs 7 hexes, allowance 6", "203.1")]


def test_each_unit_of_a_stack_has_its_own_allowance() -> None:
    b = board(
        unit("KLI-01", "F5", 1411), unit("KLI-02", "FRD", 1411), unit("KLI-03", "CONVOY", 1411)
    )
    assert check_move(G, b, "KLI", Move(("KLI-01", "KLI-02", "KLI-03"), north(1411, 1))) == []
    found = check_move(G, b, "KLI", Move(("KLI-01", "KLI-02", "KLI-03"), north(1411, 3)))
    assert messages(found) == [
        "KLI-02 (FRD): 1411->1408 needs 3 hexes, allowance 1",
        "KLI-03 (CONVOY): 1411->1408 needs 3 hexes, allowance 2",
    ]


def test_a_base_cannot_move() -> None:
    b = board(unit("KLI-01", "SB", 1411))
    found = check_move(G, b, "KLI", Move(("KLI-01",), north(1411, 1)))
    assert found == [Violation("KLI-01 (SB) cannot move by itself", "203.1")]


def test_steps_must_be_to_adjacent_hexes() -> None:
    b = board(unit("KLI-01", "D7", 1411))
    found = check_move(G, b, "KLI", Move(("KLI-01",), (1411, 1410, 1408)))
    assert found == [Violation("1410->1408 is not a step to an adjacent hex", "203.1")]


def test_no_hex_off_the_map() -> None:
    b = board(unit("KLI-01", "D7", 101))
    found = check_move(G, b, "KLI", Move(("KLI-01",), (101, 100)))
    assert found == [Violation("hex 0100 is not on the map", "203.1")]
    edge = check_move(G, b, "KLI", Move(("KLI-01",), (101, 201, 301)))
    assert edge == []


def test_a_move_needs_a_step_units_and_no_duplicates() -> None:
    b = board(unit("KLI-01", "D7", 1411))
    assert check_move(G, b, "KLI", Move(("KLI-01",), (1411,)))[0].rule == "203.1"
    assert messages(check_move(G, b, "KLI", Move((), north(1411, 1)))) == [
        "a move needs at least one unit"
    ]
    assert messages(check_move(G, b, "KLI", Move(("KLI-01", "KLI-01"), north(1411, 1)))) == [
        "KLI-01 is listed twice"
    ]
    assert messages(check_move(G, b, "KLI", Move(("KLI-09",), north(1411, 1)))) == [
        "there is no unit KLI-09"
    ]
    # An id typed in other capitals is named as it is written (ids are matched exactly).
    assert messages(check_move(G, b, "KLI", Move(("kli-01",), north(1411, 1)))) == [
        "there is no unit kli-01; its id is written KLI-01"
    ]


def test_every_unit_must_start_in_the_first_hex() -> None:
    b = board(unit("KLI-01", "D7", 1411), unit("KLI-02", "D7", 1410))
    found = check_move(G, b, "KLI", Move(("KLI-01", "KLI-02"), north(1411, 2)))
    assert messages(found) == ["KLI-02 is in 1410, not in 1411"]


def test_only_the_moving_empires_own_units() -> None:
    b = board(unit("KLI-01", "D7", 1411), unit("KZI-01", "FF", 1411))
    found = check_move(G, b, "KLI", Move(("KLI-01", "KZI-01"), (1411, 1511)))
    assert found[0] == Violation("KZI-01 belongs to KZI; KLI moves only its own units", "105.0")


def test_an_unreleased_fleet_may_not_move() -> None:
    units = (unit("KLI-01", "D7", 1411, fleet="North"), unit("KLI-02", "F5", 1411, fleet="North"))
    move = Move(("KLI-01", "KLI-02"), north(1411, 1))
    found = check_move(G, board(*units), "KLI", move)
    assert found == [
        Violation(
            "fleet North (KLI) is not released (600-series scenario rules): KLI-01, KLI-02",
            "600.3",
        )
    ]
    assert check_move(G, board(*units, released=(("KLI", "North"),)), "KLI", move) == []


# --- several batches in one phase --------------------------------------------------------


def test_batches_share_one_allowance() -> None:
    b = board(unit("KLI-01", "D7", 1411), unit("KLI-02", "D7", 1411))
    first = Move(("KLI-01", "KLI-02"), north(1411, 4))
    assert check_move(G, b, "KLI", first) == []
    b, moved = apply_move(b, first), spend(None, first)
    assert moved == {"KLI-01": 4, "KLI-02": 4}
    assert remaining(b.unit("KLI-01"), moved) == 2

    second = Move(("KLI-01",), north(1407, 2))
    assert check_move(G, b, "KLI", second, moved) == []
    third = Move(("KLI-02",), north(1407, 3))
    assert check_move(G, b, "KLI", third, moved) == [
        Violation(
            "KLI-02 (D7): 1407->1404 needs 3 hexes, allowance 6 (4 already moved this phase)",
            "203.1",
        )
    ]
    b, moved = apply_move(b, second), spend(moved, second)
    assert moved == {"KLI-01": 6, "KLI-02": 4}
    assert check_move(G, b, "KLI", Move(("KLI-01",), (1405, 1404)), moved)[0].rule == "203.1"


# --- pinning -----------------------------------------------------------------------------


def test_the_qa_example_three_ships_a_cripple_and_nine_fighter_factors() -> None:
    """F&E Q&A (Oct 2007): three ships, one crippled ship and nine fighter factors pin four
    ships and two crippled ships. Here: a Kzinti CV (6 factors), CVE (3), CC and a crippled
    FF: ships 3 whole + cripple 1 half; fighters 9 factors = 1 whole + 1 half."""
    force = [
        unit("KZI-01", "CV", 1409),
        unit("KZI-02", "CVE", 1409),
        unit("KZI-03", "CC", 1409),
        unit("KZI-04", "FF", 1409, crippled=True),
    ]
    strength = pin_strength(force)
    assert strength == PinStrength(whole=4, half=2)
    assert strength.se2 == 10  # five ship equivalents
    assert covers(strength, PinNeed(ships=4, cripples=2))
    assert covers(strength, PinNeed(ships=3, cripples=4))  # a whole point pins two cripples
    assert not covers(strength, PinNeed(ships=5, cripples=0))
    assert not covers(strength, PinNeed(ships=4, cripples=3))

    klingons = [unit(f"KLI-0{k}", "D7", 1409) for k in range(1, 5)] + [
        unit("KLI-05", "F5", 1409, crippled=True),
        unit("KLI-06", "F5", 1409, crippled=True),
    ]
    assert pin_need(klingons) == PinNeed(ships=4, cripples=2)
    # In one hex, each side is held by the other. To pin the Kzintis takes three ships and a
    # half (fighters are never pinned themselves); the Klingons have five whole points (two
    # cripples combine), so any one Klingon may leave:
    b = board(*force, *klingons)
    assert pin_need(force) == PinNeed(ships=3, cripples=1)
    assert free_to_leave(b, b.unit("KLI-01"))
    # ...while no Kzinti may: the force is exactly enough to hold the six Klingons.
    assert not free_to_leave(b, b.unit("KZI-01"))
    assert not free_to_leave(b, b.unit("KZI-04"))


def test_without_fighters_ships_alone_pin_fewer() -> None:
    ships = [
        unit("KZI-01", "CC", 1409),
        unit("KZI-02", "FF", 1409),
        unit("KZI-03", "FF", 1409),
        unit("KZI-04", "FF", 1409, crippled=True),
    ]
    assert pin_strength(ships) == PinStrength(whole=3, half=1)
    assert not covers(pin_strength(ships), PinNeed(ships=4, cripples=2))
    two_cripples = [unit("KZI-05", "FF", 1409, True), unit("KZI-06", "FF", 1409, True)]
    assert pin_strength(two_cripples) == PinStrength(whole=1)  # cripples combine


def test_halves_of_unlike_units_do_not_combine() -> None:
    """A crippled D6V: half a ship, and 3 fighter factors on its crippled side (half a ship
    equivalent of fighters): together one ship equivalent, but no whole pinning point."""
    d6v = unit("KLI-01", "D6V", 1409, crippled=True)
    assert pin_strength([d6v]) == PinStrength(whole=0, half=2)
    assert pin_strength([unit("KZI-01", "CV", 1409, crippled=True)]) == PinStrength(0, 2)
    b = board(d6v, unit("KLI-02", "D7", 1409), unit("KZI-01", "FF", 1409))
    found = check_move(G, b, "KLI", Move(("KLI-02",), (1409, 1408)))
    assert found == [
        Violation(
            "1409 holds 1 enemy ship equivalent; 1 stays to pin them, but halves of unlike "
            "units (a cripple, three fighter factors, three PFs) do not add up to a whole ship",
            "203.54",
        )
    ]
    assert free_to_leave(b, b.unit("KLI-01"))  # the D7 would pin the FF for the D6V


def test_non_ship_units_neither_pin_nor_hold() -> None:
    frd, convoy, base = (
        unit("KZI-01", "FRD", 1409),
        unit("KZI-02", "CONVOY", 1409),
        unit("KZI-03", "SB", 1409),
    )
    assert not is_ship(frd) and not is_ship(convoy) and not is_ship(base)
    assert pin_need([frd, convoy, base]) == PinNeed()
    assert pin_strength([frd, convoy, base]) == PinStrength()
    b = board(unit("KLI-01", "D7", 1411), frd, convoy, base)
    assert check_move(G, b, "KLI", Move(("KLI-01",), north(1411, 4))) == []


def test_a_stack_may_not_pass_an_enemy_ship_without_leaving_a_pin() -> None:
    b = board(
        unit("KLI-01", "D7", 1411),
        unit("KLI-02", "D7", 1411),
        unit("KLI-03", "F5", 1411),
        unit("KZI-01", "CC", 1409),
    )
    through = Move(("KLI-01", "KLI-02", "KLI-03"), north(1411, 3))
    assert check_move(G, b, "KLI", through) == [
        Violation("1409 holds 1 enemy ship equivalent; 0 stays to pin them, 1 is needed", "203.5")
    ]
    # Entering the enemy's hex and stopping there is always allowed.
    assert check_move(G, b, "KLI", Move(through.unit_ids, north(1411, 2))) == []


def test_a_stack_passes_when_it_leaves_enough_behind() -> None:
    b = board(
        unit("KLI-01", "D7", 1411),
        unit("KLI-02", "D7", 1411),
        unit("KLI-03", "F5", 1411),
        unit("KZI-01", "CC", 1409),
    )
    stay = Move(("KLI-03",), north(1411, 2))
    assert check_move(G, b, "KLI", stay) == []
    b, moved = apply_move(b, stay), spend(None, stay)
    go = Move(("KLI-01", "KLI-02"), north(1411, 5))
    assert check_move(G, b, "KLI", go, moved) == []
    after = apply_move(b, go)
    assert [(u.id, u.hex) for u in after.units] == [
        ("KLI-01", 1406), ("KLI-02", 1406), ("KLI-03", 1409), ("KZI-01", 1409),
    ]  # fmt: skip


def test_a_cripple_left_behind_does_not_pin_a_ship() -> None:
    b = board(
        unit("KLI-01", "D7", 1411),
        unit("KLI-03", "F5", 1409, crippled=True),
        unit("KZI-01", "CC", 1409),
    )
    found = check_move(G, b, "KLI", Move(("KLI-01",), north(1411, 3)))
    assert found == [
        Violation("1409 holds 1 enemy ship equivalent; 0.5 stays to pin them, 1 is needed", "203.5")
    ]


def test_the_message_names_the_hex_and_the_numbers() -> None:
    b = board(
        unit("KLI-01", "D7", 1511),
        unit("KLI-02", "F5", 1510),
        *(unit(f"KZI-0{k}", "FF", 1510) for k in range(1, 4)),
    )
    found = check_move(G, b, "KLI", Move(("KLI-01",), (1511, 1510, 1509)))
    assert found == [
        Violation("1510 holds 3 enemy ship equivalents; 1 stays to pin them, 3 are needed", "203.5")
    ]


def test_pinned_units_leave_only_in_excess_of_the_enemy() -> None:
    b = board(
        unit("KLI-01", "D7", 1409),
        unit("KLI-02", "D7", 1409),
        unit("KLI-03", "F5", 1409),
        unit("KZI-01", "FF", 1409),
        unit("KZI-02", "FF", 1409, crippled=True),
    )
    # The Kzintis need one whole point and one half: two Klingon ships must stay.
    assert check_move(G, b, "KLI", Move(("KLI-01",), (1409, 1408))) == []
    refused = check_move(G, b, "KLI", Move(("KLI-01", "KLI-02"), (1409, 1408)))
    assert refused == [
        Violation(
            "1409 holds 1.5 enemy ship equivalents; 1 stays to pin them, 1.5 are needed", "203.5"
        )
    ]
    # The owner chooses who stays: the F5 may go just as well as a D7.
    assert check_move(G, b, "KLI", Move(("KLI-03",), (1409, 1408))) == []
    # The Kzintis are pinned by three Klingon ships: neither may leave.
    assert not free_to_leave(b, b.unit("KZI-02"))


def test_only_enemies_pin() -> None:
    units = (unit("KLI-01", "D7", 1411), unit("KZI-01", "CC", 1409))
    move = Move(("KLI-01",), north(1411, 4))
    assert check_move(G, board(*units, war=False), "KLI", move) == []
    assert check_move(G, board(*units), "KLI", move)[0].rule == "203.5"


# --- determinism -------------------------------------------------------------------------


def test_same_inputs_same_outputs_whatever_the_order_of_ids() -> None:
    units = [
        unit("KLI-03", "FRD", 1411),
        unit("KLI-01", "D7", 1411, fleet="North"),
        unit("KLI-02", "CONVOY", 1411),
        unit("KZI-01", "CC", 1409),
    ]
    b1, b2 = board(*units), board(*reversed(units))
    assert msgspec.json.encode(b1) == msgspec.json.encode(b2)
    m1 = Move(("KLI-01", "KLI-02", "KLI-03"), north(1411, 4))
    m2 = Move(("KLI-03", "KLI-02", "KLI-01"), north(1411, 4))
    found = check_move(G, b1, "KLI", m1)
    assert found == check_move(G, b2, "KLI", m2) == check_move(G, b1, "KLI", m1)
    assert [v.rule for v in found] == ["600.3", "203.1", "203.1", "203.5"]
    ok = Move(("KLI-02", "KLI-03"), north(1411, 1))
    assert msgspec.json.encode(apply_move(b1, ok)) == msgspec.json.encode(
        apply_move(b2, Move(("KLI-03", "KLI-02"), north(1411, 1)))
    )
    assert list(spend({"KLI-03": 1}, ok)) == ["KLI-02", "KLI-03"]


@pytest.mark.parametrize("hexes", [1, 2, 3, 4, 5, 6])
def test_every_length_within_the_allowance_is_legal(hexes: int) -> None:
    b = board(unit("KLI-01", "D7", 1411))
    assert check_move(G, b, "KLI", Move(("KLI-01",), north(1411, hexes))) == []


def test_enemies_in_a_hex_match_a_unit_by_unit_reading_as_units_move() -> None:
    """`pinning.enemies_in` asks the board's carried empires-by-hex view whether any enemy
    is in the hex before reading it: as random stacks move in and out of each other's hexes
    (wars on and off between boards), its answer is the plain unit-by-unit one."""
    rng = random.Random(203)
    hexes = [1405, 1406, 1407, 1506]
    units = [
        unit(
            f"{e}-{n:02d}",
            "CA" if e == "FED" else ("D7" if e == "KLI" else "CL"),
            rng.choice(hexes),
        )
        for e in ("FED", "KLI", "KZI")
        for n in range(6)
    ]
    b = board(*units)
    seen = set()
    for round_ in range(40):
        board_views.empires_by_hex(b)  # the view is built, then carried by with_units
        mover = rng.choice(b.units)
        b = b.with_units([msgspec.structs.replace(mover, hex=rng.choice(hexes))])
        if round_ % 10 == 9:
            wars = [("KLI", "KZI"), ("FED", "KLI")][: rng.randint(0, 2)]
            b = msgspec.structs.replace(b, at_war=war_pairs(wars))
        for empire in ("FED", "KLI", "KZI"):
            for h in hexes:
                plain = tuple(u for u in b.at(h) if b.enemies(empire, u.empire))
                assert enemies_in(b, empire, h) == plain, (round_, empire, h)
                seen.add(bool(plain))
    assert seen == {True, False}


def _allowance_unit_by_unit(
    move: Move, units: list[Unit], moved: dict[str, int] | None, cost: int, halved: tuple[str, ...]
) -> list[Violation]:
    """`check_allowance` read unit by unit, with `remaining` and `limit` asked for each unit
    (as it read before it judged a stack's classes at once when nobody is short)."""
    out = []
    for u in units:
        full = u.info().move
        if full == 0:
            out.append(Violation(f"{u.id} ({u.cls}) cannot move by itself", "203.1"))
            continue
        need = move.hexes * cost
        if need > remaining(u, moved, halved):
            most = limit(u, halved)
            spent = (moved or {}).get(u.id, 0)
            already = f" ({spent} already moved this phase)" if spent else ""
            needs = f"{move.hexes} hexes" + (
                f" ({need} movement points at {cost} a hex)" if cost != 1 else ""
            )
            route = f"{move.path[0]:04d}->{move.path[-1]:04d}"
            if u.id in halved:
                text = (
                    f"{u.id} ({u.cls}) is out of supply and moves at half speed: "
                    f"{route} needs {needs}, allowance {full} halved to {most}{already}"
                )
                out.append(Violation(text, "410.31"))
            else:
                text = f"{u.id} ({u.cls}): {route} needs {needs}, allowance {full}{already}"
                out.append(Violation(text, "203.1"))
    return out


def test_allowance_and_release_checks_match_a_unit_by_unit_reading() -> None:
    """A stack's allowance (203.1, 410.31) and fleet release (600.3) are judged by class
    and by fleet when nothing stands in the way; on random stacks (spent hexes, halved
    units, bases, FRDs, convoys, held fleets) the refusals are those a reading of each unit
    gives, in the same order."""
    rng = random.Random(2031)
    classes = ["D7", "F5", "B10", "CVT", "D6"] * 4 + ["FRD", "SB"]
    fleets = ["", "North", "South"]
    refused = passed = 0
    for _ in range(300):
        units = [
            unit(f"KLI-{n:02d}", rng.choice(classes), 1411, fleet=rng.choice(fleets))
            for n in range(rng.randint(1, 8))
        ]
        released = tuple(("KLI", f) for f in fleets[1:] if rng.random() < 0.6)
        b = board(*units, released=released)
        hexes = rng.randint(1, 5)
        move = Move(tuple(u.id for u in units), north(1411, hexes))
        moved = {u.id: rng.randint(0, 6) for u in units if rng.random() < 0.3} or None
        halved = tuple(u.id for u in units if rng.random() < 0.2)
        cost = rng.choice([1, 1, 2])
        expected = _allowance_unit_by_unit(move, units, moved, cost, halved)
        assert check_allowance(move, units, moved, cost, halved) == expected
        held: dict[tuple[str, str], list[str]] = {}
        for u in units:
            if u.fleet and ("KLI", u.fleet) not in released:
                held.setdefault(("KLI", u.fleet), []).append(u.id)
        assert [v.message for v in check_released(b, units)] == [
            f"fleet {f} ({e}) is not released (600-series scenario rules): " + ", ".join(ids)
            for (e, f), ids in sorted(held.items())
        ]
        refused += bool(expected)
        passed += not expected
    assert refused > 50 and passed > 50
