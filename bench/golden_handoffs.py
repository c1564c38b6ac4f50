"""Packets and hand-offs of a recorded game, read from a golden file's text companion.

    .venv/bin/python bench/golden_handoffs.py [tests/golden/fe_wind.txt ...]

Pace is counted in hand-offs: each time the next packet is written by another seat than the
last one, an email round trip passes (`engine.core.pace`). The companions
(`tests.golden.companion`) start every packet's block with ``seq seat kind`` and list what it
carried, an ``order``, ``commit`` or ``reveal`` a line each, so the count needs nothing but
the text: a packet of kind ``entropy``, or a turn with reveals and no order or commitment, is
one an automatic reply writes, and a hand-off answered by such packets alone waits for the
other player's hexpost, not the player. Compare the figures before and after a change to
the sequence of play (``git show REV:tests/golden/fe_wind.txt`` piped to ``-``).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.core import pace  # noqa: E402

BLOCK = re.compile(r"^(\d+) (\S+) (\S+)\s", re.MULTILINE)
CARRIED = re.compile(r"^  (order|commit|reveal) ", re.MULTILINE)
"""A line of a block that says what the packet carried."""


def count(text: str) -> pace.HandOffs:
    """The packets and hand-offs of a companion's text."""
    starts = list(BLOCK.finditer(text))
    packets = []
    for index, match in enumerate(starts):
        end = starts[index + 1].start() if index + 1 < len(starts) else len(text)
        block = text[match.end() : end]
        carried = {line.group(1) for line in CARRIED.finditer(block)}
        automatic = match.group(3) == "entropy" or (
            match.group(3) == "turn" and carried == {"reveal"}
        )
        packets.append((match.group(2), automatic))
    return pace.count(packets)


def main(argv: list[str]) -> int:
    paths = argv or ["tests/golden/fe_wind.txt"]
    for name in paths:
        text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
        print(f"{name}: {count(text)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
