"""The [mail] table of config.toml: every refusal, the round trip, presets and secret sources."""

from __future__ import annotations

import shlex
import sys
import tomllib
import types
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from engine.core.errors import HexpostError
from mail.accounts import (
    AccountError,
    ImapConfig,
    MailConfig,
    SmtpConfig,
    is_loopback,
    load_mail_config,
    parse_mail_config,
    save_mail_config,
    to_table,
)
from mail.credentials import resolve_secret
from mail.presets import PRESETS, preset_for
from saves.home import Home


def table(**changes: Any) -> dict[str, Any]:
    """A valid [mail] table; ``imap``/``smtp`` changes are merged (None deletes a key)."""
    base: dict[str, Any] = {
        "address": "alice@example.org",
        "imap": {"host": "imap.example.org", "password_env": "HEXPOST_TEST_IMAP"},
        "smtp": {"host": "smtp.example.org", "password_env": "HEXPOST_TEST_SMTP"},
    }
    for key, value in changes.items():
        if key in ("imap", "smtp") and isinstance(value, dict):
            merged = {**base[key], **value}
            base[key] = {k: v for k, v in merged.items() if v is not None}
        elif value is None:
            del base[key]
        else:
            base[key] = value
    return base


def refused(data: dict[str, Any]) -> str:
    with pytest.raises(AccountError) as caught:
        parse_mail_config(data)
    assert isinstance(caught.value, HexpostError)
    return str(caught.value)


def command(code: str) -> str:
    return shlex.join([sys.executable, "-c", code])


# --- parsing ------------------------------------------------------------------------------


def test_minimal_table_gets_the_defaults() -> None:
    config = parse_mail_config(table())
    assert config.address == "alice@example.org"
    assert config.imap == ImapConfig(
        host="imap.example.org",
        port=993,
        security="tls",
        username="alice@example.org",
        password_env="HEXPOST_TEST_IMAP",
    )
    assert config.imap.folder == "INBOX"
    assert config.imap.processed_folder is None
    assert config.imap.timeout == 30.0
    assert config.imap.idle_timeout == 1500.0
    assert config.smtp.port == 465
    assert config.smtp.username == "alice@example.org"
    assert not config.imap.uses_oauth2


@pytest.mark.parametrize(
    ("section", "security", "port"),
    [("imap", "starttls", 143), ("smtp", "starttls", 587), ("imap", "plain", 143)],
)
def test_default_port_follows_security(section: str, security: str, port: int) -> None:
    config = parse_mail_config(table(**{section: {"security": security, "host": "localhost"}}))
    assert getattr(config, section).port == port


