"""What a player looks at: the board, treasuries and supply as plain JSON-ready data.

Clients (``hexpost show --json``, the text map, the Textual screens to come) should not dig
into `FeState` or know how the rules modules compute income or supply: they read this one
record. It is pure and deterministic (lists in a fixed order, no sets, EP in halves next to
their text), so two replicas of a game show exactly the same thing and a test can compare
records whole.

``views(state)`` returns four lists:

- ``empires``, in the scenario's seat order: the seat playing it, the treasury and this
  turn's income (as the tables print them, ``"37.5"``, and in halves, ``75``), how many
  units it has on and off the map, and its supply (`engine.fe.steps.supply.empire_supply`:
  grids, supply points, units on the map per status, the ids of those out of supply), and
  the extra command points it holds (308.9, `engine.fe.steps.command_points`).
- ``units``, by id: class, empire, hex (``"XXYY"``, or None off the map), crippled, starting
  fleet, whether that fleet may move (released), reserve fleet, supply status (None off the
  map: a unit not set up yet, or in an off-map area, is not concerned by the supply checks).
- ``hexes``, by hex id, only those holding something: units, planets, or an owner other
  than the map's (a capture). Each gives the owner now, the province, the planets, the bases
  (base units on the board, not the printed map: a destroyed base is gone) and the unit ids.
- ``battles``: the battle hexes of the board now (`engine.fe.steps.battles.battle_list`).

``hexpost show --json`` prints the face's board, which is built from this record, and the
record itself at its top level (`tui.rulesets.fe`): `shared_views` is the record of the last
state asked about, worked out once for both (its supply statuses are most of ``show``'s own
work, issue 16). `views` works it out afresh at every call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import caches
from engine.fe.economics import fmt_ep
from engine.fe.forces import OFF_MAP, Unit
from engine.fe.galaxy import Galaxy, HexId
from engine.fe.model import FeState
from engine.fe.steps import base, command_points
from engine.fe.steps.battles import battle_list
from engine.fe.steps.economy import income_of
from engine.fe.steps.supply import empire_supply, unit_statuses
from engine.fe.unit_kinds import is_base


def hex_or_none(h: HexId) -> str | None:
    """A hex as players write it (``"1307"``), or None for a unit off the map."""
    return None if h == OFF_MAP else f"{h:04d}"


def views(state: FeState) -> dict[str, Any]:
    """The record described in the module docstring, for ``state``."""
    statuses: dict[str, str] = dict(unit_statuses(state))
    return {
        "empires": empire_views(state),
        "units": [
            unit_view(state, unit, None if unit.hex == OFF_MAP else statuses.get(unit.id))
            for unit in state.board.units
        ],
        "hexes": hex_views(state, base.galaxy()),
        "battles": battle_list(state),
    }


@caches.by_identity(maxsize=1)
def shared_views(state: FeState) -> Mapping[str, Any]:
    """`views` of ``state``, remembered for the last state asked about: the board of
    ``show`` and its top-level keys read one record. Read it, never change it (its lists
    are the ones the next reader gets)."""
    return views(state)


def empire_views(state: FeState) -> list[dict[str, Any]]:
    supply = empire_supply(state)
    out = []
    for empire in base.all_empires(state):
        units = [u for u in state.board.units if u.empire == empire]
        on_map = sum(1 for u in units if u.hex != OFF_MAP)
        treasury2 = state.ep2(empire)
        income2 = income_of(state, empire).total2
        out.append(
            {
                "empire": empire,
                "seat": base.seat_of(state, empire),
                "treasury": fmt_ep(treasury2),
                "treasury2": treasury2,
                "income": fmt_ep(income2),
                "income2": income2,
                "units_on_map": on_map,
                "units_off_map": len(units) - on_map,
                "supply": supply.get(empire),
                "command_points": command_points.held(state, empire),
            }
        )
    return out


def unit_view(state: FeState, unit: Unit, supply: str | None) -> dict[str, Any]:
    return {
        "id": unit.id,
        "class": unit.cls,
        "empire": unit.empire,
        "hex": hex_or_none(unit.hex),
        "crippled": unit.crippled,
        "fleet": unit.fleet or None,
        "released": state.board.is_released(unit),
        "reserve": unit.id in state.reserves,
        "supply": supply,
    }


def hex_views(state: FeState, galaxy: Galaxy) -> list[dict[str, Any]]:
    board = state.board
    present: dict[HexId, list[Unit]] = {}
    for unit in board.units:
        if unit.hex != OFF_MAP:
            present.setdefault(unit.hex, []).append(unit)
    captured = {h for h, _ in board.owners}
    planets = {info.hex for info in galaxy.hexes if info.planets}
    out = []
    for h in sorted(set(present) | captured | planets):
        info = galaxy.hex(h)
        units = present.get(h, [])
        out.append(
            {
                "hex": f"{h:04d}",
                "owner": board.owner(galaxy, h) or None,
                "captured": h in captured,
                "devastated": h in state.devastated,
                "province": info.province or None,
                "capital": info.capital,
                "planets": [
                    {"kind": p.kind, "name": p.name or None, "capital": p.capital}
                    for p in info.planets
                ],
                "bases": [{"id": u.id, "class": u.cls} for u in units if is_base(u)],
                "units": [u.id for u in units],
            }
        )
    return out
