"""`hexpost account add|test|show` and `hexpost transport mail|show` (tui/account_cmd.py).

`add` is driven by flags (no terminal under pytest) and, once, by answers typed on a fake
terminal; what it writes is read back from config.toml. `test` logs in to the real Dovecot and
aiosmtpd servers of the `mail_stack` fixture.
"""

from __future__ import annotations

import io
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.mail.servers import HOST, MailStack, free_ports
from tui import cli

PASSWORD_ENV = "HEXPOST_TEST_ACCOUNT_PASSWORD"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def run(home: Path, *args: str) -> int:
    return cli.main(["--home", str(home), *args])


def config_of(home: Path) -> dict[str, Any]:
    with (home / "config.toml").open("rb") as handle:
        return tomllib.load(handle)


def stack_flags(stack: MailStack, **changes: str | None) -> list[str]:
    """`account add` flags for alice on the test servers (IMAPS and SMTP with STARTTLS)."""
    flags: dict[str, str | None] = {
        "--imap-host": stack.host,
        "--imap-port": str(stack.imaps_port),
        "--imap-security": "tls",
        "--smtp-host": stack.host,
        "--smtp-port": str(stack.smtp_port),
        "--smtp-security": "starttls",
        "--username": "alice",
        "--ca-file": str(stack.ca_file),
        "--password-env": PASSWORD_ENV,
    }
    flags.update(changes)
    out = [stack.address("alice")]
    for flag, value in flags.items():
        if value is not None:
            out += [flag, value]
    return out


def error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("hexpost: ")
    return err[0]


# --- add -------------------------------------------------------------------------------------


def test_add_by_flags_writes_the_mail_table_and_keeps_the_other_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('[player]\ncolour = "red"\n\n[transport]\nkind = "folder"\n')
    assert (
        run(
            home,
            "account",
            "add",
            "alice@example.org",
            "--imap-host",
            "imap.example.org",
            "--imap-port",
            "993",
            "--imap-security",
            "tls",
            "--smtp-host",
            "smtp.example.org",
            "--smtp-security",
            "starttls",
            "--username",
            "alice",
            "--folder",
            "Games",
            "--ca-file",
            "/etc/ssl/my-ca.pem",
            "--password-env",
            "MAIL_PASSWORD",
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "hexpost account test" in out
    assert "password from the environment variable MAIL_PASSWORD" in out
    written = config_of(home)
    assert written == {
        "player": {"colour": "red"},
        "transport": {"kind": "mail"},
        "mail": {
            "address": "alice@example.org",
            "imap": {
                "host": "imap.example.org",
                "port": 993,
                "security": "tls",
                "username": "alice",
                "folder": "Games",
                "ca_file": "/etc/ssl/my-ca.pem",
                "password_env": "MAIL_PASSWORD",
                "timeout": 30.0,
                "idle_timeout": 1500.0,
            },
            "smtp": {
                "host": "smtp.example.org",
                "port": 587,  # the usual port of the security given
                "security": "starttls",
                "username": "alice",
                "ca_file": "/etc/ssl/my-ca.pem",
                "password_env": "MAIL_PASSWORD",
                "timeout": 30.0,
            },
        },
    }
    assert "password =" not in (home / "config.toml").read_text()


def test_add_a_preset_address_needs_only_the_password_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    assert run(home, "account", "add", "bob@fastmail.com", "--keyring") == 0
    out = capsys.readouterr().out
    assert "Fastmail: needs an app password" in out
    assert "keyring set hexpost bob@fastmail.com@imap.fastmail.com" in out
    mail = config_of(home)["mail"]
    assert mail["imap"]["host"] == "imap.fastmail.com"
    assert mail["smtp"] == {
        "host": "smtp.fastmail.com",
        "port": 465,
        "security": "tls",
        "username": "bob@fastmail.com",
        "timeout": 30.0,
        "keyring": True,
    }


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--imap-port", "70000"], "mail.imap.port: 70000 is out of range"),
        (["--smtp-security", "plain"], "mail.smtp.security = plain is allowed only for a loopback"),
        (["--folder", "INBOX", "--processed-folder", "INBOX"], "mail.imap.processed_folder"),
        (["--password-command", "'unclosed"], "mail.imap.password_command: cannot split"),
    ],
)
def test_add_refuses_bad_values_naming_the_key_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], named: str
) -> None:
    home = tmp_path / "home"
    args = ["account", "add", "carol@example.org", "--imap-host", "imap.example.org"]
    args += ["--smtp-host", "smtp.example.org"]
    if not any(flag.startswith("--password") for flag in flags):
        args += ["--password-env", "X"]
    assert run(home, *args, *flags) == 1
    assert named in error_line(capsys)
    assert not (home / "config.toml").exists()


