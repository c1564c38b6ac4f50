"""Retreat and pursuit played by the engine (302.7, 302.8, 307.0): steps 5-7A1 to 5-8L.

The combat loop (`engine.fe.steps.combat`) records who announces a retreat; this area gives
the announcements a destination and carries them out, then offers the pursuit:

- 5-7A1, 5-7A2, 5-7A3 (defender, attacker, defender; 302.71): a ``retreat`` order may name
  ``to``, a hex next to the battle hex; it is checked against the retreat priorities
  (`engine.fe.combat.retreat.legal_retreat_hexes`, 302.72) on the facts of the board (enemy
  units, own ships, supply, closed and neutral space, the map's edge). Without ``to`` the
  engine picks, so a retreat costs no extra hand-off. A side with nothing that can move, or
  with no hex to go to, may not announce one. The defender who retreated at 5-7A1 has no
  last option: 5-7A3 passes.
- 5-7A4 (the loop's step): when a retreat follows, the engine carries it out at once, the
  defender's first (302.712). Why there and not at 5-7D: 5-7A5 must see what the retreat
  left behind, and the pursuer at 5-8A must see where the enemy went.
- 5-7A5: a base, PDU or planet of the retreating side stays; if it does, the battle goes on
  against it (302.741): the next round begins at 5-2A1 and no pursuit is offered.
- 5-7B, 5-7C, 5-7D, 5-8B, 5-8C, 5-8J, 5-8K, 5-8L are the engine's and have nothing left to
  do: the retreat was made at 5-7A4, the pursuit die is rolled with the ``pursue`` order.
- 5-8A (`engine.fe.steps.pursuit_die`): only the side that stayed, when it has ships in the
  hex, answers: ``pursue`` with some of them (302.742) or ``done`` to let the enemy go. The
  pursuit die is a fair roll of the protocol core, armed with the order (the other seat's
  next packet completes it): the pursuit succeeds when the die plus its modifier is less
  than the number of pursuing ships (307.0). With nobody able to pursue the step passes by
  itself.
- 5-8D to 5-8G and 5-8J, the pursuit battle, are `engine.fe.steps.combat_pursuit`'s.
  After a failed pursuit, or none, they pass and the retreat stands.

Readings, marked as in ``fe-rules-notes.md`` (S sourced, I inferred, C a choice):

- I: a side retreats as one stack into one hex; the units that move are those that move by
  themselves (ships and auxiliaries, `engine.fe.unit_kinds.movement_points`); bases, PDUs,
  FRDs and planets stay (towing an FRD, 509.1-F, is left to a typed adjustment).
- I: the facts of a candidate hex are read for the empire with most units in the retreating
  stack (ties: the first in the scenario's order): an enemy unit is a unit of an empire at
  war with one of the side's empires; friendly ships are the side's ships already there;
  space closed to that empire is not enterable, except another empire's space, which counts
  as neutral territory (internment itself is left to the players); an off-map area is not a
  candidate. A hex's supply is read with the retreating ships in it (so the enemy next door
  does not cut it): the shortest supply path ends in the hex from one of its neighbours
  reached by the grid's spread (410.0-413.0, `engine.fe.supply`).
- C (named here, not an option): among the legal hexes the engine prefers one that is not
  neutral, free of enemy units, on the main grid, with the shortest supply path, then the
  lowest hex id. Its pick is always a legal one; a player who prefers another names it.
- I: if the board changed between the announcement and 5-7A4 (a typed adjustment) so that
  the named hex is no longer legal, the engine's pick replaces it, and the event says so.
- I: the pursuit is decided after the retreat was made; its battle ends with the survivors
  in their retreat hex (the units that retreated are kept on the record, ``fled``).
- S (5-8B, play aid): the pursuit die takes +1 when the retreat follows an approach battle
  the defender declined (302.23), -1 with X or fast ships among the pursuers (523.39,
  525.133), and succeeds without a roll when every pursuer is one. I: "follows a declined
  approach" means the attacker retreated at 5-2B1 in the round whose approach battle was
  refused (``BattleRecord.opening.declined``), before any of that round's choices were made.
  I: an X ship is a class whose rules name 523, a fast ship one whose rules name 525.13;
  the unit tables mark no class so today, so the -1 and the automatic success wait for data.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from engine.core import hexgrid
from engine.core.ruleset import Event, RollRequest, Seat, Violation
from engine.fe import supply
from engine.fe.battle_model import BattleRecord
from engine.fe.blocking import Blocking
from engine.fe.combat import retreat as rules
from engine.fe.forces import Unit
from engine.fe.galaxy import NEUTRAL_ZONE, HexId
from engine.fe.model import FeState
from engine.fe.orders import PursueOrder, RetreatOrder, hex_id
from engine.fe.sequence import Step
from engine.fe.steps import access, base, combat
from engine.fe.steps import supply as supply_step
from engine.fe.steps.base import Area
from engine.fe.steps.pursuit_die import (
    PURSUIT_RULE,
    ROLLING,
    apply_pursue,
    check_pursue,
    pursuer,
    pursuit_roll,
)
from engine.fe.unit_kinds import is_ship, movement_points

ANNOUNCING_STEPS = combat.ANNOUNCING_STEPS
LAST_OPTION_STEP = "5-7A3"
BASE_STEP = "5-7A5"
PURSUIT_STEP = "5-8A"
MOVE_RULE = rules.PRIORITY_RULE
BASE_RULE = "302.741"
ATTACKER_OPTION_STEP = "5-7A2"
UNASKED_FROM = "5.3"
"""From this version a retreat option passes when its seat could announce no retreat (a
side gone from the hex, or with nothing there that moves or no hex to go to): the only
answer it had was ``done``, a hand-off for nothing. Games of 5.2 and before still ask."""


def _record(state: FeState) -> BattleRecord | None:
    return combat.current(state)


def _other(state: FeState, seat: Seat) -> Seat:
    return next(s for s in state.seats if s != seat)


def _defender(state: FeState) -> Seat:
    return _other(state, base.phasing(state))


# --- the candidate hexes (302.72) -------------------------------------------------------------


def movers(state: FeState, seat: Seat, h: HexId) -> list[Unit]:
    """The seat's units in ``h`` that retreat: those that move by themselves."""
    mine = set(base.empires_of(state, seat))
    return [u for u in state.board.at(h) if u.empire in mine and movement_points(u) > 0]


