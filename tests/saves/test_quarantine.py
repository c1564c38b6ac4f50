"""Hostile items against a home's inbox: bounded storage, isolation, damaged-packet notes.

Each test plays a stranger (or a modified client) who can put bytes into the mail or the
shared folder: signed packets with absurd numbers, floods of envelopes nobody can verify,
items that make the inbox raise, damaged copies of real packets.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import msgspec
import pytest

from engine.core import author
from engine.core.packets import (
    MAX_PACKET_SIZE,
    PROTOCOL_VERSION,
    EntropyOnly,
    Envelope,
    sign_body,
)
from engine.fe import RULESET
from mail.loopback import LoopbackNetwork
from mail.sync import pull
from mail.transport import IncomingPacket
from saves import inbox, quarantine
from saves.outcome import Outcome
from tests.saves.conftest import Handed, Player, create_game, now


def _pull(player: Player, items: list[IncomingPacket]) -> list[Outcome]:
    return asyncio.run(pull(player.replica, Handed(items), now))


def _seen(player: Player) -> set[str]:
    rows = player.replica.store.all("SELECT ref FROM transport_seen WHERE transport = 'handed'")
    return {str(ref) for (ref,) in rows}


@pytest.mark.parametrize("seq", [2**31, 2**63, 2**64 - 1])
def test_a_signed_packet_with_a_huge_position_stops_no_sync(
    tmp_path: Path, network: LoopbackNetwork, alice: Player, bob: Player, game: bytes, seq: int
) -> None:
    """Mallory invites Bob to a game of her own, so Bob's home knows her key; then she signs a
    packet of that game claiming position ``seq``. Such a packet (seq >= 2**63) used to crash
    every sync of both players: SQLite cannot store the integer. Now it is refused when decoded,
    and the packet after it in the same fetch is still applied."""
    mallory = Player(tmp_path / "mallory", "Mallory", "mallory@example.net", network)
    try:
        hers = create_game(mallory, opponent=bob.address, name="bait")
        invitation = mallory.packet(hers, 0)
        body = author.new_body(
            RULESET,
            mallory.replica.state(hers),
            game_id=hers,
            seat="coalition",
            kind=EntropyOnly(),
            entropy_value=b"\x22" * 32,
        )
        evil = sign_body(msgspec.structs.replace(body, seq=seq), mallory.key)
    finally:
        mallory.close()
    honest = alice.replica.submit(game, [{"type": "note", "text": "hello"}], now=now())
    items = [
        IncomingPacket(ref="invite", data=invitation),
        IncomingPacket(ref="evil", data=evil),
        IncomingPacket(ref="good", data=alice.packet(game, honest.seq)),
    ]
    outcomes = _pull(bob, items)
    assert [o.status for o in outcomes] == ["invitation", "rejected", "applied"]
    assert "malformed packet body" in outcomes[1].detail
    assert bob.row(game).head_seq == honest.seq
    assert _seen(bob) == {"invite", "evil", "good"}


def test_an_item_that_makes_the_inbox_raise_is_recorded_and_the_next_goes_on(
    monkeypatch: pytest.MonkeyPatch, alice: Player, bob: Player, game: bytes
) -> None:
    honest = alice.replica.submit(game, [{"type": "note", "text": "hello"}], now=now())
    real = inbox.receive
    poison = b"poison" * 10

    def receive(replica, data, source, now, hint=(None, None)):  # type: ignore[no-untyped-def]
        if data == poison:
            raise RuntimeError("a bug nobody foresaw")
        return real(replica, data, source, now, hint)

    monkeypatch.setattr(inbox, "receive", receive)
    before = bob.count("rejected")
    outcomes = _pull(
        bob,
        [
            IncomingPacket(ref="poison", data=poison),
            IncomingPacket(ref="good", data=alice.packet(game, honest.seq)),
        ],
    )
    assert outcomes[0].status == "rejected"
    assert "RuntimeError: a bug nobody foresaw" in outcomes[0].detail
    assert outcomes[1].status == "applied"
    assert _seen(bob) == {"poison", "good"}  # never offered again
    assert bob.count("rejected") == before + 1
    # The next sync fetches neither again.
    assert _pull(bob, [IncomingPacket(ref="poison", data=poison)]) == []


def test_forty_unverifiable_envelopes_of_a_mebibyte_stay_within_the_parked_quota(
    bob: Player,
) -> None:
    kid = os.urandom(8)
    filler = b"\x00" * (MAX_PACKET_SIZE - 200)
    items = [
        IncomingPacket(
            ref=f"flood-{i}",
            data=msgspec.msgpack.encode(
                [PROTOCOL_VERSION, kid, os.urandom(64), filler + i.to_bytes(4, "big")]
            ),
        )
        for i in range(40)
    ]
    path = bob.replica.store.path
    before = path.stat().st_size
    outcomes = _pull(bob, items)
    assert {o.status for o in outcomes} == {"parked"}
    assert any("dropped" in o.detail for o in outcomes)  # the sync says so
    total = bob.replica.store.one("SELECT TOTAL(length(data)), COUNT(*) FROM parked")
    assert total is not None
    assert total[0] <= quarantine.MAX_PARKED_BYTES
    assert total[1] >= quarantine.MAX_PARKED_BYTES // len(items[0].data) * 8 // 10
    # The running count the quota is checked against is the truth.
    assert bob.replica.store.one("SELECT rows, bytes FROM quota WHERE name = 'parked'") == (
        total[1],
        total[0],
    )
    kept = {bytes(d) for (d,) in bob.replica.store.all("SELECT data FROM parked")}
    assert items[-1].data in kept and items[0].data not in kept  # the oldest went first
    bob.replica.store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert path.stat().st_size - before < 2 * quarantine.MAX_PARKED_BYTES


def test_refused_items_stay_within_their_quota(bob: Player) -> None:
    big = b"\x95" + os.urandom(200_000)  # unreadable, and bigger than what is kept of it
    items = [IncomingPacket(ref=f"junk-{i}", data=big + bytes([i % 256])) for i in range(80)]
    outcomes = _pull(bob, items)
    assert {o.status for o in outcomes} == {"rejected"}
    assert all(not o.attention for o in outcomes)  # a stranger's junk needs nobody
    row = bob.replica.store.one("SELECT TOTAL(length(data)), MAX(length(data)) FROM rejected")
    assert row is not None
    assert row[0] <= quarantine.MAX_REJECTED_BYTES
    assert row[1] == quarantine.KEEP_REJECTED_BYTES


def test_a_damaged_copy_names_its_game_position_and_seat_and_the_games_list_says_so(
    alice: Player, bob: Player, game: bytes
) -> None:
    honest = alice.replica.submit(game, [{"type": "note", "text": "hello"}], now=now())
    data = bytearray(alice.packet(game, honest.seq))
    data[20] ^= 0x01  # in the signature: the body still reads, unverified
    outcome = _pull(bob, [IncomingPacket(ref="bent", data=bytes(data))])[0]
    assert (outcome.status, outcome.game_id, outcome.seq) == ("rejected", game, honest.seq)
    assert outcome.seat == "coalition" and outcome.attention
    assert "handed bent" in outcome.source
    assert f"hexpost resend wind --from {honest.seq}" in outcome.detail
    damage = quarantine.damage_ahead(bob.replica.store, game, bob.row(game).head_seq)
    assert damage is not None and (damage.seq, damage.seat) == (honest.seq, "coalition")

    # A copy so damaged that nothing of it reads: the transport's routing still names it.
    outcome = _pull(
        bob,
        [IncomingPacket(ref="stub", data=b"\x95\x02", game_hint=game, seq_hint=honest.seq)],
    )[0]
    assert (outcome.game_id, outcome.seq, outcome.attention) == (game, honest.seq, True)
    # A hint beyond any position is ignored, not stored.
    outcome = _pull(
        bob, [IncomingPacket(ref="huge", data=b"\x95\x02", game_hint=game, seq_hint=2**70)]
    )[0]
    assert outcome.seq is None and not outcome.attention

    # The good copy arrives (resent): applied, and the note is gone.
    assert _pull(bob, [IncomingPacket(ref="good", data=alice.packet(game, honest.seq))])[
        0
    ].applied == [honest.seq]
    assert quarantine.damage_ahead(bob.replica.store, game, bob.row(game).head_seq) is None


def test_a_damaged_copy_of_our_own_packet_tells_its_author(alice: Player, game: bytes) -> None:
    honest = alice.replica.submit(game, [{"type": "note", "text": "hello"}], now=now())
    data = bytearray(alice.packet(game, honest.seq))
    data[-3] ^= 0xFF  # in the body: nothing of it reads; the file name still says what it is
    item = IncomingPacket(ref="mine", data=bytes(data), game_hint=game, seq_hint=honest.seq)
    outcome = _pull(alice, [item])[0]
    assert outcome.status == "rejected" and outcome.attention
    assert "our own packet" in outcome.detail
    assert f"hexpost resend wind --from {honest.seq}" in outcome.detail


def test_a_damaged_copy_of_a_packet_already_held_is_harmless(
    alice: Player, bob: Player, game: bytes
) -> None:
    data = bytearray(alice.packet(game, 1))  # Bob's join, which Alice holds
    data[20] ^= 0x01
    outcome = _pull(alice, [IncomingPacket(ref="old", data=bytes(data))])[0]
    assert outcome.status == "ignored" and not outcome.attention


def test_a_packet_from_a_newer_hexpost_says_to_update_and_asks_no_resend(
    alice: Player, bob: Player, game: bytes
) -> None:
    """Alice's hexpost speaks a newer protocol: Bob's cannot read her next packet. That is
    no damage in transit: a resend would bring the same bytes, so his home sends no ask for
    one (the games list has no "damaged" note); it tells him to update hexpost first."""
    honest = alice.replica.submit(game, [{"type": "note", "text": "hello"}], now=now())
    envelope = msgspec.msgpack.decode(alice.packet(game, honest.seq), type=Envelope)
    newer = msgspec.msgpack.encode(msgspec.structs.replace(envelope, version=PROTOCOL_VERSION + 1))
    item = IncomingPacket(ref="newer", data=newer, game_hint=game, seq_hint=honest.seq)
    outcome = _pull(bob, [item])[0]
    assert (outcome.status, outcome.game_id, outcome.seq) == ("rejected", game, honest.seq)
    assert outcome.attention
    assert f"protocol version {PROTOCOL_VERSION + 1}" in outcome.detail
    assert "newer hexpost: update hexpost" in outcome.detail
    assert f"hexpost resend wind --from {honest.seq}" in outcome.detail  # once updated
    assert quarantine.damage_ahead(bob.replica.store, game, bob.row(game).head_seq) is None
    rows = [(game, "wind", bob.row(game).head_seq, "coalition", alice.address)]
    assert quarantine.resend_requests(bob.replica.store, rows) == []

    # A damaged copy of the same position still asks (the newer copy did not hide it).
    bent = bytearray(alice.packet(game, honest.seq))
    bent[20] ^= 0x01
    assert _pull(bob, [IncomingPacket(ref="bent", data=bytes(bent))])[0].attention
    assert [r.seq for r in quarantine.resend_requests(bob.replica.store, rows)] == [honest.seq]


def test_a_record_of_a_kind_a_newer_hexpost_added_is_named_and_needs_nobody(
    bob: Player, game: bytes
) -> None:
    """A later hexpost may send a side record of a kind this one does not know (as mail
    hands it up: the game named, no position). It is recorded and named, never taken for a
    damaged packet: no resend is asked for, and the sync does not fail for it."""
    record = msgspec.msgpack.encode(["poll-vote", 1, b"k" * 8, b"s" * 64, b"a body"])
    item = IncomingPacket(ref="vote", data=record, game_hint=game, seq_hint=-1)
    outcome = _pull(bob, [item])[0]
    assert outcome.status == "rejected" and not outcome.attention
    assert "a 'poll-vote' record, a kind this hexpost does not read" in outcome.detail
    assert "newer hexpost" in outcome.detail
    assert quarantine.damage_ahead(bob.replica.store, game, bob.row(game).head_seq) is None
