"""The helper process that checks a replay's signatures (`saves.signature_helper`, running
`saves.signature_child`): when it is used, what it answers, that its verdicts are the
replay's own, and that it never outlives the replay. The verdicts a replay gives with it are
tested against every attack in `tests/saves/test_replay_hostile.py`."""

from __future__ import annotations

import os
import sys

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from engine.core.packets import SIGNATURE_DOMAIN, raw_public_key, signed_by
from saves import signature_child, signature_helper
from saves.signature_helper import HELPER_FROM, SignatureHelper

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the helper talks over POSIX pipes")

KEY = Ed25519PrivateKey.from_private_bytes(b"\x11" * 32)
PUBLIC = raw_public_key(KEY)
ORDER = 2**252 + 27742317777372353535851937790883648493
"""The order of Ed25519's base point: a signature's S at or above it is not canonical."""


def _items(count: int, bad: set[int]) -> list[signature_helper.Item]:
    items = []
    for seq in range(count):
        message = SIGNATURE_DOMAIN + seq.to_bytes(4, "big")
        signature = KEY.sign(message)
        if seq in bad:
            signature = bytes([signature[0] ^ 1]) + signature[1:]
        items.append((seq, PUBLIC, signature, message))
    return items


def _edge_cases() -> list[tuple[str, bytes, bytes, bytes]]:
    """Keys and signatures a modified client could send: each with the key, the signature and
    the message."""
    message = SIGNATURE_DOMAIN + b"attack"
    good = KEY.sign(message)
    s = int.from_bytes(good[32:], "little")
    identity = b"\x01" + b"\x00" * 31  # the neutral point: a key every signature could fit
    return [
        ("good", PUBLIC, good, message),
        ("other message", PUBLIC, good, message + b"!"),
        ("bit flipped in R", PUBLIC, bytes([good[0] ^ 1]) + good[1:], message),
        ("S plus the group order", PUBLIC, good[:32] + (s + ORDER).to_bytes(32, "little"), message),
        ("no point at all", b"\xff" * 32, good, message),
        ("the neutral point", identity, identity + b"\x00" * 32, message),
        ("all zeros", b"\x00" * 32, b"\x00" * 64, message),
    ]


def test_the_helper_decides_as_the_engine_does() -> None:
    """Its verdicts, on every edge case, are `engine.core.packets.signed_by`'s: in this process
    and through a helper process."""
    cases = _edge_cases()
    expected = {name: signed_by(key, sig, msg) for name, key, sig, msg in cases}
    assert expected["good"] and not expected["other message"]
    keys: dict[bytes, Ed25519PublicKey] = {}
    for name, key, sig, msg in cases:
        assert signature_child.signed(key, sig, msg, keys) == expected[name], name
    helper = SignatureHelper()
    try:
        helper.send([(seq, key, sig, msg) for seq, (_, key, sig, msg) in enumerate(cases)])
        helper.first_bad()
        assert helper._alive
        assert sorted(helper._bad) == [
            seq for seq, (name, *_) in enumerate(cases) if not expected[name]
        ]
    finally:
        helper.close()


def test_it_answers_the_first_bad_signature_up_to_a_position() -> None:
    helper = SignatureHelper()
    try:
        items = _items(40, {17, 31})
        helper.send(items[:20])
        helper.send(items[20:])
        assert helper.first_bad(10) is None
        assert helper.first_bad(17) == 17
        assert helper.first_bad() == 17
        assert helper._alive  # answered by the helper, not by a fallback here
    finally:
        helper.close()
    assert helper._child.returncode is not None  # ended and reaped


def test_a_page_of_good_signatures_has_no_bad_one() -> None:
    helper = SignatureHelper()
    try:
        helper.send(_items(HELPER_FROM, set()))
        assert helper.first_bad() is None
        assert helper._alive
    finally:
        helper.close()
    assert helper._child.returncode is not None