def _lead_empire(state: FeState, units: list[Unit]) -> str:
    empires = sorted({u.empire for u in units})
    counts = {e: sum(1 for u in units if u.empire == e) for e in empires}
    order = base.all_empires(state)
    return min(empires, key=lambda e: (-counts[e], order.index(e) if e in order else len(order), e))


def _supply_of(
    state: FeState, empire: str, hexes: tuple[HexId, ...]
) -> dict[HexId, tuple[rules.Grid, int]]:
    """For each of ``hexes``: its grid ("main", "partial", "none") and supply path length,
    read as if the retreating ships stood in it.

    The length is that of the shortest path from one of the grid's points (its main points
    for "main") to the hex, at most the supply range, through hexes supply is not blocked in
    (the point's own hex too, unless the path is the point alone; the hex at its end may be
    blocked: the ships would stand there). Such a path read backwards is one from the hex,
    and the supply neighbours are symmetric (`supply.neighbours_fn`), so a search from each
    of the few hexes asked about, out to the range, finds it: the grid's points are not
    spread over the whole map for the six hexes of a retreat."""
    galaxy = base.galaxy()
    blocked = Blocking(galaxy, state.board, empire, "supply")
    around = supply.neighbours_fn(galaxy, empire)
    points = [p for p in supply_step.grid_of(state, empire).points if p.grid >= 0]
    main = {p.hex for p in points if p.main}
    every = {p.hex for p in points}
    out: dict[HexId, tuple[rules.Grid, int]] = {}
    for h in hexes:
        to_main, to_any = _nearest(around, blocked, h, main, every)
        if to_main is not None:
            out[h] = ("main", to_main)
        elif to_any is not None:
            out[h] = ("partial", to_any)
        else:
            out[h] = ("none", 0)
    return out


