"""Reinforcements a scenario promises: pre-war construction and fleets that arrive from off the map.

The order of battle (`engine.fe.oob`) lists two kinds of forces that are not on the map at
set-up and come later:

- *pre-war construction*: ships a fleet receives at a date (``Fleet.prewar``: the Federation
  Third Fleet's DN in Fall Y168, the Hydran Home Fleet's ships of Fall Y168 and Spring Y169);
- *arriving fleets*: a fleet marked to arrive by strategic movement at a date
  (``Fleet.arrives``: the Lyran Far Stars Fleet, the Kzinti Baron's Fleet, both Y169). It
  starts in its empire's off-map area (hex `OFF_MAP`); its set-up hexes, if the data gives
  any, are where it arrives (the Baron's Fleet: the Kzinti capital, 1401).

`due` lists, for one game turn, what each empire is owed (typed `Due` records, for the turn
view); `deliver` carries out the pre-war construction of the phasing empires as their
production step comes (`engine.fe.steps.arrivals`); `arrival_problems` says why an off-map
unit may not move onto the map yet (`engine.fe.steps.strategic` asks it).

Readings, marked as in ``fe-rules-notes.md`` (S sourced, I inferred, C a choice):

- S (105.0, step 2B3; 431.0): new units are received in the production step. The pre-war
  ships are received there, in the owning empire's player turn of the turn their batch is
  dated (`engine.fe.oob.date_turn`). The engine delivers them as that player turn's Phase 2
  begins, so they stand on the board while the player writes the 2B3 orders (nothing in
  2A, repairs, concerns a new uncrippled ship).
- I: pre-war construction is what an empire builds *before* its war: a batch is delivered
  only while the empire is at war with nobody. From its war on, the production schedule
  takes over (the data agrees: the Hydran schedule begins in Fall Y169, the turn the scenario
  takes the Hydrans to war, and the Federation's in Fall Y171). So the Hydran Home Fleet
  receives 11 ships by turn 2, and its Fall Y169 batch only if the Hydrans are still at peace.
- I: the ships join their fleet (``Unit.fleet``), so they share its release status (600.3),
  and appear in its set-up area: in the first of its set-up hexes holding a starbase of the
  empire (ships are built at starbases), else any base of the empire, else a set-up hex the
  empire still holds; if the whole area is lost, at a capital hex it holds (431.0's build
  sites); with none of these, in the off-map area.
- S (the order of battle; 756.21, 204.0): an arriving fleet comes onto the map by strategic
  movement from the off-map area, which is a strategic movement node. I: from the turn of its
  arrival date on, once its fleet is released (600.3); it may not come earlier; with set-up
  hexes in the data, its move from the off-map area ends in one of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

import msgspec

from engine.core.ruleset import Event, Violation
from engine.fe.forces import OFF_MAP, Board, Unit, war_pairs
from engine.fe.galaxy import Galaxy, HexId
from engine.fe.oob import Batch, EmpireSetup, Fleet, ScenarioSetup, UnitCount, date_turn
from engine.fe.production import next_ids
from engine.fe.scenario import Scenario, turn_label
from engine.fe.unit_kinds import is_base
from engine.fe.units import Date

PREWAR_RULE = "431.0"
"""New units are received in the production step (105.0 step 2B3, 431.0)."""
ARRIVAL_RULE = "204.0"
"""Off-map fleets arrive by strategic movement (204.0; off-map areas are nodes, 756.21)."""
RELEASE_RULE = "600.3"
STARBASE_CLASSES = ("SB", "SBv.2")

Kind = Literal["prewar", "arrival"]


class Due(msgspec.Struct, frozen=True):
    """What one empire's fleet is owed on one turn, and where it comes from."""

    empire: str
    fleet: str
    kind: Kind
    """``prewar``: ships delivered in the production step; ``arrival``: the fleet may enter
    the map by strategic movement from this turn on."""
    turn: int
    units: tuple[UnitCount, ...]
    hexes: tuple[HexId, ...]
    """The fleet's set-up hexes: where pre-war ships appear, where an arrival ends (empty:
    an arriving fleet may end at any node)."""
    rule: str
    source: str
    """The order-of-battle entry, in words: ``"Third Fleet pre-war construction, Fall Y168"``."""
    withheld: str = ""
    """Why it will not come (pre-war ships of an empire at war), "" when it will."""

    @property
    def count(self) -> int:
        return sum(u.count for u in self.units)


