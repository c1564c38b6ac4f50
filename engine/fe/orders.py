"""The F&E ruleset's orders: tagged msgspec structs, one union ``Order``, and their wire and
file forms.

Each order is a struct tagged by ``type`` (``{"type": "move", ...}``); ``Order`` is their union,
with the sequence's own orders (`engine.core.turn_orders`). Packets carry them as canonical
msgpack (`encode_orders`, `decode_orders`, which refuses any other encoding); players write them
as JSON or TOML tables (`parse_orders`, which names the bad item). Secret choices are not
orders: the protocol core commits and reveals them and hands them to the ruleset through
``validate_secret``/``apply_secret``. The state they change is `engine.fe.model.FeState`.

No ``from __future__ import annotations`` here: msgspec reads these structs' annotations when
a packet's orders are first decoded, and real objects cost it less than strings to resolve.
"""

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, get_args

import msgspec

from engine.core import caches
from engine.core.errors import IllegalOrder, PacketError
from engine.core.schema_words import explained
from engine.core.text import PATTERN_WORDS, SAFE_PATTERN, line, worded
from engine.core.turn_orders import (
    MAX_TEXT,
    TURN_ORDER_TYPES,
    Back,
    Done,
    Note,
    Roll,
    Standing,
    dice_problem,
)
from engine.fe.battle_model import CombatPolicy
from engine.fe.galaxy import HexId
from engine.fe.opening import ApproachOrder, CloakOrder, OpposeOrder, WithdrawOrder


class _OrderBase(
    msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True, omit_defaults=True
):
    """Shared config: tagged by ``type``; defaults are left out so old packets stay canonical."""


HEX_PATTERN = r"^[0-9]{4}\Z"
OPTIONAL_HEX_PATTERN = r"^([0-9]{4})?\Z"
HexText = Annotated[str, msgspec.Meta(pattern=HEX_PATTERN)]
"""A hex id as players write it: four digits, column then row (``"0101"``, ``"1411"``)."""
UnitId = Annotated[str, line(40, min_length=1)]
UnitIds = Annotated[list[UnitId], msgspec.Meta(min_length=1, max_length=1000)]
ClassId = Annotated[str, line(40, min_length=1)]
EmpireCode = Annotated[str, line(8)]
EP_PATTERN = r"^-?[0-9]{1,5}(\.[05])?\Z"
MISSION_PATTERN = r"^(supply|none)\Z"
EpText = Annotated[str, msgspec.Meta(pattern=EP_PATTERN)]
"""An amount of EP as players write it, in halves at most: ``"12"``, ``"-3.5"``."""
HexPath = Annotated[list[HexText], msgspec.Meta(min_length=2, max_length=64)]


class Place(_OrderBase, frozen=True, tag="place"):
    """Set up a starting unit, or every waiting unit of a fleet, in a hex (set-up, 600.0)."""

    hex: HexText
    unit: Annotated[str, line(40)] = ""
    fleet: Annotated[str, line(80)] = ""


class MoveOrder(_OrderBase, frozen=True, tag="move"):
    """Move a stack along ``path``, which starts at the hex the units are in (203.0).

    The units are listed in ``units``, or named by ``stack`` (the hex the path starts in:
    every unit of the seat there that moves), ``fleet`` (a starting fleet by name) and
    ``only`` (class names, empire codes or unit ids narrowing either), which the engine
    expands to the units (`engine.fe.stacks`). The defaults are left out of the encoding, so
    moves signed before these fields existed keep their bytes; a missing path is refused.
    """

    units: UnitIds = []
    path: HexPath = []
    stack: Annotated[str, msgspec.Meta(pattern=OPTIONAL_HEX_PATTERN)] = ""
    fleet: Annotated[str, line(80)] = ""
    only: Annotated[list[UnitId], msgspec.Meta(max_length=100)] = []


class Batch(_OrderBase, frozen=True, tag="batch"):
    """End a movement batch: the other side may react to it (205.0), then movement goes on."""


class React(_OrderBase, frozen=True, tag="react"):
    """Reaction movement (205.0): move a stack toward the enemy that entered ``trigger``."""

    units: UnitIds
    path: HexPath
    trigger: HexText


