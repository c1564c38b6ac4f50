"""Attacks on the protocol core by a modified client (issue: trust under attack).

Each test plays the attacker with what any player or onlooker has: the packets of the game
(which travel by mail or a shared folder) and keys of their own. The engine must refuse every
one of these packets whole, leaving the state exactly as it was.
"""

from __future__ import annotations

import msgspec
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine.core import author, entropy
from engine.core.errors import IllegalOrder, OutOfTurn, PacketError
from engine.core.game import apply_packet
from engine.core.owed import describe
from engine.core.packets import (
    MAX_SEQ,
    Body,
    Chat,
    EntropyOnly,
    Join,
    Resign,
    Turn,
    VerifiedPacket,
    key_id,
    open_packet,
    raw_public_key,
    sign_body,
)
from engine.core.rolls import arm
from engine.core.ruleset import Decision, DecisionKind, RollRequest
from engine.core.state import encode_state
from tests.engine.table import Table
from tests.engine.toy import TOY, Roll, Say


def new_table(creator: str = "north") -> Table:
    return Table(TOY, "duel", ["north", "south"], label="trust", creator_seat=creator)


def _forged_join(
    table: Table, seat: str, key: Ed25519PrivateKey, seed: bytes, *, name: str = "Mallory"
) -> bytes:
    """A Join for ``seat`` at the head of the chain, signed by ``key`` with a fresh chain."""
    assert table.state is not None
    chain = entropy.EntropyChain(seed, 512)
    public = raw_public_key(key)
    body = author.new_body(
        TOY,
        table.state,
        game_id=table.game_id,
        seat=seat,
        kind=Join(table.state.genesis_id, name, "mallory@example.net", public, chain.anchor),
        entropy_value=chain.value(1),
    )
    return sign_body(body, key, include_key=True)


def _apply_bytes(table: Table, data: bytes) -> None:
    """What a receiver does with bytes from the wire: verify, then apply at the head."""
    assert table.state is not None
    keys = [s.public_key for s in table.state.core.seats]
    packet = open_packet(data, lambda kid: [k for k in keys if key_id(k) == kid])
    apply_packet(TOY, table.state, packet)


def test_a_stranger_cannot_take_a_seat_mid_game_with_a_join() -> None:
    table = new_table()
    table.orders("north", Say("hello"))  # accepts south's key and talks; south owes now
    assert table.owed()[0] == "south"
    before = encode_state(table.state)  # type: ignore[arg-type]
    mallory = Ed25519PrivateKey.from_private_bytes(b"\x07" * 32)
    data = _forged_join(table, "south", mallory, b"\x08" * 32)
    with pytest.raises(OutOfTurn, match="a join is taken only from a seat that has not joined"):
        _apply_bytes(table, data)
    assert encode_state(table.state) == before  # type: ignore[arg-type]
    south = table.state.core.seat_state("south")  # type: ignore[union-attr]
    assert south.public_key == table.players["south"].public


def test_the_seat_owing_a_roll_cannot_rejoin_to_choose_the_dice() -> None:
    """South owes the entropy that resolves north's 2d6; it grinds a fresh chain offline so
    that its first value makes the dice (6, 6), and tries to re-join with it."""
    table = new_table()
    table.orders("north", Roll(2, 6, "capture 305.1"))
    assert table.owed()[:2] == ("south", DecisionKind.ENTROPY)
    assert table.state is not None
    armed = table.state.core.armed[0]
    north_value = armed.values[0][1]
    chosen = None
    for attempt in range(5000):
        seed = attempt.to_bytes(32, "big")
        value = entropy.EntropyChain(seed, 512).value(1)
        dice = entropy.roll_dice(table.game_id, armed.event, [north_value, value], 2, 6)
        if dice == (6, 6):
            chosen = seed
            break
    assert chosen is not None, "the grinding found no seed for (6, 6)"
    before = encode_state(table.state)
    for key in (
        table.players["south"].key,  # its own bound key, with a new anchor
        Ed25519PrivateKey.from_private_bytes(b"\x09" * 32),  # a new key as well
    ):
        data = _forged_join(table, "south", key, chosen, name="South")
        with pytest.raises((OutOfTurn, PacketError)):
            _apply_bytes(table, data)
        assert encode_state(table.state) == before
    # Nor can it simply reveal the ground value instead of its chain's next value.
    forged = author.new_body(
        TOY,
        table.state,
        game_id=table.game_id,
        seat="south",
        kind=EntropyOnly(),
        entropy_value=entropy.EntropyChain(chosen, 512).value(1),
    )
    with pytest.raises(PacketError, match="does not follow its chain"):
        author.write(TOY, table.state, forged, table.players["south"].key)
    # The honest answer still resolves the roll.
    table.entropy_only("south")
    assert [e for e in table.events if e.kind == "roll"]


def test_the_creator_must_accept_before_a_joiner_who_moves_first() -> None:
    # south creates, north joins; the toy's first step (talk) is north's.
    table = new_table("south")
    assert table.owed()[:2] == ("south", DecisionKind.ACCEPT)
    with pytest.raises(OutOfTurn, match="south owes the next move") as refused:
        table.orders("north", Say("hello"))
    # The protocol's own decisions read as what they ask, not as a step called "join".
    said = str(refused.value)
    assert "south owes the next move (accept the key that joined: " in said, said
    assert "for step" not in said, said
    table.entropy_only("south")  # the acceptance, and nothing else
    accepted = [e for e in table.results[-1].events if e.kind == "key-accepted"]
    assert len(accepted) == 1
    assert accepted[0].data["seat"] == "north"
    assert table.owed()[:2] == ("north", DecisionKind.ORDERS)
    table.orders("north", Say("hello"))


