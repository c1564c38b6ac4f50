"""Operational movement (Phase 3B2): a stack moves hex by hex within its allowance.

Legality is separate from application, as in python-chess: `check_move` lists every reason a
`Move` is refused (each `Violation` names its rule), `apply_move` only carries out a move that
checked clean. Neither is wired into the game flow yet; the flow will call them for the
phasing player's movement orders and keep the ``moved`` tally per phase.

A `Move` is a stack moving together along a path of adjacent hexes. A unit may move in several
batches during the phase, as long as the hexes of all its batches fit its allowance: the
caller passes ``moved`` (hexes already spent this phase, per unit id) and keeps it up to date
with `spend`. Leaving units behind to pin an enemy (203.5) is done with two moves: the part
that stays moves into the enemy's hex and stops; the part that goes on moves through it, and
the pin is checked against what is there now (see `engine.fe.pinning`).

Rules enforced, each marked as in ``fe-rules-notes.md`` (S sourced, I inferred, C a choice):

- S (105.0, step 3B2): the phasing player moves his own units only.
- S (600.3, 600.30 fleet release status): units of a starting fleet that is not released may
  not move. I: a fleet with no release condition whose empire is at war is still refused
  until the scenario marks it released (the scenario's job, `Board.released`).
- S (203.1): allowance in hexes is the class's movement value: warships 6, auxiliaries 3
  (549.21), convoys 2, FRDs 1; 0 means the unit cannot move by itself. C: each hex costs 1
  (no terrain costs in the rules found): the ``hex-cost`` option, default 1.
- I: a path is a chain of adjacent on-map hexes; it may turn and cross itself. Off-map areas
  (207.2) are not reachable by operational movement here yet.
- S (203.5): a stack that enters a hex holding enemy ships stops there, unless the units that
  stay in that hex pin the enemy; units in a hex with enemy ships may leave only in excess of
  what pins the enemy. The pinning arithmetic is in `engine.fe.pinning`.
- S (410.31): a unit out of supply moves at half its allowance. The caller names those units
  (``halved``: the flow takes them from the 3B1 supply check); I: the half is rounded down
  (a convoy's 2 hexes become 1, an FRD's 1 none), and what a unit already spent this phase
  counts against the halved allowance.
- Elsewhere: neutral-zone entry (503.6, `engine.fe.neutral`, through the steps' closed
  hexes), reserve fleets (203.7, `engine.fe.steps.reserves`), strategic movement (204.0,
  `engine.fe.strategic`). Not modelled yet (left to the players, as the checklist says): tugs
  towing FRDs and bases, police ships' limits (531.212).

Deterministic: violations come in a fixed order (unit ids sorted), no sets are iterated, and
the board that comes back is canonical (`Board.with_units`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from itertools import pairwise, repeat

import msgspec

from engine.core import caches, hexgrid
from engine.core.ruleset import OptionSpec, OptionValue, Violation
from engine.fe.forces import Board, Unit, allowance, class_allowance
from engine.fe.galaxy import Galaxy, HexId
from engine.fe.pinning import enemy_present, pin_violation

MOVE_RULE = "203.1"
HALF_RULE = "410.31"
HEX_COST = "hex-cost"

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        HEX_COST,
        1,
        "Movement points each hex costs (the core rules show no terrain costs)",
        MOVE_RULE,
        bounds=(1, 9),
    ),
)
"""The movement options (C in the rules notes: a house-rule default until checked)."""


def hex_cost(values: Mapping[str, OptionValue]) -> int:
    """The ``hex-cost`` option's value (1 unless chosen otherwise, never below 1)."""
    value = values.get(HEX_COST, 1)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 1


OWN_UNITS_RULE = "105.0"
RELEASE_RULE = "600.3"


class Move(msgspec.Struct, frozen=True):
    """A stack moving together: ``path`` starts at the units' hex and steps to adjacent hexes.

    ``len(path) - 1`` is the number of hexes moved.
    """

    unit_ids: tuple[str, ...]
    path: tuple[HexId, ...]

    @property
    def hexes(self) -> int:
        return max(len(self.path) - 1, 0)


def _route(move: Move) -> str:
    return f"{move.path[0]:04d}->{move.path[-1]:04d}"


