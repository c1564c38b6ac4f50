"""An invitee who does not want to play says so with a join that declines (protocol: joining).

Before, an unwanted invitation had no answer: the invitee could only ignore it, and the
creator's game waited for a join that never came. A join that declines binds the invitee's key
to its seat like any join, so the creator sees who answered, and ends the game before it began.
These tests play both the honest invitee and a modified client.
"""

from __future__ import annotations

import msgspec
import pytest

from engine.core import author
from engine.core.errors import ChainError, OutOfTurn, PacketError
from engine.core.game import apply_packet
from engine.core.owed import owed_first, pending
from engine.core.packets import (
    PROTOCOL_VERSION,
    SIGNATURE_DOMAIN,
    Body,
    Envelope,
    Join,
    Resign,
    encode_body,
    key_id,
    open_packet,
    sign_body,
)
from engine.core.state import AnyState, encode_state
from tests.engine.table import Table
from tests.engine.toy import TOY, Say


def _after_genesis() -> tuple[Table, AnyState]:
    table = Table(TOY, "duel", ["north", "south"], label="declines")
    return table, table.results[0].state


def _south_answer(table: Table, state: AnyState, join: Join) -> Body:
    player = table.players["south"]
    return author.new_body(
        TOY,
        state,
        game_id=table.game_id,
        seat="south",
        kind=join,
        entropy_value=player.chain.value(1),
    )


def _declining(table: Table, state: AnyState, reason: str = "no time this winter") -> Join:
    player = table.players["south"]
    return Join(
        state.genesis_id,
        "South",
        "south@example.org",
        player.public,
        player.chain.anchor,
        declines=True,
        reason=reason,
    )


def _apply_wire(state: AnyState, data: bytes) -> AnyState:
    """What the creator's client does with the bytes: verify, then apply at the head."""
    packet = open_packet(data, lambda kid: [])  # a join carries its own key
    return apply_packet(TOY, state, packet).state


def test_a_join_that_declines_ends_the_game_before_it_began() -> None:
    table, state = _after_genesis()
    body = _south_answer(table, state, _declining(table, state))
    packet, _ = author.write(TOY, state, body, table.players["south"].key)
    # What the creator's client does with the bytes: verify, then apply (hash checked).
    result = apply_packet(TOY, state, open_packet(packet.data, lambda kid: []))
    core = result.state.core
    assert core.resigned == "south"
    assert core.unaccepted == ()  # nothing left for the creator to accept
    assert result.state.rules is None  # the game never started
    assert pending(TOY, result.state) == []
    assert owed_first(TOY, result.state) is None
    south = core.seat_state("south")
    assert south.public_key == table.players["south"].public  # who answered is on record
    kinds = [event.kind for event in result.events]
    assert kinds == ["declined"]
    assert "South <south@example.org> declined the invitation" in result.events[0].text
    assert "no time this winter" in result.events[0].text
    assert result.events[0].data["fingerprint"]


def test_after_a_decline_nobody_may_write() -> None:
    table, state = _after_genesis()
    body = _south_answer(table, state, _declining(table, state))
    _, result = author.write(TOY, state, body, table.players["south"].key)
    after = result.state
    north = table.players["north"]
    resign = author.new_body(
        TOY,
        after,
        game_id=table.game_id,
        seat="north",
        kind=Resign("too late"),
        entropy_value=north.chain.value(1),
    )
    data = sign_body(resign, north.key)
    packet = open_packet(data, lambda kid: [north.public] if kid == key_id(north.public) else [])
    with pytest.raises(OutOfTurn, match="the game is over"):
        apply_packet(TOY, after, packet)


def test_an_ordinary_join_encodes_as_before() -> None:
    """The two new fields are left out at their defaults, so every join signed before they
    existed keeps its bytes, its id and its signature."""
    table, _ = _after_genesis()
    join = table.packets[1].body.kind
    assert isinstance(join, Join) and not join.declines
    encoded = msgspec.msgpack.encode(join)
    assert b"declines" not in encoded and b"reason" not in encoded


def test_a_join_naming_its_defaults_is_refused_as_not_canonical() -> None:
    """A modified client writes ``declines: false`` out: the same meaning in other bytes,
    which would give one join two ids. It is refused, as any non-canonical body is."""
    table, _ = _after_genesis()
    honest = table.packets[1].body
    raw = msgspec.msgpack.decode(encode_body(honest))
    raw["kind"]["declines"] = False
    forged = msgspec.msgpack.encode(raw)

    key = table.players["south"].key
    envelope = Envelope(
        PROTOCOL_VERSION,
        key_id(table.players["south"].public),
        key.sign(SIGNATURE_DOMAIN + forged),
        forged,
        table.players["south"].public,
    )
    with pytest.raises(PacketError, match="not canonically encoded"):
        open_packet(msgspec.msgpack.encode(envelope), lambda kid: [])


def test_a_reason_without_declining_is_refused() -> None:
    table, state = _after_genesis()
    join = msgspec.structs.replace(_declining(table, state), declines=False)
    body = _south_answer(table, state, join)
    before = encode_state(state)
    with pytest.raises(PacketError, match="only a join that declines carries a reason"):
        _apply_wire(state, sign_body(body, table.players["south"].key, include_key=True))
    assert encode_state(state) == before


def test_a_seat_that_joined_cannot_decline_later() -> None:
    """Once south joined and play began, a declining join is a join like any other: refused,
    so no onlooker with the invitation can end a running game."""
    table = Table(TOY, "duel", ["north", "south"], label="declines")
    table.orders("north", Say("hello"))
    state = table.state
    assert state is not None
    body = _south_answer(table, state, _declining(table, state))
    with pytest.raises(OutOfTurn, match="a join is taken only from a seat that has not joined"):
        _apply_wire(state, sign_body(body, table.players["south"].key, include_key=True))


def test_a_decline_for_another_game_is_refused() -> None:
    table, state = _after_genesis()
    join = msgspec.structs.replace(_declining(table, state), genesis_id=bytes(32))
    body = _south_answer(table, state, join)
    with pytest.raises(ChainError, match="another game's genesis"):
        _apply_wire(state, sign_body(body, table.players["south"].key, include_key=True))


def test_a_decline_signed_by_another_key_than_it_names_is_refused() -> None:
    table, state = _after_genesis()
    body = _south_answer(table, state, _declining(table, state))
    north = table.players["north"]  # signs, but the join names south's key
    with pytest.raises(PacketError):
        _apply_wire(state, sign_body(body, north.key, include_key=True))
