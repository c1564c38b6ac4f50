"""What a seat may do now, listed before it writes an order, and a search of the board.

`engine.core.face.Face.choices` says which orders a step takes and what each asks for. A
player about to write one also wants the values that would pass: which fleets wait to set
up and where they may go, what may be built and at what price, which units may still move
and how far. Those lists are the ruleset's to compute (they are its rules); a face that can
give them implements `Lists` (optional, like `engine.core.face.Menus`), and a client renders
them without knowing the game: each `OptionList` is a titled list of `Option` lines, each
line the order fields it fills (``values``) and facts about it in words.

`choices_view` puts the step, the order kinds with a one-line template each (`template`,
built from the parameters alone) and the ruleset's lists into one record, the one
``hexpost choices --json`` prints. `Finder` is the matching optional search (``hexpost
find``); `search_board` is the neutral fallback over the face's `Board`.

Every function here is pure and reads only what the face hands it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

import msgspec

from engine.core.face import (
    Board,
    Choice,
    Face,
    Fact,
    Param,
    ParamKind,
    destinations_of,
    own_stops_of,
)
from engine.core.ruleset import Seat


class Option(msgspec.Struct, frozen=True):
    """One line of a list: something the seat may do now (a fleet to place, a class to
    build, a unit to move). ``values`` are the order fields it fills as ``(name, value)``;
    ``facts`` what it costs or allows, in the game's words."""

    label: str
    values: tuple[tuple[str, str], ...] = ()
    facts: tuple[Fact, ...] = ()


class OptionList(msgspec.Struct, frozen=True):
    """A titled list of options for one order type (``order``), under ``rule``. ``key`` names
    the list for scripts (``"setup"``, ``"production"``, ``"movement"``); ``notes`` are lines
    that hold for the whole list (the treasury, the limits left)."""

    key: str
    title: str
    order: str
    rule: str = ""
    items: tuple[Option, ...] = ()
    notes: tuple[str, ...] = ()


class OrderKind(msgspec.Struct, frozen=True):
    """An order the current step takes: its ``type``, title, rule and a one-line JSON
    template with a placeholder for each required field; ``optional`` names the rest.
    ``menu`` holds the face's ready-made lines for it (`engine.core.face.Preset`: a label
    and the fields it fills), ``options`` each parameter's menu of values, when the face
    gives them."""

    order: str
    title: str
    rule: str
    template: str
    optional: tuple[str, ...] = ()
    menu: tuple[Option, ...] = ()
    options: tuple[tuple[str, tuple[str, ...]], ...] = ()
    destinations: bool = False
    """The face lists where this order may take the pieces it names, once they are chosen
    (`engine.core.face.Destinations`; ``hexpost choices --to``)."""
    now: tuple[tuple[str, str], ...] = ()
    """The values in force (`engine.core.face.Param.value`: the seat's signed policy), which
    a new order of this type replaces whole."""
    fields: tuple[tuple[str, str], ...] = ()
    """What each key of a JSON-object field holds, as ``(field.key, words)`` (the entries of
    a record parameter, `engine.core.face.ParamKind.RECORD`): the one-line template shows
    only their placeholders."""
    picked: str = ""
    """The order as the engine would write it, on one line of JSON, where the face suggests
    values for it (`engine.core.face.Param.suggested`: a battle force); "" where it does
    not, or leaves a required field without one."""
    helps: tuple[tuple[str, str], ...] = ()
    """What each parameter takes, in the face's words (`engine.core.face.Param.help`), as
    ``(name, words)``, for the parameters that have some and are not records (a record's
    keys are in ``fields``): a menu's values alone do not say that a policy's BIR ``-1``
    asks each round."""


class ChoicesView(msgspec.Struct, frozen=True):
    """What ``seat`` may do now: the step it owes (``owes`` false: nothing, and the order
    lists are empty), the order kinds it takes, and the ruleset's lists of legal values."""

    seat: Seat
    owes: bool
    step: str | None
    step_title: str
    orders: tuple[OrderKind, ...] = ()
    lists: tuple[OptionList, ...] = ()
    play_on: tuple[str, ...] = ()
    """The later steps a ``done`` can leave the seat at, still the one to act
    (`engine.core.face.PlayOn`): the first by a plain ``done``, each other by a ``done``
    through the one before it. Empty when the face cannot say or nothing is owed."""


