"""A whole game by real email, and each fault real mail systems cause, on the test mail stack.

Alice and Bob are two homes; every packet goes out through aiosmtpd (STARTTLS + AUTH) into
Dovecot and comes back in over IMAP. Faulty mail is put straight into Bob's folder with IMAP
APPEND (as a mail system would leave it). After every fault: nothing lost, nothing applied
twice, and both homes hold the same game.
"""

from __future__ import annotations

import asyncio
import email.policy
import re
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine.core.owed import pending
from engine.core.packets import fingerprint, sign_body
from engine.core.ruleset import DecisionKind
from engine.core.text import said
from engine.fe import RULESET
from mail.imap import FetchError
from mail.loopback import LoopbackNetwork
from mail.mailtransport import MailTransport
from mail.mime import HEADER, armor, read_message
from mail.smtp import SendError
from mail.transport import OutgoingPacket
from saves.backup import back_up, confirm
from tests.mail.mailgame import (
    FOREIGN,
    Mailbox,
    account,
    chat,
    close,
    emails_to,
    inbox_of,
    mark_all_sent,
    same_game,
    start,
    statuses,
)
from tests.mail.servers import MailStack, free_ports
from tests.saves.conftest import (
    COALITION_FORCE,
    FORCE,
    FORCE_TEXT,
    SECRET_STEP,
    Player,
    create_game,
    exchange,
    now,
    owner,
    play_setup,
    to_battle,
)
from tui import render
from tui.screens.hexinfo import status_lines
from tui.services import show

_PARSER = BytesParser(policy=email.policy.default)


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
    assert FORCE_TEXT in resolved and f"coalition: {said(COALITION_FORCE)}" in resolved
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
