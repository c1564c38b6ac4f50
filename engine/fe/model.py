"""The F&E ruleset's state and order structs, and their wire and file forms.

The state is hashed after every packet, so it holds only *where the game stands* (turn, player
turn, step, who already answered a "both" step) and nothing that grows: notes, completed steps
and dice go into events. It has no floats and no dicts (options are a sorted tuple of pairs),
so its msgpack bytes are the same on every machine.

Orders are tagged msgspec structs (``{"type": "done", ...}``), one union ``Order``. Secret
choices are not orders: the protocol core commits and reveals them and hands them to the
ruleset through ``validate_secret``/``apply_secret``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

import msgspec

from engine.core.errors import IllegalOrder, PacketError
from engine.core.ruleset import OptionValue, Seat

MAX_TEXT = 2000
"""Longest note, adjustment, roll purpose or secret choice (characters)."""
MAX_ADJUSTMENTS = 100
MAX_DICE = 20
MIN_SIDES, MAX_SIDES = 2, 100

Text = Annotated[str, msgspec.Meta(max_length=MAX_TEXT)]
StepId = Annotated[str, msgspec.Meta(max_length=40)]


class FeState(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Where an F&E game stands. Immutable: build new states with ``msgspec.structs.replace``.

    ``player_turn`` indexes ``seats`` (the phasing seat); during the Orion phase ``orion`` is
    true and ``player_turn`` keeps the last player turn's index. ``step`` indexes the current
    part of the sequence (player-turn steps, or Orion steps). ``answered`` lists the seats that
    already completed the current "both" step. ``backs`` counts ``back`` orders in this player
    turn; it makes decision keys unique when combat steps repeat.
    """

    scenario: str
    seats: tuple[Seat, ...]
    """Seats in player-turn order."""
    options: tuple[tuple[str, OptionValue], ...]
    last_turn: int
    turn: int
    player_turn: int = 0
    orion: bool = False
    step: int = 0
    answered: tuple[Seat, ...] = ()
    backs: int = 0
    over: bool = False
    standing: tuple[tuple[Seat, tuple[str, ...]], ...] = ()
    """Per seat, the step ids its standing order completes for it when they come up."""

    def option(self, key: str) -> OptionValue | None:
        for name, value in self.options:
            if name == key:
                return value
        return None

    def standing_for(self, seat: Seat) -> tuple[str, ...]:
        for name, steps in self.standing:
            if name == seat:
                return steps
        return ()


class _OrderBase(
    msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True, omit_defaults=True
):
    """Shared config: tagged by ``type``; defaults are left out so old packets stay canonical."""


class Done(_OrderBase, frozen=True, tag="done"):
    """Complete the current manual step (or every step up to and including ``through``)."""

    note: Text = ""
    adjustments: Annotated[list[Text], msgspec.Meta(max_length=MAX_ADJUSTMENTS)] = []
    through: StepId = ""


class Note(_OrderBase, frozen=True, tag="note"):
    """Record a note in the log; the step does not advance."""

    text: Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_TEXT)]


class Roll(_OrderBase, frozen=True, tag="roll"):
    """Ask for dice, e.g. ``2d6``, saying what they are for; the step does not advance."""

    dice: Annotated[str, msgspec.Meta(max_length=16)]
    purpose: Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_TEXT)]


class Back(_OrderBase, frozen=True, tag="back"):
    """Go back to an earlier combat step: the next round or battle hex (302.9)."""

    step: StepId


class Standing(_OrderBase, frozen=True, tag="standing"):
    """Complete these steps for me whenever they come up, until I change this order.

    ``steps`` names steps, headings or phases (``"4A"``, ``"3A"``, ``"11"``); an empty list
    cancels the standing order. Secret steps are never completed this way. It saves the
    email round trips of steps where a seat routinely has nothing to do.
    """

    steps: Annotated[list[StepId], msgspec.Meta(max_length=400)]


Order = Done | Note | Roll | Back | Standing
ORDER_TYPES: tuple[str, ...] = ("back", "done", "note", "roll", "standing")

_DICE = re.compile(r"([0-9]{1,3})d([0-9]{1,4})")
_ORDER_LIST = list[Order]
_ENCODER = msgspec.msgpack.Encoder()


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


_ORDER_DECODER: msgspec.msgpack.Decoder[list[Order]] = msgspec.msgpack.Decoder(_ORDER_LIST)
"""Built once: a decoder per call costs more than decoding a typical packet's orders."""


def encode_orders(orders: Sequence[Order]) -> bytes:
    """The canonical msgpack bytes of a list of orders."""
    return _ENCODER.encode(list(orders))


def decode_orders(data: bytes) -> list[Order]:
    """Orders from a packet. Raises ``PacketError`` (only) on malformed or non-canonical bytes."""
    try:
        orders = _ORDER_DECODER.decode(data)
    except (msgspec.MsgspecError, ValueError, TypeError, RecursionError, OverflowError) as exc:
        raise PacketError(f"orders are not readable: {exc}") from None
    if encode_orders(orders) != bytes(data):
        raise PacketError("orders are not canonically encoded")
    return orders


def parse_orders(items: Sequence[Mapping[str, Any]]) -> list[Order]:
    """Orders from a player's JSON or TOML file; ``IllegalOrder`` names the bad item."""
    orders: list[Order] = []
    for index, item in enumerate(items):
        where = f"order {index + 1}"
        if not isinstance(item, Mapping):
            raise IllegalOrder(f"{where}: expected a table with a 'type', got {_kind(item)}")
        kind = item.get("type")
        if kind not in ORDER_TYPES:
            # "secret" is taken out before this point: the protocol core commits to it.
            known = ", ".join(sorted((*ORDER_TYPES, "secret")))
            shown = "no type" if kind is None else f"unknown type {kind!r}"
            raise IllegalOrder(f"{where}: {shown}; the known types are {known}")
        try:
            order = msgspec.convert(dict(item), type=Order)
        except msgspec.ValidationError as exc:
            raise IllegalOrder(f"{where} ({kind}): {exc}") from None
        if isinstance(order, Roll) and (problem := dice_problem(order.dice)):
            raise IllegalOrder(f"{where} (roll): {problem}")
        orders.append(order)
    return orders


def order_to_json(order: Order) -> dict[str, Any]:
    """The JSON form of an order, with its ``type`` tag (what ``parse_orders`` reads)."""
    data = msgspec.to_builtins(order)
    if not isinstance(data, dict):
        raise TypeError(f"not an F&E order: {order!r}")
    return data


def _kind(value: object) -> str:
    return type(value).__name__
