"""What a client needs from a ruleset: typed records to draw a game and build its menus from.

The protocol core (`engine.core.ruleset.Ruleset`) needs only state, pending decisions,
legality and application. A client needs more, and must not dig into a ruleset's state or
modules to get it: a `Face` gives the summary line (whatever the game calls its turn and
step), the board (a hex board of any size and numbering, or none), what the seat may do now
(each order type with its parameters, so forms and menus are built from data), the sequence
of play as a checklist when the game has one, and plain words for an order. Events already
carry their plain words (`engine.core.ruleset.Event.text`).

Every record is a frozen msgspec struct of plain values, so ``msgspec.to_builtins`` gives the
JSON the command line prints and a test compares records whole. Nothing here names a game:
a strategic game's nations are a board's *sides*, its units the *pieces*, its planets and
bases the *features* of a place.
"""

from __future__ import annotations

import enum
import types
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar, Union, get_args, get_origin

import msgspec

from engine.core.ruleset import Actor, Event, Seat, StepKind


class Fact(msgspec.Struct, frozen=True):
    """A labelled value a ruleset wants shown (``"treasury"``: ``"37.5"``)."""

    label: str
    value: str


class Summary(msgspec.Struct, frozen=True):
    """Where a game stands, in the game's own words."""

    turn: int
    """The game's count of turns (or rounds), from 1."""
    turn_label: str
    """How the game names this turn, e.g. ``"Turn 1, Fall"`` or ``"Round 3"``."""
    turn_tag: str = ""
    """The turn in a few characters for subject lines and lists (``"T1 Fall"``, ``"R3"``)."""
    part: str = ""
    """The part of the game being played when it is not the ordinary turn (``"Set-up"``)."""
    step: str | None = None
    step_title: str = ""
    phase: str | None = None
    phase_title: str = ""
    headings: tuple[str, ...] = ()
    """The groups enclosing the step, outermost first."""
    phasing: Seat | None = None
    """The seat whose turn it is, if the game has one."""
    waiting_for: tuple[Seat, ...] = ()
    over: bool = False
    facts: tuple[Fact, ...] = ()


class HexGrid(msgspec.Struct, frozen=True):
    """A board of hexes in columns, each column offset half a hex from its neighbours.

    A hex is written as its column then its row, each in ``digits`` digits (``"0307"`` is
    column 3, row 7 with two digits). ``low_columns`` says which columns sit half a hex
    higher: ``"odd"`` or ``"even"``.
    """

    columns: int
    rows: int
    first_column: int = 1
    first_row: int = 1
    digits: int = 2
    low_columns: str = "even"

    def hex_id(self, column: int, row: int) -> str:
        return f"{column:0{self.digits}d}{row:0{self.digits}d}"

    def contains(self, hex_id: str) -> bool:
        """True when ``hex_id`` is written right and lies on the board."""
        if len(hex_id) != 2 * self.digits or not hex_id.isdigit():
            return False
        column, row = int(hex_id[: self.digits]), int(hex_id[self.digits :])
        return (
            self.first_column <= column < self.first_column + self.columns
            and self.first_row <= row < self.first_row + self.rows
        )


class SideStyle(msgspec.Struct, frozen=True):
    """How a side is drawn: a one-character ``glyph`` (the map's owner letter) and counter
    colours (``"#398ee6"``), which only help: the glyph carries the meaning."""

    id: str
    name: str
    short_name: str = ""
    glyph: str = ""
    color: str = ""
    text_color: str = ""


class MapCell(msgspec.Struct, frozen=True):
    """What the printed map shows in one hex: its owner at the start, a zone it lies in
    (``"neutral"``), and its features from a small vocabulary: ``"capital"``,
    ``"major-planet"``, ``"minor-planet"``, ``"base"``."""

    hex: str
    owner: str = ""
    zone: str = ""
    features: tuple[str, ...] = ()


