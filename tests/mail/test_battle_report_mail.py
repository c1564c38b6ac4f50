"""The email of a combat packet reads like a battle report (issue 14 item 13): the body's
summary (`saves.ledger.packet_summary`, written into the email by `mail.mime.build_message`)
holds the battle report's lines of the packet, whole, one a line, in the order they happened.

The packets are the golden campaign's first battle round (`tests.golden.first_battle`): the
reveal whose dice make the round's fire, and the packet that ends the round."""

from __future__ import annotations

from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

from engine.core.packets import key_id, open_packet
from mail.mime import build_message
from mail.transport import OutgoingPacket
from saves.ledger import packet_summary
from tests.golden.first_battle import FIRE, LOSSES, FirstRound, first_round

WHEN = datetime(2026, 12, 1, 22, 0, tzinfo=UTC)


def body_lines(game: FirstRound, seq: int) -> list[str]:
    """The plain-text body of packet ``seq``'s email, as the recipient's client shows it."""
    keys: dict[bytes, bytes] = {}
    opened = None
    for data in game.packets[: seq + 1]:
        opened = open_packet(data, lambda kid: [keys[kid]] if kid in keys else [])
        if opened.envelope.public_key:
            keys[key_id(opened.envelope.public_key)] = opened.envelope.public_key
    assert opened is not None
    outgoing = OutgoingPacket(
        game_id=opened.body.game_id,
        seq=opened.body.seq,
        packet_id=opened.packet_id,
        data=opened.data,
        to=("bob@example.org",),
    )
    raw = build_message(
        outgoing,
        sender="alice@example.org",
        subject="battle",
        message_id="<battle@example.org>",
        date=WHEN,
        summary=packet_summary(game.results[seq]),
    )
    message = BytesParser(policy=policy.default).parsebytes(raw)
    assert isinstance(message, EmailMessage)
    part = message.get_body(("plain",))
    assert part is not None
    content = part.get_content()
    assert isinstance(content, str)
    return content.splitlines()


def test_the_reveal_that_rolls_the_dice_mails_the_round_s_fire() -> None:
    game = first_round()
    (fire,) = game.reports(game.fire_seq)
    assert FIRE.match(fire), fire
    lines = body_lines(game, game.fire_seq)
    assert fire in lines
    damage = [i for i, line in enumerate(lines) if "damage points (" in line]
    assert damage and lines.index(fire) > max(damage)  # the report sums up the dice above it


def test_the_packet_that_ends_the_round_mails_its_losses() -> None:
    game = first_round()
    losses = [t for t in game.reports(game.losses_seq) if LOSSES.match(t)]
    assert losses
    lines = body_lines(game, game.losses_seq)
    assert all(line in lines for line in losses)
    assert lines.index(losses[0]) < lines.index(
        "This email carries a hexpost packet: hexpost reads it from the"
    )
