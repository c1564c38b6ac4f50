"""A whole game by real email, and each fault real mail systems cause, on the test mail stack.

Alice and Bob are two homes; every packet goes out through aiosmtpd (STARTTLS + AUTH) into
Dovecot and comes back in over IMAP. Faulty mail is put straight into Bob's folder with IMAP
APPEND (as a mail system would leave it). After every fault: nothing lost, nothing applied
twice, and both homes hold the same game.
"""

from __future__ import annotations

import asyncio
import email.policy
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from imapclient import IMAPClient

from engine.core.owed import pending
from engine.core.packets import fingerprint, sign_body
from engine.core.ruleset import DecisionKind
from engine.fe import RULESET
from mail.accounts import save_mail_config
from mail.imap import FetchError, ImapFolder
from mail.loopback import LoopbackNetwork
from mail.mailtransport import FIRST_BATCH, MailTransport
from mail.mime import HEADER, armor, read_message
from mail.smtp import SendError
from mail.sync import sync
from mail.transport import OutgoingPacket
from mail.watch import Round, watch
from saves.backup import back_up, confirm
from saves.home import Home
from tests.mail.mailgame import (
    Mailbox,
    account,
    close,
    mail_player,
    make_box,
    mark_all_sent,
    new_box,
    outgoing,
    set_passwords,
)
from tests.mail.servers import MailStack, free_ports
from tests.saves.conftest import (
    CHAIN_LENGTH,
    COALITION_FORCE,
    FORCE,
    FORCE_TEXT,
    SECRET_STEP,
    Player,
    accept_join,
    create_game,
    exchange,
    now,
    owner,
    play_setup,
    to_battle,
)
from tests.tui.conftest import clean_env, describe, hexpost
from tests.watching import output_lines, read_until, stopped, watching
from tui import render
from tui.screens.hexinfo import status_lines
from tui.services import show

_PARSER = BytesParser(policy=email.policy.default)


@pytest.fixture
def box() -> str:
    return new_box()


def _home_of(user: str, request: pytest.FixtureRequest) -> Iterator[Player]:
    """``user``'s home on the mail stack, reading this test's folder."""
    stack: MailStack = request.getfixturevalue("mail_stack")
    set_passwords(stack, request.getfixturevalue("monkeypatch"))
    path: Path = request.getfixturevalue("tmp_path")
    player = mail_player(path / user, stack, user, request.getfixturevalue("box"))
    yield player
    close(player)


@pytest.fixture
def mail_alice(request: pytest.FixtureRequest) -> Iterator[Player]:
    yield from _home_of("alice", request)


@pytest.fixture
def mail_bob(request: pytest.FixtureRequest) -> Iterator[Player]:
    yield from _home_of("bob", request)


@pytest.fixture
def bob_box(mail_stack: MailStack, box: str, mail_bob: Player) -> Iterator[Mailbox]:
    view = Mailbox(mail_stack, "bob", box)
    yield view
    view.close()


def start(alice: Player, bob: Player) -> bytes:
    """Alice invites Bob by mail, Bob's sync shows the invitation, he accepts by mail."""
    game_id = create_game(alice, opponent=bob.address)
    assert alice.sync().sent == [0]
    report = bob.sync()
    assert [o.status for o in report.received] == ["invitation"]
    bob.replica.accept(game_id, now=now(), chain_length=CHAIN_LENGTH)
    exchange(bob, alice)
    accept_join(alice, bob, game_id)
    return game_id


def same_game(alice: Player, bob: Player, game_id: bytes) -> None:
    assert alice.row(game_id).head_seq == bob.row(game_id).head_seq
    assert alice.replica.verify(game_id) == bob.replica.verify(game_id)
    for player in (alice, bob):
        assert player.count("packets", game_id) == player.row(game_id).head_seq + 1


def statuses(report: Any) -> list[str]:
    return [o.status for o in report.received]


def chat(player: Player, game_id: bytes, text: str) -> int:
    return player.replica.chat(game_id, text, now=now()).seq


def on_move(players: dict[str, Player], game_id: bytes) -> tuple[Player, Player]:
    """Set up the game (so the seat on move may chat) and return (on move, other)."""
    play_setup(players, game_id)
    return owner(players, game_id)


# --- the whole game ----------------------------------------------------------------------------


