"""Units found by id in a tuple sorted by id, without an index of every unit.

A move order names a stack of units on a board of thousands: building the board's index
by id (`engine.fe.forces.Board.unit`) to find them costs a reading of every unit, the
largest cost of a movement packet that grows with the units that stay put. A bisection per
unit costs a dozen readings of a unit's id each (as much as the index, for a packet's
stacks); but a stack's ids stand near each other in id order (a fleet's follow each other,
or lie at even gaps among copies'), so each unit is first looked for where the one before
it was, as far on as the gap between the two before it, and bisected for only when not
there.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from operator import attrgetter
from typing import Protocol, TypeVar


class _HasId(Protocol):
    @property
    def id(self) -> str: ...


T = TypeVar("T", bound=_HasId)

_ID = attrgetter("id")


def found_by_id(
    units: Sequence[T], unit_ids: Iterable[str], *, skip_missing: bool = False
) -> list[T]:
    """The units of these ids in ``units`` (strictly increasing ids), in the order of the
    ids; KeyError for an id not there, or with ``skip_missing`` no unit for it."""
    found: list[T] = []
    n = len(units)
    at = -1  # where the last unit was (none yet)
    gap = 1
    for uid in unit_ids:
        guess = at + gap  # as far on as the last unit was from the one before it
        if not (0 <= guess < n and units[guess].id == uid):
            guess = bisect_left(units, uid, key=_ID)
            if guess == n or units[guess].id != uid:
                if skip_missing:
                    continue
                raise KeyError(uid)
        gap = guess - at if at >= 0 else 1
        at = guess
        found.append(units[at])
    return found
