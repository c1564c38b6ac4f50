"""Faults a home must survive: altered bytes, duplicates, strangers' packets, garbage, a seat
that signs two histories, a lying state hash, a tampered reveal and packets that overtake
their genesis. Each is refused or held without touching the game, or freezes it with proof."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import msgspec
import pytest

from engine.core import author
from engine.core.errors import GameFrozen
from engine.core.packets import (
    MAX_PACKET_SIZE,
    PROTOCOL_VERSION,
    Envelope,
    Kind,
    Reveal,
    Turn,
    key_id,
    sign_body,
)
from engine.core.state import encode_state
from engine.fe import RULESET
from mail.loopback import LoopbackNetwork
from saves import joins
from saves.secrets import owed_reveals
from tests.saves.conftest import (
    CHAIN_LENGTH,
    COALITION_FORCE,
    FORCE,
    Player,
    create_game,
    exchange,
    first_setup,
    kept_secret,
    now,
    owner,
    replace_choice,
    seed_chain,
    start_game,
    to_battle,
)


def _state_bytes(player: Player, game: bytes) -> bytes:
    return encode_state(player.replica.state(game))


def _note(text: str) -> list[dict[str, str]]:
    return [{"type": "note", "text": text}]


def _forge(
    player: Player,
    game: bytes,
    seat: str,
    kind: Kind,
    *,
    state_hash: bytes,
    reveals: list[Reveal] | None = None,
) -> bytes:
    """A packet ``player`` signs with its real key and entropy, skipping its engine's checks."""
    state = player.replica.state(game)
    index = state.core.seat_state(seat).entropy_index + 1
    body = author.new_body(
        RULESET,
        state,
        game_id=game,
        seat=seat,
        kind=kind,
        entropy_value=seed_chain(player, game, seat).value(index),
        reveals=reveals or [],
        written_at=now(),
    )
    body = msgspec.structs.replace(body, state_hash=state_hash)
    identity = player.home.identity(unlock=True)
    assert identity is not None and identity.key is not None
    return sign_body(body, identity.key)


# --- 2. every single-byte change ---------------------------------------------------------------


def test_every_single_byte_change_of_a_packet_is_refused(
    alice: Player, bob: Player, game: bytes
) -> None:
    sub = alice.replica.submit(game, [{"type": "done", "note": "flip me"}], now=now())
    data = alice.packet(game, sub.seq)
    assert isinstance(alice.opened(game, sub.seq).body.kind, Turn)
    before, state_before = bob.snapshot(game), _state_bytes(bob, game)

    seen: Counter[str] = Counter()
    for index in range(len(data)):
        mutated = data[:index] + bytes([data[index] ^ 0x01]) + data[index + 1 :]
        outcome = bob.replica.receive(mutated, source=f"flip {index}", now=now())
        assert outcome.status in ("rejected", "parked"), (index, outcome)
        assert outcome.applied == [], index
        row = bob.row(game)
        assert (row.head_seq, row.state_hash) == (before.head_seq, before.state_hash), index
        seen[outcome.status] += 1
    assert bob.snapshot(game) == before
    assert _state_bytes(bob, game) == state_before
    assert seen["rejected"] > len(data) // 2
    assert seen["parked"] == 8, "exactly the key id's bytes name an unknown signer"

    # The genuine bytes still apply, and nothing parked or refused above comes back to life.
    outcome = bob.replica.receive(data, source="genuine", now=now())
    assert outcome.applied == [sub.seq]
    assert bob.row(game).head_seq == sub.seq
    assert bob.row(game).state_hash == alice.row(game).state_hash
    assert bob.count("packets", game) == before.packets + 1
    assert bob.replica.verify(game) == alice.replica.verify(game)


def test_every_single_byte_change_of_a_genesis_is_refused(
    tmp_path: Path, network: LoopbackNetwork, alice: Player
) -> None:
    """A genesis carries its creator's key, so it cannot lean on a known key: still refused."""
    game = create_game(alice)
    data = alice.packet(game, 0)
    fresh = Player(tmp_path / "bob-fresh", "Bob", "bob@example.org", network)
    try:
        for index in range(len(data)):
            mutated = data[:index] + bytes([data[index] ^ 0x01]) + data[index + 1 :]
            outcome = fresh.replica.receive(mutated, source=f"flip {index}", now=now())
            assert outcome.status in ("rejected", "parked"), (index, outcome)
            assert outcome.applied == [], index
        assert fresh.replica.games() == []
        assert fresh.count("packets") == 0
        assert fresh.replica.receive(data, source="genuine", now=now()).status == "invitation"
        assert fresh.row(game).head_seq == 0
    finally:
        fresh.close()


