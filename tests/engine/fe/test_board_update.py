"""A state changed unit by unit (`FeState.with_units`, `engine.fe.board_update`) is the state
the full regrouping gives, and its board's indexes are those built from its own units.

The Wind's set-up board (and one with every unit there twice) is changed at random by a
seeded generator: stacks move, units turn crippled, leave the map, change hands (a captured
ship keeps its id, so the board stops being in id order), new units appear. After every
change the state, its board and the board `Board.with_units` made are compared with a
fresh computation that shares no object or index with them.
"""

from __future__ import annotations

import random
from operator import attrgetter

import msgspec
import pytest

from engine.core import caches
from engine.fe import blocking, board_indexes, board_update, board_views, occupancy, rule_options
from engine.fe.forces import OFF_MAP, Board, Forces, Unit
from engine.fe.galaxy import Galaxy, load_galaxy
from engine.fe.model import FeState
from tests.engine.fe.helpers import fresh, start

CHANGES = 30

_ID = attrgetter("id")


def _galaxy() -> Galaxy:
    """The map as the engine has it now (`load_galaxy`): another test module may have emptied
    every cache, the map's included, and the blocking caches are keyed by the map object."""
    return load_galaxy()


EMPIRES = ("FED", "HYD", "KLI", "KZI", "LYR")


def _full(state: FeState, board: Board) -> FeState:
    """``state`` with ``board``'s units by the full regrouping (a copy of the board that does
    not know where it came from)."""
    plain = Board(board.units, board.owners, board.at_war, board.released, board.devastated)
    assert plain.changes_from() is None
    return state.with_board(plain)


def _indexes(board: Board) -> tuple[object, ...]:
    """The board's unit and hex indexes and its order flag, as built from its fields."""
    fresh = Board(board.units, board.owners, board.at_war, board.released, board.devastated)
    return fresh._by_id, fresh._by_hex, fresh._id_sorted


def _held(board: Board) -> tuple[object, ...]:
    return board._by_id, board._by_hex, board._id_sorted


def _change(state: FeState, rng: random.Random, serial: int) -> list[Unit]:
    board = state.board
    on_map = [u for u in board.units if u.hex != OFF_MAP]
    unit = rng.choice(on_map)
    kind = rng.randrange(5)
    if kind == 0:  # a stack moves
        to = rng.choice(on_map).hex
        return [msgspec.structs.replace(u, hex=to) for u in board.at(unit.hex)][:12]
    if kind == 1:
        return [msgspec.structs.replace(unit, crippled=not unit.crippled)]
    if kind == 2:
        return [msgspec.structs.replace(unit, hex=OFF_MAP)]
    if kind == 3:  # captured: another empire's now, same id
        other = rng.choice([e for e in EMPIRES if e != unit.empire])
        return [msgspec.structs.replace(unit, empire=other)]
    empire = rng.choice(EMPIRES)
    return [Unit(f"{empire}-9{serial:03d}", empire, "CA", unit.hex)]


