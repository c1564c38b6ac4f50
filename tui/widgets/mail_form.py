"""The mail account form of the settings screen: the same answers ``hexpost account add`` takes.

It gathers the fields into `tui.services.accounts.Answers` and posts `Save` or `Test`; the screen
does the rest in workers, through the very functions the command line runs
(`account_cmd.save_answers`, `account_cmd.check_account`), and hands the outcome back with
`show_result`. Typing an address of a known provider (`mail.presets.preset_for`) fills in
its servers, unless the player already typed some of their own.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, Input, Select, Static

from mail.accounts import SECURITIES
from mail.presets import preset_for
from tui.safe_text import safe_text
from tui.services.accounts import DEFAULT_PASSWORD_ENV, Answers

SOURCES: tuple[tuple[str, str], ...] = (
    ("env variable", "password_env"),
    ("command", "password_command"),
    ("keyring", "keyring"),
    ("OAuth2 cmd", "oauth2_command"),
)
HINTS = {
    "password_env": "the variable's name, e.g. " + DEFAULT_PASSWORD_ENV,
    "password_command": "a command printing the password: pass show mail",
    "keyring": "keyring set hexpost USERNAME@HOST stores it",
    "oauth2_command": "a command printing an OAuth2 access token",
}
NEVER_JUNK = "-"
"""The spam folder field's word for ``ignore_junk``: never look in a spam folder."""
JUNK_HINT = f"blank: the server's own; {NEVER_JUNK}: never look there"
SERVER_FIELDS = ("imap-host", "imap-port", "smtp-host", "smtp-port")


