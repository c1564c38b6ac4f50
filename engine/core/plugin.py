"""What a ruleset package declares to be found: its id, version, rules and client face.

A ruleset is a package that exports one `Plugin` and names it in its distribution's entry
points, group ``hexpost.rulesets`` (`saves.registry` finds them). Adding a game is then a
new package, never an edit to a list inside hexpost, and a game whose ruleset is missing is
refused by name and version as before.
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core.face import Face
from engine.core.ruleset import Ruleset

ENTRY_POINT_GROUP = "hexpost.rulesets"


class Plugin(msgspec.Struct, frozen=True):
    """One ruleset as a package offers it: the protocol core's half and the client's half."""

    rules: Ruleset[Any]
    face: Face[Any]
    title: str = ""
    """What players call the game, e.g. ``"Tactical duel"``."""

    @property
    def id(self) -> str:
        return self.rules.id

    @property
    def version(self) -> str:
        return self.rules.version
