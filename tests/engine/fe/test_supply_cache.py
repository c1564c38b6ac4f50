"""The remembered supply grids, blocking sets and release triggers never go stale (issue 16).

Supply grids (410.0), the hexes that block supply and retrograde (411.3) and the fleets whose
release trigger fired (600.3) are worked out once per board and kept while nothing they read
changes, as is which hexes hold which empires for the reserve's pinning check (203.7).
Here The Wind's set-up board is changed at random (a seeded generator, in this test only):
units move, turn crippled or are destroyed, hexes are captured or devastated, wars
begin, tugs take the supply mission. After every change the answers of the warm caches are
compared with a fresh computation: a decoded copy of the state (no object shared with the
warm one) with every cache emptied, and for blocking the table evaluated hex by hex from a
presence index rebuilt unit by unit. A cache that kept an answer for a board it no longer
describes fails here. The presence flags and blocking sets carried or shared from board to
board, and the reactors found near a batch, are each checked on these same changes against
their own reading unit by unit in `test_carried_hex_views`.
"""

from __future__ import annotations

import random
import re

import msgspec
import pytest

from engine.core import caches, hexgrid
from engine.core.ruleset import Actor, Event, StepKind
from engine.core.sequence import Step
from engine.fe import battles, blocking, economics, planets, provinces, strategic, unit_kinds
from engine.fe.blocking import Purpose, blocking_hexes
from engine.fe.forces import OFF_MAP, Board, Unit, war_pairs
from engine.fe.galaxy import HexId, load_galaxy
from engine.fe.model import FeState
from engine.fe.production import next_ids
from engine.fe.steps import base, releases, replacements, reserves
from engine.fe.steps import supply as supply_steps
from engine.fe.steps.missions import missions_on
from engine.fe.supply import SupplyGrid, supply_grid
from engine.fe.unit_kinds import can_supply, movement_points
from engine.fe.units import load_units
from tests.engine.fe.helpers import start

GALAXY = load_galaxy()
ALL_HEXES = frozenset(info.hex for info in GALAXY.hexes)
PURPOSES: tuple[Purpose, ...] = ("supply", "retrograde")
CHANGES = 24


def _presence_unit_by_unit(board: Board, empire: str) -> dict[HexId, int]:
    """The presence flags of `engine.fe.blocking` built from each unit's class, with none of
    the module's memos (the per-board index, the per-class traits, the map's bases)."""
    flags: dict[HexId, int] = {}

    def mark(h: HexId, owner: str, ship: bool, attrition: bool) -> None:
        if owner == empire:
            bits = blocking._F_ANY | (blocking._F_SHIP if ship else 0)
            bits |= blocking._F_FIGHTERS if attrition else 0
        elif board.enemies(empire, owner):
            bits = blocking._E_ANY | (blocking._E_SHIP if ship else 0)
            bits |= blocking._E_FIGHTERS if attrition and not ship else 0
        else:
            return
        flags[h] = flags.get(h, 0) | bits

    for unit in board.units:
        if unit.hex != OFF_MAP:
            attrition = unit_kinds.carries_attrition(unit_kinds.class_of(unit), unit.crippled)
            mark(unit.hex, unit.empire, unit_kinds.is_ship(unit), attrition)
    for info in GALAXY.hexes:
        owner = board.owner(GALAXY, info.hex)
        for placed in info.bases:
            found = load_units().find(owner, placed.kind)
            mark(info.hex, owner, False, unit_kinds.carries_attrition(found, False))
    return flags


def _blocking_hex_by_hex(board: Board, empire: str, purpose: Purpose) -> set[HexId]:
    flags = _presence_unit_by_unit(board, empire)
    table = blocking.adjacency(GALAXY)
    retro = purpose == "retrograde"
    return {h for h in table if blocking._evaluate(flags, table, h, retro)}


def _copy(state: FeState) -> FeState:
    """An equal state sharing no object with ``state`` (nor its memos)."""
    return msgspec.msgpack.decode(msgspec.msgpack.encode(state), type=FeState)


