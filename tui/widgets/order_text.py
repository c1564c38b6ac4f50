"""Plain helpers of the orders panel: a draft in words, JSON typed by hand, a choice's parameters.

They hold no widget state, so they live apart from `tui.widgets.orders` (which keeps to the
panel's keys and drafts) and are tested without a terminal. Like the panel they know no
ruleset: a choice is read through `tui.widgets.order_forms.ChoiceData`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tui.widgets.order_forms import ChoiceData, ParamData, PresetData


def path_text(hexes: Iterable[object]) -> str:
    """A path as ``1607> 1608> 1609``: the space after each step lets the narrow side column
    wrap a long path between two hexes, never inside a hex id (``161`` / ``2``)."""
    return "> ".join(map(str, hexes))


def describe(item: Mapping[str, Any]) -> str:
    """One draft order in plain words, short enough for the side column: ``done`` and
    ``note`` in words, an order naming ``units`` by them (and its ``path`` or ``to``, and
    any other text it names: ``withdraw 3 units to 1103, flagship KZI-0001``), an order of
    plain values by them (``approach accept no``), anything else as its type and JSON."""
    kind = str(item.get("type", "?"))
    if kind == "done":
        through = f" through {item['through']}" if item.get("through") else ""
        note = f": {item['note']}" if item.get("note") else ""
        return f"done{through}{note}"
    if kind == "note":
        return f"note: {item.get('text', '')}"
    steps = item.get("steps")
    if kind == "standing" and isinstance(steps, list) and list(item) == ["type", "steps"]:
        return f"standing: {', '.join(map(str, steps))}" if steps else "standing: none (cancels it)"
    units = item.get("units")
    if isinstance(units, list) and units:
        who = units[0] if len(units) == 1 else f"{len(units)} units"
        extra = "".join(
            f", {key} {value}"
            for key, value in item.items()
            if key not in ("type", "units", "path", "to") and isinstance(value, str) and value
        )  # (a withdrawal's flagship: the player sees what the draft names)
        if isinstance(item.get("path"), list):
            return f"{kind} {who} {path_text(item['path'])}{extra}"
        if "to" in item:
            return f"{kind} {who} to {item['to']}{extra}"
        return f"{kind} {who}{extra}"
    if list(item) == ["type", "to"] and isinstance(item["to"], str):
        return f"{kind} to {item['to']}"  # (a retreat: the side's ships, to one hex)
    rest = {key: value for key, value in item.items() if key != "type"}
    if rest and all(isinstance(value, str | int) or _texts(value) for value in rest.values()):
        return f"{kind} " + ", ".join(
            f"{key}: {', '.join(value)}" if isinstance(value, list) else f"{key} {_word(value)}"
            for key, value in rest.items()
        )  # (an allocation's losses: "allocate losses: cripple KZI-0002, destroy KZI-0005")
    # Spaces after the commas: the side column wraps there, not inside an id ("KZ" / "I-0002").
    return f"{kind} {json.dumps(rest, separators=(', ', ': '))}" if rest else kind


def _texts(value: object) -> bool:
    """A list of texts, not empty (an allocation's losses)."""
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)


def _word(value: str | int) -> str:
    """A scalar as the panel says it: a flag as yes or no (``approach accept no``)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def parse_items(text: str) -> list[dict[str, Any]]:
    """Orders typed as JSON: one object, a list of them, or an orders document pasted whole
    (``{"orders": [...]}``). `ValueError` says what is wrong."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc.msg} at column {exc.colno}") from None
    except RecursionError:  # (the parser recurses per level: pasted nonsense)
        raise ValueError("not JSON: nested too deeply") from None
    if isinstance(value, dict) and list(value) == ["orders"]:
        value = value["orders"]  # (an orders document, as `hexpost orders` reads it)
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(i, dict) and "type" in i for i in items):
        raise ValueError('an order is a JSON object with a "type", e.g. {"type": "done"}')
    return items


