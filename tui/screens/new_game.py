"""A new game from the app: the scenario, the seat, the opponent and the optional rules.

Opened from the games list (``n``). It asks for what ``hexpost new`` takes, and creates the
game through the same service (`tui.services.start.new_game`, via `Session.new_game`), so the
two cannot drift apart. Nothing here knows a ruleset: the scenarios, their seats and their
optional rules come from the installed rulesets' scenario records
(`tui.services.start.ScenarioChoice`), each rule (`engine.core.ruleset.OptionSpec`) with its
help, its rule number and the values it takes: a list of texts offered in a menu, a whole
number with its bounds, or a switch.

Only the rules changed from their defaults are sent; the game is refused, with the reason on
the status line and nothing stored, when a value is not one its rule takes. The invitation
then goes out at once: the games list syncs (`HexpostScreen.send_signed`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Header, Input, Select, Static

from engine.core.errors import HexpostError
from tui.screens.base import HexpostScreen, StatusLine
from tui.screens.session_signing import NO_IDENTITY
from tui.services.start import NewGameRequest
from tui.widgets.footer import KeysFooter
from tui.widgets.toggles import MarkedCheckbox

if TYPE_CHECKING:
    from engine.core.ruleset import OptionSpec, OptionValue
    from tui.screens.session import Session
    from tui.services.start import ScenarioChoice

LABEL_WIDTH = 14
"""The width of the form's labels, so its fields line up in 80 columns."""
OPTION_WIDTH = 30
"""The width of an optional rule's name before its field (F&E's longest is 27)."""