class Answers(msgspec.Struct, frozen=True):
    grids: dict[str, object]
    blocked: dict[tuple[str, str], frozenset[HexId]]
    fired: list[tuple[str, str, str]]
    counts: dict[str, dict[str, list[str]]]
    """Per empire, its units on the map by supply status (what a supply check reports)."""
    pinned: list[str]
    """Units in a hex with enemy units (none of them may be a reserve, 203.7)."""
    fighters: list[tuple[str, list[str], list[str]]]
    """Per empire with fighters on the map, its carriers in and out of supply (6E, 530.12)."""
    next_ids: dict[str, tuple[str, ...]]
    """The next two fresh ids of each empire (`production.next_ids`)."""
    routes: dict[str, object]
    """Each empire's strategic route (204.0) from its first node to two others."""
    disrupted: list[str]
    """The provinces an enemy ship disrupts (for income), by id."""
    battles: list[object]
    checks: dict[str, tuple[int, list[str], list[str]]]
    """Per empire, what a supply check reports: units in the main grid, ids in a partial grid
    and out of supply (`supply_steps._check`)."""
    """The battle hexes (302.0), planets included."""
    disrupting: dict[str, list[HexId]]
    """Per empire, the hexes of the map holding a ship of one of its enemies
    (`provinces.disrupting_hexes`, from the board's carried hex index)."""
    incomes: dict[str, economics.Income]
    """What each empire would collect in Phase 1C (`economics.income`, kept by value)."""


def _battles_unit_by_unit(board: Board) -> list[object]:
    """`battles.battle_hexes` as it read the board before: every unit's empire by hex."""
    present: dict[HexId, set[str]] = {}
    for unit in board.units:
        if unit.hex != OFF_MAP:
            present.setdefault(unit.hex, set()).add(unit.empire)
    defended = planets.planet_battles(GALAXY, board)
    found: list[object] = []
    for h in sorted(present):
        owner = defended.get(h, "")
        empires = sorted(present[h] | ({owner} if owner else set()))
        pairs = [(a, b) for i, a in enumerate(empires) for b in empires[i + 1 :]]
        if owner or any(board.enemies(a, b) for a, b in pairs):
            found.append(battles.BattleHex(h, tuple(empires), owner))
    return found


