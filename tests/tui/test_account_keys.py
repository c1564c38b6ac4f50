"""The account keys beyond the servers and the password: the ones the settings form has no
field for (timeouts, the folder taken mail is moved to), written in config.toml by hand, read
and checked, shown by ``account show``, and kept when the form saves the same account again
(`tui.services.accounts.save_answers`); and the spam folder, which the form shows and sets."""

from __future__ import annotations

import tomllib
from pathlib import Path

import msgspec
import pytest
from textual.app import App, ComposeResult

from mail.accounts import AccountError, load_mail_config, parse_mail_config, to_table
from saves.home import Home
from tui import cli
from tui.services import accounts
from tui.widgets.mail_form import MailForm

ACCOUNT = """\
[mail]
address = "alice@example.org"
[mail.imap]
host = "imap.example.org"
password_env = "PW"
timeout = 12
idle_timeout = 600
junk_folder = "Bulk Mail"
[mail.smtp]
host = "smtp.example.org"
password_env = "PW"
timeout = 9
"""


def home_with(tmp_path: Path, text: str) -> Home:
    home = Home(tmp_path)
    home.ensure()
    home.config_path.write_text(text, encoding="utf-8")
    return home


def test_the_form_keeps_the_keys_it_does_not_show(tmp_path: Path) -> None:
    home = home_with(tmp_path, ACCOUNT)
    saved = load_mail_config(home)
    assert saved is not None
    answers = msgspec.structs.replace(accounts.answers_of(saved), folder="Games")
    accounts.save_answers(home, answers)
    again = load_mail_config(home)
    assert again is not None and again.imap.folder == "Games"
    assert (again.imap.timeout, again.imap.idle_timeout, again.imap.junk_folder) == (
        12.0,
        600.0,
        "Bulk Mail",
    )
    assert again.smtp.timeout == 9.0


def test_another_address_starts_from_the_defaults(tmp_path: Path) -> None:
    home = home_with(tmp_path, ACCOUNT)
    saved = load_mail_config(home)
    assert saved is not None
    answers = msgspec.structs.replace(accounts.answers_of(saved), address="alice@example.net")
    accounts.save_answers(home, answers)
    again = load_mail_config(home)
    assert again is not None and again.imap.idle_timeout == 1500.0
    assert again.imap.timeout == 30.0 and again.smtp.timeout == 30.0


def test_account_show_names_the_spam_folder_when_it_is_set() -> None:
    table = {
        "address": "a@example.org",
        "imap": {"host": "h", "password_env": "PW", "junk_folder": "Bulk Mail"},
        "smtp": {"host": "h", "password_env": "PW"},
    }
    assert "          spam folder Bulk Mail looked in for packet mail" in accounts.account_lines(
        parse_mail_config(table)
    )
    table["imap"] = {"host": "h", "password_env": "PW", "ignore_junk": True}
    lines = accounts.account_lines(parse_mail_config(table))
    assert "          spam folder never looked in (ignore_junk)" in lines
    table["imap"] = {"host": "h", "password_env": "PW"}
    assert not [line for line in accounts.account_lines(parse_mail_config(table)) if "spam" in line]


@pytest.mark.parametrize(
    ("imap", "said"),
    [
        ({"junk_folder": 5}, "mail.imap.junk_folder: expected a string"),
        ({"junk_folder": " "}, "mail.imap.junk_folder: must not be empty"),
        ({"junk_folder": "INBOX"}, "mail.imap.junk_folder: must differ from folder"),
        (
            {"processed_folder": "done", "junk_folder": "done"},
            "mail.imap.junk_folder: must differ from folder and processed_folder",
        ),
        ({"ignore_junk": "yes"}, "mail.imap.ignore_junk: expected true or false, got 'yes'"),
    ],
)
def test_a_bad_spam_folder_key_is_named(imap: dict[str, object], said: str) -> None:
    table = {
        "address": "a@example.org",
        "imap": {"host": "h", "password_env": "PW", **imap},
        "smtp": {"host": "h", "password_env": "PW"},
    }
    with pytest.raises(AccountError) as raised:
        parse_mail_config(table)
    assert said in str(raised.value)


