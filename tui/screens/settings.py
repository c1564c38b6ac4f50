"""Settings: this home's identity and how its packets travel, without leaving the app.

Opened from the games list (``,``). The identity part shows the identity's card, or, in a
home without one, the form that makes it (`tui.screens.identity`). The transport part shows
the configured transport and sets a shared folder through `Session.use_folder`, which is the
function ``hexpost transport folder PATH`` runs, so both write the same config; a path that
is not a writable folder is refused with the reason on the status line and nothing written.
Mail accounts are listed, disabled, until the mail transports exist.

Like every screen, it reads and writes only through the session's store thread, in async
workers whose results come back as messages.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Footer, Header, Input, RadioButton, RadioSet, Static

from tui.screens.base import HexpostScreen, StatusLine
from tui.screens.identity import IdentityForm, identity_lines
from tui.screens.session import Settings

MAIL_LATER = "Mail account: not available yet (coming with mail support)"


class SettingsScreen(HexpostScreen):
    """The identity (card or creation form) and the transport (shown, and chosen)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Games", tooltip="Back to the list of games"),
    ]

    DEFAULT_CSS = """
    SettingsScreen {
        & #settings { height: 1fr; padding: 0 1; }
        & .section { text-style: bold; margin: 1 0 0 0; }
        & #transport-kind { width: 1fr; height: auto; }
        & #folder-row { height: auto; }
        & #folder-row Static { width: 14; }
        & #folder-path { width: 1fr; }
        & #use-folder { margin: 0 0 0 14; }
    }
    """

    class Loaded(Message):
        """The worker read the settings."""

        def __init__(self, settings: Settings) -> None:
            super().__init__()
            self.settings = settings

    class Done(Message):
        """A change was tried; ``text`` says what happened, ``ok`` whether it was made."""

        def __init__(self, ok: bool, text: str) -> None:
            super().__init__()
            self.ok = ok
            self.text = text

    def __init__(self) -> None:
        super().__init__(id="settings-screen")
        self.settings: Settings | None = None

    def compose(self) -> ComposeResult:
        yield Header(icon="#")
        with VerticalScroll(id="settings"):
            yield Static("Identity", classes="section", markup=False)
            yield Static("reading...", id="identity-info", markup=False)
            yield IdentityForm(id="identity-form")
            yield Static("Transport", classes="section", markup=False)
            yield Static("", id="transport-info", markup=False)
            with RadioSet(id="transport-kind", compact=True):
                yield RadioButton("Shared folder", value=True, id="kind-folder", compact=True)
                yield RadioButton(MAIL_LATER, id="kind-mail", disabled=True, compact=True)
            with Horizontal(id="folder-row"):
                yield Static("Folder", markup=False)
                yield Input(
                    id="folder-path", placeholder="a folder both players can reach", compact=True
                )
            yield Button("Use this folder", id="use-folder", compact=True)
        yield StatusLine()
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.title = "hexpost"
        self.sub_title = "settings"
        self.query_one(IdentityForm).display = False
        self.status.busy("reading the settings...")
        self.reload()

    # --- loading -----------------------------------------------------------------------------

    def reload(self) -> None:
        self.load()

    @work(exclusive=True, group="load")
    async def load(self) -> None:
        self.post_message(self.Loaded(await self.session.settings()))

    @on(Loaded)
    def show(self, message: Loaded) -> None:
        first = self.settings is None
        settings = self.settings = message.settings
        self.query_one("#identity-info", Static).update(
            "\n".join(identity_lines(settings.identity, unlocked=settings.unlocked))
        )
        form = self.query_one(IdentityForm)
        form.display = settings.identity is None
        self.query_one("#transport-info", Static).update(f"Now: {settings.transport}")
        path = self.query_one("#folder-path", Input)
        if first and settings.folder:
            path.value = settings.folder
        if self.status.text.startswith("reading"):
            self.status.say("escape goes back to the games")
        if first:
            (form.query_one(Input) if form.display else path).focus()

    # --- identity ----------------------------------------------------------------------------

    @on(IdentityForm.Problem)
    def form_problem(self, message: IdentityForm.Problem) -> None:
        self.status.say(message.text)

    @on(IdentityForm.Create)
    def create(self, message: IdentityForm.Create) -> None:
        self.status.busy("making the key...")
        self.create_identity(message.name, message.address, message.passphrase)

    @work(exclusive=True, group="change")
    async def create_identity(self, name: str, address: str, passphrase: str | None) -> None:
        problem = await self.session.create_identity(name, address, passphrase)
        if problem is None:
            self.post_message(self.Done(True, f"identity created for {name} <{address}>"))
        else:
            self.post_message(self.Done(False, problem))

    # --- transport ---------------------------------------------------------------------------

    @on(Input.Submitted, "#folder-path")
    def folder_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.choose_folder()

    @on(Button.Pressed, "#use-folder")
    def folder_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.choose_folder()

    def choose_folder(self) -> None:
        self.status.busy("checking the folder...")
        self.use_folder(self.query_one("#folder-path", Input).value)

    @work(exclusive=True, group="change")
    async def use_folder(self, path: str) -> None:
        ok, text = await self.session.use_folder(path)
        self.post_message(self.Done(ok, text))

    @on(Done)
    def done(self, message: Done) -> None:
        self.status.say(message.text)
        if message.ok:
            self.reload()

    def action_back(self) -> None:
        self.app.pop_screen()
