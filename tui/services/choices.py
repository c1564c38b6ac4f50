"""What this home's seat may do now in a game, and a search of its board: the records behind
``hexpost choices`` and ``hexpost find``.

Both come from the ruleset's face alone (`engine.core.choices`): the order kinds of the step
owed with a template each, the ruleset's lists of legal values (`engine.core.choices.Lists`),
and its search (`engine.core.choices.Finder`, or the neutral one over the board). Nothing
here knows a ruleset; a game not begun yet (no rules state) is refused by name.
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core.choices import ChoicesView, Finding, choices_view, find_of
from engine.core.errors import HexpostError
from engine.core.face import destinations_of
from engine.core.owed import pending
from saves.news import seat_names, waits, waits_words
from saves.registry import face_for
from saves.replica import GameRow, Replica


def _rules(replica: Replica, row: GameRow) -> Any:
    state = replica.state(row.game_id)
    if state.rules is None:
        raise HexpostError(f"game {row.name} has not begun: {_awaited(replica, row, state)}")
    return state.rules


def _awaited(replica: Replica, row: GameRow, state: Any) -> str:
    """What a game not begun waits for, in the games list's words (`saves.news.waits`): the
    join of a seat that has not joined (the rules begin with the last join, before the
    creator accepts its key); an invited home that has not joined is told the command that
    joins."""
    if row.status == "invited":
        return f"you were invited and have not joined: `hexpost accept {row.name}` joins it"
    owed = pending(replica.ruleset(row.game_id), state)
    return "it " + waits_words(waits(owed, row.my_seat, seat_names(state)))


def choices(replica: Replica, row: GameRow) -> ChoicesView:
    """What ``row``'s seat of this home may do now: nothing unless the game's first pending
    decision is the seat's (after its secret choice is committed, the other seat's)."""
    rules = _rules(replica, row)
    owed = pending(replica.ruleset(row.game_id), replica.state(row.game_id))
    may_act = bool(owed) and row.my_seat in owed[0].seats
    return choices_view(face_for(row.ruleset), rules, row.my_seat, may_act=may_act)


def find(replica: Replica, row: GameRow, text: str) -> tuple[Finding, ...]:
    """The pieces, groups and places of ``row`` matching ``text``; refused when nothing
    does, so a script sees exit 1 rather than an empty list it might misread."""
    if not text.strip():
        raise HexpostError("find: give a unit id, class, fleet, hex or planet to look for")
    rules = _rules(replica, row)
    found = find_of(face_for(row.ruleset), rules, row.my_seat, text)
    if not found:
        raise HexpostError(
            f"nothing in game {row.name} matches {text!r} (a unit id, class, fleet, hex or "
            "planet name)"
        )
    return found


class Destinations(msgspec.Struct, frozen=True):
    """Where an order moving some pieces may go now (``hexpost choices --to``): ``hexes``
    as the order writes them; for an order drawing a path, the hexes one past ``path``."""

    order: str
    pieces: tuple[str, ...]
    path: tuple[str, ...]
    hexes: tuple[str, ...]
    why: str
    """When ``hexes`` is empty, the rules' reason (with its rule), else ""."""
    fills: tuple[tuple[str, str], ...]
    """What the order needs besides, as the app drafts it (F&E: a withdrawal's flagship)."""
    note: str
    """A line to read with the hexes (F&E: the strategic moves left free), or ""."""


def destinations(
    replica: Replica, row: GameRow, order: str, pieces: list[str], path: list[str]
) -> Destinations:
    """The face's destinations of ``order`` for ``pieces`` (`engine.core.face.Destinations`);
    refused, naming the order, when the ruleset lists none for it."""
    rules = _rules(replica, row)
    found = destinations_of(face_for(row.ruleset), rules, row.my_seat, order, pieces, path)
    if found is None:
        raise HexpostError(
            f"choices --to: the {row.ruleset} ruleset lists no destinations for {order!r} "
            "orders (write the order and `hexpost orders --dry-run` checks it)"
        )
    return Destinations(
        order, tuple(pieces), tuple(path), found.hexes, found.why, found.fills, found.note
    )
