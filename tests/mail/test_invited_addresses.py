"""An invitation by real mail to an address that reaches the player's mailbox without being
the identity's address letter for letter (`saves.addresses.same_address`).

The test Dovecot delivers ``bob+BOX@localhost`` to bob's folder BOX (its recipient
delimiter), as Gmail, Fastmail and most providers deliver a ``+tag``: Alice invites that
address, Bob's identity is plain ``bob@localhost``, and his home must take the invitation
from the mail it was delivered."""

from __future__ import annotations

from pathlib import Path

import pytest

from mail.loopback import LoopbackNetwork
from mail.mailtransport import MailTransport
from tests.mail.mailgame import account, close, mail_player, make_box, new_box, set_passwords
from tests.mail.servers import MailStack
from tests.saves.conftest import CHAIN_LENGTH, Player, create_game, now


def test_an_invitation_to_a_subaddress_reaches_a_plain_identity_by_mail(
    mail_stack: MailStack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_passwords(mail_stack, monkeypatch)
    box = new_box()
    alice = mail_player(tmp_path / "alice", mail_stack, "alice", box)
    make_box(mail_stack, "bob", box)
    config = account(mail_stack, "bob", box)
    plain = f"bob@{mail_stack.domain}"
    assert config.address == f"bob+{box}@{mail_stack.domain}"
    bob = Player(tmp_path / "bob", "Bob", plain, LoopbackNetwork())
    bob.transport = MailTransport(config)  # type: ignore[assignment]
    try:
        game = create_game(alice, opponent=config.address)
        alice.sync()
        invited = [o.status for o in bob.sync().received]
        assert invited == ["invitation"], invited
        bob.replica.accept(game, now=now(), chain_length=CHAIN_LENGTH)
        bob.sync()
        (joined,) = [o for o in alice.sync().received if o.status == "applied"]
        assert f"Bob <{plain}>" in joined.detail and "WARNING" not in joined.detail
    finally:
        close(alice)
        close(bob)
