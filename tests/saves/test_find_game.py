"""A game named on the command line (`saves.reading.Reader.find`): by its exact name, its id
or a prefix of it, and then as a player types a name: in other capitals, or its beginning.

`hexpost show tutorial` said "no game matches 'tutorial'" beside two games named
tutorial-134c01 and tutorial-6f7a94; `show Wind` missed the game named wind."""

from __future__ import annotations

import pytest

from engine.core.errors import HexpostError
from tests.saves.conftest import Player, invite_to_tutorial


def test_a_name_in_other_capitals_or_its_unique_beginning_finds_the_game(
    alice: Player, bob: Player
) -> None:
    wind = invite_to_tutorial(alice, bob, "Wind of Change")
    other = invite_to_tutorial(alice, bob, "tutorial-1")
    third = invite_to_tutorial(alice, bob, "tutorial-2")
    replica = alice.replica
    assert replica.find("Wind of Change").game_id == wind
    assert replica.find("wind of change").game_id == wind
    assert replica.find("WIND").game_id == wind  # (the only name that begins so)
    assert replica.find("tutorial-1").game_id == other
    with pytest.raises(HexpostError) as several:
        replica.find("tutorial")
    assert str(several.value) == (
        f"'tutorial' begins the names of several games: tutorial-1 ({other.hex()[:8]}), "
        f"tutorial-2 ({third.hex()[:8]}): give more of the name, or the id"
    )
    with pytest.raises(HexpostError, match=r"^no game matches 'storm' \(see `hexpost games`\)$"):
        replica.find("storm")


def test_an_id_prefix_comes_before_a_name(alice: Player, bob: Player) -> None:
    game = invite_to_tutorial(alice, bob, "x")
    named = invite_to_tutorial(alice, bob, game.hex()[:4] + "-named")
    assert alice.replica.find(game.hex()[:4]).game_id == game
    assert alice.replica.find(game.hex()[:4] + "-n").game_id == named
