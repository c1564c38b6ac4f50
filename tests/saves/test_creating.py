"""A game is created only with values its rules read as given: an unknown optional rule, a
value of the wrong kind or outside what the rule takes, an address with no ``@``, a reply
window the packet cannot carry, or a name or address a packet may not carry (too long, a
control character) is refused by name, and nothing is stored."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from engine.core.errors import HexpostError
from engine.core.ruleset import OptionValue
from engine.fe import RULESET
from mail.loopback import LoopbackNetwork
from saves import home
from tests.saves.conftest import CHAIN_LENGTH, Player, now


def _create(
    alice: Player,
    options: dict[str, OptionValue] | None = None,
    opponent: str = "bob@example.org",
    hours: int = 72,
    name: str = "",
) -> bytes:
    return alice.replica.create(
        RULESET,
        "the-wind",
        "coalition",
        opponent,
        options=options,
        name=name,
        reply_window_hours=hours,
        now=now(),
        chain_length=CHAIN_LENGTH,
    )


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        (
            {"options": {"damage-rounding": "sideways"}},
            "optional rule 'damage-rounding' takes one of nearest-half-up, nearest-half-down, "
            "down, up, not 'sideways'",
        ),
        (
            {"options": {"peace-income-permille": 5000}},
            "optional rule 'peace-income-permille' takes a whole number from 0 to 1000, not 5000",
        ),
        ({"options": {"orion": 1}}, "optional rule 'orion' takes true or false, not 1"),
        ({"options": {"no-such-rule": True}}, "scenario the-wind has no optional rule"),
        ({"opponent": "bob"}, "the opponent's address 'bob' is not an email address"),
        (
            {"opponent": "Bob <bob@example.org>"},
            "the opponent's address 'Bob <bob@example.org>' holds a name besides the address: "
            "give the address alone, such as bob@example.org",
        ),
        (
            {"opponent": "bob@example.org, carol@example.org"},
            "the opponent's address 'bob@example.org, carol@example.org' is more than one",
        ),
        (
            {"opponent": "Alice@Example.org"},
            "'Alice@Example.org' is your own address: invite the other player's",
        ),
        ({"hours": 0}, "the reply window is 1 to 8784 hours, not 0"),
        (
            {"name": "war\x1b[2J"},
            "the game's name holds a control or formatting character (U+001B at position 4)",
        ),
        ({"name": "x" * 201}, "the game's name is at most 200 characters, not 201"),
        (
            {"opponent": "bob\u202e@example.org"},
            "the opponent's address holds a control or formatting character (U+202E at position 4)",
        ),
    ],
)
def test_a_game_with_a_value_its_rules_do_not_take_is_refused_and_nothing_is_stored(
    alice: Player, kwargs: dict[str, Any], words: str
) -> None:
    with pytest.raises(HexpostError) as caught:
        _create(alice, **kwargs)
    assert str(caught.value).startswith(words)
    assert alice.replica.games() == []


def test_a_game_takes_every_value_its_rules_list(alice: Player) -> None:
    game = _create(
        alice,
        options={"damage-rounding": "down", "peace-income-permille": 0, "orion": True},
        hours=24,
    )
    options = dict(alice.replica.state(game).core.options)
    assert (options["damage-rounding"], options["peace-income-permille"]) == ("down", 0)
    assert options["orion"] is True


def test_an_identity_no_packet_can_carry_can_neither_start_nor_join_a_game(
    alice: Player, network: LoopbackNetwork, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An identity made before `saves.home` checked its name (made here with the check
    switched off) is refused in words when it would sign a genesis or a join."""
    with monkeypatch.context() as patched:
        patched.setattr(home, "text_problem", lambda *_: None)
        eve = Player(tmp_path / "eve", "Eve\x1b[2J", "eve@example.org", network)
    try:
        words = (
            "your identity's name holds a control or formatting character (U+001B at position 4)"
        )
        with pytest.raises(HexpostError, match=re.escape(words)):
            _create(eve)
        game = _create(alice, opponent="eve@example.org")
        alice.sync()
        eve.sync()
        with pytest.raises(HexpostError, match=re.escape(words)):
            eve.replica.accept(game, now=now(), chain_length=CHAIN_LENGTH)
        assert eve.row(game).status == "invited"
    finally:
        eve.close()
