"""The mail account: answers in, the ``[mail]`` table out, and the servers' verdict on it.

The account is the ``[mail]`` table of the home's config.toml (`mail.accounts`). Whoever sets
it up, the command line (flags, or questions on a terminal) or the app's settings form, hands
the answers to `build_config` as `Answers` and saves the result with `add_account`, so both
write the same table: `mail.accounts.save_mail_config` (no password is ever written, only
where it comes from) and ``[transport] kind = "mail"``, keeping every other table.
`check_account` logs in to both servers as sending and receiving would and returns one
`CheckLine` per server.

Mistakes are `HexpostError` (or its `AccountError`) with a one-line reason naming the flag
or the config key that was wrong.
"""

from __future__ import annotations

import asyncio
import dataclasses
import shlex
from typing import Any

import msgspec

from engine.core.errors import HexpostError
from mail.accounts import (
    SECRET_KEYS,
    AccountError,
    ImapConfig,
    MailConfig,
    ServerConfig,
    SmtpConfig,
    check_address,
    load_mail_config,
    parse_mail_config,
    save_mail_config,
    to_table,
)
from mail.credentials import resolve_secret
from mail.presets import Preset, preset_for
from saves.addresses import same_address
from saves.home import Home

NO_ACCOUNT = "no mail account is set: run `hexpost account add` first"
OAUTH2_PRESETS = ("Gmail", "Outlook / Microsoft 365")
"""The providers whose accounts usually log in with an OAuth2 token rather than a password."""
DEFAULT_PASSWORD_ENV = "HEXPOST_MAIL_PASSWORD"

SECRET_FLAGS = {
    "password_env": "--password-env VAR",
    "password_command": "--password-command CMD",
    "keyring": "--keyring",
    "oauth2_command": "--oauth2-command CMD",
}


class Answers(msgspec.Struct, frozen=True, kw_only=True):
    """What the user said about the account; None means "not said": the provider's preset
    (`mail.presets.preset_for`) or the config's defaults fill it in.

    ``secret_source`` is one of `mail.accounts.SECRET_KEYS`; ``secret_value`` is the variable
    name or the command (None for the keyring). The secret source and ``ca_file`` are the
    same for both servers."""

    address: str
    imap_host: str | None = None
    imap_port: int | None = None
    imap_security: str | None = None
    imap_username: str | None = None
    folder: str | None = None
    processed_folder: str | None = None
    junk_folder: str | None = None
    ignore_junk: bool = False
    smtp_host: str | None = None
    smtp_port: int | None = None
    smtp_security: str | None = None
    smtp_username: str | None = None
    ca_file: str | None = None
    secret_source: str | None = None
    secret_value: str | None = None


def _server_table(
    server: str,
    preset: Preset | None,
    host: str | None,
    port: int | None,
    security: str | None,
    username: str | None,
) -> dict[str, Any]:
    """One server's table from the answers, the preset filling what was not said."""
    preset_host = getattr(preset, f"{server}_host", None) if preset else None
    preset_port = getattr(preset, f"{server}_port", None) if preset else None
    preset_security = getattr(preset, f"{server}_security", None) if preset else None
    table: dict[str, Any] = {}
    if host or preset_host:
        table["host"] = host or preset_host
    table["security"] = security or preset_security or "tls"
    defaults = (ImapConfig if server == "imap" else SmtpConfig).default_ports
    if port is not None:
        table["port"] = port
    elif preset_port is not None and table["security"] == preset_security:
        table["port"] = preset_port
    elif table["security"] in defaults:  # else parse_mail_config names the bad security
        table["port"] = defaults[table["security"]]
    if username:
        table["username"] = username
    return table


def build_config(answers: Answers) -> MailConfig:
    """The account the answers describe, checked by `mail.accounts.parse_mail_config` (whose
    `AccountError` names the key that is wrong: ``mail.imap.port: 70000 is out of range``)."""
    address = check_address("mail.address", answers.address)
    preset = preset_for(address)
    imap = _server_table(
        "imap",
        preset,
        answers.imap_host,
        answers.imap_port,
        answers.imap_security,
        answers.imap_username or address,
    )
    smtp = _server_table(
        "smtp",
        preset,
        answers.smtp_host,
        answers.smtp_port,
        answers.smtp_security,
        answers.smtp_username or answers.imap_username or address,
    )
    if answers.folder:
        imap["folder"] = answers.folder
    if answers.processed_folder:
        imap["processed_folder"] = answers.processed_folder
    if answers.junk_folder:
        imap["junk_folder"] = answers.junk_folder
    if answers.ignore_junk:
        imap["ignore_junk"] = True
    if answers.ca_file:
        imap["ca_file"] = smtp["ca_file"] = answers.ca_file
    source = answers.secret_source
    if source is None:
        raise AccountError(
            "mail: say where the password comes from: "
            + ", ".join(SECRET_FLAGS[key] for key in SECRET_KEYS)
        )
    if source not in SECRET_KEYS:
        raise AccountError(f"mail: {source!r} is not one of {', '.join(SECRET_KEYS)}")
    if source == "keyring":
        imap["keyring"] = smtp["keyring"] = True
    else:
        value = (answers.secret_value or "").strip()
        if not value:
            raise AccountError(f"mail.imap.{source}: must not be empty")
        imap[source] = smtp[source] = value
    return parse_mail_config({"address": address, "imap": imap, "smtp": smtp})