def _nearest(
    around: Callable[[HexId], tuple[HexId, ...]],
    blocked: Callable[[HexId], bool],
    h: HexId,
    main: set[HexId],
    every: set[HexId],
) -> tuple[int | None, int | None]:
    """How far ``h`` is from the nearest of ``main`` and of ``every`` (a superset): a
    breadth-first search from ``h`` through unblocked hexes, out to the supply range, which
    stops as soon as both are found. None: not within range."""
    to_main = 0 if h in main else None
    to_any = 0 if h in every else None
    seen = {h}
    frontier = [h]
    distance = 0
    while frontier and to_main is None and distance < supply.SUPPLY_RANGE:
        distance += 1
        reached: list[HexId] = []
        for here in frontier:
            for n in around(here):
                if n not in seen:
                    seen.add(n)
                    if not blocked(n):
                        reached.append(n)
        for n in reached:
            if to_any is None and n in every:
                to_any = distance
            if n in main:
                to_main = distance
                break
        frontier = reached
    return to_main, to_any


def candidates(state: FeState, seat: Seat, h: HexId) -> list[rules.RetreatHex]:
    """The facts the retreat priorities read about each hex next to ``h``, for ``seat``."""
    stack = movers(state, seat, h)
    if not stack:
        return []
    empire = _lead_empire(state, stack)
    mine = set(base.empires_of(state, seat))
    board = state.board
    galaxy = base.galaxy()
    around = hexgrid.neighbours(h, galaxy.width, galaxy.height)
    supplied = _supply_of(state, empire, around)
    out: list[rules.RetreatHex] = []
    for n in around:
        closed = access.closed_to(state, empire, n)
        here = board.at(n)
        enemies = sum(
            1
            for u in here
            if u.empire not in mine and any(board.enemies(e, u.empire) for e in mine)
        )
        grid, length = supplied[n]
        out.append(
            rules.RetreatHex(
                hex=n,
                enterable=closed != NEUTRAL_ZONE,
                neutral=bool(closed) and closed != NEUTRAL_ZONE,
                enemy_units=enemies,
                friendly_ships=sum(1 for u in here if u.empire in mine and is_ship(u)),
                grid=grid,
                supply_distance=length,
            )
        )
    return out


_GRID_RANK = {"main": 0, "partial": 1, "none": 2}


def best_hex(cands: list[rules.RetreatHex]) -> HexId | None:
    """The engine's pick among the legal hexes (C, see the module notes); None: no hex."""
    legal = set(rules.legal_retreat_hexes(cands))
    kept = [c for c in cands if c.hex in legal]
    if not kept:
        return None
    return min(
        kept,
        key=lambda c: (
            c.neutral,
            c.enemy_units > 0,
            _GRID_RANK[c.grid],
            c.supply_distance,
            c.hex,
        ),
    ).hex


def retreat_problems(state: FeState, seat: Seat, to: str | None) -> list[Violation]:
    """Why ``seat`` may not announce a retreat (to ``to``) from the battle being fought."""
    record = _record(state)
    if record is None:
        return []  # the loop's own check says so
    where = base.hex_text(record.hex)
    if not movers(state, seat, record.hex):
        text = (
            f"nothing of {seat}'s in {where} can retreat: bases, PDUs and planets stay and fight on"
        )
        return [Violation(text, BASE_RULE)]
    cands = candidates(state, seat, record.hex)
    if not rules.legal_retreat_hexes(cands):
        text = (
            f"no hex next to {where} is open to {seat}'s retreat (closed space or the map's "
            "edge all round): stay and fight"
        )
        return [Violation(text, MOVE_RULE)]
    if to is None:
        return []
    return rules.retreat_problems(hex_id(to), cands)


# --- carrying the retreat out (5-7A4) ---------------------------------------------------------


def _in_retreat_order(state: FeState, record: BattleRecord) -> list[Seat]:
    """The retreating seats, the defender first (302.712)."""
    defender = _defender(state)
    return sorted(record.retreats, key=lambda s: s != defender)


