"""The mail account form of the settings screen (`tui.widgets.mail_form`), at 80x24.

What the form saves is compared byte for byte with what ``hexpost account add`` writes with
the same answers, and its Test button logs in to the real test servers (Dovecot and aiosmtpd,
as in tests/mail) through the same checks as ``hexpost account test``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.app import App
from textual.errors import NoWidget
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input, RadioButton, Select, Static

from saves.home import Home
from tests.mail.servers import MailStack, find_program, start_mail_stack
from tests.tui.pilots import settle_until
from tests.tui.test_app import SIZE, settle, status_text
from tests.tui.test_settings import open_settings
from tui import cli
from tui.app import HexpostApp
from tui.screens.settings import SettingsScreen
from tui.widgets.mail_form import MailForm

PASSWORD_ENV = "HEXPOST_TEST_FORM_PASSWORD"


@pytest.fixture(scope="module")
def stack() -> Iterator[MailStack]:
    if find_program("dovecot") is None:
        pytest.skip("dovecot is not installed (apt-get install dovecot-imapd dovecot-lmtpd)")
    with start_mail_stack() as servers:
        yield servers


def fill(screen: SettingsScreen, **values: str) -> None:
    for field, value in values.items():
        screen.query_one(f"#{field.replace('_', '-')}", Input).value = value


def choose(screen: SettingsScreen, **values: str) -> None:
    for field, value in values.items():
        screen.query_one(f"#{field.replace('_', '-')}", Select).value = value


def result(screen: SettingsScreen) -> str:
    return str(screen.query_one("#mail-result", Static).content)


def fill_stack(screen: SettingsScreen, stack: MailStack) -> None:
    fill(
        screen,
        mail_address=stack.address("alice"),
        imap_host=stack.host,
        imap_port=str(stack.imaps_port),
        imap_username="alice",
        smtp_host=stack.host,
        smtp_port=str(stack.smtp_port),
        smtp_username="alice",
        mail_ca_file=str(stack.ca_file),
        mail_secret=PASSWORD_ENV,
    )
    choose(screen, imap_security="tls", smtp_security="starttls", mail_source="password_env")


async def show_test_button(pilot: Pilot[None], screen: SettingsScreen) -> Widget:
    """Scroll the Test button into view (made after the next refresh) and wait until the
    screen shows it where a click would find it."""
    button = screen.query_one("#mail-test")
    button.scroll_visible(animate=False)
    await settle_until(pilot, lambda: on_top(pilot.app, button), "the Test button shows")
    return button


def on_top(app: App[None], widget: Widget) -> bool:
    """Whether ``widget`` is what the screen shows at its top left corner."""
    corner = widget.region.offset
    if not widget.region or not app.screen.region.contains_point(corner):
        return False
    try:
        return app.get_widget_at(*corner)[0] is widget
    except NoWidget:
        return False


async def press_test(pilot: Pilot[None], screen: SettingsScreen) -> None:
    """Scroll the Test button into view, click it, and wait for the logins' answer: the
    result under the buttons replaced by something other than "logging in to both
    servers..." (the logins run on a thread, for as long as the servers take)."""
    button = await show_test_button(pilot, screen)
    # Textual's button ignores a click while it shows the last press (0.2 s, "-active").
    await settle_until(pilot, lambda: not button.has_class("-active"), "the button is up")
    shown = screen.query_one("#mail-result", Static)
    before = shown.content

    def answered() -> bool:
        return shown.content is not before and not result(screen).startswith("logging in")

    assert await pilot.click(button), "the click landed on the Test button"
    await settle_until(pilot, answered, "the logins answered")


def cli_flags(stack: MailStack) -> list[str]:
    return [
        *("account", "add", stack.address("alice")),
        *("--imap-host", stack.host, "--imap-port", str(stack.imaps_port)),
        *("--smtp-host", stack.host, "--smtp-port", str(stack.smtp_port)),
        *("--imap-security", "tls", "--smtp-security", "starttls"),
        *("--username", "alice", "--ca-file", str(stack.ca_file)),
        *("--password-env", PASSWORD_ENV),
    ]