class NewGameForm(Vertical):
    """The fields of a new game; posts `Create` with the request, or `Problem` when a field
    cannot be read (an empty address, a number that is not one)."""

    DEFAULT_CSS = f"""
    NewGameForm {{
        height: auto;
        & .row {{ height: auto; }}
        & .row > .label {{ width: {LABEL_WIDTH}; }}
        & .option > .label {{ width: {OPTION_WIDTH}; }}
        & .row > Input, & .row > Select {{ width: 1fr; }}
        & .section {{ text-style: bold; margin: 1 0 0 0; }}
        & .help {{ color: $text-muted; padding: 0 0 0 4; }}
        & .help.problem {{ color: $error; }}
        & #options {{ height: auto; }}
        & #create {{ margin: 1 0 0 {LABEL_WIDTH}; }}
    }}
    """

    class Create(Message):
        def __init__(self, request: NewGameRequest) -> None:
            super().__init__()
            self.request = request

    class Problem(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, scenarios: list[ScenarioChoice], *, id: str | None = None) -> None:
        """``scenarios``: at least one; the first is chosen."""
        super().__init__(id=id)
        self.scenarios = scenarios
        self._shown = scenarios[0].id
        """The scenario whose seats and rules the form holds."""

    def compose(self) -> ComposeResult:
        first = self.scenarios[0]
        yield _row(
            "Scenario",
            Select[str](
                ((f"{s.title} [{s.id}]", s.id) for s in self.scenarios),
                value=first.id, allow_blank=False, id="scenario", compact=True,
            ),
        )  # fmt: skip
        yield _row("Your seat", _seats(first))
        yield _row(
            "Opponent", Input(id="opponent", placeholder="their email address", compact=True)
        )
        yield _row("Game name", Input(id="name", placeholder="optional", compact=True))
        yield _row(
            "Reply hours",
            Input("72", id="hours", type="integer", placeholder="hours", compact=True),
        )
        yield Static(
            "Optional rules (change only what both players agreed on):",
            classes="section",
            markup=False,
        )
        with Vertical(id="options"):
            for i, option in enumerate(first.options):
                yield from _option_widgets(i, option)
        yield Button("Create and invite (ctrl+s)", id="create", compact=True)

    @property
    def scenario(self) -> ScenarioChoice | None:
        chosen = self.query_one("#scenario", Select).value
        return next((s for s in self.scenarios if s.id == chosen), None)

    @on(Select.Changed, "#scenario")
    async def scenario_changed(self, event: Select.Changed) -> None:
        """Another scenario: its seats and its optional rules, at their defaults."""
        event.stop()
        scenario = self.scenario
        if scenario is None or scenario.id == self._shown:
            return
        self._shown = scenario.id
        seat = self.query_one("#seat", Select)
        seat.set_options((name, name) for name in scenario.seats)
        seat.value = scenario.seats[0]
        options = self.query_one("#options", Vertical)
        await options.remove_children()
        await options.mount_all(
            [widget for i, o in enumerate(scenario.options) for widget in _option_widgets(i, o)]
        )

    @on(Button.Pressed, "#create")
    def create_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.submit()

    @on(Input.Submitted)
    def input_submitted(self, event: Input.Submitted) -> None:
        """Enter in a field goes to the next one: the game is made only by ctrl+s or the
        button, never by an Enter meant to finish typing the address."""
        event.stop()
        self.screen.focus_next()

    def submit(self) -> None:
        """Read the fields; post `Create`, or `Problem` naming the field that is wrong."""
        scenario = self.scenario
        if scenario is None:
            self.post_message(self.Problem("no scenario to start from"))
            return
        opponent = self.query_one("#opponent", Input).value.strip()
        if not opponent:
            self.post_message(self.Problem("the opponent's email address is needed"))
            self.query_one("#opponent", Input).focus()
            return
        hours = _whole(self.query_one("#hours", Input).value)
        if hours is None:
            self.post_message(self.Problem("the reply window is a whole number of hours"))
            self.query_one("#hours", Input).focus()
            return
        changed: dict[str, OptionValue] = {}
        for i, option in enumerate(scenario.options):
            value = self._value(i, option)
            problem = _problem(option, value)
            if problem is not None:
                self.post_message(self.Problem(problem))
                self.query_one(f"#option-{i}").focus()
                return
            assert value is not None
            if value != option.default or type(value) is not type(option.default):
                changed[option.id] = value
        seat = self.query_one("#seat", Select).value
        request = NewGameRequest(
            scenario=scenario.id,
            seat=str(seat),
            opponent=opponent,
            name=self.query_one("#name", Input).value.strip(),
            reply_window_hours=hours,
            options=changed,
        )
        self.post_message(self.Create(request))

    @on(Input.Changed)
    def typed(self, event: Input.Changed) -> None:
        """A rule's value checked as it is typed: its help line says what is wrong with it
        (`OptionSpec.problem`) until it is a value the rule takes."""
        field = event.input.id or ""
        scenario = self.scenario
        if not field.startswith("option-") or scenario is None:
            return
        event.stop()
        index = int(field.removeprefix("option-"))
        option = scenario.options[index]
        problem = _problem(option, self._value(index, option))
        line = self.query_one(f"#{field}-help", Static)
        line.update(_help(option) if problem is None else problem)
        line.set_class(problem is not None, "problem")

    def _value(self, index: int, option: OptionSpec) -> OptionValue | None:
        """The value the form holds for option ``index`` (None: not a whole number)."""
        widget = self.query_one(f"#option-{index}")
        if isinstance(widget, Checkbox):
            return widget.value
        if isinstance(widget, Select):
            return str(widget.value)
        assert isinstance(widget, Input)
        if isinstance(option.default, int):
            return _whole(widget.value)
        return widget.value


def _row(label: str, field: Widget, classes: str = "row") -> Horizontal:
    return Horizontal(Static(label, classes="label", markup=False), field, classes=classes)


class RuleSwitch(MarkedCheckbox):
    """An optional rule that is on or off; its label says which in words too."""

    def __init__(self, name: str, value: bool, *, id: str) -> None:
        self.rule_name = name  # (first: setting the value calls `watch_value`)
        super().__init__(self._words(name, value), value=value, id=id, compact=True)

    @staticmethod
    def _words(name: str, on: bool) -> str:
        return f"{name}: {'yes' if on else 'no'}"

    def watch_value(self) -> None:
        self.label = self._words(self.rule_name, self.value)
        super().watch_value()


def _seats(scenario: ScenarioChoice) -> Select[str]:
    return Select[str](
        ((name, name) for name in scenario.seats),
        value=scenario.seats[0], allow_blank=False, id="seat", compact=True,
    )  # fmt: skip


def _problem(option: OptionSpec, value: OptionValue | None) -> str | None:
    """Why the form's ``value`` (None: not a whole number) is not one ``option`` takes."""
    if value is None:
        return f"optional rule {option.id!r} takes a whole number"
    return option.problem(value)


