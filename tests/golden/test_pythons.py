"""P4 across interpreters: the golden chains replay to the same hashes on Python 3.11 to 3.13.

The other interpreters are named in ``HEXPOST_OTHER_PYTHONS`` (paths separated by ``:``),
each with msgspec and cryptography installed; `.ci/run` prepares them when the machine has
them. Without any, the test is skipped (and says so). hexpost is not installed there, so no
entry point names the ruleset: the replay takes F&E's `RULESET` straight from its package.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYTHONS = [p for p in os.environ.get("HEXPOST_OTHER_PYTHONS", "").split(":") if p]

REPLAY = """
import sys, msgspec
from engine.core.game import apply_packet
from engine.core.packets import key_id, open_packet
from engine.fe import RULESET as ruleset
from tests.golden.regen import HERE, GoldenGame
for name in ("fe_checklist.msgpack", "fe_wind.msgpack"):
    golden = msgspec.msgpack.decode((HERE / name).read_bytes(), type=GoldenGame)
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
    done = subprocess.run(
        [python, "-c", REPLAY],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "random"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