def test_the_spam_folder_keys_are_written_back_as_read() -> None:
    for imap in ({"junk_folder": "Spam"}, {"ignore_junk": True}, {}):
        table = {
            "address": "a@example.org",
            "imap": {"host": "h", "password_env": "PW", **imap},
            "smtp": {"host": "h", "password_env": "PW"},
        }
        config = parse_mail_config(table)
        assert parse_mail_config(to_table(config)) == config


@pytest.mark.parametrize(
    ("flags", "written"),
    [
        (["--junk-folder", "Bulk Mail"], {"junk_folder": "Bulk Mail"}),
        (["--ignore-junk"], {"ignore_junk": True}),
        ([], {}),
    ],
)
def test_account_add_writes_the_spam_folder_flags(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    flags: list[str],
    written: dict[str, object],
) -> None:
    home = tmp_path / "home"
    args = ["a@example.org", "--imap-host", "h", "--smtp-host", "h", "--password-env", "PW"]
    assert cli.main(["--home", str(home), "account", "add", *args, *flags]) == 0
    imap = tomllib.loads((home / "config.toml").read_text(encoding="utf-8"))["mail"]["imap"]
    assert {key: imap[key] for key in ("junk_folder", "ignore_junk") if key in imap} == written
    shown = capsys.readouterr().out
    assert ("spam folder" in shown) == bool(flags)


def test_account_add_takes_one_of_the_two_spam_folder_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["a@example.org", "--imap-host", "h", "--smtp-host", "h", "--password-env", "PW"]
    both = ["--junk-folder", "S", "--ignore-junk"]
    with pytest.raises(SystemExit) as exited:
        cli.main(["--home", str(tmp_path), "account", "add", *args, *both])
    assert exited.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


class FormApp(App[None]):
    """The settings screen's mail form alone, tall enough to show every field."""

    def compose(self) -> ComposeResult:
        yield MailForm()


SPAM_FIELDS = [
    ({"junk_folder": "Bulk Mail"}, "Bulk Mail", {"junk_folder": "Bulk Mail", "ignore_junk": False}),
    ({"ignore_junk": True}, "-", {"junk_folder": None, "ignore_junk": True}),
    ({}, "", {"junk_folder": None, "ignore_junk": False}),
]


@pytest.mark.parametrize(("imap", "shown", "answered"), SPAM_FIELDS)
async def test_the_form_shows_and_sets_the_spam_folder(
    tmp_path: Path, imap: dict[str, object], shown: str, answered: dict[str, object]
) -> None:
    """A blank field finds the folder by itself, ``-`` never looks, a name names it."""
    table = {
        "address": "a@example.org",
        "imap": {"host": "h", "password_env": "PW", "processed_folder": "Done", **imap},
        "smtp": {"host": "h", "password_env": "PW"},
    }
    saved = parse_mail_config(table)
    app = FormApp()
    async with app.run_test(size=(80, 40)) as pilot:
        form = app.query_one(MailForm)
        form.fill(accounts.answers_of(saved))
        await pilot.pause()
        assert form.text("mail-junk") == shown
        answers = form.answers()
    assert not isinstance(answers, str)
    assert {"junk_folder": answers.junk_folder, "ignore_junk": answers.ignore_junk} == answered
    # What the form gives, saved: the folder taken mail is moved to is kept, as before.
    home = home_with(tmp_path, "")
    home.save_config({"mail": to_table(saved)})
    accounts.save_answers(home, answers)
    again = load_mail_config(home)
    assert again is not None and again.imap.processed_folder == "Done"
    assert (again.imap.junk_folder, again.imap.ignore_junk) == tuple(answered.values())