def test_out_of_turn_and_impersonating_packets_are_refused(
    alice: Player, bob: Player, game: bytes
) -> None:
    """Validly signed, but wrong: Bob writes when Alice owes, then writes in Alice's seat."""
    before = bob.snapshot(game)
    forged = _forge(bob, game, "alliance", Turn(), state_hash=bytes(32))
    body = msgspec.msgpack.decode(msgspec.msgpack.decode(forged, type=Envelope).body)
    assert body["seat"] == "alliance"
    outcome = bob.replica.receive(forged, source="test", now=now())
    assert outcome.status == "rejected"
    assert "coalition owes the next move" in outcome.detail
    assert bob.snapshot(game) == before

    state = bob.replica.state(game)
    identity = bob.home.identity(unlock=True)
    assert identity is not None and identity.key is not None
    body_c = author.new_body(
        RULESET,
        state,
        game_id=game,
        seat="coalition",
        kind=Turn(),
        entropy_value=bytes(32),
    )
    outcome = bob.replica.receive(sign_body(body_c, identity.key), source="test", now=now())
    assert outcome.status == "rejected"
    assert "signed by another key" in outcome.detail
    assert bob.snapshot(game) == before


# --- 3. duplicates -------------------------------------------------------------------------------


def test_duplicates_change_nothing(alice: Player, bob: Player, game: bytes) -> None:
    sub = alice.replica.submit(game, _note("once"), now=now())
    data = alice.packet(game, sub.seq)
    assert bob.replica.receive(data, source="test", now=now()).applied == [sub.seq]
    before = (bob.snapshot(game), bob.row(game).unread, _state_bytes(bob, game))
    for seq in range(sub.seq + 1):
        packet = alice.packet(game, seq)  # includes Bob's own join, coming back to him
        for _ in range(2):
            outcome = bob.replica.receive(packet, source="again", now=now())
            assert (outcome.status, outcome.seq, outcome.applied) == ("duplicate", seq, [])
    assert (bob.snapshot(game), bob.row(game).unread, _state_bytes(bob, game)) == before
    assert bob.count("rejected") == 0
    assert bob.count("evidence") == 0
    # Alice sees her own packets (and Bob's) again the same way.
    alice_before = alice.snapshot(game)
    for seq in range(sub.seq + 1):
        outcome = alice.replica.receive(alice.packet(game, seq), source="echo", now=now())
        assert outcome.status == "duplicate"
    assert alice.snapshot(game) == alice_before


# --- 4. strangers' packets and garbage -----------------------------------------------------------


def test_packets_of_another_game_are_ignored(
    tmp_path: Path, network: LoopbackNetwork, alice: Player, bob: Player, game: bytes
) -> None:
    carol = Player(tmp_path / "carol", "Carol", "carol@example.org", network)
    try:
        other = create_game(alice, opponent="carol@example.org", name="other")
        assert carol.replica.receive(alice.packet(other, 0), source="t", now=now()).status == (
            "invitation"
        )
        carol.replica.accept(other, now=now(), chain_length=CHAIN_LENGTH)
        assert alice.replica.receive(carol.packet(other, 1), source="t", now=now()).applied == [1]
        joins.accept(alice.replica, other, now=now())
        alice.replica.submit(other, _note("not for Bob"), now=now())
        strangers = [alice.packet(other, seq) for seq in range(3)]
    finally:
        carol.close()

    before = (bob.snapshot(game), _state_bytes(bob, game), bob.replica.games())
    statuses = [bob.replica.receive(d, source="t", now=now()).status for d in strangers]
    # The genesis is not for Bob; the others are kept aside (parked) in case an invitation to
    # their game reaches this home later. None of them touches Bob's game.
    assert statuses == ["ignored", "parked", "parked"]
    assert (bob.snapshot(game), _state_bytes(bob, game), bob.replica.games()) == before
    assert [row.game_id for row in bob.replica.games()] == [game]
    assert bob.count("packets") == bob.count("packets", game)


