"""Rules area ``adjust``: typed corrections for what the engine does not play yet.

Combat, events and the other manual parts of the sequence change the board and the treasury
in ways the engine cannot work out by itself yet. Free-text adjustments ("D7 crippled") left
the engine's board behind the players' maps; an ``adjust`` order says the same thing in a
form the engine checks against the state and then carries out, so both replicas keep the
same board and the log says exactly what changed and why.

One order makes one change (`engine.fe.orders.Adjust`):

========== =============================== ==================================================
change     fields                          effect
========== =============================== ==================================================
treasury   ``ep`` (``empire``)             add ``ep`` (negative to spend); never below 0
cripple    ``unit``                        the unit turns to its crippled side
repair     ``unit``                        the crippled unit turns back
destroy    ``unit``                        the unit leaves the board
move       ``unit``, ``hex``               the unit is put in an on-map hex
place      ``cls``, ``hex`` (``empire``)   a new unit of that class appears in the hex
convert    ``unit``, ``cls``               the unit becomes a unit of another class
capture    ``hex`` (``empire``)            the hex changes hands to the seat's empire
devastate  ``hex``                         an enemy planet there is devastated (508.2x)
recover    ``hex``                         one's own devastated planet pays again (508.25)
========== =============================== ==================================================

Decisions, each checked here and named in the refusal:

- A seat adjusts only its own empires' units and treasury. Losses it inflicts on the enemy
  are recorded by the enemy: in F&E the owner allocates damage to its own units (302.6), so
  the owner is the one who knows which counters were crippled or destroyed, and a seat can
  never change the other side's forces behind its back.
- ``empire`` may be left out when the seat plays one empire; for a unit change it may be
  given, and must then be the unit's empire. A field that does not belong to the change is
  refused rather than ignored: a misplaced ``hex`` on a ``cripple`` is a mistake to point
  out, not to guess about.
- No adjustments during the set-up stage: set-up is done with ``place`` orders, which check
  the set-up hexes; adjusting the waiting units would confuse what is still to place.
- Only classes of the unit tables can be placed or converted to (`engine.fe.units`), so every
  unit on the board keeps its factors. A unit whose class has no crippled side cannot be
  crippled (destroy it instead), nor stay crippled through a conversion.
- A destroyed unit also leaves the lists that describe units (moved, reacted, reserves,
  supply missions), which would otherwise name a unit the board no longer has; what the
  empire used this turn (strategic moves, shipyard limits) stays used.
- Captures and devastation are recorded by the side that makes them, since it is its units
  that do it: a capture needs one of the captor's ships in the hex and no enemy unit there,
  and a hex owned by an empire the captor is at war with (or one of its own hexes, retaken);
  devastation needs an enemy-held planet with the devastating empire's ship in the hex. A
  planet falls only in the combat phase of the captor's own player turn and once defeated:
  no enemy unit left to defend it (508.2, `engine.fe.planets`). The owner records its
  planet's recovery. Income follows (`engine.fe.economics`, `engine.fe.provinces`): a
  province with a captured hex pays its owner nothing, a devastated planet pays nothing.
- New units get the next free id of their empire (`engine.fe.production.next_ids`), as
  builds do, so both replicas name them alike. They belong to no starting fleet, so they are
  released (free to move) like any unit built during the game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from engine.core.ruleset import Event, Seat, Violation
from engine.fe import planets
from engine.fe.economics import fmt_ep
from engine.fe.forces import MOST_UNITS, OFF_MAP, Unit
from engine.fe.model import FeState
from engine.fe.orders import ADJUST_FIELDS, Adjust, ep2, hex_id
from engine.fe.production import next_ids
from engine.fe.sequence import Step
from engine.fe.steps import base
from engine.fe.steps.base import Area, OrderRun
from engine.fe.units import UnitClass, load_units


def _where(h: int) -> str:
    return "off the map" if h == OFF_MAP else f"at {base.hex_text(h)}"


def _class(empire: str, cls: str) -> UnitClass | None:
    return load_units().find(empire, cls)


def _field_problems(order: Adjust) -> list[str]:
    needs = ADJUST_FIELDS[order.change]
    problems = []
    for name in ("ep", "unit", "hex", "cls"):
        value: str = getattr(order, name)
        given = ep2(value) != 0 if name == "ep" else value != ""
        if name in needs and not given:
            problems.append(f"it needs {'a non-zero ep' if name == 'ep' else name}")
        elif name not in needs and given:
            takes = ", ".join(needs)
            problems.append(f"{name} does not belong to a {order.change} (it takes {takes})")
    if not order.reason.strip():
        problems.append("the reason is blank: say why, for the log")
    return problems


def _empire(state: FeState, seat: Seat, order: Adjust) -> tuple[str, str]:
    """The empire a treasury or place change is for, or why there is none."""
    mine = base.empires_of(state, seat)
    if order.empire:
        if order.empire not in mine:
            return "", f"{order.empire} is not an empire of {seat} ({', '.join(mine)})"
        return order.empire, ""
    if len(mine) != 1:
        return "", f"{seat} plays {', '.join(mine)}: say which empire"
    return mine[0], ""


def _unit(state: FeState, seat: Seat, order: Adjust) -> tuple[Unit | None, str]:
    """The seat's own unit the order names, or why it may not be adjusted."""
    try:
        unit = state.board.unit(order.unit)
    except KeyError:
        return None, state.board.no_unit(order.unit)
    if unit.empire not in base.empires_of(state, seat):
        owner = base.seat_of(state, unit.empire)
        return None, (
            f"{unit.id} is a unit of {unit.empire}: a seat adjusts only its own units, "
            f"so losses inflicted on it are recorded by {owner or unit.empire}"
        )
    if order.empire and order.empire != unit.empire:
        return None, f"{unit.id} is a unit of {unit.empire}, not of {order.empire}"
    return unit, ""