@pytest.mark.parametrize(("seed", "scale"), [(1, 1), (2, 1), (3, 2)])
def test_changed_units_give_the_state_and_indexes_of_a_fresh_computation(
    seed: int, scale: int
) -> None:
    rng = random.Random(seed)
    carried_any = lookups = highs = presences = classes = 0
    state = start()
    if scale > 1:
        copies = [msgspec.structs.replace(u, id=f"{u.id}-2") for u in state.board.units]
        state = state.with_board(state.board.with_units(copies))
    for number in range(CHANGES):
        board = state.board
        if rng.random() < 0.7:  # the indexes are built, so they are carried over
            board.at(board.units[0].hex)
            if number % 2:  # (on a board in id order a look-up searches, building none)
                board_indexes.own_unit_index(board)
            else:
                board.unit(board.units[-1].id)
            occupancy.board_index(_galaxy(), board)
            board_views.empires_by_hex(board)
            for empire in EMPIRES:
                board_views.highest_number(board, f"{empire}-")
                blocking.presence_set(_galaxy(), board, empire)
            for forces in state.forces:
                board_views.lookup_of(forces.units)
                board_views.unit_classes(forces.units)
        units = _change(state, rng, number)
        made = board.with_units(units)
        assert _held(made) == _indexes(made), f"change {number}: with_units' indexes"
        expected = _full(state, made)
        changed = state.with_board(made) if rng.random() < 0.5 else state.with_units(units)
        # The next state (another step, the same units) shares the board and its indexes.
        stepped = msgspec.structs.replace(changed, step=changed.step + 1)
        assert stepped.board is changed.board, f"change {number}: the board is not shared"
        assert changed == expected, f"change {number}: the state"
        for before, after in zip(state.forces, changed.forces, strict=False):
            if before.empire == after.empire and before.units == after.units:
                assert after is before, f"change {number}: {before.empire} got a new tuple"
        new_board = changed.board
        assert new_board == expected.board, f"change {number}: the board"
        assert _held(new_board) == _indexes(new_board), f"change {number}: the indexes"
        # The occupancy index waits to be asked (`occupancy.defer_carry`); a board not asked
        # now hands its pending changes on to the next one, which carries them all at once.
        pending = occupancy._PENDING in new_board.__dict__
        if rng.random() < 0.6:
            carried = occupancy.board_index(_galaxy(), new_board)
            assert carried == _fresh_board_index(new_board), f"change {number}: the occupancy index"
            carried_any += pending
        empires = caches.peek(board_views.empires_by_hex, new_board)
        fresh_empires = board_views.empires_by_hex.__wrapped__(  # type: ignore[attr-defined]
            Board(new_board.units)
        )
        assert empires is None or empires == fresh_empires, f"change {number}: empires by hex"
        plain = _plain(new_board)  # one board more in the caches, not one per empire
        for empire in EMPIRES:
            highest = caches.peek(board_views.highest_number, new_board, f"{empire}-")
            fresh_highest = board_views.highest_number.__wrapped__(  # type: ignore[attr-defined]
                Board(new_board.units), f"{empire}-"
            )
            assert highest is None or highest == fresh_highest, f"change {number}: {empire} ids"
            highs += highest is not None
            flags = caches.peek(blocking.presence_set, _galaxy(), new_board, empire)
            fresh_flags = blocking._presence(_galaxy(), plain, empire)
            assert flags is None or flags == frozenset(fresh_flags.items()), (
                f"change {number}: {empire} presence"
            )
            presences += flags is not None
        for forces in changed.forces:
            # Held, or left to derive when first asked (`board_views.defer_lookups`).
            pending = new_board.__dict__.get(board_views._LOOKUPS_SINCE, {})
            lookup_carried = forces.empire in pending or (
                caches.peek(board_views.lookup_of, forces.units) is not None
            )
            lookup = board_views.lookup_on(new_board, forces.empire, forces.units)
            fresh_lookup = board_views.lookup_of.__wrapped__(forces.units)  # type: ignore[attr-defined]
            assert lookup == fresh_lookup, f"change {number}: the release lookup of {forces.empire}"
            new_tuple = all(forces.units is not f.units for f in state.forces)
            lookups += new_tuple and lookup_carried
            kinds = caches.peek(board_views.unit_classes, forces.units)
            fresh_kinds = frozenset((u.empire, u.cls, u.crippled) for u in forces.units)
            assert kinds is None or kinds == fresh_kinds, (
                f"change {number}: the classes of {forces.empire}"
            )
            classes += new_tuple and kinds is not None
        state = changed
    assert not state.board._id_sorted or scale == 1, "no capture broke the id order"
    assert carried_any > CHANGES // 3, "the occupancy index was hardly ever carried over"
    assert lookups > CHANGES // 3, "the release lookups were hardly ever carried over"
    assert classes > CHANGES // 4, "the unit classes were hardly ever carried over"
    assert highs > CHANGES // 2, "the highest ids were hardly ever carried over"
    assert presences > CHANGES, "the presence flags were hardly ever carried over"


