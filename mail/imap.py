"""Reading packet mail over IMAP (imapclient), blocking: meant for one worker thread.

`ImapFolder.open` connects to the ``[mail.imap]`` server, secures the connection as the config
says and never less (``tls``: implicit TLS; ``starttls``: STARTTLS is required, a server that
does not offer it is refused before the password is sent; ``plain``: loopback hosts only),
verifies the certificate (against ``ca_file`` when set, else the system's CAs), logs in and
selects the configured folder.

The mailbox usually holds the player's other mail too, and that mail is none of hexpost's
business: `ImapFolder.fetch_new` decides which new messages are packet mail from their size,
their ``X-Hexpost`` header and their MIME structure (plus a server-side search for the armoured
block of a packet pasted into a message by hand), and downloads only those whole, with
``BODY.PEEK[]`` so that nothing is marked read. Foreign mail is never flagged, moved or fetched.
Mail the server finds by its header and size (one search) is hexpost's own and is downloaded
without asking for its structure first; only the rest is judged by its structure.

Every failure is a `FetchError` whose text says what failed and where, and whose ``retryable``
says whether trying again later may help (network trouble) or the user must change something
first (password, certificate, folder name). After a `FetchError` from a command on an open
folder, close it and open a new one: the connection may be half-way through a command.
"""

from __future__ import annotations

import contextlib
import logging
import ssl
import time
from collections.abc import Callable, Container, Iterator, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, TypeVar

from imapclient import IMAPClient
from imapclient.exceptions import IMAPClientAbortError, IMAPClientError

from mail.accounts import AccountError, ImapConfig, ServerConfig, is_loopback
from mail.credentials import tls_context
from mail.imaperrors import FetchError
from mail.imaperrors import error_text as _text
from mail.imaperrors import explain as _explain
from mail.imaperrors import is_temporary as _temporary
from mail.imapfetch import whole_messages
from mail.imapmarks import marks_packet, searched
from mail.mime import (
    ARMOR_BEGIN,
    HEADER,
)
from mail.mime import MAX_MAIL_BYTES as _READ_LIMIT

__all__ = ["FETCH_BATCH", "MAX_MAIL_BYTES", "FetchError", "FoundMail", "ImapFolder"]

MAX_MAIL_BYTES: int = _READ_LIMIT
"""Bigger messages are skipped (the cursor still moves past them): a packet email is far
smaller, and downloading a huge stranger's attachment would only waste the player's data.
The same limit as `mail.mime.MAX_MAIL_BYTES`, past which an email is not read."""
FETCH_BATCH: int = 100
"""UIDs per FETCH command, so a first scan of a big folder is many short commands."""

_log = logging.getLogger(__name__)
T = TypeVar("T")

_DELETED = b"\\Deleted"
_HEADER_ITEM = f"BODY.PEEK[HEADER.FIELDS ({HEADER.upper()})]".encode()
_EOF_STRIKES = 5
"""Empty wake-ups in a row, before the IDLE timeout, that mean the server hung up."""


@dataclass(frozen=True)
class FoundMail:
    """One packet email, downloaded whole."""

    uid: int
    ref: str
    """``"<uidvalidity>:<uid>"``: stable as long as the folder's UIDVALIDITY is."""
    raw: bytes
    """The whole message, exactly as the server stores it."""


