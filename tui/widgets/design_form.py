"""The ship design form: one text field per design input, the derived figures beside them.

A player designing a ship tries values and watches what they do: the habitable space of a
size, what armor a speed allows. So the form hands the values to its ``answer`` at every
keystroke, before the key's frame is drawn, and the screen answers with what the design
procedure made of them (`DesignForm.show`): the figures, and each complaint on the line
under the field it is about (a value that is no number or out of its range, or a rule the
design breaks). The form itself checks nothing and imports no engine: the fields and the
results arrive as data (`FieldData`, `FigureData`, which `engine.design.InputField` and
`tui.services.designs.FigureLine` satisfy as they are).

Layout for 80x24: the inputs on the left and the figures on the right, each in its own
scrolling column, so the figures stay in view while the inputs are typed. A key typed is
one layout and one paint of the screen (issue 16, item 5: see `DesignForm._typed`,
`OneLayout` and `FigureList`); `bench/tui_designer.py` measures it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import ClassVar, Protocol

from rich.cells import cell_len
from rich.console import Group
from rich.padding import Padding
from rich.segment import Segment
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.visual import Visual, visualize
from textual.widget import Widget
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from tui.safe_text import safe_text
from tui.widgets.dialog import Dialog


class FieldData(Protocol):
    """One input of the design procedure (`engine.design.InputField`)."""

    @property
    def name(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def minimum(self) -> int: ...
    @property
    def maximum(self) -> int: ...
    @property
    def default(self) -> int: ...
    @property
    def help(self) -> str: ...


class FigureData(Protocol):
    """One derived figure, its value already worded for display."""

    @property
    def key(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def formula(self) -> str: ...
    @property
    def value(self) -> str: ...
    @property
    def unit(self) -> str: ...
    @property
    def note(self) -> str: ...


def value_text(field: FieldData, number: int) -> str:
    """``number`` as field ``field`` shows it: a stat that can go below zero is a modifier,
    written signed as the source writes one (``+2``, ``-3``, ``0``); a count is not."""
    return f"+{number}" if number > 0 and field.minimum < 0 else str(number)


def range_text(field: FieldData) -> str:
    """The allowed values, shown beside the field: ``-10..+10``, ``10..30``."""
    return f"{value_text(field, field.minimum)}..{value_text(field, field.maximum)}"


def figure_head(figure: FigureData) -> str:
    """A figure's first line: its label and value (rounded for display only), with unit."""
    return safe_text(f"{figure.label}: {figure.value} {figure.unit}".rstrip())


def figure_detail(figure: FigureData) -> str:
    """Under it: the formula's name, and the reading chosen where the source is ambiguous."""
    detail = safe_text(figure.formula)
    if figure.note:
        detail += f"\nreading: {safe_text(figure.note)}"
    return detail


Shown = tuple[str, str]
"""One figure as drawn: its head line and its detail (`figure_head`, `figure_detail`)."""


def shown(figure: FigureData) -> Shown:
    """What `FigureList` draws of ``figure`` (two figures that show the same are drawn once)."""
    return figure_head(figure), figure_detail(figure)


def figure_part(part: int, text: str) -> Text | Padding:
    """Part 0 of a figure, its head line; part 1, its detail dimmed and indented under it (a
    wrapped line keeps the indent: Rich's `Padding` gives the hanging indent a text of its
    own could not)."""
    return Text(text) if part == 0 else Padding(Text(text, style="dim"), (0, 0, 0, 2))


def figure_content(figure: Shown) -> Group:
    """A figure's head and detail, one under the other."""
    return Group(*(figure_part(part, text) for part, text in enumerate(figure)))


def figures_content(figures: Sequence[FigureData]) -> Group:
    """Every figure in procedure order, as one renderable (what `FigureList` draws)."""
    return Group(*(figure_content(shown(figure)) for figure in figures))


class OneLayout(Widget):
    """A widget whose new size costs one layout of the screen, not two.

    Textual sets a widget's virtual size in the layout that finds its new size, and that
    setting asks for another layout of the whole screen (`Widget._size_updated`): with an
    error line shown under a field, a verdict of two lines or a longer figure list, every
    key was laid out and painted twice (issue 16, item 5). The size is already right after
    the first; nothing in these widgets needs the second (a scrollbar that appears or goes
    asks for its own layout: `show_vertical_scrollbar` lays out when it changes), so they
    set it without one. Mixed in after the Textual class (Textual takes the CSS type names
    from the first base only: first, it would hide `VerticalScroll`'s own rules)."""

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        return super()._size_updated(size, virtual_size, container_size, layout=False)