def test_a_game_by_email_with_a_roll_and_a_secret_choice(
    mail_alice: Player, mail_bob: Player, bob_box: Mailbox, mail_stack: MailStack
) -> None:
    alice, bob = mail_alice, mail_bob
    game_id = start(alice, bob)
    players = {"coalition": alice, "alliance": bob}
    play_setup(players, game_id)

    roll = alice.replica.submit(
        game_id,
        [{"type": "done"}, {"type": "roll", "dice": "2d6", "purpose": "a test of the dice"}],
        now=now(),
    )
    alice.sync()
    answered = bob.sync()
    assert answered.sent == [roll.seq + 1], "Bob's home answers the roll by itself"
    alice.sync()
    rolls = [
        [(s, e.data["dice"]) for s, e in p.replica.events(game_id) if e.kind == "roll"]
        for p in (alice, bob)
    ]
    assert rolls[0] == rolls[1] and len(rolls[0]) == 1

    to_battle(players, game_id)  # Bob's Kzinti attack: the combat phase has secret steps
    first, second = owner(players, game_id)
    assert pending(RULESET, first.replica.state(game_id))[0].kind == DecisionKind.SECRET
    first.replica.submit(game_id, [{"type": "secret", "choice": FORCE}], now=now())
    exchange(first, second)
    second.replica.submit(game_id, [{"type": "secret", "choice": COALITION_FORCE}], now=now())
    exchange(second, first)
    second.sync()
    resolved = " ".join(e.text for _, e in bob.replica.events(game_id) if e.step == SECRET_STEP)
    assert FORCE_TEXT in resolved and f"coalition: {COALITION_FORCE}" in resolved
    same_game(alice, bob, game_id)

    # What Bob's mailbox holds: one email per packet Alice sent, readable and threaded.
    messages = bob_box.messages()
    assert len(messages) == alice.count("outbox", game_id)
    ids = [m["Message-ID"] for m in messages]
    assert len(set(ids)) == len(ids)
    for message in messages:
        assert message[HEADER].startswith(f"game={game_id.hex()}; seq=")
        assert message["Subject"].startswith("[hexpost] ")
    threaded = [m for m in messages[1:] if m["In-Reply-To"]]
    assert len(threaded) == len(messages) - 1, "every email after the first answers an earlier one"
    alice_box = Mailbox(mail_stack, "alice", bob_box.box)
    try:
        to_alice = alice_box.messages()
        known = set(ids) | {m["Message-ID"] for m in to_alice}
        automatic = [m for m in to_alice if m["Auto-Submitted"] == "auto-generated"]
        # Bob's home answered the roll and revealed his carrier group (he committed first)
        subjects = [str(m["Subject"]) for m in automatic]
        assert any("reveal" in subject for subject in subjects), subjects
    finally:
        alice_box.close()
    for message in threaded:
        assert message["In-Reply-To"] in known
    invitation = messages[0]
    assert "invit" in invitation["Subject"].lower()
    body = invitation.get_body(preferencelist=("plain",))
    assert body is not None
    text = body.get_content()
    identity = alice.replica.identity
    assert identity is not None
    assert fingerprint(identity.public_key) in text
    assert f"hexpost accept {alice.row(game_id).name}" in text
    assert read_message(invitation.as_bytes()) is not None


# --- faults ------------------------------------------------------------------------------------


@pytest.fixture
def played(mail_alice: Player, mail_bob: Player) -> tuple[bytes, Player, Player]:
    """A game by mail past its set-up; returns (game, the seat on move, the other seat)."""
    game_id = start(mail_alice, mail_bob)
    first, second = on_move({"coalition": mail_alice, "alliance": mail_bob}, game_id)
    return game_id, first, second


def emails_to(first: Player, game_id: bytes, seqs: list[int], to: Player) -> list[bytes]:
    """The emails ``first``'s transport would send for packets ``seqs`` (built, not sent)."""
    transport = first.transport
    assert isinstance(transport, MailTransport)
    return [transport.build(outgoing(first, game_id, seq, to.address))[1] for seq in seqs]


def inbox_of(stack: MailStack, player: Player) -> Mailbox:
    transport = player.transport
    assert isinstance(transport, MailTransport)
    return Mailbox(stack, transport.config.imap.username, transport.config.imap.folder)


def test_duplicate_and_reordered_delivery(
    played: tuple[bytes, Player, Player], mail_stack: MailStack
) -> None:
    game_id, first, second = played
    seqs = [chat(first, game_id, f"line {n}") for n in range(3)]
    mark_all_sent(first)
    raw = emails_to(first, game_id, seqs, second)
    box = inbox_of(mail_stack, second)
    try:
        for data in [raw[2], raw[0], raw[2], raw[1], raw[0]]:  # reordered, two duplicates
            box.append(data)
    finally:
        box.close()
    report = second.sync()
    # Early packets wait in the buffer (a copy of one waiting is still waiting), the gap's
    # filler applies everything it unblocks, and an applied packet seen again is a duplicate.
    assert statuses(report) == ["buffered", "applied", "buffered", "applied", "duplicate"]
    assert second.row(game_id).head_seq == seqs[-1]
    assert second.count("buffered", game_id) == 0
    assert second.sync().received == [], "each email is read once"
    same_game(first, second, game_id)