def _unit_problem(unit: Unit, order: Adjust) -> str:
    """What is wrong with the change to ``unit`` ("" for nothing)."""
    name = f"{unit.cls} {unit.id}"
    info = _class(unit.empire, unit.cls)
    if order.change == "cripple":
        if unit.crippled:
            return f"{name} is already crippled"
        if info is not None and info.crippled is None:
            return f"{name} has no crippled side: destroy it instead"
    elif order.change == "repair":
        if not unit.crippled:
            return f"{name} is not crippled"
    elif order.change == "move":
        target = hex_id(order.hex)
        if not base.on_map(target):
            return f"{order.hex} is not a hex of the map"
        if target == unit.hex:
            return f"{name} is already in {order.hex}"
    elif order.change == "convert":
        new = _class(unit.empire, order.cls)
        if new is None:
            return f"{unit.empire} has no unit class {order.cls!r} in the unit tables"
        if order.cls == unit.cls:
            return f"{name} already is a {order.cls}"
        if unit.crippled and new.crippled is None:
            return f"{name} is crippled and a {order.cls} has no crippled side: repair it first"
    return ""


class _Adjust(Area):
    name = "adjust"
    orders = ("adjust",)

    def check(self, state: FeState, seat: Seat, step: Step, order: Any) -> list[Violation]:
        if not isinstance(order, Adjust):
            return super().check(state, seat, step, order)
        rule = _RULES.get(order.change, "")
        if order.change in ("capture", "devastate") and _planet_hex(order.hex):
            rule = planets.CAPTURE_RULE
        return [
            Violation(f"adjust {order.change}: {p}", rule)
            for p in self._problems(state, seat, step, order)
        ]

    def _problems(self, state: FeState, seat: Seat, step: Step, order: Adjust) -> list[str]:
        if state.setup:
            return ["no adjustments during set-up: place the starting fleets with place orders"]
        problems = _field_problems(order)
        if problems:
            return problems
        if order.change in HEX_CHANGES:
            empire, problem = _empire(state, seat, order)
            return [problem] if problem else _hex_problems(state, step, empire, order)
        if order.change in ("treasury", "place"):
            empire, problem = _empire(state, seat, order)
            if problem:
                return [problem]
            if order.change == "treasury":
                return _treasury_problems(state, empire, order)
            if _class(empire, order.cls) is None:
                return [f"{empire} has no unit class {order.cls!r} in the unit tables"]
            if not base.on_map(hex_id(order.hex)):
                return [f"{order.hex} is not a hex of the map"]
            if len(state.board.units) >= MOST_UNITS:
                return [f"the board holds {MOST_UNITS:,} units, the most a game may have"]
            return []
        unit, problem = _unit(state, seat, order)
        if unit is None:
            return [problem]
        problem = _unit_problem(unit, order)
        return [problem] if problem else []

    def apply(
        self, state: FeState, seat: Seat, step: Step, order: Any, events: list[Event]
    ) -> FeState:
        if not isinstance(order, Adjust):
            return super().apply(state, seat, step, order, events)
        data = _data(order)
        if order.change in HEX_CHANGES:
            empire, _ = _empire(state, seat, order)
            state, what = _apply_hex(state, empire, order, data)
        elif order.change in ("treasury", "place"):
            empire, _ = _empire(state, seat, order)
            if order.change == "treasury":
                state, what = _apply_treasury(state, empire, order, data)
            else:
                state, what = _apply_place(state, empire, order, data)
        else:
            unit = state.board.unit(order.unit)
            empire = unit.empire
            state, what = _apply_unit(state, unit, order, data)
        events.append(_event(seat, step, order, empire, what, data))
        return state


