"""Rewrite the golden game files after an intended change of the rules or the encoding.

    .venv/bin/python -m tests.golden.regen

Review the diff of the test that then passes: a golden file changes only on purpose.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from engine.core.game import apply_packet
from engine.core.state import state_hash
from tests.engine.fe_play import play_sample_fe_game

HERE = Path(__file__).parent


class GoldenGame(msgspec.Struct):
    """A recorded chain with the state hash expected after each packet."""

    ruleset: str
    description: str
    packets: list[bytes]
    hashes: list[bytes]


def fe_checklist() -> GoldenGame:
    table = play_sample_fe_game()
    state = None
    hashes = []
    for packet in table.packets:
        result = apply_packet(table.ruleset, state, packet)
        state = result.state
        hashes.append(result.state_hash)
        assert result.state_hash == state_hash(state)
    return GoldenGame(
        ruleset="fe/2.0",
        description=(
            "The Wind: set-up, a roll, secret steps, a standing order, a combat loop (back)"
        ),
        packets=[p.data for p in table.packets],
        hashes=hashes,
    )


GOLDEN = {"fe_checklist.msgpack": fe_checklist}


def main() -> None:
    for name, make in GOLDEN.items():
        (HERE / name).write_bytes(msgspec.msgpack.encode(make()))
        print(f"wrote {HERE / name}")


if __name__ == "__main__":
    main()