def test_garbage_is_refused_without_touching_the_game(
    alice: Player, bob: Player, game: bytes
) -> None:
    before = (bob.snapshot(game), _state_bytes(bob, game), bob.replica.games())
    genuine = alice.packet(game, 1)
    envelope = msgspec.msgpack.decode(genuine, type=Envelope)
    alice_kid = key_id(alice.public_key)
    garbage = [
        b"",
        b"\x00",
        b"hello, this is not a packet",
        hashlib.sha256(b"noise").digest() * 20,
        msgspec.msgpack.encode({"version": 1, "body": b"x"}),
        msgspec.msgpack.encode([PROTOCOL_VERSION, alice_kid, bytes(64), b"\x80"]),
        msgspec.msgpack.encode([PROTOCOL_VERSION + 1, alice_kid, bytes(64), b"\x80"]),
        msgspec.msgpack.encode([PROTOCOL_VERSION, alice_kid, bytes(63), b"\x80"]),
        msgspec.msgpack.encode(
            msgspec.structs.replace(envelope, signature=bytes(64), public_key=b"")
        ),
        genuine[:-1],
        genuine + b"\x00",
        b"\x95" + b"\xff" * (MAX_PACKET_SIZE + 1),
    ]
    for data in garbage:
        outcome = bob.replica.receive(data, source="garbage", now=now())
        assert outcome.status in ("rejected", "parked"), (data[:20], outcome)
        assert outcome.applied == []
    stranger = msgspec.msgpack.encode([PROTOCOL_VERSION, b"\x01" * 8, bytes(64), b"\x80"])
    assert bob.replica.receive(stranger, source="garbage", now=now()).status == "parked"
    assert (bob.snapshot(game), _state_bytes(bob, game), bob.replica.games()) == before
    assert bob.replica.receive(genuine, source="t", now=now()).status == "duplicate"


# --- 6. equivocation -----------------------------------------------------------------------------


def test_equivocation_freezes_the_game_and_keeps_both_packets(
    tmp_path: Path, network: LoopbackNetwork, alice: Player, bob: Player, game: bytes
) -> None:
    twin = alice.copy_home(tmp_path / "alice-copy", "AliceCopy", network)
    try:
        a = alice.replica.submit(game, _note("I attack"), now=now())
        b = twin.replica.submit(game, _note("I retreat"), now=now())
        assert a.seq == b.seq
        assert a.packet_id != b.packet_id
        first, second = alice.packet(game, a.seq), twin.packet(game, b.seq)
    finally:
        twin.close()

    assert bob.replica.receive(first, source="t", now=now()).applied == [a.seq]
    outcome = bob.replica.receive(second, source="t", now=now())
    assert (outcome.status, outcome.seq, outcome.applied) == ("equivocation", a.seq, [])
    row = bob.row(game)
    assert row.frozen is not None
    assert "equivocation" in row.frozen
    assert f"coalition signed two different packets for position {a.seq}" in row.frozen
    assert row.head_seq == a.seq
    evidence = bob.replica.store.all(
        "SELECT seq, kind, packet_a, packet_b FROM evidence WHERE game_id = ?", (game,)
    )
    assert evidence == [(a.seq, "equivocation", first, second)]
    before = bob.snapshot(game)

    with pytest.raises(GameFrozen, match="equivocation"):
        bob.replica.submit(game, _note("anything"), now=now())
    assert bob.replica.auto_replies(now()) == ([], [])

    # The same proof again, or the first packet again, changes nothing.
    assert bob.replica.receive(first, source="t", now=now()).status == "duplicate"
    again = bob.replica.receive(second, source="again", now=now())
    assert again.status == "equivocation"
    assert bob.count("evidence", game) == 1
    assert bob.snapshot(game) == before

    # Later packets of either history are held, never applied.
    later = alice.replica.submit(game, _note("and then"), now=now())
    outcome = bob.replica.receive(alice.packet(game, later.seq), source="t", now=now())
    assert (outcome.status, outcome.applied) == ("buffered", [])
    assert "frozen" in outcome.detail
    assert bob.row(game).head_seq == a.seq
    assert bob.count("packets", game) == before.packets

    # Alice's own home, shown her twin's packet, keeps the same proof against her own seat.
    assert alice.replica.receive(second, source="t", now=now()).status == "equivocation"
    assert alice.row(game).frozen is not None


