"""Counting a game's pace: hand-offs, and which of them wait for a person.

By email a game's time goes in hand-offs: each time the next packet is written by another
seat than the last one, the game waits for a mail round trip. Some of those waits are a
player's (a decision), others only the other player's hexpost's: the packets an automatic
reply writes (`saves.replies`), where nobody decides anything. A machine hand-off costs
seconds when the other side runs ``hexpost sync --watch``; a human one costs a day. The
benches (``bench/handoffs.py``, ``bench/golden_handoffs.py``) count both with this module, so
a change that turns a human hand-off into a machine one, or adds either, shows in its figures.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import groupby, takewhile
from typing import NamedTuple

from engine.core.packets import Body, EntropyOnly, Turn
from engine.core.text import counted

NO_ORDERS = b"\x90"
"""A turn's orders when it carries none: the canonical empty MessagePack array."""


def automatic(body: Body) -> bool:
    """Whether ``body`` is what an automatic reply writes: an entropy value alone, or the
    reveals of choices committed earlier, with no order and no commitment. Everything in it
    was bound before, so its author's hexpost writes it without asking its player."""
    if body.commits:
        return False
    if isinstance(body.kind, EntropyOnly):
        return True
    return isinstance(body.kind, Turn) and body.kind.orders == NO_ORDERS and bool(body.reveals)


class HandOffs(NamedTuple):
    """The packets of a stretch of a game and the hand-offs into and within it."""

    packets: int
    human: int
    """Hand-offs to a seat that had something to decide in the packets it then wrote."""
    machine: int
    """Hand-offs answered by automatic packets alone (`automatic`)."""

    @property
    def total(self) -> int:
        return self.human + self.machine

    def __str__(self) -> str:
        return (
            f"{counted(self.packets, 'packet')}, {counted(self.total, 'hand-off')} "
            f"({self.human} human, {self.machine} machine)"
        )


class HandOff(NamedTuple):
    """One hand-off: the run of packets one seat wrote after another seat's."""

    at: int
    """The index of the run's first packet among the packets counted."""
    seat: str
    machine: bool
    """Whether every packet of the run is automatic (`automatic`)."""


def hand_offs(packets: Sequence[tuple[str, bool]], before: str = "") -> list[HandOff]:
    """Each hand-off within ``packets``, given as ``(seat, automatic)`` in the order written,
    after a packet of seat ``before`` ("" when they start the game or the count starts at
    their first seat). A run of packets by one seat is one hand-off when its seat differs from
    the seat before it; it is a machine hand-off when every packet of the run is automatic
    (an automatic reply followed by the player's own packet still waited for the player)."""
    found: list[HandOff] = []
    previous = before
    at = 0
    for seat, run in groupby(packets, key=lambda packet: packet[0]):
        kinds = [is_automatic for _, is_automatic in run]
        if previous and seat != previous:
            found.append(HandOff(at, seat, all(kinds)))
        previous = seat
        at += len(kinds)
    return found


def count(
    packets: Iterable[tuple[str, bool]],
    before: str = "",
    after: Iterable[tuple[str, bool]] = (),
) -> HandOffs:
    """The hand-offs of ``packets`` (`hand_offs`), counted. ``after`` (the packets that
    follow, if any) only completes the last run: an automatic reply that ends one player
    turn, followed by its seat's own next turn, waited for that seat's player."""
    written = list(packets)
    if written:
        last_seat = written[-1][0]
        written_too = [*written, *takewhile(lambda packet: packet[0] == last_seat, after)]
    else:
        written_too = written
    found = hand_offs(written_too, before)
    machine = sum(hand_off.machine for hand_off in found)
    return HandOffs(len(written), len(found) - machine, machine)