class Column(VerticalScroll, OneLayout):
    """A scrolling column of the form."""


class Line(Static, OneLayout):
    """A text of the form that can change its height: the verdict, an error line.

    An empty one takes no line but stays in the layout. Hidden instead (``display``), a
    line coming or going under a field changed the painting order Textual gives every row
    of the column, and all of them were painted again; now only the rows it moves are."""

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if not self.content:
            return 0
        return super().get_content_height(container, viewport, width)


class FigureList(OneLayout):
    """The figures in procedure order, drawn line by line from strips kept between keys.

    A widget per figure (a hundred and fifty widgets laid out again at every key), then one
    `Static` holding `figures_content`, cost tens of ms a key (issue 16, item 5): the
    `Static` was rendered whole at each layout only to learn its height (``height: auto``),
    then again to be painted. Here each figure's head and detail are rendered once at the
    width the layout gives (`Visual.to_strips`, as a `Static` renders them, so the screen is
    the same: `tests/tui/test_design_frames.py` compares the two) and kept until their text,
    the width or the style changes: a key that changes six values renders six head lines.
    The height is the number of lines, so the layout measures without rendering, and a
    change that keeps that number repaints the visible lines without a layout."""

    DEFAULT_CSS = "FigureList { height: auto; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.figures: tuple[Shown, ...] = ()
        self._drawn: dict[tuple[int, str], list[Strip]] = {}
        """The lines of each head and detail shown, by part and text (`figure_part`),
        rendered for ``_drawn_for``."""
        self._drawn_for: tuple[int, object] | None = None
        """The width and the style ``_drawn`` was rendered for."""
        self._strips: list[Strip] | None = None
        """Every line of ``figures`` (None: to be joined again)."""
        self._laid_out: int | None = None
        """The height last given to the layout (None: not laid out yet)."""

    def render(self) -> Group:
        return Group(*(figure_content(figure) for figure in self.figures))

    def show(self, figures: Sequence[FigureData]) -> None:
        """Draw ``figures``: when they fill as many lines as before, a repaint of the lines
        that changed (the others are painted from Textual's own cache), else a layout.

        A line is compared with the one the last `show` drew: every line that differs from
        it was marked here since, or the whole list was (a layout repaints it all), so the
        marks cover every line that differs from what the screen shows."""
        self.figures = tuple(shown(figure) for figure in figures)
        before, self._strips = self._strips, None
        width = self.content_size.width
        after = self.lines(width) if width else []
        if self._laid_out is None or not width or len(after) != self._laid_out:
            self.refresh(layout=True)
        elif before is None or len(before) != len(after):
            self.refresh()
        else:  # a line kept is the same strip (`lines`): one not kept is new
            changed = [
                y for y, (old, new) in enumerate(zip(before, after, strict=True)) if old is not new
            ]
            self.refresh(*(Region(0, y, width, 1) for y in changed))

    def lines(self, width: int) -> list[Strip]:
        """Every figure's lines at ``width`` cells, a strip a line. A head and a detail are
        rendered apart, each kept by its text: a new value changes a head, its formula's
        detail (most of the lines, wrapped and indented) is drawn already."""
        style = self.visual_style
        if self._drawn_for != (width, style):
            self._drawn_for = (width, style)
            self._drawn = {}
            self._strips = None
        if self._strips is None:
            kept = self._drawn
            drawn: dict[tuple[int, str], list[Strip]] = {}
            strips: list[Strip] = []
            for figure in self.figures:
                for part in enumerate(figure):
                    lines = kept.get(part) or drawn.get(part)
                    if lines is None:
                        lines = self._drawn_part(part, width, style)
                    drawn[part] = lines
                    strips.extend(lines)
            self._drawn, self._strips = drawn, strips
        return self._strips

    def _drawn_part(self, part: tuple[int, str], width: int, style: VisualStyle) -> list[Strip]:
        """The lines of one head or detail (`figure_part`) at ``width`` cells.

        A head that fits the width is one strip of its text in the list's style, as Rich
        draws it: made here, it costs about 4 us, against 130 us through Rich (a key changes
        about six heads, most of them out of view). Anything else is drawn as the `Static`
        of `figures_content` draws it, in a group as the list is (a text alone is drawn by
        Textual's own `Content`, marked with selection offsets)."""
        number, text = part
        if not width:
            return []
        if number == 0 and text and "\n" not in text and cell_len(text) <= width:
            return [Strip([Segment(text, style.rich_style)], cell_len(text))]
        visual = visualize(self, Group(figure_part(number, text)))
        return Visual.to_strips(self, visual, width, None, style)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._laid_out = len(self.lines(width))
        return self._laid_out

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        lines = self.lines(width)
        return lines[y] if y < len(lines) else Strip.blank(width, self.visual_style.rich_style)


