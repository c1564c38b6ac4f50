"""The protocol core against a toy ruleset: properties P1-P10 of the design, one by one."""

from __future__ import annotations

import msgspec
import pytest

from engine.core import entropy
from engine.core.chain import Placement, place
from engine.core.errors import (
    ChainError,
    CommitmentMismatch,
    DesyncError,
    IllegalOrder,
    NotPending,
    OutOfTurn,
    PacketError,
    VersionError,
)
from engine.core.game import apply_packet
from engine.core.owed import pending
from engine.core.packets import (
    PROTOCOL_VERSION,
    Genesis,
    Reveal,
    Turn,
    fingerprint,
    key_id,
    open_packet,
    read_envelope,
    sign_body,
)
from engine.core.ruleset import DecisionKind
from engine.core.state import encode_state, state_hash
from tests.engine.table import Table
from tests.engine.toy import TOY, Roll, Say


def new_table(label: str = "game") -> Table:
    return Table(TOY, "duel", ["north", "south"], label=label)


def replay(table: Table) -> bytes:
    """Apply every packet of a table, from its bytes only, on a fresh state."""
    state = None
    keys: dict[bytes, bytes] = {}
    for packet in table.packets:
        opened = open_packet(packet.data, lambda kid: [keys[kid]] if kid in keys else [])
        if opened.envelope.public_key:
            keys[opened.envelope.key_id] = opened.envelope.public_key
        state = apply_packet(TOY, state, opened).state
    assert state is not None
    return state_hash(state)


def test_genesis_and_join_bind_keys_and_start_the_game() -> None:
    table = new_table()
    assert table.state is not None
    assert [s.joined for s in table.state.core.seats] == [True, True]
    assert table.state.rules is not None
    # The creator owes the acceptance of the joined key first; its orders ride in that packet.
    assert table.owed() == ("north", DecisionKind.ACCEPT, "join")
    after = pending(TOY, table.state)
    assert [(d.seats[0], d.kind, d.step) for d in after[1:]] == [
        ("north", DecisionKind.ORDERS, "talk")
    ]
    table.orders("north", Say("hello"))
    assert table.state.core.unaccepted == ()
    assert [e.kind for e in table.results[-1].events][:1] == ["key-accepted"]


def test_replay_from_bytes_gives_the_same_state_hash() -> None:
    table = new_table()
    table.orders("north", Say("hello"))
    table.orders("south", Say("hi"))
    assert table.state is not None
    assert replay(table) == state_hash(table.state)


def test_order_out_of_turn_is_refused_naming_the_owed_step() -> None:
    table = new_table()
    table.orders("north", Say("hello"))
    with pytest.raises(OutOfTurn, match=r"south owes the next move .*answer"):
        table.orders("north", Say("me again"))


def test_illegal_order_is_refused_with_its_rule_and_nothing_changes() -> None:
    table = new_table()
    before = encode_state(table.state)  # type: ignore[arg-type]
    with pytest.raises(IllegalOrder) as caught:
        table.orders("north", Say(""))
    assert caught.value.rule == "T1"
    assert "order 1" in str(caught.value)
    assert encode_state(table.state) == before  # type: ignore[arg-type]


def test_a_roll_waits_for_the_other_seat_then_both_see_the_same_dice() -> None:
    table = new_table()
    table.orders("north", Roll(2, 6, "capture 305.1"))
    assert table.owed()[:2] == ("south", DecisionKind.ENTROPY)
    with pytest.raises(OutOfTurn):
        table.orders("north", Say("peek"))
    table.entropy_only("south")
    rolls = [e for e in table.events if e.kind == "roll"]
    assert len(rolls) == 1
    dice = rolls[0].data["dice"]
    assert len(dice) == 2 and all(1 <= d <= 6 for d in dice)
    assert rolls[0].data["purpose"] == "capture 305.1"
    assert table.state.rules.last_roll == tuple(dice)  # type: ignore[union-attr]
    assert table.owed()[0] == "north"


