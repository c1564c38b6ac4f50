"""Set-up: starting units with stable ids, placed only within their fleets' set-up hexes."""

from __future__ import annotations

import random

import msgspec
import pytest

from engine.fe.forces import OFF_MAP, Board
from engine.fe.oob import EmpireSetup
from engine.fe.scenario import find_scenario
from engine.fe.setup import (
    Placement,
    apply_placements,
    check_placements,
    placeable,
    starting_units,
    to_place,
)


def wind() -> tuple[Board, dict[str, EmpireSetup]]:
    scenario = find_scenario("the-wind")
    assert scenario is not None and scenario.setup is not None
    board = Board(units=starting_units(scenario.setup))
    return board, {e.empire: e for e in scenario.setup.empires}


def test_starting_units_have_stable_sorted_ids_and_start_off_the_map() -> None:
    board, setups = wind()
    ids = [u.id for u in board.units]
    assert ids == sorted(ids) and len(ids) == len(set(ids))
    assert all(u.hex == OFF_MAP for u in board.units)
    assert board.units == wind()[0].units
    klingon = setups["KLI"]
    expected = sum(c.count for f in klingon.fleets for c in f.units)
    assert sum(1 for u in board.units if u.empire == "KLI") == expected


def test_a_fleet_sets_up_inside_its_hexes() -> None:
    board, setups = wind()
    klingon = setups["KLI"]
    home = next(f for f in klingon.fleets if f.name == "Home Fleet")
    placement = Placement(hex=home.hexes[0], fleet="Home Fleet")
    assert check_placements(board, klingon, [placement]) == []
    board = apply_placements(board, klingon, [placement])
    placed = [u for u in board.units if u.fleet == "Home Fleet" and u.empire == "KLI"]
    assert placed and all(u.hex == home.hexes[0] for u in placed)
    assert not any(u.fleet == "Home Fleet" for u in to_place(board, klingon))


def test_set_up_outside_the_set_up_hexes_is_refused_with_the_rule() -> None:
    board, setups = wind()
    klingon = setups["KLI"]
    (violation,) = check_placements(board, klingon, [Placement(hex=2908, fleet="Home Fleet")])
    assert violation.rule == "600.0"
    assert violation.message.startswith("Home Fleet may not set up in 2908: its set-up hexes are")
    unit = next(u for u in board.units if u.empire == "KLI")
    (single,) = check_placements(board, klingon, [Placement(hex=2908, unit=unit.id)])
    assert unit.id in single.message and unit.cls in single.message


@pytest.mark.parametrize(
    ("placement", "words"),
    [
        (Placement(hex=1411, unit="FED-0001"), "is not a unit of KLI"),
        (Placement(hex=1411, unit="KLI-9999"), "there is no unit KLI-9999"),
        (
            Placement(hex=1411, unit="kli-0001"),
            "there is no unit kli-0001; its id is written KLI-0001",
        ),
        (Placement(hex=1411, fleet="Armada"), "KLI has no fleet 'Armada'"),
        (Placement(hex=1411), "either a unit or a fleet"),
    ],
)
def test_bad_placements(placement: Placement, words: str) -> None:
    board, setups = wind()
    (violation,) = check_placements(board, setups["KLI"], [placement])
    assert words in violation.message


def test_a_fleet_misnamed_is_refused_with_the_names_it_could_be() -> None:
    board, setups = wind()
    klingon = setups["KLI"]
    (wrong_case,) = check_placements(board, klingon, [Placement(hex=1411, fleet="home fleet")])
    assert wrong_case.message == (
        "KLI has no fleet 'home fleet': a fleet's name is written as the scenario writes it, "
        "'Home Fleet'"
    )
    (unknown,) = check_placements(board, klingon, [Placement(hex=1411, fleet="Armada")])
    on_map = sorted(repr(fleet.name) for fleet in klingon.fleets if placeable(fleet))
    assert len(on_map) > 6  # (names hold commas: each is quoted)
    assert unknown.message == (
        f"KLI has no fleet 'Armada'; its fleets that set up on the map are "
        f"{', '.join(on_map[:6])} and {len(on_map) - 6} more"
    )


