"""Evidence of a frozen game as a file anyone can check: built from a real equivocation (a seat
signs two different packets for one position) and a real desync (a packet with a false state
hash), checked with the engine alone, and refused whenever it has been tampered with: one byte
changed, a packet by another key, the same packet twice, packets of two positions, a binding
packet of another game. Export and import keep the evidence and the freeze."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from engine.core import author
from engine.core.errors import HexpostError
from engine.core.packets import Body, Turn, fingerprint, read_envelope, sign_body
from engine.core.state import encode_state
from engine.fe import RULESET
from mail.loopback import LoopbackNetwork
from saves import evidence
from saves.archive import Archive, export_game, import_game
from saves.evidence import EvidenceRefused, Piece
from saves.home import Home
from saves.keys import generate_identity
from tests.saves.conftest import (
    Player,
    create_game,
    exchange,
    now,
    start_game,
)


def _turn(text: str) -> Turn:
    return Turn(RULESET.encode_orders(RULESET.parse_orders([{"type": "note", "text": text}])))


def _key(player: Player):  # type: ignore[no-untyped-def]
    identity = player.home.identity(unlock=True)
    assert identity is not None and identity.key is not None
    return identity.key


def _two_histories(
    alice: Player, game: bytes, twin_home: Path, network: LoopbackNetwork
) -> tuple[bytes, bytes]:
    """Two packets Alice's key signs for the same next position, each valid on its own: her
    home and a copy of it (same key, same entropy seed) each write a different move."""
    twin = alice.copy_home(twin_home, "AliceCopy", network)
    try:
        a = alice.replica.submit(game, [{"type": "note", "text": "I attack"}], now=now())
        b = twin.replica.submit(game, [{"type": "note", "text": "I retreat"}], now=now())
        assert a.seq == b.seq and a.packet_id != b.packet_id
        return alice.packet(game, a.seq), twin.packet(game, b.seq)
    finally:
        twin.close()


@pytest.fixture
def equivocation(
    tmp_path: Path, network: LoopbackNetwork, alice: Player, bob: Player, game: bytes
) -> tuple[bytes, bytes]:
    """Bob's home holds a game frozen by Alice's two packets for one position."""
    first, second = _two_histories(alice, game, tmp_path / "alice-copy", network)
    assert bob.replica.receive(first, source="t", now=now()).status == "applied"
    assert bob.replica.receive(second, source="t", now=now()).status == "equivocation"
    return first, second


def _piece(player: Player, game: bytes) -> Piece:
    found = evidence.pieces_of(player.replica.store, game)
    assert len(found) == 1
    return found[0][1]


def _refused(piece: Piece, *needles: str) -> str:
    with pytest.raises(EvidenceRefused) as caught:
        evidence.check_file(evidence.encode_file([piece]))
    for needle in needles:
        assert needle in caught.value.message, (needle, caught.value.message)
    return caught.value.message


# --- equivocation --------------------------------------------------------------------------------


def test_an_equivocation_file_proves_which_key_signed_both_packets(
    alice: Player, bob: Player, game: bytes, equivocation: tuple[bytes, bytes]
) -> None:
    first, second = equivocation
    seq = bob.row(game).head_seq
    rows = evidence.stored(bob.replica.store, game)
    assert [(r.kind, r.seq, r.first, r.second) for r in rows] == [
        ("equivocation", seq, first, second)
    ]
    piece = _piece(bob, game)
    assert (piece.kind, piece.seq, piece.seat, piece.packets) == (
        "equivocation",
        seq,
        "coalition",
        [first, second],
    )
    assert piece.binding == [bob.packet(game, 0)], "Alice created the game: her genesis binds her"

    data = evidence.encode_file([piece])
    (proof,) = evidence.check_file(data)
    ids = tuple(evidence.packet_ids(rows[0]))
    assert (proof.kind, proof.seat, proof.seq, proof.packet_ids) == (
        "equivocation",
        "coalition",
        seq,
        ids,
    )
    assert proof.public_key == alice.public_key
    assert proof.fingerprint == fingerprint(alice.public_key)
    assert (proof.name, proof.address) == ("Alice", "alice@example.org")
    line = evidence.verdict_lines(proof)[0]
    assert line == (
        f"PROOF: seat coalition, key fingerprint {fingerprint(alice.public_key)}, signed two "
        f"different packets for position {seq}: ids {ids[0].hex()[:16]} and {ids[1].hex()[:16]}"
    )


def test_the_joiner_is_bound_by_the_genesis_and_its_join(
    alice: Player, bob: Player, game: bytes
) -> None:
    """Bob's key is bound by his join: the binding holds the chain up to it."""
    state = bob.replica.state(game)
    seq = state.core.seq + 1
    packets = []
    for text in ("one", "two"):
        body = author.new_body(
            RULESET, state, game_id=game, seat="alliance", kind=_turn(text), entropy_value=bytes(32)
        )
        # Bob does not owe this move, so his engine would refuse it; signed as a modified client.
        body = msgspec.structs.replace(body, state_hash=bytes(32))
        packets.append(sign_body(body, _key(bob)))
    piece = evidence.make_piece(
        evidence.chain_of(alice.replica.store, game), game, "equivocation", seq, *packets
    )
    assert piece.binding == [alice.packet(game, 0), alice.packet(game, 1)]
    (proof,) = evidence.check_file(evidence.encode_file([piece]))
    assert (proof.seat, proof.public_key, proof.name) == ("alliance", bob.public_key, "Bob")


