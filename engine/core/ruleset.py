"""The interface every ruleset (strategic campaigns, tactical battles, fighter duels) implements.

This is the protocol core's half; what a client reads (summary, board, choices, checklist)
is the other half, `engine.core.face.Face`, and a ruleset package declares both in one
`engine.core.plugin.Plugin`.

The protocol core in `engine.core.game` owns everything that is the same for all games:
signatures, the chain, entropy, dice and the commit-reveal of secret choices. A ruleset owns
what the game *is*: its state, which decisions are owed now, which orders are legal, and what
applying them does. The split follows python-chess: `validate` (legality) is separate from
`apply` (application), and `apply` is only ever called on an order that validated.

A ruleset never sees packets or keys. It receives orders already decoded into its own order
structs, dice already rolled, and secret choices already checked against their commitments.
"""

import enum
from collections.abc import Mapping, Sequence
from typing import Any, Generic, Protocol, TypeVar

import msgspec

from engine.core.errors import VersionError

Seat = str
"""A seat's name in a game, e.g. ``"coalition"``; stable for the whole game."""

OptionValue = bool | int | str
"""The value of one optional rule chosen at game creation."""


class Actor(enum.StrEnum):
    """Who acts in a step of a sequence of play."""

    PHASING = "phasing"
    NON_PHASING = "non-phasing"
    BOTH = "both"
    NOBODY = "nobody"


class StepKind(enum.StrEnum):
    """What a step is: done by the engine, a choice, a secret choice, or bookkeeping by hand."""

    AUTOMATIC = "automatic"
    DECISION = "decision"
    SECRET = "secret"
    MANUAL = "manual"


class DecisionKind(enum.StrEnum):
    """What a pending decision asks of its seat.

    ``ORDERS`` and ``SECRET`` come from the ruleset; ``JOIN``, ``ACCEPT``, ``REVEAL`` and
    ``ENTROPY`` are added by the protocol core (joining the game, the creator's acceptance of a
    joined key, opening a commitment, feeding a die roll).
    """

    ORDERS = "orders"
    SECRET = "secret"
    JOIN = "join"
    ACCEPT = "accept"
    REVEAL = "reveal"
    ENTROPY = "entropy"


class Decision(msgspec.Struct, frozen=True):
    """A decision owed now.

    ``key`` names this occurrence of the step uniquely within the game (the same step comes
    back every turn, and combat steps every round), e.g. ``"T1/coalition/5-3C/1"``; secret
    commitments are bound to it.
    """

    seats: tuple[Seat, ...]
    step: str
    kind: DecisionKind
    key: str
    title: str = ""
    rules: tuple[str, ...] = ()


class Violation(msgspec.Struct, frozen=True):
    """One reason an order is refused: what is wrong, the rule it breaks, where it applies."""

    message: str
    rule: str = ""


class Event(msgspec.Struct, frozen=True):
    """Something that happened, in plain words, for the log and for reviews.

    ``data`` holds machine-readable details (JSON-safe values only).
    """

    kind: str
    text: str
    seat: Seat = ""
    step: str = ""
    data: dict[str, Any] = {}


class RollRequest(msgspec.Struct, frozen=True):
    """Dice a ruleset asks for; the core arms the roll and later reports the result."""

    count: int
    sides: int
    purpose: str
    step: str
    again: bool = False
    """True when the rules roll again for this purpose within one step (a ruleset that fights
    rounds inside one step says so); otherwise the core refuses a second roll for the same
    purpose in the same step, so a seat cannot ask again after a bad result."""
    at_reveal: bool = False
    """Asked by a secret step as its choices are revealed (`Ruleset.apply_secret` only): the
    core reads these dice at once from the entropy values of the packets that revealed the
    step's choices, so they cost no packet of their own. Fair because every seat had
    committed before any of those values was sent (`engine.core.rolls.roll_at_reveal`)."""


S = TypeVar("S")
O_co = TypeVar("O_co", covariant=True)


