"""A mail server's secret and TLS trust, from what its ``[mail.imap]`` or ``[mail.smtp]`` table
names (`mail.accounts`).

`resolve_secret` fetches the password or OAuth2 token from the one source a server's table names
(an environment variable, a command, the system keyring); `secret_source` says where it came from
for an error message; `tls_context` is the verifying TLS context both clients use. Kept apart
from the table's parsing: these run programs, read the environment and load certificates, and
only when a connection is about to be made.
"""

from __future__ import annotations

import importlib
import os
import shlex
import ssl
import subprocess

from mail.accounts import SECRET_KEYS, AccountError, Command, ServerConfig

KEYRING_SERVICE = "hexpost"
SECRET_COMMAND_TIMEOUT = 120.0
"""Seconds a password or token command may take (it may ask for a GPG passphrase)."""


def _run_secret_command(where: str, command: Command) -> str:
    argv = shlex.split(command) if isinstance(command, str) else list(command)
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=SECRET_COMMAND_TIMEOUT,
            check=False,
        )
    except FileNotFoundError:
        raise AccountError(f"{where}: cannot run {argv[0]!r}: no such program") from None
    except PermissionError:
        raise AccountError(f"{where}: cannot run {argv[0]!r}: permission denied") from None
    except subprocess.TimeoutExpired:
        raise AccountError(
            f"{where}: {argv[0]!r} did not finish within {SECRET_COMMAND_TIMEOUT:g} seconds"
        ) from None
    if done.returncode != 0:
        # Nothing the command printed is echoed: a secret tool may say part of the secret (or
        # of another) on stderr, and this message lands in logs and on screens.
        raise AccountError(
            f"{where}: {argv[0]!r} failed with exit code {done.returncode}; run the command "
            "by hand to see why"
        )
    try:
        output = done.stdout.decode("utf-8")
    except UnicodeDecodeError:
        raise AccountError(f"{where}: {argv[0]!r} printed something that is not UTF-8") from None
    if output.endswith("\n"):
        output = output[:-1]
    if output.endswith("\r"):
        output = output[:-1]
    if not output:
        raise AccountError(f"{where}: {argv[0]!r} printed nothing")
    return output


def _from_keyring(where: str, server: ServerConfig) -> str:
    try:
        keyring = importlib.import_module("keyring")
    except ImportError:
        raise AccountError(
            f"{where}.keyring = true needs the keyring library, which is not installed: "
            "install it into hexpost's environment (`pip install keyring`), or use "
            "password_env or password_command instead"
        ) from None
    user = server.keyring_user
    try:
        secret = keyring.get_password(KEYRING_SERVICE, user)
    except Exception as exc:  # the backends raise their own errors (no backend, locked...)
        raise AccountError(
            f"{where}.keyring: the system keyring failed: {type(exc).__name__}: {exc}"
        ) from None
    if not secret:
        raise AccountError(
            f"{where}.keyring: no password for user {user!r} of service {KEYRING_SERVICE!r} "
            f"in the system keyring (store it with `keyring set {KEYRING_SERVICE} {user}`)"
        )
    return str(secret)


def resolve_secret(account: ServerConfig) -> str:
    """The password (or OAuth2 access token) of one server, from the source its table names."""
    where = account.section
    if account.password_env is not None:
        value = os.environ.get(account.password_env)
        if not value:
            state = "is empty" if value is not None else "is not set"
            raise AccountError(
                f"{where}.password_env: the environment variable {account.password_env} {state}"
            )
        return value
    if account.password_command is not None:
        return _run_secret_command(f"{where}.password_command", account.password_command)
    if account.oauth2_command is not None:
        return _run_secret_command(f"{where}.oauth2_command", account.oauth2_command)
    if account.keyring:
        return _from_keyring(where, account)
    raise AccountError(f"{where}: give exactly one of {', '.join(SECRET_KEYS)}")


def secret_source(server: ServerConfig) -> str:
    """Where a server's password or token comes from, in words for an error message."""
    if server.password_env is not None:
        return f"the environment variable {server.password_env}"
    if server.password_command is not None:
        return "password_command"
    if server.oauth2_command is not None:
        return "oauth2_command (is the token expired?)"
    return f"the system keyring (user {server.keyring_user})"


def tls_context(server: ServerConfig) -> ssl.SSLContext | None:
    """The verifying TLS context both clients use (None for ``plain``, loopback only), trusting
    ``ca_file`` too when it is set; `AccountError` if that file cannot be loaded."""
    if server.security == "plain":
        return None
    try:
        return ssl.create_default_context(cafile=server.ca_file)
    except (OSError, ssl.SSLError) as exc:
        raise AccountError(
            f"{server.section}.ca_file: cannot load {server.ca_file!r} as CA certificates "
            f"({exc}): give the path of the server's CA certificate in PEM format"
        ) from exc
