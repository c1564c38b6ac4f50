"""The mail account commands: ``hexpost account add|test|show`` and ``hexpost transport mail``.

What an account is, how answers become the ``[mail]`` table and how both servers are checked
are `tui.services.accounts`'s, shared with the app's settings form. This face reads the flags,
asks on a terminal for whatever is missing (``account add``), and prints.

Mistakes are `HexpostError` (or its `AccountError`) with a one-line reason naming the flag
or the config key that was wrong.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

import msgspec

from engine.core.errors import HexpostError
from mail.accounts import SECRET_KEYS, SECURITIES, ImapConfig, SmtpConfig, check_address
from mail.presets import Preset, preset_for
from saves.home import Home
from tui.safe_text import safe_text
from tui.services import accounts
from tui.services.accounts import (
    DEFAULT_PASSWORD_ENV,
    NO_ACCOUNT,
    OAUTH2_PRESETS,
    SECRET_FLAGS,
    Answers,
)

__all__ = ["DEFAULT_PASSWORD_ENV", "NO_ACCOUNT", "Answers", "CheckLine", "cmd_account"]


class CheckLine(accounts.CheckLine, frozen=True):
    """A server's verdict as the terminal prints it: its own words made one harmless line."""

    def __str__(self) -> str:
        return safe_text(accounts.CheckLine.__str__(self))


# --- asking on a terminal --------------------------------------------------------------------


def _terminal() -> bool:
    return sys.stdin.isatty()


def _ask(question: str, default: str | None = None) -> str:
    shown = f" [{default}]" if default else ""
    while True:
        try:
            answer = input(f"{question}{shown}: ").strip()
        except EOFError:
            raise HexpostError("no answer: the questions were cut short") from None
        if answer or default is not None:
            return answer or (default or "")
        print("  (an answer is needed)")


def _ask_server(server: str, label: str) -> tuple[str, str, int]:
    host = _ask(f"{label} server (e.g. {server}.example.org)")
    security = _ask(f"{label} security ({' / '.join(SECURITIES)})", "tls")
    if security not in SECURITIES:
        raise HexpostError(f"--{server}-security: {security!r} is not one of tls, starttls, plain")
    kind = ImapConfig if server == "imap" else SmtpConfig
    port_text = _ask(f"{label} port", str(kind.default_ports[security]))
    if not port_text.isdigit():
        raise HexpostError(f"--{server}-port: {port_text!r} is not a port number")
    return host, security, int(port_text)


def _ask_secret(preset: Preset | None) -> tuple[str, str | None]:
    choices = [
        ("password_env", "an environment variable"),
        ("password_command", "a command that prints it (e.g. `pass show mail`)"),
        ("keyring", "the system keyring (the keyring library)"),
    ]
    if preset is not None and preset.name in OAUTH2_PRESETS:
        choices.append(("oauth2_command", "a command that prints an OAuth2 access token"))
    print("Where does hexpost get the password? (it is never written to config.toml)")
    for number, (_, text) in enumerate(choices, 1):
        print(f"  {number}  {text}")
    picked = _ask("Choice", "1")
    if not picked.isdigit() or not 1 <= int(picked) <= len(choices):
        raise HexpostError(f"choose a number from 1 to {len(choices)}, not {picked!r}")
    source = choices[int(picked) - 1][0]
    if source == "password_env":
        return source, _ask("Variable name", DEFAULT_PASSWORD_ENV)
    if source == "keyring":
        return source, None
    return source, _ask("Command")


def _missing(flag: str, why: str) -> HexpostError:
    return HexpostError(f"{flag} is missing: {why} (no terminal to ask on)")