def date_text(date: Date) -> str:
    return f"{date.season.capitalize()} Y{date.year}"


def scripted_wars(setup: ScenarioSetup, turn: int) -> tuple[tuple[str, str], ...]:
    """The wars at the start of ``turn`` (its scripted declarations made) if the players
    declare none of their own: the set-up's wars plus every scripted declaration up to it."""
    pairs = [(e.empire, enemy) for e in setup.empires for enemy in e.at_war_with]
    for event in setup.events:
        if event.turn <= turn:
            pairs.extend((event.empire, enemy) for enemy in event.declare_war)
    return war_pairs(pairs)


def at_war(wars: Iterable[tuple[str, str]], empire: str) -> tuple[str, ...]:
    """The empires ``empire`` is at war with, sorted."""
    return tuple(sorted({b if a == empire else a for a, b in wars if empire in (a, b)}))


def _prewar(empire: EmpireSetup, fleet: Fleet, batch: Batch, withheld: str) -> Due:
    return Due(
        empire=empire.empire,
        fleet=fleet.name,
        kind="prewar",
        turn=date_turn(batch.date),
        units=batch.units,
        hexes=fleet.hexes,
        rule=PREWAR_RULE,
        source=f"{fleet.name} pre-war construction, {date_text(batch.date)}",
        withheld=withheld,
    )


def due(
    scenario: Scenario, turn: int, wars: Sequence[tuple[str, str]] | None = None
) -> tuple[Due, ...]:
    """Every empire's reinforcements for ``turn``, in the set-up's empire and fleet order.

    ``wars`` are the war pairs of the game (`FeState.at_war`); without them, the scenario's
    script (`scripted_wars`). Pre-war ships of an empire at war are listed with the reason
    they are withheld. An arriving fleet is listed on the turn of its arrival date.
    """
    setup = scenario.setup
    if setup is None:
        return ()
    pairs = scripted_wars(setup, turn) if wars is None else war_pairs(wars)
    out: list[Due] = []
    for empire in setup.empires:
        enemies = at_war(pairs, empire.empire)
        withheld = (
            f"{empire.empire} is at war with {', '.join(enemies)}: its production schedule "
            "replaces pre-war construction"
            if enemies
            else ""
        )
        for fleet in empire.fleets:
            for batch in fleet.prewar:
                if date_turn(batch.date) == turn:
                    out.append(_prewar(empire, fleet, batch, withheld))
            if fleet.arrives is not None and date_turn(fleet.arrives) == turn:
                out.append(
                    Due(
                        empire=empire.empire,
                        fleet=fleet.name,
                        kind="arrival",
                        turn=turn,
                        units=fleet.units,
                        hexes=fleet.hexes,
                        rule=ARRIVAL_RULE,
                        source=f"{fleet.name} arrives by strategic movement, "
                        f"{date_text(fleet.arrives)}",
                    )
                )
    return tuple(out)


def describe(item: Due) -> str:
    """One line for a turn view: ``FED Third Fleet: DN (Third Fleet pre-war ..., 431.0)``."""
    units = ", ".join(f"{u.count} {u.unit}" if u.count > 1 else u.unit for u in item.units)
    where = ""
    if item.hexes:
        shown = ", ".join(f"{h:04d}" for h in item.hexes[:4])
        where = f" in {shown}{' ...' if len(item.hexes) > 4 else ''}"
    text = f"{item.empire} {item.fleet}: {units}{where} ({item.source}, {item.rule})"
    return f"{text}; withheld: {item.withheld}" if item.withheld else text


# --- delivery -------------------------------------------------------------------------------


def _fleet(scenario: Scenario, empire: str, name: str) -> Fleet:
    setup = scenario.setup
    found = setup.empire(empire) if setup is not None else None
    fleet = found.fleet(name) if found is not None else None
    if fleet is None:
        raise KeyError(f"{empire} has no fleet {name!r} in {scenario.id}")
    return fleet


