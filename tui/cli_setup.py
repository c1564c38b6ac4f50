"""The command-line grammar of setting up a home: its identity key, how packets travel, and
the mail account they travel through (`hexpost identity`, `transport`, `account`).

Only the arguments are declared here; `tui.commands` (and `tui.account_cmd`) run them. Kept
apart from `tui.cli`, which parses and dispatches every command, as `tui.design_cmd` keeps the
designer's.
"""

from __future__ import annotations

import argparse


def add_setup_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``identity``, ``transport`` and ``account`` with their actions to ``sub``."""
    identity = sub.add_parser("identity", help="create or show this home's identity key")
    isub = identity.add_subparsers(dest="identity_command", metavar="ACTION", required=True)
    create = isub.add_parser("create", help="make a new Ed25519 identity")
    create.add_argument("--name", required=True, help="your name as opponents will see it")
    create.add_argument("--address", required=True, help="your email address")
    create.add_argument(
        "--no-passphrase",
        action="store_true",
        help="store the key unencrypted (only if this machine is private to you)",
    )
    show_id = isub.add_parser("show", help="show name, address and fingerprint")
    show_id.add_argument("--json", action="store_true")

    transport = sub.add_parser("transport", help="choose how packets travel")
    tsub = transport.add_subparsers(dest="transport_command", metavar="KIND", required=True)
    folder = tsub.add_parser("folder", help="use a shared (e.g. synced) folder")
    folder.add_argument("path", metavar="PATH")
    tsub.add_parser(
        "mail",
        help="use the mail account (set up with `hexpost account add`)",
        description="Packets are sent by SMTP and read by IMAP with the account in the "
        "[mail] table of config.toml; `hexpost account add` sets this already.",
    )
    tsub.add_parser("show", help="show the configured transport")

    account = sub.add_parser(
        "account",
        help="set up, check or show the mail account",
        description="The email account packets travel through: its IMAP server (where "
        "packets arrive) and SMTP server (where they leave). config.toml never holds the "
        "password, only where to get it.",
    )
    acsub = account.add_subparsers(dest="account_command", metavar="ACTION", required=True)
    add = acsub.add_parser(
        "add",
        help="write the mail account and make mail the transport",
        description="Writes the [mail] table of config.toml and sets the transport to mail. "
        "For Gmail, Microsoft, Fastmail, iCloud, Yahoo, AOL, Comcast, GMX, mailbox.org, Posteo "
        "and Zoho addresses the servers are known; "
        "for others give them. On a terminal, whatever is missing is asked; otherwise it "
        "must all be given as options. Replaces the account already there.",
        epilog="Then run `hexpost account test`.",
    )
    add.add_argument("address", nargs="?", metavar="ADDRESS", help="your email address")
    for server, role in (("imap", "receiving"), ("smtp", "sending")):
        label = server.upper()
        add.add_argument(
            f"--{server}-host", metavar="HOST", help=f"the {label} ({role}) server's name"
        )
        add.add_argument(
            f"--{server}-port",
            type=int,
            metavar="PORT",
            help=f"default: the provider's, else the usual one for the {label} security",
        )
        add.add_argument(
            f"--{server}-security",
            choices=("tls", "starttls", "plain"),
            help="tls (the default), starttls, or plain (only for a server on this machine)",
        )
    add.add_argument("--username", help="the login name on both servers (default: ADDRESS)")
    add.add_argument("--folder", help="the IMAP folder packets arrive in (default: INBOX)")
    add.add_argument(
        "--processed-folder",
        metavar="FOLDER",
        help="move packets read into this IMAP folder (default: leave them where they are)",
    )
    junk = add.add_mutually_exclusive_group()
    junk.add_argument(
        "--junk-folder",
        metavar="FOLDER",
        help="the spam folder to look in for packet mail (default: the one the server flags, "
        "else Junk, Spam, Junk Email or Bulk Mail)",
    )
    junk.add_argument("--ignore-junk", action="store_true", help="never look in the spam folder")
    add.add_argument(
        "--ca-file",
        metavar="PEM",
        help="also trust this CA certificate (a server with its own certificate authority)",
    )
    source = add.add_mutually_exclusive_group()
    source.add_argument(
        "--password-env", metavar="VAR", help="the password is in this environment variable"
    )
    source.add_argument(
        "--password-command",
        metavar="CMD",
        help="this command prints the password (run without a shell, e.g. 'pass show mail')",
    )
    source.add_argument(
        "--keyring",
        action="store_true",
        help="the password is in the system keyring (service hexpost, user USERNAME@HOST)",
    )
    source.add_argument(
        "--oauth2-command",
        metavar="CMD",
        help="this command prints an OAuth2 access token (Gmail, Microsoft)",
    )
    acsub.add_parser(
        "test",
        help="log in to both servers and say what failed",
        description="Logs in to the IMAP and the SMTP server as sync would, sends nothing, "
        "and prints one line per server; exits 1 if either failed.",
    )
    show_account = acsub.add_parser(
        "show", help="show the account and where its passwords come from (never the passwords)"
    )
    show_account.add_argument("--json", action="store_true")