def _reencode_attachment(raw: bytes) -> bytes:
    """What a gateway does: the attachment re-encoded as quoted-printable, text re-wrapped."""
    message = _PARSER.parsebytes(raw)
    assert isinstance(message, EmailMessage)
    for part in message.iter_attachments():
        data = part.get_content()
        part.set_content(
            data, maintype="application", subtype="octet-stream", cte="quoted-printable"
        )
        part.add_header("Content-Disposition", "attachment", filename="packet.hexpost")
    return message.as_bytes(policy=email.policy.SMTP)


def _armour_only(raw: bytes) -> bytes:
    """The packet only as the armoured block, quoted and re-wrapped at 40 columns, in a reply."""
    found = read_message(raw)
    assert found is not None
    data = found.candidates[0]
    pid = re.search(rb"Packet: ([0-9a-f]{64})", raw)
    assert pid is not None
    block = armor(data, bytes.fromhex(pid.group(1).decode()), width=40)
    reply = EmailMessage(policy=email.policy.SMTP)
    original = _PARSER.parsebytes(raw)
    for name in ("From", "To", "Subject", "Message-ID", HEADER):
        reply[name] = original[name]
    quoted = "\n".join("> " + line for line in block.splitlines())
    reply.set_content(
        "Forwarding this as text, my phone ate the file.\n\n" + quoted + "\n",
        cte="quoted-printable",
    )
    return reply.as_bytes()


def test_a_re_encoded_attachment_and_an_armour_only_email_are_read(
    played: tuple[bytes, Player, Player], mail_stack: MailStack
) -> None:
    game_id, first, second = played
    seqs = [chat(first, game_id, "re-encoded"), chat(first, game_id, "armour only")]
    mark_all_sent(first)
    raw = emails_to(first, game_id, seqs, second)
    box = inbox_of(mail_stack, second)
    try:
        box.append(_reencode_attachment(raw[0]))
        box.append(_armour_only(raw[1]))
    finally:
        box.close()
    report = second.sync()
    assert statuses(report) == ["applied", "applied"]
    same_game(first, second, game_id)


FOREIGN = (
    b"From: carol@localhost\r\nTo: bob@localhost\r\nSubject: lunch?\r\n"
    b"Message-ID: <lunch.1@localhost>\r\n\r\nAre you free on Tuesday?\r\n"
)


def test_foreign_mail_and_another_games_mail_are_left_alone(
    played: tuple[bytes, Player, Player], mail_stack: MailStack, tmp_path: Path
) -> None:
    game_id, first, second = played
    # Another game: the same first player invites someone else; its genesis lands here too.
    other = create_game(first, opponent="carol@localhost", name="other")
    mark_all_sent(first)
    genesis = emails_to(first, other, [0], second)[0]
    box = inbox_of(mail_stack, second)
    try:
        before = {uid: flags for uid, flags in box.flags().items()}
        box.append(FOREIGN)
        box.append(genesis)
        report = second.sync()
        assert statuses(report) == ["ignored"]
        assert [row.game_id for row in second.replica.games()] == [game_id]
        flags = box.flags()
        foreign = max(flags) - 1
        assert b"\\Seen" not in flags[foreign], "foreign mail is never marked read"
        assert _PARSER.parsebytes(box.raw(foreign))["Subject"] == "lunch?"
        assert all(flags[uid] == before[uid] for uid in before)
    finally:
        box.close()
    same_game(first, second, game_id)