def _whole(text: str) -> int | None:
    try:
        return int(text.strip())
    except ValueError:
        return None


def _option_widgets(index: int, option: OptionSpec) -> list[Widget]:
    """The field of one optional rule (a switch, a menu of its values, or a box) and its
    help line, with the rule it reads and the bounds a number takes."""
    field_id = f"option-{index}"
    default = option.default
    field: Widget
    if isinstance(default, bool):
        field = RuleSwitch(option.id, default, id=field_id)
    elif option.choices:
        menu = Select[str](
            ((c, c) for c in option.choices), value=str(default), allow_blank=False,
            id=field_id, compact=True,
        )  # fmt: skip
        field = _row(option.id, menu, "row option")
    else:
        number = isinstance(default, int)
        box = Input(str(default), id=field_id, type="integer" if number else "text", compact=True)
        field = _row(option.id, box, "row option")
    return [field, Static(_help(option), id=f"{field_id}-help", classes="help", markup=False)]


def _help(option: OptionSpec) -> str:
    """An optional rule's help line: what it means, a number's bounds and the rule."""
    text = option.help
    if option.bounds is not None:
        text += f" ({option.bounds[0]} to {option.bounds[1]})"
    if option.rule:
        text += f" [rule {option.rule}]"
    return text


class NewGameScreen(HexpostScreen):
    """The new-game form on a screen of its own; once the game is made it goes back to the
    screen below (the games list), whose status line says what was made."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Games", tooltip="Back to the list of games"),
        # Not a priority binding: it must come after the letters typed before it (a priority
        # binding runs as its key arrives, ahead of keys still waiting in a field's queue).
        Binding("ctrl+s", "create", "Create", tooltip="Create and invite"),
    ]

    DEFAULT_CSS = """
    NewGameScreen {
        & #new-game { height: 1fr; padding: 0 1; }
    }
    """

    def __init__(self, scenarios: list[ScenarioChoice]) -> None:
        """``scenarios``: read before the screen is pushed (`open_new_game`), at least one."""
        super().__init__(id="new-game-screen")
        self.scenarios = scenarios

    def compose(self) -> ComposeResult:
        yield Header(icon="#")
        with VerticalScroll(id="new-game"):
            yield NewGameForm(self.scenarios, id="new-game-form")
        yield StatusLine()
        yield KeysFooter()

    def on_mount(self) -> None:
        self.title = "hexpost"
        self.sub_title = "new game"
        self.status.say("the invitation goes out once the game is created; escape goes back")
        self.query_one("#opponent", Input).focus()

    def reload(self) -> None:
        """Nothing to read again: the scenarios come with the screen."""

    def action_back(self) -> None:
        self.dismiss()

    def action_create(self) -> None:
        self.query_one(NewGameForm).submit()

    @on(NewGameForm.Problem)
    def problem(self, message: NewGameForm.Problem) -> None:
        self.status.say(message.text)

    @on(NewGameForm.Create)
    def create(self, message: NewGameForm.Create) -> None:
        self.status.busy("creating the game...")
        self.create_game(message.request)

    @work(exclusive=True, group="create")
    async def create_game(self, request: NewGameRequest) -> None:
        result = await self.session.new_game(request)
        refused = "not created: no passphrase given"
        if self.asked_passphrase(
            result, "sign the new game", lambda: self.create_game(request), refused
        ):
            return
        if not result.ok:
            self.status.say(result.text)
            return
        stack = self.app.screen_stack
        below = stack[-2] if len(stack) > 1 else None
        self.dismiss()
        if isinstance(below, HexpostScreen):  # (the games list: it reads its games again)
            below.status.say(result.text)
            if result.sending:
                below.send_signed()


async def open_new_game(session: Session) -> NewGameScreen:
    """The new-game screen with the installed scenarios read (`HexpostScreen.push_read`):
    its first paint is the form, filled."""
    if not await session.has_identity():  # (the form could only be refused at its end)
        raise HexpostError(NO_IDENTITY)
    scenarios = await session.scenario_choices()
    if not scenarios:
        raise HexpostError("no scenario to start from: no ruleset is installed")
    return NewGameScreen(scenarios)
