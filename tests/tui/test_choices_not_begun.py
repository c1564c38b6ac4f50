"""`hexpost choices` and `find` on a game that has not begun say what it waits for, and from
whom, instead of a status word: the creator that the other side has not joined yet, the
invited player the command that joins."""

from __future__ import annotations

import pytest

from engine.core.errors import HexpostError
from tests.saves.conftest import CHAIN_LENGTH, Player, invite_to_tutorial, now
from tui.services import choices


def _refusal(player: Player, game_id: bytes) -> str:
    row = player.replica.game(game_id)
    with pytest.raises(HexpostError) as choices_refused:
        choices.choices(player.replica, row)
    with pytest.raises(HexpostError) as find_refused:
        choices.find(player.replica, row, "KLI-0001")
    assert str(choices_refused.value) == str(find_refused.value)
    return str(choices_refused.value)


def test_a_game_not_begun_says_what_it_waits_for(two_homes: tuple[Player, Player]) -> None:
    alice, bob = two_homes
    game_id = invite_to_tutorial(alice, bob, "early")
    said = _refusal(alice, game_id)
    assert said == "game early has not begun: it waits for alliance: join the game", said
    alice.sync()
    bob.sync()
    said = _refusal(bob, game_id)
    assert said == (
        "game early has not begun: you were invited and have not joined: "
        "`hexpost accept early` joins it"
    ), said
    bob.replica.accept(game_id, now=now(), chain_length=CHAIN_LENGTH)
    bob.sync()
    alice.sync()  # every seat has joined: the game begins (Alice owes the key's acceptance)
    view = choices.choices(alice.replica, alice.replica.game(game_id))
    assert view.seat == "coalition"
