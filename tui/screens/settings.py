"""Settings: this home's identity and how its packets travel, without leaving the app.

Opened from the games list (``,``). The identity part shows the identity's card, or, in a
home without one, the form that makes it (`tui.screens.identity`). The transport part shows
the configured transport and sets a shared folder through `Session.use_folder`, which is the
function ``hexpost transport folder PATH`` runs, so both write the same config; a path that
is not a writable folder is refused with the reason on the status line and nothing written.
The mail part is `MailForm` (`tui.widgets.mail_form`): Save runs what ``hexpost account
add`` runs (`tui.services.accounts.save_answers`: the ``[mail]`` table, and mail as the
transport), Test what ``hexpost account test`` runs (`tui.services.accounts.check_account`),
and the outcome shows under the form. Choosing "Mail account" above uses the saved account,
as ``hexpost transport mail`` does. The backup part copies the whole home into a folder
(`Session.back_up`, as ``hexpost backup FOLDER`` does).

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
from textual.widgets import Button, Checkbox, Header, Input, RadioButton, RadioSet, Static

from engine.core.errors import HexpostError
from tui.screens.base import HexpostScreen, StatusLine
from tui.screens.identity import IdentityForm, identity_lines
from tui.screens.session import Settings
from tui.services import accounts
from tui.services.accounts import Answers
from tui.widgets.footer import KeysFooter
from tui.widgets.mail_form import MailForm
from tui.widgets.toggles import MarkedCheckbox, MarkedRadioButton

MAIL_KIND = "Mail account (the form below)"


def copy_note(taken_at: str) -> str:
    """What the settings say of a backup copy not yet confirmed (`saves.behind`)."""
    return (
        f"This home is a backup copy taken {taken_at}: it signs nothing until you play from "
        "it. If you may have signed anything in a game after that, first ask the other "
        "player to run hexpost resend GAME --from N --every-seat (N: the packet after this "
        "copy's last one), and sync."
    )


BACKUP_HELP = (
    "The identity, the settings and every game, copied and checked, as `hexpost backup` "
    "does. The copy is a home: restore it with hexpost --home FOLDER."
)


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
        & #backup-row { height: auto; }
        & #backup-row Static { width: 14; }
        & #backup-path { width: 1fr; }
        & #backup-replace { margin: 0 0 0 14; }
        & #backup-keep { margin: 0 0 0 14; }
        & #copy-note { color: $warning; }
        & #back-up { margin: 0 0 0 14; }
    }
    """

    class Loaded(Message):
        """The worker read the settings."""

        def __init__(self, settings: Settings) -> None:
            super().__init__()
            self.settings = settings

    class MailLoaded(Message):
        """The worker read the saved mail account (None: none yet; ``problem``: unreadable)."""

        def __init__(self, answers: Answers | None, problem: str | None) -> None:
            super().__init__()
            self.answers = answers
            self.problem = problem

    class MailDone(Message):
        """Saving or testing the mail account ended; ``lines`` say how."""

        def __init__(self, ok: bool, lines: list[str], *, saved: bool = False) -> None:
            super().__init__()
            self.ok = ok
            self.lines = lines
            self.saved = saved

    class Done(Message):
        """A change was tried; ``text`` says what happened, ``ok`` whether it was made;
        ``transport``: it was the home's transport."""

        def __init__(self, ok: bool, text: str, *, transport: bool = False) -> None:
            super().__init__()
            self.ok = ok
            self.text = text
            self.transport = transport

    class TransportChanged(Message):
        """Posted to the app: the home's transport, or the mail account it uses, changed, so
        the watch for new packets starts again on it (a home opened with none had nothing
        to watch until the app was started again)."""

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
                yield MarkedRadioButton("Shared folder", value=True, id="kind-folder", compact=True)
                yield MarkedRadioButton(MAIL_KIND, id="kind-mail", compact=True)
            with Horizontal(id="folder-row"):
                yield Static("Folder", markup=False)
                yield Input(
                    id="folder-path", placeholder="a folder both players can reach", compact=True
                )
            yield Button("Use this folder", id="use-folder", compact=True)
            yield Static("Mail account", classes="section", markup=False)
            yield MailForm(id="mail-form")
            yield Static("Backup", classes="section", markup=False)
            yield Static("", id="copy-note", markup=False)
            yield Button("Play from this copy", id="confirm-copy", compact=True)
            yield Static(BACKUP_HELP, id="backup-help", markup=False)
            with Horizontal(id="backup-row"):
                yield Static("Into folder", markup=False)
                yield Input(id="backup-path", placeholder="a new or empty folder", compact=True)
            yield MarkedCheckbox(
                "Replace an earlier backup there", id="backup-replace", compact=True
            )
            yield MarkedCheckbox(
                "Again after each sync that brings or sends a packet",
                id="backup-keep",
                compact=True,
            )
            yield Button("Back up now", id="back-up", compact=True)
        yield StatusLine()
        yield KeysFooter()

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
        if self.settings is None:  # the form keeps what the player types after that
            found = await self.session.call(accounts.saved_answers, self.session.home)
            self.post_message(self.MailLoaded(*found))

    @on(Loaded)
    def show(self, message: Loaded) -> None:
        first = self.settings is None
        settings = self.settings = message.settings
        self.query_one("#identity-info", Static).update(
            "\n".join(identity_lines(settings.identity, unlocked=settings.unlocked))
        )
        form = self.query_one(IdentityForm)
        made = form.display and settings.identity is not None  # (the form just did it)
        form.display = settings.identity is None
        mail = self.query_one(MailForm)
        if settings.identity is not None and not mail.text("mail-address"):
            # The mail account is most often the identity's own address; a saved account,
            # read after this, fills in its own over it.
            mail.set_text("mail-address", settings.identity.address)
        self.query_one("#transport-info", Static).update(f"Now: {settings.transport}")
        if first and settings.backup_folder:
            self.query_one("#backup-path", Input).value = settings.backup_folder
        self.query_one("#backup-keep", Checkbox).value = settings.backup_folder is not None
        copied = settings.copy_taken_at
        self.query_one("#copy-note", Static).update("" if copied is None else copy_note(copied))
        self.query_one("#copy-note").display = copied is not None
        self.query_one("#confirm-copy").display = copied is not None
        kind = "mail" if settings.transport_kind == "mail" else "folder"
        with self.prevent(RadioSet.Changed):
            self.query_one(f"#kind-{kind}", RadioButton).value = True
        path = self.query_one("#folder-path", Input)
        if first and settings.folder:
            path.value = settings.folder
        if self.status.text.startswith("reading"):
            self.status.say("escape goes back to the games")
        if first:
            (form.query_one(Input) if form.display else path).focus()
        elif made:
            # The form went with the focus in it: the keys typed next (a folder's path)
            # went nowhere, or to the screen's own keys. The transport is next to set up.
            self.query_one("#transport-kind" if kind == "mail" else "#folder-path").focus()

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
    @on(Button.Pressed, "#use-folder")
    def choose_folder(self, event: Input.Submitted | Button.Pressed) -> None:
        event.stop()
        self.status.busy("checking the folder...")
        self.use_folder(self.query_one("#folder-path", Input).value)

    @work(exclusive=True, group="change")
    async def use_folder(self, path: str) -> None:
        ok, text = await self.session.use_folder(path)
        self.post_message(self.Done(ok, text, transport=True))

    @on(RadioSet.Changed, "#transport-kind")
    def kind_changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        if event.pressed.id == "kind-mail":
            self.status.busy("switching to the mail account...")
            self.use_mail()
        else:
            self.status.say("type the folder below and press 'Use this folder'")
            self.query_one("#folder-path", Input).focus()

    @work(exclusive=True, group="change")
    async def use_mail(self) -> None:
        try:
            config = await self.session.call(accounts.use_mail, self.session.home)
        except HexpostError as exc:
            self.post_message(self.Done(False, str(exc)))
            return
        said = f"packets will travel by mail as {config.address}"
        self.post_message(self.Done(True, said, transport=True))

    # --- mail account ------------------------------------------------------------------------

    @on(MailLoaded)
    def mail_loaded(self, message: MailLoaded) -> None:
        form = self.query_one(MailForm)
        if message.answers is not None:
            form.fill(message.answers)
        if message.problem is not None:
            form.show_result([f"the saved account cannot be read: {message.problem}"], ok=False)

    @on(MailForm.Save)
    def mail_save(self, message: MailForm.Save) -> None:
        self.status.busy("saving the mail account...")
        self.save_mail(message.answers)

    @work(exclusive=True, group="change")
    async def save_mail(self, answers: Answers) -> None:
        try:
            lines = await self.session.call(accounts.save_answers, self.session.home, answers)
        except HexpostError as exc:
            self.post_message(self.MailDone(False, [str(exc)]))
            return
        self.post_message(self.MailDone(True, [*lines, "press Test to log in"], saved=True))

    @on(MailForm.Test)
    def mail_test(self, message: MailForm.Test) -> None:
        self.status.busy("logging in to the mail servers...")
        self.test_mail(message.answers)

    @work(exclusive=True, group="mail-test")
    async def test_mail(self, answers: Answers) -> None:
        try:
            config = accounts.build_config(answers)
        except HexpostError as exc:
            self.post_message(self.MailDone(False, [str(exc)]))
            return
        results = await accounts.check_account(config)
        ok = all(result.ok for result in results)
        self.post_message(self.MailDone(ok, [str(result) for result in results]))

    @on(MailDone)
    def mail_done(self, message: MailDone) -> None:
        self.query_one(MailForm).show_result(message.lines, message.ok)
        if message.saved and self.settings is not None and self.settings.transport_kind == "mail":
            self.app.post_message(self.TransportChanged())  # (the account the watch uses)
        if message.saved:
            self.status.say("mail account saved; packets now travel by mail")
            self.reload()
        else:
            self.status.say("mail: " + ("both logins work" if message.ok else "see the form"))

    # --- backup ------------------------------------------------------------------------------

    @on(Input.Submitted, "#backup-path")
    @on(Button.Pressed, "#back-up")
    def start_backup(self, event: Input.Submitted | Button.Pressed) -> None:
        event.stop()
        path = self.query_one("#backup-path", Input).value.strip()
        if not path:
            self.status.say("type the folder to back up into (a new or empty one)")
            return
        self.status.busy("backing up...")
        replace = self.query_one("#backup-replace", Checkbox).value
        self.back_up(path, replace, self.query_one("#backup-keep", Checkbox).value)

    @work(exclusive=True, group="change")
    async def back_up(self, path: str, replace: bool, keep: bool) -> None:
        ok, text = await self.session.back_up(path, replace=replace, keep=keep)
        self.post_message(self.Done(ok, text))

    @on(Button.Pressed, "#confirm-copy")
    def confirm_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.confirm_copy()

    @work(exclusive=True, group="change")
    async def confirm_copy(self) -> None:
        self.post_message(self.Done(True, await self.session.confirm_restored()))

    @on(Done)
    def done(self, message: Done) -> None:
        self.status.say(message.text)
        if message.ok:
            self.reload()
        if message.ok and message.transport:
            self.app.post_message(self.TransportChanged())

    def action_back(self) -> None:
        self.app.pop_screen()