def test_a_run_of_unasked_boards_is_carried_at_once_when_one_is_asked() -> None:
    """Builds one by one (a packet of build orders), then moves: no board asks for its
    occupancy index until the last, which gets it and every empire's presence flags from
    the first board's, as a fresh reading gives them; a run of changes that grows past a
    quarter of the board is read afresh instead."""
    state = start()
    first = state.board
    occupancy.board_index(_galaxy(), first)
    for empire in EMPIRES:
        blocking.presence_set(_galaxy(), first, empire)
    state, target = _builds_then_a_move(state, 25)
    board = state.board
    root, since, *_ = board.__dict__[occupancy._PENDING]
    assert root is first, "the run starts at the last board whose index was read"
    assert len(since) >= 26, "every build and the move are carried"
    assert occupancy.board_index(_galaxy(), board) == _fresh_board_index(board)
    assert occupancy._PENDING not in board.__dict__, "the carry is done once"
    plain = _plain(board)
    for empire in EMPIRES:
        flags = caches.peek(blocking.presence_set, _galaxy(), board, empire)
        assert flags == frozenset(blocking._presence(_galaxy(), plain, empire).items()), empire
    # Past a quarter of the board, the run is dropped: the index is read afresh.
    many = [msgspec.structs.replace(u, hex=target) for u in board.units if u.hex != OFF_MAP]
    half = many[: len(many) // 2]
    state = state.with_units(half[:1]).with_units(half[1:])
    assert occupancy._PENDING not in state.board.__dict__
    assert occupancy.board_index(_galaxy(), state.board) == _fresh_board_index(state.board)


def test_a_run_from_a_board_whose_occupancy_was_read_carries_its_empires_by_hex() -> None:
    """A board whose occupancy was read (a state just decoded, after its supply checks) but
    never its empires by hex: the run of boards made from it carries them, so the board
    asked at the end (a move's pin check) reads the hexes changed, not every unit."""
    state = start()
    first = state.board
    occupancy.board_index(_galaxy(), first)  # (its kinds: `board_views.placed_kinds`)
    assert caches.peek(board_views.empires_by_hex, first) is None
    state, _ = _builds_then_a_move(state, 5)
    board = state.board
    assert board_views._EMPIRES_SINCE in board.__dict__, "nothing carried from the first board"
    fresh = board_views.empires_by_hex.__wrapped__(_plain(board))  # type: ignore[attr-defined]
    assert board_views.empires_by_hex(board) == fresh
    assert caches.peek(board_views.empires_by_hex, first) == (
        board_views.empires_by_hex.__wrapped__(_plain(first))  # type: ignore[attr-defined]
    )


def _builds_then_a_move(state: FeState, builds: int) -> tuple[FeState, int]:
    """``state`` after ``builds`` Klingon builds one by one and a Lyran stack's move onto a
    Federation hex, and that hex."""
    first = state.board
    yard = next(u for u in first.units if u.empire == "KLI" and u.hex != OFF_MAP).hex
    target = next(u for u in first.units if u.empire == "FED" and u.hex != OFF_MAP).hex
    for n in range(builds):
        state = state.with_units([Unit(f"KLI-8{n:03d}", "KLI", "CA", yard)])
    mover = next(u for u in state.board.units if u.empire == "LYR" and u.hex != OFF_MAP)
    moved = [msgspec.structs.replace(u, hex=target) for u in state.board.at(mover.hex)]
    return state.with_units(moved), target


def _plain(board: Board) -> Board:
    """A copy of ``board`` with none of its indexes (and so none of its cache entries)."""
    return Board(board.units, board.owners, board.at_war, board.released, board.devastated)


def _fresh_board_index(board: Board) -> object:
    """`occupancy.board_index` built from the board's fields by the undecorated function."""
    fresh = Board(board.units, board.owners, board.at_war, board.released, board.devastated)
    return occupancy.board_index.__wrapped__(_galaxy(), fresh)  # type: ignore[attr-defined]


def _board_index_unit_by_unit(board: Board) -> object:
    """`occupancy.board_index` read unit by unit, in the board's order, each unit's traits
    looked up afresh: no grouping of like units (which the engine's reading does)."""
    out: dict[int, dict[str, int]] = {}
    bases: list[Unit] = []
    for unit in board.units:
        if unit.hex == OFF_MAP:
            continue
        ship, attrition, is_a_base = occupancy._traits.__wrapped__(  # type: ignore[attr-defined]
            unit.empire, unit.cls, unit.crippled
        )
        if is_a_base:
            bases.append(unit)
        bits = occupancy.ANY | (occupancy.SHIP if ship else 0)
        if attrition:
            bits |= occupancy.ATTRITION | (0 if ship else occupancy.NONSHIP_ATTRITION)
        here = out.setdefault(unit.hex, {})
        here[unit.empire] = here.get(unit.empire, 0) | bits
    for h, owner, fighters in occupancy._map_bases(_galaxy(), board.owners):
        bits = occupancy.ANY | (
            occupancy.ATTRITION | occupancy.NONSHIP_ATTRITION if fighters else 0
        )
        here = out.setdefault(h, {})
        here[owner] = here.get(owner, 0) | bits
    return out, tuple(bases)


@pytest.mark.parametrize("scale", [1, 3])
def test_the_occupancy_index_matches_a_unit_by_unit_reading(scale: int) -> None:
    """The index groups like units (same hex, side, class, crippled) before reading them: its
    flags, its hexes' and empires' order (as dicts compare equal regardless, the orders are
    compared apart) and its bases in board order are those of a reading unit by unit, on
    boards with captures, crippled ships and stacks of copies."""
    rng = random.Random(scale)
    state = start()
    units = list(state.board.units)
    changed = [
        msgspec.structs.replace(u, crippled=True) if rng.random() < 0.2 else u for u in units
    ]
    copies = [
        msgspec.structs.replace(u, id=f"{u.id}-{n}") for u in changed for n in range(2, scale + 1)
    ]
    board = state.board.with_units([*changed, *copies])
    board = msgspec.structs.replace(board, owners=((1307, "HYD"), (1105, "LYR")))
    found = occupancy.board_index.__wrapped__(_galaxy(), board)  # type: ignore[attr-defined]
    expected = _board_index_unit_by_unit(board)
    assert found == expected
    assert list(found[0]) == list(expected[0])  # type: ignore[index]
    assert [list(v) for v in found[0].values()] == [list(v) for v in expected[0].values()]  # type: ignore[index]
    assert found[1], "the board has bases"


def test_a_board_from_another_state_is_regrouped_in_full() -> None:
    """A board made from an older state's board is not taken as a change of this state."""
    state = start()
    first = state.board.units[0]
    moved = state.with_units([msgspec.structs.replace(first, hex=OFF_MAP)])
    late = state.board.with_units([msgspec.structs.replace(state.board.units[1], crippled=True)])
    assert late.changes_from() is not None
    result = moved.with_board(late)
    assert result.board.unit(first.id) == first  # the older board's units, as given
    assert result == _full(moved, late)


def test_priming_replaces_what_an_identity_cache_computes() -> None:
    calls: list[tuple[int, ...]] = []

    @caches.by_identity(maxsize=2, name="tests.board_update.probe")
    def probe(values: tuple[int, ...]) -> int:
        calls.append(values)
        return sum(values)

    key = (1, 2, 3)
    assert caches.peek(probe, key) is None
    caches.prime(probe, 6, key)
    assert caches.peek(probe, key) == 6
    assert probe(key) == 6 and calls == []
    assert probe((4, 5)) == 9 and calls == [(4, 5)]
    assert probe((6,)) == 6 and calls == [(4, 5), (6,)]
    assert caches.peek(probe, (1, 2, 3)) is None, "the oldest entry went out"
    with pytest.raises(TypeError):
        caches.prime(len, 3, key)
    with pytest.raises(TypeError):
        caches.peek(len, key)


def test_forces_stay_sorted_and_grouped() -> None:
    state = start()
    units = [msgspec.structs.replace(u, empire="KLI") for u in state.board.units[:5]]
    changed = state.with_units(units)
    for forces in changed.forces:
        assert isinstance(forces, Forces)
        assert all(u.empire == forces.empire for u in forces.units)
        ids = [u.id for u in forces.units]
        assert ids == sorted(ids)


@pytest.mark.parametrize(
    ("uid", "put"),
    [
        ("KLI-0000", True),  # a new id before every other
        ("KLI-0105x", True),  # a new id between two
        ("KLI-9999", True),  # a new id after every other
        ("first", True),  # the first unit replaced
        ("last", True),  # the last unit replaced
        ("first", False),  # the first unit taken out
        ("last", False),  # the last unit taken out
        ("KLI-0105x", False),  # an id not there, taken out: nothing changes
    ],
)
def test_one_edit_gives_the_units_a_full_regrouping_gives(uid: str, put: bool) -> None:
    """`board_update._edited` with one edit (a build, a placement, a unit moved or taken
    out) finds its place by one bisection: the result is the units, edited by id and sorted,
    and the very tuple when nothing changes."""
    units = tuple(sorted((u for u in start().board.units if u.empire == "KLI"), key=_ID))
    if uid == "first":
        uid = units[0].id
    elif uid == "last":
        uid = units[-1].id
    unit = Unit(uid, "KLI", "F5", 1914) if put else None
    by_id = {u.id: u for u in units}
    if unit is None:
        by_id.pop(uid, None)
    else:
        by_id[uid] = unit
    expected = tuple(sorted(by_id.values(), key=_ID))
    edited = board_update._edited(units, {uid: unit})
    assert edited == expected
    if expected == units:
        assert edited is units
    same = board_update._edited(units, {units[3].id: units[3]})  # put back as it is
    assert same is units


def test_option_values_remembered_per_options_tuple_match_a_fresh_reading() -> None:
    """`rule_options.values` is kept per options tuple: it gives what reading each option
    through `FeState.option` gives, for each tuple in turn, duplicates included (the first
    entry wins), and a caller changing its dict changes nothing for the next."""
    state = start()
    specs = rule_options.RULE_OPTIONS
    tuples = [
        state.options,
        (),
        ((specs[0].id, "first"), *((s.id, s.default) for s in specs), (specs[0].id, "last")),
        state.options,
    ]
    for options in tuples:
        changed = msgspec.structs.replace(state, options=options)
        fresh = {
            s.id: s.default if changed.option(s.id) is None else changed.option(s.id) for s in specs
        }
        got = rule_options.values(changed)
        assert list(got.items()) == list(fresh.items())
        got[specs[0].id] = "mutated"
        assert rule_options.values(changed) == fresh


def _run_change(state: FeState, rng: random.Random, serial: int) -> list[Unit]:
    """One change of a packet's kind: a fleet set up out of the stack of units off the map,
    a unit built, a stack moved, a ship captured (same id), crippled or taken off the map."""
    board = state.board
    waiting = board.at(OFF_MAP)
    on_map = [u for u in board.units if u.hex != OFF_MAP]
    kind = rng.randrange(6)
    if kind == 0 and waiting:  # a fleet set up: a run of one empire's waiting units
        first = rng.randrange(len(waiting))
        empire = waiting[first].empire
        run = [u for u in waiting[first : first + rng.randint(1, 20)] if u.empire == empire]
        to = rng.choice(on_map).hex if on_map else 101
        return [msgspec.structs.replace(u, hex=to) for u in run]
    if kind == 1 or not on_map:  # a build, where units stand or off the map
        empire = rng.choice(EMPIRES)
        where = rng.choice(on_map).hex if on_map and rng.random() < 0.8 else OFF_MAP
        return [Unit(f"{empire}-7{serial:03d}", empire, "CA", where)]
    unit = rng.choice(on_map)
    if kind == 2:  # a stack moves
        to = rng.choice(on_map).hex
        return [msgspec.structs.replace(u, hex=to) for u in board.at(unit.hex)][:12]
    if kind == 3:
        other = rng.choice([e for e in EMPIRES if e != unit.empire])
        return [msgspec.structs.replace(unit, empire=other)]
    if kind == 4:
        return [msgspec.structs.replace(unit, crippled=not unit.crippled)]
    return [msgspec.structs.replace(unit, hex=OFF_MAP)]


@pytest.mark.parametrize(("seed", "under_way"), [(4, False), (5, False), (6, True), (7, True)])
def test_boards_never_asked_for_their_indexes_give_those_of_a_fresh_board(
    seed: int, under_way: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A packet's builds and placements make a board each, and most are never asked for
    their unit index: each carries the index it started from and the units changed since
    (`board_indexes.carry_unit_index`), and the hex index with the stacks units left found by
    bisection. Runs of random changes, from a set-up's start (every unit off the map) and
    from a game under way: each board, asked now, later or never before the run's end, has
    the indexes of a fresh board of its units; the runs do get carried, and cut at the
    limit (here the fixed one: a set-up board's share would be past the run's end)."""
    monkeypatch.setattr(board_indexes, "ID_CARRY_SHARE", 1000)
    rng = random.Random(seed)
    state = start() if under_way else fresh()
    board = state.board
    board_indexes.own_unit_index(board)
    board.at(OFF_MAP)
    kept: list[Board] = []
    carried = cut = 0
    for number in range(150):
        units = _run_change(state, rng, number)
        state = state.with_units(units)
        board = state.board
        assert board == _full(state, board).board, f"change {number}: the board"
        carried += board_indexes.ID_CARRY in board.__dict__
        cut += "_by_id" in board.__dict__  # (past the limit)
        if rng.random() < 0.1:  # asked now: the runs start again here
            assert _held(board) == _indexes(board), f"change {number}: the indexes"
        elif rng.random() < 0.3:  # asked after later boards were made from it
            kept.append(board)
        if number % 40 == 39:  # a supply check reads the occupancy index
            assert occupancy.board_index(_galaxy(), board) == _fresh_board_index(board)
    rng.shuffle(kept)
    for number, board in enumerate(kept):
        assert _held(board) == _indexes(board), f"kept board {number}: the indexes"
    assert _held(state.board) == _indexes(state.board), "the last board's indexes"
    assert carried > 75, "the boards hardly ever carried the unit index unmade"
    assert under_way or cut > 0, "no run of set-ups reached the limit"


def test_a_unit_leaving_a_stack_out_of_order_is_found_by_reading_the_stack() -> None:
    """`board_indexes.carry_hex_index` finds a unit leaving a stack by bisection in the order the
    stacks are said to be in; a stack not in that order is read whole, and the index is
    still that of a fresh board."""
    state = fresh()
    board = Board(tuple(reversed(state.board.units)))  # every stack in reverse id order
    stack = board.at(OFF_MAP)
    assert len(stack) > board_indexes.BISECT_FACTOR
    leaving = msgspec.structs.replace(stack[len(stack) // 3], hex=101)
    after = Board(tuple(leaving if u.id == leaving.id else u for u in board.units))
    board_indexes.carry_hex_index(board, after, {leaving.id: leaving}, _ID, (board._by_id, {}))
    fresh_after = Board(after.units)
    assert after._by_hex == fresh_after._by_hex
    assert after._by_hex[OFF_MAP] == tuple(u for u in stack if u.id != leaving.id)


def test_a_board_with_the_same_units_shares_a_unit_index_not_made_yet() -> None:
    """`share_unit_views` hands on the carried unit index of a board that never made its
    own: the board a fleet's release makes (same units) reads the same units by id."""
    state = fresh()
    board_indexes.own_unit_index(state.board)
    waiting = state.board.at(OFF_MAP)
    state = state.with_units([msgspec.structs.replace(waiting[0], hex=101)])
    board = state.board
    assert board_indexes.ID_CARRY in board.__dict__ and "_by_id" not in board.__dict__
    released = msgspec.structs.replace(board, released=(("LYR", "Home Fleet"),))
    board_update.share_unit_views(board, released)
    assert board_indexes.ID_CARRY in released.__dict__
    assert released._by_id == Board(board.units)._by_id == board._by_id


@pytest.mark.parametrize("seed", [11, 12])
def test_whole_stacks_moving_give_the_indexes_of_a_fresh_board(seed: int) -> None:
    """Stacks of a board with every unit there four times move whole, or most of them, into
    empty hexes and onto other stacks (each empire's ids in a run, as a fleet's are, or
    given out of order): the board and its indexes are those of a fresh board, the stacks
    that left whole and the ones that entered empty hexes included
    (`board_indexes.carry_hex_index`'s shortcuts), and the moves tallied (`movement.spent`) are
    what `spend` gives."""
    rng = random.Random(seed)
    state = start()
    copies = [
        msgspec.structs.replace(u, id=f"{u.id}-{n}") for u in state.board.units for n in (2, 3, 4)
    ]
    state = state.with_board(state.board.with_units(copies))
    empty = [h for h in (101, 202, 303, 404, 505, 606) if not state.board.at(h)]
    shortcuts = 0
    for number in range(40):
        board = state.board
        board.at(board.units[0].hex)  # the hex index is built, so it is carried
        on_map = sorted({u.hex for u in board.units if u.hex != OFF_MAP})
        stack = board.at(rng.choice(on_map))
        empire = rng.choice(sorted({u.empire for u in stack}))
        moving = [u for u in stack if u.empire == empire]
        if rng.random() < 0.4:  # one unit or a few stay
            moving = moving[: max(1, len(moving) - rng.choice((1, 3)))]
        if rng.random() < 0.2:
            moving.reverse()
        to = rng.choice(empty) if rng.random() < 0.5 else rng.choice(on_map)
        shortcuts += len(moving) == len(stack) or not board.at(to)
        units = [msgspec.structs.replace(u, hex=to) for u in moving]
        changed = state.with_units(units)
        expected = _full(state, board.with_units(units))
        assert changed == expected, f"change {number}: the state"
        assert _held(changed.board) == _indexes(changed.board), f"change {number}: indexes"
        state = changed
    assert shortcuts > 10, "the stacks hardly ever left whole or entered an empty hex"


def test_classes_are_not_carried_for_a_unit_from_another_tuple() -> None:
    """A unit put into an empire's tuple from another (a tuple that held units of several
    empires) may show a class the tuple had not: `board_views.carry_classes` then carries
    the classes only with it added, as a fresh reading gives them."""
    before = (Unit("FED-0001", "FED", "CA", 1401), Unit("FED-0002", "FED", "CA", 1401))
    board_views.unit_classes(before)
    stray = Unit("FED-0003", "FED", "DN", 1402)  # stood in another tuple
    moved = msgspec.structs.replace(stray, hex=1403)
    after = (*before, moved)
    board_views.carry_classes(before, after, {moved.id: moved}, {stray.id: stray})
    fresh_classes = board_views.unit_classes.__wrapped__(after)  # type: ignore[attr-defined]
    assert caches.peek(board_views.unit_classes, after) in (None, fresh_classes)
