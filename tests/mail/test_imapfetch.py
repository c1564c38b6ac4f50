"""`mail.imapfetch`: a FETCH answer of the usual shape is read without imapclient's parser, and
gives what that parser gives; every other answer goes to that parser, whole."""

from __future__ import annotations

import imaplib
from typing import Any

import pytest
from imapclient.exceptions import IMAPClientError
from imapclient.response_parser import parse_fetch_response

from mail.imapfetch import quick_read, whole_messages

MAIL = [b"From: a\r\n\r\none\r\n", b"From: b\r\n\r\n" + b"x" * 5000, b"X: )\r\n\r\n{3}\r\n"]


def usual(uids: list[int], *, uid_after: bool = False) -> list[Any]:
    """imaplib's answer to ``UID FETCH`` of ``uids`` (``MAIL`` in turn), as a server sends it."""
    data: list[Any] = []
    for seq, (uid, raw) in enumerate(zip(uids, MAIL, strict=False), start=1):
        if uid_after:
            data += [(b"%d (BODY[] {%d}" % (seq, len(raw)), raw), b" UID %d)" % uid]
        else:
            data += [(b"%d (UID %d BODY[] {%d}" % (seq, uid, len(raw)), raw), b")"]
    return data


def by_imapclient(data: list[Any]) -> dict[int, bytes]:
    parsed = parse_fetch_response(data).items()
    return {uid: items[b"BODY[]"] for uid, items in parsed if b"BODY[]" in items}


@pytest.mark.parametrize("uid_after", [False, True], ids=["uid-first", "uid-after"])
def test_the_usual_answer_reads_as_imapclient_reads_it(uid_after: bool) -> None:
    data = usual([7, 9, 12], uid_after=uid_after)
    assert quick_read(data) == by_imapclient(data) == dict(zip([7, 9, 12], MAIL, strict=True))


@pytest.mark.parametrize(
    "data",
    [
        [None],  # no message left (all expunged)
        [*usual([7]), b"2 (FLAGS (\\Seen))"],  # another client's flag change, unasked
        [(b"1 (UID 7 BODY[] {99}", MAIL[0]), b")"],  # a size that is not the message's
        [(b"1 (UID 7 FLAGS () BODY[] {%d}" % len(MAIL[0]), MAIL[0]), b")"],  # another order
        [(b"1 (UID 7 BODY[] {%d}" % len(MAIL[0]), MAIL[0])],  # cut short
        [(b"1 (UID 7 BODY[] {%d}" % len(MAIL[0]), MAIL[0]), b" UID 8)"],
    ],
    ids=["nothing", "unasked-flags", "wrong-size", "other-order", "cut-short", "two-uids"],
)
def test_any_other_answer_is_not_read_quickly(data: list[Any]) -> None:
    assert quick_read(data) is None


class Connection(imaplib.IMAP4):
    """An imaplib connection that answers ``UID FETCH`` with a canned answer (never opened)."""

    answer: tuple[str, list[Any]]
    sent: list[tuple[str, ...]]

    def uid(self, command: str, *args: str) -> tuple[str, list[Any]]:
        self.sent.append((command, *args))
        return self.answer


class Client:
    """What `whole_messages` uses of an `imapclient.IMAPClient`."""

    use_uid = True
    normalise_times = True

    def __init__(self, typ: str, data: list[Any]) -> None:
        self._imap = object.__new__(Connection)
        self._imap.answer = (typ, data)
        self._imap.sent = []

    def fetch(self, uids: list[int], items: list[bytes]) -> Any:
        raise AssertionError("imapclient's fetch is not used on an imaplib connection")


def test_whole_messages_sends_one_peek_and_falls_back_to_imapclient_on_anything_else() -> None:
    usual_answer = usual([3, 4])
    client = Client("OK", usual_answer)
    assert whole_messages(client, [3, 4]) == {3: MAIL[0], 4: MAIL[1]}
    assert client._imap.sent == [("FETCH", "3,4", "(BODY.PEEK[])")]
    odd = [*usual([3]), b"5 (FLAGS (\\Seen))"]
    assert whole_messages(Client("OK", odd), [3]) == by_imapclient(odd) == {3: MAIL[0]}
    assert whole_messages(Client("OK", [None]), [3]) == {}
    with pytest.raises(IMAPClientError, match="fetch failed: no such message"):
        whole_messages(Client("NO", [b"no such message"]), [3])
    assert whole_messages(Client("OK", usual_answer), []) == {}


def test_a_client_without_an_imaplib_connection_is_asked_through_its_fetch() -> None:
    class Plain:
        def fetch(self, uids: list[int], items: list[bytes]) -> dict[int, dict[bytes, Any]]:
            assert items == [b"BODY.PEEK[]"]
            return {uid: {b"BODY[]": MAIL[0], b"SEQ": 1} for uid in uids if uid != 2}

    assert whole_messages(Plain(), [1, 2]) == {1: MAIL[0]}
