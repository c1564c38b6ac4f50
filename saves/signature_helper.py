"""Signatures checked beside a replay, in a helper process (issue 16: replay near its floor).

Replaying a stored game (`saves.replay.verify`) costs two kinds of work of about the same
size: checking each packet's Ed25519 signature and applying it with the engine. They do not
depend on each other until the verdict: a packet's signature is over its exact bytes, which
the replay has before it applies anything. But one process cannot do both at once, since the
`cryptography` binding holds the interpreter lock while it verifies (measured: two threads
take the sum of their times). So on a machine with a second core the replay forks a helper
that checks the signatures of each page of packets while the replay applies that page, and
the verdict waits for both.

The helper changes no verdict. The replay asks it, before it reports any failure and before
it succeeds, for the first packet whose signature failed up to that point: a packet whose
signature fails is reported as the sequential replay reports it (its signature is checked
before anything else about it), and a later packet's failure never hides an earlier bad
signature. Packets applied before the verdict only ever reach a state that is thrown away
with the failure; nothing is written until the whole replay is verified.

The helper is used only where a fork is safe and pays: on Linux, from a process running a
single thread (a fork copies only the calling thread, so a lock another thread held would
stay held in the child), with two usable cores, for a game of at least `HELPER_FROM` packets.
Elsewhere the replay checks the signatures itself, as before. ``HEXPOST_VERIFY_HELPER=0``
turns the helper off.

The child is a copy of the replaying process, open store included. SQLite forbids using a
connection across a fork, and the helper never does: it reads and writes only its pipe, the
store it inherits stays referenced by the copied call stack (so no collection closes it),
and it ends with ``os._exit`` (multiprocessing's way), which finalizes nothing.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import msgspec

from engine.core import packets

if TYPE_CHECKING:
    # Imported where a helper starts: reading a game (the app's first paint) forks nothing,
    # and the import costs 2.5 ms of it (issue 16).
    from multiprocessing.connection import Connection

HELPER_FROM = 128
"""Packets below which the replay checks signatures itself: forking and feeding the helper
costs about as much as a hundred signature checks."""

Item = tuple[int, bytes, bytes, bytes]
"""One packet to check: its position, the raw public key, the signature, the signed bytes."""

_ENCODER = msgspec.msgpack.Encoder()
_ITEMS = msgspec.msgpack.Decoder(list[tuple[int, bytes, bytes, bytes]])
_BAD = msgspec.msgpack.Decoder(list[int])


def wanted(packets: int) -> bool:
    """Whether a replay of ``packets`` packets should check signatures in a helper process."""
    if os.environ.get("HEXPOST_VERIFY_HELPER", "") == "0" or packets < HELPER_FROM:
        return False
    if not sys.platform.startswith("linux") or threading.active_count() != 1:
        return False
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():
        return False
    return len(os.sched_getaffinity(0)) >= 2


@contextmanager
def helper_for(packets: int) -> Iterator[SignatureHelper | None]:
    """A helper for a replay of ``packets`` packets while the block runs (None where one is
    not `wanted`), ended with the block whatever happens in it."""
    helper = SignatureHelper() if wanted(packets) else None
    try:
        yield helper
    finally:
        if helper is not None:
            helper.close()


class SignatureHelper:
    """A forked process that checks the signatures of the pages it is sent, in order, and
    answers each page with the positions whose signature failed.

    Should the helper die (killed, out of memory), the pages it has not answered are checked
    here instead, and so is every later page: a replay never fails, nor passes, for want of
    its helper. Until answered, a page is kept for that (at most the page being applied and
    the one before it: the replay asks for the verdict only at its end or at a failure, and
    the answers are read as each page is sent).
    """

    def __init__(self) -> None:
        import multiprocessing

        context = multiprocessing.get_context("fork")
        self._conn, child = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(child, self._conn), name="hexpost-signatures", daemon=True
        )
        self._process.start()
        child.close()
        self._unanswered: deque[Sequence[Item]] = deque()
        self._alive = True
        self._bad: list[int] = []

    def send(self, items: Sequence[Item]) -> None:
        """Queue a page of packets to check (the answers read so far are taken first, so
        neither side ever waits on a full pipe)."""
        self._drain(block=False)
        if self._alive:
            try:
                self._conn.send_bytes(_ENCODER.encode(list(items)))
            except OSError:
                self._helper_lost()
        if self._alive:
            self._unanswered.append(items)
        else:
            self._bad.extend(_failed(items))

    def first_bad(self, upto: int | None = None) -> int | None:
        """The first position, up to ``upto`` (None: every page sent), whose signature failed;
        waits for the pages sent so far."""
        self._drain(block=True)
        bad = [seq for seq in self._bad if upto is None or seq <= upto]
        return min(bad) if bad else None

    def close(self) -> None:
        """End the helper (the pipe's end is the end of its input) and wait for it."""
        self._conn.close()
        self._process.join(timeout=5)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()

    def _drain(self, *, block: bool) -> None:
        while self._unanswered and self._alive:
            try:
                if not (block or self._conn.poll()):
                    return
                answer = self._conn.recv_bytes()
            except (EOFError, OSError):
                self._helper_lost()
                return
            self._bad.extend(_BAD.decode(answer))
            self._unanswered.popleft()

    def _helper_lost(self) -> None:
        """The helper is gone: check here what it had not answered."""
        self._alive = False
        while self._unanswered:
            self._bad.extend(_failed(self._unanswered.popleft()))


def _failed(items: Sequence[Item]) -> list[int]:
    """The positions among ``items`` whose signature does not verify."""
    return [seq for seq, key, sig, msg in items if not packets.signed_by(key, sig, msg)]


def _serve(conn: Connection, parent_end: Any) -> None:
    """The helper's loop: each page in, its failed positions out, until the replay's end of
    the pipe closes. Ctrl-C is the replay's to handle (it then closes the pipe), so the
    helper ignores it rather than print a traceback of its own."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent_end.close()
    try:
        while True:
            conn.send_bytes(_ENCODER.encode(_failed(_ITEMS.decode(conn.recv_bytes()))))
    except (EOFError, OSError):
        pass  # the replay ended (or was killed) first: nothing is waiting for an answer
    finally:
        conn.close()
