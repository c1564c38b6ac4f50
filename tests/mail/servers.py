"""Real mail servers on loopback for the mail integration tests (see docs in
../shared/design/mail-testing.md): a throwaway Dovecot (IMAP with STARTTLS and implicit TLS,
LMTP for delivery) and an aiosmtpd SMTP server (STARTTLS + AUTH required) that delivers to
Dovecot over LMTP. Everything listens on 127.0.0.1 on free ports, with a test CA of its own; the
STARTTLS IMAP port also listens on 127.0.0.2 (where STARTTLS really is required) and 127.0.0.3
(where it is not offered at all), see `MailStack`.

`start_mail_stack()` is a context manager yielding a `MailStack`; tests/mail/conftest.py wraps it
in the `mail_stack` fixture. The loopback addresses, the account Dovecot runs as and the text
of its configuration are in tests/mail/dovecot_config.py; here the servers are started,
waited for and stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import ipaddress
import logging
import os
import shutil
import signal
import smtplib
import socket
import ssl
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from tests.mail.dovecot_config import (
    HOST,
    NO_TLS_HOST,
    STARTTLS_HOST,
    Account,
    dovecot_config,
    mail_account,
)

__all__ = [
    "HOST",
    "MailStack",
    "MailStackError",
    "find_program",
    "free_ports",
    "start_mail_stack",
]
"""What the tests and benches import from here; `HOST` comes from `tests.mail.dovecot_config`."""


def _not_login_data_notice(record: logging.LogRecord) -> bool:
    """aiosmtpd (1.4) itself sets its deprecated ``Session.login_data`` after every AUTH and
    logs a warning about it each time: noise in the benches' output, nothing we can act on."""
    return "login_data is deprecated" not in record.getMessage()


logging.getLogger("mail.log").addFilter(_not_login_data_notice)

DOMAIN = "localhost"
USERS: dict[str, str] = {
    "alice": "alice-secret-1",
    "bob": "bob-secret-2",
    "carol": "carol-secret-3",
}
"""carol plays in no game: her mailbox holds the spam folder the server flags
(tests/mail/test_junk.py)."""

# Dovecot lives in /usr/sbin, which is not on every user's PATH.
SBIN_DIRS = ("/usr/local/sbin", "/usr/sbin", "/sbin")

START_TIMEOUT = 10.0
STOP_TIMEOUT = 15.0


class MailStackError(RuntimeError):
    """The test mail servers could not be started or stopped."""


@dataclass(frozen=True)
class MailStack:
    """Where the test servers listen and who may log in.

    `imap_port` is plain IMAP on which STARTTLS is required before login, `imaps_port` is IMAP
    over implicit TLS, `smtp_port` is SMTP with STARTTLS and AUTH required, `lmtp_port` is
    Dovecot's LMTP (no TLS, no auth: delivery behind the SMTP server's back). Certificates are
    issued by the CA in `ca_file` for `localhost`, `127.0.0.1` and `127.0.0.2`.

    Beware: Dovecot counts a connection whose remote and local addresses are equal as secured, so
    on `host` it accepts a login without STARTTLS from 127.0.0.1 despite `ssl = required`. To
    test that a client insists on STARTTLS, connect to `imap_port` on `imap_starttls_host`
    (127.0.0.2), where Dovecot refuses a login before STARTTLS, or on `imap_no_tls_host`
    (127.0.0.3), where it offers no STARTTLS and accepts a login in clear.
    """

    host: str
    imap_port: int
    imap_starttls_host: str
    imap_no_tls_host: str
    imaps_port: int
    smtp_port: int
    lmtp_port: int
    ca_file: Path
    users: dict[str, str]
    domain: str
    dovecot_conf: Path
    dovecot_pid: int
    directory: Path = field(repr=False)

    def address(self, user: str) -> str:
        return f"{user}@{self.domain}"

    def password(self, user: str) -> str:
        return self.users[user]

    def ssl_context(self) -> ssl.SSLContext:
        """A client context that verifies the servers' certificates against the test CA."""
        return ssl.create_default_context(cafile=str(self.ca_file))

    def doveadm(self, *args: str) -> str:
        """Run `doveadm -c <conf> ARGS...` against this Dovecot instance; return its stdout."""
        result = subprocess.run(
            [find_program("doveadm") or "doveadm", "-c", str(self.dovecot_conf), *args],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        if result.returncode != 0:
            raise MailStackError(f"doveadm {' '.join(args)} failed: {result.stderr.strip()}")
        return result.stdout


def find_program(name: str) -> str | None:
    """`name` on PATH or in the sbin directories; None when it is not installed."""
    path = os.pathsep.join([os.environ.get("PATH", os.defpath), *SBIN_DIRS])
    return shutil.which(name, path=path)


# --- certificates -------------------------------------------------------------------------


def write_certificates(directory: Path) -> tuple[Path, Path, Path]:
    """Make a test CA and a server certificate for localhost, 127.0.0.1 and 127.0.0.2 signed
    by it.

    Returns (ca certificate, server certificate chain, server key) as PEM files.
    """
    now = datetime.datetime.now(datetime.UTC)
    not_before = now - datetime.timedelta(hours=1)
    not_after = now + datetime.timedelta(days=2)

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "hexpost test CA")])
    ca_ski = x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key())
    ca_cert = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(ca_ski, critical=False)
        .sign(ca_key, hashes.SHA256())
    )

    server_key = ec.generate_private_key(ec.SECP256R1())
    server_cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, DOMAIN)]))
        .issuer_name(ca_name)
        .public_key(server_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=True,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=False,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.SubjectAlternativeName(
                [
                    x509.DNSName(DOMAIN),
                    x509.IPAddress(ipaddress.ip_address(HOST)),
                    x509.IPAddress(ipaddress.ip_address(STARTTLS_HOST)),
                ]
            ),
            critical=False,
        )
        .add_extension(
            x509.SubjectKeyIdentifier.from_public_key(server_key.public_key()), critical=False
        )
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ca_ski),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())
    )

    ca_file = directory / "ca.pem"
    cert_file = directory / "server.pem"
    key_file = directory / "server.key"
    ca_file.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    cert_file.write_bytes(server_cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        server_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    key_file.chmod(0o600)
    return ca_file, cert_file, key_file


# --- ports and processes -------------------------------------------------------------------


def free_ports(count: int) -> list[int]:
    """`count` distinct free TCP ports on the loopback address (bound to port 0, then released)."""
    sockets: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind((HOST, 0))
            sockets.append(sock)
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def port_accepts(port: int) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=0.5):
            return True
    except OSError:
        return False


