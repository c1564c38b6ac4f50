"""Who this home plays as: the identity's card, the form that makes one, and unlocking it.

The form makes the identity through `Session.create_identity`, which runs the very function
``hexpost identity create`` runs (`tui.services.home.create_identity`), so the app and the
command line cannot make different keys. The form itself only gathers the answers and checks what
needs no store (a name, the passphrase typed twice alike); the address and the rest are
checked by that shared code, and its refusal is shown on the status line.

`ask_passphrase` is the one way a screen gets an encrypted key unlocked: it asks with
`PassphraseDialog`, tries the answer on the store thread (`Session.unlock`), asks again
saying "wrong passphrase" until the key opens or the player cancels, then carries on with
whatever needed the key (sending orders, a chat line, a sync's automatic replies).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, Checkbox, Input, Static

from tui.widgets.passphrase import PassphraseDialog
from tui.widgets.toggles import MarkedCheckbox

if TYPE_CHECKING:
    from tui.screens.base import HexpostScreen
    from tui.services.home import IdentityRecord


def identity_lines(record: IdentityRecord | None, *, unlocked: bool = False) -> list[str]:
    """`tui.services.home.identity_record` as the settings screen shows it; ``unlocked``:
    this session holds the passphrase already (nothing will ask for it again)."""
    if record is None:
        return ["No identity yet: fill in the form below to make one."]
    lock = "NOT encrypted (no passphrase)"
    if record.encrypted:
        lock = "encrypted, unlocked for now" if unlocked else "encrypted with a passphrase"
    return [
        f"Name:        {record.name}",
        f"Address:     {record.address}",
        f"Fingerprint: {record.fingerprint}",
        f"Key:         {lock}",
        f"Key file:    {record.key_file}",
        "Compare the fingerprint with your opponent's copy by another channel.",
    ]


class IdentityForm(Vertical):
    """Name, address and the passphrase twice (or "no passphrase"); posts `Create`."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "create", "Create identity", show=False),
    ]

    DEFAULT_CSS = """
    IdentityForm {
        height: auto;
        & Horizontal { height: auto; }
        & .form-label { width: 14; padding: 0 1 0 0; }
        & Input { width: 1fr; }
        & Button { margin: 0 0 0 14; }
    }
    """

    class Create(Message):
        """Make the identity; ``passphrase`` None means stored unencrypted (chosen so)."""

        def __init__(self, name: str, address: str, passphrase: str | None) -> None:
            super().__init__()
            self.name = name
            self.address = address
            self.passphrase = passphrase

    class Problem(Message):
        """The answers cannot be sent as they are; ``text`` says why."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def compose(self) -> ComposeResult:
        for label, field, password, hint in (
            ("Name", "id-name", False, "as your opponents will see it"),
            ("Address", "id-address", False, "you@example.org"),
            ("Passphrase", "id-pass", True, "protects the key on this machine"),
            ("Again", "id-pass2", True, "the same passphrase"),
        ):
            with Horizontal():
                yield Static(label, classes="form-label", markup=False)
                yield Input(id=field, password=password, placeholder=hint, compact=True)
        yield MarkedCheckbox(
            "No passphrase: key stored unencrypted (a machine only you use)",
            id="id-no-pass",
            compact=True,
        )
        yield Button("Create identity", id="id-create", compact=True)

    def value(self, field: str) -> str:
        return self.query_one(f"#{field}", Input).value

    @on(Checkbox.Changed, "#id-no-pass")
    def no_passphrase(self, event: Checkbox.Changed) -> None:
        for field in ("#id-pass", "#id-pass2"):
            self.query_one(field, Input).disabled = event.value

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_create()

    @on(Button.Pressed, "#id-create")
    def pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_create()

    def action_create(self) -> None:
        name, address = self.value("id-name").strip(), self.value("id-address").strip()
        if not name or not address:
            self.post_message(self.Problem("an identity needs a name and an email address"))
            return
        if self.query_one("#id-no-pass", Checkbox).value:
            self.post_message(self.Create(name, address, None))
            return
        first, again = self.value("id-pass"), self.value("id-pass2")
        if not first:
            self.post_message(
                self.Problem("type a passphrase twice, or tick 'No passphrase' on purpose")
            )
        elif first != again:
            self.post_message(self.Problem("the two passphrases differ: type them again"))
            for field in ("#id-pass", "#id-pass2"):
                self.query_one(field, Input).value = ""
            self.query_one("#id-pass", Input).focus()
        else:
            self.post_message(self.Create(name, address, first))


def ask_passphrase(
    screen: HexpostScreen,
    purpose: str,
    then: Callable[[], object],
    *,
    cancelled: Callable[[], object] | None = None,
    error: str = "",
) -> None:
    """Ask for the key's passphrase until it opens the key, then call ``then``; on Escape
    call ``cancelled`` instead (nothing was signed). ``purpose`` ends "Passphrase of your
    key, to ..."."""

    def answered(text: str | None) -> None:
        if text is None:
            if cancelled is not None:
                cancelled()
            return
        screen.status.busy("opening the key...")
        screen.run_worker(try_it(text), group="unlock", exclusive=True)

    async def try_it(text: str) -> None:
        problem = await screen.session.unlock(text)
        if problem is None:
            screen.status.say("key unlocked for this session")
            then()
        else:
            screen.status.say(problem)
            ask_passphrase(screen, purpose, then, cancelled=cancelled, error=problem)

    screen.app.push_screen(PassphraseDialog(purpose, error=error), answered)