def test_an_item_of_the_wrong_size_is_checked_here() -> None:
    """The pipe carries 32-byte keys and 64-byte signatures only; anything else is decided in
    the replay's process (and fails), never cut or padded to fit."""
    items = _items(4, set())
    seq, key, sig, msg = items[2]
    items[2] = (seq, key, sig + b"\x00", msg)
    items[3] = (3, items[3][1] + b"\x00", items[3][2], items[3][3])
    helper = SignatureHelper()
    try:
        helper.send(items)
        assert helper.first_bad() == 2
        assert sorted(helper._bad) == [2, 3]
    finally:
        helper.close()


def test_it_is_used_only_where_it_pays(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    assert signature_helper.wanted(HELPER_FROM)
    assert not signature_helper.wanted(HELPER_FROM - 1)  # a short game: not worth a start
    monkeypatch.setenv("HEXPOST_VERIFY_HELPER", "0")
    assert not signature_helper.wanted(10 * HELPER_FROM)
    monkeypatch.delenv("HEXPOST_VERIFY_HELPER")
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    assert not signature_helper.wanted(10 * HELPER_FROM)  # one core: nothing to gain
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(sys, "frozen", True, raising=False)  # a bundled app: no interpreter
    assert not signature_helper.wanted(10 * HELPER_FROM)
    monkeypatch.delattr(sys, "frozen")
    monkeypatch.setattr(sys, "executable", "")
    assert not signature_helper.wanted(10 * HELPER_FROM)
    monkeypatch.undo()
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    assert signature_helper.wanted(10 * HELPER_FROM)


@pytest.mark.parametrize("when", ["before-sending", "after-sending"])
def test_a_helper_that_dies_leaves_its_pages_to_the_replay(when: str) -> None:
    """Killed (or out of memory), the helper answers nothing more: what it had not answered,
    and every page after, is checked in the replay's process, with the same verdict."""
    helper = SignatureHelper()
    try:
        items = _items(60, {5, 44})
        if when == "before-sending":
            helper._child.kill()
            helper._child.wait()
        helper.send(items[:30])
        if when == "after-sending":
            helper._child.kill()
            helper._child.wait()
        helper.send(items[30:])
        assert helper.first_bad(40) == 5
        assert helper.first_bad() == 5
        assert sorted(helper._bad) == [5, 44]
        assert not helper._alive
    finally:
        helper.close()


def test_a_helper_that_cannot_start_leaves_every_page_to_the_replay(
    monkeypatch: pytest.MonkeyPatch, tmp_path: os.PathLike[str]
) -> None:
    """A helper told to look for cryptography where it is not fails at its start; the replay
    then checks everything itself, with the same verdicts."""
    monkeypatch.setattr(sys, "path", [os.fspath(tmp_path)])
    helper = SignatureHelper()
    monkeypatch.undo()
    try:
        helper.send(_items(30, {7}))
        assert helper.first_bad() == 7
        assert not helper._alive
    finally:
        helper.close()


def test_a_helper_that_cannot_be_started_is_done_without(monkeypatch: pytest.MonkeyPatch) -> None:
    """No interpreter where `sys.executable` says (or no process to spare): the replay checks
    its signatures itself rather than fail."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(sys, "executable", "/nonexistent/python3")
    assert signature_helper.wanted(10 * HELPER_FROM)
    with signature_helper.helper_for(10 * HELPER_FROM) as helper:
        assert helper is None


def test_a_helper_with_another_cryptography_is_not_trusted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The helper says which `cryptography` it imported; another file than this process's
    (perhaps another verdict on an edge-case signature) and its answers are not used: every
    page is checked here."""
    monkeypatch.setattr(signature_helper, "_cryptography_origin", lambda: b"/elsewhere.py")
    helper = SignatureHelper()
    try:
        helper.send(_items(30, {9}))
        assert helper.first_bad() == 9
        assert not helper._alive
    finally:
        helper.close()


def test_the_helper_imports_this_process_s_cryptography() -> None:
    import cryptography

    assert signature_helper._cryptography_origin() == os.fsencode(cryptography.__file__ or "")
    helper = SignatureHelper()
    try:
        helper.send(_items(3, set()))
        assert helper.first_bad() is None
        assert helper._alive and helper._origin is None  # greeted, and trusted
    finally:
        helper.close()