class Finding(msgspec.Struct, frozen=True):
    """A piece (or a place without one) that matched a search. ``matched`` says what the
    text matched (``"piece"``, ``"kind"``, ``"group"``, ``"hex"``, ``"place"``); ``piece`` is
    empty for a place with no piece in it; ``marks`` are the piece's states in a word each;
    ``note`` a short word on the place (its features) or the piece."""

    matched: str
    hex: str | None
    side: str
    piece: str = ""
    kind: str = ""
    group: str = ""
    marks: tuple[str, ...] = ()
    note: str = ""


S_contra = TypeVar("S_contra", contravariant=True)


class Lists(Protocol[S_contra]):
    """A face that lists the legal values of the orders a seat owes (optional: `lists_of`
    asks any face)."""

    def lists(self, state: S_contra, seat: Seat) -> tuple[OptionList, ...]:
        """The lists for the orders ``seat`` owes now (empty when it owes nothing)."""
        ...


class Finder(Protocol[S_contra]):
    """A face with its own search of the game (optional: `find_of` falls back on
    `search_board`)."""

    def find(self, state: S_contra, seat: Seat, text: str) -> tuple[Finding, ...]:
        """Pieces, groups and places matching ``text``, case-insensitively."""
        ...


PLACEHOLDERS: dict[ParamKind, Any] = {
    ParamKind.TEXT: "TEXT",
    ParamKind.INTEGER: 0,
    ParamKind.FLAG: False,
    ParamKind.HEX: "HEX",
    ParamKind.HEXES: ["HEX", "HEX"],
    ParamKind.PIECE: "UNIT",
    ParamKind.PIECES: ["UNIT"],
    ParamKind.STEP: "STEP",
    ParamKind.STEPS: ["STEP"],
    ParamKind.TEXTS: ["TEXT"],
    ParamKind.PICKS: ["TEXT"],
    ParamKind.RECORD: {},
}
"""What a template writes for a required field of each kind."""


def template(choice: Choice) -> OrderKind:
    """``choice`` as an order kind: ``{"type": ..., FIELD: PLACEHOLDER}`` on one line, with
    a placeholder for each required field (a field with a menu shows its first value), and
    its ready-made lines and its parameters' menus."""
    data: dict[str, Any] = {"type": choice.order}
    optional: list[str] = []
    fields: list[tuple[str, str]] = []
    for param in choice.params:
        if not param.required:
            optional.append(param.name)
            continue
        data[param.name] = _placeholder(param)
        for entry in param.entries:  # (a record: its keys, the optional ones named too)
            name = f"{param.name}.{entry.name}"
            fields.append((name if entry.required else f"{name} (optional)", entry.help))
    line = json.dumps(data, ensure_ascii=True)
    menu = tuple(Option(p.label, p.values) for p in choice.presets)
    options = tuple((p.name, p.options) for p in choice.params if p.options)
    now = tuple((p.name, p.value) for p in choice.params if p.value)
    helps = tuple((p.name, p.help) for p in choice.params if p.help and p.kind != ParamKind.RECORD)
    return OrderKind(
        choice.order,
        choice.title,
        choice.rule,
        line,
        tuple(optional),
        menu,
        options,
        now=now,
        picked=_picked(choice),
        fields=tuple(fields),
        helps=helps,
    )


def _picked(choice: Choice) -> str:
    """``choice`` written with the face's suggested values (`OrderKind.picked`), or ""."""
    if not any(p.suggested or any(e.suggested for e in p.entries) for p in choice.params):
        return ""
    data: dict[str, Any] = {"type": choice.order}
    for param in choice.params:
        if param.entries:
            record = {e.name: _typed(e, e.suggested) for e in param.entries if e.suggested}
            if record:
                data[param.name] = record
        elif param.suggested:
            data[param.name] = _typed(param, param.suggested)
        if param.required and param.name not in data:
            return ""
    return json.dumps(data, ensure_ascii=True)


ID_LISTS = (ParamKind.HEXES, ParamKind.PIECES, ParamKind.STEPS)
TEXT_LISTS = (ParamKind.TEXTS, ParamKind.PICKS)


def _typed(param: Param, text: str) -> Any:
    """A suggested value as the order's JSON holds it (as a form writes it): a list of ids
    split on spaces, a list of texts on ";", a whole number as a number, else the text."""
    if param.kind in ID_LISTS:
        return text.split()
    if param.kind in TEXT_LISTS:
        return [part.strip() for part in text.split(";") if part.strip()]
    if param.kind == ParamKind.INTEGER and text.lstrip("-").isdigit():
        return int(text)
    return text