def carry_out(state: FeState, step: Step, events: list[Event]) -> FeState:
    """Move each retreating side's ships to its hex, the defender first (302.712)."""
    record = _record(state)
    if record is None:
        return state
    where = base.hex_text(record.hex)
    wanted = dict(record.retreat_to)
    retreated: list[tuple[Seat, HexId]] = []
    fled: list[str] = []
    for seat in _in_retreat_order(state, record):
        stack = movers(state, seat, record.hex)
        data: dict[str, Any] = {"hex": where, "round": record.rounds, "seat": seat}
        if not stack:
            text = f"{seat} has nothing left in {where} to retreat ({MOVE_RULE})"
            events.append(Event("retreat", text, seat, step.id, data))
            continue
        cands = candidates(state, seat, record.hex)
        legal = rules.legal_retreat_hexes(cands)
        named = wanted.get(seat, 0)
        to = named if named in legal else best_hex(cands)
        if to is None:
            text = f"{seat} finds no hex to retreat to from {where}: its ships stay ({MOVE_RULE})"
            events.append(Event("retreat", text, seat, step.id, data))
            continue
        board = state.board
        state = state.with_board(
            board.with_units([msgspec.structs.replace(u, hex=to) for u in stack])
        )
        retreated.append((seat, to))
        fled.extend(u.id for u in stack)
        how = "as it named" if named == to else "the engine's pick by the retreat priorities"
        if named and named != to:
            how += f" ({base.hex_text(named)} is no longer open)"
        fact = next(c for c in cands if c.hex == to)
        extra = ""
        if rules.fighting_retreat(fact):
            extra = f"; a fighting retreat ({rules.FIGHTING_RETREAT_RULE})"
            state = _fighting_retreat(state, to, seat)
        ids = ", ".join(u.id for u in stack)
        text = (
            f"{seat} retreats from {where} to {base.hex_text(to)} after round {record.rounds}, "
            f"{how}: {ids}{extra} ({MOVE_RULE})"
        )
        data |= {"to": base.hex_text(to), "units": [u.id for u in stack]}
        events.append(Event("retreat", text, seat, step.id, data))
    record = msgspec.structs.replace(record, retreated=tuple(retreated), fled=tuple(fled))
    return combat.replace_current(state, record)


def _fighting_retreat(state: FeState, to: HexId, seat: Seat) -> FeState:
    """Ships that retreated into enemy units fight there at fixed BIRs (302.772): the hex's
    battle, fought later this phase (302.9), is marked with the retreating seat."""
    battles = list(state.battles)
    later = [
        i
        for i, r in enumerate(battles)
        if r.hex == to and i > state.battle_at and not r.rounds and not r.resolved
    ]
    if later:
        battles[later[0]] = msgspec.structs.replace(battles[later[0]], fighting_retreat=seat)
    else:
        battles.append(BattleRecord(to, fighting_retreat=seat))
    return msgspec.structs.replace(state, battles=tuple(battles))


def _left_behind(state: FeState, record: BattleRecord) -> tuple[Seat, str] | None:
    """A retreating side that still has something in the hex (a base, PDU or planet) while
    the enemy stays too: the battle goes on (302.741)."""
    phasing, others = combat.sides_present(state, record.hex)
    if not (phasing and others):
        return None
    for seat in record.retreats:
        mine = set(base.empires_of(state, seat))
        here = [u.id for u in state.board.at(record.hex) if u.empire in mine]
        return seat, (", ".join(here) if here else "its planet")
    return None


def _base_stays(state: FeState, step: Step, events: list[Event]) -> FeState:
    """5-7A5: what the retreat left behind fights on; the next round begins (302.741)."""
    record = _record(state)
    if record is None or not record.retreats:
        return state
    found = _left_behind(state, record)
    if found is None:
        return state
    seat, what = found
    where = base.hex_text(record.hex)
    record = msgspec.structs.replace(record, retreats=(), retreat_to=(), resolved="")
    text = (
        f"{seat} leaves {what} behind in {where}: the battle goes on, round {record.rounds + 1} "
        f"begins at {combat.ROUND_STEP} and nobody pursues ({BASE_RULE})"
    )
    data = {"hex": where, "round": record.rounds + 1, "seat": seat}
    events.append(Event("battle", text, seat, step.id, data))
    return msgspec.structs.replace(
        combat.replace_current(state, record),
        step=combat.index_of(combat.ROUND_STEP),
        backs=state.backs + 1,
    )


def _no_retreat(state: FeState, step: Step, record: BattleRecord) -> str:
    """Why the seat of retreat option ``step`` could announce no retreat, or "" when it
    could: the battle is over (a side has nothing left, 5-7A4 ends it), or the seat has
    nothing there that moves or no hex to go to (`retreat_problems`)."""
    where = base.hex_text(record.hex)
    phasing, others = combat.sides_present(state, record.hex)
    if not (phasing and others):
        gone = "the attacker" if not phasing else "the defender"
        return f"the battle in {where} is over: {gone} has nothing left there"
    seat = base.phasing(state) if step.id == ATTACKER_OPTION_STEP else _defender(state)
    problems = retreat_problems(state, seat, None)
    return f"{problems[0].message} ({problems[0].rule})" if problems else ""


