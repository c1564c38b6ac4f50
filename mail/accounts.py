"""The mail account of a home: the ``[mail]`` table of config.toml, checked, and its secrets.

The table (every key below ``[mail.imap]`` and ``[mail.smtp]`` is optional unless marked)::

    [mail]
    address = "alice@example.org"          # required
    [mail.imap]
    host = "imap.example.org"              # required
    port = 993                             # default: 993 for tls, 143 for starttls and plain
    security = "tls"                       # tls (default) | starttls | plain (loopback hosts only)
    username = "alice@example.org"         # default: the address
    folder = "INBOX"                       # where packets arrive
    processed_folder = "hexpost"           # if set, packets read are moved there; else left alone
    junk_folder = "Spam"                   # the spam folder (default: the one the server flags)
    ignore_junk = true                     # never look in the spam folder (default: false)
    ca_file = "/path/to/ca.pem"            # trust this CA too (a self-hosted server)
    timeout = 30                           # seconds to connect and for each command
    idle_timeout = 1500                    # IMAP only: re-issue IDLE after this (at most 29 min)
    password_env = "VAR"                   # exactly one secret source, see below
    [mail.smtp]
    host = "smtp.example.org"              # required
    port = 465                             # default: 465 for tls, 587 for starttls and plain
    security = "tls"
    username = "alice@example.org"
    password_env = "VAR"

Each server names exactly one source of its secret, so a password never has to be written in the
file (a ``password`` key is refused):

- ``password_env = "VAR"``: the environment variable ``VAR``;
- ``password_command = "pass show mail"``: the first output of a command, as isync's
  ``PassCmd``. It is split like a shell would (`shlex.split`) but run without a shell; write
  ``["sh", "-c", "..."]`` (an array) for pipes. The trailing newline is dropped;
- ``keyring = true``: the system keyring (the optional ``keyring`` library), service
  ``hexpost``, user ``USERNAME@HOST`` (``keyring set hexpost alice@example.org@imap.example.org``);
- ``oauth2_command = "..."``: a command printing an OAuth2 access token; the server is then
  logged in with XOAUTH2 instead of a password (Gmail, Microsoft).

`parse_mail_config` checks a table and raises `AccountError` naming the key and what was wrong;
`to_table` writes a config back (``parse_mail_config(to_table(c)) == c``); `save_mail_config`
stores it in a home's config.toml, keeping the other tables. Fetching a server's secret is
`mail.credentials`; the servers of well-known providers, proposed from an address, are
`mail.presets`.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, cast

from engine.core.errors import HexpostError
from saves.addresses import address_problem
from saves.home import Home

Security = Literal["tls", "starttls", "plain"]
SECURITIES: tuple[Security, ...] = ("tls", "starttls", "plain")
SECRET_KEYS = ("password_env", "password_command", "keyring", "oauth2_command")
DEFAULT_TIMEOUT = 30.0
DEFAULT_IDLE_TIMEOUT = 1500.0
MAX_IDLE_TIMEOUT = 29 * 60.0


class AccountError(HexpostError):
    """A mail account setting that is missing or wrong, or a secret that cannot be fetched."""


Command = str | tuple[str, ...]
"""A command line: a string split with `shlex.split`, or the argument list itself."""


@dataclass(frozen=True, kw_only=True)
class ServerConfig:
    """What the IMAP and SMTP sections share: where to connect, how, and the secret's source."""

    section: ClassVar[str] = "mail.server"
    default_ports: ClassVar[Mapping[str, int]] = {}

    host: str
    port: int
    security: Security = "tls"
    username: str
    ca_file: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    password_env: str | None = None
    password_command: Command | None = None
    keyring: bool = False
    oauth2_command: Command | None = None

    @property
    def uses_oauth2(self) -> bool:
        """True if the secret is an OAuth2 access token (log in with XOAUTH2)."""
        return self.oauth2_command is not None

    @property
    def keyring_user(self) -> str:
        """The keyring user name the secret is stored under (service ``hexpost``)."""
        return f"{self.username}@{self.host}"


@dataclass(frozen=True, kw_only=True)
class ImapConfig(ServerConfig):
    """The ``[mail.imap]`` table: where packets are read."""

    section: ClassVar[str] = "mail.imap"
    default_ports: ClassVar[Mapping[str, int]] = {"tls": 993, "starttls": 143, "plain": 143}

    folder: str = "INBOX"
    processed_folder: str | None = None
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT
    junk_folder: str | None = None
    """The spam folder to look in for packet mail a filter put there (`mail.imapjunk`); None:
    the folder the server flags ``\\Junk``, else one with a usual name (`mail.imapjunk`)."""
    ignore_junk: bool = False
    """Never look in the spam folder."""


@dataclass(frozen=True, kw_only=True)
class SmtpConfig(ServerConfig):
    """The ``[mail.smtp]`` table: where packets are sent."""

    section: ClassVar[str] = "mail.smtp"
    default_ports: ClassVar[Mapping[str, int]] = {"tls": 465, "starttls": 587, "plain": 587}