def test_the_creator_declines_a_join_by_resigning() -> None:
    table = new_table()
    table.write("north", Resign("that is not Bob's key"))
    assert table.state is not None
    assert table.state.core.resigned == "north"
    kinds = [e.kind for e in table.results[-1].events]
    assert kinds[:1] == ["key-declined"]
    assert table.state.core.unaccepted == ()


def test_a_join_from_another_address_than_invited_is_flagged() -> None:
    table = new_table()
    join = next(e for e in table.events if e.kind == "join")
    assert "WARNING" not in join.text
    assert join.data["fingerprint"]
    # The same game, but the joiner signs with the address of someone else.
    body = _south_join(table, "Eve", "eve@example.net")
    _, result = author.write(TOY, table.results[0].state, body, table.players["south"].key)
    event = next(e for e in result.events if e.kind == "join")
    assert "WARNING: the invitation went to south@example.org, not eve@example.net" in event.text


def _south_join(table: Table, name: str, address: str) -> Body:
    """South's own join (its key, its chain), with the name and address given, written
    against the state after the genesis."""
    state = table.results[0].state
    player = table.players["south"]
    return author.new_body(
        TOY,
        state,
        game_id=table.game_id,
        seat="south",
        kind=Join(state.genesis_id, name, address, player.public, player.chain.anchor),
        entropy_value=player.chain.value(1),
    )


def _signed_with_seq(table: Table, seq: int) -> bytes:
    """North's next packet, re-labelled with another position and signed again."""
    body = table.body("north", Turn(TOY.encode_orders([Say("x")])))
    return sign_body(msgspec.structs.replace(body, seq=seq), table.players["north"].key)


@pytest.mark.parametrize("seq", [MAX_SEQ + 1, 2**63, 2**64 - 1])
def test_huge_sequence_numbers_are_refused_when_decoded(seq: int) -> None:
    table = new_table()
    data = _signed_with_seq(table, seq)
    public = table.players["north"].public
    with pytest.raises(PacketError, match="malformed packet body"):
        open_packet(data, lambda _kid: [public])


def _packet_with(table: Table, seat: str, kind: object) -> VerifiedPacket:
    body = table.body(seat, kind)  # type: ignore[arg-type]
    data = sign_body(body, table.players[seat].key)
    public = table.players[seat].public
    return open_packet(data, lambda _kid: [public])


@pytest.mark.parametrize(
    "text",
    [
        "clear\x1b[2Jscreen", "bell\x07", "line\nbreak", "rtl\u202eeman", "z\u200bw",
        "a line\n",  # at the very end too (a regular expression's ``$`` lets one through)
    ],
)  # fmt: skip
def test_chat_with_control_characters_is_refused_on_receipt(text: str) -> None:
    table = new_table()
    with pytest.raises(PacketError, match="malformed packet body"):
        _packet_with(table, "north", Chat(text))


@pytest.mark.parametrize("name", ["\x1b]0;pwned\x07", "South\n"])
def test_a_join_name_with_escapes_is_refused_on_receipt(name: str) -> None:
    table = new_table()
    body = _south_join(table, name, "s@x")
    data = sign_body(body, table.players["south"].key, include_key=True)
    with pytest.raises(PacketError, match="malformed packet body"):
        open_packet(data, lambda _kid: [])


def test_a_second_roll_for_the_same_purpose_in_one_step_is_refused() -> None:
    table = new_table()
    table.orders("north", Roll(2, 6, "capture 305.1"))
    table.entropy_only("south")  # resolves it; north still owes talk, and dislikes the dice
    assert table.owed()[:2] == ("north", DecisionKind.ORDERS)
    before = encode_state(table.state)  # type: ignore[arg-type]
    for purpose in ("capture 305.1", "  Capture   305.1 "):
        with pytest.raises(IllegalOrder, match="already rolled for"):
            table.orders("north", Roll(2, 6, purpose))
    assert encode_state(table.state) == before  # type: ignore[arg-type]
    # Another purpose in the same step is a different roll; the same purpose in a later
    # step (the next round's talk) is allowed again.
    table.orders("north", Roll(1, 6, "supply 410.2"))
    table.entropy_only("south")
    table.orders("north", Say("done"))
    table.orders("south", Say("ok"))
    table.commit("north", 3)
    table.commit("south", 4, reveal_now=True)
    table.reveal("north")
    assert table.owed()[:3] == ("north", DecisionKind.ORDERS, "talk")
    table.orders("north", Roll(2, 6, "capture 305.1"))


def test_a_ruleset_may_mark_a_roll_as_rolled_again() -> None:
    table = new_table()
    table.orders("north", Say("hello"))
    assert table.state is not None
    state = table.state
    key = "R1/answer"
    first = arm(state, "south", [RollRequest(1, 6, "round", "answer")], [], key)
    with pytest.raises(IllegalOrder):
        arm(first, "south", [RollRequest(1, 6, "round", "answer")], [], key)
    with pytest.raises(IllegalOrder):  # two in one go
        arm(state, "south", [RollRequest(1, 6, "x", "answer")] * 2, [], key)
    again = arm(first, "south", [RollRequest(1, 6, "round", "answer", again=True)], [], key)
    assert len(again.core.armed) == 2


def test_a_join_owed_reads_as_joining_the_game() -> None:
    join = Decision(("south",), "join", DecisionKind.JOIN, "join", "Join the game")
    assert describe(join) == "join the game"
    orders = Decision(("north",), "talk", DecisionKind.ORDERS, "T1/north/talk", "Talk")
    assert describe(orders) == "orders for step talk (Talk)"
