"""A stored state is a cache of what the packets determine: damaged, it is rebuilt from them.

A home keeps each game's state at its head (and every `SNAPSHOT_EVERY` packets) so that it
need not replay the game to show it. Should a kept state be damaged on disk (a bit flipped,
a row lost, a file patched by hand), reading it must not crash every command that lists the
games, nor serve a wrong state (whose next packet from the other side would then look like a
desync and freeze the game). Each kept state is checked against the state hash stored with
it; one that does not decode, does not match or is missing is rebuilt from the packets, from
the latest kept state that checks (or the genesis), written back, and the home says so once.
A packet's kept events (the engine's words for what it did) are made again the same way, also
after random damage to both.

Damage to the stored packets themselves, which a home cannot rebuild by itself, is tested in
`tests/saves/test_damaged_packets.py` (a game that no longer replays is the only one left
unreadable, a packet that no longer decodes is named, the other side's copy puts it right).
`_break_packets`, which makes a game's packets no longer replay, stays here with `_patch` and
`long_game`: that file and `tests/tui/test_damaged_home.py` import them.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import msgspec
import pytest

from engine.core.ruleset import Event
from engine.core.state import decode_state, encode_state
from engine.fe import RULESET
from mail.loopback import LoopbackNetwork
from saves.ledger import SNAPSHOT_EVERY
from tests.saves.conftest import (
    Player,
    make_older,
    play_notes,
    play_secrets,
    start_game,
    to_battle,
)
from tui.services import games as listing


def _kept(player: Player, game: bytes) -> list[int]:
    rows = player.replica.store.all(
        "SELECT seq FROM snapshots WHERE game_id = ? ORDER BY seq", (game,)
    )
    return [int(row[0]) for row in rows]


def _patch(player: Player, game: bytes, seq: int, state: bytes | None) -> None:
    """Write ``state`` as the kept state at ``seq`` behind the home's back (None: delete)."""
    with player.replica.store.transaction() as db:
        if state is None:
            db.execute("DELETE FROM snapshots WHERE game_id = ? AND seq = ?", (game, seq))
        else:
            db.execute(
                "UPDATE snapshots SET state = ? WHERE game_id = ? AND seq = ?", (state, game, seq)
            )


def _stored(player: Player, game: bytes, seq: int) -> bytes:
    row = player.replica.store.one(
        "SELECT state FROM snapshots WHERE game_id = ? AND seq = ?", (game, seq)
    )
    assert row is not None
    return bytes(row[0])


def _break_packets(player: Player, game: bytes) -> int:
    """Lose the game's head state and alter a packet after its last good kept state, so that
    the packets no longer rebuild it; the position of the packet altered."""
    head = player.row(game).head_seq
    _patch(player, game, head, None)
    seq = head - 2
    with player.replica.store.transaction() as db:
        row = db.execute(
            "SELECT data FROM packets WHERE game_id = ? AND seq = ?", (game, seq)
        ).fetchone()
        data = bytearray(row[0])
        data[-5] ^= 0x40
        db.execute(
            "UPDATE packets SET data = ? WHERE game_id = ? AND seq = ?", (bytes(data), game, seq)
        )
    player.reopen()
    return seq


