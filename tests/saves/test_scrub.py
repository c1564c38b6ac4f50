"""A sync looks over the home's stored packets, a few hundred at a time (`saves.scrub`).

A stored packet damaged in the middle of a chain whose head state is kept stops nothing, so
before, nothing found it until a replay went through it (a review, an export, `hexpost
verify`), which could be months later. Now a sync finds it within a few looks and asks the
other player's home for a copy, which comes by itself and mends it.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import msgspec
import pytest

from engine.core.packets import peek_body, sign_body
from mail.loopback import LoopbackNetwork
from mail.sync import sync
from saves import ledger, resigning, scrub
from saves.outbox import format_time
from tests.saves.conftest import NotesTransport, Player, now, owner, play_notes


def _damage(player: Player, game: bytes, seq: int) -> None:
    """The last byte of a stored packet's bytes changed (its signature no longer holds)."""
    with player.replica.store.transaction() as db:
        (data,) = db.execute(
            "SELECT data FROM packets WHERE game_id = ? AND seq = ?", (game, seq)
        ).fetchone()
        bent = data[:-1] + bytes([data[-1] ^ 0x01])
        db.execute("UPDATE packets SET data = ? WHERE game_id = ? AND seq = ?", (bent, game, seq))
    player.reopen()


def _look_due(player: Player, place: str = "") -> None:
    """As if the last look was long ago (and stopped at ``place``: the start by default)."""
    with player.replica.store.transaction():
        player.replica.store.set_meta("scrub_at", "2029-01-01T00:00:00Z")
        player.replica.store.set_meta("scrub_place", place)


def test_a_damaged_packet_nothing_reads_is_found_asked_for_and_mended(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes, network: LoopbackNetwork
) -> None:
    play_notes(players, game, 6)
    alice.handed_over(game)
    row = bob.row(game)
    seq = row.head_seq - 3
    _damage(bob, game, seq)
    assert bob.replica.state(game).core.seq == row.head_seq  # (play goes on from the head)

    notes = NotesTransport(network, bob.transport.name)
    report = asyncio.run(sync(bob.replica, notes, now))
    assert report.requests == []  # (no look due: the last was at the first sync)

    _look_due(bob)
    report = asyncio.run(sync(bob.replica, notes, now))
    assert report.requests == [
        f"asked {alice.address} to send packet {seq} of {row.name} again "
        "(it was lost from this home's store, or damaged there)"
    ]
    assert [line for line in bob.replica.store.repairs if "looking over" in line] == [
        f"game {row.name}: stored packet {seq} is damaged (found looking over the stored "
        "packets); a sync by mail asks the other player for a copy, or ask the other player "
        f"to run `hexpost resend {row.name} --from {seq} --every-seat`: their copy fills the gap"
    ]
    assert scrub.damaged_at(bob.replica.store, game) == seq

    answered = alice.sync()
    assert [o.status for o in answered.received] == ["resend"]
    bob.sync()
    assert scrub.damaged_at(bob.replica.store, game) is None
    assert bob.packet(game, seq) == alice.packet(game, seq)
    assert bob.replica.verify(game) == alice.row(game).state_hash


def _found_asked_for_and_mended(
    home: Player, other: Player, game: bytes, network: LoopbackNetwork
) -> None:
    """A stored packet of ``home`` damaged, a look due: its sync by mail asks ``other`` for
    it, ``other``'s sync answers, and ``home``'s next sync mends it."""
    row = home.row(game)
    seq = row.head_seq - 3
    _damage(home, game, seq)
    _look_due(home)
    notes = NotesTransport(network, home.transport.name)
    report = asyncio.run(sync(home.replica, notes, now))
    assert report.requests == [
        f"asked {other.address} to send packet {seq} of {row.name} again "
        "(it was lost from this home's store, or damaged there)"
    ]
    assert "resend" in [o.status for o in other.sync().received]
    home.sync()
    assert scrub.damaged_at(home.replica.store, game) is None
    assert home.packet(game, seq) == other.packet(game, seq)


def test_a_finished_game_is_mended_too(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes, network: LoopbackNetwork
) -> None:
    """An archive is worth mending: the look asks for a game that is over (here resigned, so
    nothing more will ever be read in play), and the other home answers."""
    play_notes(players, game, 6)
    for player in (alice, bob):
        player.handed_over(game)
    mover, waiting = owner(players, game)
    resigning.resign(mover.replica, game, now=now())
    mover.sync()
    waiting.sync()
    assert bob.replica.pending(game) == [] and alice.replica.pending(game) == []
    _found_asked_for_and_mended(bob, alice, game, network)
    assert bob.replica.verify(game) == alice.row(game).state_hash