def param_named(choice: ChoiceData, kind: str, *, required: bool = False) -> str | None:
    """The name of ``choice``'s first parameter of ``kind`` (required ones only if asked)."""
    return next(
        (p.name for p in choice.params if p.kind == kind and (p.required or not required)),
        None,
    )


def placement_items(
    choice: ChoiceData, waiting: Sequence[tuple[str, str, str]]
) -> list[tuple[str, str, bool]]:
    """What a placement may put on the board, as menu lines (label, value, ticked): each
    group of waiting pieces (when the choice names groups, value ``g:NAME``), then each
    waiting piece (when it names pieces, ``p:ID``). ``waiting`` are the seat's pieces off the
    board as (id, kind, group). Where the choice's fields list the values they take, only
    those are offered: a seat may play several sides, and only one of them places now, its
    groups named as another side's may be (F&E's Home Fleet)."""
    group, piece = param_named(choice, "group"), param_named(choice, "piece")
    allowed = {p.name: set(p.options) for p in choice.params if p.options}
    if piece is not None and piece in allowed:
        waiting = [w for w in waiting if w[0] in allowed[piece]]
    items: list[tuple[str, str, bool]] = []
    if group is not None:
        groups: dict[str, list[str]] = {}
        for ident, kind, name in waiting:
            if name and (group not in allowed or name in allowed[group]):
                groups.setdefault(name, []).append(f"{ident} {kind}".strip())
        for name, members in groups.items():
            items.append((f"{name}: {len(members)}, {', '.join(members)}", f"g:{name}", False))
    if piece is not None:
        items += [(f"{i} {k}".strip(), f"p:{i}", False) for i, k, _ in waiting]
    return items


def is_placement(choice: ChoiceData) -> bool:
    """A choice that puts waiting pieces on the board: one required hex, and the pieces named
    by a group (a fleet) or a piece, neither of them required, and no list of pieces. Its
    hex is chosen on the map like a move's destination (F&E's set-up ``place``)."""
    required = [p.kind for p in choice.params if p.required]
    kinds = {p.kind for p in choice.params}
    return required == ["hex"] and bool(kinds & {"group", "piece"}) and "pieces" not in kinds


def hex_pick(choice: ChoiceData) -> ParamData | None:
    """The hex parameter of a choice whose hex is picked on the map from the face's list:
    one that names no pieces (so asks for no units first) and takes a hex whose values
    the face lists (F&E's retreat, among the hexes next to the battle, 302.72); None for
    any other choice."""
    kinds = {p.kind for p in choice.params}
    if kinds & {"pieces", "group", "piece", "hexes"}:
        return None
    return next((p for p in choice.params if p.kind == "hex" and p.options), None)


@dataclass(frozen=True)
class _Param:
    """A parameter as `ParamData` describes it, built here to give it a menu."""

    name: str
    kind: str
    required: bool
    options: Sequence[str]
    help: str
    entries: Sequence[ParamData]
    value: str
    suggested: str


@dataclass(frozen=True)
class _Choice:
    """A choice as `ChoiceData` describes it, with some parameters given menus."""

    order: str
    title: str
    params: Sequence[ParamData]
    rule: str
    presets: Sequence[PresetData]
    note: str


def with_options(choice: ChoiceData, kind: str, options: Sequence[str]) -> ChoiceData:
    """``choice`` with a menu of ``options`` for each of its parameters of ``kind`` that has
    none (the player's sides for a ``side`` parameter: the empires of a seat that plays
    several); the face's records stay as they are."""
    if not any(p.kind == kind and not p.options for p in choice.params):
        return choice
    params = [
        _Param(p.name, p.kind, p.required, tuple(options), p.help, p.entries, p.value, p.suggested)
        if p.kind == kind and not p.options
        else p
        for p in choice.params
    ]
    return _Choice(choice.order, choice.title, params, choice.rule, choice.presets, choice.note)
