"""The ship designer: the design calculator of ``hexpost design calc`` as a live form.

Opened from the command palette ("Ship designer") over any screen; it needs no game. The
form (`tui.widgets.design_form.DesignForm`) hands this screen the values at every keystroke,
and it asks the service (`tui.services.designs.work`) what they make: the figures, and each
complaint under the field it is about (a bad value with its allowed range, or the rule an
impossible design breaks). The procedure is pure and quick, so it runs on the event loop.

Saving (ctrl+s) asks a name and writes the home's designs file, which ``hexpost design``
reads too; a name already taken is overwritten only once the player confirms it. Loading
(ctrl+o) picks one of the saved designs. Both touch files, so they run in async workers on
the session's store thread, as every read of the home does, and their results come back as
messages; a design file edited into a bad state is refused with the store's reason on the
status line and the form is left as it was.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Header

from engine.core.errors import HexpostError
from tui.safe_text import safe_text
from tui.screens.base import StatusLine
from tui.screens.session import Session
from tui.services import designs
from tui.services.designs import DesignView
from tui.widgets.confirm import ConfirmDialog
from tui.widgets.design_form import DesignForm, NameDialog, PickDialog
from tui.widgets.footer import KeysFooter

HINT = "type the values (Tab: next field); the figures follow them"


class DesignerScreen(Screen[None]):
    """The design form, its figures, and saving and loading by name."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", tooltip="Close the ship designer"),
        Binding("ctrl+s", "save", "Save", tooltip="Save this design under a name"),
        Binding("ctrl+o", "load", "Load", tooltip="Load a saved design"),
    ]

    class Saved(Message):
        """A save ended; ``outcome`` says how (written, name taken, or a name not allowed),
        or ``failure`` why it could not be tried."""

        def __init__(
            self, name: str, outcome: designs.SaveOutcome | None, failure: str = ""
        ) -> None:
            super().__init__()
            self.name = name
            self.outcome = outcome
            self.failure = failure

    class Listed(Message):
        """The saved designs' names were read (for the load dialog)."""

        def __init__(self, names: list[str]) -> None:
            super().__init__()
            self.names = names

    class Loaded(Message):
        """A saved design was read: its name and inputs."""

        def __init__(self, name: str, inputs: dict[str, int]) -> None:
            super().__init__()
            self.name = name
            self.inputs = inputs

    class Failed(Message):
        """Reading or writing the designs failed; ``reason`` goes to the status line."""

        def __init__(self, reason: str) -> None:
            super().__init__()
            self.reason = reason

    def __init__(self) -> None:
        super().__init__(id="designer-screen")
        self.view: DesignView | None = None
        """What the form shows now (None before the first values arrive)."""
        self.design_name = ""
        """The name the design was last loaded or saved under (the save dialog offers it)."""

    @property
    def session(self) -> Session:
        session = getattr(self.app, "session", None)
        if not isinstance(session, Session):
            raise TypeError("the designer needs an app with a `session` (tui.app.HexpostApp)")
        return session

    def compose(self) -> ComposeResult:
        yield Header(icon="#")
        yield DesignForm(designs.fields(), self.changed, id="design-form")
        yield StatusLine()
        yield KeysFooter()

    def on_mount(self) -> None:
        self.title = "hexpost"
        self.sub_title = "ship designer"
        self.status.say(HINT)
        self.query_one("#design-size").focus()

    @property
    def status(self) -> StatusLine:
        return self.query_one(StatusLine)

    @property
    def form(self) -> DesignForm:
        return self.query_one(DesignForm)

    # --- the figures -------------------------------------------------------------------------

    def changed(self, values: dict[str, str]) -> None:
        """The form's answer to the values typed (called by it, in the key's own handling)."""
        view = self.view = designs.work(values)
        errors = view.errors()
        verdict = view.verdict
        for line in errors.pop("", []):  # a broken rule no one field causes
            verdict += f"\n{line}"
        self.form.show(verdict, view.figures, errors, ok=view.possible)

    # --- saving ------------------------------------------------------------------------------

    def action_save(self) -> None:
        self.ask_name(self.design_name)

    def ask_name(self, name: str, problem: str = "") -> None:
        """Ask the name to save under (``problem``: why the last one would not do)."""
        view = self.view
        if view is None or view.inputs is None:
            self.status.say("not saved: fix the marked values first")
            return
        inputs = view.inputs

        def named(name: str | None) -> None:
            if name is None:
                self.status.say("not saved")
                return
            self.status.busy(f"saving {name}...")
            self.save(name, inputs, replace=False)

        self.app.push_screen(NameDialog(name, problem), named)

    @work(exclusive=True, group="designs")
    async def save(self, name: str, inputs: dict[str, int], *, replace: bool) -> None:
        home = self.session.home
        try:
            outcome = await self.session.call(designs.save_design, home, name, inputs, replace)
        except HexpostError as exc:
            self.post_message(self.Saved(name, None, f"not saved: {exc}"))
        else:
            self.post_message(self.Saved(name, outcome))

    @on(Saved)
    def saved(self, message: Saved) -> None:
        outcome = message.outcome
        if outcome is None:
            self.status.say(message.failure)
        elif outcome.bad_name:
            self.status.say("not saved: choose another name")
            self.ask_name(message.name, outcome.text)
        elif outcome.taken:
            self.confirm_replace(message.name, outcome.text)
        else:
            self.design_name = message.name
            self.status.say(outcome.text)

    def confirm_replace(self, name: str, why: str) -> None:
        """Ask before writing over the design ``name``; no writes without a yes."""
        view = self.view
        if view is None or view.inputs is None:  # changed to bad values meanwhile
            self.status.say("not saved: fix the marked values first")
            return
        inputs = view.inputs

        def answered(yes: bool | None) -> None:
            if yes:
                self.status.busy(f"saving {name}...")
                self.save(name, inputs, replace=True)
            else:
                self.status.say(f"not saved: design {name!r} kept as it was")

        question = f"A design named {name!r} exists. Overwrite it?"
        self.app.push_screen(ConfirmDialog(question, [why]), answered)

    # --- loading -----------------------------------------------------------------------------

    def action_load(self) -> None:
        self.status.busy("reading the saved designs...")
        self.list_designs()

    @work(exclusive=True, group="designs")
    async def list_designs(self) -> None:
        try:
            names = await self.session.call(designs.saved_names, self.session.home)
        except HexpostError as exc:
            self.post_message(self.Failed(f"cannot read the designs: {exc}"))
            return
        self.post_message(self.Listed(names))

    @on(Listed)
    def listed(self, message: Listed) -> None:
        if not message.names:
            self.status.say("no saved designs yet: ctrl+s saves this one")
            return
        self.status.say(f"{len(message.names)} saved designs")
        self.app.push_screen(PickDialog(message.names), self._picked)

    def _picked(self, name: str | None) -> None:
        if name is None:
            self.status.say("nothing loaded")
            return
        self.status.busy(f"loading {name}...")
        self.load_design(name)

    @work(exclusive=True, group="designs")
    async def load_design(self, name: str) -> None:
        try:
            inputs = await self.session.call(designs.load_design, self.session.home, name)
        except HexpostError as exc:
            self.post_message(self.Failed(f"not loaded: {exc}"))
            return
        self.post_message(self.Loaded(name, inputs))

    @on(Loaded)
    def loaded(self, message: Loaded) -> None:
        self.design_name = message.name
        self.form.fill(message.inputs)
        self.status.say(f"loaded {message.name}")

    @on(Failed)
    def failed(self, message: Failed) -> None:
        """On the status line, and whole in a notice (the line may be too short for it)."""
        self.status.say(message.reason)
        self.notify(safe_text(message.reason), severity="error", markup=False)

    def action_close(self) -> None:
        self.dismiss(None)
