"""What one packet changed on the board, in plain words, from two ``views`` records.

The review screen shows a packet's events, but events say what a player *ordered* (a move,
a build); they do not always say everything that *happened* to the board as a result
(a unit destroyed in combat, a treasury paid by the engine, a hex captured). Comparing the
``views`` record (`engine.fe.views`, the part of `render.show_record` the map draws) before
and after the packet catches all of it without knowing any rule: it is a plain diff of two
JSON-ready dicts, so it is pure, cheap, and tested without a terminal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

KIND_ORDER = (
    "moved",
    "placed",
    "left",
    "crippled",
    "repaired",
    "destroyed",
    "built",
    "captured",
    "treasury",
)
"""How the list is sorted: movement first (what the eye looks for on the map), money last."""


@dataclass(frozen=True)
class Change:
    """One thing that differs: its ``kind`` (one of `KIND_ORDER`), a line of text, and the
    hexes it concerns (so the screen can take the map cursor there)."""

    kind: str
    text: str
    hexes: tuple[int, ...] = ()


def diff(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> list[Change]:
    """The changes from ``before`` to ``after`` (each a ``views`` record or None: a game not
    started yet has no board: the first board is summed up in one line, not unit by unit)."""
    if after and "units" in after and not (before and "units" in before):
        count = len(after["units"])
        return [Change("built", f"the board is laid out: {count} units")]
    old_units = _by(before, "units", "id")
    new_units = _by(after, "units", "id")
    changes: list[Change] = []
    for unit_id, new in new_units.items():
        old = old_units.get(unit_id)
        if old is None:
            changes.append(_built(new))
            continue
        changes.extend(_unit_changes(old, new))
    for unit_id, old in old_units.items():
        if unit_id not in new_units:
            where = _where(old.get("hex"))
            changes.append(Change("destroyed", f"{_name(old)} destroyed{where}", _hexes(old)))
    changes.extend(_captures(before, after))
    changes.extend(_treasuries(before, after))
    order = {kind: n for n, kind in enumerate(KIND_ORDER)}
    return sorted(changes, key=lambda c: order[c.kind])


def _unit_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    out = []
    was, now = old.get("hex"), new.get("hex")
    if was != now:
        if was is None:
            out.append(Change("placed", f"{_name(new)} placed in {now}", _hexes(new)))
        elif now is None:
            out.append(Change("left", f"{_name(new)} left the map from {was}", _hexes(old)))
        else:
            hexes = (*_hexes(new), *_hexes(old))
            out.append(Change("moved", f"{_name(new)} moved {was}->{now}", hexes))
    if not old.get("crippled") and new.get("crippled"):
        out.append(Change("crippled", f"{_name(new)} crippled{_where(now)}", _hexes(new)))
    elif old.get("crippled") and not new.get("crippled"):
        out.append(Change("repaired", f"{_name(new)} repaired{_where(now)}", _hexes(new)))
    return out


def _built(unit: Mapping[str, Any]) -> Change:
    where = f" in {unit['hex']}" if unit.get("hex") else " (off the map)"
    return Change("built", f"{_name(unit)} new{where}", _hexes(unit))


def _captures(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> list[Change]:
    """Hexes whose owner changed (only hexes both records list: the first board is no news)."""
    if before is None or "hexes" not in before:
        return []
    old_hexes = _by(before, "hexes", "hex")
    out = []
    for key, new in _by(after, "hexes", "hex").items():
        old = old_hexes.get(key)
        if old is not None and old.get("owner") != new.get("owner"):
            text = f"hex {key} now {new.get('owner') or '-'} (was {old.get('owner') or '-'})"
            out.append(Change("captured", text, (int(key),)))
    return out


def _treasuries(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> list[Change]:
    old_empires = _by(before, "empires", "empire")
    out = []
    for empire, new in _by(after, "empires", "empire").items():
        old = old_empires.get(empire)
        if old is None or old.get("treasury2") == new.get("treasury2"):
            continue
        delta = ep_text(int(new["treasury2"]) - int(old["treasury2"]), signed=True)
        out.append(
            Change("treasury", f"{empire} treasury {old['treasury']}->{new['treasury']} ({delta})")
        )
    return out


def ep_text(halves: int, *, signed: bool = False) -> str:
    """EP counted in halves as players write them: ``9``, ``-2.5``, ``+0.5`` when signed."""
    sign = "-" if halves < 0 else ("+" if signed else "")
    whole, half = divmod(abs(halves), 2)
    return f"{sign}{whole}{'.5' if half else ''}"


def _by(record: Mapping[str, Any] | None, part: str, key: str) -> dict[str, Mapping[str, Any]]:
    if not record:
        return {}
    return {str(item[key]): item for item in record.get(part, [])}


def _name(unit: Mapping[str, Any]) -> str:
    return f"{unit['id']} {unit['class']}"


def _where(hex_id: Any) -> str:
    return f" in {hex_id}" if hex_id else ""


def _hexes(unit: Mapping[str, Any]) -> tuple[int, ...]:
    return (int(unit["hex"]),) if unit.get("hex") else ()
