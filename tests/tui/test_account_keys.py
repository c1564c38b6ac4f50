"""The account keys the settings form has no field for (timeouts, the spam folder): written in
config.toml by hand, read and checked, shown by ``account show``, and kept when the form saves
the same account again (`tui.services.accounts.save_answers`)."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from mail.accounts import AccountError, load_mail_config, parse_mail_config
from saves.home import Home
from tui.services import accounts

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
    assert again is not None and again.imap.junk_folder is None
    assert again.imap.idle_timeout == 1500.0


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
    from mail.accounts import to_table

    for imap in ({"junk_folder": "Spam"}, {"ignore_junk": True}, {}):
        table = {
            "address": "a@example.org",
            "imap": {"host": "h", "password_env": "PW", **imap},
            "smtp": {"host": "h", "password_env": "PW"},
        }
        config = parse_mail_config(table)
        assert parse_mail_config(to_table(config)) == config