class MapSheet(msgspec.Struct, frozen=True):
    """The printed map of a scenario: grid, sides' looks, and every hex that shows anything."""

    grid: HexGrid
    sides: tuple[SideStyle, ...] = ()
    cells: tuple[MapCell, ...] = ()


class Side(msgspec.Struct, frozen=True):
    """One side on the board (a nation, a fleet) with the seat playing it and its figures."""

    id: str
    name: str
    seat: Seat
    facts: tuple[Fact, ...] = ()


class Piece(msgspec.Struct, frozen=True):
    """A unit, ship or counter: ``hex`` None when it is off the board."""

    id: str
    kind: str
    side: str
    hex: str | None
    marks: tuple[str, ...] = ()
    """Its states in a word each (``"crippled"``, ``"out-of-supply"``, ``"reserve"``);
    ``"base"`` marks a piece that never moves (a starbase, a fortress), ``"immobile"`` one
    that moves only where another carries it, ``"not-released"`` one its group may not move
    yet: a client offers neither first among the pieces to move."""
    group: str = ""
    """The formation it belongs to, if any (a fleet, a squadron)."""


class Place(msgspec.Struct, frozen=True):
    """A hex worth showing: who holds it, what is printed or built there, who is in it."""

    hex: str
    owner: str = ""
    features: tuple[str, ...] = ()
    """Planets, bases, terrain worth a word, in the order to show them."""
    pieces: tuple[str, ...] = ()
    marks: tuple[str, ...] = ()
    """States in a word each (``"battle"``, ``"captured"``, ``"devastated"``)."""


class Board(msgspec.Struct, frozen=True):
    """The board now: its grid (None for a game without a map), sides, pieces and places."""

    grid: HexGrid | None
    sides: tuple[Side, ...] = ()
    pieces: tuple[Piece, ...] = ()
    places: tuple[Place, ...] = ()
    focus: str = ""
    """The place the step in play is about (a battle being fought), where a client opens
    its map rather than on the player's own pieces; "" for none."""


class ParamKind(enum.StrEnum):
    """What kind of value a parameter of an order takes, so a form picks its input."""

    TEXT = "text"
    INTEGER = "integer"
    FLAG = "flag"
    HEX = "hex"
    HEXES = "hexes"
    PIECE = "piece"
    PIECES = "pieces"
    STEP = "step"
    STEPS = "steps"
    TEXTS = "texts"
    PICKS = "picks"
    """A list of texts picked one at a time from the face's stepwise menu (`Face.menu`):
    each pick changes what may follow, so a client asks the face again after each one.
    Typed by hand, it is written as ``texts`` are (``;`` between)."""
    RECORD = "record"
    """A JSON object whose keys and values the parameter's ``entries`` describe (one entry a
    key); the entries left blank are left out."""
    SIDE = "side"
    """One of the board's sides (`Side.id`): a client offers those the seat plays, so a seat
    playing several (an alliance of empires) says which one an order is for."""
    GROUP = "group"
    """A formation of pieces by its name (`Piece.group`: a fleet): an order naming it
    takes every piece of it that the rules allow."""


class Param(msgspec.Struct, frozen=True):
    """One parameter of an order: its name in the order's JSON, its kind, and its limits."""

    name: str
    kind: ParamKind
    required: bool = True
    options: tuple[str, ...] = ()
    """When not empty, the only values allowed (a menu)."""
    help: str = ""
    entries: tuple[Param, ...] = ()
    """For a ``record``: its keys, each a parameter of its own (name, kind, options, help);
    none is required unless it says so."""
    value: str = ""
    """The value in force now, as the order's form writes it, when the order replaces
    something the seat signed earlier (a policy): a form starts from it, so changing one
    field does not drop the others. Empty: nothing in force."""
    suggested: str = ""
    """The engine's own pick, as the order's form writes it, where the rules make one (F&E:
    a battle force as a combat policy's "auto" would choose it): a form with nothing in
    force starts from it, so the player confirms rather than types five ids. Empty: none."""


