"""Map marks benchmark: from the key that asks where a stack may go to the marks on the map.

    .venv/bin/python bench/tui_marks.py [--presses 10]

Builds two homes of The Wind (joined and set up by both seats, as `bench/tui.py`'s), one
walked to the coalition's operational movement (3B2) and one to its strategic movement
(8A), with plain ``done``s (`tests.tui.test_app.walk_to`). In each, the real app opens
headless at 80x24 on the coalition's home, the cursor goes to the coalition's largest stack
that has somewhere to go (all its ships, as ``m`` ticks them), ``Enter`` ``o`` ``m`` open
the stack order with every unit ticked, and it times:

  (m) at 3B2, the ``Enter`` that takes the units: the move starts and the hexes next to the
      stack where the move may stop are marked (the store thread asks the ruleset's face,
      `engine.core.face.Destinations`, which checks each);
  (p) at 3B2, the ``Enter`` on the first marked hex: the path grows and the marks move one
      hex on;
  (s) at 8A, the ``Enter`` that takes the units: the strategic movement nodes they may
      reach are marked (or the status line says why none).

Each from ``pilot.press`` to the end of the last repaint that changed a cell of the screen
(`bench/tui_keys.py`'s measure, after the app is idle and its workers done), with Escape
and a pause between presses. The floor in the same run is `bench/tui_designer.py`'s app (a
key, a change message, a repaint: Textual's own cost). It prints medians, ratios to the
floor, how many hexes were marked and the repaints that changed the screen; it asserts
nothing. Issue 16's target: every widget a key changes repainted within 16 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.machine import describe  # noqa: E402
from bench.tui_keys import PAUSE, Key, measured_floor, report, timed_key  # noqa: E402


def build_home(root: Path, step: str) -> tuple[Path, int]:
    """Alice's (the coalition's) home with The Wind walked to ``step``, and the hex of the
    coalition's largest stack there that the face lists somewhere to go for."""
    from engine.fe import FACE
    from mail.loopback import LoopbackNetwork
    from tests.saves import conftest as saves
    from tests.tui.test_app import Tutorial, walk_to

    network = LoopbackNetwork()
    alice = saves.Player(root / "alice", "Alice", "alice@example.org", network)
    bob = saves.Player(root / "bob", "Bob", "bob@example.org", network)
    game_id = saves.start_game(alice, bob)
    walk_to(Tutorial(alice, bob, network, game_id), step)
    rules = alice.replica.state(game_id).rules
    assert rules is not None
    order = "move" if step == "3B2" else "strategic"
    stacks: dict[int, list[str]] = {}
    for piece in FACE.board(rules).pieces:  # what ``m`` ticks: the seat's pieces but bases
        if piece.side in ("KLI", "LYR") and piece.hex and "base" not in piece.marks:
            stacks.setdefault(int(piece.hex), []).append(piece.id)
    going = {
        h: len(ids)
        for h, ids in stacks.items()
        if (found := FACE.destinations(rules, "coalition", order, tuple(ids))) and found.hexes
    }
    path = Path(alice.home.path)
    alice.close()
    bob.close()
    return path, max(going, key=lambda h: (going[h], -h))


async def marks(home: Path, at: int, presses: int, path_too: bool) -> dict[str, list[Key]]:
    from saves.home import Home
    from tests.tui.test_app import open_game, settle
    from tui.app import HexpostApp
    from tui.startup import hold_collector, thaw
    from tui.widgets.hexmap import HexMap

    timings: dict[str, list[Key]] = {}
    counts: dict[str, list[int]] = {}
    app = HexpostApp(Home(home))
    hold_collector()
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_game(pilot)
            hexmap = screen.query_one(HexMap)
            for _ in range(presses):
                hexmap.cursor = at
                hexmap.focus()
                await pilot.pause()
                await pilot.press("enter", "o", "m")
                await settle(pilot)
                await pilot.pause(PAUSE)
                name = "move units" if path_too else "strategic"
                timings.setdefault(name, []).append(await timed_key(pilot, "enter"))
                counts.setdefault(name, []).append(len(hexmap.targets))
                if path_too and hexmap.targets:
                    await pilot.pause(PAUSE)
                    hexmap.cursor = min(hexmap.targets)
                    await settle(pilot)
                    timings.setdefault("path hex", []).append(await timed_key(pilot, "enter"))
                    counts.setdefault("path hex", []).append(len(hexmap.targets))
                await pilot.press("escape")
                await settle(pilot)
                await pilot.pause(PAUSE)
    finally:
        thaw()
    for name, each in counts.items():
        print(f"  {name}: {statistics.median(each):.0f} hexes marked (median)")
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--presses", type=int, default=10)
    args = parser.parse_args()
    print(describe())
    with tempfile.TemporaryDirectory() as root:
        moving, moving_at = build_home(Path(root) / "3b2", "3B2")
        strategic, strategic_at = build_home(Path(root) / "8a", "8A")
        floor = measured_floor()
        print(f"The Wind at 3B2, the coalition's stack in {moving_at:04d}:")
        timings: dict[str, Any] = asyncio.run(marks(moving, moving_at, args.presses, True))
        print(f"The Wind at 8A, the coalition's stack in {strategic_at:04d}:")
        timings |= asyncio.run(marks(strategic, strategic_at, args.presses, False))
    report(timings, floor)


if __name__ == "__main__":
    main()
