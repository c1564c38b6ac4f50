"""P4 across interpreters: the golden chains, and a random campaign played here, replay to the
same hashes on Python 3.11 to 3.13.

The other interpreters are named in ``HEXPOST_OTHER_PYTHONS`` (paths separated by ``:``),
each with msgspec and cryptography installed; `.ci/run` prepares them when the machine has
them. Without any, the test is skipped (and says so). hexpost is not installed there, so no
entry point names the ruleset: the replay takes F&E's `RULESET` straight from its package.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import msgspec
import pytest

from engine.fe import RULESET
from tests.engine.fe_random_campaign import play_random_campaign
from tests.golden.companion import GoldenGame
from tests.golden.regen import HERE

ROOT = Path(__file__).resolve().parents[2]
PYTHONS = [p for p in os.environ.get("HEXPOST_OTHER_PYTHONS", "").split(":") if p]

GOLDEN_GAMES = ("fe_checklist", "fe_wind", "fe_battle", "fe_campaign", "fe_wander")

REPLAY = """
import sys, msgspec
from pathlib import Path
from engine.core.game import apply_packet
from engine.core.packets import key_id, open_packet
from engine.fe import RULESET as ruleset
from tests.golden.regen import HERE, GoldenGame
for path in sys.argv[1:]:
    name = Path(path).name
    golden = msgspec.msgpack.decode(Path(path).read_bytes(), type=GoldenGame)
    keys, state = {}, None
    for seq, (data, expected) in enumerate(zip(golden.packets, golden.hashes)):
        packet = open_packet(data, lambda kid: [keys[kid]] if kid in keys else [])
        if packet.envelope.public_key:
            keys[key_id(packet.envelope.public_key)] = packet.envelope.public_key
        result = apply_packet(ruleset, state, packet)
        assert result.state_hash == expected, f"{name}: state hash moved at packet {seq}"
        state = result.state
    print(sys.version_info[:2], name, result.state_hash.hex())
"""


@pytest.mark.skipif(not PYTHONS, reason="HEXPOST_OTHER_PYTHONS names no other interpreter")
@pytest.mark.parametrize("python", PYTHONS)
def test_golden_chain_on_other_python(python: str) -> None:
    games = [str(HERE / f"{name}.msgpack") for name in GOLDEN_GAMES]
    _replays(python, games)


@pytest.mark.skipif(not PYTHONS, reason="HEXPOST_OTHER_PYTHONS names no other interpreter")
@pytest.mark.parametrize("python", PYTHONS)
def test_random_campaign_on_other_python(python: str, tmp_path: Path) -> None:
    """A game no script wrote (`tests.engine.fe_random_campaign`), played on this Python."""
    table = play_random_campaign(RANDOM_SEED, 2, wander=True)
    game = GoldenGame(
        ruleset=RULESET.id,
        description=f"a random campaign, seed {RANDOM_SEED}",
        packets=[packet.data for packet in table.packets],
        hashes=[result.state_hash for result in table.results],
    )
    path = tmp_path / "random_campaign.msgpack"
    path.write_bytes(msgspec.msgpack.encode(game))
    _replays(python, [str(path)])


RANDOM_SEED = 9


def _replays(python: str, games: list[str]) -> None:
    done = subprocess.run(
        [python, "-c", REPLAY, *games],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "random"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