def test_the_issue_example_parses() -> None:
    config = parse_mail_config(
        {
            "address": "alice@example.org",
            "imap": {
                "host": "mail.example.org",
                "port": 993,
                "security": "tls",
                "username": "alice",
                "folder": "INBOX",
                "ca_file": "/etc/ssl/ca.pem",
                "password_command": "pass show mail",
            },
            "smtp": {
                "host": "mail.example.org",
                "port": 465,
                "security": "tls",
                "username": "alice",
                "keyring": True,
            },
        }
    )
    assert config.imap.password_command == "pass show mail"
    assert config.imap.ca_file == "/etc/ssl/ca.pem"
    assert config.smtp.keyring
    assert config.smtp.keyring_user == "alice@mail.example.org"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            table(imap={"security": "ssl"}),
            "mail.imap.security: 'ssl' is not one of tls, starttls, plain",
        ),
        (
            table(smtp={"security": "plain"}),
            "mail.smtp.security = plain is allowed only for a loopback host, not smtp.example.org",
        ),
        (
            table(imap={"password_command": "pass show mail"}),
            "mail.imap: give exactly one of password_env, password_command, keyring, "
            "oauth2_command (given: password_env, password_command)",
        ),
        (
            table(smtp={"password_env": None}),
            "mail.smtp: give exactly one of password_env, password_command, keyring, "
            "oauth2_command",
        ),
        (table(imap={"host": None}), "mail.imap.host: missing"),
        (table(imap={"host": "  "}), "mail.imap.host: must not be empty"),
        (table(imap={"host": 7}), "mail.imap.host: expected a string, got 7"),
        (
            table(imap={"host": "imap example.org"}),
            "mail.imap.host: 'imap example.org' is not a server name (such as imap.example.org)",
        ),
        (
            table(smtp={"host": "smtps://smtp.example.org"}),
            "mail.smtp.host: give the server's name alone, without 'smtps://'",
        ),
        (
            table(imap={"host": "imap.example.org:993"}),
            "mail.imap.host: the port goes in port, not in host (host = 'imap.example.org')",
        ),
        (table(imap={"host": "imap..example.org"}), "mail.imap.host: 'imap..example.org' is not"),
        (table(imap={"host": "a" * 64 + ".org"}), "is not a server name"),
        (table(smtp={"port": 0}), "mail.smtp.port: 0 is out of range (1 to 65535)"),
        (table(smtp={"port": 70000}), "mail.smtp.port: 70000 is out of range (1 to 65535)"),
        (table(imap={"port": "993"}), "mail.imap.port: expected a whole number, got '993'"),
        (table(imap={"port": True}), "mail.imap.port: expected a whole number, got True"),
        (table(imap={"hots": "x"}), "mail.imap: unknown key hots (known: host, port,"),
        (table(smtp={"a": 1, "b": 2}), "mail.smtp: unknown keys a, b (known:"),
        (table(smtp={"folder": "INBOX"}), "mail.smtp: unknown key folder"),
        (table(imap={"password": "hunter2"}), "mail.imap.password: passwords are not stored"),
        (table(smtp={"password": "x"}), "use password_env, password_command, keyring"),
        (table(server="x"), "mail: unknown key server"),
        (table(address=None), "mail.address: missing"),
        (table(address="alice"), "mail.address: 'alice' is not an email address"),
        (table(address="a b@c.org"), "mail.address: 'a b@c.org' is not an email address"),
        (
            table(address="Alice <alice@example.org>"),
            "mail.address: 'Alice <alice@example.org>' holds a name besides the address",
        ),
        (table(imap=None), "mail: missing the [mail.imap] table"),
        (table(smtp="smtp.example.org"), "mail.smtp: expected a table"),
        (table(imap={"timeout": 0}), "mail.imap.timeout: 0 is out of range"),
        (table(smtp={"timeout": "30"}), "mail.smtp.timeout: expected a number of seconds"),
        (table(imap={"idle_timeout": 3600}), "mail.imap.idle_timeout: 3600 is out of range"),
        (
            table(imap={"processed_folder": "INBOX"}),
            "mail.imap.processed_folder: must differ from folder ('INBOX')",
        ),
        (table(imap={"folder": ""}), "mail.imap.folder: must not be empty"),
        (
            table(smtp={"password_env": None, "password_command": ""}),
            "mail.smtp.password_command: must not be empty",
        ),
        (
            table(smtp={"password_env": None, "oauth2_command": [1, 2]}),
            "mail.smtp.oauth2_command: expected a command",
        ),
        (
            table(smtp={"password_env": None, "password_command": "pass 'show"}),
            "mail.smtp.password_command: cannot split",
        ),
    ],
)
def test_refusals_say_what_and_where(data: dict[str, Any], message: str) -> None:
    assert message in refused(data)


def test_password_refusal_names_every_source() -> None:
    text = refused(table(imap={"password": "hunter2"}))
    assert text == (
        "mail.imap.password: passwords are not stored in config.toml; use password_env, "
        "password_command, keyring = true or oauth2_command instead"
    )
    assert "hunter2" not in text


def test_keyring_must_be_a_boolean() -> None:
    data = table(imap={"password_env": None, "keyring": "yes"})
    assert refused(data) == "mail.imap.keyring: expected true or false, got 'yes'"


def test_keyring_false_is_no_source() -> None:
    config = parse_mail_config(table(imap={"keyring": False}))
    assert config.imap.password_env == "HEXPOST_TEST_IMAP"
    assert not config.imap.keyring


def test_plain_is_allowed_on_loopback() -> None:
    for host in ("localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]", "LOCALHOST."):
        assert is_loopback(host), host
        config = parse_mail_config(table(smtp={"host": host, "security": "plain"}))
        assert config.smtp.security == "plain"
    for host in ("example.org", "10.0.0.1", "localhost.example.org", "::2"):
        assert not is_loopback(host), host