@pytest.mark.parametrize("both", [False, True], ids=["one-home-frozen", "both-frozen"])
def test_a_frozen_game_is_mended_too(
    players: dict[str, Player],
    alice: Player,
    bob: Player,
    game: bytes,
    network: LoopbackNetwork,
    both: bool,
) -> None:
    """A frozen game's chain is what its evidence file carries (`saves.evidence`), and a
    damaged packet in it makes that file fail to check: the look asks for it too, and the
    other home answers whether or not its game is frozen as well."""
    play_notes(players, game, 6)
    for player in (alice, bob):
        player.handed_over(game)
    mover, waiting = owner(players, game)
    honest = mover.replica.submit(game, [{"type": "note", "text": "trust me"}], now=now())
    body = peek_body(mover.packet(game, honest.seq))
    assert body is not None
    lie = sign_body(
        msgspec.structs.replace(body, state_hash=b"\x07" * 32), mover.replica.signing_key()
    )
    assert waiting.replica.receive(lie, source="t", now=now()).status == "desync"
    mover.handed_over(game)
    if both:  # (as if the evidence reached the other home too, and it froze the game)
        with mover.replica.store.transaction():
            ledger.freeze(mover.replica.store, game, honest.seq, "desync", "t", lie, None, now())
        assert mover.row(game).frozen
    assert waiting.row(game).frozen
    _found_asked_for_and_mended(waiting, mover, game, network)
    assert waiting.row(game).frozen


def test_a_whole_home_looks_sound(players: dict[str, Player], bob: Player, game: bytes) -> None:
    """No false alarm: every stored packet of a played game (genesis, join, orders, notes)
    opens as the look opens it."""
    play_notes(players, game, 8)
    _look_due(bob)
    assert scrub.look(bob.replica, "2030-06-01T00:00:00Z") == []
    assert not [line for line in bob.replica.store.repairs if "looking over" in line]