def check_units(board: Board, move: Move) -> tuple[list[Unit], list[Violation]]:
    """The move's units that exist (sorted by id) and what is wrong with the list itself:
    none given, an id given twice, an id not on the board."""
    ids = sorted(move.unit_ids)
    try:  # the usual list, told in C: every id on the board, each once
        found = board.units_named(ids)
    except KeyError:
        found = []
    if found and len(set(ids)) == len(ids):
        return found, []
    out: list[Violation] = []
    if not move.unit_ids:
        out.append(Violation("a move needs at least one unit", MOVE_RULE))
    seen: dict[str, Unit] = {}
    for unit_id in sorted(move.unit_ids):
        if unit_id in seen:
            out.append(Violation(f"{unit_id} is listed twice", MOVE_RULE))
            continue
        try:
            seen[unit_id] = board.unit(unit_id)
        except KeyError:
            out.append(Violation(board.no_unit(unit_id), MOVE_RULE))
    return list(seen.values()), out


@caches.derived(maxsize=4096, shipped=True)
def _steps_from(h: HexId, width: int, height: int) -> frozenset[HexId]:
    """The hexes one step from ``h`` on a ``width`` x ``height`` map (`hexgrid.neighbours`),
    none when ``h`` is off it (`hexgrid.valid`): each hex a path leaves is looked up once,
    not the whole map at the first move."""
    if not hexgrid.valid(h, width, height):
        return frozenset()
    return frozenset(hexgrid.neighbours(h, width, height))


def check_path(galaxy: Galaxy, path: tuple[HexId, ...]) -> list[Violation]:
    """A path must have a first hex and at least one step, each to an adjacent on-map hex."""
    if len(path) < 2:
        return [
            Violation("a move needs a path of at least two hexes (start and one step)", MOVE_RULE)
        ]
    width, height = galaxy.width, galaxy.height
    steps = map(_steps_from, path[:-1], repeat(width), repeat(height))
    if all(map(frozenset.__contains__, steps, path[1:])):
        return []  # (each step to an adjacent hex on the map, told in C; else the reasons)
    out: list[Violation] = []
    for h in path:
        if not hexgrid.valid(h, galaxy.width, galaxy.height):
            out.append(Violation(f"hex {h:04d} is not on the map", MOVE_RULE))
    if out:
        return out
    for a, b in pairwise(path):
        if b not in hexgrid.neighbours(a, galaxy.width, galaxy.height):
            out.append(Violation(f"{a:04d}->{b:04d} is not a step to an adjacent hex", MOVE_RULE))
    return out


def check_released(board: Board, units: list[Unit]) -> list[Violation]:
    """One violation per starting fleet of ``units`` that is not released (600.3)."""
    # A stack is a fleet or two: each (empire, fleet) is looked up once. (Comprehensions
    # read a unit's fields faster than attrgetter in C does.)
    fleets = {(u.empire, u.fleet) for u in units if u.fleet}
    if fleets.issubset(board.released):
        return []
    held: dict[tuple[str, str], list[str]] = {}
    for unit in units:
        if not board.is_released(unit):
            held.setdefault((unit.empire, unit.fleet), []).append(unit.id)
    return [
        Violation(
            f"fleet {fleet} ({empire}) is not released (600-series scenario rules): "
            + ", ".join(ids),
            RELEASE_RULE,
        )
        for (empire, fleet), ids in sorted(held.items())
    ]


def limit(unit: Unit, halved: Collection[str] = ()) -> int:
    """The unit's allowance this phase: its class's, halved (rounded down) when it is out of
    supply (410.31)."""
    full = allowance(unit)
    return full // 2 if unit.id in halved else full


def remaining(
    unit: Unit, moved: Mapping[str, int] | None = None, halved: Collection[str] = ()
) -> int:
    """Hexes ``unit`` may still move this phase: its allowance (halved out of supply) less
    what it has spent."""
    spent = moved.get(unit.id, 0) if moved is not None else 0
    return max(limit(unit, halved) - spent, 0)


