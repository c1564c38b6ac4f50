"""The words of an IMAP failure: `FetchError`, and what the user is told when opening a folder
fails (`explain`), kept apart from `mail.imap`, which raises them."""

from __future__ import annotations

import socket
import ssl

from imapclient.exceptions import IMAPClientAbortError

from mail.accounts import ImapConfig
from mail.credentials import secret_source
from mail.transport import TransportError

TEMPORARY = (b"[UNAVAILABLE]", b"[SERVERBUG]", b"[INUSE]", b"[LIMIT]")
"""Response codes (RFC 5530) of a refusal that may go away by itself."""


class FetchError(TransportError):
    """Reading mail failed; ``retryable`` is False when the user must act before a retry."""

    def __init__(self, message: str, *, retryable: bool) -> None:
        super().__init__(message)
        self.retryable = retryable


def error_text(exc: BaseException) -> str:
    """An imapclient error's words without the ``b'...'`` of the bytes it was made from."""
    arg = exc.args[0] if exc.args else exc
    if isinstance(arg, bytes):
        return arg.decode("utf-8", "replace")
    text = str(arg)
    if len(text) > 3 and text[:2] in ("b'", 'b"') and text[-1] == text[1]:
        return text[2:-1]
    return text or type(exc).__name__


def is_temporary(exc: BaseException) -> bool:
    said = error_text(exc).encode("utf-8", "replace").upper()
    return any(code in said for code in TEMPORARY)


def explain(exc: BaseException, config: ImapConfig, stage: str) -> FetchError:
    """The user's words for what failed while opening the folder, ``stage`` telling when."""
    where = f"{config.host}:{config.port}"
    unverified = exc if isinstance(exc, ssl.SSLCertVerificationError) else None
    if unverified is not None:
        trust = (
            f"it is not signed by the CA in ca_file {config.ca_file!r}"
            if config.ca_file
            else "if the server uses its own certificate authority, set ca_file in "
            f"[{config.section}] to that CA's certificate"
        )
        return FetchError(
            f"the TLS certificate of the IMAP server {where} is not trusted "
            f"({unverified.verify_message or unverified.reason}): hexpost did not log in; {trust}",
            retryable=False,
        )
    if isinstance(exc, ssl.SSLError):
        return FetchError(
            f"the TLS handshake with the IMAP server {where} failed ({exc.reason or exc}): "
            f'is security = "{config.security}" right for port {config.port}? '
            "(993 is usually implicit TLS, 143 STARTTLS)",
            retryable=False,
        )
    if isinstance(exc, socket.gaierror):
        return FetchError(
            f"cannot find the IMAP server {config.host} ({exc.strerror or exc}): check the "
            "host name, and that the network is up",
            retryable=True,
        )
    if isinstance(exc, ConnectionRefusedError):
        return FetchError(
            f"the IMAP server {where} refused the connection: is the server up, and the port "
            "right?",
            retryable=True,
        )
    if isinstance(exc, TimeoutError):
        return FetchError(
            f"timed out after {config.timeout:g} s talking to the IMAP server {where} "
            f"(while trying to {stage}): check that the port matches "
            f'security = "{config.security}", and that the network is up',
            retryable=True,
        )
    if isinstance(exc, OSError | IMAPClientAbortError):
        return FetchError(
            f"lost the connection to the IMAP server {where} (while trying to {stage}: "
            f"{error_text(exc)}): check host and port, and that the network is up",
            retryable=True,
        )
    said = error_text(exc)
    if stage == "login":
        if "PRIVACYREQUIRED" in said.upper():
            return FetchError(
                f"the IMAP server {where} refuses a login without encryption ({said}): use "
                'security = "starttls" or "tls"',
                retryable=False,
            )
        return FetchError(
            f"the IMAP server {where} refused the login for {config.username} ({said}): check "
            f"the password (or token) from {secret_source(config)} and the username",
            retryable=is_temporary(exc),
        )
    if stage == "select":
        return FetchError(
            f"the IMAP server {where} could not open the folder {config.folder!r} of "
            f"{config.username} ({said}): check folder in [{config.section}] (does it exist?)",
            retryable=is_temporary(exc),
        )
    return FetchError(
        f"the IMAP server {where} failed while trying to {stage}: {said}",
        retryable=is_temporary(exc),
    )