class FieldRow(Widget):
    """One input's row: its label and its allowed values, drawn by the row itself, with the
    field (its only child) laid over the gap between them.

    A `Horizontal` of a `Label`, the `Input` and a `Static` drew the same cells with four
    widgets a row, and every key that shows or hides a line under a field lays out the
    column and paints the rows it moves: with two widgets a row that costs some 2.5 ms less
    a key (issue 16, item 5). Both texts are muted, as the two widgets' were."""

    LABEL_WIDTH = 15
    """Cells for the label (the longest is 13); the field starts after them."""
    FIELD_WIDTH = 8
    """The field's width; a cell, then the allowed values, follow it."""

    DEFAULT_CSS = f"""
    FieldRow {{ height: 1; layout: horizontal; color: $text-muted; }}
    FieldRow > Input {{ width: {FIELD_WIDTH}; margin-left: {LABEL_WIDTH}; }}
    """

    def __init__(self, field: FieldData) -> None:
        super().__init__()
        self.field = field

    @property
    def range_text(self) -> str:
        """The allowed values shown after the field (`range_text`)."""
        return range_text(self.field)

    def render(self) -> Content:
        label = self.field.label[: self.LABEL_WIDTH].ljust(self.LABEL_WIDTH)
        return Content(f"{label}{'':{self.FIELD_WIDTH}} {self.range_text}")


