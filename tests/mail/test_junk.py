"""Packet mail a spam filter moved to the spam folder (`mail.imapjunk`), against the real
test Dovecot: found there and read, nothing else there touched, looked at only now and then,
a hostile flood read a bounded number at a time, and the inbox not missed meanwhile.

Bob's tests name a spam folder of their own (``junk_folder``); the folder the server flags
``\\Junk`` is carol's, whom no other test uses.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from imapclient import IMAPClient

from engine.core.packets import VerifiedPacket
from mail import imapjunk
from mail.accounts import ImapConfig, MailConfig, SmtpConfig
from mail.imapcheck import check_login
from mail.imapjunk import JUNK_EVERY, JUNK_LIMIT, junk_words, spam_folder_in
from mail.loopback import LoopbackNetwork, LoopbackTransport
from mail.mailtransport import MailTransport, _split_cursor
from mail.sync import SyncReport, sync
from mail.transport import FetchResult
from mail.watch import watch
from tests.mail.mailgame import close, mail_player, new_box, set_passwords
from tests.mail.servers import MailStack
from tests.mail.test_imap import (  # noqa: F401  (fixtures)
    PASSWORD_ENV,
    admin,
    box,
    config,
    deliver,
    flags,
    foreign_mail,
    open_box,
    packet,
    packet_mail,
    password,
    tiny_packet_mail,
)
from tests.mail.test_imap_fetch import commands
from tests.saves.conftest import Player, create_game, now

START = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)


class Clock:
    """The transport's clock, moved on by the test."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def transport(imap: ImapConfig, clock: Clock, user: str = "bob") -> MailTransport:
    smtp = SmtpConfig(host=imap.host, port=25, username=user, password_env=PASSWORD_ENV)
    return MailTransport(MailConfig(address=f"{user}@localhost", imap=imap, smtp=smtp), clock=clock)


def fetch(mail: MailTransport, cursor: str) -> FetchResult:
    async def run() -> FetchResult:
        try:
            return await mail.fetch(cursor, set())
        finally:
            await mail.close()

    return asyncio.run(run())


@pytest.fixture
def junk(admin: IMAPClient, box: str) -> str:  # noqa: F811
    """A spam folder of bob's for this test alone."""
    name = f"{box}-junk"
    admin.create_folder(name)
    return name


def test_packet_mail_in_the_spam_folder_is_read_and_the_rest_there_left_alone(
    mail_stack: MailStack,
    admin: IMAPClient,  # noqa: F811
    box: str,  # noqa: F811
    junk: str,
    packet: VerifiedPacket,  # noqa: F811
) -> None:
    deliver(admin, junk, foreign_mail("a"), packet_mail(mail_stack, packet, "filtered"))
    deliver(admin, junk, foreign_mail("b", attachment=b"%PDF-1.4"))
    before = flags(admin, junk)
    mail = transport(config(mail_stack, box, junk_folder=junk), Clock())
    result = fetch(mail, "")
    assert len(result.packets) == 1
    (found,) = result.packets
    assert found.ref.startswith("junk:") and found.ref.endswith(":2")
    assert packet.data in (found.data, *found.alternatives)
    assert mail.from_junk == (found.ref,) and mail.junk_folder == junk and not mail.junk_problem
    assert flags(admin, junk) == before  # nothing marked read, moved or deleted
    main, state = _split_cursor(result.cursor)
    assert state is not None and state.folder == junk and state.cursor.endswith(":3")
    assert main == result.cursor.splitlines()[0]


def test_the_spam_folder_is_looked_in_again_only_after_a_quarter_hour(
    mail_stack: MailStack,
    admin: IMAPClient,  # noqa: F811
    box: str,  # noqa: F811
    junk: str,
    packet: VerifiedPacket,  # noqa: F811
) -> None:
    clock = Clock()
    imap = config(mail_stack, box, junk_folder=junk)
    first = fetch(transport(imap, clock), "")
    assert first.packets == []
    deliver(admin, junk, packet_mail(mail_stack, packet, "late"))
    clock.now = START + timedelta(seconds=JUNK_EVERY - 1)
    soon = fetch(transport(imap, clock), first.cursor)
    assert soon.packets == [] and soon.cursor == first.cursor
    clock.now = START + timedelta(seconds=JUNK_EVERY)
    later = fetch(transport(imap, clock), first.cursor)
    assert [p.ref.rpartition(":")[2] for p in later.packets] == ["1"]
    again = fetch(transport(imap, clock), later.cursor)
    assert again.packets == []  # (read: the cursor moved past it)
    clock.now = START - timedelta(days=1)  # a clock set back: the look is due, not never
    assert fetch(transport(imap, clock), later.cursor).packets == []


