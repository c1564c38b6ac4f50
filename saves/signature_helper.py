"""Signatures checked beside a replay, in a helper process (issue 16: replay near its floor).

Replaying a stored game (`saves.replay.verify`) costs two kinds of work of about the same
size: checking each packet's Ed25519 signature and applying it with the engine. They do not
depend on each other until the verdict: a packet's signature is over its exact bytes, which
the replay has before it applies anything. But one process cannot do both at once, since the
`cryptography` binding holds the interpreter lock while it verifies (measured: two threads
take the sum of their times). So on a machine with a second core the replay starts a helper
process (`saves.signature_child`) that checks the signatures of each page of packets while
the replay applies that page, and the verdict waits for both.

The helper is a fresh interpreter, not a fork of the replay. A fork shares the replay's
memory page by page, and every page the replay writes afterwards is copied then: about
4,000 page faults over the golden campaign, which cost the replay more (150 against 130 us a
packet, best of twenty alternated runs) than the fresh interpreter's start-up of about 25 ms,
which happens beside the replay. Starting a process (not forking one) is also safe from a
process that runs threads, as the app does.

The helper changes no verdict. The replay asks it, before it reports any failure and before
it succeeds, for the first packet whose signature failed up to that point: a packet whose
signature fails is reported as the sequential replay reports it (its signature is checked
before anything else about it), and a later packet's failure never hides an earlier bad
signature. Packets applied before the verdict only ever reach a state that is thrown away
with the failure; nothing is written until the whole replay is verified. The helper imports
the `cryptography` the replay imports (it is sent the replay's ``sys.path``, and says which
file it imported: another, and none of its answers is used) and decides as
`engine.core.packets.signed_by` does.

The helper is used where it pays: with two usable cores, for a game of at least
`HELPER_FROM` packets, on a POSIX system from an ordinary interpreter. Elsewhere the replay
checks the signatures itself, as before. ``HEXPOST_VERIFY_HELPER=0`` turns the helper off.
"""

from __future__ import annotations

import os
import sys
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING

from engine.core import packets
from saves.signature_child import FRAME, ITEM, POSITION

if TYPE_CHECKING:
    # Imported where a helper starts: reading a game starts none.
    from subprocess import Popen

HELPER_FROM = 192
"""Packets below which the replay checks signatures itself: for fewer, the helper's start-up
is not hidden behind the replay (the golden campaign's first 128 packets verify in about the
same time either way, its first 192 about 15% faster with the helper)."""

Item = tuple[int, bytes, bytes, bytes]
"""One packet to check: its position, the raw public key, the signature, the signed bytes."""

CHILD = Path(__file__).with_name("signature_child.py")

PIPE_SIZE = 1 << 20
"""The pipe to the helper is widened to this where the system allows (Linux), so that the
replay does not wait on a full pipe while the helper starts: a page of 256 packets is about
100 KB, and a pipe holds 64 KB by default."""


def wanted(packets: int) -> bool:
    """Whether a replay of ``packets`` packets should check signatures in a helper process."""
    if os.environ.get("HEXPOST_VERIFY_HELPER", "") == "0" or packets < HELPER_FROM:
        return False
    if os.name != "posix" or not sys.executable or getattr(sys, "frozen", False):
        return False  # no select() on pipes, or no interpreter to start
    return _cores() >= 2


def _cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


@contextmanager
def helper_for(packets: int) -> Iterator[SignatureHelper | None]:
    """A helper for a replay of ``packets`` packets while the block runs (None where one is
    not `wanted`, or where one cannot be started), ended with the block whatever happens in
    it."""
    helper = None
    if wanted(packets):
        try:
            helper = SignatureHelper()
        except OSError:  # no process to spare, or no interpreter where sys.executable says
            helper = None
    try:
        yield helper
    finally:
        if helper is not None:
            helper.close()