def test_a_name_under_localhost_is_not_loopback() -> None:
    """Only the name ``localhost`` itself is trusted: ``x.localhost`` resolves wherever the
    resolver says, so plain text to it is refused like to any other host."""
    for host in ("x.localhost", "mail.localhost.", "evil.LOCALHOST", "127.0.0.1.example.org"):
        assert not is_loopback(host), host
        with pytest.raises(AccountError, match="plain"):
            parse_mail_config(table(smtp={"host": host, "security": "plain"}))


def test_oauth2_command() -> None:
    config = parse_mail_config(
        table(imap={"password_env": None, "oauth2_command": ["oauth2", "--token"]})
    )
    assert config.imap.oauth2_command == ("oauth2", "--token")
    assert config.imap.uses_oauth2


# --- round trip and the home ----------------------------------------------------------------


FULL = MailConfig(
    address="alice@example.org",
    imap=ImapConfig(
        host="imap.example.org",
        port=1993,
        security="starttls",
        username="alice",
        ca_file="/srv/ca.pem",
        timeout=12.5,
        oauth2_command=("get-token", "--imap"),
        folder="Games",
        processed_folder="Games/done",
        idle_timeout=600.0,
    ),
    smtp=SmtpConfig(host="127.0.0.1", port=2525, security="plain", username="alice", keyring=True),
)


@pytest.mark.parametrize(
    "config",
    [
        FULL,
        parse_mail_config(table()),
        *(p.config("x@" + p.domains[0], keyring=True) for p in PRESETS),
    ],
)
def test_round_trip(config: MailConfig) -> None:
    data = to_table(config)
    assert parse_mail_config(data) == config
    # through TOML text as well, as config.toml stores it
    assert parse_mail_config(tomllib.loads(tomli_w.dumps({"mail": data}))["mail"]) == config


def test_to_table_leaves_out_unset_keys() -> None:
    data = to_table(parse_mail_config(table()))
    assert data["imap"] == {
        "host": "imap.example.org",
        "port": 993,
        "security": "tls",
        "username": "alice@example.org",
        "timeout": 30.0,
        "password_env": "HEXPOST_TEST_IMAP",
        "folder": "INBOX",
        "idle_timeout": 1500.0,
    }
    assert "keyring" not in data["smtp"]
    assert "password" not in data["smtp"]


def test_save_keeps_the_other_tables(tmp_path: Path) -> None:
    home = Home(tmp_path / "home")
    assert load_mail_config(home) is None
    home.save_config({"transport": {"kind": "folder", "path": "/sync"}})
    save_mail_config(home, FULL)
    assert home.config()["transport"] == {"kind": "folder", "path": "/sync"}
    assert load_mail_config(home) == FULL
    changed = parse_mail_config(table())
    save_mail_config(home, changed)
    assert load_mail_config(home) == changed
    assert home.config()["transport"] == {"kind": "folder", "path": "/sync"}


def test_load_refuses_a_bad_table(tmp_path: Path) -> None:
    home = Home(tmp_path)
    home.save_config({"mail": table(imap={"security": "ssl"})})
    with pytest.raises(AccountError, match=r"mail\.imap\.security"):
        load_mail_config(home)


