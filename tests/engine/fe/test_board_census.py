"""The first reading of a state's board, part by part (`board_update.board_of` remembers
the empires' tuples it joined, `forces.PARTS`), gives what a reading of the whole board
gives: the kinds of units (`board_views.placed_kinds`), the occupancy index and bases, the
empires by hex and each empire's classes, on random boards: crippled ships, copies stacked
with their originals, captured ships (a tuple holding another empire's units), units off
the map, and tuples mixing several empires' units.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from engine.core import caches
from engine.fe import board_views, occupancy
from engine.fe.forces import OFF_MAP, PARTS, Board, Forces, Unit
from engine.fe.galaxy import load_galaxy
from engine.fe.model import FeState
from tests.engine.fe.helpers import start
from tests.engine.fe.test_board_update import _board_index_unit_by_unit


def _random_state(rng: random.Random, mixed: bool) -> FeState:
    """The Wind's set-up with random changes, its tuples handed out at random if ``mixed``
    (each still sorted by id), decoded afresh so that nothing is remembered about it."""
    state = start()
    units = []
    for original in state.board.units:
        roll = rng.random()
        unit = original
        if roll < 0.15:
            unit = msgspec.structs.replace(original, crippled=True)
        elif roll < 0.2:
            unit = msgspec.structs.replace(original, hex=OFF_MAP)
        elif roll < 0.25:
            unit = msgspec.structs.replace(original, hex=rng.choice(state.board.units).hex)
        units.append(unit)
    units += [msgspec.structs.replace(u, id=f"{u.id}-2") for u in units if rng.random() < 0.5]
    captor = rng.choice(["FED", "KLI"])
    units += [Unit("LYR-7001", captor, "LYR:CA", units[0].hex)]  # a captured ship
    state = state.with_board(Board(tuple(units)))
    if mixed:
        shares: list[list[Unit]] = [[] for _ in state.forces]
        for unit in state.board.units:
            shares[rng.randrange(len(shares))].append(unit)
        state = msgspec.structs.replace(
            state,
            forces=tuple(
                Forces(f.empire, tuple(sorted(share, key=lambda u: u.id)))
                for f, share in zip(state.forces, shares, strict=True)
            ),
        )
    return msgspec.msgpack.decode(msgspec.msgpack.encode(state), type=FeState)


def _whole(board: Board) -> Board:
    """``board`` as a board that does not know its parts (read as one tuple)."""
    return Board(board.units, board.owners, board.at_war, board.released, board.devastated)


@pytest.mark.parametrize(("seed", "mixed"), [(1, False), (2, False), (3, True), (4, True)])
def test_a_board_read_part_by_part_reads_as_the_whole_board(seed: int, mixed: bool) -> None:
    rng = random.Random(seed)
    state = _random_state(rng, mixed)
    board = state.board
    parts = board.__dict__[PARTS]
    assert tuple(u for part in parts for u in part) == board.units
    assert all(part is f.units for part, f in zip(parts, state.forces, strict=True))
    whole = _whole(board)
    assert PARTS not in whole.__dict__
    kinds = board_views.placed_kinds(board)
    expected = [(u.hex, u.empire, u.cls, u.crippled) for u in board.units]
    assert list(kinds) == list(dict.fromkeys(expected)), "the kinds in the units' order"
    assert list(board_views.placed_kinds(whole)) == list(kinds)
    galaxy = load_galaxy()
    index = occupancy.board_index(galaxy, board)
    fresh = occupancy.board_index.__wrapped__(galaxy, whole)  # type: ignore[attr-defined]
    assert index == fresh
    unit_by_unit = _board_index_unit_by_unit(board)
    assert index == unit_by_unit, "the flags and the bases of a reading unit by unit"
    assert list(index[0]) == list(unit_by_unit[0])
    assert list(index[0]) == list(fresh[0]), "the hexes in the units' order"
    assert [list(v) for v in index[0].values()] == [list(v) for v in fresh[0].values()]
    # The views read from the kinds once the board's first reading holds them.
    assert caches.peek(board_views.placed_kinds, board) is not None
    empires = board_views.empires_by_hex(board)
    reference: dict[int, set[str]] = {}
    for unit in board.units:
        reference.setdefault(unit.hex, set()).add(unit.empire)
    assert empires == {h: tuple(sorted(found)) for h, found in reference.items()}
    assert empires == board_views.empires_by_hex.__wrapped__(whole)  # type: ignore[attr-defined]
    for forces in state.forces:
        assert caches.peek(board_views.kinds_of, forces.units) is not None
        classes = board_views.unit_classes(forces.units)
        assert classes == frozenset((u.empire, u.cls, u.crippled) for u in forces.units)
    if mixed:
        assert any(len({u.empire for u in f.units}) > 1 for f in state.forces)


def test_a_board_of_one_part_shares_its_kinds() -> None:
    """A board joined from a single tuple reads it once: its kinds are the tuple's."""
    state = start()
    units = state.board.units
    one = msgspec.structs.replace(state, forces=(Forces("FED", units),))
    board = one.board
    assert board_views.placed_kinds(board) is board_views.kinds_of(units)
    assert occupancy.board_index(load_galaxy(), board) == occupancy.board_index.__wrapped__(  # type: ignore[attr-defined]
        load_galaxy(), _whole(board)
    )