class Applied(msgspec.Struct, Generic[S]):
    """The result of applying one order, a resolved roll, or a revealed secret step."""

    state: S
    events: list[Event] = []
    rolls: list[RollRequest] = []


class SeatSpec(msgspec.Struct, frozen=True):
    """A seat a scenario offers: its name, the side it plays, and what it commands there
    (whatever the game's forces are: nations, ships, squadrons), for display."""

    seat: Seat
    side: str
    commands: tuple[str, ...] = ()


class OptionSpec(msgspec.Struct, frozen=True):
    """An optional rule: its id, default value, and a short explanation; for a text rule
    the values it takes (``choices``), for a whole-number rule its least and greatest
    (``bounds``), so that a game is made only with a value the rules read as given
    (`problem`) and a form can offer them."""

    id: str
    default: OptionValue
    help: str
    rule: str = ""
    choices: tuple[str, ...] = ()
    bounds: tuple[int, int] | None = None

    def problem(self, value: OptionValue) -> str | None:
        """Why ``value`` is not one this rule takes, in words, or None."""
        named = f"optional rule {self.id!r} takes"
        if isinstance(self.default, bool):
            return None if isinstance(value, bool) else f"{named} true or false, not {value!r}"
        if isinstance(self.default, int):
            if isinstance(value, bool) or not isinstance(value, int):
                return f"{named} a whole number, not {value!r}"
            if self.bounds is not None and not self.bounds[0] <= value <= self.bounds[1]:
                least, most = self.bounds
                return f"{named} a whole number from {least} to {most}, not {value}"
            return None
        if not isinstance(value, str):
            return f"{named} a text, not {value!r}"
        if self.choices and value not in self.choices:
            return f"{named} one of {', '.join(self.choices)}, not {value!r}"
        return None


class ScenarioInfo(msgspec.Struct, frozen=True):
    """What game creation needs to know about a scenario.

    ``data_hash`` is the SHA-256 of the scenario's canonical data, so both players provably
    start from the same scenario (protocol property P8).
    """

    id: str
    title: str
    seats: tuple[SeatSpec, ...]
    options: tuple[OptionSpec, ...]
    data_hash: bytes
    start: str = ""