def test_add_without_a_terminal_names_the_missing_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    assert run(home, "account", "add", "--password-env", "X") == 1
    assert "ADDRESS is missing" in error_line(capsys)
    assert run(home, "account", "add", "dan@example.org", "--password-env", "X") == 1
    line = error_line(capsys)
    assert "--imap-host is missing" in line
    assert "no terminal" in line
    args = ["account", "add", "dan@example.org", "--imap-host", "i.example.org"]
    assert run(home, *args, "--password-env", "X") == 1
    assert "--smtp-host is missing" in error_line(capsys)
    assert run(home, *args, "--smtp-host", "s.example.org") == 1
    line = error_line(capsys)
    assert "password source is missing" in line
    assert "--password-env VAR" in line and "--oauth2-command CMD" in line
    assert run(home, "account", "add", "not-an-address", "--password-env", "X") == 1
    assert "is not an email address" in error_line(capsys)
    assert not (home / "config.toml").exists()


def test_add_on_a_terminal_offers_the_preset_and_asks_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = "erin@gmail.com\n\nerin.games@gmail.com\n4\noauth2 --token erin\n"
    monkeypatch.setattr("sys.stdin", _Terminal(answers))
    home = tmp_path / "home"
    assert run(home, "account", "add") == 0
    out = capsys.readouterr().out
    assert "Gmail: IMAP imap.gmail.com:993 (tls), SMTP smtp.gmail.com:465 (tls)" in out
    assert "OAuth2 access token" in out  # offered for Gmail
    mail = config_of(home)["mail"]
    assert mail["address"] == "erin@gmail.com"
    for server in ("imap", "smtp"):
        assert mail[server]["username"] == "erin.games@gmail.com"
        assert mail[server]["oauth2_command"] == "oauth2 --token erin"


