"""What one packet changed on the board, in plain words, from two boards of the ruleset's face.

The review screen shows a packet's events, but events say what a player *ordered* (a move,
a build); they do not always say everything that *happened* to the board as a result
(a unit destroyed in combat, a treasury paid by the engine, a hex captured). Comparing the
board (`engine.core.face.Board`: sides with their facts, pieces with their hex and marks,
places with their owner) before and after the packet catches all of it without knowing any
rule or any ruleset: it is a plain diff of two typed records, so it is pure, cheap, and
tested without a terminal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from engine.core.face import Board, Fact, Piece

KIND_ORDER = (
    "moved",
    "placed",
    "left",
    "crippled",
    "repaired",
    "destroyed",
    "built",
    "captured",
    "fact",
)
"""How the list is sorted: movement first (what the eye looks for on the map), a side's
figures (a treasury) last."""

CRIPPLED = "crippled"
"""The piece mark the diff words as crippled and repaired."""

_AMOUNT = re.compile(r"(-?[0-9]+(?:\.[0-9]+)?)(?: (\S.*))?")
"""A fact's value as a number with an optional unit after a space (``"9 EP"``, ``"12"``)."""


@dataclass(frozen=True)
class Change:
    """One thing that differs: its ``kind`` (one of `KIND_ORDER`), a line of text, and the
    hexes it concerns (so the screen can take the map cursor there)."""

    kind: str
    text: str
    hexes: tuple[int, ...] = ()


def diff(before: Board | None, after: Board | None) -> list[Change]:
    """The changes from ``before`` to ``after`` (None: no board, as in a game not started
    yet; the first board is summed up in one line, not piece by piece)."""
    if after is not None and after.pieces and (before is None or not before.pieces):
        return [Change("built", f"the board is laid out: {len(after.pieces)} units")]
    old_pieces = {p.id: p for p in before.pieces} if before is not None else {}
    new_pieces = {p.id: p for p in after.pieces} if after is not None else {}
    changes: list[Change] = []
    for piece_id, new in new_pieces.items():
        old = old_pieces.get(piece_id)
        if old is None:
            changes.append(_built(new))
            continue
        changes.extend(_piece_changes(old, new))
    for piece_id, old in old_pieces.items():
        if piece_id not in new_pieces:
            where = _where(old.hex)
            changes.append(Change("destroyed", f"{_name(old)} destroyed{where}", _hexes(old)))
    changes.extend(_captures(before, after))
    changes.extend(_facts(before, after))
    order = {kind: n for n, kind in enumerate(KIND_ORDER)}
    return sorted(changes, key=lambda c: order[c.kind])


def _piece_changes(old: Piece, new: Piece) -> list[Change]:
    out = []
    was, now = old.hex, new.hex
    if was != now:
        if was is None:
            out.append(Change("placed", f"{_name(new)} placed in {now}", _hexes(new)))
        elif now is None:
            out.append(Change("left", f"{_name(new)} left the map from {was}", _hexes(old)))
        else:
            hexes = (*_hexes(new), *_hexes(old))
            out.append(Change("moved", f"{_name(new)} moved {was}->{now}", hexes))
    if CRIPPLED not in old.marks and CRIPPLED in new.marks:
        out.append(Change("crippled", f"{_name(new)} crippled{_where(now)}", _hexes(new)))
    elif CRIPPLED in old.marks and CRIPPLED not in new.marks:
        out.append(Change("repaired", f"{_name(new)} repaired{_where(now)}", _hexes(new)))
    return out


def _built(piece: Piece) -> Change:
    where = f" in {piece.hex}" if piece.hex else " (off the map)"
    return Change("built", f"{_name(piece)} new{where}", _hexes(piece))


def _captures(before: Board | None, after: Board | None) -> list[Change]:
    """Places whose owner changed (only places both boards list: the first board is no news)."""
    if before is None or after is None:
        return []
    old_places = {p.hex: p for p in before.places}
    out = []
    for new in after.places:
        old = old_places.get(new.hex)
        if old is not None and old.owner != new.owner:
            text = f"hex {new.hex} now {new.owner or '-'} (was {old.owner or '-'})"
            out.append(Change("captured", text, _hex_number(new.hex)))
    return out


def _facts(before: Board | None, after: Board | None) -> list[Change]:
    """Each side's figures that changed (a treasury, units on the map), in the side's words."""
    if before is None or after is None:
        return []
    old_sides = {side.id: side for side in before.sides}
    out = []
    for side in after.sides:
        old = old_sides.get(side.id)
        if old is None:
            continue
        old_facts = {fact.label: fact for fact in old.facts}
        for fact in side.facts:
            was = old_facts.get(fact.label)
            if was is not None and was.value != fact.value:
                out.append(Change("fact", f"{side.id} {fact.label} {fact_change(was, fact)}"))
    return out


def fact_change(was: Fact, now: Fact) -> str:
    """``9->18 (+9)`` for two amounts in the same unit (the unit, the same on both sides,
    is left out); ``old->new`` for anything else."""
    old, new = _AMOUNT.fullmatch(was.value), _AMOUNT.fullmatch(now.value)
    if old is None or new is None or old.group(2) != new.group(2):
        return f"{was.value}->{now.value}"
    try:
        delta = Decimal(new.group(1)) - Decimal(old.group(1))
    except InvalidOperation:
        return f"{was.value}->{now.value}"
    return f"{old.group(1)}->{new.group(1)} ({number_text(delta, signed=True)})"


def number_text(value: Decimal, *, signed: bool = False) -> str:
    """A number as players write it: ``9``, ``-2.5``, ``+0.5`` when signed."""
    sign = "-" if value < 0 else ("+" if signed else "")
    text = format(abs(value).normalize(), "f")
    return f"{sign}{text}"


def _name(piece: Piece) -> str:
    return f"{piece.id} {piece.kind}"


def _where(hex_id: str | None) -> str:
    return f" in {hex_id}" if hex_id else ""


def _hexes(piece: Piece) -> tuple[int, ...]:
    return _hex_number(piece.hex) if piece.hex else ()


def _hex_number(hex_id: str) -> tuple[int, ...]:
    """The map widget's number for a hex id written in digits (``"1307"`` is 1307)."""
    return (int(hex_id),) if hex_id.isdigit() else ()
