"""Instructions a player turn of The Wind costs, counted by Valgrind's callgrind: a figure that
does not move between runs, for telling whether a change to the engine made it cheaper.

    .venv/bin/python bench/turn_instructions.py [--scale 4] [--still] [--signed]

`bench/turn.py` times the same turn on the wall clock, and on this shared machine its figures
move by several percent from run to run: as much as a change worth making saves. Counting
instructions is deterministic (the same count to within a few hundredths of a percent), so
two versions can be compared one run each.

It builds the turn as `bench/turn.py` does (the coalition's player turn 2, its builds, moves
and arrivals) and counts, in a child under callgrind with collection on only inside one
`functools.reduce` over the turn's packets (start-up, imports and the set-up are not counted),
with the collector off and one hash seed so that the count repeats:

  (a) the floor of `bench/turn.py`: verifying the signature of each packet and decoding it;
  (w) applying the packets to the state the 5 packets before them leave, as `bench/turn.py`'s
      (w) does: what a replica that stays open pays for a turn. The same turn is applied
      once before, uncounted, and then the engine's caches are emptied but for the shipped
      data (`bench.runs.fresh_caches`), as `bench/turn.py` does before each of its runs: the
      map and tables are read, and nothing is known yet about the turn's states.

It prints both counts and their ratio. The ratio is of instructions, not of time: under
Valgrind OpenSSL runs the code for the processor Valgrind shows it, the signatures and hashes
weigh differently than on the real processor, so it is not the wall-clock ratio issue 16
sets its targets for. Compare counts of two versions; quote times from `bench/turn.py`.
Needs ``valgrind`` (Debian: ``apt-get install valgrind``); nothing installs it for you, as no
test runs this.
"""

from __future__ import annotations

import argparse
import functools
import gc
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import turn  # noqa: E402
from bench.machine import describe  # noqa: E402
from bench.runs import fresh_caches  # noqa: E402
from engine.core.game import apply_packet  # noqa: E402
from engine.core.state import GameState, decode_state, encode_state  # noqa: E402
from engine.fe import RULESET  # noqa: E402
from engine.fe.model import FeState  # noqa: E402

_COLLECTED = re.compile(rb"Collected : (\d+)")


def child(work: Path, mode: str) -> None:
    """Under callgrind: the part counted runs inside `functools.reduce` alone."""
    gc.disable()
    keys, snapshot, before, packets = pickle.loads(work.read_bytes())
    if mode == "floor":
        raw = [packet.data for packet in packets]
        for data in raw:  # (once untimed, as the applying child does)
            turn.verify_packet(keys, data)
        functools.reduce(lambda _, data: turn.verify_packet(keys, data), raw, None)
        return

    def state_before() -> GameState[FeState]:
        state: GameState[FeState] = decode_state(snapshot, FeState)
        for packet in before:
            state = apply_packet(RULESET, state, packet).state
        return state

    def step(state: GameState[FeState], packet: Any) -> GameState[FeState]:
        return apply_packet(RULESET, state, packet).state

    state = state_before()
    for packet in packets:  # uncounted, as the first of bench/turn.py's repeats
        state = step(state, packet)
    fresh_caches()  # as bench/turn.py before each run: the shipped data alone kept
    functools.reduce(step, packets, state_before())


def _count(work: Path, mode: str) -> int:
    """Instructions collected inside the reduce of a child in ``mode``."""
    with tempfile.TemporaryDirectory() as tmp:
        command = [
            "valgrind",
            "--tool=callgrind",
            "--toggle-collect=functools_reduce",
            f"--callgrind-out-file={Path(tmp) / 'callgrind.out'}",
            sys.executable,
            str(Path(__file__).resolve()),
            "--child",
            str(work),
            mode,
        ]
        env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(ROOT)}
        done = subprocess.run(command, capture_output=True, env=env, check=False)
    found = _COLLECTED.search(done.stderr)
    if done.returncode != 0 or found is None:
        tail = done.stderr.decode(errors="replace")[-2000:]
        raise SystemExit(f"the {mode} child failed ({done.returncode}): {tail}")
    return int(found.group(1))


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(Path(sys.argv[2]), sys.argv[3])
        return
    assert __doc__ is not None
    first = __doc__.split("\n\n")[0]
    parser = argparse.ArgumentParser(
        description=" ".join(first.split()),
        epilog="The ratio it prints is of instructions, not of time: under Valgrind the "
        "signatures and hashes weigh differently than on the real processor, so it is not "
        "the wall-clock ratio of bench/turn.py. Compare the counts of two versions.",
    )
    parser.add_argument("--scale", type=int, default=1, help="every unit N times (default 1)")
    parser.add_argument(
        "--still", action="store_true", help="with --scale: only the original units move"
    )
    parser.add_argument(
        "--signed",
        action="store_true",
        help="the turn as players who sign in advance send it (bench/turn.py --signed)",
    )
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    print(describe())
    table, begin = turn.build(args.scale, still=args.still, signed=args.signed)
    # (a packet carries its key once, in the first its author signs)
    keys = {
        p.envelope.key_id: p.envelope.public_key for p in table.packets if p.envelope.public_key
    }
    warm = min(turn.WARM, begin)
    snapshot = encode_state(turn._state_before(table, begin - warm))
    packets = table.packets[begin:]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "turn.pickle"
        before = table.packets[begin - warm : begin]
        work.write_bytes(pickle.dumps((keys, snapshot, before, packets)))
        floor = _count(work, "floor")
        warm_apply = _count(work, "apply")
    print(
        f"packets: the coalition's player turn 2 of The Wind (scale {args.scale}"
        f"{', copies still' if args.still else ''}"
        f"{', signed in advance' if args.signed else ''}), {len(packets)} packets, "
        f"packets {begin}-{len(table.packets) - 1} of the game"
    )
    for label, count in (
        ("(a) floor, signatures + decoding:", floor),
        ("(w) warm apply:", warm_apply),
    ):
        print(f"{label:<34}{count:>12,} instructions ({count // len(packets):,}/packet)")
    print(f"instructions w/a = {warm_apply / floor:.2f} (not the wall-clock ratio: see --help)")


if __name__ == "__main__":
    main()