def children_of(pid: int) -> set[int]:
    """Process ids whose parent is `pid` (from /proc; empty where /proc is missing)."""
    found: set[int] = set()
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            # The command name may hold spaces and parentheses: fields follow the last ')'.
            fields = stat[stat.rfind(")") + 2 :].split()
            if len(fields) > 1 and int(fields[1]) == pid:
                found.add(int(entry))
    return found


def process_alive(pid: int) -> bool:
    """True while `pid` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat[stat.rfind(")") + 2 :].split()[0] != "Z"


def wait_gone(pids: set[int], timeout: float) -> set[int]:
    """Poll until none of `pids` is alive, or `timeout`; return those still alive."""
    deadline = time.monotonic() + timeout
    alive = {pid for pid in pids if process_alive(pid)}
    while alive and time.monotonic() < deadline:
        time.sleep(0.02)
        alive = {pid for pid in alive if process_alive(pid)}
    return alive


# --- Dovecot --------------------------------------------------------------------------------


@dataclass
class Dovecot:
    process: subprocess.Popen[bytes]
    conf: Path
    log: Path

    def log_tail(self) -> str:
        try:
            lines = self.log.read_text(errors="replace").splitlines()
        except OSError:
            return "(no log)"
        return "\n".join(lines[-30:])

    def stop(self) -> None:
        """SIGTERM the master we started, wait for it and every child it had; SIGKILL if not."""
        pid = self.process.pid
        if self.process.poll() is not None:
            return
        children = children_of(pid)
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
        leftover = wait_gone(children, STOP_TIMEOUT)
        for child in leftover:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGKILL)
        if wait_gone(leftover, 5) or process_alive(pid):
            raise MailStackError(f"Dovecot (pid {pid}) left processes behind: {sorted(leftover)}")


def start_dovecot(
    directory: Path,
    account: Account,
    cert_file: Path,
    key_file: Path,
    imap_port: int,
    imaps_port: int,
    lmtp_port: int,
) -> Dovecot:
    (directory / "mail").mkdir()
    lines = [
        f"{user}:{{PLAIN}}{password}:{account.uid}:{account.gid}::{directory}/mail/{user}::"
        for user, password in USERS.items()
    ]
    users_file = directory / "users"
    users_file.write_text("\n".join(lines) + "\n")
    users_file.chmod(0o644)
    if os.geteuid() == 0:
        # The auth process reads the users file as the internal user; the mail processes write
        # the mail tree as the mail user.
        directory.chmod(0o755)
        os.chown(directory / "mail", account.uid, account.gid)
    conf = directory / "dovecot.conf"
    conf.write_text(
        dovecot_config(directory, account, cert_file, key_file, imap_port, imaps_port, lmtp_port)
    )
    log = directory / "dovecot.log"
    output = open(directory / "dovecot.out", "wb")  # noqa: SIM115 - kept for the process's life
    try:
        process = subprocess.Popen(
            [find_program("dovecot") or "dovecot", "-F", "-c", str(conf)],
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    finally:
        output.close()
    dovecot = Dovecot(process, conf, log)
    deadline = time.monotonic() + START_TIMEOUT
    ports = [imap_port, imaps_port, lmtp_port]
    while True:
        if process.poll() is not None:
            out = (directory / "dovecot.out").read_text(errors="replace").strip()
            raise MailStackError(
                f"dovecot exited with status {process.returncode} at start-up:\n{out}\n"
                f"{dovecot.log_tail()}"
            )
        ports = [port for port in ports if not port_accepts(port)]
        if not ports:
            return dovecot
        if time.monotonic() > deadline:
            dovecot.stop()
            raise MailStackError(
                f"dovecot did not accept connections on ports {ports} within {START_TIMEOUT} s:\n"
                f"{dovecot.log_tail()}"
            )
        time.sleep(0.02)


# --- SMTP -----------------------------------------------------------------------------------


class LmtpRelay:
    """aiosmtpd handler: deliver each accepted message to Dovecot over LMTP, one recipient per
    LMTP connection (several recipients in one transaction desynchronise smtplib.LMTP)."""

    def __init__(self, lmtp_port: int) -> None:
        self.lmtp_port = lmtp_port

    async def handle_RCPT(  # noqa: N802 - aiosmtpd's hook name
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: Any
    ) -> str:
        local, _, _domain = address.rpartition("@")
        if local.lower().partition("+")[0] not in USERS:
            return f"550 5.1.1 <{address}>: no such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(  # noqa: N802 - aiosmtpd's hook name
        self, server: SMTP, session: Session, envelope: Envelope
    ) -> str:
        content = envelope.original_content or envelope.content
        assert isinstance(content, bytes)
        mail_from = envelope.mail_from or ""
        try:
            for rcpt in envelope.rcpt_tos:
                await asyncio.to_thread(self.deliver, mail_from, rcpt, content)
        except (smtplib.SMTPException, OSError) as error:
            return f"451 4.3.0 LMTP delivery failed: {error}"
        return "250 OK delivered"

    def deliver(self, mail_from: str, rcpt: str, content: bytes) -> None:
        with smtplib.LMTP(HOST, self.lmtp_port, timeout=10) as lmtp:
            lmtp.sendmail(mail_from, [rcpt], content)


def authenticator(
    server: SMTP, session: Session, envelope: Envelope, mechanism: str, auth_data: Any
) -> AuthResult:
    if mechanism not in ("PLAIN", "LOGIN") or not isinstance(auth_data, LoginPassword):
        return AuthResult(success=False, handled=False)
    login = auth_data.login.decode("utf-8", "replace")
    password = auth_data.password.decode("utf-8", "replace")
    user = login.partition("@")[0].lower()
    if user in USERS and USERS[user] == password:
        return AuthResult(success=True, auth_data=user)
    return AuthResult(success=False, handled=False)


def start_smtp(port: int, lmtp_port: int, cert_file: Path, key_file: Path) -> Controller:
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(str(cert_file), str(key_file))
    controller = Controller(
        LmtpRelay(lmtp_port),
        hostname=HOST,
        port=port,
        server_hostname=DOMAIN,
        tls_context=tls,
        require_starttls=True,
        auth_required=True,
        auth_require_tls=True,
        authenticator=authenticator,
        ready_timeout=START_TIMEOUT,
    )
    controller.start()
    return controller


# --- the whole stack ------------------------------------------------------------------------


@contextlib.contextmanager
def start_mail_stack() -> Iterator[MailStack]:
    """Start Dovecot and the SMTP server on free loopback ports; stop both on exit.

    Raises MailStackError (with Dovecot's log) when something does not come up.
    """
    # A short path directly under the temp dir: Dovecot's unix sockets need short paths.
    directory = Path(tempfile.mkdtemp(prefix="hxmail-", dir=tempfile.gettempdir()))
    dovecot: Dovecot | None = None
    controller: Controller | None = None
    try:
        ca_file, cert_file, key_file = write_certificates(directory)
        imap_port, imaps_port, lmtp_port, smtp_port = free_ports(4)
        dovecot = start_dovecot(
            directory, mail_account(), cert_file, key_file, imap_port, imaps_port, lmtp_port
        )
        controller = start_smtp(smtp_port, lmtp_port, cert_file, key_file)
        yield MailStack(
            host=HOST,
            imap_port=imap_port,
            imap_starttls_host=STARTTLS_HOST,
            imap_no_tls_host=NO_TLS_HOST,
            imaps_port=imaps_port,
            smtp_port=smtp_port,
            lmtp_port=lmtp_port,
            ca_file=ca_file,
            users=dict(USERS),
            domain=DOMAIN,
            dovecot_conf=dovecot.conf,
            dovecot_pid=dovecot.process.pid,
            directory=directory,
        )
    finally:
        try:
            if controller is not None:
                controller.stop()
        finally:
            try:
                if dovecot is not None:
                    dovecot.stop()
            finally:
                shutil.rmtree(directory, ignore_errors=True)
