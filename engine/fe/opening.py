"""The opening of a battle in the F&E model: withdrawal before combat (302.1) and action with
bases (302.2). Its orders and the part of a battle's record they fill
(``BattleRecord.opening``); `engine.fe.steps.combat_withdrawal` checks and plays them.

Kept apart from `engine.fe.model`, which gathers them into its ``Order`` union, so that module
stays small. The orders share ``model``'s order config (tagged by ``type``, unknown fields
refused, defaults left out of the bytes so old packets stay canonical); this module cannot
import it without an import cycle, so `_Tagged` repeats it.
"""

from typing import Annotated

import msgspec

from engine.core.text import line
from engine.fe.galaxy import HexId

_HexText = Annotated[str, msgspec.Meta(pattern=r"^[0-9]{4}\Z")]
_UnitIds = Annotated[
    list[Annotated[str, line(40, min_length=1)]],
    msgspec.Meta(min_length=1, max_length=1000),
]


class _Tagged(
    msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True, omit_defaults=True
):
    """The config of `engine.fe.model`'s orders."""


class WithdrawOrder(_Tagged, frozen=True, tag="withdraw"):
    """Step 5-1A, round 1 of a battle: the defender withdraws ``units`` before combat to the
    adjacent hex ``to`` (302.11), by the retreat priorities (302.72); auxiliaries and units
    that cannot move stay (549.212). ``flagship`` names the flagship of the units that stay,
    which serves in round 1 if the withdrawal is opposed (302.133). ``done`` alone stays."""

    units: _UnitIds
    to: _HexText
    flagship: Annotated[str, line(40)] = ""


class OpposeOrder(_Tagged, frozen=True, tag="oppose"):
    """Step 5-1B: the attacker opposes the withdrawal announced at 5-1A (302.13); ``done``
    alone lets it go unopposed (302.12)."""


class ApproachOrder(_Tagged, frozen=True, tag="approach"):
    """The approach battle at a base (302.22): at 5-2A2 from round 2 on, the attacker offers
    one (round 1's offer is mandatory and made by the engine); at 5-2A3 the defender accepts
    it (``accept`` true: the base stays out of the battle) or refuses it (false, as ``done``
    alone: the base battle follows, 302.23)."""

    accept: bool = True


class CloakOrder(_Tagged, frozen=True, tag="cloak"):
    """The side uses its cloaking devices: at 5-1E the defender's cloaked ships try to evade
    (306.1; what they achieve is typed with adjustments for now), at 5-2A1 the attacker cloaks
    past the approach battle (306.3): the base battle is fought, base included."""


class Opening(msgspec.Struct, frozen=True, omit_defaults=True):
    """What a battle's opening steps recorded (round numbers count from 1; 0: never)."""

    withdrawing: tuple[str, ...] = ()
    """Units the defender announced at 5-1A to withdraw before combat (302.11)."""
    withdraw_to: HexId = 0
    """Where they withdraw to (0: no withdrawal announced)."""
    staying_flagship: str = ""
    """The flagship named for the units that stay; after 5-1D only when it binds (302.133)."""
    opposed: bool = False
    """The attacker opposed the withdrawal at 5-1B (302.13)."""
    kind: str = ""
    """The battle fought this round at a base (302.2): "approach" (the base does not fight),
    "base", or "" (no base or base-like unit of the defender in the hex)."""
    offered: int = 0
    """The round in which the attacker last offered an approach battle (302.22; round 1's
    offer is the rules' and not recorded)."""
    accepted: int = 0
    """The round in which the defender last accepted one."""
    declined: int = 0
    """The round in which the defender last refused one (302.23: the attacker may then
    retreat before combat, with +1 against pursuit)."""
    cloaked: int = 0
    """The round in which the attacker cloaked past the approach battle (306.3)."""