class ImapFolder:
    """One logged-in connection to the configured folder; blocking; used from one thread.

    imapclient connections are not thread-safe: one thread at a time, and no command while
    `idle` runs. The folder is selected read-write so that `move` can work.
    """

    def __init__(
        self, client: Any, config: ImapConfig, uidvalidity: int, exists: int, uidnext: int = 0
    ) -> None:
        """Use `open`; this only wraps a client that is already logged in and selected."""
        self._client = client
        self._config = config
        self._where = f"{config.host}:{config.port}"
        self.uidvalidity = uidvalidity
        self.exists = exists
        """How many messages the folder held when it was selected."""
        self._fresh = True
        """No command since the SELECT: what it reported is the folder as it is."""
        self._complete: int | None = None
        """No message of this folder has a UID above this, as far as this connection knows
        (from the SELECT's UIDNEXT, then from each search); None once the server announced
        new mail (EXISTS), until the next search. It lets a fetch with nothing new skip its
        search: on a fresh connection no command at all, on a kept one a single NOOP."""
        self._announced()  # the SELECT's count is where this connection starts
        if uidnext > 0:
            self._complete = uidnext - 1

    @property
    def config(self) -> ImapConfig:
        """The account's IMAP settings this connection was opened with."""
        return self._config

    @classmethod
    def open(cls, config: ImapConfig, secret: str) -> ImapFolder:
        """Connect, secure, log in and select ``config.folder``, or raise `FetchError`."""
        where = f"{config.host}:{config.port}"
        if config.security == "plain" and not is_loopback(config.host):
            raise FetchError(
                f"{config.section}.security = plain is allowed only for a loopback host, "
                f"not {config.host}: use tls or starttls",
                retryable=False,
            )
        context = _tls_context(config)
        stage = "connect"
        try:
            client = IMAPClient(
                config.host,
                config.port,
                ssl=config.security == "tls",
                ssl_context=context,
                timeout=config.timeout,
            )
        except (IMAPClientError, OSError) as exc:
            raise _explain(exc, config, stage) from exc
        _quiet(client)
        try:
            if config.security == "starttls":
                stage = "starttls"
                if not client.has_capability("STARTTLS"):
                    raise FetchError(
                        f"the IMAP server {where} does not offer STARTTLS, so hexpost did not "
                        "log in (it never sends a password unencrypted): check host and port, "
                        'or use security = "tls" (usually port 993) if the server expects '
                        "implicit TLS",
                        retryable=False,
                    )
                client.starttls(ssl_context=context)
            stage = "login"
            if config.uses_oauth2:
                client.oauth2_login(config.username, secret)
            else:
                client.login(config.username, secret)
            stage = "select"
            selected = client.select_folder(config.folder, readonly=False)
            uidvalidity = int(selected[b"UIDVALIDITY"])
            exists = int(selected.get(b"EXISTS", 0))
            uidnext = int(selected.get(b"UIDNEXT", 0))
        except FetchError:
            _drop(client)
            raise
        except (IMAPClientError, OSError, KeyError, ValueError) as exc:
            _drop(client)
            raise _explain(exc, config, stage) from exc
        return cls(client, config, uidvalidity, exists, uidnext)

    # --- reading ---------------------------------------------------------------------------

    def fetch_new(
        self,
        cursor: str,
        seen: Container[str],
        *,
        batch: int = FETCH_BATCH,
        max_bytes: int = MAX_MAIL_BYTES,
    ) -> tuple[list[FoundMail], str]:
        """The packet mail that arrived after ``cursor``, oldest first, and the next cursor.

        ``cursor`` is ``""`` (never read) or what the last call returned. When it names
        another UIDVALIDITY the folder was rebuilt and its UIDs mean nothing any more: the whole
        folder is read again (the caller deduplicates by packet id). Messages whose ref is in
        ``seen`` are not downloaded again. (`new_uids` then `download`, for a caller that
        looks up the new refs itself.)
        """
        uids, new_cursor = self.new_uids(cursor)
        wanted = [uid for uid in uids if self.ref(uid) not in seen]
        return self.download(wanted, batch=batch, max_bytes=max_bytes), new_cursor

    def new_uids(self, cursor: str, *, just_opened: bool = False) -> tuple[list[int], str]:
        """The UIDs after ``cursor`` (see `fetch_new`), in order, and the next cursor.

        A server shows a session mail that arrived since its last command only once it has
        told it so (EXISTS), so a kept connection first sends NOOP; when neither that NOOP nor
        anything since the last search announced mail, and the cursor is at or past the last
        UID this connection knows of, nothing new can be there and no search is made. A
        connection the caller ``just_opened`` (no command since its SELECT) needs no NOOP: the
        SELECT just reported the folder, with its UIDNEXT."""
        last = self._last_uid(cursor)
        fresh = just_opened and self._fresh
        with self._guard("searching for new mail in"):
            if not fresh and _has_exists(_responses(self._client.noop())):
                self._complete = None
            self._announced()  # what the NOOP announced, this SEARCH sees
            if self._complete is not None and last >= self._complete:
                return [], f"{self.uidvalidity}:{last}"
            found = self._client.search(["UID", f"{last + 1}:*"])
        # The server answers `n:*` with the highest UID even when that is below n.
        uids = sorted(uid for uid in (int(u) for u in found) if uid > last)
        # Mail announced during the SEARCH may be missing from its answer (and `idle` still
        # has to see the announcement): only a search with none such bounds the UIDs.
        self._complete = None if self._exists_kept() else max([last, *uids[-1:]])
        if not uids:
            return [], f"{self.uidvalidity}:{last}"
        return uids, f"{self.uidvalidity}:{uids[-1]}"

    def download(
        self, uids: Sequence[int], *, batch: int = FETCH_BATCH, max_bytes: int = MAX_MAIL_BYTES
    ) -> list[FoundMail]:
        """Those of ``uids`` that are packet mail no bigger than ``max_bytes`` (`packet_uids`),
        downloaded whole (`bodies`)."""
        chosen = self.packet_uids(uids, batch=batch, max_bytes=max_bytes)
        return [
            mail
            for start in range(0, len(chosen), batch)
            for mail in self.bodies(chosen[start : start + batch])
        ]

    def packet_uids(
        self,
        uids: Sequence[int],
        *,
        batch: int = FETCH_BATCH,
        max_bytes: int = MAX_MAIL_BYTES,
        judged: int | None = None,
        folder: str | None = None,
    ) -> list[int]:
        """Those of ``uids`` that are packet mail no bigger than ``max_bytes``, in UID order,
        judged without downloading any message whole.

        Mail already known to be hexpost's, by its ``X-Hexpost`` header and its size, is named
        by the server in one search over their range; only the rest is judged by its structure
        (`_packet_mail`, which fetches size, header and structure of each): the last ``judged``
        of it, when given (a first scan of a folder of years of mail). ``folder`` names the
        folder selected, for errors and the log, when it is not the configured one (the spam
        folder: `mail.imapjunk`)."""
        if batch < 1:
            raise ValueError("batch must be at least 1")
        marked: set[int] = set()
        if uids:  # (one search over their range, however many: the answer is cut to them)
            span = f"{min(uids)}:{max(uids)}"
            with self._guard("searching new mail in", folder):
                criteria = ["UID", span, "HEADER", HEADER, "", "NOT", "LARGER", max_bytes]
                marked.update(searched(self._client, criteria))
        wanted = sorted(marked.intersection(uids))
        rest = [uid for uid in uids if uid not in marked]
        if judged is not None:
            rest = rest[-judged:] if judged > 0 else []
        for start in range(0, len(rest), batch):
            wanted.extend(self._packet_mail(rest[start : start + batch], max_bytes, folder))
        return sorted(wanted)

    def bodies(self, uids: Sequence[int]) -> list[FoundMail]:
        """``uids`` downloaded whole by one FETCH (``BODY.PEEK[]``: nothing is marked read;
        the answer read by `mail.imapfetch`); a message expunged meanwhile by another client
        is left out."""
        if not uids:
            return []
        with self._guard("downloading packet mail from"):
            bodies = whole_messages(self._client, uids)
        mails: list[FoundMail] = []
        for uid in uids:
            raw = bodies.get(uid)
            if raw is not None:
                mails.append(FoundMail(uid=uid, ref=self.ref(uid), raw=raw))
        return mails

    def ref(self, uid: int) -> str:
        """The stable reference of a message of this folder, as `FoundMail.ref`."""
        return f"{self.uidvalidity}:{uid}"

    def _last_uid(self, cursor: str) -> int:
        """The last UID read according to ``cursor``; 0 to read everything again."""
        if not cursor:
            return 0
        validity, _, uid = cursor.partition(":")
        if not (validity.isdigit() and uid.isdigit()):
            _log.warning("IMAP cursor %r is not <uidvalidity>:<uid>; reading everything", cursor)
            return 0
        if int(validity) != self.uidvalidity:
            _log.info(
                "folder %s on %s changed UIDVALIDITY (%s, now %d): reading it all again",
                self._config.folder,
                self._where,
                validity,
                self.uidvalidity,
            )
            return 0
        return int(uid)

    def _packet_mail(self, uids: list[int], max_bytes: int, folder: str | None) -> list[int]:
        """Those of ``uids`` that are packet mail no bigger than ``max_bytes``, in order,
        judged without downloading any message whole (``folder``: as `packet_uids`)."""
        where = repr(folder if folder is not None else self._config.folder)
        with self._guard("reading the structure of new mail in", folder):
            try:
                facts = self._client.fetch(uids, [b"RFC822.SIZE", _HEADER_ITEM, b"BODYSTRUCTURE"])
            except RecursionError:
                # imapclient parses a response recursively: a structure nested deeper than
                # Python's stack (a hostile server's, Dovecot flattens deep mail) cannot be
                # read. The answer was read whole before parsing, so the connection is fine:
                # judge these messages without their structure (header and body search).
                _log.warning(
                    "a message structure in %s on %s is nested too deep to read", where, self._where
                )
                facts = self._client.fetch(uids, [b"RFC822.SIZE", _HEADER_ITEM])
        marked = {uid for uid in uids if uid in facts and marks_packet(facts[uid])}
        # Only mail neither its header nor its structure marks can hold a pasted or forwarded
        # armoured block: ask the server to search just those bodies (never download them).
        unmarked = [uid for uid in uids if uid in facts and uid not in marked]
        armoured: set[int] = set()
        if unmarked:
            with self._guard("searching new mail in", folder):
                armoured = set(
                    searched(self._client, ["UID", _uid_set(unmarked), "BODY", ARMOR_BEGIN])
                )
        chosen: list[int] = []
        for uid in uids:
            if uid not in marked and uid not in armoured:
                continue  # not packet mail, or expunged before the fetch
            size = int(facts[uid].get(b"RFC822.SIZE", 0))
            if size > max_bytes:
                _log.warning(
                    "skipping message UID %d in %s on %s: %d bytes, over the %d byte limit",
                    uid,
                    where,
                    self._where,
                    size,
                    max_bytes,
                )
                continue
            chosen.append(uid)
        return chosen

    def visit(self, doing: str, work: Callable[[Any], T], *, elsewhere: bool = True) -> T:
        """Run ``work(client)`` on this connection, which may select another folder (the spam
        folder, `mail.imapjunk`); then (if ``elsewhere``) select the configured one again. Mail
        that reached it meanwhile was announced to nobody: unless the new SELECT shows none
        came, the next search or `idle` looks again. ``doing`` names the work in errors."""
        known = self._complete
        with self._guard(doing):
            answer = work(self._client)
            if not elsewhere:
                return answer
            selected = self._client.select_folder(self._config.folder, readonly=False)
        try:
            uidvalidity = int(selected[b"UIDVALIDITY"])
            uidnext = int(selected.get(b"UIDNEXT", 0))
            self.exists = int(selected.get(b"EXISTS", 0))
        except (KeyError, ValueError) as exc:
            raise self._failure(f"selecting {self._config.folder!r} again on", exc) from exc
        if uidvalidity == self.uidvalidity and known is not None and 0 < uidnext <= known + 1:
            self._announced()  # the SELECT's count: nothing new since the last search
            self._complete = known
        else:  # the SELECT's EXISTS stays for `idle`; the next fetch searches
            self.uidvalidity = uidvalidity
            self._complete = None
        return answer

    # --- moving ----------------------------------------------------------------------------

    def move(self, uids: Sequence[int], folder: str) -> None:
        """Move processed packet mail to ``folder``, creating it first if it is missing.

        Uses MOVE when the server has it; otherwise COPY, then ``\\Deleted`` and UID EXPUNGE
        of exactly these UIDs (without UIDPLUS a plain EXPUNGE would also remove whatever else
        the user marked deleted, so the originals are then left marked deleted, not expunged).
        """
        if not uids:
            return
        self._ensure_folder(folder)
        with self._guard(f"moving packet mail to {folder!r} from"):
            if not self._client.has_capability("MOVE"):
                self._move_by_copy(uids, folder)
                return
            self._client.move(list(uids), folder)

    def _ensure_folder(self, folder: str) -> None:
        with self._guard(f"looking for the folder {folder!r} on"):
            if self._client.folder_exists(folder):
                return
        try:
            self._client.create_folder(folder)
        except IMAPClientAbortError as exc:
            raise self._failure(f"creating the folder {folder!r} on", exc) from exc
        except IMAPClientError as exc:
            with self._guard(f"looking for the folder {folder!r} on"):
                if self._client.folder_exists(folder):
                    return  # another client created it meanwhile
            raise FetchError(
                f"the IMAP server {self._where} refused to create the folder {folder!r} for "
                f"processed packet mail ({_text(exc)}): check processed_folder in "
                f"[{self._config.section}]",
                retryable=_temporary(exc),
            ) from exc
        except OSError as exc:
            raise self._failure(f"creating the folder {folder!r} on", exc) from exc

    def _move_by_copy(self, uids: Sequence[int], folder: str) -> None:
        """MOVE for servers without it: copy, mark the originals deleted, expunge just them."""
        with self._guard(f"copying packet mail to {folder!r} from"):
            self._client.copy(list(uids), folder)
            self._client.add_flags(list(uids), [_DELETED], silent=True)
            if self._client.has_capability("UIDPLUS"):
                self._client.uid_expunge(list(uids))
            else:
                _log.info(
                    "%s has no UIDPLUS: %d moved message(s) left marked deleted in %s",
                    self._where,
                    len(uids),
                    self._config.folder,
                )

    # --- waiting ---------------------------------------------------------------------------

    def has_idle(self) -> bool:
        """Whether the server can push new mail (IDLE); else the caller polls."""
        with self._guard("asking the capabilities of"):
            return bool(self._client.has_capability("IDLE"))

    def idle(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for new mail: True as soon as the server reports
        EXISTS, False when the time is up. Keep ``timeout`` under 29 minutes (servers may drop
        an IDLE they think is forgotten). The IDLE is always ended before returning, so the
        connection can fetch again. Without IDLE it returns True at once: the caller polls.
        In the tests Dovecot reports a new message about 0.5 s after it was delivered.

        Also True at once when the server announced mail since the last fetch's NOOP: that
        mail arrived too late for the fetch's SEARCH, and IDLE would not announce it again."""
        if not self.has_idle() or self._announced():
            return True
        with self._guard("waiting (IDLE) for new mail on"):
            self._client.idle()
            try:
                arrived = self._wait_for_exists(timeout)
            except BaseException:
                with contextlib.suppress(IMAPClientError, OSError):
                    self._client.idle_done()
                raise
            _, late = self._client.idle_done()
        if arrived or _has_exists(late):
            self._complete = None
            return True
        return False

    def _announced(self) -> bool:
        """Take the new-mail announcements (EXISTS) the server made since the last call.

        Dovecot announces mail delivered during a command at that command's end (a SEARCH, a
        FETCH): imaplib keeps the announcement aside and the command's answer leaves the mail
        out, so only this says it is there. A client keeping no such record says nothing."""
        kept = getattr(getattr(self._client, "_imap", None), "untagged_responses", None)
        if isinstance(kept, dict) and kept.pop("EXISTS", None):
            self._complete = None
            return True
        return False

    def _exists_kept(self) -> bool:
        """Whether an announcement (EXISTS) waits for `_announced`, left where it is."""
        kept = getattr(getattr(self._client, "_imap", None), "untagged_responses", None)
        return isinstance(kept, dict) and bool(kept.get("EXISTS"))

    def _wait_for_exists(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        strikes = 0
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            responses = self._client.idle_check(timeout=remaining)
            if _has_exists(responses):
                return True
            if any(isinstance(r, tuple) and r[:1] == (b"BYE",) for r in responses):
                raise ConnectionResetError("the server said BYE during IDLE")
            # Keepalives ("* OK Still here") and flag changes: keep waiting. An empty answer
            # before the deadline means the socket woke up with nothing to read: a closed
            # connection does that again and again, at once.
            if responses or time.monotonic() >= deadline:
                strikes = 0
                continue
            strikes += 1
            if strikes >= _EOF_STRIKES:
                raise ConnectionResetError("the server closed the connection during IDLE")

    def noop(self) -> None:
        """Keep the connection alive and collect the server's news (NOOP)."""
        with self._guard("sending NOOP to"):
            answer = self._client.noop()
        if _has_exists(_responses(answer)):
            self._complete = None

    # --- closing ---------------------------------------------------------------------------

    def close(self) -> None:
        """Log out; never raises (a dead connection is just dropped)."""
        client, self._client = self._client, None
        if client is None:
            return
        try:
            client.logout()
        except Exception:
            _drop(client)

    def __enter__(self) -> ImapFolder:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # --- errors ----------------------------------------------------------------------------

    @contextlib.contextmanager
    def _guard(self, doing: str, folder: str | None = None) -> Iterator[None]:
        """Turn what imapclient or the network raises while ``doing`` into a `FetchError`
        (naming ``folder``, else the configured folder)."""
        if self._client is None:
            raise FetchError(f"the IMAP connection to {self._where} is closed", retryable=False)
        self._fresh = False  # a command follows: the SELECT's report is no longer the latest
        try:
            yield
        except (IMAPClientError, OSError) as exc:
            raise self._failure(doing, exc, folder) from exc

    def _failure(self, doing: str, exc: BaseException, folder: str | None = None) -> FetchError:
        name = folder if folder is not None else self._config.folder
        where = f"the IMAP server {self._where} (folder {name!r})"
        if isinstance(exc, IMAPClientAbortError | OSError):
            return FetchError(
                f"lost the connection while {doing} {where} ({_text(exc)}); will retry",
                retryable=True,
            )
        return FetchError(f"{doing} {where} failed: {_text(exc)}", retryable=True)


# --- helpers -------------------------------------------------------------------------------


def _tls_context(config: ServerConfig) -> ssl.SSLContext | None:
    try:
        return tls_context(config)
    except AccountError as exc:
        raise FetchError(str(exc), retryable=False) from exc


_PROTOCOL_LOG = logging.getLogger("imapclient.imaplib")
"""Where imapclient sends imaplib's protocol trace (every line read, every answer)."""


def _quiet(client: Any) -> None:
    """Turn imaplib's protocol trace off unless someone listens to it.

    imapclient sets imaplib's debug level to 5 on every connection and routes its messages to
    the ``imapclient.imaplib`` logger. At that level imaplib formats a message for every line
    it reads, a ``repr`` of every downloaded message as it files it, and a ``repr`` of a whole
    FETCH answer (100 messages) when the answer is handed over, whether or not the logger
    shows anything: half the CPU time of downloading packet mail, on the worker thread that
    shares the interpreter with the thread taking the packets in. Nothing is lost: with the
    logger enabled for DEBUG (a user tracing the protocol) when the connection opens, the
    trace stays on for that connection."""
    imap4 = getattr(client, "_imap", None)
    if imap4 is not None and not _PROTOCOL_LOG.isEnabledFor(logging.DEBUG):
        imap4.debug = 0


def _drop(client: Any) -> None:
    """Close a connection that failed half-way, without a word to the server."""
    with contextlib.suppress(Exception):
        client.shutdown()


def _uid_set(uids: Sequence[int]) -> str:
    return ",".join(str(uid) for uid in uids)


def _responses(answer: Any) -> Any:
    """The untagged responses of imapclient's answer to NOOP (``(text, responses)``)."""
    return answer[1] if isinstance(answer, tuple) and len(answer) == 2 else ()


def _has_exists(responses: Any) -> bool:
    return any(isinstance(r, tuple) and len(r) >= 2 and r[1] == b"EXISTS" for r in responses or ())