class SignatureHelper:
    """A helper process that checks the signatures of the pages it is sent, in order, and
    answers each page with the positions whose signature failed.

    Should the helper die (killed, out of memory, unable to start), the pages it has not
    answered are checked here instead, and so is every later page: a replay never fails, nor
    passes, for want of its helper. Until answered, a page is kept for that: at most the
    pages the pipe holds (`PIPE_SIZE`, or 64 KB where it cannot be widened) and the one the
    helper is checking, since sending waits while the pipe is full, and the answers are read
    as each page is sent. So memory stays bounded in a long game where the helper is the
    slower side (packets that the engine applies in less time than a signature check).
    """

    def __init__(self) -> None:
        import subprocess

        self._child: Popen[bytes] = subprocess.Popen(
            [sys.executable, "-I", "-S", str(CHILD)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            bufsize=0,
        )
        assert self._child.stdin is not None and self._child.stdout is not None
        self._to = self._child.stdin.fileno()
        self._from = self._child.stdout.fileno()
        _widen(self._to)
        self._unanswered: deque[Sequence[Item]] = deque()
        self._alive = True
        self._origin: bytes | None = _cryptography_origin()
        """The file the helper must import `cryptography` from (this process's), until the
        helper has said it did (None after)."""
        self._bad: list[int] = []
        self._answers = bytearray()
        paths = b"\0".join(os.fsencode(path) for path in sys.path if isinstance(path, str))
        self._write(FRAME.pack(len(paths)) + paths)

    def send(self, items: Sequence[Item]) -> None:
        """Queue a page of packets to check (the answers read so far are taken first, so
        neither side ever waits on a full pipe). An item whose key or signature is not of
        Ed25519's size is checked here: the pipe carries only those sizes."""
        self._drain(block=False)
        fits: list[Item] = []
        odd: list[Item] = []
        for item in items:
            (fits if len(item[1]) == 32 and len(item[2]) == 64 else odd).append(item)
        self._bad.extend(_failed(odd))
        page = b"".join(
            ITEM.pack(seq, key, signature, len(message)) + message
            for seq, key, signature, message in fits
        )
        self._write(FRAME.pack(len(page)) + page)
        if self._alive:
            self._unanswered.append(fits)
        else:
            self._bad.extend(_failed(fits))

    def first_bad(self, upto: int | None = None) -> int | None:
        """The first position, up to ``upto`` (None: every page sent), whose signature failed;
        waits for the pages sent so far."""
        self._drain(block=True)
        bad = [seq for seq in self._bad if upto is None or seq <= upto]
        return min(bad) if bad else None

    def close(self) -> None:
        """End the helper. By now the replay has every answer it will ask for (or has failed
        and needs none), so the helper is killed rather than waited for: its tear-down would
        cost the replay a millisecond or more of polling, and a kill cannot hang."""
        for stream in (self._child.stdin, self._child.stdout):
            if stream is not None:
                stream.close()
        self._child.kill()
        self._child.wait()

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while self._alive and view:
            try:
                view = view[os.write(self._to, view) :]
            except OSError:  # the helper is gone (a broken pipe)
                self._helper_lost()

    def _drain(self, *, block: bool) -> None:
        """Read the answers waiting (or, with ``block``, every answer owed)."""
        import select

        while self._unanswered and self._alive:
            if not self._take_answer():
                if not block and not select.select([self._from], [], [], 0)[0]:
                    return
                try:
                    chunk = os.read(self._from, 1 << 16)
                except OSError:
                    chunk = b""
                if not chunk:
                    self._helper_lost()
                    return
                self._answers += chunk

    def _take_answer(self) -> bool:
        """Take one whole answer from what has been read, if there is one. The first is the
        helper's `cryptography` file: another than this process's (so perhaps another
        verdict) and the helper is dropped, its pages checked here."""
        if len(self._answers) < FRAME.size:
            return False
        (size,) = FRAME.unpack_from(self._answers)
        if len(self._answers) < FRAME.size + size:
            return False
        answer = bytes(self._answers[FRAME.size : FRAME.size + size])
        del self._answers[: FRAME.size + size]
        if self._origin is not None:
            if answer != self._origin:
                self._helper_lost()
            self._origin = None
            return True
        self._bad.extend(position for (position,) in POSITION.iter_unpack(answer))
        self._unanswered.popleft()
        return True

    def _helper_lost(self) -> None:
        """The helper is gone: check here what it had not answered."""
        self._alive = False
        while self._unanswered:
            self._bad.extend(_failed(self._unanswered.popleft()))


def _widen(fd: int) -> None:
    """Widen the pipe to `PIPE_SIZE` where the system can (a narrower pipe only makes the
    replay wait sooner while the helper starts)."""
    import fcntl

    setting = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setting is not None:
        with suppress(OSError):
            fcntl.fcntl(fd, setting, PIPE_SIZE)


def _cryptography_origin() -> bytes:
    """The file `cryptography` is (or would be) imported from in this process."""
    module = sys.modules.get("cryptography")
    if module is not None:
        origin = module.__file__
    else:
        import importlib.util

        spec = importlib.util.find_spec("cryptography")
        origin = None if spec is None else spec.origin
    return os.fsencode(origin or "")


def _failed(items: Sequence[Item]) -> list[int]:
    """The positions among ``items`` whose signature does not verify."""
    return [seq for seq, key, sig, msg in items if not packets.signed_by(key, sig, msg)]