def _lookup_reference(units: tuple[Unit, ...]) -> tuple[tuple[Unit, ...], tuple[Unit, ...]]:
    """`board_views.lookup_of` read unit by unit: the starbases on the map in the units'
    order; per (empire, hex) the unit with the smallest id among those that can move."""
    starbases = tuple(
        u for u in units if u.hex != OFF_MAP and u.cls in board_views.STARBASE_CLASSES
    )
    firsts: dict[tuple[str, int], Unit] = {}
    for unit in units:
        key = (unit.empire, unit.hex)
        if unit.hex == OFF_MAP or not board_views.can_move(unit):
            continue
        if key not in firsts or unit.id < firsts[key].id:
            firsts[key] = unit
    return starbases, tuple(sorted(firsts.values(), key=lambda u: u.id))


@pytest.mark.parametrize(("seed", "mixed"), [(5, False), (6, True)])
def test_the_hex_index_and_release_lookups_read_by_part_are_the_reference(
    seed: int, mixed: bool
) -> None:
    """The hex index joined from the parts' groups is the one read from the units; each
    empire's release lookup read by hex (sorted, one empire's) or unit by unit (otherwise),
    with the kinds held or not, is the reference's; and so is the lookup of a tuple out of
    id order."""
    rng = random.Random(seed)
    state = _random_state(rng, mixed)
    board = state.board
    assert board._by_hex == _whole(board)._by_hex
    assert [list(v) for v in board._by_hex.values()] == [
        list(v) for v in _whole(board)._by_hex.values()
    ]
    for forces in state.forces:
        assert board_views.lookup_of(forces.units) == _lookup_reference(forces.units)
    board_views.placed_kinds(board)  # the second reading finds the kinds held
    for forces in state.forces:
        again = board_views.lookup_of.__wrapped__(forces.units)  # type: ignore[attr-defined]
        assert again == _lookup_reference(forces.units), forces.empire
    units = state.forces[0].units
    shuffled = tuple(rng.sample(units, len(units)))
    assert board_views.lookup_of(shuffled) == _lookup_reference(shuffled)


def test_a_base_first_in_its_hex_is_passed_over() -> None:
    """A hex whose smallest id is a starbase (which cannot move) gives the next unit; the
    starbases come in the units' order though a hex holding two is found first."""
    units = (
        Unit("KLI-0001", "KLI", "SB", 1010),
        Unit("KLI-0002", "KLI", "D7", 1010),
        Unit("KLI-0003", "KLI", "SB", 1212),
        Unit("KLI-0004", "KLI", "F5", OFF_MAP),
        Unit("KLI-0005", "KLI", "SB", 1010, crippled=True),
    )
    expected = ((units[0], units[2], units[4]), (units[1],))
    assert _lookup_reference(units) == expected
    assert board_views.lookup_of(units) == expected
    board_views.kinds_of(units)  # read by hex, with the kinds held
    assert board_views.lookup_of.__wrapped__(units) == expected  # type: ignore[attr-defined]