def test_two_early_packets_for_one_position_make_evidence_too(
    tmp_path: Path, network: LoopbackNetwork, alice: Player, bob: Player, game: bytes
) -> None:
    """Found while both wait for the packet before them: the file proves it all the same."""
    twin = alice.copy_home(tmp_path / "alice-copy", "AliceCopy", network)
    try:
        alice.replica.submit(game, [{"type": "note", "text": "a1"}], now=now())
        a2 = alice.replica.submit(game, [{"type": "note", "text": "a2"}], now=now())
        twin.replica.submit(game, [{"type": "note", "text": "b1"}], now=now())
        b2 = twin.replica.submit(game, [{"type": "note", "text": "b2"}], now=now())
        first, second = alice.packet(game, a2.seq), twin.packet(game, b2.seq)
    finally:
        twin.close()
    assert bob.replica.receive(first, source="t", now=now()).status == "buffered"
    assert bob.replica.receive(second, source="t", now=now()).status == "equivocation"
    assert bob.row(game).head_seq < a2.seq
    (proof,) = evidence.check_file(evidence.encode_file([_piece(bob, game)]))
    assert (proof.seat, proof.seq, proof.public_key) == ("coalition", a2.seq, alice.public_key)


def test_every_single_byte_change_of_an_equivocation_file_is_refused(
    bob: Player, game: bytes, equivocation: tuple[bytes, bytes]
) -> None:
    data = evidence.encode_file([_piece(bob, game)])
    evidence.check_file(data)
    refused = 0
    for index in range(len(data)):
        for flip in (0x01, 0x80):
            changed = data[:index] + bytes([data[index] ^ flip]) + data[index + 1 :]
            with pytest.raises(EvidenceRefused):
                evidence.check_file(changed)
            refused += 1
    assert refused == 2 * len(data)
    for cut in (1, len(data) // 2, len(data) - 1):
        with pytest.raises(EvidenceRefused):
            evidence.check_file(data[:cut])
    with pytest.raises(EvidenceRefused, match="unreadable"):
        evidence.check_file(data + b"\x00")


def test_a_packet_by_another_key_is_refused(
    bob: Player, game: bytes, equivocation: tuple[bytes, bytes]
) -> None:
    piece = _piece(bob, game)
    first, second = piece.packets
    body = msgspec.msgpack.decode(read_envelope(second).body, type=Body)
    stranger = sign_body(msgspec.structs.replace(body, written_at="forged"), generate_identity())
    _refused(
        msgspec.structs.replace(piece, packets=[first, stranger]),
        "accused packet 2 is not signed by seat coalition's key",
        "unknown key",
    )
    # Bob's own key is bound in the game, but to the other seat.
    by_bob = sign_body(body, _key(bob))
    _refused(
        msgspec.structs.replace(piece, packets=[by_bob, second]),
        "accused packet 1 is not signed by seat coalition's key",
    )
    # And accusing Bob's seat with Alice's packets fails on the first packet's key.
    _refused(msgspec.structs.replace(piece, seat="alliance"), "do not bind a key to seat alliance")
    binding = [bob.packet(game, 0), bob.packet(game, 1)]
    _refused(
        msgspec.structs.replace(piece, seat="alliance", binding=binding),
        "accused packet 1 is not signed by seat alliance's key",
    )


def test_the_same_packet_twice_is_refused(
    bob: Player, game: bytes, equivocation: tuple[bytes, bytes]
) -> None:
    piece = _piece(bob, game)
    first = piece.packets[0]
    _refused(msgspec.structs.replace(piece, packets=[first, first]), "one and the same")
    _refused(msgspec.structs.replace(piece, packets=[first]), "two packets", "accuses 1")
    _refused(msgspec.structs.replace(piece, packets=[*piece.packets, first]), "accuses 3")


def test_packets_of_two_positions_are_refused(
    alice: Player, bob: Player, game: bytes, equivocation: tuple[bytes, bytes]
) -> None:
    piece = _piece(bob, game)
    earlier = next(
        seq
        for seq in range(piece.seq - 1, 0, -1)
        if alice.opened(game, seq).body.seat == "coalition"
    )
    older = alice.packet(game, earlier)
    _refused(
        msgspec.structs.replace(piece, packets=[piece.packets[0], older]),
        f"accused packet 2 is for position {earlier}, not position {piece.seq}",
    )
    _refused(
        msgspec.structs.replace(piece, seq=piece.seq + 1),
        f"accused packet 1 is for position {piece.seq}",
    )


def test_a_binding_packet_of_another_game_is_refused(
    alice: Player, bob: Player, game: bytes, equivocation: tuple[bytes, bytes]
) -> None:
    """Same players, same keys, another game: its genesis binds Alice's key too, but to
    another game, and the accused packets do not belong to it."""
    other = create_game(alice, name="other")
    piece = _piece(bob, game)
    _refused(
        msgspec.structs.replace(piece, binding=[alice.packet(other, 0)]),
        "binding packet 1 belongs to game",
        "not to game",
    )
    _refused(
        msgspec.structs.replace(piece, game_id=other, binding=[alice.packet(other, 0)]),
        "accused packet 1 belongs to game",
    )
    _refused(msgspec.structs.replace(piece, binding=[]), "no binding packets")
    # Not a genesis first, or something else than a join after it.
    _refused(
        msgspec.structs.replace(piece, binding=[bob.packet(game, 1)]),
        "binding packet 1 is a join packet, not the genesis",
    )
    _refused(
        msgspec.structs.replace(piece, binding=[bob.packet(game, 0), bob.packet(game, 2)]),
        "binding packet 2 is a turn packet",
    )


def test_a_file_that_is_not_evidence_says_so(tmp_path: Path) -> None:
    cases = {
        b"": "unreadable",
        b"\x93\x01\x02\x03": "unreadable",
        msgspec.msgpack.encode({"format": "hexpost-game-archive", "version": 1}): "format",
        msgspec.msgpack.encode({"format": evidence.FORMAT, "version": 9}): (
            "version 9; this hexpost reads version 1: a newer hexpost wrote it: update hexpost"
        ),
        msgspec.msgpack.encode(
            {"format": evidence.FORMAT, "version": 1, "pieces": []}
        ): "malformed",
        msgspec.msgpack.encode(
            {"format": evidence.FORMAT, "version": 1, "pieces": [], "extra": 1}
        ): "malformed",
    }
    for data, needle in cases.items():
        with pytest.raises(EvidenceRefused, match=needle):
            evidence.check_file(data)
    with pytest.raises(EvidenceRefused, match="more than"):
        evidence.check_file(bytes(evidence.MAX_FILE_BYTES + 1))
    # A desync chain longer than the bound is refused before any packet is replayed.
    long_chain = Piece("desync", bytes(16), 0, "coalition", [], [b"x"] * (evidence.MAX_CHAIN + 1))
    with pytest.raises(EvidenceRefused, match="malformed"):
        evidence.check_file(evidence.encode_file([long_chain]))


# --- desync --------------------------------------------------------------------------------------


@pytest.fixture
def desync(alice: Player, bob: Player, game: bytes) -> bytes:
    """Bob's home holds a game frozen by a packet of Alice's whose state hash is false: her
    honest packet for that position (kept in her home, never sent) signed again with a lie."""
    honest = alice.replica.submit(game, [{"type": "note", "text": "trust me"}], now=now())
    body = alice.opened(game, honest.seq).body
    lie = sign_body(msgspec.structs.replace(body, state_hash=b"\x07" * 32), _key(alice))
    assert bob.replica.receive(lie, source="t", now=now()).status == "desync"
    return lie


def test_a_desync_file_replays_the_chain_and_shows_where_the_hashes_differ(
    alice: Player, bob: Player, game: bytes, desync: bytes
) -> None:
    piece = _piece(bob, game)
    head = bob.row(game).head_seq
    assert (piece.kind, piece.seq, piece.seat, piece.binding) == (
        "desync",
        head + 1,
        "coalition",
        [],
    )
    assert piece.packets == [*[d for _, d in bob.replica.packets(game)], desync]
    (proof,) = evidence.check_file(evidence.encode_file([piece]))
    assert proof.claimed_hash == b"\x07" * 32
    assert proof.computed_hash == alice.row(game).state_hash
    assert proof.public_key == alice.public_key
    line = evidence.verdict_lines(proof)[0]
    assert line.startswith(f"DESYNC: packet {head + 1} by seat coalition")
    assert "0707070707070707" in line and alice.row(game).state_hash.hex()[:16] in line

    # The honest packet at that position shows no desync; a broken chain shows nothing.
    _refused(
        msgspec.structs.replace(piece, packets=[*piece.packets[:-1], alice.packet(game, head + 1)]),
        "no desync to show",
    )
    chain = list(piece.packets)
    chain[3] = chain[3][:-1] + bytes([chain[3][-1] ^ 1])
    _refused(msgspec.structs.replace(piece, packets=chain), "chain packet 3")
    _refused(msgspec.structs.replace(piece, packets=piece.packets[1:]), "ends at position")
    _refused(
        msgspec.structs.replace(piece, binding=[piece.packets[0]]), "no separate binding packets"
    )
    swapped = list(piece.packets)
    swapped[2], swapped[3] = swapped[3], swapped[2]
    _refused(msgspec.structs.replace(piece, packets=swapped), "chain packet 2 says it is packet 3")


# --- in an archive -------------------------------------------------------------------------------


def test_export_and_import_keep_the_evidence_and_the_freeze(
    tmp_path: Path, bob: Player, game: bytes, equivocation: tuple[bytes, bytes]
) -> None:
    data = export_game(bob.replica, game, public=True)
    archive = msgspec.msgpack.decode(data, type=Archive)
    assert [(e.kind, e.first, e.second) for e in archive.evidence] == [
        ("equivocation", *equivocation)
    ]
    home = Home(tmp_path / "third")
    try:
        replica = home.replica()
        row = import_game(replica, data, now=now())
        assert row.frozen == bob.row(game).frozen
        assert [
            (r.kind, r.seq, r.first, r.second, r.detail, r.found_at)
            for r in evidence.stored(replica.store, game)
        ] == [
            (r.kind, r.seq, r.first, r.second, r.detail, r.found_at)
            for r in evidence.stored(bob.replica.store, game)
        ]
    finally:
        home.close()

    # An archive whose evidence does not hold is refused whole: nothing is imported.
    forged = msgspec.structs.replace(
        archive,
        evidence=[msgspec.structs.replace(archive.evidence[0], second=equivocation[0])],
    )
    home = Home(tmp_path / "fourth")
    try:
        replica = home.replica()
        with pytest.raises(HexpostError, match=r"archive evidence 1: .*one and the same"):
            import_game(replica, msgspec.msgpack.encode(forged), now=now())
        assert replica.games() == []
    finally:
        home.close()


def test_an_imported_desync_stays_frozen(
    tmp_path: Path, bob: Player, game: bytes, desync: bytes
) -> None:
    data = export_game(bob.replica, game, public=True)
    home = Home(tmp_path / "third")
    try:
        replica = home.replica()
        row = import_game(replica, data, now=now())
        assert row.frozen == bob.row(game).frozen
        assert row.frozen is not None and row.frozen.startswith("desync")
        assert encode_state(replica.state(game)) == encode_state(bob.replica.state(game))
    finally:
        home.close()


def test_an_archive_without_evidence_imports_unfrozen(
    tmp_path: Path, network: LoopbackNetwork, alice: Player, bob: Player
) -> None:
    game = start_game(alice, bob, setup=False)
    exchange(alice, bob)
    home = Home(tmp_path / "third")
    try:
        row = import_game(home.replica(), export_game(bob.replica, game), now=now())
        assert row.frozen is None
    finally:
        home.close()
