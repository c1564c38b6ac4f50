"""The wall clock, and when things happen in a game as short words (the turn label, how long
ago a stamp was).

`now` is the one place the faces read the time packets are stamped with; they hand it to the
services as their clock (`tui.services.ports.Clock`), so a test can hand a fixed one. Apart
from `tui.render` so the games list can word its rows without importing the engine and the
store on the app's way to its first paint.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from itertools import pairwise
from typing import Any, Protocol


class TurnLike(Protocol):
    """What a turn record has (`tui.services.games.TurnRecord`), named here so this module
    stays free of the services and the store."""

    @property
    def number(self) -> int: ...

    @property
    def tag(self) -> str: ...


def now() -> str:
    """The wall clock, as written into packets (informational) and the store."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def turn_text(turn: TurnLike | Mapping[str, Any] | None) -> str:
    """The turn's short tag as the ruleset gives it (``T3 Fall Y168``), or ``-`` before the
    game has started; from a turn record, or its JSON form (the command line's text views)."""
    if not turn:
        return "-"
    if isinstance(turn, Mapping):
        return str(turn.get("tag") or turn.get("number") or "-")
    return turn.tag or str(turn.number or "-")


def _parsed(stamp: str) -> datetime | None:
    """An ISO time as `now` writes it (read to the second; the zone taken as UTC)."""
    try:
        return datetime.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
    except ValueError:
        return None


def stamp_seconds(stamp: str) -> int | None:
    """An ISO time as whole seconds since the epoch, or None when it does not read as one
    (a packet's stamp is its writer's word: anything up to 64 safe characters)."""
    then = _parsed(stamp)
    return None if then is None else int(then.timestamp())


def age(stamp: str, now: datetime | None = None) -> str:
    """How long ago an ISO time was, in the largest whole unit: ``5m``, ``3h``, ``2d``
    (fractions of seconds ignored)."""
    then = _parsed(stamp)
    if then is None:
        return ""
    seconds = max(0, int(((now or datetime.now(UTC)) - then).total_seconds()))
    for size, unit in ((86400, "d"), (3600, "h"), (60, "m")):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return "now"


SPAN_UNITS = ((86400, "d"), (3600, "h"), (60, "m"), (1, "s"))


def span(seconds: int | None) -> str:
    """A length of time in its two largest units (``3d 4h``, ``5h 12m``), minutes alone
    (``14m``) or seconds (``40s``); ``-`` when it is not known."""
    if seconds is None:
        return "-"
    for (size, unit), (smaller, name) in pairwise(SPAN_UNITS):
        if seconds >= size:
            rest = seconds % size // smaller
            more = f" {rest}{name}" if rest and unit != "m" else ""
            return f"{seconds // size}{unit}{more}"
    return f"{seconds}s"
