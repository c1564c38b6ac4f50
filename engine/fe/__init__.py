"""Federation & Empire (ADB) as the ``fe`` ruleset.

This first edition plays the game *by checklist*: the engine knows the whole sequence of play
(rule 105) and who owes each step, and the players do the game mechanics on their own boards,
recording what they did. Later issues automate steps one by one behind the same interface.
"""

from __future__ import annotations

from engine.core.plugin import Plugin
from engine.core.ruleset import Ruleset
from engine.fe.checklist import FeRuleset
from engine.fe.face import FACE
from engine.fe.model import FeState

FE = FeRuleset()
"""The ruleset with its F&E-only helpers (e.g. `FeRuleset.own_run`)."""
RULESET: Ruleset[FeState] = FE
"""The same object, seen through the interface the protocol core uses."""
PLUGIN = Plugin(FE, FACE, "Federation & Empire")
"""What the ``hexpost.rulesets`` entry point ``fe`` names (`saves.registry`)."""

__all__ = ["FACE", "FE", "PLUGIN", "RULESET", "FeRuleset", "FeState"]