class Preset(msgspec.Struct, frozen=True):
    """A ready filling of some of an order's parameters, offered as one line of a menu
    (``"KLI D7 (2 slots)"`` fills ``empire`` and ``cls`` of a build)."""

    label: str
    values: tuple[tuple[str, str], ...]


class Choice(msgspec.Struct, frozen=True):
    """An order a seat may give now, with what it asks for."""

    order: str
    """The order's ``type`` in JSON."""
    title: str
    params: tuple[Param, ...] = ()
    rule: str = ""
    presets: tuple[Preset, ...] = ()
    note: str = ""
    """What holds for the order now, in words a form shows above its fields (F&E's build:
    each empire's treasury, schedule and sites), and why no preset is offered when none
    is; "" for nothing to say."""


class MenuItem(msgspec.Struct, frozen=True):
    """One legal next pick of a stepwise menu: the text the order writes, how it reads, and
    what it costs in the game's words (``"8"`` damage points)."""

    value: str
    label: str
    cost: str = ""


class StepMenu(msgspec.Struct, frozen=True):
    """What may be picked next for a ``picks`` parameter, after the picks ``chosen``.

    A client shows ``heading`` and ``remaining`` (what is left to settle, in words), offers
    only ``items``, and lets the list end only when ``can_stop`` (``why_not`` says why not,
    with the rule). ``suggested`` is a whole legal list a client may start from; ``problem``
    says why ``chosen`` itself is not legal (then nothing is offered)."""

    order: str
    param: str
    chosen: tuple[str, ...]
    heading: str
    remaining: str
    items: tuple[MenuItem, ...] = ()
    can_stop: bool = False
    why_not: str = ""
    suggested: tuple[str, ...] = ()
    problem: str = ""


class ChecklistItem(msgspec.Struct, frozen=True):
    """One line of the sequence-of-play checklist as a player sees it now."""

    step: str
    title: str
    phase: str
    actor: Actor
    kind: StepKind
    rules: tuple[str, ...]
    status: str
    """``done``, ``current``, ``todo`` or ``skipped``."""
    phase_title: str = ""
    phase_rule: str = ""
    standing: tuple[str, ...] = ()
    """The seats whose standing order completes this step for them when they owe it."""
    headings: tuple[tuple[str, str], ...] = ()
    """The groups enclosing the step, outermost first, each as (id, title): a standing order
    may name one to cover its steps."""
    obsolete: bool = False
    """A step the rules no longer use (shown skipped): no standing order covers it."""
    policy: tuple[str, ...] = ()
    """The seats whose signed policy answers their part of this step as a rule when they owe
    it (the board may still leave one to its seat: a retreat with no legal hex)."""
    policy_order: str = ""
    """The order that signs a policy able to answer this step ("" when none can): what a
    player who is waited for there signs to be asked no more."""
    orders: tuple[str, ...] = ()
    """The order types the step takes besides ``done`` (`engine.core.sequence.Step.orders`):
    what a player composes there."""


class Landmarks(msgspec.Struct, frozen=True):
    """The kinds of event that open a new part of play (a player turn, a round) and a new
    phase: where a review's "next turn" and "next phase" keys stop."""

    parts: tuple[str, ...] = ()
    phases: tuple[str, ...] = ()


S_contra = TypeVar("S_contra", contravariant=True)


class Face(Protocol[S_contra]):
    """What a client reads of a game, for any ruleset. All methods are pure."""

    def summary(self, state: S_contra) -> Summary:
        """Where the game stands."""
        ...

    def board(self, state: S_contra) -> Board | None:
        """The board now, or None for a game without one."""
        ...

    def map_sheet(self, scenario: str) -> MapSheet | None:
        """The printed map of ``scenario`` (static data), or None for a game without one."""
        ...

    def choices(self, state: S_contra, seat: Seat) -> tuple[Choice, ...]:
        """The orders ``seat`` may give now (empty when it owes nothing). At a secret step
        it is one choice of type ``secret`` whose one parameter, ``choice``, says what the
        hidden choice is (text, a number, a menu)."""
        ...

    def checklist(self, state: S_contra) -> tuple[ChecklistItem, ...]:
        """The sequence of play with each step's status; empty for a game without one."""
        ...

    def order_text(self, order: Any) -> str:
        """An order in plain words, for logs and reviews."""
        ...

    def landmarks(self) -> Landmarks:
        """Which events open a part of play or a phase."""
        ...