def test_dice_depend_on_both_seats_values() -> None:
    values = [b"\x01" * 32, b"\x02" * 32]
    base = entropy.roll_dice(b"g" * 16, "r1/x", values, 20, 6)
    other = entropy.roll_dice(b"g" * 16, "r1/x", [values[0], b"\x03" * 32], 20, 6)
    assert base != other
    assert entropy.roll_dice(b"g" * 16, "r1/x", values, 20, 6) == base


def test_dice_faces_are_fair() -> None:
    counts = [0] * 6
    for i in range(3000):
        for die in entropy.roll_dice(b"g" * 16, f"e{i}", [i.to_bytes(32, "big")], 4, 6):
            counts[die - 1] += 1
    expected = 12000 / 6
    chi2 = sum((c - expected) ** 2 / expected for c in counts)
    assert chi2 < 30, counts  # 5 degrees of freedom: p < 1e-5 for a fair die


def test_secret_step_commit_then_reveal_resolves_with_both_choices() -> None:
    table = new_table()
    table.orders("north", Say("a"))
    table.orders("south", Say("b"))
    assert table.owed() == ("north", DecisionKind.SECRET, "pick")
    table.commit("north", 4)
    assert table.owed() == ("south", DecisionKind.SECRET, "pick")
    table.commit("south", 5, reveal_now=True)
    assert table.owed() == ("north", DecisionKind.REVEAL, "pick")
    table.reveal("north")
    assert table.state.rules.last_pick_total == 9  # type: ignore[union-attr]
    assert table.owed() == ("north", DecisionKind.ORDERS, "talk")


def test_both_seats_may_reveal_after_both_commit() -> None:
    table = new_table()
    table.orders("north", Say("a"))
    table.orders("south", Say("b"))
    table.commit("north", 1)
    table.commit("south", 2)
    assert table.owed() == ("north", DecisionKind.REVEAL, "pick")
    table.reveal("north")
    assert table.owed() == ("south", DecisionKind.REVEAL, "pick")
    table.reveal("south")
    assert table.state.rules.last_pick_total == 3  # type: ignore[union-attr]


def test_early_reveal_before_the_other_seat_commits_is_refused() -> None:
    table = new_table()
    table.orders("north", Say("a"))
    table.orders("south", Say("b"))
    with pytest.raises(NotPending, match="not every seat has committed"):
        table.commit("north", 4, reveal_now=True)


def test_reveal_that_does_not_match_its_commitment_is_refused() -> None:
    table = new_table()
    table.orders("north", Say("a"))
    table.orders("south", Say("b"))
    table.commit("north", 4)
    table.commit("south", 5, reveal_now=True)
    key = pending(TOY, table.state)[0].key  # type: ignore[arg-type]
    salt, _ = table.players["north"].secrets[key]
    with pytest.raises(CommitmentMismatch, match="does not match its commitment"):
        table.write(
            "north",
            Turn(TOY.encode_orders([])),
            reveals=[Reveal(key, salt, entropy.canonical_choice(6))],
        )


def test_an_illegal_secret_choice_is_refused_at_the_reveal() -> None:
    table = new_table()
    table.orders("north", Say("a"))
    table.orders("south", Say("b"))
    table.commit("north", 99)
    with pytest.raises(IllegalOrder, match="1 to 6"):
        table.commit("south", 2, reveal_now=True) and table.reveal("north")
        table.reveal("north")


def test_wrong_state_hash_is_a_desync_naming_the_packet() -> None:
    table = new_table()
    body = table.body("north", Turn(TOY.encode_orders([Say("x")])))
    body = msgspec.structs.replace(body, state_hash=b"\x00" * 32)
    data = sign_body(body, table.players["north"].key)
    packet = open_packet(data, lambda kid: [table.players["north"].public])
    with pytest.raises(DesyncError) as caught:
        apply_packet(TOY, table.state, packet)
    assert caught.value.seq == body.seq
    assert f"desync at packet {body.seq}" in str(caught.value)