def test_truncated_and_forged_packets_are_refused_and_the_good_one_still_applies(
    played: tuple[bytes, Player, Player], mail_stack: MailStack
) -> None:
    game_id, first, second = played
    seq = chat(first, game_id, "the real one")
    mark_all_sent(first)
    good = emails_to(first, game_id, [seq], second)[0]
    found = read_message(good)
    assert found is not None
    # Truncated: the email stops in the middle of its armoured block (so before the attachment).
    middle = (
        good.index(b"Packet: ") + (good.index(b"-----END HEXPOST") - good.index(b"Packet: ")) // 2
    )
    truncated = good[:middle]
    # Forged: the same body, signed by a key that is not the seat's.
    forged = sign_body(first.opened(game_id, seq).body, Ed25519PrivateKey.generate())
    before = second.snapshot(game_id)
    box = inbox_of(mail_stack, second)
    try:
        box.append(truncated)
        box.append(_with_packet(good, forged))
    finally:
        box.close()
    report = second.sync()
    # The truncated copy is not a packet; the forged one is signed by a key no seat has, so it
    # is only kept aside (it could belong to a game not known yet) and can never apply.
    assert statuses(report) == ["rejected", "parked"]
    # Nothing changed but the signed ask for packet N beside the note (`saves.resend_asks`).
    assert second.snapshot(game_id) == before._replace(outbox=before.outbox + 1)
    box = inbox_of(mail_stack, second)
    try:
        box.append(good)
    finally:
        box.close()
    assert statuses(second.sync()) == ["applied"]
    same_game(first, second, game_id)


def test_a_damaged_packet_email_is_asked_for_again_and_resent(
    played: tuple[bytes, Player, Player], mail_stack: MailStack
) -> None:
    """Only a damaged copy of packet N arrives: the reader says which packet from whom and
    emails its author once, a note and a signed ask; the author's next sync answers the ask
    by itself (nobody runs `resend`) with a new email that applies."""
    game_id, first, second = played
    seq = chat(first, game_id, "the real one")
    mark_all_sent(first)
    good = emails_to(first, game_id, [seq], second)[0]
    damaged = good[: good.index(b"Packet: ") + 100]  # cut in its armour, before the attachment
    box = inbox_of(mail_stack, second)
    try:
        box.append(damaged)
    finally:
        box.close()
    report = second.sync()
    assert statuses(report) == ["rejected"]
    outcome = report.received[0]
    assert (outcome.game_id, outcome.seq, outcome.attention) == (game_id, seq, True)
    assert [line.split(" of ")[0] for line in report.requests] == [
        f"asked {first.address} to resend packet {seq}"
    ]
    assert second.sync().requests == []  # asked once per position
    box = inbox_of(mail_stack, first)
    try:
        subjects = [str(m["Subject"]) for m in box.messages()]
    finally:
        box.close()
    assert any(f"packet {seq} came damaged, please resend" in s for s in subjects), subjects
    assert any(f"please send packet {seq} again" in s for s in subjects), subjects

    answered = first.sync()
    assert statuses(answered) == ["resend"] and answered.sent == [seq]
    assert statuses(second.sync()) == ["applied"]
    same_game(first, second, game_id)
    assert statuses(first.sync()) == []  # the ask was read once


def test_a_home_restored_from_an_older_backup_asks_for_the_chain_and_catches_up(
    mail_alice: Player, mail_bob: Player, mail_stack: MailStack, box: str, tmp_path: Path
) -> None:
    """Alice backs up, plays on until Bob owes, and loses her disk; Bob answers. Her copy
    reads Bob's packet from her real mailbox, which holds his packets only: it follows
    packets the copy lacks, its own among them. The copy signs nothing there, emails Bob
    once to send the game again (a note and a signed ask), Bob's next sync sends every packet
    from the gap by itself, and the copy holds the game as Bob does and plays on, with no
    equivocation found on either side."""
    alice, bob = mail_alice, mail_bob
    game_id = start(alice, bob)
    players = {"coalition": alice, "alliance": bob}
    play_setup(players, game_id)
    back_up(alice.home, tmp_path / "backup", now=now())
    gap = alice.row(game_id).head_seq + 1
    while owner(players, game_id)[0] is alice:
        alice.replica.submit(game_id, [{"type": "done"}], now=now())
        exchange(alice, bob)
    theirs = bob.replica.submit(game_id, [{"type": "note", "text": "your move"}], now=now())
    bob.sync()
    close(alice)

    restored = Player(tmp_path / "backup", "Alice", alice.address, LoopbackNetwork())
    restored.transport = MailTransport(account(mail_stack, "alice", box))  # type: ignore[assignment]
    confirm(restored.home)  # (too soon: what its mailbox shows still holds it back)
    try:
        report = restored.sync()
        assert "buffered" in statuses(report)
        assert restored.row(game_id).head_seq == gap - 1
        asked = f"asked {bob.address} to send packets {gap} to {theirs.seq - 1} of wind again"
        assert report.requests == [f"{asked} (this home is behind the game)"]
        assert restored.sync().requests == []  # asked once
        bob_box = Mailbox(mail_stack, "bob", box)
        try:
            subjects = [str(m["Subject"]) for m in bob_box.messages()]
        finally:
            bob_box.close()
        assert f"[hexpost] wind: please send packets {gap} to {theirs.seq - 1} again" in subjects

        answered = bob.sync()
        assert statuses(answered) == ["resend"]
        assert sorted(answered.sent) == list(range(gap, theirs.seq))  # (it holds Bob's last)
        restored.sync()
        same_game(restored, bob, game_id)
        together = {"coalition": restored, "alliance": bob}
        while owner(together, game_id)[0] is bob:
            bob.replica.submit(game_id, [{"type": "done"}], now=now())
            exchange(bob, restored)
        restored.replica.submit(game_id, [{"type": "note", "text": "back"}], now=now())
        exchange(restored, bob)
        same_game(restored, bob, game_id)
        assert restored.row(game_id).frozen is None and bob.row(game_id).frozen is None
    finally:
        close(restored)