def check_allowance(
    move: Move,
    units: list[Unit],
    moved: Mapping[str, int] | None,
    hex_cost: int = 1,
    halved: Collection[str] = (),
) -> list[Violation]:
    """Every unit must have the move's cost left in its allowance (203.1), half of it when
    the unit is out of supply (``halved``, 410.31).

    ``hex_cost`` is what each hex costs (the ``hex-cost`` option, 1 by default); ``moved``
    holds what each unit already spent this phase, in the same points.
    """
    out: list[Violation] = []
    cost = move.hexes * hex_cost
    spent_of = moved if moved is not None else {}
    slow = frozenset(halved)
    # Most stacks have the cost left whoever looks: every class's allowance, less the most
    # any of them spent, covers it, and none is halved. Only then is no unit read alone.
    ids = [unit.id for unit in units]
    fulls = [class_allowance(e, c) for e, c in {(u.empire, u.cls) for u in units}]
    worst = max(map(spent_of.get, ids, repeat(0)), default=0) if spent_of else 0
    if fulls and min(fulls) > 0 and slow.isdisjoint(ids) and cost <= min(fulls) - worst:
        return out
    allowances: dict[tuple[str, str], int] = {}  # by (empire, class): a stack is a few classes
    for unit in units:
        key = (unit.empire, unit.cls)
        full = allowances.get(key)
        if full is None:
            full = allowances[key] = allowance(unit)
        if full == 0:
            out.append(Violation(f"{unit.id} ({unit.cls}) cannot move by itself", MOVE_RULE))
            continue
        most = full // 2 if unit.id in slow else full  # `limit`
        spent = spent_of.get(unit.id, 0)
        if cost > max(most - spent, 0):  # `remaining`
            already = f" ({spent} already moved this phase)" if spent else ""
            needs = f"{move.hexes} hexes"
            if hex_cost != 1:
                needs += f" ({cost} movement points at {hex_cost} a hex)"
            if unit.id in slow:
                text = (
                    f"{unit.id} ({unit.cls}) is out of supply and moves at half speed: "
                    f"{_route(move)} needs {needs}, allowance {full} halved to {most}{already}"
                )
                out.append(Violation(text, HALF_RULE))
                continue
            out.append(
                Violation(
                    f"{unit.id} ({unit.cls}): {_route(move)} needs {needs}, "
                    f"allowance {full}{already}",
                    MOVE_RULE,
                )
            )
    return out


def check_pins(board: Board, empire: str, move: Move) -> list[Violation]:
    """The stack may leave its first hex and pass each hex before its last only if the
    empire's units staying there pin the enemy ships present (203.5)."""
    leaving = frozenset(move.unit_ids)
    out: list[Violation] = []
    checked: list[HexId] = []
    for h in move.path[:-1]:
        if h in checked:
            continue
        checked.append(h)
        if not enemy_present(board, empire, h):
            continue  # nothing to pin there (`pin_violation` finds no enemy ship)
        found = pin_violation(board, empire, h, leaving)
        if found is not None:
            out.append(found)
    return out


def check_move(
    galaxy: Galaxy,
    board: Board,
    empire: str,
    move: Move,
    moved: Mapping[str, int] | None = None,
    hex_cost: int = 1,
    halved: Collection[str] = (),
    found: list[Unit] | None = None,
) -> list[Violation]:
    """Every reason ``empire`` may not make ``move`` now (empty: the move is legal).

    ``moved`` maps unit ids to the hexes they have already moved this phase (absent: none);
    ``halved`` names the units out of supply, which move at half speed (410.31). ``found``
    may give the move's units sorted by id, when the caller found every id on the board,
    each once (`check_units` then has nothing to say and is not asked).
    The checks run in a fixed order: the unit list, ownership and position, fleet release,
    the path, the allowance, then pinning; pinning is judged only on a valid path.
    """
    units, out = (found, []) if found is not None else check_units(board, move)
    start = move.path[0] if move.path else None
    # A stack of the empire's own units, all in the first hex, told in C; else unit by unit.
    own = units
    if {(u.empire, u.hex) for u in units} != {(empire, start)}:
        for unit in units:
            if unit.empire != empire:
                out.append(
                    Violation(
                        f"{unit.id} belongs to {unit.empire}; {empire} moves only its own units",
                        OWN_UNITS_RULE,
                    )
                )
            elif start is not None and unit.hex != start:
                where = f"{unit.hex:04d}" if unit.hex else "off the map"
                out.append(Violation(f"{unit.id} is in {where}, not in {start:04d}", MOVE_RULE))
        own = [u for u in units if u.empire == empire]
    out.extend(check_released(board, own))
    path_problems = check_path(galaxy, move.path)
    out.extend(path_problems)
    if path_problems:
        return out
    out.extend(check_allowance(move, own, moved, hex_cost, halved))
    out.extend(check_pins(board, empire, move))
    return out


def apply_move(board: Board, move: Move) -> Board:
    """The board after ``move``: its units stand in the path's last hex.

    Only call it with a move `check_move` accepted; it checks nothing.
    """
    end = move.path[-1]
    return board.with_units(
        msgspec.structs.replace(board.unit(uid), hex=end) for uid in move.unit_ids
    )


def spend(moved: Mapping[str, int] | None, move: Move, hex_cost: int = 1) -> dict[str, int]:
    """The ``moved`` tally after ``move``: each of its units has spent its cost more.

    Returns a new dict with sorted keys (so it encodes the same way everywhere).
    """
    out = dict(moved or {})
    for uid in move.unit_ids:
        out[uid] = out.get(uid, 0) + move.hexes * hex_cost
    return dict(sorted(out.items()))