class RepairOrder(_OrderBase, frozen=True, tag="repair"):
    """Repair a crippled unit at a base or FRD in its hex (420.2)."""

    unit: UnitId


class BuildOrder(_OrderBase, frozen=True, tag="build"):
    """Build a unit of the schedule (or a substitute ``instead_of`` a scheduled one, 431.0)."""

    cls: ClassId
    hex: HexText
    instead_of: Annotated[str, line(40)] = ""
    empire: EmpireCode = ""
    """Needed only when the seat plays more than one empire."""


class ConvertOrder(_OrderBase, frozen=True, tag="convert"):
    """Convert a unit into another class where it stands (433.0)."""

    unit: UnitId
    to: ClassId


class CommandPointsOrder(_OrderBase, frozen=True, tag="command-points"):
    """Step 2B3: buy ``count`` extra command points at 5 EP each (308.9, fixed costs), to be
    spent at 5-3D of a battle's first round (`engine.fe.steps.command_points`)."""

    count: Annotated[int, msgspec.Meta(ge=1, le=20)]
    empire: EmpireCode = ""
    """Needed only when the seat plays more than one empire."""


class ReplaceOrder(_OrderBase, frozen=True, tag="replace"):
    """Buy replacement PFs (0.5 EP each) or F-111 factors (``"4.5"``, 0.25 EP each) for a
    unit in supply (501.5, 502.43, 527.13); other fighters come back free at 6E (530.12)."""

    unit: UnitId
    fighters: EpText = "0"
    pfs: Annotated[int, msgspec.Meta(ge=0, le=100)] = 0


class RetrogradeOrder(_OrderBase, frozen=True, tag="retrograde"):
    """Retrograde a stack to a supply point of its empire (206.0)."""

    units: UnitIds
    to: HexText


class StrategicOrder(_OrderBase, frozen=True, tag="strategic"):
    """Strategic movement between strategic movement nodes (204.0)."""

    units: UnitIds
    to: HexText


class ReserveOrder(_OrderBase, frozen=True, tag="reserve"):
    """Designate units as a reserve fleet (9A, 203.7); an empty list is not allowed."""

    units: UnitIds


class MissionOrder(_OrderBase, frozen=True, tag="mission"):
    """Step 2B7: put a tug, LTT or convoy on the supply mission (509.1-D), or take it off
    (``"none"``); the mission lasts until changed."""

    unit: UnitId
    mission: Annotated[str, msgspec.Meta(pattern=MISSION_PATTERN)]


class BattlesOrder(_OrderBase, frozen=True, tag="battles"):
    """Step 3B2: the order the phasing player will fight its battle hexes in (302.9); hexes
    it does not name follow in hex order, hexes that hold no battle are passed over."""

    hexes: Annotated[list[HexText], msgspec.Meta(min_length=1, max_length=64)]


class RetreatOrder(_OrderBase, frozen=True, tag="retreat"):
    """Steps 5-7A1 to 5-7A3: announce that the seat's side retreats from the battle hex being
    fought (302.71); ``done`` alone stays. ``to`` names the adjacent hex its ships retreat to
    (302.72); without it the engine picks the best one by the retreat priorities."""

    to: HexText | None = None


class PursueOrder(_OrderBase, frozen=True, tag="pursue"):
    """Step 5-8A: the side that stayed sends these ships after the enemy that retreated
    (302.742; the engine rolls the pursuit die, 307.0); ``done`` alone lets it go."""

    units: UnitIds


class CaptureOrder(_OrderBase, frozen=True, tag="capture"):
    """Step 5-6X1: try to capture ``unit``, a crippled enemy ship in the battle hex, with
    ``by``, one of the side's uncrippled ships there (305.1); the engine rolls two dice,
    which succeed below 3 after the modifiers (`engine.fe.steps.combat_capture`)."""

    unit: UnitId
    by: UnitId


class PolicyOrder(CombatPolicy, _OrderBase, frozen=True, tag="policy"):
    """Sign (or replace) the seat's combat policy; every field at its default cancels it.
    Given at any step the seat acts in, it answers from there on."""