def _with_packet(raw: bytes, data: bytes) -> bytes:
    """``raw`` with its packet (attachment and armour) replaced by ``data``."""
    original = _PARSER.parsebytes(raw)
    assert isinstance(original, EmailMessage)
    message = EmailMessage(policy=email.policy.SMTP)
    for name in ("From", "To", "Subject", "Message-ID", HEADER):
        message[name] = original[name]
    pid = re.search(rb"Packet: ([0-9a-f]{64})", raw)
    assert pid is not None
    message.set_content("forged\n\n" + armor(data, bytes.fromhex(pid.group(1).decode())) + "\n")
    message.add_attachment(
        data, maintype="application", subtype="x-hexpost-packet", filename="x.hexpost"
    )
    return message.as_bytes()


def test_uidvalidity_changed_mid_game_rescans_without_applying_twice(
    played: tuple[bytes, Player, Player], mail_stack: MailStack
) -> None:
    game_id, first, second = played
    chat(first, game_id, "before the change")
    first.sync()
    assert statuses(second.sync()) == ["applied"]
    transport = second.transport
    assert isinstance(transport, MailTransport)
    folder = transport.config.imap.folder
    mail_stack.doveadm(
        "mailbox", "update", "--uid-validity", "777", "-u", transport.config.imap.username, folder
    )
    asyncio.run(transport.close())  # a new session sees the new UIDVALIDITY
    rescanned = second.sync()
    assert rescanned.received, "the folder is read again from the start"
    assert set(statuses(rescanned)) <= {"duplicate"}
    seq = chat(first, game_id, "after the change")
    first.sync()
    assert statuses(second.sync()) == ["applied"]
    assert second.row(game_id).head_seq == seq
    same_game(first, second, game_id)


def test_smtp_down_keeps_the_packet_in_the_outbox_and_a_later_sync_sends_it(
    played: tuple[bytes, Player, Player], mail_stack: MailStack
) -> None:
    game_id, first, second = played
    working = first.transport
    assert isinstance(working, MailTransport)
    (closed,) = free_ports(1)
    down = account(
        mail_stack,
        working.config.imap.username,
        working.config.imap.folder,
        smtp_port=closed,
        smtp_timeout=3.0,
    )
    first.transport = MailTransport(down)  # type: ignore[assignment]
    seq = chat(first, game_id, "while the server is down")
    report = first.sync()
    assert report.sent == [] and [f.seq for f in report.failed] == [seq]
    entry = first.replica.store.one(
        "SELECT attempts, last_error, sent_at, data FROM outbox WHERE game_id = ? AND seq = ?",
        (game_id, seq),
    )
    assert entry is not None
    assert entry[0] == 1 and entry[2] is None
    assert str(closed) in entry[1]
    # The player sees it: `hexpost show`, the game screen's status and the games list.
    record = show.show(first.replica, first.row(game_id), at=None, checklist=False)
    assert [u.seq for u in record.unsent] == [seq]
    assert str(closed) in render.show_text(render.builtins(record))
    assert "NOT SENT: 1 packet" in status_lines(record)
    assert render.game_summary(first.replica, first.row(game_id))["unsent"] == 1
    asyncio.run(first.transport.close())
    first.transport = working
    assert first.sync().sent == [seq]
    assert statuses(second.sync()) == ["applied"]
    assert bytes(entry[3]) == second.packet(game_id, seq), "the very bytes that waited"
    same_game(first, second, game_id)