def test_looks_are_spaced_and_go_on_where_the_last_stopped(
    players: dict[str, Player], bob: Player, game: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A few packets a look, a look every `LOOK_EVERY`: the damaged packet is found by the
    look that reaches it, and the looks go round the home again from its start."""
    monkeypatch.setattr(scrub, "PACKETS_A_LOOK", 3)
    play_notes(players, game, 6)
    head = bob.row(game).head_seq
    _damage(bob, game, head - 1)
    _look_due(bob)
    start = datetime(2030, 2, 1, tzinfo=UTC)
    seen: list[list[tuple[bytes, int]]] = []
    for n in range(head // 3 + 2):
        seen.append(scrub.look(bob.replica, format_time(start + n * timedelta(hours=7))))
    assert [found for found in seen if found] == [[(game, head - 1)]]
    looked = [found for found in seen if found]
    assert looked and seen.index(looked[0]) == (head - 1) // 3
    # Within `LOOK_EVERY` of the last look, nothing is looked at.
    assert bob.replica.store.meta("scrub_at") is not None
    before = bob.replica.store.meta("scrub_place")
    assert scrub.look(bob.replica, "2030-02-28T00:00:00Z") == []
    assert scrub.look(bob.replica, "2030-02-28T01:00:00Z") == []
    assert bob.replica.store.meta("scrub_place") != before  # (one look)


def test_a_damaged_kept_id_is_put_right_from_the_packet_s_bytes(
    players: dict[str, Player], bob: Player, game: bytes
) -> None:
    play_notes(players, game, 4)
    seq = bob.row(game).head_seq - 2
    good = bob.opened(game, seq).packet_id
    with bob.replica.store.transaction() as db:
        db.execute(
            "UPDATE packets SET packet_id = ? WHERE game_id = ? AND seq = ?",
            (bytes(32), game, seq),
        )
    bob.reopen()
    _look_due(bob)
    assert scrub.look(bob.replica, "2030-06-01T00:00:00Z") == []
    (kept,) = bob.replica.store.one(
        "SELECT packet_id FROM packets WHERE game_id = ? AND seq = ?", (game, seq)
    ) or (None,)
    assert kept == good
    name = bob.row(game).name
    assert f"game {name}: the kept id of packet {seq} was damaged; rebuilt it from the " in (
        " ".join(bob.replica.store.repairs)
    )


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("scrub_at", "not a time"),
        ("scrub_place", "zz:1"),
        ("scrub_place", f"{'ab' * 16}:{1 << 70}"),
        ("scrub_found", "::,12:x," + "ff" * 16 + ":-5"),
    ],
)
def test_damaged_look_records_start_the_looks_again(
    players: dict[str, Player], bob: Player, game: bytes, key: str, value: str
) -> None:
    """Hostile or damaged ``meta`` rows: the look reads what it can and goes on."""
    play_notes(players, game, 4)
    seq = bob.row(game).head_seq - 1
    _damage(bob, game, seq)
    _look_due(bob)
    with bob.replica.store.transaction():
        bob.replica.store.set_meta(key, value)
    assert scrub.look(bob.replica, "2030-06-01T00:00:00Z") == [(game, seq)]
    assert scrub.damaged_at(bob.replica.store, game) == seq


def test_damaged_kept_keys_are_rebuilt_not_taken_for_damaged_packets(
    players: dict[str, Player], bob: Player, game: bytes
) -> None:
    """Every packet of a seat fails under a damaged kept key: the look has the keys rebuilt
    from the game's state (`Reader.check_keys`) and finds the packets sound."""
    play_notes(players, game, 4)
    with bob.replica.store.transaction() as db:
        db.execute("UPDATE game_keys SET public_key = zeroblob(32) WHERE game_id = ?", (game,))
    bob.reopen()
    _look_due(bob)
    assert scrub.look(bob.replica, "2030-06-01T00:00:00Z") == []
    assert scrub.damaged_at(bob.replica.store, game) is None
    assert any("kept keys of its seats were damaged" in line for line in bob.replica.store.repairs)


def test_two_kept_ids_swapped_by_damage_are_both_put_right_without_a_clash(
    players: dict[str, Player], bob: Player, game: bytes
) -> None:
    """Packet ids are unique in the store: an id that another row holds (damaged into it)
    waits for the look that frees it, rather than failing the look."""
    play_notes(players, game, 4)
    p, q = bob.row(game).head_seq - 2, bob.row(game).head_seq - 1
    ids = {seq: bob.opened(game, seq).packet_id for seq in (p, q)}
    with bob.replica.store.transaction() as db:
        db.execute(
            "UPDATE packets SET packet_id = zeroblob(32) WHERE game_id = ? AND seq = ?", (game, p)
        )
        db.execute(
            "UPDATE packets SET packet_id = ? WHERE game_id = ? AND seq = ?", (ids[p], game, q)
        )
    bob.reopen()
    for when in ("2030-06-01T00:00:00Z", "2030-06-02T00:00:00Z"):
        _look_due(bob)
        assert scrub.look(bob.replica, when) == []
    for seq in (p, q):
        (kept,) = bob.replica.store.one(
            "SELECT packet_id FROM packets WHERE game_id = ? AND seq = ?", (game, seq)
        ) or (None,)
        assert kept == ids[seq]


def test_a_look_that_fails_does_not_stop_the_sync(
    players: dict[str, Player],
    bob: Player,
    game: bytes,
    network: LoopbackNetwork,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*_: object) -> list[tuple[bytes, int]]:
        raise RuntimeError("disk I/O error")

    monkeypatch.setattr(scrub, "look", broken)
    play_notes(players, game, 1)
    report = asyncio.run(sync(bob.replica, NotesTransport(network, bob.transport.name), now))
    assert "the look over the stored packets failed: disk I/O error" in report.problems


def test_a_sync_that_brings_packets_leaves_the_look_to_a_quiet_one(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes, network: LoopbackNetwork
) -> None:
    """The look is kept off the syncs a player waits on: one that applies the other side's
    move looks at nothing; the next, with nothing new, looks."""
    play_notes(players, game, 2)
    author, reader = owner(players, game)
    author.replica.submit(game, [{"type": "note", "text": "new"}], now=now())
    author.sync()
    _look_due(reader)
    notes = NotesTransport(network, reader.transport.name)
    report = asyncio.run(sync(reader.replica, notes, now))
    assert report.received
    assert reader.replica.store.meta("scrub_at") == "2029-01-01T00:00:00Z"
    report = asyncio.run(sync(reader.replica, notes, now))
    assert not report.received
    assert reader.replica.store.meta("scrub_at") != "2029-01-01T00:00:00Z"
