"""The rulesets this hexpost can play, by id."""

from __future__ import annotations

from typing import Any

from engine.core.errors import VersionError
from engine.core.ruleset import Ruleset
from engine.fe import RULESET as FE

RULESETS: dict[str, Ruleset[Any]] = {FE.id: FE}


def ruleset_for(ruleset_id: str) -> Ruleset[Any]:
    """The ruleset named in a genesis; refuses (P8) when this hexpost lacks it."""
    try:
        return RULESETS[ruleset_id]
    except KeyError:
        known = ", ".join(sorted(RULESETS))
        raise VersionError(
            f"ruleset {ruleset_id!r} is not part of this hexpost (it has {known})"
        ) from None