class DesignForm(Horizontal):
    """The inputs (left) and the figures with the design's verdict (right).

    The verdict keeps two lines even when it says one thing ("a possible design"): a key
    that breaks a rule or mends one turns it from one line to two and back, and each change
    of its height changed the figure column's height, which made Textual draw the column's
    scrollbar again (a third of such a key's paint, issue 16 item 5). The figure column
    always shows its scrollbar: a bad value empties it, and a scrollbar going and coming
    asked a second layout of the screen at each such key."""

    DEFAULT_CSS = """
    DesignForm {
        height: 1fr;
        & #design-inputs { width: 36; height: 1fr; padding: 0 1 0 0; }
        & #design-figures {
            width: 1fr; height: 1fr; border-left: vkey $foreground 30%; overflow-y: scroll;
        }
        & .design-error { height: auto; color: $text-error; padding-left: 2; }
        & #design-verdict { height: auto; min-height: 2; text-style: bold; padding: 0 1; }
        & #design-verdict.-impossible { color: $text-error; }
        & #design-figure-list { height: auto; padding: 0 1; }
    }
    """

    def __init__(
        self,
        fields: Sequence[FieldData],
        answer: Callable[[dict[str, str]], None],
        *,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.fields = list(fields)
        self.answer = answer
        """Called with the values typed (`values`) after any keystroke or a load, before the
        key's frame is drawn; it is to `show` what they make."""
        self._ready = False
        """Set once mounted: a change before then finds fields not yet there to read."""
        self._figures: dict[str, FigureData] = {}
        """The figures shown, by key, in procedure order."""

    def compose(self) -> ComposeResult:
        with Column(id="design-inputs"):
            for field in self.fields:
                with FieldRow(field):
                    yield Input(
                        str(field.default),
                        compact=True,
                        id=f"design-{field.name}",
                        tooltip=field.help,
                    )
                yield Line(
                    "", id=f"design-error-{field.name}", classes="design-error", markup=False
                )
        with Column(id="design-figures"):
            yield Line("", id="design-verdict", markup=False)
            yield FigureList(id="design-figure-list")

    def on_mount(self) -> None:
        for field in self.fields:
            self._show_error(field.name, [])
            field_input = self.query_one(f"#design-{field.name}", Input)
            self.watch(field_input, "value", self._typed, init=False)
        self._ready = True
        self.answer(self.values)

    @property
    def values(self) -> dict[str, str]:
        """Every field's text, stripped, by name."""
        return {
            field.name: self.query_one(f"#design-{field.name}", Input).value.strip()
            for field in self.fields
        }

    def fill(self, values: Mapping[str, object]) -> None:
        """Put ``values`` (a loaded design) in the fields; fields it does not name take their
        defaults. One answer follows, not one per field."""
        self._ready = False
        try:
            for field in self.fields:
                value = values.get(field.name, field.default)
                text = value_text(field, value) if isinstance(value, int) else str(value)
                self.query_one(f"#design-{field.name}", Input).value = text
        finally:
            self._ready = True
        self.answer(self.values)

    def _typed(self) -> None:
        """A field's value changed: answered at once, inside the key's own handling (a watch,
        not the `Input.Changed` message). A message reaches the screen after the field's
        repaint was already asked for, so the figures came one frame (and one layout of the
        whole screen) later; answered here, the field and what it changes are laid out and
        painted together (issue 16, item 5)."""
        if self._ready:
            self.answer(self.values)

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()  # answered by `_typed`

    @on(Input.Submitted)
    def _next_field(self, event: Input.Submitted) -> None:
        event.stop()
        self.screen.focus_next()

    def show(
        self,
        verdict: str,
        figures: Sequence[FigureData],
        errors: Mapping[str, Sequence[str]],
        *,
        ok: bool,
    ) -> None:
        """Show the outcome: ``verdict`` over the figures (marked when not ``ok``), and under
        each field the complaints ``errors`` holds for it (none: the line is hidden)."""
        for field in self.fields:
            self._show_error(field.name, errors.get(field.name, ()))
        line = self.query_one("#design-verdict", Static)
        text = safe_text(verdict, multiline=True)
        if text != line.content:
            line.update(text)
        line.set_class(not ok, "-impossible")
        if tuple(figures) != tuple(self._figures.values()):
            self._figures = {figure.key: figure for figure in figures}
            self.query_one(FigureList).show(figures)

    def error_text(self, name: str) -> str:
        """What the line under field ``name`` says ("" when nothing is wrong with it)."""
        return str(self.query_one(f"#design-error-{name}", Static).content)

    @property
    def verdict_text(self) -> str:
        return str(self.query_one("#design-verdict", Static).content)

    def figure_text(self, key: str) -> str:
        """The figure ``key`` as shown (label, value, formula), "" when it is not shown."""
        figure = self._figures.get(key)
        if figure is None:
            return ""
        return f"{figure_head(figure)}\n{figure_detail(figure)}"

    def _show_error(self, name: str, lines: Sequence[str]) -> None:
        """Only a line whose text changes is updated: each update lays out the screen again.
        No complaint: the line is empty, and takes no room (`Line`)."""
        line = self.query_one(f"#design-error-{name}", Static)
        text = "\n".join(safe_text(text) for text in lines)
        if text != line.content:
            line.update(text)


class NameDialog(Dialog[str | None]):
    """Ask the name to save a design under; dismisses with it (stripped), or None (Escape).

    It refuses a blank name in place; whether a name is allowed, or taken, is the store's
    say, asked once the dialog has closed: a name it does not allow opens the dialog again
    with its reason (``problem``)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", tooltip="Close without saving"),
    ]

    DEFAULT_CSS = """
    NameDialog {
        & > Vertical { width: 50; }
        & #name-problem { color: $text-error; height: auto; }
    }
    """

    def __init__(self, name: str = "", problem: str = "") -> None:
        super().__init__()
        self.start = name
        self.problem = problem
        """Why the name asked before would not do ("" the first time)."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Save the design as (Enter saves, Esc cancels):")
            yield Input(self.start, compact=True, id="design-name")
            yield Static(safe_text(self.problem), id="name-problem", markup=False)

    def on_mount(self) -> None:
        self.query_one("#design-name", Input).focus()

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        event.stop()
        name = event.value.strip()
        if not name:
            self.query_one("#name-problem", Static).update("a design needs a name")
            return
        self.dismiss(name)

    def action_cancel(self) -> None:
        self.dismiss(None)


class PickDialog(Dialog[str | None]):
    """Pick one of the saved designs (``names``); dismisses with its name, or None (Escape)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", tooltip="Close without loading"),
    ]

    DEFAULT_CSS = """
    PickDialog {
        & > Vertical { width: 50; }
        & OptionList { height: auto; max-height: 16; }
    }
    """

    def __init__(self, names: Sequence[str]) -> None:
        super().__init__()
        self.names = list(names)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Load which design? (Enter loads, Esc cancels)")
            yield OptionList(*(Option(safe_text(name), id=name) for name in self.names))

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
