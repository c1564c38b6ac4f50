"""Orders signed in advance that a player has not signed yet, as reminders.

A seat with no standing order waits for its player's email at every step the engine does
not play; a seat with no policy waits at every choice a policy would make (pace.md). A
seat may only sign on its own move, so the reminder comes when it signs something: the
app's send confirmation words it with its keys (`tui.screens.order_data`), ``hexpost
orders`` with the JSON to write (`cli_tips`). Which reminders apply is decided here once.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from engine.core.face import Choice, Preset
from saves.replica import Replica


class HasStanding(Protocol):
    """A checklist line that says whose standing order covers its step."""

    @property
    def standing(self) -> tuple[str, ...]: ...


def lacks_standing(
    checklist: Sequence[HasStanding], seat: str, items: Sequence[Mapping[str, Any]]
) -> bool:
    """Whether ``seat`` has no standing order and ``items`` sign none (False when there is
    no checklist to tell)."""
    if not checklist or not seat or any(item.get("type") == "standing" for item in items):
        return False
    return not any(seat in row.standing for row in checklist)


def ready_policy(choices: Sequence[Choice], items: Sequence[Mapping[str, Any]]) -> Preset | None:
    """The ready policy the face offers when the seat may sign one, has none in force and
    ``items`` sign none (the face offers its preset only while nothing is in force)."""
    choice = next((c for c in choices if c.order == "policy"), None)
    if choice is None or not choice.presets or any(p.value for p in choice.params):
        return None
    if any(item.get("type") == "policy" for item in items):
        return None
    return choice.presets[0]


def cli_tips(replica: Replica, game_id: bytes, items: Sequence[Mapping[str, Any]]) -> list[str]:
    """The reminders for ``hexpost orders`` once ``items`` are signed, each with the order
    that answers it (as the game stands after them) on a line of its own, after its words."""
    from tui.services.show import show

    row = replica.game(game_id)
    record = show(replica, row, at=None, checklist=True, extras=False, hashed=False)
    tips: list[str] = []
    if lacks_standing(record.checklist or (), row.my_seat, items):
        manual = json.dumps({"type": "standing", "steps": ["manual"]})
        tips.append(
            "tip: you have no standing order, so each step the engine does not play waits "
            "for an email from you; this order in your next orders signs the recommended "
            f"one:\n{manual}"
        )
    preset = ready_policy(record.choices, items)
    if preset is not None:
        policy = json.dumps({"type": "policy", **dict(preset.values)})
        tips.append(
            "tip: you have no policy, so each choice it would make waits for an email from "
            f"you; this order signs {preset.label}:\n{policy}"
        )
    return tips
