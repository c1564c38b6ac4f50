"""What arrived, in words: the events of a run of packets, grouped by the seat that sent them.

A sync may bring one packet or a thousand, and each may carry dozens of events, most of them
bookkeeping (a step the engine did, a step with nothing to do, a step completed). A player
wants the few that changed the game ("built D5 at 1411", "moved 6 units 0303->0701"), by who
did them. `summarize` keeps those and counts the rest, and keeps the result bounded: at most
`PER_KIND` lines of one kind and `PER_SEAT` lines per seat, whatever the packets hold, with
counts for what it left off, so a flood still reads as a few lines.

Nothing here names a game. Each event's line comes from a ``headline`` function: a ruleset's
face may provide one (`engine.core.face.Headlines`) that shortens its own events and says
which are routine; without one, `plain_headline` drops the protocol core's bookkeeping kinds
and shortens the rest. Pure: no I/O; the texts are kept as the engine wrote them (they may
hold another player's words, so a face escapes them when it shows them).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import msgspec

from engine.core.ruleset import Event, Seat
from engine.core.text import counted

PER_KIND = 2
"""Lines kept of one kind of event per seat; the others are counted (``more: 32 place``)."""
PER_SEAT = 8
"""Lines kept per seat in all; the others are counted."""
MAX_LINE = 96
"""Characters of one line; a longer text is cut with ``...``."""

ROUTINE_KINDS = frozenset(
    {
        "step-auto",
        "step-passed",
        "step-done",
        "step-part",
        "step-skipped",
        "step-policy",
        "through-stopped",
        "commit",
        "roll",
        "roll-armed",
    }
)
"""The protocol core's and the turn machinery's bookkeeping: counted, never listed (a die
asked for, as the die rolled, and a step the seats' policies answered: what they decide is
the ruleset's own event; where a ``done`` through a step stopped: what the game waits for
says it)."""

Headline = Callable[[Event], "str | None"]
"""An event's line, or None when the event is routine (counted, not listed)."""


class SeatNews(msgspec.Struct, frozen=True):
    """What one seat's packets did: its kept lines, and counts of what was left off."""

    seat: Seat
    packets: int
    lines: tuple[str, ...] = ()
    more: tuple[tuple[str, int], ...] = ()
    """``(kind, count)`` of meaningful events left off, in the order each kind first came."""
    routine: int = 0
    """Bookkeeping events counted and not listed (steps passed or done by the engine)."""
    lead: str = ""
    """The one of ``lines`` to lead a one-line summary with: among the events that name the
    seat itself (else among all), those of its latest packet, and of them the line of the
    kind the seat's events had least often, the latest among equals (a unit destroyed among
    a round's allocations run on by standing orders); "" when nothing is listed."""
    done_at: tuple[str, ...] = ()
    """The steps the seat ended with a ``done`` of its own (not its standing order's), the
    latest `DONE_AT` in order: what a packet of plain dones did (a retreat option passed)."""


class News(msgspec.Struct, frozen=True):
    """What a run of packets did, one `SeatNews` per seat in the order each first sent."""

    packets: int
    seats: tuple[SeatNews, ...] = ()