def test_equivocation_between_two_buffered_packets(
    tmp_path: Path, network: LoopbackNetwork, alice: Player, bob: Player, game: bytes
) -> None:
    twin = alice.copy_home(tmp_path / "alice-copy", "AliceCopy", network)
    try:
        a1 = alice.replica.submit(game, _note("a1"), now=now())
        a2 = alice.replica.submit(game, _note("a2"), now=now())
        twin.replica.submit(game, _note("b1"), now=now())
        b2 = twin.replica.submit(game, _note("b2"), now=now())
        assert a2.seq == b2.seq == a1.seq + 1
        first, second = alice.packet(game, a2.seq), twin.packet(game, b2.seq)
    finally:
        twin.close()

    head = bob.row(game).head_seq
    assert bob.replica.receive(first, source="t", now=now()).status == "buffered"
    outcome = bob.replica.receive(second, source="t", now=now())
    assert (outcome.status, outcome.seq) == ("equivocation", a2.seq)
    row = bob.row(game)
    assert row.frozen is not None
    assert "equivocation" in row.frozen
    assert row.head_seq == head
    evidence = bob.replica.store.all(
        "SELECT seq, packet_a, packet_b FROM evidence WHERE game_id = ?", (game,)
    )
    assert evidence == [(a2.seq, first, second)]

    # Filling the gap applies nothing: the game is frozen.
    outcome = bob.replica.receive(alice.packet(game, a1.seq), source="t", now=now())
    assert (outcome.status, outcome.applied) == ("buffered", [])
    assert bob.row(game).head_seq == head
    with pytest.raises(GameFrozen):
        bob.replica.submit(game, _note("x"), now=now())


# --- 7. desync -----------------------------------------------------------------------------------


def test_a_wrong_state_hash_is_a_desync_that_freezes_the_game(
    alice: Player, bob: Player, game: bytes
) -> None:
    before, state_before = bob.snapshot(game), _state_bytes(bob, game)
    seq = before.head_seq + 1
    kind = Turn(RULESET.encode_orders(RULESET.parse_orders(_note("trust me"))))
    lie = _forge(alice, game, "coalition", kind, state_hash=b"\0" * 32)

    outcome = bob.replica.receive(lie, source="t", now=now())
    assert (outcome.status, outcome.seq, outcome.applied) == ("desync", seq, [])
    assert f"packet {seq}" in outcome.detail
    assert "0" * 16 in outcome.detail
    row = bob.row(game)
    assert row.frozen is not None
    assert row.frozen.startswith("desync")
    assert f"packet {seq}" in row.frozen
    assert row.head_seq == before.head_seq
    assert _state_bytes(bob, game) == state_before
    assert bob.count("packets", game) == before.packets
    evidence = bob.replica.store.all(
        "SELECT seq, kind, packet_a, packet_b FROM evidence WHERE game_id = ?", (game,)
    )
    assert evidence == [(seq, "desync", lie, None)]
    with pytest.raises(GameFrozen, match="desync"):
        bob.replica.submit(game, _note("x"), now=now())

    # A different packet from the same seat for that position is not merely held: Alice has
    # now signed two packets for one position, which is evidence of its own (issue 11, 12).
    honest = alice.replica.submit(game, _note("trust me"), now=now())
    data = alice.packet(game, honest.seq)
    outcome = bob.replica.receive(data, source="t", now=now())
    assert (outcome.status, outcome.applied, outcome.attention) == ("equivocation", [], True)
    assert bob.row(game).head_seq == before.head_seq
    kinds = bob.replica.store.all(
        "SELECT kind, packet_a, packet_b FROM evidence WHERE game_id = ? ORDER BY id", (game,)
    )
    assert kinds == [("desync", lie, None), ("equivocation", lie, data)]
    # The very same disputed packet again is no new evidence.
    assert bob.replica.receive(lie, source="t", now=now()).status != "equivocation"


# --- 9. a tampered reveal ------------------------------------------------------------------------


def test_a_tampered_reveal_is_refused_by_the_other_side(
    game: bytes, players: dict[str, Player]
) -> None:
    to_battle(players, game)
    first, second = owner(players, game)
    first.replica.submit(game, [{"type": "secret", "choice": FORCE}], now=now())
    exchange(first, second)
    two = second.replica.submit(game, [{"type": "secret", "choice": COALITION_FORCE}], now=now())
    outcome = first.replica.receive(second.packet(game, two.seq), source="t", now=now())
    assert outcome.applied == [two.seq]

    store = first.replica.store
    key, seat, _, honest_choice = kept_secret(first, game)
    replace_choice(first, game, msgspec.msgpack.encode("something else entirely"))
    state = first.replica.state(game)
    reveals = owed_reveals(store, game, RULESET, state, seat, first.key)
    assert [r.key for r in reveals] == [key]
    assert reveals[0].choice != honest_choice
    tampered = _forge(first, game, seat, Turn(), state_hash=bytes(32), reveals=reveals)

    before, state_before = second.snapshot(game), _state_bytes(second, game)
    outcome = second.replica.receive(tampered, source="t", now=now())
    assert outcome.status == "rejected"
    assert "does not match its commitment" in outcome.detail
    assert second.snapshot(game) == before
    assert _state_bytes(second, game) == state_before
    assert second.row(game).frozen is None

    # With the honest choice back in place, the automatic reveal goes through.
    replace_choice(first, game, honest_choice)
    exchange(first, second)
    assert second.row(game).head_seq == two.seq + 1
    assert first.replica.verify(game) == second.replica.verify(game)


