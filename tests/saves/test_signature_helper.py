"""The helper process that checks a replay's signatures (`saves.signature_helper`): when it is
used, what it answers, and that it never outlives the replay. The verdicts a replay gives with
it are tested against every attack in `tests/saves/test_replay_hostile.py`."""

from __future__ import annotations

import multiprocessing
import os
import threading

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine.core.packets import SIGNATURE_DOMAIN, raw_public_key
from saves import signature_helper
from saves.signature_helper import HELPER_FROM, SignatureHelper

pytestmark = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="the helper is forked"
)


def _items(count: int, bad: set[int]) -> list[signature_helper.Item]:
    key = Ed25519PrivateKey.from_private_bytes(b"\x11" * 32)
    public = raw_public_key(key)
    items = []
    for seq in range(count):
        message = SIGNATURE_DOMAIN + seq.to_bytes(4, "big")
        signature = key.sign(message)
        if seq in bad:
            signature = bytes([signature[0] ^ 1]) + signature[1:]
        items.append((seq, public, signature, message))
    return items


def test_it_answers_the_first_bad_signature_up_to_a_position() -> None:
    helper = SignatureHelper()
    try:
        items = _items(40, {17, 31})
        helper.send(items[:20])
        helper.send(items[20:])
        assert helper.first_bad(10) is None
        assert helper.first_bad(17) == 17
        assert helper.first_bad() == 17
    finally:
        helper.close()
    assert not helper._process.is_alive()


def test_a_page_of_good_signatures_has_no_bad_one() -> None:
    helper = SignatureHelper()
    try:
        helper.send(_items(HELPER_FROM, set()))
        assert helper.first_bad() is None
    finally:
        helper.close()
    assert helper._process.exitcode == 0


def test_it_is_used_only_where_a_fork_is_safe_and_pays(monkeypatch: pytest.MonkeyPatch) -> None:
    threads = [1]  # what `threading.active_count` says (a test run may leave threads behind)
    monkeypatch.setattr(threading, "active_count", lambda: threads[0])
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    assert signature_helper.wanted(HELPER_FROM)
    assert not signature_helper.wanted(HELPER_FROM - 1)  # a short game: not worth a fork
    monkeypatch.setenv("HEXPOST_VERIFY_HELPER", "0")
    assert not signature_helper.wanted(10 * HELPER_FROM)
    monkeypatch.delenv("HEXPOST_VERIFY_HELPER")
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    assert not signature_helper.wanted(10 * HELPER_FROM)  # one core: nothing to gain
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    threads[0] = 2  # another thread running (the app's store thread): a fork copies only one
    assert not signature_helper.wanted(10 * HELPER_FROM)
    threads[0] = 1
    assert signature_helper.wanted(10 * HELPER_FROM)


@pytest.mark.parametrize("when", ["before-sending", "after-sending"])
def test_a_helper_that_dies_leaves_its_pages_to_the_replay(when: str) -> None:
    """Killed (or out of memory), the helper answers nothing more: what it had not answered,
    and every page after, is checked in the replay's process, with the same verdict."""
    helper = SignatureHelper()
    try:
        items = _items(60, {5, 44})
        if when == "before-sending":
            helper._process.kill()
            helper._process.join()
        helper.send(items[:30])
        if when == "after-sending":
            helper._process.kill()
            helper._process.join()
        helper.send(items[30:])
        assert helper.first_bad(40) == 5
        assert helper.first_bad() == 5
        assert sorted(helper._bad) == [5, 44]
    finally:
        helper.close()