def _data(order: Adjust) -> dict[str, Any]:
    """The start of an adjustment's event data; each change adds its own, then the empire."""
    return {"change": order.change, "reason": order.reason}


def _event(
    seat: Seat, step: Step, order: Adjust, empire: str, what: str, data: dict[str, Any]
) -> Event:
    """The event of an adjustment of ``empire``'s that did ``what``."""
    data["empire"] = empire
    return Event("adjust", f"{empire} adjusts: {what} ({order.reason})", seat, step.id, data)


HEX_CHANGES = ("capture", "devastate", "recover")
_RULES = {"capture": "438.0", "devastate": "508.2", "recover": "508.25"}
"""The rule a refusal names, for the changes that have one."""


def _ships_in(state: FeState, h: int) -> dict[str, int]:
    """Ships (units that move) per empire in hex ``h``."""
    count: dict[str, int] = {}
    for unit in state.board.units:
        if unit.hex == h and unit.info().move > 0:
            count[unit.empire] = count.get(unit.empire, 0) + 1
    return count


def _hex_problems(state: FeState, step: Step, empire: str, order: Adjust) -> list[str]:
    h = hex_id(order.hex)
    if not base.on_map(h):
        return [f"{order.hex} is not a hex of the map"]
    galaxy = base.galaxy()
    board = state.board
    owner = board.owner(galaxy, h)
    present = sorted({u.empire for u in board.units if u.hex == h} - {empire})
    if order.change == "capture":
        if owner == empire:
            return [f"{order.hex} is already {empire}'s"]
        retaking = galaxy.hex(h).empire == empire
        if not retaking and not board.enemies(owner, empire):
            return [f"{order.hex} is {owner or 'nobody'}'s, an empire {empire} is not at war with"]
        if galaxy.hex(h).planets:
            return _planet_falls(state, step, empire, h)
        if not _ships_in(state, h).get(empire):
            return [f"{empire} has no ship in {order.hex} to capture it"]
        enemies = sorted(e for e in present if board.enemies(e, empire))
        if enemies:
            return [f"{order.hex} still holds units of {', '.join(enemies)}"]
        return []
    if not galaxy.hex(h).planets:
        return [f"{order.hex} has no planet"]
    devastated = h in state.devastated
    if order.change == "recover":
        if owner != empire:
            return [f"the planet in {order.hex} is {owner or 'nobody'}'s: its owner records it"]
        return [] if devastated else [f"the planet in {order.hex} is not devastated"]
    if devastated:
        return [f"the planet in {order.hex} is already devastated"]
    if not board.enemies(owner, empire):
        return [f"the planet in {order.hex} is {owner or 'nobody'}'s, not an enemy's"]
    return _planet_falls(state, step, empire, h)