def answers_of(config: MailConfig) -> Answers:
    """A saved account as answers (the settings form is prefilled from them)."""
    source = next(key for key in SECRET_KEYS if getattr(config.imap, key) not in (None, False))
    value = getattr(config.imap, source)
    if isinstance(value, tuple):
        value = shlex.join(value)
    return Answers(
        address=config.address,
        imap_host=config.imap.host,
        imap_port=config.imap.port,
        imap_security=config.imap.security,
        imap_username=config.imap.username,
        folder=config.imap.folder,
        processed_folder=config.imap.processed_folder,
        junk_folder=config.imap.junk_folder,
        ignore_junk=config.imap.ignore_junk,
        smtp_host=config.smtp.host,
        smtp_port=config.smtp.port,
        smtp_security=config.smtp.security,
        smtp_username=config.smtp.username,
        ca_file=config.imap.ca_file or config.smtp.ca_file,
        secret_source=source,
        secret_value=None if value is True else str(value),
    )


def use_mail_transport(home: Home) -> None:
    """Set ``[transport] kind = "mail"``, keeping every other table (as
    `tui.services.transport.use_folder` does for the folder)."""
    config = home.config()
    config["transport"] = {"kind": "mail"}
    home.save_config(config)


def add_account(home: Home, config: MailConfig) -> list[str]:
    """Save ``config`` as the home's account and make mail its transport; returns the lines
    saying what was written. The one way to save an account, for the command line and the
    app alike."""
    save_mail_config(home, config)
    use_mail_transport(home)
    return [
        f"wrote the mail account to {home.config_path} (no password: only where it comes from)",
        *account_lines(config),
        "packets now travel by mail ([transport] kind = mail)",
        *_other_mailbox(home, config.address),
    ]


def _other_mailbox(home: Home, account: str) -> list[str]:
    """A note when the account reads another mailbox than the identity's address reaches:
    every genesis and join carries that address, and the other players mail to it."""
    try:
        identity = home.identity_info()
    except HexpostError:
        return []  # (a damaged key file is reported by the commands that need it)
    if identity is None or same_address(identity.address, account):
        return []
    return [
        f"note: your identity's address is {identity.address}, and this account reads "
        f"{account}: the other players send your packets to {identity.address}, so they "
        f"reach hexpost only if that mail is forwarded to {account}"
    ]


KEPT_IMAP_KEYS = ("timeout", "idle_timeout", "processed_folder")
"""The ``[mail.imap]`` keys the settings form has no field for: written in config.toml by
hand (or ``account add --processed-folder``), kept when the form saves the same address's
account again."""


def save_answers(home: Home, answers: Answers) -> list[str]:
    """`build_config` then `add_account`: what the app's Save button runs. The keys the form
    does not show (`KEPT_IMAP_KEYS`, and the SMTP ``timeout``) stay as they were when the
    account edited keeps its address."""
    config = build_config(answers)
    saved = replaceable_account(home)
    if saved is not None and saved.address == config.address:
        kept = {key: getattr(saved.imap, key) for key in KEPT_IMAP_KEYS}
        config = dataclasses.replace(
            config,
            imap=dataclasses.replace(config.imap, **kept),
            smtp=dataclasses.replace(config.smtp, timeout=saved.smtp.timeout),
        )
    return add_account(home, config)


def saved_answers(home: Home) -> tuple[Answers | None, str | None]:
    """The saved account as answers (None if there is none), and why it cannot be read if
    it cannot (the settings form then starts empty and says so)."""
    try:
        config = load_mail_config(home)
    except HexpostError as exc:
        return None, str(exc)
    return (answers_of(config) if config is not None else None), None


def saved_account(home: Home) -> MailConfig:
    """The account in config.toml; `HexpostError` when there is none."""
    config = load_mail_config(home)
    if config is None:
        raise HexpostError(NO_ACCOUNT)
    return config


def replaceable_account(home: Home) -> MailConfig | None:
    """The current account, or None if there is none or it cannot be read (it is replaced)."""
    try:
        return load_mail_config(home)
    except AccountError:
        return None


def use_mail(home: Home) -> MailConfig:
    """``hexpost transport mail``: the configured account becomes the transport."""
    config = saved_account(home)
    use_mail_transport(home)
    return config


def keyring_users(config: MailConfig) -> list[str]:
    """The keyring entries an account that reads its password from the keyring needs."""
    if not config.imap.keyring:
        return []
    return list(dict.fromkeys(server.keyring_user for server in (config.imap, config.smtp)))


# --- describing ------------------------------------------------------------------------------