def delivery_hex(galaxy: Galaxy, board: Board, empire: str, fleet: Fleet) -> HexId:
    """Where the fleet's pre-war ships appear now (see the module notes)."""
    held = [h for h in fleet.hexes if board.owner(galaxy, h) == empire]
    mine = {h: [u for u in board.at(h) if u.empire == empire] for h in held}
    for h in held:
        if any(u.cls in STARBASE_CLASSES for u in mine[h]):
            return h
    for h in held:
        if any(is_base(u) for u in mine[h]):
            return h
    if held:
        return held[0]
    capitals = [c.hex for c in galaxy.capitals_of(empire) if board.owner(galaxy, c.hex) == empire]
    return capitals[0] if capitals else OFF_MAP


def deliver(
    scenario: Scenario,
    galaxy: Galaxy,
    board: Board,
    empires: Sequence[str],
    turn: int,
    seat_of: dict[str, str],
    step_id: str,
    events: list[Event],
) -> Board:
    """``board`` with the pre-war ships ``empires`` receive on ``turn`` (those at war receive
    none), one event per batch naming its source and rule."""
    for item in due(scenario, turn, board.at_war):
        if item.kind != "prewar" or item.empire not in empires:
            continue
        seat = seat_of.get(item.empire, "")
        if item.withheld:
            events.append(
                Event(
                    "reinforcement",
                    f"{item.empire} {item.fleet} receives nothing of its {item.source}: "
                    f"{item.withheld} ({PREWAR_RULE})",
                    seat,
                    step_id,
                    {
                        "empire": item.empire,
                        "fleet": item.fleet,
                        "units": [],
                        "rule": PREWAR_RULE,
                        "source": item.source,
                    },
                )
            )
            continue
        fleet = _fleet(scenario, item.empire, item.fleet)
        where = delivery_hex(galaxy, board, item.empire, fleet)
        classes = [u.unit for u in item.units for _ in range(u.count)]
        ids = next_ids(board, item.empire, len(classes))
        new = [
            Unit(i, item.empire, c, where, fleet=item.fleet)
            for i, c in zip(ids, classes, strict=True)
        ]
        board = board.with_units(new)
        shown = ", ".join(f"{u.cls} {u.id}" for u in new)
        place = "its off-map area" if where == OFF_MAP else f"{where:04d}"
        events.append(
            Event(
                "reinforcement",
                f"{item.empire} {item.fleet} receives {shown} in {place} "
                f"({item.source}, order of battle; new units arrive in 2B3, {PREWAR_RULE})",
                seat,
                step_id,
                {
                    "empire": item.empire,
                    "fleet": item.fleet,
                    "units": [u.id for u in new],
                    "hex": f"{where:04d}",
                    "rule": PREWAR_RULE,
                    "source": item.source,
                },
            )
        )
    return board


# --- arrivals from the off-map area ------------------------------------------------------------


def arrival_problems(
    setup: ScenarioSetup, board: Board, turn: int, unit: Unit, to: HexId
) -> list[Violation]:
    """Why ``unit``, in its off-map area, may not move by strategic movement to ``to`` now
    (empty when it may, or when the unit is not off the map)."""
    if unit.hex != OFF_MAP:
        return []
    empire = setup.empire(unit.empire)
    fleet = empire.fleet(unit.fleet) if empire is not None and unit.fleet else None
    if fleet is None or fleet.arrives is None:
        return []
    out: list[Violation] = []
    first = date_turn(fleet.arrives)
    if turn < first:
        out.append(
            Violation(
                f"{unit.id} ({unit.cls}, {fleet.name}) arrives by strategic movement from "
                f"{turn_label(first)} on; this is {turn_label(turn)}",
                ARRIVAL_RULE,
            )
        )
    if fleet.hexes and to not in fleet.hexes:
        shown = ", ".join(f"{h:04d}" for h in fleet.hexes[:8])
        out.append(
            Violation(
                f"{fleet.name} arrives from the off-map area in {shown}, not {to:04d}",
                ARRIVAL_RULE,
            )
        )
    return out