class MailForm(Vertical):
    """Address, both servers, and where the password comes from; posts `Save` and `Test`."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save account", show=False),
    ]

    DEFAULT_CSS = """
    MailForm {
        height: auto;
        & Horizontal { height: auto; }
        & .form-label { width: 14; padding: 0 1 0 0; }
        & Input { width: 1fr; }
        & .port { width: 7; }
        & Select { width: 14; }
        & #mail-source { width: 16; }
        & #mail-note { color: $text-muted; margin: 0 0 0 14; }
        & #mail-buttons { margin: 0 0 0 14; }
        & #mail-buttons Button { margin: 0 2 0 0; }
        & #mail-result { margin: 0 0 0 14; }
        & #mail-result.-failed { color: $text-error; }
    }
    """

    class Save(Message):
        """Save these answers as the account (and make mail the transport)."""

        def __init__(self, answers: Answers) -> None:
            super().__init__()
            self.answers = answers

    class Test(Message):
        """Log in to both servers with these answers (nothing is saved)."""

        def __init__(self, answers: Answers) -> None:
            super().__init__()
            self.answers = answers

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._preset_filled: str | None = None
        """The preset whose servers are in the fields, while the player has not changed them."""

    def compose(self) -> ComposeResult:
        securities = [(name, name) for name in SECURITIES]
        with Horizontal():
            yield Static("Address", classes="form-label", markup=False)
            yield Input(id="mail-address", placeholder="you@example.org", compact=True)
        yield Static("", id="mail-note", markup=False)
        for server, label in (("imap", "IMAP (in)"), ("smtp", "SMTP (out)")):
            with Horizontal():
                yield Static(label, classes="form-label", markup=False)
                yield Input(id=f"{server}-host", placeholder=f"{server}.example.org", compact=True)
                yield Input(id=f"{server}-port", classes="port", type="integer", compact=True)
                yield Select(
                    securities,
                    id=f"{server}-security",
                    value="tls",
                    allow_blank=False,
                    compact=True,
                )
            with Horizontal():
                yield Static(f"{server.upper()} user", classes="form-label", markup=False)
                yield Input(
                    id=f"{server}-username", placeholder="default: the address", compact=True
                )
        with Horizontal():
            yield Static("IMAP folder", classes="form-label", markup=False)
            yield Input(id="mail-folder", placeholder="INBOX", compact=True)
        with Horizontal():
            yield Static("Spam folder", classes="form-label", markup=False)
            yield Input(id="mail-junk", placeholder=JUNK_HINT, compact=True)
        with Horizontal():
            yield Static("CA file", classes="form-label", markup=False)
            yield Input(
                id="mail-ca-file", placeholder="only for a server with its own CA", compact=True
            )
        with Horizontal():
            yield Static("Password", classes="form-label", markup=False)
            yield Select(
                SOURCES, id="mail-source", value="password_env", allow_blank=False, compact=True
            )
            yield Input(id="mail-secret", placeholder=HINTS["password_env"], compact=True)
        with Horizontal(id="mail-buttons"):
            yield Button("Save account", id="mail-save", compact=True)
            yield Button("Test", id="mail-test", compact=True)
        yield Static("", id="mail-result", markup=False)

    # --- values ------------------------------------------------------------------------------

    def text(self, field: str) -> str:
        return self.query_one(f"#{field}", Input).value.strip()

    def set_text(self, field: str, value: object) -> None:
        self.query_one(f"#{field}", Input).value = "" if value is None else str(value)

    def choice(self, field: str) -> str:
        return str(self.query_one(f"#{field}", Select).value)

    def fill(self, answers: Answers) -> None:
        """Show a saved account."""
        self.set_text("mail-address", answers.address)
        for server in ("imap", "smtp"):
            self.set_text(f"{server}-host", getattr(answers, f"{server}_host"))
            self.set_text(f"{server}-port", getattr(answers, f"{server}_port"))
            self.set_text(f"{server}-username", getattr(answers, f"{server}_username"))
            security = getattr(answers, f"{server}_security") or "tls"
            self.query_one(f"#{server}-security", Select).value = security
        self.set_text("mail-folder", answers.folder)
        self.set_text("mail-junk", NEVER_JUNK if answers.ignore_junk else answers.junk_folder)
        self.set_text("mail-ca-file", answers.ca_file)
        self.query_one("#mail-source", Select).value = answers.secret_source or "password_env"
        self.set_text("mail-secret", answers.secret_value)
        self._preset_filled = None

    def answers(self) -> Answers | str:
        """The fields as answers, or what is wrong with them before any checking."""
        ports: dict[str, int | None] = {}
        for server in ("imap", "smtp"):
            text = self.text(f"{server}-port")
            if text and not text.isdigit():
                return f"{server.upper()} port: {text!r} is not a number"
            ports[server] = int(text) if text else None
        address = self.text("mail-address")
        if not address:
            return "the account needs an email address"
        source = self.choice("mail-source")
        junk = self.text("mail-junk")
        return Answers(
            address=address,
            imap_host=self.text("imap-host") or None,
            imap_port=ports["imap"],
            imap_security=self.choice("imap-security"),
            imap_username=self.text("imap-username") or None,
            folder=self.text("mail-folder") or None,
            junk_folder=None if junk in ("", NEVER_JUNK) else junk,
            ignore_junk=junk == NEVER_JUNK,
            smtp_host=self.text("smtp-host") or None,
            smtp_port=ports["smtp"],
            smtp_security=self.choice("smtp-security"),
            smtp_username=self.text("smtp-username") or None,
            ca_file=self.text("mail-ca-file") or None,
            secret_source=source,
            secret_value=None if source == "keyring" else self.text("mail-secret"),
        )

    def show_result(self, lines: list[str], ok: bool) -> None:
        """What saving or testing gave, under the buttons."""
        result = self.query_one("#mail-result", Static)
        result.update(safe_text("\n".join(lines), multiline=True))  # the servers' words
        result.set_class(not ok, "-failed")

    # --- reacting ----------------------------------------------------------------------------

    @on(Input.Changed, "#mail-address")
    def address_changed(self, event: Input.Changed) -> None:
        preset = preset_for(event.value)
        note = self.query_one("#mail-note", Static)
        own = any(self.text(field) for field in SERVER_FIELDS)
        if preset is None:
            note.update("")
            return
        note.update(f"{preset.name}: {preset.note}")
        if own and self._preset_filled != preset.name and self._preset_filled is None:
            return  # servers the player typed: keep them
        for server in ("imap", "smtp"):
            self.set_text(f"{server}-host", getattr(preset, f"{server}_host"))
            self.set_text(f"{server}-port", getattr(preset, f"{server}_port"))
            security = getattr(preset, f"{server}_security")
            self.query_one(f"#{server}-security", Select).value = security
        self._preset_filled = preset.name

    @on(Input.Changed, "#imap-host, #smtp-host, #imap-port, #smtp-port")
    def server_changed(self, event: Input.Changed) -> None:
        preset = preset_for(self.text("mail-address"))
        if preset is None or self._preset_filled is None:
            return
        field = event.input.id or ""
        server, _, what = field.partition("-")
        if event.value != str(getattr(preset, f"{server}_{what}")):
            self._preset_filled = None  # the player's own now

    @on(Select.Changed, "#mail-source")
    def source_changed(self, event: Select.Changed) -> None:
        secret = self.query_one("#mail-secret", Input)
        source = str(event.value)
        secret.disabled = source == "keyring"
        secret.placeholder = HINTS.get(source, "")
        if source == "password_env" and not secret.value:
            secret.value = DEFAULT_PASSWORD_ENV

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_save()

    @on(Button.Pressed, "#mail-save")
    def save_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_save()

    @on(Button.Pressed, "#mail-test")
    def test_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        answers = self.answers()
        if isinstance(answers, str):
            self.show_result([answers], ok=False)
            return
        self.show_result(["logging in to both servers..."], ok=True)
        self.post_message(self.Test(answers))

    def action_save(self) -> None:
        answers = self.answers()
        if isinstance(answers, str):
            self.show_result([answers], ok=False)
            return
        self.post_message(self.Save(answers))