def secret_text(server: ServerConfig) -> str:
    """Where a server's secret comes from, in words (never the secret)."""
    if server.password_env is not None:
        return f"the environment variable {server.password_env}"
    if server.password_command is not None:
        return f"the command {_command_text(server.password_command)}"
    if server.oauth2_command is not None:
        return f"an OAuth2 token from the command {_command_text(server.oauth2_command)}"
    return f"the system keyring (service hexpost, user {server.keyring_user})"


def _command_text(command: str | tuple[str, ...]) -> str:
    return f"`{command if isinstance(command, str) else shlex.join(command)}`"


def _junk_lines(imap: ImapConfig) -> list[str]:
    """The spam folder's line of `account_lines`, when the account says more than the default
    (the folder the server flags)."""
    if imap.ignore_junk:
        return ["          spam folder never looked in (ignore_junk)"]
    if imap.junk_folder:
        return [f"          spam folder {imap.junk_folder} looked in for packet mail"]
    return []


def account_lines(config: MailConfig) -> list[str]:
    """The account as ``hexpost account show`` prints it (no secrets)."""
    imap, smtp = config.imap, config.smtp
    folder = f"folder {imap.folder}"
    if imap.processed_folder:
        folder += f", read packets moved to {imap.processed_folder}"
    lines = [
        f"address:  {config.address}",
        f"IMAP:     {imap.host}:{imap.port} ({imap.security}), user {imap.username}, {folder}",
        f"          password from {secret_text(imap)}",
        *_junk_lines(imap),
        f"SMTP:     {smtp.host}:{smtp.port} ({smtp.security}), user {smtp.username}",
        f"          password from {secret_text(smtp)}",
    ]
    cas = {server.ca_file for server in (imap, smtp) if server.ca_file}
    for ca_file in sorted(cas):
        lines.append(f"CA file:  {ca_file}")
    preset = preset_for(config.address)
    if preset is not None:
        lines.append(f"{preset.name}: {preset.note}")
    return lines


class SecretSources(msgspec.Struct, frozen=True):
    """Where each server's secret comes from, in words."""

    imap: str
    smtp: str


class AccountRecord(msgspec.Struct, frozen=True):
    """What ``hexpost account show --json`` prints: the table as written, and in words where
    each secret comes from."""

    config_file: str
    transport: str | None
    mail: dict[str, Any]
    """The ``[mail]`` table exactly as config.toml holds it (`mail.accounts.to_table`)."""
    secrets: SecretSources


def account_record(home: Home, config: MailConfig) -> AccountRecord:
    return AccountRecord(
        config_file=str(home.config_path),
        transport=home.table("transport").get("kind"),
        mail=to_table(config),
        secrets=SecretSources(imap=secret_text(config.imap), smtp=secret_text(config.smtp)),
    )


def mail_transport_text(home: Home) -> str:
    """``transport show`` for mail: the address and both servers, in one line."""
    try:
        config = load_mail_config(home)
    except AccountError as exc:
        return f"mail (the account in config.toml is not usable: {exc})"
    if config is None:
        return f"mail ({NO_ACCOUNT})"
    imap, smtp = config.imap, config.smtp
    return (
        f"mail {config.address}: receives from {imap.host}:{imap.port} folder {imap.folder}, "
        f"sends through {smtp.host}:{smtp.port}"
    )


# --- checking --------------------------------------------------------------------------------


class CheckLine(msgspec.Struct, frozen=True):
    """What logging in to one server gave: ``ok`` and one line to show. ``text`` is the
    server's own words when it refused: a face escapes it before a terminal shows it."""

    server: str
    ok: bool
    text: str

    def __str__(self) -> str:
        return f"ok      {self.text}" if self.ok else f"FAILED  {self.server}: {self.text}"


async def _check_imap(config: ImapConfig) -> CheckLine:
    try:
        secret = await asyncio.to_thread(resolve_secret, config)
    except AccountError as exc:
        return CheckLine("IMAP", False, f"cannot get the password: {exc}")
    from mail import imapcheck, imapjunk

    try:
        line = await asyncio.to_thread(imapcheck.check_login, config, secret, imapjunk.junk_words)
    except (HexpostError, OSError) as exc:  # FetchError, with the user's words
        return CheckLine("IMAP", False, str(exc))
    return CheckLine("IMAP", True, line)


async def _check_smtp(config: SmtpConfig) -> CheckLine:
    try:
        secret = await asyncio.to_thread(resolve_secret, config)
    except AccountError as exc:
        return CheckLine("SMTP", False, f"cannot get the password: {exc}")
    from mail import smtp

    try:
        line = await smtp.check_login(config, secret)
    except HexpostError as exc:  # SendError, with the user's words
        return CheckLine("SMTP", False, str(exc))
    return CheckLine("SMTP", True, line)


async def check_account(config: MailConfig) -> list[CheckLine]:
    """Log in to the IMAP and the SMTP server at the same time; one line for each."""
    imap, smtp = await asyncio.gather(_check_imap(config.imap), _check_smtp(config.smtp))
    return [imap, smtp]