class ReactionOrder(_OrderBase, frozen=True, tag="reaction"):
    """Sign (or replace) the seat's reaction policy (205.0, 3B3), stored as a
    `engine.fe.reaction.ReactionPolicy` (see it for the fields); ``mode`` "ask" cancels it.
    Given at any step the seat acts in, it answers the seat's reaction windows from then on."""

    mode: Literal["ask", "never", "react"] = "ask"
    units: Annotated[list[UnitId], msgspec.Meta(max_length=1000)] = []
    hexes: Annotated[list[HexText], msgspec.Meta(max_length=200)] = []
    otherwise: Literal["stay", "ask"] = "stay"


ALLOCATION_PATTERN = r"^(cripple|destroy|sids) [^ ]{1,40}\Z|^fighters [^ ]{1,40} [0-9]{1,3}(\.5)?\Z"
"""One loss of an ``allocate`` order, in words."""


class AllocateOrder(_OrderBase, frozen=True, tag="allocate"):
    """Steps 5-6A (defender) and 5-6B (attacker): resolve the damage the enemy scored this
    round on the side's battle force (302.6), loss by loss in the order given:
    ``"cripple KZI-0004"``, ``"destroy KZI-0005"`` (a cripple, or outright), ``"fighters
    KZI-0006 2"`` (fighter factors lost, halves allowed), ``"sids KZI-B004"`` (a voluntary
    SIDS step on one's own base, 308.8). What is left becomes plus points,
    what is over-resolved minus points, both carried to the next round (308.2)."""

    losses: Annotated[
        list[Annotated[str, msgspec.Meta(pattern=ALLOCATION_PATTERN)]],
        msgspec.Meta(max_length=200),
    ] = []


class DirectOrder(_OrderBase, frozen=True, tag="direct"):
    """Steps 5-5B (attacker), 5-5C (defender): direct the round's damage at one enemy unit
    (302.5): cripple it, or ``destroy`` it; at a base, one SIDS step (308.811)."""

    unit: UnitId
    destroy: bool = False


class DeclareWar(_OrderBase, frozen=True, tag="declare"):
    """Step 1B: declare war on one of the empire's future belligerents (503.4), outside the
    scenario's script; the fleets the scenario releases with that war are released."""

    enemy: Annotated[str, line(8, min_length=1)]
    empire: EmpireCode = ""
    """Needed only when the seat plays more than one empire."""


ADJUST_CHANGES = (
    "treasury", "cripple", "repair", "destroy", "move", "place", "convert",
    "capture", "devastate", "recover",
)  # fmt: skip
ADJUST_PATTERN = "^(" + "|".join(ADJUST_CHANGES) + r")\Z"
AdjustChange = Annotated[str, msgspec.Meta(pattern=ADJUST_PATTERN)]


class Adjust(_OrderBase, frozen=True, tag="adjust"):
    """A typed correction for what the engine does not play yet (combat losses, events).

    ``change`` says what: ``treasury`` (``empire``, ``ep``), ``cripple``/``repair``/``destroy``
    (``unit``), ``move`` (``unit``, ``hex``), ``place`` (a new unit: ``empire``, ``cls``,
    ``hex``), ``convert`` (``unit``, ``cls``), ``capture`` (a ``hex`` taken from the enemy),
    ``devastate`` and ``recover`` (an enemy planet's ``hex``, one's own planet's ``hex``).
    ``reason`` says why, for the log.
    """

    change: AdjustChange
    reason: Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_TEXT, pattern=SAFE_PATTERN)]
    empire: EmpireCode = ""
    ep: EpText = "0"
    unit: Annotated[str, line(40)] = ""
    hex: Annotated[str, msgspec.Meta(pattern=OPTIONAL_HEX_PATTERN)] = ""
    cls: Annotated[str, line(40)] = ""


ADJUST_FIELDS: dict[str, tuple[str, ...]] = {
    "treasury": ("ep",),
    "cripple": ("unit",),
    "repair": ("unit",),
    "destroy": ("unit",),
    "move": ("unit", "hex"),
    "place": ("cls", "hex"),
    "convert": ("unit", "cls"),
    "capture": ("hex",),
    "devastate": ("hex",),
    "recover": ("hex",),
}
"""The fields each ``change`` of an `Adjust` needs besides its reason (``empire`` aside: it
is optional everywhere). The engine checks them; the app's adjustment form asks for them."""


