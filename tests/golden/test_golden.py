"""Golden games: recorded chains replayed from their bytes, state hash checked after each packet.

Like python-chess's perft or OpenSpiel's playthroughs, these pin the exact behaviour of a
rules area: any change of encoding, hashing or rules shows up as the first packet whose state
hash moved. Regenerate on purpose only: `python -m tests.golden.regen`.
"""

from __future__ import annotations

import msgspec
import pytest

from engine.core.game import apply_packet
from engine.core.packets import key_id, open_packet
from engine.rulesets import ruleset_for
from tests.golden.regen import GOLDEN, HERE, GoldenGame


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_chain_replays_to_the_recorded_hashes(name: str) -> None:
    golden = msgspec.msgpack.decode((HERE / name).read_bytes(), type=GoldenGame)
    ruleset = ruleset_for(golden.ruleset.split("/")[0])
    keys: dict[bytes, bytes] = {}
    state = None
    assert len(golden.packets) == len(golden.hashes) > 100
    for seq, (data, expected) in enumerate(zip(golden.packets, golden.hashes, strict=True)):
        packet = open_packet(data, lambda kid: [keys[kid]] if kid in keys else [])
        if packet.envelope.public_key:
            keys[key_id(packet.envelope.public_key)] = packet.envelope.public_key
        result = apply_packet(ruleset, state, packet)
        assert result.state_hash == expected, f"{name}: state hash moved at packet {seq}"
        state = result.state


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_script_still_writes_the_same_bytes(name: str) -> None:
    recorded = msgspec.msgpack.decode((HERE / name).read_bytes(), type=GoldenGame)
    fresh = GOLDEN[name]()
    for seq, (old, new) in enumerate(zip(recorded.packets, fresh.packets, strict=True)):
        assert old == new, f"{name}: packet {seq} is written differently now"
