"""Packets lost from the middle of a game's chain, and what mends them.

A home keeps every packet of its games and the state at the head beside them, so play goes on
when a stored row in the middle of a chain is lost (a damaged disk, a row deleted by hand).
What replays through that position stops: ``hexpost verify``, a review of that turn, an
archive. They name the gap and what mends it (`LostPacket`, `advice`): the other player's
``hexpost resend GAME --from N --to M --every-seat``, whose copies come as any packet does.
The gap is named from its first position to its last where the packet after it is stored, so
that only those few are asked for, not the rest of a long campaign.

A copy that comes for a lost position fills it if the chain names it there
(`saves.mending.fill`).
"""

from __future__ import annotations

from engine.core.errors import ChainError


class LostPacket(ChainError):
    """Positions ``first`` to ``last`` of a game's chain, below its head, with no packet
    stored (``last`` None: not known, to the head at most)."""

    def __init__(self, message: str, first: int, last: int | None) -> None:
        super().__init__(message)
        self.first = first
        self.last = last


def _positions(first: int, last: int | None) -> str:
    return f"packet {first}" if last is None or last == first else f"packets {first} to {last}"


def lost(first: int, last: int | None = None) -> LostPacket:
    """The error a replay raises where it finds packets ``first`` to ``last`` missing."""
    them = "it" if last is None or last == first else "them"
    return LostPacket(
        f"{_positions(first, last)}: not in this home's store, though the packets after "
        f"{them} are (lost here since {'it was' if them == 'it' else 'they were'} kept)",
        first,
        last,
    )


def resend_command(name: str, first: int, last: int | None) -> str:
    """The command that sends every seat's packets ``first`` to ``last`` of ``name`` again
    (from ``first`` to the head when ``last`` is None)."""
    upto = "" if last is None else f" --to {last}"
    return f"hexpost resend {name} --from {first}{upto} --every-seat"


def advice(name: str, first: int, last: int | None = None) -> str:
    """What mends lost packets ``first`` to ``last`` of the game ``name``."""
    return (
        f"ask the other player to run `{resend_command(name, first, last)}`: their copy "
        "fills the gap"
    )


def with_advice(exc: LostPacket, name: str, upto: int | None = None) -> LostPacket:
    """``exc``, saying what mends it: a resend of its packets, on to ``upto`` where that is
    further (the last fault after it, `saves.faults`)."""
    last = exc.last if upto is None or (exc.last is not None and exc.last >= upto) else upto
    return LostPacket(f"{exc.message}; {advice(name, exc.first, last)}", exc.first, exc.last)


def lost_with_advice(name: str, first: int, last: int | None, upto: int | None) -> LostPacket:
    """`lost`, saying what mends it (`with_advice`)."""
    return with_advice(lost(first, last), name, upto)
