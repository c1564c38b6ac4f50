"""Per-seat entropy chains, fair dice, and commitments to secret choices.

Dice (protocol property P6). Each seat builds a hash chain from a secret seed:
``v[N] = seed`` and ``v[i-1] = H(v[i])``, and publishes the anchor ``v[0]`` when it takes its
seat. Its k-th packet after that reveals ``v[k]``; anyone checks ``H(v[k]) == v[k-1]``. Every
contribution a seat will ever make is therefore fixed at the start, and unknown to the others.
A roll mixes the arming seat's value from the arming packet with every other seat's next value
revealed *after* it, so no seat can choose or foresee the result before its decisions are
signed. The dice stream is SHAKE-256 read with rejection sampling, so every face is exactly
equally likely.

Secret choices (P7) are committed as a salted, domain-separated SHA-256 and opened later.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import msgspec

from engine.core.errors import HexpostError

ENTROPY_DOMAIN = b"hexpost/entropy/1\x00"
DICE_DOMAIN = b"hexpost/dice/1\x00"
COMMIT_DOMAIN = b"hexpost/commit/1\x00"
VALUE_SIZE = 32
SALT_SIZE = 32
DEFAULT_CHAIN_LENGTH = 1 << 18
"""Packets one seat can sign in one game (262,144): far beyond any campaign."""
CHECKPOINT_EVERY = 512


def chain_step(value: bytes) -> bytes:
    """One step down an entropy chain: ``v[i-1] = H(v[i])``."""
    return hashlib.sha256(ENTROPY_DOMAIN + value).digest()


def follows(previous: bytes, value: bytes) -> bool:
    """Whether ``value`` is the next reveal after ``previous`` in a seat's chain."""
    return len(value) == VALUE_SIZE and chain_step(value) == previous


class EntropyExhausted(HexpostError):
    """A seat has revealed every value of its chain."""


class EntropyChain:
    """A seat's private entropy chain, with checkpoints so any value costs few hashes.

    Building it costs ``length`` hashes once; ``value(i)`` then costs at most
    ``CHECKPOINT_EVERY`` hashes.
    """

    def __init__(self, seed: bytes, length: int = DEFAULT_CHAIN_LENGTH) -> None:
        if len(seed) != VALUE_SIZE:
            raise ValueError("an entropy seed is 32 bytes")
        if length <= 0 or length % CHECKPOINT_EVERY:
            raise ValueError(f"chain length must be a positive multiple of {CHECKPOINT_EVERY}")
        self.length = length
        self._checkpoints: dict[int, bytes] = {}
        value = seed
        for index in range(length, -1, -1):
            if index % CHECKPOINT_EVERY == 0:
                self._checkpoints[index] = value
            if index:
                value = chain_step(value)
        self.anchor = self._checkpoints[0]

    def checkpoints(self) -> bytes:
        """Every checkpoint, concatenated: enough to restore the chain without rebuilding it.

        As secret as the seed: a checkpoint is a value this seat has not revealed yet.
        """
        return b"".join(self._checkpoints[i] for i in range(0, self.length + 1, CHECKPOINT_EVERY))

    @classmethod
    def restore(cls, seed: bytes, length: int, checkpoints: bytes) -> EntropyChain:
        """A chain from its stored checkpoints; checked against the seed at the top end."""
        count = length // CHECKPOINT_EVERY + 1
        if length <= 0 or length % CHECKPOINT_EVERY or len(checkpoints) != count * VALUE_SIZE:
            return cls(seed, length)
        chain = cls.__new__(cls)
        chain.length = length
        chain._checkpoints = {
            i * CHECKPOINT_EVERY: checkpoints[i * VALUE_SIZE : (i + 1) * VALUE_SIZE]
            for i in range(count)
        }
        if chain._checkpoints[length] != seed:
            return cls(seed, length)
        chain.anchor = chain._checkpoints[0]
        return chain

    def value(self, index: int) -> bytes:
        """``v[index]`` for ``1 <= index <= length``."""
        if index > self.length:
            raise EntropyExhausted(f"this seat's entropy chain is used up ({self.length} packets)")
        if index < 0:
            raise ValueError("entropy index must not be negative")
        top = -(-index // CHECKPOINT_EVERY) * CHECKPOINT_EVERY
        value = self._checkpoints[top]
        for _ in range(top - index):
            value = chain_step(value)
        return value


def _framed(*parts: bytes) -> bytes:
    return b"".join(len(part).to_bytes(4, "big") + part for part in parts)


def roll_dice(
    game_id: bytes, event_id: str, values: Sequence[bytes], count: int, sides: int
) -> tuple[int, ...]:
    """Read ``count`` dice of ``sides`` faces from the event's SHAKE-256 stream.

    ``values`` are the contributing seats' entropy values in seat order. Bytes at or above
    the largest multiple of ``sides`` below 256 are skipped, so every face is equally likely.
    """
    if not 2 <= sides <= 256 or count < 1:
        raise ValueError("dice need 2..256 sides and a positive count")
    stream = hashlib.shake_256(DICE_DOMAIN + _framed(game_id, event_id.encode(), *values))
    limit = 256 - 256 % sides
    results: list[int] = []
    size = 2 * count + 16
    while True:
        for byte in stream.digest(size):
            if byte < limit:
                results.append(byte % sides + 1)
                if len(results) == count:
                    return tuple(results)
        results.clear()
        size *= 2


_CANONICAL = msgspec.msgpack.Encoder(order="deterministic")


def canonical_choice(choice: object) -> bytes:
    """The canonical bytes of a secret choice (what is committed and revealed)."""
    return _CANONICAL.encode(choice)


def commitment(game_id: bytes, key: str, seat: str, salt: bytes, choice: bytes) -> bytes:
    """SHA-256 commitment binding a choice to one game, decision and seat."""
    if len(salt) != SALT_SIZE:
        raise ValueError("a commitment salt is 32 bytes")
    return hashlib.sha256(
        COMMIT_DOMAIN + _framed(game_id, key.encode(), seat.encode(), salt, choice)
    ).digest()
