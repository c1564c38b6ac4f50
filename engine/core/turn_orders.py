"""The orders every ruleset with a sequence of play understands, and their bounds.

A ruleset played by checklist (`engine.core.turns`) takes these five besides its own: ``done``
(complete the current step, or every step up to one), ``note`` (a line in the log), ``roll``
(dice with a purpose), ``back`` (return to an earlier step to repeat a stretch, where the
ruleset allows it) and ``standing`` (steps the engine completes for the seat whenever they
come up). They are tagged msgspec structs (``{"type": "done", ...}``) so a ruleset puts them
in its own order union next to its rules orders; the wire form is the tag and the fields,
so a packet's bytes do not depend on which module defines the class.
"""

import re
from typing import Annotated

import msgspec

from engine.core.text import SAFE_PATTERN, line

MAX_TEXT = 2000
"""Longest note, adjustment, roll purpose or secret choice (characters)."""
MAX_ADJUSTMENTS = 100
MAX_DICE = 20
MIN_SIDES, MAX_SIDES = 2, 100

Text = Annotated[str, msgspec.Meta(max_length=MAX_TEXT, pattern=SAFE_PATTERN)]
"""Free text of a player's (a note, an adjustment, a roll's purpose): one line, no control
or formatting characters (`engine.core.text`), checked again by every receiver."""
LineText = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_TEXT, pattern=SAFE_PATTERN)]
"""Like `Text`, but never empty."""
StepId = Annotated[str, line(40)]


class TurnOrder(
    msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True, omit_defaults=True
):
    """Shared config: tagged by ``type``; defaults are left out so old packets stay canonical."""


class Done(TurnOrder, frozen=True, tag="done"):
    """Complete the current step (or every step up to and including ``through``)."""

    note: Text = ""
    adjustments: Annotated[list[Text], msgspec.Meta(max_length=MAX_ADJUSTMENTS)] = []
    through: StepId = ""


class Note(TurnOrder, frozen=True, tag="note"):
    """Record a note in the log; the step does not advance."""

    text: LineText


class Roll(TurnOrder, frozen=True, tag="roll"):
    """Ask for dice, e.g. ``2d6``, saying what they are for; the step does not advance."""

    dice: Annotated[str, line(16)]
    purpose: LineText


class Back(TurnOrder, frozen=True, tag="back"):
    """Go back to an earlier step to repeat a stretch (where the ruleset allows it)."""

    step: StepId


class Standing(TurnOrder, frozen=True, tag="standing"):
    """Complete these steps for me whenever they come up, until I change this order.

    ``steps`` names steps, headings or phases; an empty list cancels the standing order.
    Secret steps are never completed this way. It saves the email round trips of steps where
    a seat routinely has nothing to do.
    """

    steps: Annotated[list[StepId], msgspec.Meta(max_length=400)]


TurnOrders = Done | Note | Roll | Back | Standing
TURN_ORDER_TYPES: tuple[str, ...] = ("back", "done", "note", "roll", "standing")

_DICE = re.compile(r"([0-9]{1,3})d([0-9]{1,4})")


def parse_dice(dice: str) -> tuple[int, int] | None:
    """``"2d6"`` -> (2, 6); None unless it is NdS with 1 <= N <= 20 and 2 <= S <= 100."""
    match = _DICE.fullmatch(dice)
    if match is None:
        return None
    count, sides = int(match.group(1)), int(match.group(2))
    if not (1 <= count <= MAX_DICE and MIN_SIDES <= sides <= MAX_SIDES):
        return None
    return count, sides


def dice_problem(dice: str) -> str:
    """Why ``dice`` is not an acceptable roll ("" when it is)."""
    if parse_dice(dice) is None:
        return (
            f"dice {dice!r} must look like 2d6: 1 to {MAX_DICE} dice "
            f"of {MIN_SIDES} to {MAX_SIDES} sides"
        )
    return ""
