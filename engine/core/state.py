"""The protocol core's game state, its canonical bytes, and its hash.

`GameState` is what every packet changes and what the state hash (P4, P5) covers. It holds
the protocol's own bookkeeping (`CoreState`: seats, keys, entropy, armed rolls, an open
secret step) next to the ruleset's state. Everything here is bounded: histories (notes, rolls,
reveals) live in the event log, not in the state, so hashing stays cheap in long campaigns.

The hash is asked after every packet; a ruleset state may hand over its form's bytes made
from parts remembered per unchanged object (``hash_form_bytes``), so that it stays near the
cost of what changed.
"""

import hashlib
from typing import Any, Generic, TypeVar

import msgspec

from engine.core.ruleset import Decision, OptionValue, RollRequest, Seat

STATE_DOMAIN = b"hexpost/state/1\x00"


class SeatState(msgspec.Struct, frozen=True):
    """One seat: who sits there, its key, and where its entropy chain stands."""

    seat: Seat
    name: str
    address: str
    public_key: bytes = b""
    anchor: bytes = b""
    entropy: bytes = b""
    """The last value this seat revealed (its anchor before its first packet)."""
    entropy_index: int = 0

    @property
    def joined(self) -> bool:
        return bool(self.public_key)


class ArmedRoll(msgspec.Struct, frozen=True):
    """A roll waiting for the other seats' next entropy values."""

    event: str
    request: RollRequest
    seat: Seat
    seq: int
    values: tuple[tuple[Seat, bytes], ...]


class OpenSecret(msgspec.Struct, frozen=True):
    """A secret step in progress: the commitments and the reveals received so far."""

    decision: Decision
    commits: tuple[tuple[Seat, bytes], ...] = ()
    reveals: tuple[tuple[Seat, bytes], ...] = ()
    entropies: tuple[tuple[Seat, bytes], ...] = ()
    """Each revealing seat's entropy value from the packet that carried its reveal: the
    values dice asked for at the reveal are read from (`RollRequest.at_reveal`)."""


class CoreState(msgspec.Struct, frozen=True):
    """The ruleset-independent part of a game's state."""

    game_id: bytes
    name: str
    ruleset_id: str
    ruleset_version: str
    scenario_id: str
    scenario_hash: bytes
    options: tuple[tuple[str, OptionValue], ...]
    reply_window_hours: int
    creator: Seat
    seats: tuple[SeatState, ...]
    seq: int
    rolls_armed: int = 0
    armed: tuple[ArmedRoll, ...] = ()
    secret: OpenSecret | None = None
    resigned: Seat = ""
    unaccepted: tuple[Seat, ...] = ()
    """Seats whose join the creator has not yet accepted; the creator's next packet accepts
    them (or, a resignation, declines them)."""
    rolls_at: str = ""
    """The decision (its key) in which the rolls of ``rolled`` were asked for."""
    rolled: tuple[str, ...] = ()
    """Purposes (normalised) already rolled for in the decision ``rolls_at``."""

    def seat_state(self, seat: Seat) -> SeatState:
        for entry in self.seats:
            if entry.seat == seat:
                return entry
        raise KeyError(seat)

    def with_seat(self, updated: SeatState) -> "CoreState":
        seats = tuple(updated if s.seat == updated.seat else s for s in self.seats)
        return msgspec.structs.replace(self, seats=seats)


S = TypeVar("S")


class GameState(msgspec.Struct, Generic[S], frozen=True):
    """A whole game at one point of its chain. ``rules`` is None until every seat joined.

    ``head`` (the id of the last applied packet) and ``genesis_id`` are facts of the chain,
    kept out of the state hash: a packet carries the hash of the state it produces, and its
    own id depends on that hash.
    """

    core: CoreState
    head: bytes
    genesis_id: bytes
    rules: S | None = None


AnyState = GameState[Any]
"""A state of any game (its ``rules`` part is the ruleset's own type)."""


_ENCODER = msgspec.msgpack.Encoder(order="deterministic")


def encode_state(state: GameState[Any]) -> bytes:
    """The canonical bytes of a state (identical on every machine and Python version)."""
    return _ENCODER.encode(state)


def decode_state(data: bytes, rules_type: type[S]) -> GameState[S]:
    """Decode a snapshot written by `encode_state`."""
    return msgspec.msgpack.decode(data, type=GameState[rules_type])  # type: ignore[valid-type]


def state_hash(state: GameState[Any]) -> bytes:
    """SHA-256 of the canonical state (without chain ids): what every packet vouches for (P5).

    A ruleset state may offer ``hash_form()``: a smaller value that stands for it in the hash
    (e.g. digests of its large parts, cached while those parts do not change), so that a big
    board does not cost a full encoding after every packet. It must be a pure function of the
    state and change whenever the state does. It may also offer ``hash_form_bytes()``, the
    canonical bytes of ``hash_form()`` (made faster), which are then used instead.
    """
    rules = state.rules
    form_bytes = getattr(rules, "hash_form_bytes", None)
    if form_bytes is not None:
        rules = msgspec.Raw(form_bytes())
    else:
        form = getattr(rules, "hash_form", None)
        if form is not None:
            rules = form()
    return _sha256_of_state(_ENCODER.encode((state.core, rules)))


def _sha256_of_state(data: bytes) -> bytes:
    """``sha256(STATE_DOMAIN + data)``, in one call.

    (Resuming from a digest of the core's leading fields, fixed for a game's life, was
    tried and dropped: on a CPU with SHA instructions, finding the cut and copying the
    resumed hasher cost more than reading 600 bytes again: 3.8 against 2.9 us a state.)"""
    return hashlib.sha256(STATE_DOMAIN + data).digest()