def _routes(board: Board, grids: dict[str, SupplyGrid]) -> dict[str, object]:
    out: dict[str, object] = {}
    for empire, grid in grids.items():
        linked = sorted(strategic.nodes(grid))
        for to in linked[-1:] + linked[len(linked) // 2 : len(linked) // 2 + 1]:
            out[f"{empire} {to}"] = strategic.strategic_route(GALAXY, board, grid, linked[0], to)
    return out


FIGHTERS_STEP = Step("6E", "6", "fighters", Actor.BOTH, StepKind.AUTOMATIC)


def _free_fighters(state: FeState) -> list[tuple[str, list[str], list[str]]]:
    events: list[Event] = []
    replacements.free_fighters(state, FIGHTERS_STEP, events)
    return [(e.data["empire"], e.data["replaced"], e.data["unsupplied"]) for e in events]


def _answers(state: FeState) -> Answers:
    board = state.board
    empires = base.all_empires(state)
    return Answers(
        grids={e: supply_steps.grid_of(state, e) for e in empires},
        blocked={(e, p): blocking_hexes(GALAXY, board, e, p) for e in empires for p in PURPOSES},
        fired=releases.fired_releases(state),
        counts={
            e: {status: [u.id for u in units] for status, units in counted.items()}
            for e in empires
            for counted in [supply_steps._counts(state, e)]
        },
        pinned=[u.id for u in board.units if reserves._pinned(board, u)],
        fighters=_free_fighters(state),
        next_ids={e: next_ids(board, e, 2) for e in empires},
        routes=_routes(board, {e: supply_steps.grid_of(state, e) for e in empires}),
        disrupted=[p.id for p in GALAXY.provinces if provinces.disrupted(board, p, p.empire)],
        battles=list(battles.battle_hexes(board, GALAXY)),
        checks={
            e: (check.main, [u.id for u in check.partial], [u.id for u in check.none])
            for e in empires
            for check in [supply_steps._check(state, e)]
        },
        disrupting={
            e: sorted(provinces.disrupting_hexes(board, provinces.foes_of(board, e), ALL_HEXES))
            for e in empires
        },
        incomes={e: economics.income(GALAXY, board, e) for e in empires},
    )


def _fresh(state: FeState) -> Answers:
    caches.clear_all()
    copy = _copy(state)
    board = copy.board
    empires = base.all_empires(copy)
    grids = {
        e: supply_grid(GALAXY, board, e, missions_on(board, copy.supply_tugs, e)) for e in empires
    }
    counts: dict[str, dict[str, list[str]]] = {}
    for e in empires:
        counts[e] = {"main": [], "partial": [], "none": []}
        for unit in board.units:
            if unit.empire == e and unit.hex != OFF_MAP:
                counts[e][grids[e].status(unit.hex)].append(unit.id)
    return Answers(
        grids=dict(grids),
        blocked={
            (e, p): frozenset(_blocking_hex_by_hex(board, e, p)) for e in empires for p in PURPOSES
        },
        fired=releases.fired_releases(copy),
        counts=counts,
        pinned=[
            u.id
            for u in board.units
            if any(board.enemies(u.empire, other.empire) for other in board.at(u.hex))
        ],
        fighters=[
            (
                e,
                [u.id for u in carriers if grids[e].status(u.hex) != "none"],
                [u.id for u in carriers if grids[e].status(u.hex) == "none"],
            )
            for e in empires
            for carriers in [
                [
                    u
                    for u in board.units
                    if u.empire == e
                    and u.hex != OFF_MAP
                    and u.info().shown(u.crippled).fighters2 > 0
                ]
            ]
            if carriers
        ],
        next_ids={e: _next_ids_by_pattern(board, e) for e in empires},
        routes=_routes(board, grids),
        disrupted=[
            p.id
            for p in GALAXY.provinces
            if any(
                unit_kinds.is_ship(u) and board.enemies(u.empire, p.empire)
                for h in p.hexes
                for u in board.at(h)
            )
        ],
        battles=_battles_unit_by_unit(board),
        checks={e: (len(c["main"]), c["partial"], c["none"]) for e, c in counts.items()},
        disrupting={
            e: sorted(
                {
                    u.hex
                    for u in board.units
                    if u.hex != OFF_MAP and unit_kinds.is_ship(u) and board.enemies(e, u.empire)
                }
            )
            for e in empires
        },
        incomes={e: economics.income(GALAXY, board, e) for e in empires},
    )


def _next_ids_by_pattern(board: Board, empire: str) -> tuple[str, ...]:
    """`production.next_ids` as a regular expression over every unit reads it."""
    pattern = re.compile(rf"{re.escape(empire)}-(\d+)")
    numbers = [int(m.group(1)) for u in board.units if (m := pattern.fullmatch(u.id))]
    start = max(numbers, default=0)
    return (f"{empire}-{start + 1:04d}", f"{empire}-{start + 2:04d}")


# --- random changes ---------------------------------------------------------------------------


def _on_map(state: FeState) -> list[Unit]:
    return [u for u in state.board.units if u.hex != OFF_MAP]


def _move(state: FeState, rng: random.Random) -> tuple[FeState, str]:
    """A stack (all units of one empire in one hex) moves up to six hexes, or one unit jumps
    next to another empire's units, where blocking changes most."""
    units = _on_map(state)
    mover = rng.choice(units)
    if rng.random() < 0.5:
        board = state.board
        enemies = [u for u in units if board.enemies(mover.empire, u.empire)]
        target = rng.choice(enemies or [u for u in units if u.empire != mover.empire]).hex
        near = hexgrid.neighbours(target, GALAXY.width, GALAXY.height)
        to = target if rng.random() < 0.5 else rng.choice(near)
        moved = [msgspec.structs.replace(mover, hex=to)]
    else:
        to = mover.hex
        for _ in range(rng.randint(1, 6)):
            to = rng.choice(hexgrid.neighbours(to, GALAXY.width, GALAXY.height))
        stack = [u for u in state.board.at(mover.hex) if u.empire == mover.empire]
        moved = [msgspec.structs.replace(u, hex=to) for u in stack]
    board = state.board.with_units(moved)
    return state.with_board(board), f"{len(moved)} {mover.empire} to {to}"


def _destroy(state: FeState, rng: random.Random) -> tuple[FeState, str]:
    """A unit on the map is destroyed (bases too: a grid loses a supply point)."""
    units = _on_map(state)
    bases = [u for u in units if unit_kinds.is_base(u)]
    gone = rng.choice(bases if bases and rng.random() < 0.4 else units)
    board = state.board
    kept = tuple(u for u in board.units if u.id != gone.id)
    return state.with_board(msgspec.structs.replace(board, units=kept)), f"destroyed {gone.id}"


def _cripple(state: FeState, rng: random.Random) -> tuple[FeState, str]:
    unit = rng.choice([u for u in _on_map(state) if not u.crippled])
    board = state.board.with_units([msgspec.structs.replace(unit, crippled=True)])
    return state.with_board(board), f"crippled {unit.id}"


def _capture(state: FeState, rng: random.Random) -> tuple[FeState, str]:
    """A hex with planets or bases (or a capital) changes hands."""
    info = rng.choice([i for i in GALAXY.hexes if i.planets or i.bases])
    taker = rng.choice(base.all_empires(state))
    owners = dict(state.owners)
    owners[info.hex] = taker
    board = msgspec.structs.replace(state.board, owners=tuple(sorted(owners.items())))
    return state.with_board(board), f"{taker} captured {info.hex}"


def _devastate(state: FeState, rng: random.Random) -> tuple[FeState, str]:
    info = rng.choice([i for i in GALAXY.hexes if i.planets])
    devastated = tuple(sorted({*state.devastated, info.hex}))
    return msgspec.structs.replace(state, devastated=devastated), f"devastated {info.hex}"


def _war(state: FeState, rng: random.Random) -> tuple[FeState, str]:
    a, b = rng.sample(base.all_empires(state), 2)
    board = msgspec.structs.replace(state.board, at_war=war_pairs((*state.at_war, (a, b))))
    return state.with_board(board), f"{a} and {b} at war"


def _tug(state: FeState, rng: random.Random) -> tuple[FeState, str]:
    """A tug takes the supply mission, or one leaves it."""
    tugs = [u.id for u in _on_map(state) if can_supply(u)]
    if state.supply_tugs and rng.random() < 0.3:
        left = rng.choice(state.supply_tugs)
        kept = tuple(t for t in state.supply_tugs if t != left)
        return msgspec.structs.replace(state, supply_tugs=kept), f"{left} off supply"
    if not tugs:
        return state, "no tug"
    tug = rng.choice(tugs)
    missions = tuple(sorted({*state.supply_tugs, tug}))
    return msgspec.structs.replace(state, supply_tugs=missions), f"{tug} on supply"


def _provoke(state: FeState, rng: random.Random) -> tuple[FeState, str]:
    """A unit of a release trigger's actors moves onto one of its targets (600.3x), so that
    the fired releases change too."""
    held = [
        (setup, release)
        for setup in base.scenario_setup(state).empires
        for release in setup.releases
        if release.trigger.action == "occupies"
    ]
    setup, release = rng.choice(held)
    actors = releases._actors(setup, release.trigger)
    movers = [u for u in _on_map(state) if u.empire in actors and movement_points(u) > 0]
    target = rng.choice(release.trigger.any_of)
    if target.kind == "hexes":
        hexes = list(target.hexes)
    elif target.kind == "fleet-area":
        plan = releases._plan(setup, release.trigger, base.scenario_setup(state))
        hexes = sorted(plan.watches[release.trigger.any_of.index(target)].hexes)
    elif target.kind == "empire":
        hexes = [i.hex for i in GALAXY.hexes if state.board.owner(GALAXY, i.hex) in target.empires]
    else:
        hexes = [u.hex for u in _on_map(state) if u.cls in releases.STARBASE_CLASSES]
    if not movers or not hexes:
        return state, "no trigger to provoke"
    unit = msgspec.structs.replace(rng.choice(movers), hex=rng.choice(hexes))
    return state.with_board(state.board.with_units([unit])), f"{unit.id} to {unit.hex}"


def _meet(state: FeState, rng: random.Random) -> tuple[FeState, str]:
    """A unit moves up to three hexes and an enemy unit follows it into its new hex: the two
    now pin each other (203.7) in a hex that held neither."""
    board = state.board
    units = _on_map(state)
    first = rng.choice(units)
    enemies = [u for u in units if board.enemies(first.empire, u.empire)]
    if not enemies:
        return state, "no enemies"
    to = first.hex
    for _ in range(rng.randint(1, 3)):
        to = rng.choice(hexgrid.neighbours(to, GALAXY.width, GALAXY.height))
    second = rng.choice(enemies)
    moved = [msgspec.structs.replace(u, hex=to) for u in (first, second)]
    return state.with_board(board.with_units(moved)), f"{first.id} and {second.id} meet in {to}"


def _build(state: FeState, rng: random.Random) -> tuple[FeState, str]:
    """A new carrier appears next to one of its empire's units, with the next free id."""
    empire = rng.choice(base.all_empires(state))
    near = rng.choice([u for u in _on_map(state) if u.empire == empire] or _on_map(state))
    (uid,) = next_ids(state.board, empire, 1)
    owned = [u.cls for u in _on_map(state) if u.empire == empire and ":" not in u.cls]
    carriers = [c for c in owned if (found := load_units().find(empire, c)) is not None
                and found.full.fighters2 > 0]  # fmt: skip
    cls = rng.choice(carriers or owned)
    unit = Unit(uid, empire, cls, near.hex)
    return state.with_board(state.board.with_units([unit])), f"built {cls} {uid}"


CHANGERS = (
    _move, _move, _meet, _provoke, _destroy, _cripple, _capture, _devastate, _war, _tug, _build,
)  # fmt: skip


def _at_war(state: FeState) -> FeState:
    """The set-up with the coalition (Klingons, Lyrans) at war with the alliance (Kzinti,
    Federation, Hydrans): on the starting board only the Lyrans and Kzinti are, and blocking
    and pinning need enemies."""
    pairs = [(a, b) for a in ("KLI", "LYR") for b in ("FED", "HYD", "KZI")]
    board = msgspec.structs.replace(state.board, at_war=war_pairs((*state.at_war, *pairs)))
    return state.with_board(board)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_remembered_answers_match_a_fresh_computation_after_every_change(seed: int) -> None:
    rng = random.Random(seed)
    state = _at_war(start())
    differed = 0
    disrupted_seen = 0
    previous = _fresh(state)
    for number in range(CHANGES):
        state, what = rng.choice(CHANGERS)(state, rng)
        warm = _answers(state)
        fresh = _fresh(state)
        assert warm.grids == fresh.grids, f"change {number} ({what}): supply grids"
        assert warm.blocked == fresh.blocked, f"change {number} ({what}): blocking hexes"
        assert warm.fired == fresh.fired, f"change {number} ({what}): fired releases"
        assert warm.counts == fresh.counts, f"change {number} ({what}): supply check counts"
        assert warm.pinned == fresh.pinned, f"change {number} ({what}): pinned units"
        assert warm.fighters == fresh.fighters, f"change {number} ({what}): 6E carriers"
        assert warm.next_ids == fresh.next_ids, f"change {number} ({what}): next ids"
        assert warm.routes == fresh.routes, f"change {number} ({what}): strategic routes"
        assert warm.disrupted == fresh.disrupted, f"change {number} ({what}): disruption"
        assert warm.battles == fresh.battles, f"change {number} ({what}): battle hexes"
        assert warm.disrupting == fresh.disrupting, f"change {number} ({what}): disruption"
        assert warm.incomes == fresh.incomes, f"change {number} ({what}): incomes"
        differed += fresh != previous
        disrupted_seen += sum(earned.disrupted for earned in fresh.incomes.values())
        previous = fresh
        # The caches now hold the answers for this board; the next change must not reuse them.
        _answers(state)
    assert differed >= CHANGES // 2, "the changes hardly changed anything: a weak test"
    assert disrupted_seen, "no province was ever disrupted: a weak test of incomes"


def test_a_grid_is_reused_while_nothing_it_reads_changes_and_not_after() -> None:
    """A fleet released, or a ship moving in its own space far from any enemy, leaves the
    grid as it was (the same object comes back); the capital captured does not."""
    state = start()
    empire = "FED"
    before = supply_steps.grid_of(state, empire)
    released = msgspec.structs.replace(state, released=(*state.released, ("FED", "nothing")))
    assert released.board is not state.board
    assert supply_steps.grid_of(released, empire) is before
    capital = GALAXY.capitals_of(empire)[0].hex
    owners = tuple(sorted({*state.owners, (capital, "KLI")}))
    taken = msgspec.structs.replace(state, owners=owners)
    after = supply_steps.grid_of(taken, empire)
    assert after != before
    assert after == _fresh(taken).grids[empire]


def test_units_by_supply_status_match_a_unit_by_unit_reading() -> None:
    """`_by_status` sorts an empire's own units in C and any other tuple unit by unit: both
    give each status's units of the grid's empire on the map, in their order."""
    state = _at_war(start())
    seen: set[str] = set()
    for empire in ("KLI", "KZI"):
        grid = supply_steps.grid_of(state, empire)
        own = next(f.units for f in state.forces if f.empire == empire)
        mixed = tuple(sorted(state.board.units, key=lambda u: u.id))
        stray = (Unit(f"{empire}-9999", empire, "CA", 6119), Unit(f"{empire}-9998", empire, "CA"))
        for units in (own, own + stray, mixed):
            expected: dict[str, list[Unit]] = {"main": [], "partial": [], "none": []}
            for unit in units:
                if unit.empire == empire and unit.hex != OFF_MAP:
                    expected[grid.status(unit.hex)].append(unit)
            found = supply_steps._by_status.__wrapped__(units, grid)  # type: ignore[attr-defined]
            assert {k: list(v) for k, v in found.items()} == expected
            assert list(found) == ["main", "partial", "none"]
            seen.update(status for status, listed in found.items() if listed)
    assert {"main", "none"} <= seen