def test_every_single_byte_change_of_a_packet_is_refused() -> None:
    table = new_table()
    packet = table.orders("north", Say("a fairly ordinary order text"))
    state_before = table.packets[-2]
    assert state_before
    # Rebuild the state before the packet by replaying the earlier packets.
    state = None
    for earlier in table.packets[:-1]:
        state = apply_packet(TOY, state, earlier).state
    keys = {key_id(p.public): p.public for p in table.players.values()}
    for index in range(len(packet.data)):
        for flip in (0x01, 0x80, 0xFF):
            data = bytearray(packet.data)
            data[index] ^= flip
            with pytest.raises((PacketError, ChainError)):
                opened = open_packet(bytes(data), lambda kid: [keys[kid]] if kid in keys else [])
                apply_packet(TOY, state, opened)


def test_unknown_protocol_version_is_refused_saying_which() -> None:
    table = new_table()
    data = bytearray(table.packets[-1].data)
    assert data[1] == PROTOCOL_VERSION  # array header, then the version as a positive fixint
    data[1] = PROTOCOL_VERSION + 1
    with pytest.raises(VersionError, match=f"protocol version {PROTOCOL_VERSION + 1}"):
        read_envelope(bytes(data))


def test_a_side_record_of_a_kind_not_known_here_is_said_to_be_newer() -> None:
    """Chats, claims and resend asks are five-element arrays led by their kind's name; a later
    hexpost may add a kind. This one names what it got rather than a decoding error, as a
    newer protocol version (so the mail reader keeps it and the inbox says to update)."""
    record = msgspec.msgpack.encode(["poll-vote", 1, b"k" * 8, b"s" * 64, b"a body"])
    with pytest.raises(VersionError, match=r"a 'poll-vote' record.*newer hexpost"):
        read_envelope(record)
    for junk in (  # a kind's name must read as one: anything else is no newer record
        msgspec.msgpack.encode(["Bad Name\n", 1, b"", b"", b""]),
        msgspec.msgpack.encode(["", 1, b"", b"", b""]),
        b"\x95\xa9poll",  # a name cut short
    ):
        with pytest.raises(PacketError) as refused:
            read_envelope(junk)
        assert not isinstance(refused.value, VersionError), junk


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"ruleset_id": "sfb2"}, "ruleset 'sfb2'"),
        ({"ruleset_version": "2.0"}, "ruleset toy 2.0"),
        ({"ruleset_version": "1.9"}, "ruleset toy 1.9"),
        ({"scenario_id": "siege"}, "scenario 'siege'"),
        ({"scenario_hash": b"\x02" * 32}, "scenario 'duel' differs"),
        ({"options": [("laser", True)]}, "optional rule 'laser'"),
    ],
)
def test_genesis_of_an_unknown_ruleset_scenario_or_option_is_refused(
    change: dict[str, object], message: str
) -> None:
    table = new_table()
    genesis = table.packets[0]
    kind = msgspec.structs.replace(genesis.body.kind, **change)
    body = msgspec.structs.replace(genesis.body, kind=kind)
    data = sign_body(body, table.players["north"].key, include_key=True)
    packet = open_packet(data, lambda kid: [])
    with pytest.raises(VersionError, match=message):
        apply_packet(TOY, None, packet)


def test_older_minor_ruleset_version_is_accepted() -> None:
    table = new_table()
    genesis = table.packets[0]
    assert isinstance(genesis.body.kind, Genesis)
    kind = msgspec.structs.replace(genesis.body.kind, ruleset_version="1.0")
    body = msgspec.structs.replace(genesis.body, kind=kind)
    from engine.core import author

    packet, _ = author.write(TOY, None, body, table.players["north"].key)
    assert packet.body.kind.ruleset_version == "1.0"  # type: ignore[union-attr]


def test_entropy_value_must_follow_the_seats_chain() -> None:
    table = new_table()
    body = table.body("north", Turn(TOY.encode_orders([Say("x")])))
    body = msgspec.structs.replace(body, entropy=b"\x07" * 32)
    with pytest.raises(PacketError, match="entropy value does not follow"):
        from engine.core import author

        author.write(TOY, table.state, body, table.players["north"].key)