class Menus(Protocol[S_contra]):
    """A face that builds some orders' lists step by step (``picks`` parameters): optional,
    since most games need none; `menu_of` asks any face."""

    def menu(
        self, state: S_contra, seat: Seat, order: str, chosen: tuple[str, ...]
    ) -> StepMenu | None:
        """The next picks of order ``order``'s ``picks`` parameter for ``seat`` at the step
        owed now, after ``chosen``; None when the order has no such menu now."""
        ...


def menu_of(
    face: object, state: Any, seat: Seat, order: str, chosen: Sequence[str]
) -> StepMenu | None:
    """``face``'s stepwise menu (`Menus.menu`), or None, the default, for a face with none."""
    menu = getattr(face, "menu", None)
    if not callable(menu):
        return None
    found = menu(state, seat, order, tuple(chosen))
    return found if isinstance(found, StepMenu) else None


class PastSteps(Protocol[S_contra]):
    """A face whose checklist drops a part of play once it is over (F&E's set-up stage) and
    can still give that part's rows, every one done: a report of where a game waited names
    the steps it waited at by their titles even after the checklist let them go. Optional;
    `past_steps_of` asks any face."""

    def past_steps(self, state: S_contra) -> tuple[ChecklistItem, ...]:
        """The rows of the steps behind the game that its checklist no longer holds."""
        ...


def past_steps_of(face: object, state: Any) -> tuple[ChecklistItem, ...]:
    """``face``'s rows of steps its checklist let go (`PastSteps.past_steps`); none, the
    default, for a face whose checklist keeps every step it had."""
    find = getattr(face, "past_steps", None)
    if not callable(find):
        return ()
    found = find(state)
    if not isinstance(found, tuple):
        return ()
    return tuple(item for item in found if isinstance(item, ChecklistItem))


class PlayOn(Protocol[S_contra]):
    """A face that can say where a seat may play on to and still be the one to act: the
    steps a ``done`` through a later step can leave it at (`engine.core.through.own_stops`).
    A client lists those, and no step past one the other seat answers, where the order could
    only stop or be refused. Optional; `own_stops_of` asks any face."""

    def own_stops(self, state: S_contra, seat: Seat) -> list[str]:
        """The steps ``seat`` could be left at, in order: the first reached by a plain
        ``done``, each other by a ``done`` through the one before it (empty when it owes
        nothing, or the step owed needs more than a ``done``)."""
        ...


def own_stops_of(face: object, state: Any, seat: Seat) -> tuple[str, ...] | None:
    """``face``'s steps to play on to (`PlayOn.own_stops`), or None, the default, for a
    face that cannot say (a client then offers every later step)."""
    find = getattr(face, "own_stops", None)
    if not callable(find):
        return None
    found = find(state, seat)
    return tuple(str(step) for step in found) if isinstance(found, list) else None


class Reach(msgspec.Struct, frozen=True):
    """Where an order moving some pieces may go now (`Destinations`): ``hexes`` as the order
    writes them. When there is none, ``why`` says what the rules answered for a hex tried
    (with its rule), so a client can tell the player why rather than show a bare map."""

    hexes: tuple[str, ...] = ()
    why: str = ""
    fills: tuple[tuple[str, str], ...] = ()
    """Other parameters of the order, filled for these pieces (F&E: a withdrawal's flagship
    among the units that stay): ``hexes`` assume them, so a client drafts them with the
    order, where the player still sees and may change them."""
    note: str = ""
    """One line the player should read with the hexes (F&E: the strategic moves left free
    and what the next ones cost)."""


