"""Minor versions of a ruleset: a game is played at the version its genesis names.

A client whose ruleset is a newer minor version of the same major plays an older game at
that game's version, and every packet after the genesis names the game's ruleset and
version, so the other player, still at the older version, reads them. A game begun at a
newer minor version than a client's is refused by that client, by name, before any packet
is applied.
"""

from __future__ import annotations

import msgspec
import pytest

from engine.core.errors import VersionError
from engine.core.game import apply_packet
from engine.core.packets import Turn, VerifiedPacket, open_packet, raw_public_key, sign_body
from engine.core.ruleset import AnyRuleset
from engine.core.state import AnyState, state_hash
from tests.engine.table import Table
from tests.engine.toy import Roll, Say, Toy


class NewerToy(Toy):
    version = "1.3"


def replay(ruleset: AnyRuleset, packets: list[VerifiedPacket]) -> AnyState:
    state = None
    for packet in packets:
        result = apply_packet(ruleset, state, packet)
        assert result.state_hash == packet.body.state_hash
        state = result.state
    assert state is not None
    return state


def test_a_newer_client_plays_an_older_game_at_its_version_and_the_older_client_reads_it() -> None:
    table = Table(Toy(), "duel", ["north", "south"], label="older game")
    table.ruleset = NewerToy()  # north updates hexpost in the middle of the game
    table.orders("north", Roll(1, 6, "greeting"))
    table.entropy_only("south")
    table.orders("north", Say("hello"))
    table.orders("south", Say("hi"))
    assert [p.body.ruleset for p in table.packets[1:]] == ["toy/1.2"] * (len(table.packets) - 1)
    older = replay(Toy(), table.packets)  # south never updated
    newer = replay(NewerToy(), table.packets)
    assert older.core.ruleset_version == newer.core.ruleset_version == "1.2"
    assert older.head == newer.head


def test_an_older_client_refuses_a_game_of_a_newer_minor_version_by_name() -> None:
    table = Table(NewerToy(), "duel", ["north", "south"], label="newer game")
    with pytest.raises(VersionError, match=r"game needs ruleset toy 1\.3; this hexpost has 1\.2"):
        replay(Toy(), table.packets[:1])


def test_a_packet_naming_another_version_than_its_game_s_is_refused() -> None:
    """Attack: in a game begun at 1.2, a packet that names 1.3 (a modified client that
    would have the other side apply the newer rules) is refused by name, and nothing moves."""
    table = Table(Toy(), "duel", ["north", "south"], label="mixed")
    assert table.state is not None
    before = state_hash(table.state)
    body = table.body("north", Turn(Toy().encode_orders([Say("newer rules")])))
    assert body.ruleset == "toy/1.2"
    key = table.players["north"].key
    for tag in ("toy/1.3", "toy/1.1", "duel/1.2"):
        forged = msgspec.structs.replace(body, ruleset=tag)
        packet = open_packet(sign_body(forged, key), lambda _kid: [raw_public_key(key)])
        for client in (Toy(), NewerToy()):
            with pytest.raises(VersionError, match=f"written for ruleset '{tag}'; this game is"):
                apply_packet(client, table.state, packet)
    assert state_hash(table.state) == before