def test_add_on_a_terminal_asks_for_the_servers_of_an_unknown_provider(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = "mail.example.net\nstarttls\n\nmail.example.net\n\n2525\n\n2\npass show mail\n"
    monkeypatch.setattr("sys.stdin", _Terminal(answers))
    home = tmp_path / "home"
    assert run(home, "account", "add", "fay@example.net") == 0
    assert "no preset for example.net" in capsys.readouterr().out
    mail = config_of(home)["mail"]
    assert (mail["imap"]["port"], mail["imap"]["security"]) == (143, "starttls")
    assert (mail["smtp"]["port"], mail["smtp"]["security"]) == (2525, "tls")
    assert mail["smtp"]["password_command"] == "pass show mail"
    assert mail["imap"]["username"] == "fay@example.net"


# --- show and transport ----------------------------------------------------------------------


def test_show_and_transport_mail_and_show(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    assert run(home, "account", "show") == 1
    assert "run `hexpost account add` first" in error_line(capsys)
    assert run(home, "transport", "mail") == 1
    assert "run `hexpost account add` first" in error_line(capsys)

    flags = ["--imap-host", "imap.example.org", "--smtp-host", "smtp.example.org"]
    assert run(home, "account", "add", "gus@example.org", *flags, "--password-command", "pw") == 0
    assert run(home, "transport", "folder", str(tmp_path / "shared")) == 0
    capsys.readouterr()
    assert run(home, "account", "show") == 0
    out = capsys.readouterr().out
    assert "IMAP:     imap.example.org:993 (tls), user gus@example.org, folder INBOX" in out
    assert "password from the command `pw`" in out
    assert run(home, "account", "show", "--json") == 0
    import json

    record = json.loads(capsys.readouterr().out)
    assert record["transport"] == "folder"
    assert record["mail"]["smtp"]["password_command"] == "pw"
    assert record["secrets"]["imap"] == "the command `pw`"

    assert run(home, "transport", "mail") == 0
    assert "by mail as gus@example.org" in capsys.readouterr().out
    assert config_of(home)["transport"] == {"kind": "mail"}
    assert "mail" in config_of(home)
    assert run(home, "transport", "show") == 0
    assert capsys.readouterr().out.strip() == (
        "transport: mail gus@example.org: receives from imap.example.org:993 folder INBOX, "
        "sends through smtp.example.org:465"
    )


def test_show_and_add_keep_to_80_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A provider's note (Gmail's is some 130 characters) and a long IMAP line wrap under
    the values' column, as over SSH."""
    home = tmp_path / "home"
    flags = ["--password-env", "ZP"]
    assert run(home, "account", "add", "a.rather.long.name@gmail.com", *flags) == 0
    added = capsys.readouterr().out.splitlines()
    assert run(home, "account", "show") == 0
    shown = capsys.readouterr().out.splitlines()
    for lines in (added, shown):  # (but a path longer than a line, kept whole)
        assert all(len(line) <= 80 or " " not in line.strip() for line in lines), lines
    gmail = shown.index(next(line for line in shown if line.startswith("Gmail: ")))
    assert shown[gmail + 1].startswith("          ") and shown[gmail + 1][10] != " "


# --- test against the real servers -----------------------------------------------------------


@pytest.fixture
def alice_password(mail_stack: MailStack, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PASSWORD_ENV, mail_stack.password("alice"))


def add_and_test(
    home: Path, stack: MailStack, capsys: pytest.CaptureFixture[str], **changes: str | None
) -> tuple[int, list[str]]:
    assert run(home, "account", "add", *stack_flags(stack, **changes)) == 0
    capsys.readouterr()
    code = run(home, "account", "test")
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2, lines
    return code, lines


@pytest.mark.usefixtures("alice_password")
def test_account_test_logs_in_to_both_servers(
    tmp_path: Path, mail_stack: MailStack, capsys: pytest.CaptureFixture[str]
) -> None:
    code, (imap, smtp) = add_and_test(tmp_path / "home", mail_stack, capsys)
    assert code == 0
    assert imap.startswith("ok ") and "IMAP" in imap and "alice" in imap
    assert smtp == f"ok      SMTP {HOST}:{mail_stack.smtp_port} (starttls): logged in as alice"


def test_account_test_wrong_password_names_the_server_and_the_source(
    tmp_path: Path,
    mail_stack: MailStack,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(PASSWORD_ENV, "not-the-password")
    code, (imap, smtp) = add_and_test(tmp_path / "home", mail_stack, capsys)
    assert code == 1
    assert imap.startswith("FAILED  IMAP: ")
    assert smtp.startswith("FAILED  SMTP: ")
    assert "refused the login" in imap and PASSWORD_ENV in imap
    assert "refused the login of alice" in smtp
    assert PASSWORD_ENV in smtp  # what to check
    assert "not-the-password" not in imap + smtp


def test_account_test_missing_variable_is_reported_per_server(
    tmp_path: Path,
    mail_stack: MailStack,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(PASSWORD_ENV, raising=False)
    code, (imap, smtp) = add_and_test(tmp_path / "home", mail_stack, capsys)
    assert code == 1
    assert imap == (
        "FAILED  IMAP: cannot get the password: mail.imap.password_env: "
        f"the environment variable {PASSWORD_ENV} is not set"
    )
    assert smtp.startswith("FAILED  SMTP: cannot get the password: mail.smtp.password_env")


@pytest.mark.usefixtures("alice_password")
def test_account_test_smtp_down_says_so(
    tmp_path: Path, mail_stack: MailStack, capsys: pytest.CaptureFixture[str]
) -> None:
    (closed,) = free_ports(1)
    code, (imap, smtp) = add_and_test(
        tmp_path / "home", mail_stack, capsys, **{"--smtp-port": str(closed)}
    )
    assert code == 1
    assert imap.startswith("ok ")
    assert smtp.startswith(f"FAILED  SMTP: cannot connect to the SMTP server {HOST}:{closed}")


@pytest.mark.usefixtures("alice_password")
def test_account_test_refuses_the_test_certificate_without_the_ca_file(
    tmp_path: Path, mail_stack: MailStack, capsys: pytest.CaptureFixture[str]
) -> None:
    code, (imap, smtp) = add_and_test(tmp_path / "home", mail_stack, capsys, **{"--ca-file": None})
    assert code == 1
    assert imap.startswith("FAILED  IMAP: ") and "certificate" in imap
    assert smtp.startswith("FAILED  SMTP: ") and "not trusted" in smtp and "ca_file" in smtp


def test_account_test_without_an_account(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(tmp_path / "home", "account", "test") == 1
    assert "run `hexpost account add` first" in error_line(capsys)


@pytest.mark.parametrize(
    ("identity", "account", "noted"),
    [
        ("bob@example.org", "bob@fastmail.com", True),
        ("Bob@FastMail.com", "bob@fastmail.com", False),
        ("bob+games@fastmail.com", "bob@fastmail.com", False),
    ],
)
def test_an_account_that_is_not_the_identity_s_address_is_noted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], identity: str, account: str, noted: bool
) -> None:
    """The other players mail their packets to the identity's address (the one every genesis
    and join carries): an account reading another mailbox sees them only if that mail is
    forwarded there, which ``account add`` now says instead of leaving the player waiting."""
    home = tmp_path / "home"
    assert run(home, "identity", "create", "--name", "Bob", "--address", identity,
               "--no-passphrase") == 0  # fmt: skip
    capsys.readouterr()
    assert run(home, "account", "add", account, "--keyring") == 0
    out = capsys.readouterr().out
    note = (
        f"note: your identity's address is {identity}, and this account reads {account}: "
        f"the other players send your packets to {identity}, so they reach hexpost only if "
        f"that mail is forwarded to {account}"
    )
    assert (note in " ".join(out.split())) is noted, out
