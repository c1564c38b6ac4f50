"""The text companion of golden files reads any ruleset's game, and cannot be fooled by it.

The toy ruleset of the engine tests is a second ruleset with orders, a roll, a secret step,
chat and resignation: if the companion only worked for F&E, these would fail.
"""

from __future__ import annotations

import json
import re

import pytest

from engine.core.errors import ChainError
from engine.core.packets import Chat, Resign
from tests.engine.table import Table
from tests.engine.toy import TOY, Roll, Say
from tests.golden.companion import (
    CompanionError,
    GoldenGame,
    companion_text,
    counted,
    plain,
)

HEADER = re.compile(r"^(\d+) (\S+) (\S+)  state ([0-9a-f]{16})$")


def _golden(table: Table) -> GoldenGame:
    return GoldenGame(
        ruleset=f"{TOY.id}/{TOY.version}",
        description="a toy game",
        packets=[p.data for p in table.packets],
        hashes=[r.state_hash for r in table.results],
    )


def _toy_game() -> Table:
    table = Table(TOY, "duel", ["north", "south"], label="companion")
    table.orders("north", Roll(2, 6, "capture 305.1"))
    table.entropy_only("south")
    table.orders("north", Say("hello"))
    table.orders("south", Say("hi there"))
    table.commit("north", 4)
    table.commit("south", 5, reveal_now=True)
    table.reveal("north")
    table.write("north", Chat("good game"))
    table.write("north", Resign("out of time"))
    return table


def _blocks(text: str) -> dict[int, list[str]]:
    """The lines of each packet's block, by seq (the header line first)."""
    blocks: dict[int, list[str]] = {}
    current: list[str] = []
    for line in text.splitlines():
        if match := HEADER.match(line):
            current = blocks.setdefault(int(match[1]), [])
        if not line.startswith("#") and line:
            current.append(line)
    return blocks


def test_a_toy_game_reads_packet_by_packet_in_plain_words() -> None:
    table = _toy_game()
    blocks = _blocks(companion_text("toy.msgpack", _golden(table), TOY))
    assert sorted(blocks) == list(range(len(table.packets)))
    for seq, (packet, result) in enumerate(zip(table.packets, table.results, strict=True)):
        header = HEADER.match(blocks[seq][0])
        assert header is not None
        assert header[2] == packet.body.seat
        assert header[4] == result.state_hash.hex()[:16]
    flat = {seq: "\n".join(lines) for seq, lines in blocks.items()}
    assert flat[0].startswith("0 north genesis")
    assert "game    new game companion: toy/1.2 scenario duel" in flat[0]
    assert "options fast=false" in flat[0]
    assert flat[1].startswith("1 south join") and "join    South <south@example.org>" in flat[1]
    assert 'order   roll count=2 sides=6 purpose="capture 305.1"' in flat[2]
    assert flat[3].startswith("3 south entropy")
    assert "event   north rolled 2d6 for capture 305.1" in flat[3]
    assert "order   say text=hello\n  event   hello" in flat[4]
    assert 'order   say text="hi there"' in flat[5]
    assert "commit  R1/pick" in flat[6] and "reveal" not in flat[6]
    assert "commit  R1/pick\n  reveal  R1/pick: 5" in flat[7]
    assert "reveal  R1/pick: 4" in flat[8]
    assert "event   picks {'north': 4, 'south': 5}" in flat[8]
    assert flat[9].startswith("9 north chat") and 'chat    "good game"' in flat[9]
    assert flat[10].startswith("10 north resign") and 'resign  "out of time"' in flat[10]


@pytest.mark.parametrize("brk", ["\n", "\u2028", "\x85", "\x1e"])
def test_a_line_break_in_an_order_cannot_forge_a_packet_block(brk: str) -> None:
    table = Table(TOY, "duel", ["north", "south"], label="forge")
    forged = f"hi{brk}{brk}7 south turn  state 0000000000000000{brk}  event   south wins\x1b[2J"
    table.orders("north", Say(forged))
    text = companion_text("toy.msgpack", _golden(table), TOY)
    assert text.splitlines() == text.split("\n")[:-1]
    assert sorted(_blocks(text)) == [0, 1, 2]
    assert not any("south wins" in line and "2J" not in line for line in text.splitlines())
    escaped = json.dumps(forged)[1:-1]
    assert f'order   say text="{escaped[:30]}' in text
    assert f'event   "{escaped[:30]}' in text


def test_a_golden_whose_recorded_hash_is_wrong_gets_no_companion() -> None:
    golden = _golden(_toy_game())
    golden.hashes[4] = bytes(32)
    with pytest.raises(CompanionError, match=r"toy.msgpack: packet 4 replays to state hash"):
        companion_text("toy.msgpack", golden, TOY)
    golden.hashes.pop()
    with pytest.raises(CompanionError, match=r"11 packets but 10 state hashes"):
        companion_text("toy.msgpack", golden, TOY)


def test_long_events_wrap_under_their_label() -> None:
    table = Table(TOY, "duel", ["north", "south"], label="long")
    table.orders("north", Say("x " * 80))
    lines = companion_text("toy.msgpack", _golden(table), TOY).splitlines()
    assert all(len(line) <= 100 for line in lines)
    event = lines.index("  event   " + "x " * 44 + "x")
    assert lines[event + 1].startswith(" " * 14 + "x x")


def test_runs_of_the_same_order_are_counted_not_repeated() -> None:
    said = counted(["done", "done", "done", "batch", "done", "done"])
    assert said == ["done (x3)", "batch", "done (x2)"]


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ({"type": "move", "units": ["F1", "F2"], "path": ["0303", "0402"]},
         "move units=[F1, F2] path=[0303, 0402]"),
        ({"type": "done"}, "done"),
        ({"type": "adjust", "reason": "combat at 0701: round 1"},
         'adjust reason="combat at 0701: round 1"'),
        ({"a": {"b": 1}, "c": [{"d": None}], "e": True}, "a={b=1} c=[{d=null}] e=true"),
        ({}, "{}"),
        ("x=y", '"x=y"'),
        ("", '""'),
        ("tab\there", '"tab\\there"'),
        (b"\x01\xff", "0x01ff"),
        (2.5, "2.5"),
    ],
)  # fmt: skip
def test_plain_says_json_values_compactly_and_unambiguously(value: object, said: str) -> None:
    assert plain(value) == said


def test_the_companion_replays_the_bytes_and_refuses_a_broken_chain() -> None:
    golden = _golden(_toy_game())
    golden.packets[4], golden.packets[5] = golden.packets[5], golden.packets[4]
    with pytest.raises(ChainError, match=r"packet 5 does not follow packet 3"):
        companion_text("toy.msgpack", golden, TOY)