def _placeholder(param: Param) -> Any:
    """What the template writes for the required ``param``: its menu's first value where
    that is one, a record's required keys each with its own placeholder, else the kind's."""
    first = param.options[0] if param.options else ""
    if first and param.kind in (ParamKind.TEXT, ParamKind.HEX, ParamKind.PIECE):
        return first
    if param.kind == ParamKind.INTEGER and first.lstrip("-").isdigit():
        return int(first)
    if param.kind == ParamKind.RECORD:
        return {e.name: _placeholder(e) for e in param.entries if e.required}
    return PLACEHOLDERS.get(param.kind, "TEXT")


def lists_of(face: object, state: Any, seat: Seat) -> tuple[OptionList, ...]:
    """``face``'s lists for ``seat`` (`Lists`), or none for a face without them."""
    method = getattr(face, "lists", None)
    if not callable(method):
        return ()
    found = method(state, seat)
    return tuple(item for item in found if isinstance(item, OptionList))


def choices_view(face: Face[Any], state: Any, seat: Seat, *, may_act: bool = True) -> ChoicesView:
    """What ``seat`` may do now, from ``face`` alone; not ``may_act``: the core says the seat
    owes nothing, whatever the rules state says (a secret choice already committed, which
    only the core's state records), and none of its orders are listed."""
    summary = face.summary(state)
    choices = face.choices(state, seat) if may_act else ()
    owes = seat in summary.waiting_for and bool(choices)
    return ChoicesView(
        seat=seat,
        owes=owes,
        step=summary.step,
        step_title=summary.step_title,
        orders=tuple(_with_destinations(face, state, seat, template(c)) for c in choices),
        lists=lists_of(face, state, seat) if owes else (),
        play_on=(own_stops_of(face, state, seat) or ()) if owes else (),
    )


def _with_destinations(face: object, state: Any, seat: Seat, kind: OrderKind) -> OrderKind:
    """``kind``, saying whether the face lists its destinations (asked with no pieces, the
    face answers without checking any order)."""
    if destinations_of(face, state, seat, kind.order, ()) is None:
        return kind
    return msgspec.structs.replace(kind, destinations=True)


def find_of(face: Face[Any], state: Any, seat: Seat, text: str) -> tuple[Finding, ...]:
    """What matches ``text``: the face's own search (`Lists`) when it has one, else
    `search_board` over its board."""
    method = getattr(face, "find", None)
    if callable(method):
        found = method(state, seat, text)
        return tuple(item for item in found if isinstance(item, Finding))
    board = face.board(state)
    return search_board(board, text) if board is not None else ()


def search_board(board: Board, text: str) -> tuple[Finding, ...]:
    """Pieces whose id, kind or group matches ``text`` (case-insensitively: an id or kind
    exactly, a group or an id by a part of it), and every piece in a hex named exactly;
    a hex with no piece is listed by itself. Exact matches come first."""
    needle = text.strip().casefold()
    if not needle:
        return ()
    exact: list[Finding] = []
    partial: list[Finding] = []
    for piece in board.pieces:
        how = _match(needle, piece.id, piece.kind, piece.group, piece.hex or "")
        if how is None:
            continue
        matched, is_exact = how
        row = Finding(matched, piece.hex, piece.side, piece.id, piece.kind, piece.group,
                      piece.marks)  # fmt: skip
        (exact if is_exact else partial).append(row)
    if not exact and not partial:
        for place in board.places:
            if place.hex.casefold() == needle:
                exact.append(Finding("hex", place.hex, place.owner, note=", ".join(place.features)))
    return tuple(exact + partial)


def _match(needle: str, ident: str, kind: str, group: str, hex_id: str) -> tuple[str, bool] | None:
    """What of a piece ``needle`` matches, and whether exactly; None: nothing."""
    if ident.casefold() == needle:
        return "piece", True
    if kind.casefold() == needle:
        return "kind", True
    if hex_id and hex_id == needle:
        return "hex", True
    if group and group.casefold() == needle:
        return "group", True
    if group and needle in group.casefold():
        return "group", False
    if needle in ident.casefold():
        return "piece", False
    return None


def names(items: Sequence[Finding]) -> tuple[str, ...]:
    """The pieces of ``items``, in order, without repeats (a test's and a script's view)."""
    return tuple(dict.fromkeys(f.piece for f in items if f.piece))