@contextlib.contextmanager
def carols_junk(stack: MailStack) -> Iterator[IMAPClient]:
    """Carol logged in, her spam folder (``Junk``, which the server flags) made if missing."""
    with IMAPClient(stack.host, stack.imaps_port, ssl_context=stack.ssl_context()) as carol:
        carol.login("carol", stack.password("carol"))
        if not carol.folder_exists("Junk"):
            carol.create_folder("Junk")
        yield carol


def test_the_folder_the_server_flags_as_spam_is_found(
    mail_stack: MailStack,
    packet: VerifiedPacket,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(PASSWORD_ENV, mail_stack.password("carol"))
    with carols_junk(mail_stack) as carol:
        carol.select_folder("Junk")
        already = len(carol.search("ALL"))
        carol.append("Junk", packet_mail(mail_stack, packet, "for carol"))
    imap = config(mail_stack, "INBOX", username="carol")
    mail = transport(imap, Clock(), "carol")
    result = fetch(mail, "")
    assert mail.junk_folder == "Junk"
    assert len(result.packets) == already + 1
    assert packet.data in (result.packets[-1].data, *result.packets[-1].alternatives)


def test_ignore_junk_never_looks(
    mail_stack: MailStack,
    admin: IMAPClient,  # noqa: F811
    box: str,  # noqa: F811
    junk: str,
    packet: VerifiedPacket,  # noqa: F811
) -> None:
    deliver(admin, junk, packet_mail(mail_stack, packet))
    mail = transport(config(mail_stack, box, junk_folder=junk, ignore_junk=True), Clock())
    result = fetch(mail, "")
    assert result.packets == [] and "\n" not in result.cursor and mail.junk_folder is None


def test_a_flood_in_the_spam_folder_is_read_a_bounded_number_per_look(
    mail_stack: MailStack,
    admin: IMAPClient,  # noqa: F811
    box: str,  # noqa: F811
    junk: str,
) -> None:
    admin.multiappend(junk, [tiny_packet_mail(n) for n in range(JUNK_LIMIT + 5)])
    clock = Clock()
    imap = config(mail_stack, box, junk_folder=junk)
    first = fetch(transport(imap, clock), "")
    assert len(first.packets) == JUNK_LIMIT
    clock.now += timedelta(seconds=JUNK_EVERY)
    second = fetch(transport(imap, clock), first.cursor)
    uids = [int(p.ref.rpartition(":")[2]) for p in first.packets + second.packets]
    assert uids == list(range(1, JUNK_LIMIT + 6))


def test_a_spam_folder_that_cannot_be_read_is_reported_and_the_inbox_still_read(
    mail_stack: MailStack,
    admin: IMAPClient,  # noqa: F811
    box: str,  # noqa: F811
    packet: VerifiedPacket,  # noqa: F811
) -> None:
    deliver(admin, box, packet_mail(mail_stack, packet))
    mail = transport(config(mail_stack, box, junk_folder=f"{box}-missing"), Clock())
    result = fetch(mail, "")
    assert len(result.packets) == 1 and not result.packets[0].ref.startswith("junk:")
    assert f"{box}-missing" in mail.junk_problem and "spam folder" in mail.junk_problem


@pytest.mark.parametrize("arrives", [True, False])
def test_mail_that_reaches_the_inbox_during_a_look_elsewhere_is_not_missed(
    mail_stack: MailStack,
    admin: IMAPClient,  # noqa: F811
    box: str,  # noqa: F811
    junk: str,
    arrives: bool,
) -> None:
    """While the spam folder is selected, the server announces nothing of the inbox: `visit`
    must leave the next `idle` and search to find what came meanwhile (and, when nothing
    came, not wake the idle for nothing)."""
    deliver(admin, box, tiny_packet_mail(1))
    with open_box(mail_stack, box) as folder:
        found, cursor = folder.fetch_new("", set())
        assert len(found) == 1

        def elsewhere(client: Any) -> None:
            client.select_folder(junk, readonly=True)
            if arrives:
                deliver(admin, box, tiny_packet_mail(2))

        folder.visit("looking elsewhere in", elsewhere)
        assert folder.idle(0.5 if not arrives else 10) is arrives
        uids, _ = folder.new_uids(cursor)
        assert uids == ([2] if arrives else [])


def test_a_cursor_written_before_the_spam_looks_still_reads() -> None:
    assert _split_cursor("17:42") == ("17:42", None)
    assert _split_cursor("") == ("", None)
    assert _split_cursor("17:42\nnot json") == ("17:42", None)  # (only looks again)
    main, state = _split_cursor('17:42\n[1700000000,"5:9","Spam"]')
    assert main == "17:42" and state is not None and (state.cursor, state.folder) == ("5:9", "Spam")


def watch_round(player: Player) -> SyncReport:
    """One round of ``sync --watch`` (`mail.watch`): a sync nobody asked for."""
    return asyncio.run(sync(player.replica, player.transport, now, force=False))


def test_an_invitation_filtered_as_spam_reaches_the_player_who_is_told(
    mail_stack: MailStack,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """The filter moves Alice's invitation to Bob's spam folder; Bob's sync takes it in all the
    same and says where it was, so that he can tell his filter it is not spam."""
    set_passwords(mail_stack, monkeypatch)
    game_box = new_box()
    junk_name = f"{game_box}-spam"
    alice = mail_player(tmp_path / "alice", mail_stack, "alice", game_box)
    bob = mail_player(tmp_path / "bob", mail_stack, "bob", game_box, imap_junk_folder=junk_name)
    try:
        with IMAPClient(
            mail_stack.host, mail_stack.imaps_port, ssl_context=mail_stack.ssl_context()
        ) as filter_:
            filter_.login("bob", mail_stack.password("bob"))
            filter_.create_folder(junk_name)
            assert bob.sync().received == []  # (the look of the first sync: nothing yet)
            create_game(alice, opponent=bob.address)
            assert alice.sync().sent == [0]
            filter_.select_folder(game_box)
            filter_.move(filter_.search("ALL"), junk_name)
        assert [o.status for o in watch_round(bob).received] == []  # (looked a moment ago)
        report = bob.sync()  # (a sync the player asks for looks at once)
        assert [o.status for o in report.received] == ["invitation"]
        (line,) = [p for p in report.problems if "spam" in p]
        assert f"'{junk_name}'" in line and "1 hexpost email was" in line and "not spam" in line
        assert not [p for p in bob.sync().problems if "spam" in p]  # (told once: read)
    finally:
        close(alice)
        close(bob)


def test_account_test_says_where_the_spam_folder_is(
    mail_stack: MailStack,
    box: str,  # noqa: F811
    junk: str,
) -> None:
    def said(**kw: Any) -> str:
        line = check_login(config(mail_stack, box, **kw), mail_stack.password("bob"), junk_words)
        return line.partition("; ")[2]

    assert (
        said(junk_folder=junk) == f"spam folder {junk!r} looked in every 15 minutes for packet mail"
    )
    assert (
        said(junk_folder=f"{junk}-not")
        == f"the spam folder '{junk}-not' (junk_folder) does not exist"
    )
    assert said(ignore_junk=True) == "the spam folder is not looked in (ignore_junk)"
    carol = config(mail_stack, "INBOX", username="carol")
    with carols_junk(mail_stack):
        line = check_login(carol, mail_stack.password("carol"), junk_words)
    assert line.endswith("; spam folder 'Junk' looked in every 15 minutes for packet mail")


def test_a_look_that_finds_nothing_new_is_one_status_command(
    mail_stack: MailStack,
    admin: IMAPClient,  # noqa: F811
    box: str,  # noqa: F811
    junk: str,
    packet: VerifiedPacket,  # noqa: F811
) -> None:
    """The usual look: a STATUS of the spam folder, the inbox left selected; a look with news
    selects the spam folder, searches it, downloads, and selects the inbox again."""
    clock = Clock()
    mail = transport(config(mail_stack, box, junk_folder=junk), clock)

    async def run() -> list[list[bytes]]:
        try:
            first = await mail.fetch("", set())
            assert mail._folder is not None
            sent = commands(mail._folder)
            clock.now += timedelta(seconds=JUNK_EVERY)
            second = await mail.fetch(first.cursor, set())
            quiet = list(sent)
            deliver(admin, junk, packet_mail(mail_stack, packet))
            sent.clear()
            clock.now += timedelta(seconds=JUNK_EVERY)
            third = await mail.fetch(second.cursor, set())
            assert len(third.packets) == 1
            return [quiet, list(sent)]
        finally:
            await mail.close()

    quiet, news = asyncio.run(run())
    assert quiet == [b"NOOP", b"STATUS"]
    judge = [b"UID SEARCH", b"UID SEARCH"]  # (the new UIDs, then those the header marks)
    assert news == [b"NOOP", b"STATUS", b"EXAMINE", *judge, b"UID FETCH", b"SELECT"]


def without_header(raw: bytes) -> bytes:
    """A packet email whose ``X-Hexpost`` header a relay dropped (its attachment stays)."""
    head, _, body = raw.partition(b"\r\n\r\n")
    kept = [line for line in head.split(b"\r\n") if not line.lower().startswith(b"x-hexpost")]
    assert len(kept) < len(head.split(b"\r\n"))
    return b"\r\n".join(kept) + b"\r\n\r\n" + body


def test_packet_mail_without_its_header_is_told_by_its_structure(
    mail_stack: MailStack,
    admin: IMAPClient,  # noqa: F811
    box: str,  # noqa: F811
    junk: str,
    packet: VerifiedPacket,  # noqa: F811
) -> None:
    """As in the inbox: a server that cannot search a custom header, or a relay that dropped
    it, still leaves the packet attachment for the structure to show."""
    deliver(admin, junk, foreign_mail("x", attachment=b"%PDF-1.4"))
    deliver(admin, junk, without_header(packet_mail(mail_stack, packet, "bare")))
    result = fetch(transport(config(mail_stack, box, junk_folder=junk), Clock()), "")
    assert [p.ref.rpartition(":")[2] for p in result.packets] == ["2"]


def test_a_first_look_judges_the_newest_mail_and_later_looks_go_on_from_there(
    mail_stack: MailStack,
    admin: IMAPClient,  # noqa: F811
    box: str,  # noqa: F811
    junk: str,
    packet: VerifiedPacket,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Weeks of spam are not judged at a first look, only the newest `JUNK_SCAN`; after that
    every new message is, the oldest first, a bounded number per look."""
    monkeypatch.setattr(imapjunk, "JUNK_SCAN", 3)
    old = [foreign_mail(str(n)) for n in range(4)]
    deliver(admin, junk, packet_mail(mail_stack, packet, "old"), *old)  # UIDs 1-5
    deliver(admin, junk, packet_mail(mail_stack, packet, "recent"))  # UID 6
    clock = Clock()
    imap = config(mail_stack, box, junk_folder=junk)
    first = fetch(transport(imap, clock), "")
    assert [p.ref.rpartition(":")[2] for p in first.packets] == ["6"]  # (4-6 judged)
    deliver(admin, junk, *[foreign_mail(f"new {n}") for n in range(3)])  # UIDs 7-9
    deliver(admin, junk, packet_mail(mail_stack, packet, "newest"))  # UID 10
    clock.now += timedelta(seconds=JUNK_EVERY)
    second = fetch(transport(imap, clock), first.cursor)
    assert second.packets == []  # (7-9 judged)
    clock.now += timedelta(seconds=JUNK_EVERY)
    third = fetch(transport(imap, clock), second.cursor)
    assert [p.ref.rpartition(":")[2] for p in third.packets] == ["10"]


def test_the_spam_folder_is_known_by_its_flag_or_a_usual_name() -> None:
    """`mail.imapjunk.spam_folder_in` over LIST answers as imapclient reads them."""
    flagged = [((b"\\HasNoChildren",), b"/", "INBOX"), ((b"\\Junk",), b"/", "Courrier indesirable")]
    assert spam_folder_in(flagged) == "Courrier indesirable"
    outlook = [((), b"/", "INBOX"), ((), b"/", "Junk Email"), ((), b"/", "Spammy stuff")]
    assert spam_folder_in(outlook) == "Junk Email"
    under_inbox = [((), b".", "INBOX"), ((), b".", "INBOX.Spam")]
    assert spam_folder_in(under_inbox) == "INBOX.Spam"
    yahoo = [((), b"/", "Inbox"), ((), b"/", "Bulk Mail"), ((), b"/", "Archive")]
    assert spam_folder_in(yahoo) == "Bulk Mail"
    assert spam_folder_in([((), b"/", "INBOX"), ((), b"/", "Spamalot"), "garbage", (1, 2)]) is None


def test_an_account_without_a_spam_folder_is_not_listed_at_every_sync(
    mail_stack: MailStack,
    box: str,  # noqa: F811
) -> None:
    """Finding the spam folder lists every folder: when the account has none, a sync the
    player runs does not list them again before `JUNK_EVERY` has passed."""
    clock = Clock()
    mail = transport(config(mail_stack, box), clock)

    async def run() -> list[list[bytes]]:
        try:
            first = await mail.fetch("", set())
            assert mail.junk_folder is None and mail._folder is not None
            sent = commands(mail._folder)
            mail.look_in_junk_next()
            second = await mail.fetch(first.cursor, set())
            soon = list(sent)
            sent.clear()
            clock.now += timedelta(seconds=JUNK_EVERY)
            mail.look_in_junk_next()
            await mail.fetch(second.cursor, set())
            return [soon, list(sent)]
        finally:
            await mail.close()

    soon, later = asyncio.run(run())
    assert soon == [b"NOOP"]
    assert later == [b"NOOP", b"LIST"]


def test_the_watch_ends_its_wait_when_a_look_in_the_spam_folder_is_due(tmp_path: Path) -> None:
    """Mail moved to the spam folder announces nothing: `sync --watch` waits no longer than
    the transport's next look (`MailTransport.junk_look_in`)."""

    class Waiting(LoopbackTransport):
        def __init__(self, network: LoopbackNetwork, stop: asyncio.Event) -> None:
            super().__init__(network, "loopback:bob")
            self.stop = stop
            self.timeouts: list[float] = []

        def junk_look_in(self) -> float:
            return 42.0

        async def wait(self, timeout: float) -> bool:
            self.timeouts.append(timeout)
            self.stop.set()
            return False

    player = Player(tmp_path / "bob", "Bob", "bob@localhost", LoopbackNetwork())
    try:

        async def run() -> list[float]:
            stop = asyncio.Event()
            waiting = Waiting(LoopbackNetwork(), stop)
            await watch(player.replica, waiting, now, on_round=lambda _: None, stop=stop)
            return waiting.timeouts

        assert asyncio.run(run()) == [42.0]
    finally:
        player.close()


def test_the_transport_says_when_its_next_look_is_due(
    mail_stack: MailStack,
    box: str,  # noqa: F811
    junk: str,
) -> None:
    clock = Clock()
    mail = transport(config(mail_stack, box, junk_folder=junk), clock)
    assert mail.junk_look_in() == 0.0  # (no look yet)
    fetch(mail, "")
    assert mail.junk_look_in() == JUNK_EVERY
    clock.now += timedelta(seconds=60)
    assert mail.junk_look_in() == JUNK_EVERY - 60
    clock.now += timedelta(seconds=JUNK_EVERY)
    assert mail.junk_look_in() == 0.0
    clock.now = START - timedelta(seconds=1)  # (a clock set back: due at once)
    assert mail.junk_look_in() == 0.0
    ignoring = transport(config(mail_stack, box, ignore_junk=True), clock)
    assert ignoring.junk_look_in() is None


def test_a_spam_folder_named_in_another_script_is_read(
    mail_stack: MailStack,
    admin: IMAPClient,  # noqa: F811
    box: str,  # noqa: F811
    packet: VerifiedPacket,  # noqa: F811
) -> None:
    """Folder names travel in modified UTF-7 (RFC 3501): a French Outlook's "Courrier
    indésirable" is read like any other."""
    name = f"{box} Courrier indésirable"
    admin.create_folder(name)
    deliver(admin, name, packet_mail(mail_stack, packet, "accents"))
    mail = transport(config(mail_stack, box, junk_folder=name), Clock())
    result = fetch(mail, "")
    assert len(result.packets) == 1 and mail.junk_folder == name and not mail.junk_problem
    state = _split_cursor(result.cursor)[1]
    assert state is not None and state.folder == name  # (kept in the cursor as it is named)
    assert check_login(
        config(mail_stack, box, junk_folder=name), mail_stack.password("bob"), junk_words
    ).endswith(f"spam folder {name!r} looked in every 15 minutes for packet mail")


def test_an_oversized_message_in_the_spam_folder_is_logged_as_there(
    mail_stack: MailStack,
    admin: IMAPClient,  # noqa: F811
    box: str,  # noqa: F811
    junk: str,
    packet: VerifiedPacket,  # noqa: F811
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The log line of a skipped message names the folder it lies in, not the inbox."""
    deliver(admin, junk, packet_mail(mail_stack, packet, "too big for this look"))
    folder = open_box(mail_stack, box)
    try:
        with caplog.at_level("WARNING", logger="mail.imap"):
            found = imapjunk.look_in_junk(folder, junk, "", configured=True, max_bytes=100)
    finally:
        folder.close()
    assert found.found == () and not found.problem
    (line,) = [r.getMessage() for r in caplog.records if "byte limit" in r.getMessage()]
    assert repr(junk) in line and repr(box) not in line, line