def _planet_hex(text: str) -> bool:
    h = hex_id(text) if text else 0
    return base.on_map(h) and bool(base.galaxy().hex(h).planets)


def _planet_falls(state: FeState, step: Step, empire: str, h: int) -> list[str]:
    """A planet is captured or devastated only when defeated, in the captor's combat phase
    (508.2; `engine.fe.planets`)."""
    in_combat = (
        step.phase == planets.COMBAT_PHASE
        and not state.orion
        and empire in base.phasing_empires(state)
    )
    return planets.fall_problems(base.galaxy(), state.board, empire, h, combat_phase=in_combat)


def _apply_hex(
    state: FeState, empire: str, order: Adjust, data: dict[str, Any]
) -> tuple[FeState, str]:
    h = hex_id(order.hex)
    data["hex"] = order.hex
    if order.change == "capture":
        galaxy = base.galaxy()
        before = state.board.owner(galaxy, h)
        owners = {k: v for k, v in state.owners if k != h}
        if galaxy.hex(h).empire != empire:
            owners[h] = empire
        data["from"] = before
        state = msgspec.structs.replace(state, owners=tuple(sorted(owners.items())))
        return state, f"{order.hex} captured from {before}"
    if order.change == "devastate":
        devastated = tuple(sorted({*state.devastated, h}))
        return msgspec.structs.replace(state, devastated=devastated), (
            f"the planet in {order.hex} devastated"
        )
    devastated = tuple(x for x in state.devastated if x != h)
    return msgspec.structs.replace(state, devastated=devastated), (
        f"the planet in {order.hex} recovered"
    )


def _treasury_problems(state: FeState, empire: str, order: Adjust) -> list[str]:
    amount = ep2(order.ep)
    have = state.ep2(empire)
    if have + amount < 0:
        return [
            f"{empire} has {fmt_ep(have)} EP; taking {fmt_ep(-amount)} would leave "
            f"{fmt_ep(have + amount)} (the treasury may not go below 0)"
        ]
    return []


def _apply_treasury(
    state: FeState, empire: str, order: Adjust, data: dict[str, Any]
) -> tuple[FeState, str]:
    amount = ep2(order.ep)
    before = state.ep2(empire)
    state = state.with_ep2(empire, before + amount)
    data.update(ep2=amount, treasury2=before + amount)
    sign = "+" if amount > 0 else ""
    return state, (
        f"treasury {sign}{fmt_ep(amount)} EP, {fmt_ep(before)} -> {fmt_ep(before + amount)} EP"
    )


def _apply_place(
    state: FeState, empire: str, order: Adjust, data: dict[str, Any]
) -> tuple[FeState, str]:
    unit = _placed(state, empire, order, 0)
    state = state.with_units([unit])  # (the changed empire's tuple alone, the views carried)
    return state, _place_what(order, unit, data)


def _place_what(order: Adjust, unit: Unit, data: dict[str, Any]) -> str:
    """What a placement did, for its event; its data added to ``data``."""
    data.update(unit=unit.id, cls=order.cls, hex=order.hex)
    return f"new {order.cls} {unit.id} placed at {order.hex}"


def _placed(state: FeState, empire: str, order: Adjust, given: int) -> Unit:
    """The unit ``order`` places: the empire's next free id after the ``given`` ones handed
    out to units not on the board yet (`apply_place_run`)."""
    (new_id,) = next_ids(state.board, empire, 1, given)
    return Unit(new_id, empire, order.cls, hex_id(order.hex))