def shorten(text: str, limit: int = MAX_LINE) -> str:
    """``text`` on one line (any run of whitespace, newlines too, becomes a space), cut to
    ``limit`` characters with ``...``."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3].rstrip() + "..."


_RULE_TAIL = re.compile(r"\s*\((?:[A-Z]?\d+(?:\.\d+)*[A-Z]?(?:,\s*)?)+\)\s*$")


def without_rule(text: str) -> str:
    """``text`` without a trailing rule reference such as ``(302.9)`` or ``(530.12, 501.5)``:
    useful in a log, noise in a summary."""
    return _RULE_TAIL.sub("", text)


def plain_headline(event: Event) -> str | None:
    """The default line of an event: None for `ROUTINE_KINDS` and empty texts, a chat line
    quoted, a resignation without its seat (the heading names who), else its text without a
    trailing rule reference, shortened."""
    if event.kind in ROUTINE_KINDS or not event.text.strip():
        return None
    if event.kind == "chat":  # the core's chat packet: the event's text is the player's line
        return shorten(f"says: {event.text}")
    if event.kind == "resign" and event.seat:  # under its seat's heading: said once
        return shorten(event.text.removeprefix(f"{event.seat} "))
    return shorten(without_rule(event.text))


DONE_AT = 3
"""How many of the steps a seat ended by hand `SeatNews.done_at` keeps (the latest)."""
_ENDED = frozenset({"step-done", "step-part"})


def _ended_by_hand(event: Event, seat: Seat) -> str:
    """The step ``event`` says ``seat`` ended with its own ``done``, or ""."""
    if event.kind not in _ENDED or event.seat != seat or event.data.get("standing"):
        return ""
    return event.step


class _Seat:
    """The running tally of one seat while `summarize` reads its events: per kind, its count
    and its first `PER_KIND` lines (with their place in the order they came)."""

    def __init__(self, seat: Seat) -> None:
        self.seat = seat
        self.packets = 0
        self.kept: dict[str, list[tuple[int, str, tuple[bool, int]]]] = {}
        """Per kind, its first `PER_KIND` lines: (place in the order they came, line, what
        ranks it to lead: whether the seat itself made it, and in which of its packets)."""
        self.counts: dict[str, int] = {}
        self.seen = 0
        self.routine = 0
        self.done_at: list[str] = []

    def add(self, kind: str, line: str | None, own: bool = False) -> None:
        """One event: its kind, its line (None: routine), whether the seat itself made it
        (the event names the seat, not another or none)."""
        if line is None:
            self.routine += 1
            return
        self.counts[kind] = self.counts.get(kind, 0) + 1
        kept = self.kept.setdefault(kind, [])
        if len(kept) < PER_KIND:
            kept.append((self.seen, shorten(line), (own, self.packets)))
        self.seen += 1

    def news(self) -> SeatNews:
        """The kept lines, chosen a kind at a time (each kind's first line before any kind's
        second), so a war declared after a dozen set-ups still shows; then in the order they
        came. What was not chosen is counted per kind."""
        chosen: list[tuple[int, str, str, tuple[bool, int]]] = []
        for rank in range(PER_KIND):
            for kind, kept in self.kept.items():
                if rank < len(kept) and len(chosen) < PER_SEAT:
                    seen, line, ranks = kept[rank]
                    chosen.append((seen, kind, line, ranks))
        chosen.sort()
        shown: dict[str, int] = {}
        for _, kind, _, _ in chosen:
            shown[kind] = shown.get(kind, 0) + 1
        more = tuple(
            (kind, count - shown.get(kind, 0))
            for kind, count in self.counts.items()
            if count > shown.get(kind, 0)
        )
        lines = tuple(line for _, _, line, _ in chosen)
        lead = max(chosen, key=lambda c: (*c[3], -self.counts[c[1]], c[0]), default=None)
        return SeatNews(
            self.seat,
            self.packets,
            lines,
            more,
            self.routine,
            lead[2] if lead else "",
            tuple(self.done_at[-DONE_AT:]),
        )


def summarize(
    packets: Sequence[tuple[Seat, Sequence[Event]]], headline: Headline | None = None
) -> News:
    """The events of ``packets`` (each its author's seat and the events it caused, in chain
    order) grouped by author. An event is the author's doing even when the engine raised it
    for them (a battle its orders started), so grouping by the packet's seat, not the event's,
    says who made it happen. A ``headline`` that raises is not guarded: it is the ruleset's
    own code, as pure as the rest of the engine."""
    line_of = headline or plain_headline
    seats: dict[Seat, _Seat] = {}
    for seat, events in packets:
        tally = seats.get(seat)
        if tally is None:
            tally = seats[seat] = _Seat(seat)
        tally.packets += 1
        for event in events:
            tally.add(event.kind, line_of(event), event.seat == seat)
            ended = _ended_by_hand(event, seat)
            if ended:
                tally.done_at.append(ended)
    return News(len(packets), tuple(tally.news() for tally in seats.values()))


def left_off(news: SeatNews) -> str:
    """What a seat's lines left off, in words: ``more: 32 place, 8 release; 12 routine
    steps`` ("" when nothing was)."""
    parts = []
    if news.more:
        parts.append("more: " + ", ".join(f"{count} {kind}" for kind, count in news.more))
    if news.routine:
        parts.append(f"{news.routine} routine step{'s' if news.routine != 1 else ''}")
    return "; ".join(parts)


def news_words(news: SeatNews) -> str:
    """One seat's news as one line of words, e.g. ``LYR built FF at 0408 (2.5 EP); LYR moved
    6 units 0303->0701; more: 32 place; 12 routine steps``."""
    parts = [*news.lines, left_off(news)] if left_off(news) else list(news.lines)
    return "; ".join(parts) or f"{counted(news.packets, 'packet')}, nothing to show"