class Destinations(Protocol[S_contra]):
    """A face that can say where a stack order may go once its pieces are chosen: the one
    destination of a long move, or the next hex of a path being drawn. Optional, since most
    orders are checked as written and need no list; `destinations_of` asks any face. A client
    marks those hexes while the player picks one, so a move the rules would refuse is not
    tried by hand."""

    def destinations(
        self,
        state: S_contra,
        seat: Seat,
        order: str,
        pieces: tuple[str, ...],
        path: tuple[str, ...] = (),
    ) -> Reach | None:
        """The hexes an ``order`` moving ``pieces`` may name as its destination at the step
        owed now, each one the rules accept; None when the order has no such list. An order
        placing a group of pieces (a fleet at set-up) names the group as its one piece. For
        an order that takes a path, ``path`` is the part drawn so far (from the pieces'
        hex) and the answer the hexes that may end it one hex further."""
        ...


def destinations_of(
    face: object,
    state: Any,
    seat: Seat,
    order: str,
    pieces: Sequence[str],
    path: Sequence[str] = (),
) -> Reach | None:
    """``face``'s destinations (`Destinations.destinations`), or None, the default, for a
    face or an order without them."""
    find = getattr(face, "destinations", None)
    if not callable(find):
        return None
    found = find(state, seat, order, tuple(pieces), tuple(path))
    return found if isinstance(found, Reach) else None


class Headlines(Protocol):
    """A face that words its own events for a summary of what arrived (`engine.core.news`):
    optional, since `engine.core.news.plain_headline` serves any game; `headline_of` asks
    any face."""

    def headline(self, event: Event) -> str | None:
        """``event`` in a few words for the summary, or None when it is routine (counted,
        not listed)."""
        ...


def headline_of(face: object) -> Callable[[Event], str | None] | None:
    """``face``'s `Headlines.headline`, or None for a face without one (the summary then
    uses `engine.core.news.plain_headline`)."""
    headline = getattr(face, "headline", None)
    return headline if callable(headline) else None


# --- parameters from an order struct ---------------------------------------------------------


def params_of(order_type: type[msgspec.Struct], kinds: dict[str, ParamKind]) -> tuple[Param, ...]:
    """The parameters of a tagged order struct, read from its fields.

    ``kinds`` names the fields whose kind the type alone cannot tell (a string that is a hex,
    a list of strings that are pieces); the rest follow their type: ``str`` is text, ``int``
    an integer, ``bool`` a flag, a list of strings a list of texts.
    """
    params: list[Param] = []
    for field in msgspec.structs.fields(order_type):
        kind = kinds.get(field.encode_name) or _kind_of(field.type)
        required = field.required
        params.append(Param(field.encode_name, kind, required))
    return tuple(params)


def _kind_of(annotation: Any) -> ParamKind:
    base = _strip(annotation)
    if base is bool:
        return ParamKind.FLAG
    if base is int:
        return ParamKind.INTEGER
    if get_origin(base) in (list, tuple):
        return ParamKind.TEXTS
    return ParamKind.TEXT


def _strip(annotation: Any) -> Any:
    """The bare type under ``Annotated`` and ``X | None``."""
    while True:
        origin = get_origin(annotation)
        if origin is not None and getattr(annotation, "__metadata__", None) is not None:
            annotation = get_args(annotation)[0]
            continue
        if origin in (Union, types.UnionType):
            args = [a for a in get_args(annotation) if a is not type(None)]
            if len(args) == 1:
                annotation = args[0]
                continue
        return annotation


def order_words(data: dict[str, Any]) -> str:
    """A generic plain rendering of an order's JSON: ``move units=F1,F2 path=1307,1407``."""
    parts = [str(data.get("type", "?"))]
    for key, value in data.items():
        if key == "type":
            continue
        shown = ",".join(str(v) for v in value) if isinstance(value, list) else str(value)
        parts.append(f"{key}={shown}")
    return " ".join(parts)
