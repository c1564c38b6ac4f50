"""The command line's way to the identity passphrase: a variable, a command, or the terminal.

The services decide when a passphrase is needed (`tui.services.home`: only for an encrypted
key) and take it as a callable; this module is what the command line hands them. It is apart
from `tui.commands` so the other command modules and ``hexpost play`` can use it without
importing every command.
"""

from __future__ import annotations

import argparse
import getpass
import os
import subprocess
import sys
from collections.abc import Callable

from engine.core.errors import HexpostError
from saves.home import Home
from saves.replica import Replica
from tui.services import home as identity

PASSPHRASE_COMMAND_TIMEOUT = 60
"""Seconds a --passphrase-command may take (a password manager may ask to be unlocked)."""


def passphrase(args: argparse.Namespace, *, purpose: str, confirm: bool = False) -> bytes:
    """The identity passphrase from the environment, a command, or a prompt (in that order)."""
    text: str
    if args.passphrase_env:
        value = os.environ.get(args.passphrase_env)
        if value is None:
            raise HexpostError(f"--passphrase-env: variable {args.passphrase_env} is not set")
        text = value
    elif args.passphrase_command:
        try:
            done = subprocess.run(
                args.passphrase_command,
                shell=True,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                check=False,
                timeout=PASSPHRASE_COMMAND_TIMEOUT,
            )
        except subprocess.TimeoutExpired:
            raise HexpostError(
                f"--passphrase-command did not finish within {PASSPHRASE_COMMAND_TIMEOUT} s"
            ) from None
        if done.returncode != 0:
            # Nothing it printed is repeated: a secret command may print the secret, or part
            # of it, on either stream, and an error line travels into logs and bug reports.
            raise HexpostError(
                f"--passphrase-command failed with exit code {done.returncode}; run it by "
                "hand to see why"
            )
        text = done.stdout.splitlines()[0] if done.stdout else ""
    elif sys.stdin.isatty():
        text = getpass.getpass(f"Passphrase ({purpose}): ")
        if confirm and getpass.getpass("Again: ") != text:
            raise HexpostError("the two passphrases differ")
    else:
        raise HexpostError(
            f"a passphrase is needed to {purpose}: use --passphrase-env VAR or "
            "--passphrase-command CMD (no terminal to ask on)"
        )
    return identity.passphrase_bytes(text)


def asker(args: argparse.Namespace, purpose: str) -> Callable[[], bytes]:
    """Fetches the passphrase when the services find the key encrypted (and only then)."""
    return lambda: passphrase(args, purpose=purpose)


def signing_replica(args: argparse.Namespace, home: Home, purpose: str) -> Replica:
    """A replica able to sign: unlocks the identity key, asking for its passphrase if needed."""
    return identity.signer(home, asker(args, purpose))


def sync_replica(args: argparse.Namespace, home: Home) -> tuple[Replica, bool]:
    """For sync: sign automatic replies when the passphrase is at hand, else only receive."""
    can_ask = bool(args.passphrase_env or args.passphrase_command or sys.stdin.isatty())
    return identity.sync_replica(home, asker(args, "send automatic replies") if can_ask else None)