def _garbled(data: bytes) -> bytes:
    return data[: len(data) // 2]


@pytest.fixture
def long_game(players: dict[str, Player], game: bytes) -> bytes:
    """A game past its first kept state: its head's is not the only one."""
    play_notes(players, game, SNAPSHOT_EVERY + 5 - players["alliance"].row(game).head_seq)
    return game


@pytest.mark.parametrize("damage", ["garbled", "another state", "missing"])
def test_a_damaged_head_state_is_rebuilt_from_the_packets_and_written_back(
    alice: Player, bob: Player, long_game: bytes, damage: str
) -> None:
    game = long_game
    head = bob.row(game).head_seq
    good = _stored(bob, game, head)
    kept = _kept(bob, game)
    assert kept[-1] == head and len(kept) >= 2
    older = _stored(bob, game, kept[-2])
    _patch(bob, game, head, {"garbled": _garbled(good), "another state": older}.get(damage))
    bob.reopen()  # nothing held in memory: the state is read from the store

    state = bob.replica.state(game)
    assert state.core.seq == head
    assert encode_state(state) == good
    assert _stored(bob, game, head) == good  # written back
    what = "missing" if damage == "missing" else "damaged"
    assert bob.replica.store.repairs == [
        f"game {bob.row(game).name}: the kept state at packet {head} was {what}; "
        f"rebuilt it from the packets (nothing was lost)"
    ]
    bob.reopen()
    assert encode_state(bob.replica.state(game)) == good
    assert bob.replica.store.repairs == []
    assert bob.replica.verify(game) == bob.row(game).state_hash


@pytest.mark.parametrize("field", ["head", "genesis_id"])
@pytest.mark.parametrize("which", ["head", "older"])
def test_a_kept_state_whose_chain_ids_were_damaged_is_rebuilt(
    players: dict[str, Player],
    alice: Player,
    bob: Player,
    long_game: bytes,
    field: str,
    which: str,
) -> None:
    """A kept state's chain ids (the last packet's id, the genesis's) are kept out of its
    hash, which packets vouch for: damaged, the hash still checked, and the next packet did
    not follow the state (refused as damaged, for good). They are checked against the
    stored packets now."""
    game = long_game
    kept = _kept(bob, game)
    seq = kept[-1] if which == "head" else kept[-2]
    good = _stored(bob, game, seq)
    state = decode_state(good, RULESET.state_type)
    flipped = bytes([getattr(state, field)[0] ^ 0x10]) + getattr(state, field)[1:]
    _patch(bob, game, seq, encode_state(msgspec.structs.replace(state, **{field: flipped})))
    bob.reopen()

    assert encode_state(bob.replica.state(game, at=seq)) == good
    assert _stored(bob, game, seq) == good  # written back
    play_notes(players, game, 2)
    assert bob.row(game).state_hash == alice.row(game).state_hash
    assert bob.count("rejected") == 0


def test_a_damaged_older_state_is_passed_over_and_rebuilt_when_replayed_through(
    bob: Player, long_game: bytes
) -> None:
    game = long_game
    kept = _kept(bob, game)
    at = kept[-2]  # a kept state before the head
    assert at > 0
    good = _stored(bob, game, at)
    _patch(bob, game, at, _garbled(good))
    bob.reopen()

    assert bob.replica.state(game, at=at + 2).core.seq == at + 2
    assert encode_state(bob.replica.state(game, at=at)) == good
    assert _stored(bob, game, at) == good
    assert len(bob.replica.store.repairs) == 1


def test_a_kept_state_filed_under_another_position_is_not_served_for_it(
    alice: Player, bob: Player, long_game: bytes
) -> None:
    """A kept state whose position was damaged (the state of packet K kept as K + 1's)
    decodes and hashes to the hash kept with it: it is still the wrong state for K + 1."""
    game = long_game
    at = _kept(bob, game)[-2]
    with bob.replica.store.transaction() as db:
        db.execute("UPDATE snapshots SET seq = ? WHERE game_id = ? AND seq = ?", (at + 1, game, at))
    bob.reopen()
    assert encode_state(bob.replica.state(game, at=at + 1)) == encode_state(
        alice.replica.state(game, at=at + 1)
    )
    assert encode_state(bob.replica.state(game, at=at)) == encode_state(
        alice.replica.state(game, at=at)
    )
    head = bob.row(game).head_seq  # and an older state filed as the head's
    with bob.replica.store.transaction() as db:
        db.execute("DELETE FROM snapshots WHERE game_id = ? AND seq = ?", (game, head))
        moved = db.execute(
            "UPDATE snapshots SET seq = ? WHERE game_id = ? AND seq = ?", (head, game, at + 1)
        )
        assert moved.rowcount == 1
    bob.reopen()
    assert bob.replica.state(game).core.seq == head
    assert encode_state(bob.replica.state(game)) == encode_state(alice.replica.state(game))


def test_a_stray_kept_state_past_the_head_is_replaced_as_the_game_goes_on(
    players: dict[str, Player], alice: Player, bob: Player, long_game: bytes
) -> None:
    """The head's kept state filed one packet on (its position damaged): the head's is
    rebuilt, and the next packet's state takes the stray row's place, instead of failing
    on a row already there."""
    game = long_game
    head = bob.row(game).head_seq
    with bob.replica.store.transaction() as db:
        db.execute(
            "UPDATE snapshots SET seq = ? WHERE game_id = ? AND seq = ?", (head + 1, game, head)
        )
    bob.reopen()
    play_notes(players, game, 3)
    assert bob.row(game).head_seq == alice.row(game).head_seq == head + 3
    assert bob.row(game).state_hash == alice.row(game).state_hash
    assert bob.count("rejected") == 0
    assert bob.replica.verify(game) == alice.row(game).state_hash
    for seq in (head + 1, head + 2):
        assert encode_state(bob.replica.state(game, at=seq)) == encode_state(
            alice.replica.state(game, at=seq)
        )


def test_every_kept_state_damaged_rebuilds_from_the_genesis(bob: Player, long_game: bytes) -> None:
    game = long_game
    head = bob.row(game).head_seq
    good = _stored(bob, game, head)
    for seq in _kept(bob, game):
        _patch(bob, game, seq, b"\xc1")
    bob.reopen()
    assert encode_state(bob.replica.state(game)) == good


def test_the_command_line_says_what_it_rebuilt_and_goes_on(
    bob: Player, long_game: bytes, tmp_path: Path
) -> None:
    game = long_game
    head = bob.row(game).head_seq
    _patch(bob, game, head, _garbled(_stored(bob, game, head)))
    name = bob.row(game).name
    bob.close()
    done = subprocess.run(
        [sys.executable, "-m", "tui.cli", "--home", str(bob.home.path), "games"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert name in done.stdout
    assert done.stderr == (
        f"hexpost: game {name}: the kept state at packet {head} was damaged; "
        "rebuilt it from the packets (nothing was lost)\n"
    )
    bob.reopen()
    assert bob.replica.store.repairs == []  # written back: read clean now
    bob.replica.state(game)
    assert bob.replica.store.repairs == []


def test_damaged_events_are_rebuilt_from_their_packet_and_written_back(
    bob: Player, long_game: bytes
) -> None:
    """A packet's events (what the log and the review show) are the engine's output for that
    packet: events that no longer decode are made again by applying it to the state before."""
    game = long_game
    good = bob.replica.events(game)
    seqs = sorted({seq for seq, _ in good})
    hit = [seqs[1], seqs[len(seqs) // 2], seqs[-1]]
    with bob.replica.store.transaction() as db:
        for seq in hit:
            db.execute(
                "UPDATE events SET event = x'c1' WHERE game_id = ? AND seq = ? AND idx = 0",
                (game, seq),
            )
    bob.reopen()

    assert bob.replica.events(game) == good
    assert bob.replica.events(game, hit[1]) == [(s, e) for s, e in good if s <= hit[1]]
    name = bob.row(game).name
    assert bob.replica.store.repairs == [
        f"game {name}: the kept events of packet {seq} were damaged; "
        "rebuilt them from the packets (nothing was lost)"
        for seq in hit
    ]
    bob.reopen()
    assert bob.replica.events(game) == good
    assert bob.replica.store.repairs == []


def test_events_that_still_decode_but_were_changed_or_lost_are_rebuilt(
    bob: Player, long_game: bytes
) -> None:
    """Damage that leaves events readable: one packet's first event swapped for another
    packet's (it decodes, and says what that packet did), one packet's event row deleted.
    Before, the log showed the wrong event and left the other out, with nothing said: a
    digest of each packet's events is now kept with the packet, and events unlike it are
    made again from the packet."""
    game = long_game
    good = bob.replica.events(game)
    seqs = sorted({seq for seq, _ in good})
    swapped, lost, donor = seqs[2], seqs[len(seqs) // 2], seqs[-1]
    with bob.replica.store.transaction() as db:
        ((other,),) = db.execute(
            "SELECT event FROM events WHERE game_id = ? AND seq = ? AND idx = 0", (game, donor)
        ).fetchall()
        db.execute(
            "UPDATE events SET event = ? WHERE game_id = ? AND seq = ? AND idx = 0",
            (other, game, swapped),
        )
        gone = db.execute(
            "DELETE FROM events WHERE game_id = ? AND seq = ? AND idx = 0", (game, lost)
        )
        assert gone.rowcount == 1
    bob.reopen()

    assert bob.replica.events(game) == good
    name = bob.row(game).name
    assert bob.replica.store.repairs == [
        f"game {name}: the kept events of packet {seq} were damaged; "
        "rebuilt them from the packets (nothing was lost)"
        for seq in (swapped, lost)
    ]
    bob.reopen()
    assert bob.replica.events(game) == good
    assert bob.replica.store.repairs == []


def test_a_home_from_before_event_digests_reads_its_events_and_keeps_digests_from_then_on(
    players: dict[str, Player], bob: Player, long_game: bytes
) -> None:
    """A home made before schema 6 has no digest column: opening it adds one, its packets
    then have none (their events are read unchecked, as before), and every packet stored
    from then on has its events' digest kept with it."""
    game = long_game
    good = bob.replica.events(game)
    path = bob.replica.store.path
    bob.close()
    make_older(path, "packets", "events_digest", 5)
    bob.reopen()
    store = bob.replica.store
    assert store.one("SELECT value FROM meta WHERE key = 'schema'") == ("6",)
    assert store.one("SELECT COUNT(*) FROM packets WHERE events_digest IS NOT NULL") == (0,)
    assert bob.replica.events(game) == good
    head = bob.row(game).head_seq
    play_notes(players, game, 2)
    digested = store.all(
        "SELECT seq FROM packets WHERE game_id = ? AND events_digest IS NOT NULL", (game,)
    )
    assert [seq for (seq,) in digested] == [head + 1, head + 2]
    assert bob.replica.events(game)[: len(good)] == good
    assert bob.replica.store.repairs == []


class KeptGame(NamedTuple):
    """A home (closed) holding a game of several kept states, a battle's secrets among its
    packets, and what reading it gave before any damage."""

    home: Path
    game: bytes
    head: bytes
    states: dict[int, bytes]
    events: list[tuple[int, Event]]


@pytest.fixture(scope="module")
def kept_game(tmp_path_factory: pytest.TempPathFactory) -> KeptGame:
    root = tmp_path_factory.mktemp("kept")
    network = LoopbackNetwork()
    alice = Player(root / "alice", "Alice", "alice@example.org", network)
    bob = Player(root / "bob", "Bob", "bob@example.org", network)
    try:
        game = start_game(alice, bob)
        players = {"coalition": alice, "alliance": bob}
        play_notes(players, game, 2 * SNAPSHOT_EVERY + 10 - bob.row(game).head_seq)
        to_battle(players, game)
        play_secrets(players, game)
        head = bob.row(game).head_seq
        states = {seq: encode_state(bob.replica.state(game, at=seq)) for seq in range(0, head, 9)}
        return KeptGame(
            bob.home.path,
            game,
            encode_state(bob.replica.state(game)),
            states,
            bob.replica.events(game),
        )
    finally:
        alice.close()
        bob.close()


def _damage_at_random(path: Path, game: bytes, rng: random.Random) -> None:
    """Damage kept states (a bit flipped, cut short, lost, or another's bytes) and cut kept
    events short, as a failing disk might; the packets stay whole."""
    db = sqlite3.connect(path)
    try:
        kept = [
            int(row[0])
            for row in db.execute("SELECT seq FROM snapshots WHERE game_id = ?", (game,))
        ]
        events = [
            int(row[0]) for row in db.execute("SELECT rowid FROM events WHERE game_id = ?", (game,))
        ]
        for _ in range(rng.randint(1, 6)):
            if rng.random() < 0.3:
                rowid = rng.choice(events)
                (data,) = db.execute(
                    "SELECT event FROM events WHERE rowid = ?", (rowid,)
                ).fetchone()
                cut = bytes(data)[: rng.randrange(len(data))]
                db.execute("UPDATE events SET event = ? WHERE rowid = ?", (cut, rowid))
                continue
            seq = rng.choice(kept)
            (data,) = db.execute(
                "SELECT state FROM snapshots WHERE game_id = ? AND seq = ?", (game, seq)
            ).fetchone()
            state = bytearray(data)
            how = rng.choice(("flip", "cut", "lose", "another's"))
            if how == "lose":
                db.execute("DELETE FROM snapshots WHERE game_id = ? AND seq = ?", (game, seq))
                kept.remove(seq)
                continue
            if how == "flip":
                state[rng.randrange(len(state))] ^= 1 << rng.randrange(8)
            elif how == "cut":
                del state[rng.randrange(len(state)) :]
            else:
                (state,) = db.execute(
                    "SELECT state FROM snapshots WHERE game_id = ? AND seq = ?",
                    (game, rng.choice(kept)),
                ).fetchone()
            db.execute(
                "UPDATE snapshots SET state = ? WHERE game_id = ? AND seq = ?",
                (bytes(state), game, seq),
            )
        db.commit()
    finally:
        db.close()


@pytest.mark.parametrize("seed", range(16))
def test_random_damage_to_kept_states_and_events_reads_as_before(
    kept_game: KeptGame, tmp_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    home = tmp_path / "home"
    shutil.copytree(kept_game.home, home)
    _damage_at_random(home / "hexpost.sqlite3", kept_game.game, rng)
    player = Player(home, "Bob", "bob@example.org", LoopbackNetwork())
    try:
        game = kept_game.game
        listing.summaries(player.replica)
        assert encode_state(player.replica.state(game)) == kept_game.head
        for seq in rng.sample(sorted(kept_game.states), 6):
            assert encode_state(player.replica.state(game, at=seq)) == kept_game.states[seq]
        assert player.replica.events(game) == kept_game.events
        assert player.replica.verify(game) == player.row(game).state_hash
    finally:
        player.close()
