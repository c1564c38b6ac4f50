"""Pace benchmark: what mail that loses packet emails costs a game, in days and in emails.

    .venv/bin/python bench/lossy_mail.py [--seeds 30] [--losses 0,0.01,0.05,0.25] [--slow]

Two homes play The Wind's movement phase (24 moves from step 3A-1A, the seats taking turns
every step or two) by one-shot syncs, each home once every 6 hours of a simulated clock,
nobody running ``sync --watch`` or ``hexpost resend`` (`tests.saves.lossy`). Every packet
email either of them sends (moves, automatic replies, resend asks and the answers to them)
is lost with the chance given; with ``--slow`` the others come 0 to 30 hours late, out of
order, one in ten twice. Each seed plays the same game from the same set-up (copies of two
homes played to 3A-1A once); a seed's losses differ with its chance of loss.

Per chance of loss it prints how many games ended with both homes holding one game (within
the bound of 400 days), the days they took (median, 90th percentile, worst), and per move
the packet emails and the plain emails (reminders, notes beside asks) sent. The floor is the
same games over mail that loses nothing (loss 0, measured in the same run), and the ratio is
each median against the floor's. Lost moves that no later packet reveals wait for the
silent check half a day into the wait (`saves.reminders.CHECK_AFTER_HOURS`; before
2026-12-06, for the reminder a reply window, 72 hours, into it), so the days grow with the
loss; what the sync does to recover shows in the days' tail and the emails per move. With
``--slow`` a check also finds moves that are only late (mail up to 30 hours late), and the
move is sent again: measured on 2026-12-06 (30 seeds), the packet emails per move at no loss
went from 1.00 to 1.72 with the check, the days unchanged; at 25% loss the median went from
25.8 days to 18.0.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mail.loopback import LoopbackNetwork  # noqa: E402
from tests.saves.conftest import Player, advance, start_game  # noqa: E402
from tests.saves.lossy import LossyRun, play_lossy  # noqa: E402

MOVES_FROM = "3A-1A"
MOVES = 24
MAX_DAYS = 400
ALICE = ("Alice", "alice@example.org")
BOB = ("Bob", "bob@example.org")


def _base(folder: Path) -> tuple[LoopbackNetwork, bytes]:
    """Two homes in ``folder`` that play The Wind to `MOVES_FROM`, closed; their network."""
    network = LoopbackNetwork()
    alice = Player(folder / "alice", *ALICE, network)
    bob = Player(folder / "bob", *BOB, network)
    game = start_game(alice, bob)
    advance({"coalition": alice, "alliance": bob}, game, MOVES_FROM)
    alice.close()
    bob.close()
    return network, game


def _run(
    base: Path, network: LoopbackNetwork, game: bytes, seed: int, loss: float, slow: bool
) -> LossyRun:
    """One game from copies of the base homes, on a network that goes on from the base's
    (its message numbers continue, so no new email takes an old one's number)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name in ("alice", "bob"):
            shutil.copytree(base / name, folder / name)
        ours = LoopbackNetwork()
        ours.messages = list(network.messages)
        homes = [Player(folder / "alice", *ALICE, ours), Player(folder / "bob", *BOB, ours)]
        try:
            return play_lossy(
                homes,
                game,
                ours,
                random.Random(seed),
                loss=loss,
                slow=slow,
                moves=MOVES,
                max_hours=MAX_DAYS * 24,
            )
        finally:
            for home in homes:
                home.close()


def _line(loss: float, runs: list[LossyRun], floor: float | None) -> str:
    done = [run for run in runs if run.converged]
    days = sorted(run.hours / 24 for run in done)
    median = statistics.median(days) if days else float("nan")
    p90 = days[min(len(days) - 1, int(len(days) * 0.9))] if days else float("nan")
    moves = sum(run.moves for run in runs)
    packets = sum(run.packets for run in runs) / moves
    notes = sum(run.notes for run in runs) / moves
    lost = sum(run.lost for run in runs)
    worst = days[-1] if days else float("nan")
    ratio = f"{median / floor:6.2f}" if floor else "     -"
    return (
        f"{loss:6.1%} {len(done):3d}/{len(runs):<3d} {median:7.1f} {p90:6.1f} {worst:6.1f} "
        f"{ratio} {packets:8.2f} {notes:6.2f} {lost:6d}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=30, help="games per chance (default 30)")
    parser.add_argument(
        "--losses",
        default="0,0.01,0.05,0.25",
        help="chances of losing a packet email, comma-separated (default 0,0.01,0.05,0.25)",
    )
    parser.add_argument("--slow", action="store_true", help="emails late, out of order, some twice")
    args = parser.parse_args()
    losses = [float(text) for text in args.losses.split(",")]
    if any(not 0 <= loss < 1 for loss in losses):
        parser.error("each chance of loss is at least 0 and below 1")
    if 0.0 not in losses:
        losses.insert(0, 0.0)
    print(
        f"The Wind from {MOVES_FROM}, {MOVES} moves, one-shot syncs every 6 hours a home, "
        f"seeds 1-{args.seeds}, {'slow' if args.slow else 'prompt'} mail"
    )
    print("  loss  ended  median    p90  worst  ratio  packets  notes   lost")
    print("                (days)                        (per move)")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        network, game = _base(base)
        floor: float | None = None
        for loss in losses:
            runs = [
                _run(base, network, game, seed, loss, args.slow)
                for seed in range(1, args.seeds + 1)
            ]
            print(_line(loss, runs, floor), flush=True)
            if loss == 0.0:
                done = [run.hours / 24 for run in runs if run.converged]
                floor = statistics.median(done) if done else None
    print("ratio: median days against the same games over mail that loses nothing")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
