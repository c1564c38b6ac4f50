"""The signature helper's own process: run as a script, it checks pages of Ed25519 signatures.

`saves.signature_helper` starts this file with the replay's interpreter (``python -I -S``)
rather than forking the replay: a forked copy shares every page of the replay's memory, and
each page the replay then writes is copied on the spot (about 4,000 page faults over the
golden campaign, 15 to 20 us a packet). A fresh interpreter shares nothing, and starts in
about 25 ms (the interpreter and `cryptography`; msgspec and the engine are never imported
here), while the replay goes on applying packets.

The pipe protocol, little-endian, every message a frame (a u32 length, then that many bytes):

- in, first: the replay's ``sys.path``, NUL-separated, so this process imports the very same
  `cryptography` as the replay and gives the same verdicts;
- in, then: pages of items, each a u64 position, the 32-byte raw public key, the 64-byte
  signature, a u32 message length and the signed message;
- out, first: the file `cryptography` was imported from here, which the replay compares
  with its own before it trusts any answer;
- out, then, one per page: the positions whose signature failed, each a u64.

The input ends when the replay closes its end of the pipe; then this process exits.
"""

from __future__ import annotations

import os
import signal
import struct
import sys
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

FRAME = struct.Struct("<I")
"""Every message's head: the length of what follows."""

ITEM = struct.Struct("<q32s64sI")
"""One item's fixed part: position, public key, signature, length of the signed message."""

POSITION = struct.Struct("<q")
"""A failed position in an answer."""


def signed(
    public: bytes, signature: bytes, message: bytes, keys: dict[bytes, Ed25519PublicKey]
) -> bool:
    """Whether ``signature`` over ``message`` verifies against the raw key ``public``: the
    verdict of `engine.core.packets.signed_by` (tested to agree on good, bad and malformed
    keys and signatures), with the parsed keys kept in ``keys``."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        key = keys.get(public)
        if key is None:
            key = keys[public] = Ed25519PublicKey.from_public_bytes(public)
        key.verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


def failed(page: bytes, keys: dict[bytes, Ed25519PublicKey]) -> list[int]:
    """The positions in one page of items whose signature does not verify."""
    bad: list[int] = []
    at = 0
    while at < len(page):
        position, public, signature, size = ITEM.unpack_from(page, at)
        at += ITEM.size
        if not signed(public, signature, page[at : at + size], keys):
            bad.append(position)
        at += size
    return bad


def read_frame(stream: BinaryIO) -> bytes | None:
    """The next frame's bytes, or None where the input has ended."""
    head = stream.read(FRAME.size)
    if len(head) < FRAME.size:
        return None
    (size,) = FRAME.unpack(head)
    body = stream.read(size)
    return body if len(body) == size else None


def serve(stream: BinaryIO, answers: BinaryIO) -> None:
    """Answer every page until the input ends. Ctrl-C is the replay's to handle (it then
    closes the pipe), so this process ignores it rather than print a traceback of its own."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    paths = read_frame(stream)
    if paths is None:
        return
    sys.path[:] = [os.fsdecode(path) for path in paths.split(b"\0")]
    import cryptography

    origin = os.fsencode(cryptography.__file__ or "")
    answers.write(FRAME.pack(len(origin)) + origin)
    answers.flush()
    keys: dict[bytes, Ed25519PublicKey] = {}
    while (page := read_frame(stream)) is not None:
        bad = failed(page, keys)
        answer = b"".join(POSITION.pack(position) for position in bad)
        answers.write(FRAME.pack(len(answer)) + answer)
        answers.flush()


if __name__ == "__main__":
    serve(sys.stdin.buffer, sys.stdout.buffer)
    # Every answer is flushed: skip the interpreter's tear-down, which the replay would wait
    # for (about 7 ms, most of it unloading cryptography).
    os._exit(0)