Order = (
    Done | Note | Roll | Back | Standing | Place | MoveOrder | Batch | React | RepairOrder
    | BuildOrder | ConvertOrder | ReplaceOrder | RetrogradeOrder | StrategicOrder
    | ReserveOrder | Adjust | MissionOrder | DeclareWar | BattlesOrder | RetreatOrder
    | AllocateOrder | DirectOrder | PursueOrder | PolicyOrder | WithdrawOrder | OpposeOrder
    | ApproachOrder | CloakOrder | CaptureOrder | ReactionOrder | CommandPointsOrder
)  # fmt: skip
RULE_ORDERS: tuple[str, ...] = (
    "adjust", "batch", "build", "convert", "mission", "move", "place", "react", "repair",
    "replace", "reserve", "retrograde", "strategic", "declare", "battles", "retreat",
    "allocate", "direct", "pursue", "withdraw", "oppose", "approach", "cloak", "capture",
    "command-points",
)  # fmt: skip
"""The orders the engine checks against the board (the rest are the sequence's own,
`engine.core.turn_orders`)."""
POLICY_ORDERS: tuple[str, ...] = ("policy", "reaction")
"""Orders about how the seat plays later steps, taken at any step (like ``standing``)."""
ORDER_TYPES: tuple[str, ...] = tuple(sorted((*TURN_ORDER_TYPES, *RULE_ORDERS, *POLICY_ORDERS)))
_ORDER_CLASSES: dict[str, type] = {cls.__struct_config__.tag: cls for cls in get_args(Order)}
"""Each order's struct by its type: the schema a refusal of that order is explained by."""


def hex_id(text: str) -> HexId:
    """``"0101"`` -> 101 (the text was already checked by the order's pattern)."""
    return int(text)


def ep2(text: str) -> int:
    """``"-3.5"`` -> -7: an EP amount in halves."""
    negative = text.startswith("-")
    whole, _, half = text.lstrip("-").partition(".")
    value = int(whole) * 2 + (1 if half == "5" else 0)
    return -value if negative else value


_ORDER_LIST = list[Order]
_ENCODER = msgspec.msgpack.Encoder()


@caches.static
def _order_decoder() -> msgspec.msgpack.Decoder[list[Order]]:
    """Built once, on the first packet's orders: a decoder per call costs more than decoding
    a typical packet's orders, and building it (every order type's fields) cost 3-4 ms of
    every start, which a game's first paint does not need (issue 16)."""
    return msgspec.msgpack.Decoder(_ORDER_LIST)


def encode_orders(orders: Sequence[Order]) -> bytes:
    """The canonical msgpack bytes of a list of orders."""
    return _ENCODER.encode(list(orders))


def decode_orders(data: bytes) -> list[Order]:
    """Orders from a packet. Raises ``PacketError`` (only) on malformed or non-canonical bytes."""
    try:
        orders = _order_decoder().decode(data)
    except (msgspec.MsgspecError, ValueError, TypeError, RecursionError, OverflowError) as exc:
        raise PacketError(f"orders are not readable: {exc}") from None
    if encode_orders(orders) != bytes(data):
        raise PacketError("orders are not canonically encoded")
    return orders


ORDER_PATTERN_WORDS: dict[str, str] = {
    **PATTERN_WORDS,
    HEX_PATTERN: "a hex as four digits, column then row (like 1307)",
    OPTIONAL_HEX_PATTERN: "a hex as four digits (like 1307), or nothing",
    EP_PATTERN: "an amount of EP in halves at most (like 12 or -3.5)",
    MISSION_PATTERN: "'supply' or 'none'",
    ALLOCATION_PATTERN: "a loss: 'cripple ID', 'destroy ID', 'fighters ID N' or 'sids ID'",
    ADJUST_PATTERN: f"one of {', '.join(ADJUST_CHANGES)}",
}
"""What each text pattern of the orders asks for, in words, for a refusal (`worded`)."""


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
            message = explained(str(exc), _ORDER_CLASSES[kind])
            raise IllegalOrder(
                f"{where} ({kind}): {worded(message, ORDER_PATTERN_WORDS)}"
            ) from None
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