def test_bases_named_like_units_off_the_map_are_picked_out_by_side_and_hex() -> None:
    """The bases are picked out by class name alone unless a unit of such a name is off
    the map, or of a side whose class of that name is no base (a class missing from that
    side's tables): then by hex, or by side and class, too, as a reading unit by unit
    gives them."""
    state = start()
    base = next(u for u in state.board.units if u.cls in board_views.STARBASE_CLASSES)
    assert not occupancy._traits("ZZZ", base.cls, False)[2], "no base of an unknown side"
    extras = {
        "off the map": Unit(f"{base.empire}-9901", base.empire, base.cls, OFF_MAP),
        "no base": Unit("ZZZ-9901", "ZZZ", base.cls, base.hex),
        "a base": Unit(f"{base.empire}-9901", base.empire, base.cls, base.hex),
    }
    for what, extra in extras.items():
        board = state.with_units([extra]).board
        board = Board(board.units, board.owners, board.at_war, board.released)
        found = occupancy.board_index(load_galaxy(), board)
        assert found == _board_index_unit_by_unit(board), what
        assert (extra in found[1]) is (what == "a base"), what


@pytest.mark.parametrize(("seed", "mixed"), [(5, False), (6, True)])
def test_a_supply_check_reads_an_armys_hexes_and_count_from_its_kinds_or_groups(
    seed: int, mixed: bool
) -> None:
    """The hexes an empire's tuple holds and how many of its units are on the map
    (`supply_steps._held_hexes`, `_on_map`) read from the tuple's kinds after a board's first
    reading, or from its hex groups, are what a reading of every unit gives: with units off
    the map, stacked, crippled, and tuples holding several empires' units."""
    from engine.fe.forces import units_by_hex
    from engine.fe.steps import supply as supply_steps

    rng = random.Random(seed)
    for how in ("kinds", "groups", "units"):
        state = _random_state(rng, mixed)
        if how == "kinds":
            board_views.placed_kinds(state.board)
        elif how == "groups":
            _ = state.board.at(OFF_MAP)  # the hex index, joined from each tuple's groups
        off_map = 0
        for forces in state.forces:
            units = forces.units
            held = {u.hex for u in units if u.hex != OFF_MAP}
            on_map = sum(u.hex != OFF_MAP for u in units)
            assert (caches.peek(board_views.kinds_of, units) is not None) == (how == "kinds")
            assert (caches.peek(units_by_hex, units) is not None) == (how == "groups")
            assert set(supply_steps._held_hexes(units)) == held, f"{how}: {forces.empire}"
            assert supply_steps._on_map.__wrapped__(units) == on_map, f"{how}: {forces.empire}"  # type: ignore[attr-defined]
            off_map += len(units) - on_map
        assert off_map > 0, "no unit off the map: a weak test"