class Ruleset(Protocol, Generic[S]):
    """What the protocol core needs from a game's rules. All methods are pure."""

    id: str
    """Short id named in every packet, e.g. ``"duel"``."""
    version: str
    """``"MAJOR.MINOR"``; a client refuses games of another major or a newer minor."""
    follow_on_dice_from: str
    """The first version of this ruleset whose games read the dice the rules ask for as their
    sequence runs on from a roll (a battle's next round fought by policies) from the values
    that completed that roll, instead of arming them for the next packets ("": never, as
    for a plug-in written before this attribute, which may lack it). Games begun at an
    earlier version keep arming them (`engine.core.rolls.follows_on`)."""
    reveal_dice_in_order_from: str
    """The first version of this ruleset whose games roll the dice a secret step's reveal
    asked for, when a seat was not asked and they must wait, in the order the ruleset asked
    for them ("": never, as for a plug-in written before this attribute, which may lack it).
    Before, those it would have read at the reveal were rolled after the rest
    (`engine.core.rolls.reveal_dice`)."""
    state_type: type[S]
    """The msgspec Struct type of the ruleset's state (for decoding snapshots).

    Optional, and so not declared here: ``at_version(state, version) -> S``, called once on a
    game's first rules state with the version its genesis names, for a ruleset whose rules
    change in a minor version to keep in its state what they must know
    (`engine.core.seating.played_at`)."""

    def scenarios(self) -> Sequence[ScenarioInfo]:
        """Every scenario this ruleset ships, in a stable order."""
        ...

    def initial_state(
        self, scenario_id: str, seats: Sequence[Seat], options: Mapping[str, OptionValue]
    ) -> S:
        """The state when every seat has joined; raises ``VersionError`` for an unknown id."""
        ...

    def decode_orders(self, data: bytes) -> list[Any]:
        """Decode a packet's orders; raises ``PacketError`` (only) on malformed bytes."""
        ...

    def encode_orders(self, orders: Sequence[Any]) -> bytes:
        """The canonical encoding of a list of this ruleset's orders."""
        ...

    def parse_orders(self, items: Sequence[Mapping[str, Any]]) -> list[Any]:
        """Orders from a player's JSON/TOML file; raises ``IllegalOrder`` naming the item."""
        ...

    def order_to_json(self, order: Any) -> dict[str, Any]:
        """The JSON form of one order (the same shape ``parse_orders`` reads)."""
        ...

    def pending(self, state: S) -> list[Decision]:
        """The decisions owed now, in the order the seats must answer them."""
        ...

    def validate(self, state: S, seat: Seat, order: Any) -> list[Violation]:
        """Why ``order`` by ``seat`` is illegal now (empty when it is legal)."""
        ...

    def apply(self, state: S, seat: Seat, order: Any) -> Applied[S]:
        """Apply a validated order."""
        ...

    def apply_roll(self, state: S, request: RollRequest, dice: tuple[int, ...]) -> Applied[S]:
        """Record the result of a roll this ruleset requested."""
        ...

    def validate_secret(
        self, state: S, decision: Decision, seat: Seat, choice: Any
    ) -> list[Violation]:
        """Why ``choice`` is not an acceptable secret choice for ``decision`` (empty if it is).

        Called by the writer before committing, and again by every receiver at the reveal.
        """
        ...

    def apply_secret(self, state: S, decision: Decision, choices: Mapping[Seat, Any]) -> Applied[S]:
        """Resolve a secret step once every seat's choice is revealed."""
        ...


class ApplyRun(Protocol):
    """What a ruleset may have besides `Ruleset`: ``apply_run``, orders applied in a run.

    The core applies a packet's orders one at a time (`Ruleset.validate`, then
    `Ruleset.apply`). A ruleset whose orders often come in runs that it can apply together
    more cheaply (F&E: a turn's builds, each of which would make a board) may take them from
    ``orders[start]`` on (``orders`` is the packet's whole list, not to be copied: the core
    asks at every order), as many as it can, and answer ``(applied, taken)``, or None to
    take none. The answer must be what validating and applying those ``taken`` orders one by
    one gives: each legal on the state the ones before it left, the same decision owed after
    each (the same step, the same seat), no dice asked. An order it is not sure of it leaves,
    with the rest, to the one-by-one path, which refuses it by its number.
    """

    def __call__(
        self, state: Any, seat: Seat, orders: Sequence[Any], start: int
    ) -> tuple[Applied[Any], int] | None: ...


class AfterOrders(Protocol):
    """What a ruleset may have besides `Ruleset`: ``after_orders``, its word on a packet's
    orders once they are all applied.

    The seat's orders may leave the step it owes with nothing left to decide (F&E: a side's
    one directed attack of a combat round made), which only a ``done`` in the next packet
    would end: one packet more for nothing, and a step left waiting when the player did not
    know to send it. The ruleset may then end the seat's part itself and answer what that
    did (or None: the step stays the seat's). Asked only after a packet with orders, when
    the seat still owes orders; the same answer for the same state, like every rule.
    """

    def __call__(self, state: Any, seat: Seat) -> Applied[Any] | None: ...


AnyRuleset = Ruleset[Any]
"""A ruleset of any game: what the core and the layers above hold without knowing which."""


def version_numbers(version: str) -> tuple[int, int]:
    """A ruleset version ``"MAJOR.MINOR"`` as ``(MAJOR, MINOR)``, to compare versions;
    ``VersionError`` for any other text (a genesis may name anything)."""
    try:
        major, minor = version.split(".")
        return int(major), int(minor)
    except ValueError:
        raise VersionError(f"unreadable ruleset version {version!r}") from None
