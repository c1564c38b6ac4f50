"""The servers of a few well-known mail providers, proposed from an address's domain.

`preset_for` finds the provider of an address; `Preset.config` makes a checked account of it
(`mail.accounts.parse_mail_config`), which `hexpost account add` and the settings screen write
into config.toml, where the user may change any of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mail.accounts import Command, MailConfig, Security, parse_mail_config


@dataclass(frozen=True)
class Preset:
    """The servers of a well-known provider; defaults that the user can change afterwards."""

    name: str
    domains: tuple[str, ...]
    imap_host: str
    imap_port: int
    imap_security: Security
    smtp_host: str
    smtp_port: int
    smtp_security: Security
    note: str

    def config(
        self,
        address: str,
        *,
        password_env: str | None = None,
        password_command: Command | None = None,
        keyring: bool = False,
        oauth2_command: Command | None = None,
    ) -> MailConfig:
        """A config for ``address`` on this provider, with the same secret source for both."""
        secret: dict[str, Any] = {
            "password_env": password_env,
            "password_command": password_command,
            "keyring": keyring,
            "oauth2_command": oauth2_command,
        }
        secret = {key: value for key, value in secret.items() if value not in (None, False)}
        table = {
            "address": address,
            "imap": {
                "host": self.imap_host,
                "port": self.imap_port,
                "security": self.imap_security,
                **secret,
            },
            "smtp": {
                "host": self.smtp_host,
                "port": self.smtp_port,
                "security": self.smtp_security,
                **secret,
            },
        }
        return parse_mail_config(table)


# The providers' own published settings (their help pages). They are only proposals:
# `hexpost account add` writes them into config.toml, where the user can change any of them,
# and `hexpost account test` says at once if one no longer holds.
PRESETS: tuple[Preset, ...] = (
    Preset(
        "Gmail",
        ("gmail.com", "googlemail.com"),
        "imap.gmail.com",
        993,
        "tls",
        "smtp.gmail.com",
        465,
        "tls",
        "needs OAuth2 (oauth2_command) or an app password (requires 2-step verification); "
        "IMAP must be enabled in Gmail's settings",
    ),
    Preset(
        "Outlook / Microsoft 365",
        ("outlook.com", "hotmail.com", "live.com", "msn.com"),
        "outlook.office365.com",
        993,
        "tls",
        "smtp.office365.com",
        587,
        "starttls",
        "usually needs OAuth2 (oauth2_command): Microsoft has turned off "
        "password login for most accounts",
    ),
    Preset(
        "Fastmail",
        ("fastmail.com", "fastmail.fm"),
        "imap.fastmail.com",
        993,
        "tls",
        "smtp.fastmail.com",
        465,
        "tls",
        "needs an app password (Settings > Privacy & Security > App passwords)",
    ),
    Preset(
        "iCloud",
        ("icloud.com", "me.com", "mac.com"),
        "imap.mail.me.com",
        993,
        "tls",
        "smtp.mail.me.com",
        587,
        "starttls",
        "needs an app-specific password (requires two-factor authentication)",
    ),
    Preset(
        "Yahoo",
        ("yahoo.com", "ymail.com", "rocketmail.com"),
        "imap.mail.yahoo.com",
        993,
        "tls",
        "smtp.mail.yahoo.com",
        465,
        "tls",
        "needs an app password (Account security > Generate app password)",
    ),
    Preset(
        "AOL",
        ("aol.com",),
        "imap.aol.com",
        993,
        "tls",
        "smtp.aol.com",
        465,
        "tls",
        "needs an app password (Account security > Generate app password)",
    ),
    Preset(
        "Comcast / Xfinity",
        ("comcast.net",),
        "imap.comcast.net",
        993,
        "tls",
        "smtp.comcast.net",
        587,
        "starttls",
        "third-party access must be on in Xfinity's email security settings",
    ),
    Preset(
        "GMX",
        ("gmx.com", "gmx.us"),
        "imap.gmx.com",
        993,
        "tls",
        "mail.gmx.com",
        587,
        "starttls",
        "IMAP access must be switched on in GMX's settings (POP3 & IMAP)",
    ),
    Preset(
        "GMX",
        ("gmx.net", "gmx.de", "gmx.at", "gmx.ch"),
        "imap.gmx.net",
        993,
        "tls",
        "mail.gmx.net",
        587,
        "starttls",
        "IMAP access must be switched on in GMX's settings (POP3 & IMAP)",
    ),
    Preset(
        "mailbox.org",
        ("mailbox.org",),
        "imap.mailbox.org",
        993,
        "tls",
        "smtp.mailbox.org",
        465,
        "tls",
        "logs in with the account's password (or an app password, with two-factor login)",
    ),
    Preset(
        "Posteo",
        ("posteo.de", "posteo.net"),
        "posteo.de",
        993,
        "tls",
        "posteo.de",
        465,
        "tls",
        "logs in with the account's password (or an app password, with two-factor login)",
    ),
    Preset(
        "Zoho Mail",
        ("zoho.com", "zohomail.com"),
        "imap.zoho.com",
        993,
        "tls",
        "smtp.zoho.com",
        465,
        "tls",
        "IMAP access must be switched on in Zoho Mail's settings; an app password with "
        "two-factor login",
    ),
)


def preset_for(address: str) -> Preset | None:
    """The preset of the address's provider, by its domain; None for any other domain."""
    local, at, domain = address.strip().rpartition("@")
    if not at or not local:
        return None
    domain = domain.lower().rstrip(".")
    for preset in PRESETS:
        if domain in preset.domains:
            return preset
    return None
