"""Packets and hand-offs of a recorded game, read from a golden file's text companion.

    .venv/bin/python bench/golden_handoffs.py [tests/golden/fe_wind.txt ...]

Pace is counted in hand-offs: each time the next packet is written by another seat than the
last one, an email round trip passes. The companions (`tests.golden.companion`) start every
packet's block with ``seq seat kind``, so the count needs nothing but the text: compare it
before and after a change to the sequence of play (``git show REV:tests/golden/fe_wind.txt``
piped to ``-``).
"""

from __future__ import annotations

import re
import sys
from itertools import pairwise
from pathlib import Path

BLOCK = re.compile(r"^(\d+) (\S+) (\S+)\s", re.MULTILINE)


def count(text: str) -> tuple[int, int]:
    """(packets, hand-offs) of a companion's text."""
    seats = [match.group(2) for match in BLOCK.finditer(text)]
    return len(seats), sum(1 for a, b in pairwise(seats) if a != b)


def main(argv: list[str]) -> int:
    paths = argv or ["tests/golden/fe_wind.txt"]
    for name in paths:
        text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
        packets, handoffs = count(text)
        print(f"{name}: {packets} packets, {handoffs} hand-offs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