async def test_save_writes_what_account_add_writes_and_test_logs_in(
    tmp_path: Path, stack: MailStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PASSWORD_ENV, stack.password("alice"))
    home = Home(tmp_path / "app-home")
    app = HexpostApp(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        form = screen.query_one(MailForm)
        fill_stack(screen, stack)
        fill(screen, imap_port="70000")
        form.action_save()
        await settle(pilot)
        assert "mail.imap.port: 70000 is out of range" in result(screen)
        assert home.config() == {}

        fill(screen, imap_port="99x")
        form.action_save()
        await settle(pilot)
        assert "IMAP port: '99x' is not a number" in result(screen)

        fill(screen, imap_port=str(stack.imaps_port))
        form.action_save()
        await settle(pilot)
        assert "password from the environment variable" in result(screen)
        assert "mail account saved" in status_text(app)
        assert home.config()["transport"] == {"kind": "mail"}
        info = str(screen.query_one("#transport-info", Static).content)
        assert f"Now: mail {stack.address('alice')}" in info
        assert screen.query_one("#kind-mail", RadioButton).value

        await press_test(pilot, screen)
        lines = result(screen).splitlines()
        assert lines[0].startswith("ok      IMAP ")
        assert (
            lines[1]
            == f"ok      SMTP {stack.host}:{stack.smtp_port} (starttls): logged in as alice"
        )
        assert "both logins work" in status_text(app)

        monkeypatch.setenv(PASSWORD_ENV, "not-the-password")
        await press_test(pilot, screen)
        lines = result(screen).splitlines()
        assert lines[0].startswith("FAILED  IMAP: ") and "refused the login" in lines[0]
        assert lines[1].startswith("FAILED  SMTP: ") and PASSWORD_ENV in lines[1]
    cli_home = tmp_path / "cli-home"
    assert cli.main(["--home", str(cli_home), *cli_flags(stack)]) == 0
    assert (cli_home / "config.toml").read_bytes() == home.config_path.read_bytes()


async def test_the_form_shows_the_saved_account_and_the_preset_of_an_address(
    tmp_path: Path, stack: MailStack
) -> None:
    home_dir = tmp_path / "home"
    assert cli.main(["--home", str(home_dir), *cli_flags(stack)]) == 0
    assert cli.main(["--home", str(home_dir), "transport", "folder", str(tmp_path / "f")]) == 0
    home = Home(home_dir)
    app = HexpostApp(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        assert screen.query_one("#mail-address", Input).value == stack.address("alice")
        assert screen.query_one("#smtp-port", Input).value == str(stack.smtp_port)
        assert screen.query_one("#smtp-security", Select).value == "starttls"
        assert screen.query_one("#mail-secret", Input).value == PASSWORD_ENV
        assert screen.query_one("#kind-folder", RadioButton).value

        # the saved account becomes the transport, as `hexpost transport mail` does
        screen.query_one("#kind-mail", RadioButton).value = True
        await settle(pilot)
        assert f"by mail as {stack.address('alice')}" in status_text(app)
        assert home.config()["transport"] == {"kind": "mail"}

        # a known provider's servers replace the ones its preset filled in, not typed ones
        fill(screen, mail_address="zoe@gmail.com")
        await settle(pilot)
        assert screen.query_one("#imap-host", Input).value == stack.host  # typed: kept
        fill(screen, imap_host="", imap_port="", smtp_host="", smtp_port="")
        fill(screen, mail_address="zoe@example.org")
        await settle(pilot)
        fill(screen, mail_address="zoe@outlook.com")
        await settle(pilot)
        assert screen.query_one("#imap-host", Input).value == "outlook.office365.com"
        assert screen.query_one("#smtp-port", Input).value == "587"
        assert screen.query_one("#smtp-security", Select).value == "starttls"
        assert "OAuth2" in str(screen.query_one("#mail-note", Static).content)
        fill(screen, mail_address="zoe@yahoo.com")
        await settle(pilot)
        assert screen.query_one("#smtp-host", Input).value == "smtp.mail.yahoo.com"

        choose(screen, mail_source="keyring")
        await settle(pilot)
        assert screen.query_one("#mail-secret", Input).disabled
        screen.query_one(MailForm).action_save()
        await settle(pilot)
        mail = home.config()["mail"]
        assert mail["imap"]["keyring"] is True
        assert mail["smtp"]["host"] == "smtp.mail.yahoo.com"


async def test_the_form_fits_80x24_and_a_broken_account_is_said_inline(tmp_path: Path) -> None:
    home = Home(tmp_path / "home")
    home.save_config({"mail": {"address": "x@example.org", "imap": {"host": "i"}}})
    app = HexpostApp(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        assert "the saved account cannot be read: mail: missing" in result(screen)
        button = await show_test_button(pilot, screen)
        assert button.region.right <= SIZE[0]
        assert 0 < button.region.y < SIZE[1] - 1
        assert screen.query_one("#mail-ca-file", Input).region.right <= SIZE[0]