@pytest.mark.parametrize(("seed", "mixed"), [(7, False), (8, True)])
def test_6e_and_2b4_read_from_a_fresh_boards_kinds_as_from_every_unit(
    seed: int, mixed: bool
) -> None:
    """On a freshly read board (its kinds held), 6E's carriers in and out of supply and
    2B4's buyers are what a reading of every unit finds, for one empire's tuples and for
    tuples mixing several empires' units; the classes of a tuple are carried to the board
    a move makes even when nothing had asked for them (`board_views.carry_classes`)."""
    from engine.core.ruleset import Actor, Event, StepKind
    from engine.core.sequence import Step
    from engine.fe.steps import replacements
    from engine.fe.steps import supply as supply_steps

    state = _random_state(random.Random(seed), mixed)
    board_views.placed_kinds(state.board)
    events: list[Event] = []
    replacements.free_fighters(state, Step("6E", "6", "f", Actor.BOTH, StepKind.AUTOMATIC), events)
    found = {e.data["empire"]: (e.data["replaced"], e.data["unsupplied"]) for e in events}
    expected = {}
    for forces in state.forces:
        empire = forces.empire
        grid = supply_steps.grid_of(state, empire)
        carriers = [
            u
            for u in forces.units
            if u.empire == empire and u.hex != OFF_MAP and u.info().shown(u.crippled).fighters2
        ]
        if carriers:
            expected[empire] = (
                [u.id for u in carriers if grid.status(u.hex) != "none"],
                [u.id for u in carriers if grid.status(u.hex) == "none"],
            )
        buyers = tuple(u for u in forces.units if u.hex != OFF_MAP and replacements._buyable(u))
        assert replacements._buyers(forces.units) == buyers
    assert found == expected
    assert found, "no carriers: a weak test"
    if mixed:
        assert any(len({u.empire for u in f.units}) > 1 for f in state.forces)
    forces = next(f for f in state.forces if f.units and f.units[0].hex != OFF_MAP)
    assert caches.peek(board_views.unit_classes, forces.units) is not None
    caches.clear_all()
    board_views.kinds_of(forces.units)
    mover = msgspec.structs.replace(forces.units[0], hex=forces.units[0].hex + 1)
    moved = state.with_units([mover])
    after = next(f.units for f in moved.forces if f.empire == forces.empire)
    carried = caches.peek(board_views.unit_classes, after)
    assert carried == frozenset((u.empire, u.cls, u.crippled) for u in after)


def test_what_a_class_carries_is_read_once_as_its_counter_shows_it() -> None:
    """`replacements._carries` (kept per side, class and state) is what the tables give the
    side a counter shows, for every class of the tables, full and crippled."""
    from engine.fe.steps import replacements
    from engine.fe.units import load_units

    pfs = 0
    for info in load_units().classes:
        for crippled in (False, True):
            side = info.shown(crippled)
            unit = Unit("X-1", info.empire, info.id, 101, crippled)
            assert replacements._carries(unit) == (side.fighters2, side.pfs), info.key
            pfs += side.pfs
    assert pfs, "no class carries PFs: a weak test"


@pytest.mark.parametrize("seed", [9, 10])
def test_a_supply_check_reads_the_board_only_when_each_tuple_is_its_empires(seed: int) -> None:
    """`supply_steps._one_empire_each` tells states whose tuples each hold their empire's
    units alone (then a check reads the board's occupancy and hex indexes) from those with
    mixed tuples or an empire listed twice; either way `_check` reports what every unit of
    the empire's tuple gives, on a board changed by a move (its kinds not held)."""
    from engine.fe.steps import supply as supply_steps

    rng = random.Random(seed)
    for mixed in (False, True):
        state = _random_state(rng, mixed)
        assert supply_steps._one_empire_each.__wrapped__(state.forces) is not mixed  # type: ignore[attr-defined]
        twice = (*state.forces, Forces(state.forces[0].empire, ()))
        assert not supply_steps._one_empire_each.__wrapped__(twice)  # type: ignore[attr-defined]
        mover = next(u for u in state.board.units if u.hex != OFF_MAP)
        state = state.with_units([msgspec.structs.replace(mover, hex=mover.hex + 1)])
        checked = 0
        for forces in state.forces:
            empire = forces.empire
            grid = supply_steps.grid_of(state, empire)
            found = supply_steps._check(state, empire)
            tuple_by_tuple = supply_steps._checked.__wrapped__(  # type: ignore[attr-defined]
                state.board, forces.units, grid
            )
            assert found == tuple_by_tuple, empire
            if mixed:
                continue
            expected: dict[str, list[Unit]] = {"main": [], "partial": [], "none": []}
            for unit in forces.units:
                if unit.hex != OFF_MAP:
                    expected[grid.status(unit.hex)].append(unit)
            assert found == (
                len(expected["main"]),
                tuple(expected["partial"]),
                tuple(expected["none"]),
            ), empire
            checked += len(found.partial) + len(found.none)
        assert mixed or checked, "no unit out of the main grid: a weak test"
