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
from tests.engine.fe_wind import play_wind_turns
from tests.engine.table import Table

HERE = Path(__file__).parent


class GoldenGame(msgspec.Struct):
    """A recorded chain with the state hash expected after each packet."""

    ruleset: str
    description: str
    packets: list[bytes]
    hashes: list[bytes]


def fe_checklist() -> GoldenGame:
    return _record(
        play_sample_fe_game(),
        "The Wind: set-up, a roll, secret steps, a standing order, a combat loop (back)",
    )


def fe_wind() -> GoldenGame:
    return _record(
        play_wind_turns(),
        "The Wind: set-up and both player turns of turn 1 (income, builds, movement batches "
        "with a reaction window, battle, typed adjustments, strategic move, reserves)",
    )


def _record(table: Table, description: str) -> GoldenGame:
    state = None
    hashes = []
    for packet in table.packets:
        result = apply_packet(table.ruleset, state, packet)
        state = result.state
        hashes.append(result.state_hash)
        assert result.state_hash == state_hash(state)
    return GoldenGame(
        ruleset=f"{table.ruleset.id}/{table.ruleset.version}",
        description=description,
        packets=[p.data for p in table.packets],
        hashes=hashes,
    )


GOLDEN = {"fe_checklist.msgpack": fe_checklist, "fe_wind.msgpack": fe_wind}


def main() -> None:
    for name, make in GOLDEN.items():
        (HERE / name).write_bytes(msgspec.msgpack.encode(make()))
        print(f"wrote {HERE / name}")


if __name__ == "__main__":
    main()