@dataclass(frozen=True, kw_only=True)
class MailConfig:
    """The ``[mail]`` table: the player's address and both servers."""

    address: str
    imap: ImapConfig
    smtp: SmtpConfig


# --- parsing -------------------------------------------------------------------------------

_COMMON_KEYS = ("host", "port", "security", "username", "ca_file", "timeout", *SECRET_KEYS)
_IMAP_KEYS = (
    *_COMMON_KEYS,
    "folder",
    "processed_folder",
    "idle_timeout",
    "junk_folder",
    "ignore_junk",
)
_SMTP_KEYS = _COMMON_KEYS


def is_loopback(host: str) -> bool:
    """True for the name ``localhost`` itself and loopback IP literals (127.0.0.0/8, ::1).

    A name under ``.localhost`` is not taken on trust: whether it resolves to this machine is
    up to the resolver, and plain text is allowed only where it surely never leaves it."""
    name = host.strip().lower().rstrip(".")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name.strip("[]")).is_loopback
    except ValueError:
        return False


def _check_keys(where: str, table: Mapping[str, Any], known: tuple[str, ...]) -> None:
    if "password" in table:
        raise AccountError(
            f"{where}.password: passwords are not stored in config.toml; use "
            "password_env, password_command, keyring = true or oauth2_command instead"
        )
    unknown = sorted(str(key) for key in table if key not in known)
    if unknown:
        names = ", ".join(unknown)
        raise AccountError(
            f"{where}: unknown key{'s' if len(unknown) > 1 else ''} {names} "
            f"(known: {', '.join(known)})"
        )