def test_packet_signed_by_the_wrong_seats_key_is_refused() -> None:
    table = new_table()
    body = table.body("north", Turn(TOY.encode_orders([Say("x")])))
    from engine.core import author

    with pytest.raises(PacketError, match="signed by another key"):
        author.write(TOY, table.state, body, table.players["south"].key)


def test_chain_placement() -> None:
    table = new_table()
    table.orders("north", Say("a"))
    stored = {p.body.seq: (p.packet_id, p.body.seat) for p in table.packets}
    head = table.packets[-1]
    at = stored.get
    assert place(head.body.seq, head.packet_id, head, at) == Placement.DUPLICATE
    other = new_table("other-game")
    other.orders("north", Say("b"))
    other.orders("south", Say("c"))
    far = other.packets[-1]
    assert place(1, table.packets[1].packet_id, far, at) == Placement.FUTURE
    # Same seat, same position, different packet: equivocation.
    twin = Table(TOY, "duel", ["north", "south"], label="game")
    twin.orders("north", Say("a different story"))
    assert place(head.body.seq, head.packet_id, twin.packets[-1], at) == Placement.EQUIVOCATION
    # The next position but naming the wrong parent.
    assert place(head.body.seq - 1, b"\x09" * 32, head, at) == Placement.CONFLICT
    # Below the head, where the store holds nothing: a lost packet, for the caller to check.
    lost = {seq: found for seq, found in stored.items() if seq != head.body.seq}
    assert place(head.body.seq, head.packet_id, head, lost.get) == Placement.LOST


def test_entropy_chain_values_link_and_run_out() -> None:
    chain = entropy.EntropyChain(b"\x05" * 32, 1024)
    previous = chain.anchor
    for index in range(1, 1025):
        value = chain.value(index)
        assert entropy.follows(previous, value)
        previous = value
    with pytest.raises(entropy.EntropyExhausted):
        chain.value(1025)


def test_fingerprint_is_stable_and_readable() -> None:
    text = fingerprint(b"\x01" * 32)
    assert text == fingerprint(b"\x01" * 32)
    assert len(text.split()) == 8


def test_resign_ends_the_game() -> None:
    from engine.core.packets import Resign

    table = new_table()
    table.write("north", Resign("outgunned"))
    assert pending(TOY, table.state) == []  # type: ignore[arg-type]
    with pytest.raises(OutOfTurn, match="game is over"):
        table.orders("south", Say("too late"))


def test_a_resignation_out_of_turn_is_refused_and_changes_nothing() -> None:
    """A modified client cannot end the game while the other seat owes the move: the chain
    takes a resignation, like any packet, only from the seat whose move it is."""
    from engine.core.packets import Resign

    table = new_table()
    before = encode_state(table.state)  # type: ignore[arg-type]
    with pytest.raises(OutOfTurn, match="north owes the next move"):
        table.write("south", Resign("not my move"))
    assert encode_state(table.state) == before  # type: ignore[arg-type]
    assert pending(TOY, table.state)  # type: ignore[arg-type]


def test_a_resignation_may_not_commit_or_reveal() -> None:
    from engine.core.packets import Commit, Resign

    table = new_table()
    before = encode_state(table.state)  # type: ignore[arg-type]
    with pytest.raises(PacketError, match="only a turn packet may commit or reveal"):
        table.write("north", Resign("x"), commits=[Commit("k", b"\x01" * 32)])
    assert encode_state(table.state) == before  # type: ignore[arg-type]


def test_entropy_chain_restores_from_its_checkpoints() -> None:
    seed = b"\x06" * 32
    chain = entropy.EntropyChain(seed, 2048)
    again = entropy.EntropyChain.restore(seed, 2048, chain.checkpoints())
    assert again.anchor == chain.anchor
    assert [again.value(i) for i in (1, 511, 512, 513, 2048)] == [
        chain.value(i) for i in (1, 511, 512, 513, 2048)
    ]
    # Checkpoints that do not match the seed are not trusted: the chain is rebuilt.
    bad = entropy.EntropyChain.restore(seed, 2048, bytes(len(chain.checkpoints())))
    assert bad.value(7) == chain.value(7)
