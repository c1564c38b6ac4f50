"""A game named on the command line (`saves.reading.Reader.find`): by its exact name, its id
or a prefix of it, and then by its name in other capitals.

`hexpost show Wind` missed the game named wind. A name's beginning is not taken for the
game (``orders win turn.json`` would sign into the one game named "wind-2" when "win" was
a slip): the refusal lists the games whose names begin so instead ("show tutorial" beside
tutorial-134c01 and tutorial-6f7a94 said only "no game matches")."""

from __future__ import annotations

import pytest

from engine.core.errors import HexpostError
from tests.saves.conftest import Player, invite_to_tutorial


def test_a_name_in_other_capitals_finds_the_game_and_a_beginning_is_listed(
    alice: Player, bob: Player
) -> None:
    wind = invite_to_tutorial(alice, bob, "Wind of Change")
    other = invite_to_tutorial(alice, bob, "tutorial-1")
    third = invite_to_tutorial(alice, bob, "tutorial-2")
    replica = alice.replica
    assert replica.find("Wind of Change").game_id == wind
    assert replica.find("wind of change").game_id == wind
    assert replica.find("tutorial-1").game_id == other
    with pytest.raises(HexpostError) as begun:
        replica.find("TUTORIAL")
    assert str(begun.value) == (
        "no game matches 'TUTORIAL' (see `hexpost games`); names that begin so: "
        f"tutorial-1 ({other.hex()[:8]}), tutorial-2 ({third.hex()[:8]})"
    )
    with pytest.raises(HexpostError) as one:
        replica.find("wind")  # (one name begins so: still not taken for it)
    assert str(one.value).endswith(f"names that begin so: Wind of Change ({wind.hex()[:8]})")
    with pytest.raises(HexpostError, match=r"^no game matches 'storm' \(see `hexpost games`\)$"):
        replica.find("storm")


def test_an_id_prefix_comes_before_a_name(alice: Player, bob: Player) -> None:
    game = invite_to_tutorial(alice, bob, "x")
    # Eight or more of the id's characters, to its first letter: in capitals another text.
    first_letter = next(n for n, ch in enumerate(game.hex()) if ch.isalpha())
    prefix = game.hex()[: max(8, first_letter + 1)]
    named = invite_to_tutorial(alice, bob, prefix.upper())
    assert alice.replica.find(prefix).game_id == game  # (not the name in other capitals)
    assert alice.replica.find(prefix.upper()).game_id == named  # (its exact name)