def test_wrong_password_and_unknown_certificate_are_clear_errors(
    mail_bob: Player, mail_stack: MailStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    transport = mail_bob.transport
    assert isinstance(transport, MailTransport)
    box = transport.config.imap.folder
    monkeypatch.setenv("HEXPOST_TEST_WRONG", "not-the-password")
    wrong = MailTransport(
        account(
            mail_stack,
            "bob",
            box,
            imap_password_env="HEXPOST_TEST_WRONG",
            smtp_password_env="HEXPOST_TEST_WRONG",
        )
    )
    with pytest.raises(FetchError, match=r"bob.*HEXPOST_TEST_WRONG") as refused:
        asyncio.run(wrong.fetch("", set()))
    assert not refused.value.retryable
    untrusted = MailTransport(account(mail_stack, "bob", box, imap_ca_file=None, smtp_ca_file=None))
    with pytest.raises(FetchError, match="ca_file") as uncertain:
        asyncio.run(untrusted.fetch("", set()))
    assert not uncertain.value.retryable
    packet = OutgoingPacket(
        game_id=bytes(16), seq=0, packet_id=bytes(32), data=b"x", to=(mail_bob.address,)
    )
    with pytest.raises(SendError, match="ca_file"):
        asyncio.run(untrusted.send(packet))
    for failed in (wrong, untrusted):
        asyncio.run(failed.close())


KILLS = 6
"""How many runs of `hexpost sync` the kill -9 test kills (half of them timed inside the pull)."""
FULL_KILLS = 12
"""How many it kills with ``--full`` (or ``HEXPOST_FULL=1``)."""


def _cli(home: Path) -> list[str]:
    return [sys.executable, "-m", "tui.cli", "--home", str(home), "sync"]


def _head_of(db: sqlite3.Connection, game_id: bytes, otherwise: int) -> int:
    try:
        row = db.execute("SELECT head_seq FROM games WHERE game_id = ?", (game_id,)).fetchone()
    except sqlite3.Error:  # the writer holds a lock a moment: ask again next time
        return otherwise
    return otherwise if row is None else int(row[0])


def _wait_or_kill_mid_pull(
    process: subprocess.Popen[bytes], home: Path, game_id: bytes, rng: random.Random
) -> bool:
    """Watch ``home``'s head from outside while ``process`` syncs it (a reader of the WAL
    store never blocks the writer), and kill the process soon after the head first moves:
    after a batch of the pull committed, before the cursor is saved and the mail filed away.
    True when it was killed, False when it ended first."""
    db = sqlite3.connect(f"file:{home / 'hexpost.sqlite3'}?mode=ro", uri=True, timeout=5)
    try:
        start = _head_of(db, game_id, -1)
        while process.poll() is None:
            if _head_of(db, game_id, start) > start:
                time.sleep(rng.uniform(0.0, 0.03))
                if process.poll() is not None:
                    return False
                process.send_signal(signal.SIGKILL)
                process.wait()
                return True
            time.sleep(0.002)
    finally:
        db.close()
    return False


def _settled(home: Path, game_id: bytes) -> int:
    """Open a crashed home afresh and check it: a gap-free chain that replays to its head."""
    opened = Home(home)
    try:
        replica = opened.replica()
        row = replica.game(game_id)
        count = opened.store().one("SELECT COUNT(*) FROM packets WHERE game_id = ?", (game_id,))
        assert count is not None and count[0] == row.head_seq + 1, "a gap or a duplicate"
        assert replica.verify(game_id) == row.state_hash
        return int(row.head_seq)
    finally:
        opened.close()


def test_kill_9_during_a_mail_sync_loses_nothing_and_applies_nothing_twice(
    played: tuple[bytes, Player, Player], mail_stack: MailStack, tmp_path: Path, full_run: bool
) -> None:
    game_id, first, second = played
    wanted = FULL_KILLS if full_run else KILLS
    seqs = [chat(first, game_id, f"line {n}") for n in range(40)]
    assert first.sync().sent == seqs
    transport = second.transport
    assert isinstance(transport, MailTransport)
    save_mail_config(second.home, transport.config)
    config = second.home.config()
    config["transport"] = {"kind": "mail"}
    second.home.save_config(config)
    home = Path(second.home.path)
    start_seq = second.row(game_id).head_seq
    close(second)

    # How long an unkilled run takes, on a copy (the copy reads the same folder).
    probe = tmp_path / "probe"
    shutil.copytree(home, probe)
    began = time.monotonic()
    done = subprocess.run(_cli(probe), capture_output=True, text=True, timeout=120, check=False)
    full = time.monotonic() - began
    assert done.returncode == 0, done.stderr
    assert _settled(probe, game_id) == seqs[-1]

    rng = random.Random(20261130)
    kills, rounds, attempts = 0, 0, 0
    while kills < wanted:
        rounds += 1
        assert rounds <= 4 * wanted, f"only {kills} runs were killed in {rounds} rounds"
        work = tmp_path / f"round{rounds}"
        shutil.copytree(home, work)
        heads = [start_seq]
        while True:
            process = subprocess.Popen(
                _cli(work),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            attempts += 1
            try:
                if attempts % 2:  # at a random moment of the run
                    try:
                        process.wait(timeout=rng.uniform(0.3, 1.1) * full)
                        killed = False
                    except subprocess.TimeoutExpired:
                        process.send_signal(signal.SIGKILL)
                        process.wait()
                        killed = True
                else:  # inside the pull: start-up and login are most of a run, and kills at
                    # random moments alone could all miss the few hundred milliseconds of it
                    killed = _wait_or_kill_mid_pull(process, work, game_id, rng)
            finally:
                if process.poll() is None:
                    process.kill()
                assert process.stderr is not None
                errors = process.stderr.read().decode(errors="replace")
                process.stderr.close()
            if killed:
                kills += 1
                heads.append(_settled(work, game_id))
                assert heads == sorted(heads), f"a crash took a packet back: heads {heads}"
                continue
            assert process.returncode == 0, errors
            break
        assert _settled(work, game_id) == seqs[-1], "the run after the crashes took in everything"
        # The forty mails come down in two fetched batches, the first `FIRST_BATCH` (20) and
        # the rest, each taken in as one transaction: a crash leaves each batch whole or not
        # at all (tests/saves/test_batch.py kills a run inside a batch on purpose).
        bounds = {start_seq, start_seq + min(FIRST_BATCH, len(seqs)), seqs[-1]}
        assert set(heads) <= bounds, f"a batch landed in part: {heads}, not {bounds}"
    home = work
    again = Home(home)
    try:
        assert again.replica().verify(game_id) == first.replica.verify(game_id)
    finally:
        again.close()


# --- the commands: an invitation by mail -------------------------------------------------------


def _mail_home(path: Path, stack: MailStack, user: str, box: str) -> Path:
    make_box(stack, user, box)
    config = account(stack, user, box)
    home = Home(path)
    home.create_identity(user.title(), config.address, None, scrypt_n=2)
    save_mail_config(home, config)
    settings = home.config()
    settings["transport"] = {"kind": "mail"}
    home.save_config(settings)
    home.close()
    return path


def test_invitation_by_mail_through_the_commands(
    mail_stack: MailStack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_passwords(mail_stack, monkeypatch)
    box = new_box()
    alice = _mail_home(tmp_path / "alice", mail_stack, "alice", box)
    bob = _mail_home(tmp_path / "bob", mail_stack, "bob", box)
    env = clean_env(**{k: v for k, v in os.environ.items() if k.startswith("HEXPOST_TEST_")})

    def run(home: Path, *args: str) -> str:
        done = hexpost("--home", home, *args, env=env)
        assert done.returncode == 0, describe(done)
        return done.stdout

    bob_address = account(mail_stack, "bob", box).address
    game = run(
        alice, "new", "--scenario", "the-wind", "--seat", "coalition", "--opponent", bob_address
    ).strip()
    assert "sent 1 packet" in run(alice, "sync")
    shown = run(bob, "sync")
    fingerprint = json.loads(run(alice, "identity", "show", "--json"))["fingerprint"]
    assert "received: invitation:" in shown and fingerprint in shown
    run(bob, "accept", game)
    assert "sent 1 packet" in run(bob, "sync")
    joined = run(alice, "sync")
    assert "received: applied" in joined and "joined" in joined
    assert "hexpost accept" in joined  # the creator is told to accept the key explicitly
    assert "accepted" in run(alice, "accept", game)
    run(alice, "sync")
    run(bob, "sync")
    states = [json.loads(run(h, "show", game, "--json"))["state_hash"] for h in (alice, bob)]
    assert states[0] == states[1]

    # `sync --watch` on Bob's side shows what Alice sends as it arrives; Ctrl-C ends it.
    watcher = watching(["--home", str(bob)], env)
    try:
        lines = output_lines(watcher)
        seen = read_until(lines, "watching ")
        run(alice, "chat", game, "hello by mail")  # a chat message: outside the chain
        run(alice, "sync")
        seen += read_until(lines, "hello by mail")
        assert "received: chat:" in seen and "not part of the game record" in seen, seen
        watcher.send_signal(signal.SIGINT)
        assert watcher.wait(timeout=30) == 0
        seen += read_until(lines, "stopped watching")
    finally:
        stopped(watcher)

    # Run as a service (systemd, a container), it is stopped by SIGTERM: the same clean end.
    watcher = watching(["--home", str(bob)], env)
    try:
        out = watcher.stdout
        assert out is not None
        assert out.readline().startswith("watching ")
        watcher.send_signal(signal.SIGTERM)
        assert watcher.wait(timeout=30) == 0
        assert "stopped watching" in out.read()
    finally:
        stopped(watcher)


# --- watching ----------------------------------------------------------------------------------


def test_mail_announced_while_fetching_wakes_the_next_idle_at_once(
    mail_stack: MailStack, box: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race behind the invitation test's rare failure on a busy machine.

    A message delivered after the fetch's NOOP and before its SEARCH is not in the SEARCH's
    answer, yet Dovecot announces it (EXISTS) at the end of that SEARCH; an IDLE begun after
    that reports only mail newer still. So `sync --watch`, whose first round overlapped the
    delivery, slept until its IDLE timed out (25 minutes by default) with the mail waiting.
    The delivery is put exactly there, through a second connection.
    """
    make_box(mail_stack, "bob", box)
    config = account(mail_stack, "bob", box).imap
    view = Mailbox(mail_stack, "bob", box)
    real_search = IMAPClient.search
    pending = [FOREIGN]

    def search_after_a_delivery(client: IMAPClient, *args: Any, **kwargs: Any) -> Any:
        if pending and client is not view.client:
            view.append(pending.pop())
        return real_search(client, *args, **kwargs)

    # A message already there, so that the fetch searches (a folder whose UIDNEXT shows
    # nothing past the cursor is not searched at all).
    view.append(FOREIGN)
    folder = ImapFolder.open(config, mail_stack.password("bob"))
    try:
        monkeypatch.setattr(IMAPClient, "search", search_after_a_delivery)
        found, cursor = folder.fetch_new("", set())
        monkeypatch.setattr(IMAPClient, "search", real_search)
        assert not pending, "the delivery was made during the fetch"
        assert (found, cursor) == ([], f"{folder.uidvalidity}:1"), "the search saw one mail"
        assert folder.idle(5.0), "mail announced during the fetch waited for the IDLE timeout"
        _, after = folder.fetch_new(cursor, set())
        assert after == f"{folder.uidvalidity}:2", "the next fetch reads the message"
        assert not folder.idle(0.5), "nothing else arrived: IDLE waits its time"
    finally:
        folder.close()
        view.close()


def test_watch_applies_packets_as_they_arrive_and_answers_a_roll(
    played: tuple[bytes, Player, Player],
) -> None:
    game_id, first, second = played
    rounds: list[Round] = []

    async def scenario() -> None:
        stop = asyncio.Event()
        transport = second.transport
        assert isinstance(transport, MailTransport)
        watching = asyncio.create_task(
            watch(
                second.replica, transport, now, on_round=rounds.append, stop=stop, idle_seconds=30.0
            )
        )
        await _until(lambda: len(rounds) >= 1)
        sub = first.replica.submit(
            game_id,
            [{"type": "done"}, {"type": "roll", "dice": "1d6", "purpose": "watch test"}],
            now=now(),
        )
        await sync(first.replica, first.transport, now)  # on this thread: the store's own
        await _until(lambda: any(r.report and r.report.sent == [sub.seq + 1] for r in rounds))
        stop.set()
        await asyncio.wait_for(watching, timeout=60)

    asyncio.run(scenario())
    assert statuses(first.sync()) == ["applied"]
    same_game(first, second, game_id)


async def _until(condition: Any, timeout: float = 60.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.05)


def test_processed_packet_mail_moves_to_the_named_folder(
    mail_alice: Player,
    mail_stack: MailStack,
    tmp_path: Path,
    box: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    done_box = f"{box}.done"
    bob = mail_player(tmp_path / "bob", mail_stack, "bob", box, imap_processed_folder=done_box)
    try:
        view = Mailbox(mail_stack, "bob", box)
        view.append(FOREIGN)
        view.close()
        game_id = start(mail_alice, bob)
        view = Mailbox(mail_stack, "bob", box)
        try:
            left = view.messages()
        finally:
            view.close()
        assert [m["Subject"] for m in left] == ["lunch?"], "only foreign mail stays in the folder"
        moved = Mailbox(mail_stack, "bob", done_box)
        try:
            assert len(moved.uids()) == mail_alice.count("outbox", game_id)
        finally:
            moved.close()
    finally:
        close(bob)
