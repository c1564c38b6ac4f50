"""Two homes playing by real email: helpers for the mail game and fault tests.

Each test gets its own mailbox pair on the session's Dovecot: mail for ``bob+BOX@localhost``
is delivered to Bob's folder ``BOX`` (Dovecot's ``+detail`` delivery), so tests sharing the
servers never see each other's packets. The players are `tests.saves.conftest.Player` homes
whose transport is the real `MailTransport` (SMTP out through aiosmtpd, IMAP in from Dovecot).
"""

from __future__ import annotations

import asyncio
import email.policy
import uuid
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any

from imapclient import IMAPClient

from mail.accounts import ImapConfig, MailConfig, SmtpConfig
from mail.loopback import LoopbackNetwork
from mail.mailtransport import MailTransport
from mail.transport import OutgoingPacket
from tests.mail.servers import MailStack
from tests.saves.conftest import (
    CHAIN_LENGTH,
    Player,
    accept_join,
    create_game,
    exchange,
    now,
    owner,
    play_setup,
)

PASSWORD_ENV = "HEXPOST_TEST_MAIL_PASSWORD_{user}"


def new_box() -> str:
    """A folder name no other test uses."""
    return f"game{uuid.uuid4().hex[:12]}"


def account(stack: MailStack, user: str, box: str, **changes: Any) -> MailConfig:
    """``user``'s account reading folder ``box`` over implicit TLS and sending by STARTTLS."""
    env = PASSWORD_ENV.format(user=user.upper())
    common: dict[str, Any] = {
        "host": stack.host,
        "username": user,
        "ca_file": str(stack.ca_file),
        "password_env": env,
        # The product's default: a busy machine (the whole suite on both cores) can hold one
        # step of a TLS login or an LMTP delivery for seconds; no test here waits on a timeout.
        "timeout": 30.0,
    }
    imap_fields = {
        **common,
        "port": stack.imaps_port,
        "security": "tls",
        "folder": box,
        **{k[5:]: v for k, v in changes.items() if k.startswith("imap_")},
    }
    smtp_fields = {
        **common,
        "port": stack.smtp_port,
        "security": "starttls",
        **{k[5:]: v for k, v in changes.items() if k.startswith("smtp_")},
    }
    return MailConfig(
        address=f"{user}+{box}@{stack.domain}",
        imap=ImapConfig(**imap_fields),
        smtp=SmtpConfig(**smtp_fields),
    )


def set_passwords(stack: MailStack, monkeypatch: Any) -> None:
    for user in stack.users:
        monkeypatch.setenv(PASSWORD_ENV.format(user=user.upper()), stack.password(user))


def make_box(stack: MailStack, user: str, box: str) -> None:
    stack.doveadm("mailbox", "create", "-u", user, box)


def mail_player(path: Path, stack: MailStack, user: str, box: str, **changes: Any) -> Player:
    """A home for ``user`` whose address and transport are the mailbox ``box``."""
    make_box(stack, user, box)
    config = account(stack, user, box, **changes)
    player = Player(path, user.title(), config.address, LoopbackNetwork())
    player.transport = MailTransport(config)  # type: ignore[assignment]
    return player


def close(player: Player) -> None:
    asyncio.run(player.transport.close())
    player.close()


class Mailbox:
    """A direct IMAP view of one user's folder, for the tests' own checks and deliveries."""

    def __init__(self, stack: MailStack, user: str, box: str) -> None:
        self.client = IMAPClient(stack.host, port=stack.imaps_port, ssl_context=stack.ssl_context())
        self.client.login(user, stack.password(user))
        self.client.select_folder(box)
        self.box = box

    def uids(self) -> list[int]:
        self.client.noop()  # Dovecot shows mail delivered since the last command only after one
        return sorted(int(uid) for uid in self.client.search("ALL"))

    def raw(self, uid: int) -> bytes:
        data = self.client.fetch([uid], ["BODY.PEEK[]"])
        return bytes(data[uid][b"BODY[]"])

    def messages(self) -> list[EmailMessage]:
        parser = BytesParser(policy=email.policy.default)
        return [parser.parsebytes(self.raw(uid)) for uid in self.uids()]

    def flags(self) -> dict[int, tuple[bytes, ...]]:
        found = self.client.get_flags(self.uids())
        return {int(uid): tuple(flags) for uid, flags in found.items()}

    def append(self, raw: bytes) -> None:
        self.client.append(self.box, raw)

    def close(self) -> None:
        try:
            self.client.logout()
        except Exception:
            pass


def outgoing(player: Player, game_id: bytes, seq: int, to: str) -> OutgoingPacket:
    """Packet ``seq`` as ``player``'s outbox would hand it to a transport."""
    return OutgoingPacket(
        game_id=game_id,
        seq=seq,
        packet_id=player.opened(game_id, seq).packet_id,
        data=player.packet(game_id, seq),
        to=(to,),
        subject=f"[hexpost] test packet {seq}",
    )


def mark_all_sent(player: Player) -> None:
    """Pretend the outbox went out another way (the test delivers those emails itself)."""
    with player.replica.store.transaction() as db:
        db.execute("UPDATE outbox SET sent_at = 'by the test' WHERE sent_at IS NULL")


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


def emails_to(first: Player, game_id: bytes, seqs: list[int], to: Player) -> list[bytes]:
    """The emails ``first``'s transport would send for packets ``seqs`` (built, not sent)."""
    transport = first.transport
    assert isinstance(transport, MailTransport)
    return [transport.build(outgoing(first, game_id, seq, to.address))[1] for seq in seqs]


def inbox_of(stack: MailStack, player: Player) -> Mailbox:
    transport = player.transport
    assert isinstance(transport, MailTransport)
    return Mailbox(stack, transport.config.imap.username, transport.config.imap.folder)


FOREIGN = (
    b"From: carol@localhost\r\nTo: bob@localhost\r\nSubject: lunch?\r\n"
    b"Message-ID: <lunch.1@localhost>\r\n\r\nAre you free on Tuesday?\r\n"
)
"""A mail that is no hexpost's, as any folder holds: left alone, never marked read."""