# --- presets ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "name", "imap", "smtp"),
    [
        ("a@gmail.com", "Gmail", ("imap.gmail.com", 993, "tls"), ("smtp.gmail.com", 465, "tls")),
        (
            "a@GoogleMail.com",
            "Gmail",
            ("imap.gmail.com", 993, "tls"),
            ("smtp.gmail.com", 465, "tls"),
        ),
        *(
            (
                f"a@{domain}",
                "Outlook / Microsoft 365",
                ("outlook.office365.com", 993, "tls"),
                ("smtp.office365.com", 587, "starttls"),
            )
            for domain in ("outlook.com", "hotmail.com", "live.com", "msn.com")
        ),
        *(
            (
                f"a@{domain}",
                "Fastmail",
                ("imap.fastmail.com", 993, "tls"),
                ("smtp.fastmail.com", 465, "tls"),
            )
            for domain in ("fastmail.com", "fastmail.fm")
        ),
        *(
            (
                f"a@{domain}",
                "iCloud",
                ("imap.mail.me.com", 993, "tls"),
                ("smtp.mail.me.com", 587, "starttls"),
            )
            for domain in ("icloud.com", "me.com", "mac.com")
        ),
        *(
            (
                f"a@{domain}",
                "Yahoo",
                ("imap.mail.yahoo.com", 993, "tls"),
                ("smtp.mail.yahoo.com", 465, "tls"),
            )
            for domain in ("yahoo.com", "ymail.com", "rocketmail.com")
        ),
        ("a@aol.com", "AOL", ("imap.aol.com", 993, "tls"), ("smtp.aol.com", 465, "tls")),
        (
            "a@comcast.net",
            "Comcast / Xfinity",
            ("imap.comcast.net", 993, "tls"),
            ("smtp.comcast.net", 587, "starttls"),
        ),
        ("a@gmx.com", "GMX", ("imap.gmx.com", 993, "tls"), ("mail.gmx.com", 587, "starttls")),
        ("a@gmx.de", "GMX", ("imap.gmx.net", 993, "tls"), ("mail.gmx.net", 587, "starttls")),
        (
            "a@mailbox.org",
            "mailbox.org",
            ("imap.mailbox.org", 993, "tls"),
            ("smtp.mailbox.org", 465, "tls"),
        ),
        ("a@posteo.de", "Posteo", ("posteo.de", 993, "tls"), ("posteo.de", 465, "tls")),
        ("a@zoho.com", "Zoho Mail", ("imap.zoho.com", 993, "tls"), ("smtp.zoho.com", 465, "tls")),
    ],
)
def test_presets(
    address: str, name: str, imap: tuple[str, int, str], smtp: tuple[str, int, str]
) -> None:
    preset = preset_for(address)
    assert preset is not None
    assert preset.name == name
    assert preset.note
    config = preset.config(address, password_env="MAILPW")
    assert (config.imap.host, config.imap.port, config.imap.security) == imap
    assert (config.smtp.host, config.smtp.port, config.smtp.security) == smtp
    assert config.imap.username == config.smtp.username == address
    assert config.imap.password_env == config.smtp.password_env == "MAILPW"


@pytest.mark.parametrize("address", ["a@example.org", "a@gmail.com.evil.org", "gmail.com", ""])
def test_no_preset_for_other_domains(address: str) -> None:
    assert preset_for(address) is None


def test_preset_config_still_needs_one_secret_source() -> None:
    preset = preset_for("a@gmail.com")
    assert preset is not None
    with pytest.raises(AccountError, match="give exactly one of"):
        preset.config("a@gmail.com")
    assert preset.config("a@gmail.com", oauth2_command="oauth2 gmail").smtp.uses_oauth2


# --- secrets ------------------------------------------------------------------------------


def server(**source: Any) -> SmtpConfig:
    return SmtpConfig(host="smtp.example.org", port=465, username="alice", **source)


def test_secret_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEXPOST_TEST_PW", "s3cret value")
    assert resolve_secret(server(password_env="HEXPOST_TEST_PW")) == "s3cret value"


def test_missing_env_var_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HEXPOST_TEST_PW", raising=False)
    with pytest.raises(AccountError) as caught:
        resolve_secret(server(password_env="HEXPOST_TEST_PW"))
    assert str(caught.value) == (
        "mail.smtp.password_env: the environment variable HEXPOST_TEST_PW is not set"
    )
    monkeypatch.setenv("HEXPOST_TEST_PW", "")
    with pytest.raises(AccountError, match="HEXPOST_TEST_PW is empty"):
        resolve_secret(server(password_env="HEXPOST_TEST_PW"))


def test_secret_from_command() -> None:
    assert resolve_secret(server(password_command=command("print('s3cret')"))) == "s3cret"
    # an argument list runs as is; only one trailing newline goes, other spaces stay
    argv = (sys.executable, "-c", "import sys; sys.stdout.write(' a b \\r\\n')")
    assert resolve_secret(server(password_command=argv)) == " a b "


