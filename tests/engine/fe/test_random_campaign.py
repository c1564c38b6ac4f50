"""Random campaigns of The Wind replay to the same state hashes with every cache emptied.

The engine carries what it has read of a board (indexes, occupancy, supply grids, release
lookups, unit classes, highest ids) to the boards a move, a build, a battle or a retreat
makes from it. The golden games check those carried views along their scripts; here games
played with random choices (`tests.engine.fe_random_campaign`: builds, batches of moves
toward random hexes, reactions, battles fought on or left; and in the wandering games the
other orders each step takes, drawn from the board) are replayed from their packets'
bytes with every cache emptied and the state decoded afresh before every third packet, and
must give exactly the state hash each packet carries. A view carried wrong along any of
these paths changes a hash (or a refusal), and so would split two players' copies of a game.

The same games played in other processes, under other ``PYTHONHASHSEED`` values, must give
the same packets: nothing the random play reaches may depend on the order of hashing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.core import caches
from engine.core.game import apply_packet
from engine.core.packets import key_id, open_packet
from engine.core.state import AnyState, decode_state, encode_state, state_hash
from engine.fe import RULESET
from tests.engine.fe_random_campaign import play_random_campaign
from tests.engine.table import Table

ROOT = Path(__file__).resolve().parents[3]

SEEDS = ((6, False), (9, True), (24, True))
"""Each game's seed, and whether it wanders (`play_random_campaign`: orders of each step's
own types drawn from the board as well, `tests.engine.fe_random_orders`)."""
TURNS = 3
"""Each seed's game: the set-up and three turns (seed 6's 447 packets: 29 moves, reactions
and battles; the wandering games 500-930 packets, with capture attempts, conversions, supply
missions, withdrawals before combat and approach battles). The seeds are re-picked when a
rules change moves the random games off what they showed: (8, 9, 17) until fe 5.10, whose
joined battle-force choice left seed 8's with 13 moves and seed 17's without a capture.
Seed 7 played the scripts' part until fe 5.3."""
WANDERING = ("capture", "convert", "mission", "withdrawal", "approach")
"""What a wandering game must reach besides the others' events."""
CLEAR_EVERY = 3
"""Packets between two emptyings of the caches: before every third packet, so a packet
reads views carried zero, one or two packets (before every one, the replay takes three
times as long: about 12 s for the two games)."""


def _cold_replay_hashes(table: Table) -> list[bytes]:
    """The state hash after each of the table's packets, replayed from their bytes with
    every cache emptied, and the state decoded from its canonical bytes, before every
    `CLEAR_EVERY`-th (the packets between find the views of the packets before them)."""
    keys: dict[bytes, bytes] = {}
    state: AnyState | None = None
    hashes: list[bytes] = []
    for seq, packet in enumerate(table.packets):
        if seq % CLEAR_EVERY == 0:
            caches.clear_all()
            if state is not None:
                state = decode_state(encode_state(state), RULESET.state_type)
        opened = open_packet(packet.data, lambda kid: [keys[kid]] if kid in keys else [])
        if opened.envelope.public_key:
            keys[key_id(opened.envelope.public_key)] = opened.envelope.public_key
        result = apply_packet(RULESET, state, opened)
        hashes.append(result.state_hash)
        state = result.state
    return hashes


@pytest.fixture(scope="module", params=SEEDS, ids=lambda p: f"seed{p[0]}{'-wander' * p[1]}")
def played(request: pytest.FixtureRequest) -> tuple[Table, bool]:
    seed, wander = request.param
    return play_random_campaign(seed, TURNS, wander=wander), wander


@pytest.fixture(scope="module")
def game(played: tuple[Table, bool]) -> Table:
    return played[0]


def test_a_random_campaign_goes_where_the_scripts_do_not(played: tuple[Table, bool]) -> None:
    """The random play reaches the rules areas the views are carried through."""
    game, wanders = played
    kinds = [event.kind for event in game.events]
    expected = ("build", "move", "batch", "react", "battle", "damage", "retreat", "release")
    for kind in expected + (WANDERING if wanders else ()):
        assert kind in kinds, f"the random campaign had no {kind!r} event"
    assert kinds.count("move") >= 20


def test_a_random_campaign_replays_cold_to_the_same_hashes(game: Table) -> None:
    # (`apply_packet` checks each packet's own state hash: a view carried wrong fails here
    # as "desync at packet N")
    replayed = _cold_replay_hashes(game)
    played = [result.state_hash for result in game.results]
    wrong = [seq for seq, (a, b) in enumerate(zip(played, replayed, strict=True)) if a != b]
    assert not wrong, f"packets {wrong[:5]} replay cold to other state hashes"


SCRIPT = """
import sys
from engine.core.state import state_hash
from tests.engine.fe_random_campaign import play_random_campaign
t = play_random_campaign(int(sys.argv[1]), int(sys.argv[2]), wander=True)
print(state_hash(t.state).hex(), t.packets[-1].packet_id.hex(), len(t.packets))
"""


def test_a_random_campaign_is_the_same_under_any_hash_seed() -> None:
    seed, turns = SEEDS[-1][0], 2
    here = play_random_campaign(seed, turns, wander=True)
    assert here.state is not None
    expected = (
        f"{state_hash(here.state).hex()} {here.packets[-1].packet_id.hex()} {len(here.packets)}"
    )
    for hash_seed in ("0", "1"):
        done = subprocess.run(
            [sys.executable, "-c", SCRIPT, str(seed), str(turns)],
            cwd=ROOT,
            env=dict(os.environ, PYTHONHASHSEED=hash_seed),
            capture_output=True,
            text=True,
            check=True,
        )
        assert done.stdout.strip() == expected, f"PYTHONHASHSEED={hash_seed}"
