"""Sending one packet email over SMTP (aiosmtplib), securely or not at all.

`send_message` connects to the ``[mail.smtp]`` server, secures the connection as the config says
and never less (``tls``: implicit TLS; ``starttls``: STARTTLS is required, a server that does not
offer it is refused before anything is sent; ``plain``: loopback hosts only, checked by
`mail.accounts`), verifies the server's certificate (against ``ca_file`` when set, else the
system's CAs), logs in with AUTH PLAIN or LOGIN, or XOAUTH2 when the account uses an OAuth2 token,
and hands over the message bytes unchanged. ``timeout`` of the config bounds the connection and
each command.

Every failure is a `SendError` whose text says what failed and what to do about it, and whose
``retryable`` says whether the same bytes may simply be sent again later (connection refused or
lost, timeouts, 4xx answers) or whether the user must change something first (certificate, login,
refused recipient: 5xx answers and local configuration). `classify` gives the same verdict for any
exception, for the outbox's retries with backoff.

`check_login` connects and logs in exactly as `send_message` does, then says goodbye without
sending anything (``hexpost account test``).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
from collections.abc import AsyncIterator, Sequence
from typing import Literal, TypeVar

import aiosmtplib

from mail.accounts import AccountError, ServerConfig, SmtpConfig
from mail.credentials import resolve_secret, secret_source, tls_context
from mail.transport import TransportError

Verdict = Literal["retry", "permanent"]

_E = TypeVar("_E", bound=BaseException)


class SendError(TransportError):
    """A message was not sent; ``retryable`` is False when the user must act before a retry."""

    def __init__(self, message: str, *, retryable: bool, code: int | None = None) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.code = code
        """The SMTP reply code behind the failure, if the server gave one."""


def classify(error: BaseException) -> Verdict:
    """Whether sending again later may succeed (``retry``) or the user must act (``permanent``)."""
    if isinstance(error, SendError):
        return "retry" if error.retryable else "permanent"
    if isinstance(error, aiosmtplib.SMTPRecipientsRefused):
        codes = [refused.code for refused in error.recipients]
        return "retry" if codes and all(_transient(code) for code in codes) else "permanent"
    if isinstance(error, aiosmtplib.SMTPResponseException):
        return "retry" if _transient(error.code) else "permanent"
    if isinstance(error, aiosmtplib.SMTPTimeoutError | aiosmtplib.SMTPServerDisconnected):
        return "retry"
    if _cause(error, ssl.SSLError) is not None:
        return "permanent"
    if isinstance(error, aiosmtplib.SMTPConnectError | TimeoutError | ConnectionError | OSError):
        return "retry"
    return "permanent"


async def send_message(
    config: SmtpConfig,
    sender: str,
    recipients: Sequence[str],
    message: bytes,
    *,
    secret: str | None = None,
) -> None:
    """Send ``message`` (bytes from `mail.mime.build_message`) from the envelope ``sender`` to
    ``recipients``, or raise `SendError` and send nothing.

    ``secret`` is the password or OAuth2 token; when None it is fetched with `resolve_secret`
    (in a worker thread: a password command may take a while). If the server accepts some
    recipients and refuses others, the message went to the accepted ones and `SendError` names
    the refused ones.
    """
    if not recipients:
        raise ValueError("a message needs at least one recipient")
    secret = await _secret(config, secret, "cannot send")
    async with _logged_in(config, secret) as (client, where):
        refused, _ = await client.sendmail(sender, list(recipients), message)
        if refused:
            codes = [response.code for response in refused.values()]
            raise SendError(
                f"the SMTP server {where} refused "
                + ", ".join(f"{rcpt} ({r.code} {r.message})" for rcpt, r in refused.items())
                + "; the message went to the other recipients",
                retryable=all(_transient(code) for code in codes),
                code=codes[0],
            )
        with contextlib.suppress(aiosmtplib.SMTPException):
            await client.quit()  # the message was accepted; a failed goodbye changes nothing


async def check_login(config: SmtpConfig, secret: str | None = None) -> str:
    """Connect and log in as `send_message` would (same TLS rules, same login), then QUIT.

    Returns one line saying what worked (``SMTP host:port (starttls): logged in as alice``),
    or raises `SendError` with the same explanations as `send_message`. Nothing is sent.
    """
    secret = await _secret(config, secret, "cannot log in")
    async with _logged_in(config, secret) as (client, where):
        with contextlib.suppress(aiosmtplib.SMTPException):
            await client.quit()  # logged in already: a failed goodbye changes nothing
    return f"SMTP {where} ({config.security}): logged in as {config.username}"


async def _secret(config: SmtpConfig, secret: str | None, doing: str) -> str:
    """``secret``, or the one `resolve_secret` fetches (in a worker thread: a password
    command may take a while); a source that fails is a `SendError` that is not retryable."""
    if secret is not None:
        return secret
    try:
        return await asyncio.to_thread(resolve_secret, config)
    except AccountError as exc:
        raise SendError(f"{doing}: {exc}", retryable=False) from exc


@contextlib.asynccontextmanager
async def _logged_in(config: SmtpConfig, secret: str) -> AsyncIterator[tuple[aiosmtplib.SMTP, str]]:
    """A client connected, secured as the config says (or refused) and logged in, with the
    server's ``host:port`` for messages. Whatever aiosmtplib or the network raises, here or
    in the ``async with`` body, comes out as a `SendError` in the user's words."""
    where = f"{config.host}:{config.port}"
    context = _tls_context(config)
    client = aiosmtplib.SMTP(
        hostname=config.host,
        port=config.port,
        timeout=config.timeout,
        use_tls=config.security == "tls",
        start_tls=False,  # never the library's opportunistic default: done below, or refused
        tls_context=context,
    )
    try:
        await client.connect()
        if config.security == "starttls":
            await client.ehlo()
            if not client.supports_extension("starttls"):
                raise SendError(
                    f"the SMTP server {where} does not offer STARTTLS, so nothing was sent "
                    "(hexpost never sends unencrypted): check host and port, or use "
                    'security = "tls" (usually port 465) if the server expects implicit TLS',
                    retryable=False,
                )
            await client.starttls(tls_context=context)
        await _login(client, config, secret, where)
        yield client, where
    except SendError:
        raise
    except (aiosmtplib.SMTPException, OSError, ValueError) as exc:
        raise _explain(exc, config, where) from exc
    finally:
        client.close()