def _table(where: str, value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise AccountError(f"{where}: expected a table, got {value!r}")
    return cast("Mapping[str, Any]", value)


def _text(where: str, value: Any) -> str:
    if not isinstance(value, str):
        raise AccountError(f"{where}: expected a string, got {value!r}")
    if not value.strip():
        raise AccountError(f"{where}: must not be empty")
    return value.strip()


def _host(where: str, value: Any) -> str:
    """A server's DNS name (IDN letters too) or IP address, refused with the usual slip named:
    a URL's scheme, or a port, typed into the host."""
    host = _text(where, value)
    scheme, sep, _ = host.partition("://")
    if sep:
        raise AccountError(f"{where}: give the server's name alone, without {scheme + sep!r}")
    name, colon, port = host.rpartition(":")
    if colon and port.isdigit() and name and ":" not in name:
        raise AccountError(f"{where}: the port goes in port, not in host (host = {name!r})")
    try:
        ipaddress.ip_address(host[1:-1] if host.startswith("[") and host.endswith("]") else host)
        return host
    except ValueError:
        pass
    labels = host.removesuffix(".").split(".")
    if len(host) > 253 or not all(
        0 < len(label) <= 63 and all(ch.isalnum() or ch in "-_" for ch in label) for label in labels
    ):
        raise AccountError(f"{where}: {host!r} is not a server name (such as imap.example.org)")
    return host


def _optional_text(where: str, table: Mapping[str, Any], key: str) -> str | None:
    if key not in table:
        return None
    return _text(f"{where}.{key}", table[key])


def _seconds(where: str, value: Any, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise AccountError(f"{where}: expected a number of seconds, got {value!r}")
    if not low <= value <= high:
        raise AccountError(f"{where}: {value} is out of range ({low:g} to {high:g} seconds)")
    return float(value)


def _command(where: str, value: Any) -> Command:
    if isinstance(value, str):
        try:
            argv = shlex.split(value)
        except ValueError as exc:
            raise AccountError(f"{where}: cannot split {value!r}: {exc}") from None
        if not argv:
            raise AccountError(f"{where}: must not be empty")
        return value
    if isinstance(value, list | tuple) and value and all(isinstance(a, str) for a in value):
        return tuple(cast("list[str]", value))
    raise AccountError(f"{where}: expected a command (a string or an array of strings)")


def _server_fields(where: str, table: Mapping[str, Any], address: str) -> dict[str, Any]:
    if "host" not in table:
        raise AccountError(f"{where}.host: missing (the server's name, e.g. imap.example.org)")
    host = _host(f"{where}.host", table["host"])
    security = table.get("security", "tls")
    if security not in SECURITIES:
        raise AccountError(f"{where}.security: {security!r} is not one of {', '.join(SECURITIES)}")
    if security == "plain" and not is_loopback(host):
        raise AccountError(
            f"{where}.security = plain is allowed only for a loopback host, not {host}"
        )
    fields: dict[str, Any] = {"host": host, "security": security}
    if "port" in table:
        port = table["port"]
        if isinstance(port, bool) or not isinstance(port, int):
            raise AccountError(f"{where}.port: expected a whole number, got {port!r}")
        if not 1 <= port <= 65535:
            raise AccountError(f"{where}.port: {port} is out of range (1 to 65535)")
        fields["port"] = port
    fields["username"] = _optional_text(where, table, "username") or address
    ca_file = _optional_text(where, table, "ca_file")
    if ca_file is not None:
        fields["ca_file"] = ca_file
    if "timeout" in table:
        fields["timeout"] = _seconds(f"{where}.timeout", table["timeout"], 1, 3600)
    sources = [key for key in SECRET_KEYS if key in table and table[key] is not False]
    if len(sources) != 1:
        given = f" (given: {', '.join(sources)})" if sources else ""
        raise AccountError(f"{where}: give exactly one of {', '.join(SECRET_KEYS)}{given}")
    source = sources[0]
    value = table[source]
    if source == "password_env":
        fields[source] = _text(f"{where}.{source}", value)
    elif source == "keyring":
        if value is not True:
            raise AccountError(f"{where}.keyring: expected true or false, got {value!r}")
        fields[source] = True
    else:
        fields[source] = _command(f"{where}.{source}", value)
    return fields


def _parse_imap(table: Mapping[str, Any], address: str) -> ImapConfig:
    where = ImapConfig.section
    _check_keys(where, table, _IMAP_KEYS)
    fields = _server_fields(where, table, address)
    fields.setdefault("port", ImapConfig.default_ports[fields["security"]])
    folder = _optional_text(where, table, "folder")
    if folder is not None:
        fields["folder"] = folder
    processed = _optional_text(where, table, "processed_folder")
    if processed is not None:
        if processed == fields.get("folder", "INBOX"):
            raise AccountError(f"{where}.processed_folder: must differ from folder ({processed!r})")
        fields["processed_folder"] = processed
    if "idle_timeout" in table:
        fields["idle_timeout"] = _seconds(
            f"{where}.idle_timeout", table["idle_timeout"], 10, MAX_IDLE_TIMEOUT
        )
    junk = _optional_text(where, table, "junk_folder")
    if junk is not None:
        if junk in (fields.get("folder", "INBOX"), processed):
            raise AccountError(f"{where}.junk_folder: must differ from folder and processed_folder")
        fields["junk_folder"] = junk
    if "ignore_junk" in table:
        ignore = table["ignore_junk"]
        if not isinstance(ignore, bool):
            raise AccountError(f"{where}.ignore_junk: expected true or false, got {ignore!r}")
        fields["ignore_junk"] = ignore
    return ImapConfig(**fields)


def _parse_smtp(table: Mapping[str, Any], address: str) -> SmtpConfig:
    where = SmtpConfig.section
    _check_keys(where, table, _SMTP_KEYS)
    fields = _server_fields(where, table, address)
    fields.setdefault("port", SmtpConfig.default_ports[fields["security"]])
    return SmtpConfig(**fields)


def check_address(where: str, value: Any) -> str:
    """The address, stripped, or `AccountError` if it is not ``local@domain``."""
    address = _text(where, value)
    problem = address_problem(address)
    if problem is not None:
        raise AccountError(f"{where}: {problem}")
    return address


def parse_mail_config(table: Mapping[str, Any]) -> MailConfig:
    """Check the ``[mail]`` table (without the ``mail`` key around it) and return it typed."""
    table = _table("mail", table)
    _check_keys("mail", table, ("address", "imap", "smtp"))
    if "address" not in table:
        raise AccountError("mail.address: missing (your email address)")
    address = check_address("mail.address", table["address"])
    for name in ("imap", "smtp"):
        if name not in table:
            raise AccountError(f"mail: missing the [mail.{name}] table")
    imap = _parse_imap(_table("mail.imap", table["imap"]), address)
    smtp = _parse_smtp(_table("mail.smtp", table["smtp"]), address)
    return MailConfig(address=address, imap=imap, smtp=smtp)


# --- writing -------------------------------------------------------------------------------


def _server_table(server: ServerConfig) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field in dataclasses.fields(server):
        value = getattr(server, field.name)
        if value is None or value is False:
            continue
        out[field.name] = list(value) if isinstance(value, tuple) else value
    return out


def to_table(config: MailConfig) -> dict[str, Any]:
    """The ``[mail]`` table of ``config``, ready for tomli_w; `parse_mail_config` reads it back."""
    return {
        "address": config.address,
        "imap": _server_table(config.imap),
        "smtp": _server_table(config.smtp),
    }


def load_mail_config(home: Home) -> MailConfig | None:
    """The home's mail account, or None if config.toml has no ``[mail]`` table."""
    table = home.config().get("mail")
    if table is None:
        return None
    return parse_mail_config(table)


def save_mail_config(home: Home, config: MailConfig) -> None:
    """Write ``config`` as the home's ``[mail]`` table, keeping every other table."""
    table = to_table(config)
    parse_mail_config(table)  # never write what cannot be read back
    current = home.config()
    current["mail"] = table
    home.save_config(current)