def test_command_runs_without_a_shell(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    text = command("print('s3cret')") + f" ; touch {shlex.quote(str(marker))}"
    # `;` and `touch` reach python as arguments, which it ignores
    assert resolve_secret(server(password_command=text)) == "s3cret"
    assert not marker.exists()


def test_token_from_oauth2_command() -> None:
    account = ImapConfig(
        host="imap.gmail.com",
        port=993,
        username="a@gmail.com",
        oauth2_command=command("print('ya29.token')"),
    )
    assert resolve_secret(account) == "ya29.token"


def test_failing_command_echoes_nothing_it_printed() -> None:
    """A secret tool may print (part of) a secret on stderr or stdout before failing: the error
    says the exit code and what to do, and not one line of the output."""
    code = (
        "import sys; print('s3cret-out'); "
        "sys.stderr.write('gpg: s3cret-err decryption failed\\nmore detail\\n'); sys.exit(2)"
    )
    with pytest.raises(AccountError) as caught:
        resolve_secret(server(password_command=command(code)))
    text = str(caught.value)
    assert text.startswith("mail.smtp.password_command: ")
    assert "failed with exit code 2; run the command by hand" in text
    for leaked in ("s3cret", "gpg", "decryption", "more detail"):
        assert leaked not in text, leaked


def test_failing_oauth2_command_echoes_nothing_either() -> None:
    code = "import sys; sys.stderr.write('token ya29.s3cret expired'); sys.exit(3)"
    with pytest.raises(AccountError) as caught:
        resolve_secret(server(oauth2_command=command(code)))
    text = str(caught.value)
    assert text.startswith("mail.smtp.oauth2_command: ")
    assert "exit code 3" in text and "by hand" in text
    assert "ya29" not in text and "expired" not in text


def test_command_printing_nothing() -> None:
    with pytest.raises(AccountError, match="printed nothing"):
        resolve_secret(server(password_command=command("print()")))


def test_missing_program() -> None:
    with pytest.raises(
        AccountError,
        match=r"mail\.smtp\.password_command: cannot run 'no-such-hexpost-tool': no such program",
    ):
        resolve_secret(server(password_command="no-such-hexpost-tool show mail"))


def test_keyring_missing_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "keyring", None)  # makes `import keyring` fail
    with pytest.raises(AccountError) as caught:
        resolve_secret(server(keyring=True))
    assert "needs the keyring library" in str(caught.value)
    assert "pip install keyring" in str(caught.value)


def fake_keyring(monkeypatch: pytest.MonkeyPatch, get_password: Any) -> list[tuple[str, str]]:
    calls: list[tuple[str, str]] = []

    def recording(service: str, user: str) -> Any:
        calls.append((service, user))
        return get_password(service, user)

    module = types.ModuleType("keyring")
    module.get_password = recording  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "keyring", module)
    return calls


def test_secret_from_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = fake_keyring(monkeypatch, lambda service, user: "s3cret")
    assert resolve_secret(server(keyring=True)) == "s3cret"
    assert calls == [("hexpost", "alice@smtp.example.org")]


def test_keyring_without_the_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_keyring(monkeypatch, lambda service, user: None)
    with pytest.raises(AccountError) as caught:
        resolve_secret(server(keyring=True))
    assert "keyring set hexpost alice@smtp.example.org" in str(caught.value)


def test_keyring_backend_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(service: str, user: str) -> str:
        raise RuntimeError("no recommended backend")

    fake_keyring(monkeypatch, broken)
    with pytest.raises(AccountError, match="system keyring failed: RuntimeError: no recommended"):
        resolve_secret(server(keyring=True))


def test_no_source_at_all() -> None:
    with pytest.raises(AccountError, match=r"mail\.smtp: give exactly one of"):
        resolve_secret(server())


@pytest.mark.parametrize(
    "host",
    [
        "imap.example.org",
        "IMAP.Example.ORG.",
        "mail-1.example.org",
        "_imap.example.org",
        "localhost",
        "127.0.0.1",
        "::1",
        "[::1]",
        "fe80::1",
        "posta.bücher.de",
    ],
)
def test_a_server_name_or_address_is_taken(host: str) -> None:
    assert parse_mail_config(table(imap={"host": host})).imap.host == host