def _tls_context(config: ServerConfig) -> ssl.SSLContext | None:
    try:
        return tls_context(config)
    except AccountError as exc:
        raise SendError(str(exc), retryable=False) from exc


async def _login(client: aiosmtplib.SMTP, config: SmtpConfig, secret: str, where: str) -> None:
    if client.is_ehlo_or_helo_needed:
        await client.ehlo()
    offered = client.server_auth_methods
    if config.uses_oauth2:
        if "xoauth2" not in offered:
            raise SendError(
                f"the SMTP server {where} does not offer XOAUTH2 login "
                f"(it offers: {_names(offered)}): use a password source instead of oauth2_command",
                retryable=False,
            )
        await client.auth_xoauth2(config.username, secret)
    elif "plain" in offered:
        await client.auth_plain(config.username, secret)
    elif "login" in offered:
        await client.auth_login(config.username, secret)
    else:
        raise SendError(
            f"the SMTP server {where} offers no login hexpost can use "
            f"(it offers: {_names(offered)}; hexpost uses PLAIN, LOGIN or XOAUTH2)",
            retryable=False,
        )


def _names(methods: Sequence[str]) -> str:
    return ", ".join(m.upper() for m in methods) or "none"


def _transient(code: int) -> bool:
    return 400 <= code < 500


def _cause(error: BaseException, kind: type[_E]) -> _E | None:
    """``error`` or the first exception of type ``kind`` it was raised from."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, kind):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _explain(exc: BaseException, config: SmtpConfig, where: str) -> SendError:
    """The user's words for what aiosmtplib or the network raised."""
    retryable = classify(exc) == "retry"
    if isinstance(exc, aiosmtplib.SMTPAuthenticationError):
        return SendError(
            f"the SMTP server {where} refused the login of {config.username} "
            f"(authentication refused: {exc.code} {exc.message}): check the password "
            f"(or token) from {secret_source(config)} and the username",
            retryable=retryable,
            code=exc.code,
        )
    if isinstance(exc, aiosmtplib.SMTPRecipientsRefused):
        refused = ", ".join(f"{r.recipient} ({r.code} {r.message})" for r in exc.recipients)
        return SendError(
            f"the SMTP server {where} refused every recipient: {refused}",
            retryable=retryable,
            code=exc.recipients[0].code if exc.recipients else None,
        )
    if isinstance(exc, aiosmtplib.SMTPSenderRefused):
        return SendError(
            f"the SMTP server {where} refused the sender {exc.sender} ({exc.code} {exc.message}): "
            "the sender must be an address this account may send from",
            retryable=retryable,
            code=exc.code,
        )
    if isinstance(exc, aiosmtplib.SMTPDataError):
        return SendError(
            f"the SMTP server {where} refused the message ({exc.code} {exc.message})",
            retryable=retryable,
            code=exc.code,
        )
    if isinstance(exc, aiosmtplib.SMTPTimeoutError):
        return SendError(
            f"timed out after {config.timeout:g} s talking to the SMTP server {where} ({exc}); "
            'check that the port matches security = "' + config.security + '"',
            retryable=retryable,
        )
    unverified = _cause(exc, ssl.SSLCertVerificationError)
    if unverified is not None:
        trust = (
            f"it is not signed by the CA in ca_file {config.ca_file!r}"
            if config.ca_file
            else "if the server uses its own certificate authority, set ca_file in "
            f"[{config.section}] to that CA's certificate"
        )
        return SendError(
            f"the TLS certificate of the SMTP server {where} is not trusted "
            f"({unverified.verify_message or unverified.reason}): nothing was sent; {trust}",
            retryable=False,
        )
    tls_failure = _cause(exc, ssl.SSLError)
    if tls_failure is not None:
        return SendError(
            f"the TLS handshake with the SMTP server {where} failed ({tls_failure.reason or exc}): "
            f'is security = "{config.security}" right for port {config.port}? '
            "(465 is usually implicit TLS, 587 STARTTLS)",
            retryable=False,
        )
    if isinstance(exc, aiosmtplib.SMTPResponseException):
        return SendError(
            f"the SMTP server {where} answered {exc.code} {exc.message}",
            retryable=retryable,
            code=exc.code,
        )
    if isinstance(exc, aiosmtplib.SMTPServerDisconnected):
        return SendError(
            f"the SMTP server {where} closed the connection ({exc})", retryable=retryable
        )
    lookup = _cause(exc, socket.gaierror)  # (aiosmtplib wraps it in SMTPConnectError)
    if lookup is not None:
        return SendError(
            f"cannot find the SMTP server {config.host} ({lookup.strerror or lookup}): check "
            "the host name, and that the network is up",
            retryable=retryable,
        )
    if isinstance(exc, aiosmtplib.SMTPConnectError | OSError):
        return SendError(
            f"cannot connect to the SMTP server {where} ({exc}): check host and port, and "
            "that the network is up",
            retryable=retryable,
        )
    return SendError(f"cannot send through the SMTP server {where}: {exc}", retryable=retryable)