# --- the area -----------------------------------------------------------------------------------


class _Retreat(Area):
    """Steps 5-7A1 to 5-8L: the ``retreat`` and ``pursue`` orders and the engine's steps."""

    name = "retreat"
    orders = ("retreat", "pursue")

    def check(self, state: FeState, seat: Seat, step: Step, order: Any) -> list[Violation]:
        if isinstance(order, RetreatOrder):
            problems = combat.AREA.check(state, seat, step, order)
            return problems or retreat_problems(state, seat, order.to)
        if isinstance(order, PursueOrder):
            return check_pursue(state, seat, order)
        return super().check(state, seat, step, order)

    def apply(
        self, state: FeState, seat: Seat, step: Step, order: Any, events: list[Event]
    ) -> FeState:
        if isinstance(order, RetreatOrder):
            state = combat.AREA.apply(state, seat, step, order, events)
            record = _record(state)
            assert record is not None
            to = hex_id(order.to) if order.to else 0
            if to:
                where = base.hex_text(record.hex)
                text = f"{seat} will retreat from {where} to {order.to} ({MOVE_RULE})"
                data = {"hex": where, "round": record.rounds + 1, "seat": seat, "to": order.to}
                events.append(Event("retreat", text, seat, step.id, data))
            record = msgspec.structs.replace(record, retreat_to=(*record.retreat_to, (seat, to)))
            return combat.replace_current(state, record)
        if isinstance(order, PursueOrder):
            return apply_pursue(state, seat, step, order, events)
        return super().apply(state, seat, step, order, events)

    def rolls(self, state: FeState, seat: Seat, step: Step, order: Any) -> list[RollRequest]:
        if isinstance(order, PursueOrder):
            return [pursuit_roll(state, seat, step)]
        return []

    def automatic(self, state: FeState, step: Step, events: list[Event]) -> FeState:
        if step.id == combat.DECIDING_STEP:
            moved = combat.AREA.automatic(state, step, events)
            record = _record(moved)
            if moved.step != state.step or record is None or not record.retreats:
                return moved
            return carry_out(moved, step, events)
        if step.id == BASE_STEP:
            return _base_stays(state, step, events)
        return state

    def skip(self, state: FeState, step: Step) -> str:
        if step.id == combat.BASE_RETREAT_STEP:
            return combat.AREA.skip(state, step)  # a retreat before the base battle (302.23)
        record = _record(state)
        if step.id == LAST_OPTION_STEP and record and _defender(state) in record.retreats:
            return f"the defender announced its retreat at its first option ({rules.ANNOUNCE_RULE})"
        if step.id in ANNOUNCING_STEPS and record and state.plays_at_least(UNASKED_FROM):
            return _no_retreat(state, step, record)
        if step.id == PURSUIT_STEP:
            who, why = pursuer(state)
            return "" if who else f"{why}: no pursuit"
        return ""

    def settled(self, state: FeState, seat: Seat, step: Step) -> str:
        """From 5.5 (`base.ORDER_ENDS_STEP_FROM`), once the seat announced its retreat at one
        of its options or before the base battle: one announcement a battle (302.71)."""
        if step.id not in (*ANNOUNCING_STEPS, combat.BASE_RETREAT_STEP):
            return ""
        record = _record(state)
        if record is None or seat not in record.retreats:
            return ""
        if not state.plays_at_least(base.ORDER_ENDS_STEP_FROM):
            return ""
        return f"its retreat is announced ({rules.ANNOUNCE_RULE})"

    def answering(self, state: FeState, step: Step, seats: tuple[Seat, ...]) -> tuple[Seat, ...]:
        if step.id == PURSUIT_STEP:
            who, _ = pursuer(state)
            if who:
                return (who,)
        return seats

    def finish(self, state: FeState, seat: Seat, step: Step) -> list[Violation]:
        record = _record(state)
        if step.id == PURSUIT_STEP and record is not None and record.pursuit == ROLLING:
            return [Violation("the pursuit die is not rolled yet", PURSUIT_RULE)]
        return []


AREA = _Retreat()
