"""P4: the same chain gives the same state hash whatever PYTHONHASHSEED is."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
from tests.engine.table import Table
from tests.engine.toy import TOY, Roll, Say
from engine.core.state import state_hash
t = Table(TOY, "duel", ["north", "south"], label="determinism")
t.orders("north", Roll(3, 6, "test"))
t.entropy_only("south")
t.orders("north", Say("b"))
t.orders("south", Say("c"))
t.commit("north", 3)
t.commit("south", 6, reveal_now=True)
t.reveal("north")
print(state_hash(t.state).hex(), t.packets[-1].packet_id.hex())
"""


@pytest.mark.parametrize("module", ["toy", "fe", "fe-wind"])
def test_same_chain_same_hash_under_any_hash_seed(module: str) -> None:
    script = {"toy": SCRIPT, "fe": FE_SCRIPT, "fe-wind": WIND_SCRIPT}[module]
    outputs = set()
    for seed in ("0", "1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        done = subprocess.run(
            [sys.executable, "-c", script],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        outputs.add(done.stdout.strip())
    assert len(outputs) == 1, outputs


FE_SCRIPT = """
from tests.engine.fe_play import play_sample_fe_game
from engine.core.state import state_hash
t = play_sample_fe_game()
print(state_hash(t.state).hex(), t.packets[-1].packet_id.hex())
"""

WIND_SCRIPT = """
from tests.engine.fe_wind import play_wind_turns
from engine.core.state import state_hash
t = play_wind_turns()
print(state_hash(t.state).hex(), t.packets[-1].packet_id.hex())
"""