def apply_place_run(state: FeState, run: OrderRun) -> tuple[FeState, list[Event], int]:
    """The ``adjust place`` orders of the run's orders from its start on, checked by its
    ``validate`` and applied as `AREA.apply` would one after another, but with their units
    put on the board at once: the state, the events and how many orders were taken.

    One by one, each placement copied its empire's units and the board's (a packet of ten
    thousand placements cost seconds). A placement's check reads no unit of the board but
    their number (`MOST_UNITS`), which the run counts on, and its id follows the ids handed
    out before it (``given``). The first order that is not a placement the check accepts
    ends the run: it is left to the one-by-one path, from the state the run made.
    """
    seat, step, orders, start, validate = run
    events: list[Event] = []
    placed: list[Unit] = []
    given: dict[str, int] = {}
    room = MOST_UNITS - len(state.board.units)
    for index in range(start, len(orders)):  # (by index: the packet's list is not copied)
        order = orders[index]
        if not isinstance(order, Adjust) or order.change != "place" or len(placed) >= room:
            break
        if validate(state, seat, order):
            break
        empire, _ = _empire(state, seat, order)
        unit = _placed(state, empire, order, given.get(empire, 0))
        given[empire] = given.get(empire, 0) + 1
        data = _data(order)
        events.append(_event(seat, step, order, empire, _place_what(order, unit, data), data))
        placed.append(unit)
    if not placed:
        return state, [], 0
    return state.with_units(placed), events, len(placed)


def _apply_unit(
    state: FeState, unit: Unit, order: Adjust, data: dict[str, Any]
) -> tuple[FeState, str]:
    board = state.board
    name = f"{unit.cls} {unit.id}"
    where = _where(unit.hex)
    data.update(unit=unit.id, cls=unit.cls, hex=None if unit.hex == OFF_MAP else f"{unit.hex:04d}")
    if order.change == "destroy":
        return destroy_units(state, [unit.id]), f"{name} destroyed {where}"
    if order.change == "cripple":
        changed, what = msgspec.structs.replace(unit, crippled=True), f"{name} crippled {where}"
    elif order.change == "repair":
        changed, what = msgspec.structs.replace(unit, crippled=False), f"{name} repaired {where}"
    elif order.change == "move":
        changed = msgspec.structs.replace(unit, hex=hex_id(order.hex))
        what = f"{name} moved from {_where(unit.hex).removeprefix('at ')} to {order.hex}"
        data["to"] = order.hex
    else:  # convert
        changed = msgspec.structs.replace(unit, cls=order.cls)
        what = f"{name} converted to {order.cls} {where}"
        data["to"] = order.cls
    return state.with_board(board.with_units([changed])), what


def destroy_units(state: FeState, unit_ids: Sequence[str]) -> FeState:
    """``state`` with ``unit_ids`` gone from the board and from the lists that describe a
    unit as it is now (`forget_unit`)."""
    if not unit_ids:
        return state
    gone = set(unit_ids)
    board = state.board
    state = state.with_board(
        msgspec.structs.replace(board, units=tuple(u for u in board.units if u.id not in gone))
    )
    for unit_id in unit_ids:
        state = forget_unit(state, unit_id)
    return state


def cripple_units(state: FeState, unit_ids: Sequence[str]) -> FeState:
    """``state`` with ``unit_ids`` turned to their crippled side."""
    if not unit_ids:
        return state
    board = state.board
    turned = [msgspec.structs.replace(board.unit(u), crippled=True) for u in unit_ids]
    return state.with_board(board.with_units(turned))


def forget_unit(state: FeState, unit_id: str) -> FeState:
    """``state`` without ``unit_id`` in the lists that describe a unit as it is now (moved,
    reacted, reserves, supply missions). The lists that count what an empire used this turn
    (``moved_once`` for strategic moves, ``shipyard_used``) keep it: a loss gives back no
    allowance."""
    return msgspec.structs.replace(
        state,
        moved=tuple(entry for entry in state.moved if entry[0] != unit_id),
        reacted=tuple(u for u in state.reacted if u != unit_id),
        reserves=tuple(u for u in state.reserves if u != unit_id),
        supply_tugs=tuple(u for u in state.supply_tugs if u != unit_id),
    )


AREA = _Adjust()
