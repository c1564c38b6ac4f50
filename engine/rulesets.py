"""The old door to the rulesets, kept while callers move to `engine.registry`."""

from __future__ import annotations

from engine.registry import ruleset_for

__all__ = ["ruleset_for"]