def test_a_unit_is_set_up_once() -> None:
    board, setups = wind()
    klingon = setups["KLI"]
    unit = to_place(board, klingon)[0]
    fleet = next(f for f in klingon.fleets if f.name == unit.fleet)
    board = apply_placements(board, klingon, [Placement(hex=fleet.hexes[0], unit=unit.id)])
    (violation,) = check_placements(board, klingon, [Placement(hex=fleet.hexes[0], unit=unit.id)])
    assert "already set up" in violation.message


def test_a_hex_limit_counts_the_fleets_units_in_that_hex() -> None:
    """The Lyran Home Fleet may put at most 6 units in 0707: the count is of the fleet's own
    units in the hex (read from the board's hex index), after the placement being checked."""
    board, setups = wind()
    lyran = setups["LYR"]
    home = [u for u in to_place(board, lyran) if u.fleet == "Home Fleet"]
    assert len(home) > 7
    (whole,) = check_placements(board, lyran, [Placement(hex=707, fleet="Home Fleet")])
    assert (whole.message, whole.rule) == (
        f"Home Fleet has {len(home)} units in 0707, at most 6",
        "600.0",
    )
    six = [Placement(hex=707, unit=u.id) for u in home[:6]]
    assert check_placements(board, lyran, six) == []
    board = apply_placements(board, lyran, six)
    assert len(board.at(707)) == 6
    (seventh,) = check_placements(board, lyran, [Placement(hex=707, unit=home[6].id)])
    assert seventh.message == "Home Fleet has 7 units in 0707, at most 6"
    assert check_placements(board, lyran, [Placement(hex=608, fleet="Home Fleet")]) == []


def _limits_on(board: Board, setup: EmpireSetup) -> list[tuple[str, str]]:
    """The hex limits broken on ``board``, counted unit by unit over the whole board."""
    found = []
    for fleet in setup.fleets:
        for limit in fleet.hex_limits:
            count = sum(
                1 for u in board.units
                if u.empire == setup.empire and u.fleet == fleet.name and u.hex == limit.hex
            )  # fmt: skip
            if count > limit.max_units:
                text = (
                    f"{fleet.name} has {count} units in {limit.hex:04d}, at most {limit.max_units}"
                )
                found.append((text, "600.0"))
    return found


@pytest.mark.parametrize("seed", range(6))
def test_hex_limits_counted_without_a_board_match_the_placed_board(seed: int) -> None:
    """A placement's check counts the hex limits with its units where they would stand, making
    no board: on random placements (units, fleets, good and bad hexes, unknown units) of The
    Wind's empires, the refusals are those of the placement made on a board and counted."""
    rng = random.Random(seed)
    board, setups = wind()
    limited = 0
    for n in range(80):
        setup = setups["LYR"] if rng.random() < 0.5 else rng.choice(list(setups.values()))
        waiting = to_place(board, setup)
        fleets = [f for f in setup.fleets if f.hexes]
        hexes = [*sorted({h for f in fleets for h in f.hexes}), 707, 707, 707, 1411, 2224]
        if n % 10 == 0:  # what is left of the Lyran Home Fleet where at most 6 may stand
            placement = Placement(hex=707, fleet="Home Fleet")
            setup = setups["LYR"]
        elif waiting and rng.random() < 0.7:
            placement = Placement(hex=rng.choice(hexes), unit=rng.choice(waiting).id)
        elif fleets and rng.random() < 0.9:
            placement = Placement(hex=rng.choice(hexes), fleet=rng.choice(fleets).name)
        else:
            placement = Placement(hex=rng.choice(hexes), unit="LYR-9999")
        found = [(v.message, v.rule) for v in check_placements(board, setup, [placement])]
        free = msgspec.structs.replace(
            setup, fleets=tuple(msgspec.structs.replace(f, hex_limits=()) for f in setup.fleets)
        )
        expected = [(v.message, v.rule) for v in check_placements(board, free, [placement])]
        legal_but_limits = not expected
        if legal_but_limits:
            expected = _limits_on(apply_placements(board, setup, [placement]), setup)
            limited += bool(expected)
        else:
            expected += _limits_on(board, setup)
        assert found == expected, placement
        # Placements within the limits are made, and some beyond them, so that boards
        # already over a limit are checked too.
        if legal_but_limits and (not expected or rng.random() < 0.3):
            board = apply_placements(board, setup, [placement])
    assert limited, "no placement broke a hex limit"