def answers_from_args(args: argparse.Namespace) -> Answers:
    """The flags of ``account add``. On a terminal, when the address, the servers (for a
    provider without a preset) or the password source are missing, the rest is asked too;
    without a terminal, the first missing flag is an error."""
    source = next((key for key in SECRET_KEYS if getattr(args, key, None)), None)
    value = getattr(args, source) if source else None
    imap_host, imap_security, imap_port = args.imap_host, args.imap_security, args.imap_port
    smtp_host, smtp_security, smtp_port = args.smtp_host, args.smtp_security, args.smtp_port
    username = args.username
    address = args.address
    preset = preset_for(address) if address else None
    hosts = bool(imap_host and smtp_host) or (preset is not None and not (imap_host or smtp_host))
    ask = _terminal() and not (address and hosts and source)
    if not address:
        if not ask:
            raise _missing("ADDRESS", "give the account's email address")
        address = _ask("Email address")
    address = check_address("ADDRESS", address)
    domain = address.rpartition("@")[2]
    preset = preset_for(address)
    if ask and preset is not None and not (imap_host or smtp_host):
        print(
            f"{preset.name}: IMAP {preset.imap_host}:{preset.imap_port} ({preset.imap_security}), "
            f"SMTP {preset.smtp_host}:{preset.smtp_port} ({preset.smtp_security})"
        )
        print(f"  {preset.note}")
        if _ask("Use these servers? (y/n)", "y").lower().startswith("n"):
            preset = None
            imap_host, imap_security, imap_port = _ask_server("imap", "IMAP (receiving)")
            smtp_host, smtp_security, smtp_port = _ask_server("smtp", "SMTP (sending)")
    if preset is None and not (imap_host and smtp_host):
        if not ask:
            flag = "--imap-host" if not imap_host else "--smtp-host"
            raise _missing(flag, f"hexpost knows no servers for {domain}")
        print(f"hexpost has no preset for {domain}: name the servers.")
        if not imap_host:
            imap_host, imap_security, imap_port = _ask_server("imap", "IMAP (receiving)")
        if not smtp_host:
            smtp_host, smtp_security, smtp_port = _ask_server("smtp", "SMTP (sending)")
    if ask and username is None:
        username = _ask("Username", address)
    if source is None:
        if not ask:
            flags = ", ".join(SECRET_FLAGS[key] for key in SECRET_KEYS)
            raise _missing("the password source", f"give one of {flags}")
        source, value = _ask_secret(preset_for(address))
    return Answers(
        address=address,
        imap_host=imap_host,
        imap_port=imap_port,
        imap_security=imap_security,
        imap_username=username,
        folder=args.folder,
        processed_folder=args.processed_folder,
        junk_folder=getattr(args, "junk_folder", None),
        ignore_junk=bool(getattr(args, "ignore_junk", False)),
        smtp_host=smtp_host,
        smtp_port=smtp_port,
        smtp_security=smtp_security,
        smtp_username=username,
        ca_file=args.ca_file,
        secret_source=source,
        secret_value=None if value is True else value,
    )


# --- the commands ----------------------------------------------------------------------------


def cmd_account(args: argparse.Namespace, home: Home) -> int:
    if args.account_command == "add":
        return _add(args, home)
    config = accounts.saved_account(home)
    if args.account_command == "show":
        if args.json:
            record = accounts.account_record(home, config)
            print(json.dumps(msgspec.to_builtins(record), indent=2))
        else:
            print("\n".join(_fitted(accounts.account_lines(config))))
        return 0
    results = asyncio.run(accounts.check_account(config))
    for result in results:
        print(CheckLine(result.server, result.ok, result.text))
    return 0 if all(result.ok for result in results) else 1


def _fitted(lines: list[str]) -> list[str]:
    """The account's lines within 80 columns, each wrapped under the values' column (10)."""
    from tui.render import fit_lines

    return [part for line in lines for part in fit_lines([line], hang=0 if line[:1] == " " else 10)]


def _add(args: argparse.Namespace, home: Home) -> int:
    config = accounts.build_config(answers_from_args(args))
    replaced = accounts.replaceable_account(home) is not None
    lines = accounts.add_account(home, config)
    if replaced:
        lines[0] += " (it replaces the account that was there)"
    print("\n".join(_fitted(lines)))
    for user in accounts.keyring_users(config):
        print(f"store the password: keyring set hexpost {user}")
    print("check it with `hexpost account test`")
    return 0


def cmd_transport_mail(_args: argparse.Namespace, home: Home) -> int:
    config = accounts.use_mail(home)
    print(
        f"packets will travel by mail as {config.address} "
        f"(IMAP {config.imap.host}, SMTP {config.smtp.host})"
    )
    return 0
