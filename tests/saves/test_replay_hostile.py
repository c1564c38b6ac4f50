"""`hexpost verify` opens a page of packets (signatures, bodies) before applying any of them
(`saves.replay.open_page`); a tampered log must still be refused at the first packet that is
wrong in chain order, with the message a packet-by-packet replay gives: opening ahead may
neither report a later packet's bad signature before an earlier packet's desync nor let an
earlier failure hide behind a later one."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine.core.errors import ChainError, DesyncError, PacketError
from engine.core.game import apply_packet
from engine.core.packets import (
    Body,
    Envelope,
    KeyLookup,
    VerifiedPacket,
    open_packet,
    open_signed_later,
    read_envelope,
    sign_body,
)
from saves import replay, signature_helper, store_games
from saves.store import Store
from tests.saves.conftest import Player, play_notes


def _set(store: Store, game: bytes, seq: int, column: str, value: bytes) -> None:
    with store.transaction():
        store.db.execute(
            f"UPDATE packets SET {column} = ? WHERE game_id = ? AND seq = ?", (value, game, seq)
        )


def _data(store: Store, game: bytes, seq: int) -> bytes:
    data = store_games.packet_data(store, game, seq)
    assert data is not None
    return data


def _bad_signature(store: Store, game: bytes, seq: int) -> None:
    envelope = read_envelope(_data(store, game, seq))
    signature = bytes([envelope.signature[0] ^ 1]) + envelope.signature[1:]
    forged = msgspec.structs.replace(envelope, signature=signature)
    _set(store, game, seq, "data", msgspec.msgpack.encode(forged))
    assert isinstance(msgspec.msgpack.decode(_data(store, game, seq), type=Envelope), Envelope)


def _desync_at(monkeypatch: pytest.MonkeyPatch, seq: int) -> None:
    """Packet ``seq`` replays to another state than it says (what the engine's own check of a
    packet's state hash raises). A damaged copy of that hash kept beside the packet is no
    desync (`saves.replay` puts it right), and a packet whose state hash was changed no longer
    verifies: so the replay's engine is made to disagree with the packet instead."""
    applying = apply_packet

    def disagreeing(ruleset: Any, state: Any, packet: VerifiedPacket) -> Any:
        result = applying(ruleset, state, packet)
        if packet.body.seq == seq:
            raise DesyncError(seq, packet.body.state_hash, bytes(32))
        return result

    monkeypatch.setattr(replay, "apply_packet", disagreeing)


@pytest.fixture(params=[False, True], ids=["in-process", "helper"])
def helper(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Every attack twice: with the replay checking each signature itself, and with a helper
    process checking them beside it (`saves.signature_helper`), used here whatever the game's
    length or the machine: the verdicts must be the same."""
    used: bool = request.param
    monkeypatch.setattr(signature_helper, "wanted", lambda packets: used)
    return used


@pytest.fixture
def played(
    alice: Player, bob: Player, game: bytes, helper: bool, monkeypatch: pytest.MonkeyPatch
) -> Store:
    """Alice's store of a game with some notes, all read (and opened) as one page."""
    play_notes({"coalition": alice, "alliance": bob}, game, 7)
    monkeypatch.setattr(store_games, "PAGE", 1000)
    return alice.replica.store


@pytest.mark.parametrize("helper", [True], indirect=True, ids=["helper"])
def test_the_helper_checks_the_signatures_instead_of_the_replay(
    alice: Player, game: bytes, played: Store, helper: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the helper, the replay opens no packet with its own signature check (each page
    goes to the helper); a bad signature is still found, by the helper alone."""
    pages: list[int] = []
    real_send = signature_helper.SignatureHelper.send

    def send(self: signature_helper.SignatureHelper, items: list[signature_helper.Item]) -> None:
        pages.append(len(items))
        real_send(self, items)

    def opening(data: bytes, lookup: KeyLookup) -> VerifiedPacket:
        raise AssertionError("the replay checked a signature itself")

    monkeypatch.setattr(signature_helper.SignatureHelper, "send", send)
    monkeypatch.setattr(replay, "open_packet", opening)
    monkeypatch.setattr(store_games, "PAGE", 4)
    last = _last(played, game)
    assert alice.replica.verify(game) == alice.row(game).state_hash
    assert sum(pages) == last + 1 and len(pages) > 1
    _bad_signature(played, game, 3)
    with pytest.raises(PacketError) as caught:
        alice.replica.verify(game)
    assert str(caught.value) == (
        "packet 3: bad signature: the packet was altered or not signed by its key; "
        + _resend_advice(alice, game, 3)
    )


def _resend_advice(player: Player, game: bytes, seq: int) -> str:
    """What `verify` adds to a stored packet that no longer opens (a copy puts it right)."""
    return (
        f"ask the other player to run `hexpost resend {player.row(game).name} --from {seq} "
        f"--to {seq} --every-seat`: their copy takes the place of the one kept here"
    )


def _last(store: Store, game: bytes) -> int:
    return store_games.packets_between(store, game)[-1][0]


@pytest.mark.parametrize("page", [2, 1000])
def test_a_bad_signature_is_named_with_its_packet(
    alice: Player, game: bytes, played: Store, page: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_games, "PAGE", page)
    seq = _last(played, game) - 1
    _bad_signature(played, game, seq)
    with pytest.raises(PacketError) as caught:
        alice.replica.verify(game)
    assert str(caught.value) == (
        f"packet {seq}: bad signature: the packet was altered or not signed by its key; "
        + _resend_advice(alice, game, seq)
    )


def test_an_earlier_desync_wins_over_a_later_bad_signature_on_its_page(
    alice: Player, game: bytes, played: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    last = _last(played, game)
    first = last - 2
    _desync_at(monkeypatch, first)
    _bad_signature(played, game, last)
    with pytest.raises(DesyncError) as caught:
        alice.replica.verify(game)
    assert caught.value.seq == first


def test_an_earlier_bad_signature_wins_over_a_later_desync(
    alice: Player, game: bytes, played: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    last = _last(played, game)
    _bad_signature(played, game, last - 1)
    _desync_at(monkeypatch, last)
    with pytest.raises(PacketError) as caught:
        alice.replica.verify(game)
    assert str(caught.value).startswith(f"packet {last - 1}: bad signature")


def test_a_packet_stored_out_of_place_is_refused_where_it_is_stored(
    alice: Player, game: bytes, played: Store
) -> None:
    last = _last(played, game)
    _set(played, game, last, "data", _data(played, game, last - 1))
    with pytest.raises(ChainError) as caught:
        alice.replica.verify(game)
    assert str(caught.value) == f"packet {last}: stored at {last} but says it is packet {last - 1}"


def test_any_error_opening_a_packet_waits_for_its_turn(
    alice: Player, game: bytes, played: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unexpected exception opening a packet ahead is raised only in its turn: a desync
    before it on the same page is reported first, and without one the exception itself."""
    last = _last(played, game)
    broken = _data(played, game, last)

    def opening(data: bytes, lookup: KeyLookup) -> VerifiedPacket:
        if data == broken:
            raise RuntimeError("cannot open")
        return open_packet(data, lookup)

    def opening_later(data: bytes, lookup: KeyLookup) -> tuple[VerifiedPacket, bytes] | None:
        if data == broken:
            raise RuntimeError("cannot open")
        return open_signed_later(data, lookup)

    monkeypatch.setattr(replay, "open_packet", opening)
    monkeypatch.setattr(replay, "open_signed_later", opening_later)
    with pytest.raises(RuntimeError, match="cannot open"):
        alice.replica.verify(game)
    _desync_at(monkeypatch, last - 1)
    with pytest.raises(DesyncError) as caught:
        alice.replica.verify(game)
    assert caught.value.seq == last - 1


def test_a_snapshot_that_differs_from_the_replay_is_rebuilt_and_said(
    alice: Player, game: bytes, played: Store
) -> None:
    """The head's snapshot replaced by the genesis's: every packet replays, and the head's
    kept state, which no longer matches the hash stored with it, is rebuilt from the packets
    as any reading of it does (`tests/saves/test_damaged_snapshot.py`), and said."""
    head = _last(played, game)
    with played.transaction():
        played.db.execute(
            "UPDATE snapshots SET state = (SELECT state FROM snapshots WHERE game_id = ? "
            "ORDER BY seq LIMIT 1) WHERE game_id = ? AND seq = ?",
            (game, game, head),
        )
    alice.replica._heads.clear()
    assert alice.replica.verify(game) == alice.row(game).state_hash
    assert played.repairs == [
        f"game {alice.row(game).name}: the kept state at packet {head} was damaged; "
        "rebuilt it from the packets (nothing was lost)"
    ]


def test_a_packet_signed_by_a_key_the_chain_never_bound_is_refused(
    alice: Player, game: bytes, played: Store
) -> None:
    """A modified client's packet, well signed but by a stranger's key, stored in the log."""
    seq = _last(played, game) - 1
    body = msgspec.msgpack.decode(read_envelope(_data(played, game, seq)).body, type=Body)
    _set(played, game, seq, "data", sign_body(body, Ed25519PrivateKey.generate()))
    with pytest.raises(PacketError) as caught:
        alice.replica.verify(game)
    assert str(caught.value).startswith(f"packet {seq}: packet signed by an unknown key")


def test_a_join_with_a_bad_signature_binds_nothing_after_it(
    alice: Player, game: bytes, played: Store
) -> None:
    """The replay stops at a join whose signature is bad: none of the packets its key signed
    is applied (or named) first, though the log's last hash is wrong too."""
    joins = [
        seq
        for seq, data in store_games.packets_between(played, game)
        if read_envelope(data).public_key and seq > 0
    ]
    assert joins, "the game has a join"
    _bad_signature(played, game, joins[0])
    _set(played, game, _last(played, game), "state_hash", bytes(32))
    with pytest.raises(PacketError) as caught:
        alice.replica.verify(game)
    assert str(caught.value).startswith(f"packet {joins[0]}: bad signature")