# --- 11. parking ---------------------------------------------------------------------------------


def test_a_packet_that_overtakes_its_genesis_is_parked_then_applied(
    tmp_path: Path, network: LoopbackNetwork, alice: Player, bob: Player, joined: bytes
) -> None:
    """Bob's second home (same address, its own key) gets the game's packets out of order."""
    game = joined
    turn = alice.replica.submit(game, first_setup(alice, game), now=now())
    laptop = Player(tmp_path / "bob-laptop", "BobLaptop", "bob@example.org", network)
    try:
        rep = laptop.replica
        outcome = rep.receive(alice.packet(game, turn.seq), source="t", now=now())
        assert outcome.status == "parked"
        assert laptop.count("parked") == 1
        assert rep.games() == []

        outcome = rep.receive(alice.packet(game, 0), source="t", now=now())
        assert outcome.status == "invitation"
        assert laptop.count("parked") == 0, "the genesis made Alice's key known"
        assert laptop.count("buffered", game) == 1, "packet 2 now waits only for packet 1"

        outcome = rep.receive(alice.packet(game, 1), source="t", now=now())
        assert (outcome.status, outcome.applied) == ("applied", [1, turn.seq])
        assert laptop.row(game).head_seq == turn.seq
        assert rep.verify(game) == alice.replica.verify(game)
    finally:
        laptop.close()


def test_a_join_that_overtakes_its_genesis_is_not_lost(
    tmp_path: Path, network: LoopbackNetwork, alice: Player, bob: Player, joined: bytes
) -> None:
    game = joined
    turn = alice.replica.submit(game, first_setup(alice, game), now=now())
    laptop = Player(tmp_path / "bob-laptop", "BobLaptop", "bob@example.org", network)
    try:
        rep = laptop.replica
        order = [turn.seq, 1, 0]
        statuses = [
            rep.receive(alice.packet(game, seq), source=f"p{seq}", now=now()).status
            for seq in order
        ]
        assert statuses[:2] == ["parked", "parked"]
        assert statuses[2] == "invitation"
        assert laptop.row(game).head_seq == turn.seq
        assert laptop.count("parked") == 0
        assert rep.verify(game) == alice.replica.verify(game)
    finally:
        laptop.close()


def test_an_overtaking_packet_by_a_known_signer_is_not_lost(
    tmp_path: Path, network: LoopbackNetwork, alice: Player, bob: Player, joined: bytes
) -> None:
    game = joined
    turn = alice.replica.submit(game, first_setup(alice, game), now=now())
    earlier = create_game(alice, name="earlier")
    laptop = Player(tmp_path / "bob-laptop", "BobLaptop", "bob@example.org", network)
    try:
        rep = laptop.replica
        # An older invitation from Alice makes her key known to this home.
        assert rep.receive(alice.packet(earlier, 0), source="t", now=now()).status == "invitation"
        outcome = rep.receive(alice.packet(game, turn.seq), source="t", now=now())
        assert outcome.status == "parked", outcome
    finally:
        laptop.close()


def test_a_damaged_kept_secret_stops_only_its_own_games_reply(
    game: bytes, players: dict[str, Player], alice: Player, bob: Player
) -> None:
    # A second game where Alice asks for dice, so Bob will owe entropy there.
    other = start_game(alice, bob)
    to_battle(players, game)  # the alliance (Bob) attacks, so commits first and reveals later
    assert owner(players, game)[0] is bob
    bob.replica.submit(game, [{"type": "secret", "choice": FORCE}], now=now())
    replace_choice(bob, game, msgspec.msgpack.encode("something else entirely"))
    exchange(bob, alice)
    alice.replica.submit(game, [{"type": "secret", "choice": COALITION_FORCE}], now=now())
    alice.replica.submit(other, [{"type": "roll", "dice": "1d6", "purpose": "x"}], now=now())
    alice.sync()
    report = bob.sync()  # takes in both packets, then writes what it owes automatically
    assert any("no automatic reply written" in p and "match" in p for p in report.problems)
    assert bob.row(other).head_seq == alice.row(other).head_seq + 1, "the roll was answered"
    assert bob.row(game).frozen is None
