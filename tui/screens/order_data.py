"""What the orders panel needs from the engine besides the verdict: the what-if and the choices.

Plain functions of the reading replica, run on the store thread through `Session.read`
(never on the event loop: they replay the game's state). They add no rule of their own:

- `planned_views` turns the state a dry run found (`Replica.submit` with ``dry_run``) into
  the ``views`` record the map draws, so the map can show the moved stacks before anything
  is signed;
- `build_choices` lists the classes the player's empires may build this turn: the slots of
  the production schedule and the classes that may substitute for them (`engine.fe.production`
  prices and refuses them; this is only the menu);
- `convert_choices` lists, for units the player pointed at, the conversions the unit tables
  give and the engine automates (`engine.fe.production.conversion_for`); whether there is
  capacity in that hex this turn is again the engine's verdict on the draft.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from engine.core.game import AnyState
from saves.replica import Replica
from tui.rulesets import client_for

WHAT_IF_SKIPS = frozenset({"secret", "roll", "done", "note", "batch", "standing", "back"})
"""Order types that move nothing on the board: a what-if leaves them out (``done`` could
run the automatic steps after it, which is not what the player is looking at)."""


class BuildChoice(NamedTuple):
    """One entry of the build menu: the class, the slot it fills when it substitutes, the
    empire it is for, and a line for the menu."""

    cls: str
    instead_of: str
    empire: str
    label: str


def planned_views(
    replica: Replica, game_id: str, items: Sequence[Mapping[str, Any]], after: AnyState | None
) -> dict[str, Any] | None:
    """The ``views`` of the game in the state ``after`` the dry run of ``items`` (None when
    none of them moves anything on the board, or the game has no board yet)."""
    if after is None or after.rules is None:
        return None
    if all(item.get("type") in WHAT_IF_SKIPS for item in items):
        return None
    return (
        client_for(replica.game(bytes.fromhex(game_id)).ruleset).record_extras(after.rules) or None
    )


def build_choices(replica: Replica, game_id: str) -> list[BuildChoice]:
    """The classes the player's empires may build this turn, scheduled slots first, then
    the substitutes for each slot; empty for a game that is not F&E or has no schedule."""
    gid = bytes.fromhex(game_id)
    row = replica.game(gid)
    rules = replica.state(gid).rules
    if row.ruleset != "fe" or rules is None:
        return []
    from engine.fe.production import scheduled
    from engine.fe.steps.base import empire_setup, empires_of
    from engine.fe.units import load_units

    tables = load_units()
    choices: list[BuildChoice] = []
    for empire in empires_of(rules, row.my_seat):
        setup = empire_setup(rules, empire)
        slots = scheduled(setup.production if setup is not None else (), rules.turn)
        for slot, count in slots.items():
            if tables.find(empire, slot) is not None:
                slots_text = f"{count} slot{'' if count == 1 else 's'}"
                choices.append(BuildChoice(slot, "", empire, f"{empire} {slot} ({slots_text})"))
            for unit in tables.empire_classes(empire):
                subs = [s for s in unit.substitutions if slot in s.instead_of]
                if subs and unit.id != slot:
                    label = f"{empire} {unit.id} instead of {slot}"
                    choices.append(BuildChoice(unit.id, slot, empire, label))
    return choices


class ConvertChoice(NamedTuple):
    """One entry of the conversion menu: the unit, the class it would become, a line."""

    unit: str
    to: str
    label: str


def convert_choices(replica: Replica, game_id: str, unit_ids: Sequence[str]) -> list[ConvertChoice]:
    """The conversions the tables allow for each of ``unit_ids`` (the player's own units)."""
    gid = bytes.fromhex(game_id)
    row = replica.game(gid)
    rules = replica.state(gid).rules
    if row.ruleset != "fe" or rules is None:
        return []
    from engine.fe.production import conversion_for
    from engine.fe.units import load_units

    tables = load_units()
    units = {unit.id: unit for unit in rules.board.units}
    choices: list[ConvertChoice] = []
    for unit_id in unit_ids:
        unit = units.get(unit_id)
        if unit is None:
            continue
        for target in tables.empire_classes(unit.empire):
            if not any(unit.cls in conv.source for conv in target.conversions):
                continue
            if isinstance(conversion_for(unit.empire, unit, target.id), str):
                continue  # not automated (bases, several units, a cost set by a rule)
            label = f"{unit.id} {unit.cls} -> {target.id}"
            choices.append(ConvertChoice(unit.id, target.id, label))
    return choices
