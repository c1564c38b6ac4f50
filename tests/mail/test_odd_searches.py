"""Searches that cost or say more than they should, against the real test Dovecot: servers
whose SEARCH does not do what RFC 3501 says (answers bent at the client: one that refuses a
search for a header, as Yahoo has answered such searches NO, and one that answers an empty
header search with every message), and the first scan of an inbox of years of mail. Either
way the packet mail is read, and the player's other mail is neither fetched into the store
nor a reason for the sync to fail.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from imapclient import IMAPClient
from imapclient.exceptions import IMAPClientError

from engine.core.packets import VerifiedPacket
from mail import mailtransport
from mail.transport import FetchResult
from tests.mail.servers import MailStack
from tests.mail.test_imap import (  # noqa: F401  (fixtures)
    admin,
    box,
    deliver,
    foreign_mail,
    open_box,
    packet,
    packet_mail,
    password,
    tiny_packet_mail,
)
from tests.mail.test_imap_fetch import commands, transport
from tests.mail.test_junk import without_header

_search = IMAPClient.search


def refusing(self: IMAPClient, criteria: Any = "ALL", charset: str | None = None) -> Any:
    if "HEADER" in criteria or "BODY" in criteria:
        raise IMAPClientError("UID SEARCH Server error - Please try again later")
    return _search(self, criteria, charset)


def over_matching(self: IMAPClient, criteria: Any = "ALL", charset: str | None = None) -> Any:
    if "HEADER" in criteria:  # (the header's criterion read as matching every message)
        at = criteria.index("HEADER")
        criteria = [*criteria[:at], *criteria[at + 3 :]]
    return _search(self, criteria, charset)


@pytest.mark.parametrize("search", [refusing, over_matching], ids=["refused", "every-message"])
def test_packet_mail_is_read_and_other_mail_left_out(
    mail_stack: MailStack,
    admin: IMAPClient,  # noqa: F811
    box: str,  # noqa: F811
    packet: VerifiedPacket,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    search: Any,
) -> None:
    deliver(admin, box, foreign_mail("one"), packet_mail(mail_stack, packet, "ours"))
    deliver(admin, box, foreign_mail("two", attachment=b"%PDF-1.4"))
    monkeypatch.setattr(IMAPClient, "search", search)
    mail = transport(mail_stack, box)

    async def run() -> FetchResult:
        try:
            return await mail.fetch("", set())
        finally:
            await mail.close()

    result = asyncio.run(run())
    assert [p.ref.rpartition(":")[2] for p in result.packets] == ["2"]
    assert packet.data in (result.packets[0].data, *result.packets[0].alternatives)
    assert result.cursor.partition("\n")[0].endswith(":3")


def test_a_first_scan_judges_only_the_newest_mail_by_its_structure(
    mail_stack: MailStack,
    admin: IMAPClient,  # noqa: F811
    box: str,  # noqa: F811
    packet: VerifiedPacket,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An inbox of years of mail: at its first scan, only the newest `FIRST_SCAN_JUDGED`
    messages the header search leaves out are judged by their structure (older packet mail
    still counts when its header marks it); after that, every new message is."""
    monkeypatch.setattr(mailtransport, "FIRST_SCAN_JUDGED", 2)
    bare = without_header(packet_mail(mail_stack, packet, "bare"))
    marked = packet_mail(mail_stack, packet, "marked")
    deliver(admin, box, bare, marked, foreign_mail("old"), bare)  # UIDs 1-4
    mail = transport(mail_stack, box)

    async def run() -> list[list[str]]:
        try:
            first = await mail.fetch("", set())
            deliver(admin, box, foreign_mail("a"), foreign_mail("b"), bare)  # UIDs 5-7
            second = await mail.fetch(first.cursor, set())
            return [[p.ref.rpartition(":")[2] for p in r.packets] for r in (first, second)]
        finally:
            await mail.close()

    assert asyncio.run(run()) == [["2", "4"], ["7"]]


def test_the_header_search_is_one_command_however_many_new_uids(
    mail_stack: MailStack,
    admin: IMAPClient,  # noqa: F811
    box: str,  # noqa: F811
) -> None:
    """2,500 new messages (the first scan of a big inbox), every other one asked about: one
    header search over their range, where a list of UIDs per 1,000 took two."""
    admin.multiappend(box, [tiny_packet_mail(n) for n in range(2500)])
    with open_box(mail_stack, box) as folder:
        uids, _ = folder.new_uids("")
        sent = commands(folder)
        chosen = folder.packet_uids(uids[::2])  # (with gaps: the others read before)
        searches = list(sent)
    assert chosen == uids[::2]
    assert searches == [b"UID SEARCH"]
