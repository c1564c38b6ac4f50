"""`kill -9` at random moments during sync never loses or duplicates a packet.

Alice and Bob play a few hundred packets of The Wind through a shared folder, with die rolls
(answered automatically by the other side's sync) and secret steps. Right after Bob accepted,
his home was copied (``bob_early``): a home restored from an old backup, which must catch up on
every packet through the folder, including the ones Bob himself signed later.

The crash loop starts the real command, ``hexpost --home COPY sync``, on a fresh copy of that
backup and kills it with SIGKILL after a random delay, again and again until a run finishes on
its own; then it starts over from a fresh copy, until 20 runs were killed (100 with ``--full``
or ``HEXPOST_FULL=1``; ``HEXPOST_CRASH_RUNS`` names any other count). Every fifth kill counts
from the start of the process (most of these land during start-up); the others count from the
run's first write to the store, seen from outside as a change of its WAL file, and reach a
little past the expected end of the pull, so most kills land while packets are being taken in
whatever the start-up time of a busy machine. The delays of each kind are spread over their
window by a golden-ratio sequence from a random start rather than drawn independently, so the
short default run reaches the whole window as the long one does instead of clustering by
chance. The expected pull time comes from unkilled runs, never from an assumption. After
every kill an exact image of the crashed files (database, ``-wal`` and ``-shm``) is opened
with a fresh `Home` and checked: the chain is a gap-free prefix of Alice's, packet for
packet; a full replay equals the stored snapshot; events, snapshots, outbox and the
transport's read marks are consistent; and the early copy never signed anything new (signing
a packet that differs from one Bob already signed would be self-equivocation). The crashed
files themselves are left alone, so the next real run has to recover the hot WAL.

A second test makes the riskiest crash points on purpose: the backup stopped exactly where
Bob owes an automatic reply (entropy for Alice's roll, or the reveal of his own commitment,
whose choice the backup does not even hold), then the real sync runs to the end. The default
run restarts from the first and the last such head of each kind; ``--full`` from every one.

``HEXPOST_CRASH_SEED`` picks the random delays (the seed is named in every failure message).
The game is played in this process and the command runs the code on disk: edit the engine
while the test runs and the command's replay no longer matches (a desync, frozen game).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mail.folder import FolderTransport
from saves import ledger
from saves.home import Home
from saves.replica import Replica
from tests.saves.crash_game import History, events_of, now, play

QUICK_RUNS = 20
"""How many runs of `hexpost sync` the default run kills."""
FULL_RUNS = 100
"""How many runs ``--full`` (or ``HEXPOST_FULL=1``) kills."""
SEED = int(os.environ.get("HEXPOST_CRASH_SEED", "20240611"))
POLL_SECONDS = 0.002
START_UP_EVERY = 5
"""Every this many kills, one is timed from the run's start (most die during start-up); the
others are timed from the run's first write, up to past the pull's end."""
GOLDEN = (5**0.5 - 1) / 2
MIN_RUNS_FOR_MID_SYNC_CHECK = 20
"""With fewer killed runs, a kill landing mid-pull is likely but not asserted."""


def _runs(full: bool) -> int:
    """How many runs must be killed: ``HEXPOST_CRASH_RUNS`` if set, else by the run's size."""
    named = os.environ.get("HEXPOST_CRASH_RUNS", "")
    return int(named) if named else FULL_RUNS if full else QUICK_RUNS


def _spread(start: float, index: int) -> float:
    """Point ``index`` of the golden-ratio sequence from ``start``, in [0, 1): any run of
    consecutive points covers the interval nearly evenly (each new point falls in the largest
    gap left), so a few kills already reach every part of their window."""
    return (start + index * GOLDEN) % 1.0


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> History:
    return play(tmp_path_factory.mktemp("crash"))


# --- running and killing the real command -----------------------------------------------------


def _hexpost() -> list[str]:
    script = Path(sys.executable).with_name("hexpost")
    if script.exists():
        return [str(script)]
    found = shutil.which("hexpost")
    return [found] if found else [sys.executable, "-m", "tui.cli"]


@dataclass(frozen=True)
class Kill:
    """When to SIGKILL a run: ``after`` seconds from its start, or from its first write."""

    after: float
    from_first_write: bool = False


@dataclass(frozen=True)
class Run:
    killed: bool
    seconds: float
    first_write: float | None
    """Seconds from the start to the first write to the store (its WAL file changed), if any."""
    stderr: str
    returncode: int


def _wal_mark(home: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(home / "hexpost.sqlite3-wal")
    except FileNotFoundError:
        return None
    return info.st_size, info.st_mtime_ns


def _run_sync(command: list[str], home: Path, kill: Kill | None) -> Run:
    """Run `hexpost --home HOME sync`, and SIGKILL it as ``kill`` says if it is still running.

    The store's WAL file is watched (size and modification time, from outside) to see when
    the run commits its first change, which is when it takes in the first received packet.
    """
    initial = _wal_mark(home)
    first_write: float | None = None
    start = time.monotonic()
    deadline = None if kill is None or kill.from_first_write else start + kill.after
    with subprocess.Popen(
        [*command, "--home", str(home), "sync"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={k: v for k, v in os.environ.items() if k != "HEXPOST_HOME"},
    ) as proc:
        while proc.poll() is None:
            now = time.monotonic()
            if first_write is None:
                mark = _wal_mark(home)
                if mark is not None and mark[0] > 0 and mark != initial:
                    first_write = now - start
                    if kill is not None and kill.from_first_write:
                        deadline = now + kill.after
            if deadline is not None and now >= deadline:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                break
            time.sleep(POLL_SECONDS)
        seconds = time.monotonic() - start
        assert proc.stderr is not None
        stderr = proc.stderr.read().decode(errors="replace")
    killed = proc.returncode == -signal.SIGKILL
    return Run(killed, seconds, first_write, stderr, proc.returncode)


def _fresh_copy(history: History, where: Path) -> Path:
    if where.exists():
        shutil.rmtree(where)
    shutil.copytree(history.bob_early, where)
    return where


# --- checking a crashed home -------------------------------------------------------------------


def _image(home: Path, scratch: Path) -> Path:
    """An exact copy of the home's files as the crash left them (hot WAL and all)."""
    if scratch.exists():
        shutil.rmtree(scratch)
    scratch.mkdir()
    for entry in home.iterdir():
        shutil.copy2(entry, scratch / entry.name)
    return scratch


def _dump(replica: Replica) -> dict[str, Any]:
    """Everything a sync may change, for comparing two states of one home."""
    store = replica.store
    return {
        table: store.all(sql)
        for table, sql in {
            "games": "SELECT game_id, status, frozen, head_seq, head_id, state_hash FROM games",
            "packets": "SELECT game_id, seq, packet_id, data, state_hash FROM packets ORDER BY seq",
            "events": "SELECT game_id, seq, idx, event FROM events ORDER BY seq, idx",
            "snapshots": "SELECT game_id, seq, state, state_hash FROM snapshots ORDER BY seq",
            "outbox": "SELECT id, seq, packet_id, data, sent_at FROM outbox ORDER BY id",
            "seen": "SELECT transport, ref FROM transport_seen ORDER BY transport, ref",
            "buffered": "SELECT game_id, seq, packet_id FROM buffered",
            "parked": "SELECT packet_hash FROM parked",
            "evidence": "SELECT seq, kind, detail FROM evidence",
            "rejected": "SELECT reason FROM rejected",
            "secrets": "SELECT game_id, key, seat FROM secrets",
            "seeds": "SELECT game_id, seat, seed, length FROM entropy_seeds",
        }.items()
    }


def _file_seq(name: str) -> int:
    """The sequence number in a packet file name ``hexpost-GAME-SEQ-PID.hxp``."""
    return int(name.split("-")[2])


def _check(history: History, image: Path, where: str) -> tuple[int, dict[str, Any]]:
    """Open a crashed home's image with a fresh `Home` and check every invariant; its head."""
    home = Home(image)
    try:
        replica = home.replica()
        store = replica.store
        integrity = store.one("PRAGMA integrity_check")
        assert integrity == ("ok",), f"{where}: the database is damaged: {integrity}"
        rows = replica.games()
        assert [row.game_id for row in rows] == [history.game_id], f"{where}: games {rows}"
        row = rows[0]
        head = row.head_seq
        assert row.status == "active" and row.frozen is None, f"{where}: game is {row}"
        assert history.early_seq <= head <= history.final_seq, f"{where}: head {head}"

        stored = store.all(
            "SELECT seq, packet_id, state_hash FROM packets WHERE game_id = ? ORDER BY seq",
            (history.game_id,),
        )
        seqs = [int(seq) for seq, _, _ in stored]
        assert seqs == list(range(head + 1)), (
            f"{where}: packets are not exactly 0..{head}: lost or duplicated "
            f"{sorted(set(range(head + 1)) ^ set(seqs))} (or repeated: {len(seqs)} rows)"
        )
        for seq, pid, digest in stored:
            theirs_id, theirs_hash = history.packets[int(seq)]
            assert bytes(pid) == theirs_id, (
                f"{where}: packet {seq} differs from the one in Alice's chain: "
                "Bob's early copy signed a conflicting packet (self-equivocation)"
            )
            assert bytes(digest) == theirs_hash, f"{where}: state hash after packet {seq} differs"
        assert row.state_hash == history.packets[head][1], f"{where}: head state hash differs"
        assert store.one("SELECT head_id FROM games") == (history.packets[head][0],), (
            f"{where}: the game's head id is not its last packet"
        )
        digest = replica.verify(history.game_id)  # raises unless replay == stored snapshot
        assert digest == history.packets[head][1], f"{where}: the replay ends on another hash"

        events = events_of(replica)
        assert events == [e for e in history.events if e[0] <= head], (
            f"{where}: events differ from Alice's up to packet {head} (lost or duplicated)"
        )
        snapshots = store.all("SELECT seq, state_hash FROM snapshots ORDER BY seq")
        expected = sorted({s for s in range(0, head + 1, ledger.SNAPSHOT_EVERY)} | {head})
        assert [int(seq) for seq, _ in snapshots] == expected, f"{where}: snapshots {snapshots}"
        for seq, snap_hash in snapshots:
            assert bytes(snap_hash) == history.packets[int(seq)][1], f"{where}: snapshot {seq}"

        outbox = store.all("SELECT seq, packet_id FROM outbox ORDER BY id")
        ids = [bytes(pid) for _, pid in outbox]
        assert len(ids) == len(set(ids)), f"{where}: a packet is twice in the outbox"
        for seq, pid in outbox:
            theirs = history.packets.get(int(seq))
            assert theirs is not None and theirs[0] == bytes(pid), (
                f"{where}: the outbox holds a packet {seq} that is not the one in Alice's chain: "
                "Bob's early copy signed a new packet (self-equivocation)"
            )
        assert [(int(seq), bytes(pid)) for seq, pid in outbox] == history.early_outbox, (
            f"{where}: the early copy signed new packets: {outbox}"
        )

        for table in ("buffered", "parked", "evidence", "rejected"):
            left = store.all(f"SELECT * FROM {table}")
            assert not left, f"{where}: unexpected rows in {table}: {left}"

        # A folder ref is NAME@SIZE:MTIME_NS (mail.folder.file_ref); the name says the seq.
        refs = store.all("SELECT ref FROM transport_seen")
        seen = {str(ref).partition("@")[0] for (ref,) in refs}
        marked_beyond = sorted(_file_seq(ref) for ref in seen if _file_seq(ref) > head)
        assert not marked_beyond, (
            f"{where}: {len(marked_beyond)} files marked read but their packets not applied "
            f"(lost for good): packets {_spans(marked_beyond)}"
        )
        unmarked = sorted(
            _file_seq(name)
            for name in history.files
            if history.early_seq < _file_seq(name) <= head and name not in seen
        )
        assert not unmarked, (
            f"{where}: applied packets whose files are not marked read: {_spans(unmarked)}"
        )
        return head, _dump(replica)
    finally:
        home.close()


def _spans(numbers: list[int]) -> str:
    """``[3, 4, 5, 9]`` as ``"3-5, 9"``."""
    spans: list[list[int]] = []
    for number in numbers:
        if spans and number == spans[-1][1] + 1:
            spans[-1][1] = number
        else:
            spans.append([number, number])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def _folder_unchanged(history: History, where: str) -> None:
    now_there = frozenset(os.listdir(history.folder))
    assert now_there == history.files, (
        f"{where}: the shared folder changed (new: {sorted(now_there - history.files)}, "
        f"gone: {sorted(history.files - now_there)}): the early copy wrote a packet it had "
        "not signed before"
    )


def _pull_rate(run: Run, packets: int, idle: float) -> float:
    """Seconds per packet taken in, seen in a clean run that caught up on ``packets`` packets."""
    pulling = run.seconds - run.first_write if run.first_write is not None else run.seconds - idle
    return max(pulling, 0.01) / packets


def _finished(history: History, copy: Path, scratch: Path, where: str) -> dict[str, Any]:
    """After a run that ended on its own: caught up exactly to Alice's head, nothing new."""
    head, dump = _check(history, _image(copy, scratch), where)
    final = history.final_seq
    assert head == final, f"{where}: a clean sync stopped at packet {head}, not {final}"
    assert dump["games"][0][5] == history.final_hash, f"{where}: final state hash differs"
    _folder_unchanged(history, where)
    return dump


def _clean_run(command: list[str], copy: Path, where: str) -> Run:
    run = _run_sync(command, copy, None)
    assert run.returncode == 0, f"{where}: sync failed ({run.returncode}): {run.stderr}"
    return run


# --- the tests ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_kill_9_during_sync_never_loses_or_duplicates(
    history: History, tmp_path: Path, full_run: bool
) -> None:
    command = _hexpost()
    runs = _runs(full_run)
    rng = random.Random(SEED)
    final = history.final_seq
    label = f"seed {SEED} (set HEXPOST_CRASH_SEED={SEED} to repeat)"

    def finished(copy: Path, where: str) -> dict[str, Any]:
        return _finished(history, copy, tmp_path / "image", where)

    def clean(copy: Path, where: str) -> Run:
        return _clean_run(command, copy, where)

    # Calibration: a whole catch-up, then syncs with nothing to do, unkilled. The estimates are
    # refined by every clean run later (the machine may be busy with other work meanwhile).
    copy = _fresh_copy(history, tmp_path / "copy")
    first = clean(copy, f"{label}, calibration")
    full = first.seconds
    settled = finished(copy, f"{label}, calibration")
    idle_times: list[float] = []
    for attempt in (1, 2):
        where = f"{label}, calibration sync {attempt} with nothing to do"
        idle_times.append(clean(copy, where).seconds)
        assert finished(copy, where) == settled, f"{where}: a further sync changed the store"
    pull_rates = [_pull_rate(first, final - history.early_seq, min(idle_times))]

    starts = {"start-up": rng.random(), "pull": rng.random()}
    planned: Counter[str] = Counter()
    overshoots: list[float] = []
    """Upper bounds on the pull's rate: kills that landed after its last packet."""

    def plan(head: int) -> Kill:
        """When to kill: any time from the start, or from the first write to past the pull."""
        kind = "start-up" if planned.total() % START_UP_EVERY == 0 else "pull"
        share = _spread(starts[kind], planned[kind])
        planned[kind] += 1
        if kind == "start-up":
            return Kill(share * 1.2 * statistics.median(idle_times))
        rate = min([statistics.median(pull_rates), *overshoots])
        pull = rate * (final - head)
        return Kill(share * (1.15 * pull + 0.02), from_first_write=True)

    tally: Counter[str] = Counter()
    partial_heads: list[int] = []
    owing_heads: list[int] = []
    copies = 0
    started = time.monotonic()
    while tally.total() < runs:
        copies += 1
        copy = _fresh_copy(history, tmp_path / "copy")
        head = history.early_seq
        attempt = 0
        while True:
            attempt += 1
            kill = plan(head) if tally.total() < runs else None
            where = f"{label}, copy {copies} run {attempt} (head {head}, " + (
                "no kill)"
                if kill is None
                else f"kill {kill.after:.3f}s after its "
                + ("first write)" if kill.from_first_write else "start)")
            )
            run = _run_sync(command, copy, kill)
            if not run.killed:
                assert run.returncode == 0, f"{where}: sync failed ({run.returncode}): {run.stderr}"
                dump = finished(copy, where)
                if final - head >= 50:
                    idle = statistics.median(idle_times)
                    pull_rates.append(_pull_rate(run, final - head, idle))
                again = clean(copy, f"{where}, sync again")
                idle_times.append(again.seconds)
                assert finished(copy, f"{where}, sync again") == dump, (
                    f"{where}: a further sync after catching up changed the store"
                )
                break
            after, _ = _check(history, _image(copy, tmp_path / "image"), where)
            _folder_unchanged(history, where)
            assert after >= head, f"{where}: the head went back from {head} to {after}"
            if head == final:
                tally["re-syncing a copy already caught up"] += 1
            elif after == head:
                tally["before any packet was applied"] += 1
            elif after < final:
                tally["mid-pull, some packets applied"] += 1
                partial_heads.append(after)
                if after in history.owes_automatic:
                    owing_heads.append(after)
            else:
                tally["after the last packet was applied, same run"] += 1
                if kill is not None and kill.from_first_write:
                    # The whole pull fitted in the kill's delay: its rate was at most this.
                    # A clean run's rate counts what follows the pull too (replies, the
                    # push, the exit), so it overshoots; this bound draws later kills back.
                    overshoots.append(kill.after / (final - head))
            head = after

    seconds = time.monotonic() - started
    print(
        f"crash test ({label}): {tally.total()} kills over {copies} copies of Bob's backup, "
        f"each finished by a clean sync, {seconds:.1f}s; first full catch-up {full:.2f}s, "
        f"median idle sync {statistics.median(idle_times):.2f}s"
    )
    for what, count in sorted(tally.items()):
        print(f"  kills {what}: {count}")
    if partial_heads:
        print(
            f"  heads left by mid-pull kills: min {min(partial_heads)}, max {max(partial_heads)} "
            f"of {final}; {len(owing_heads)} of them where Bob owed an automatic reply "
            f"{sorted(owing_heads)}"
        )
    if runs >= MIN_RUNS_FOR_MID_SYNC_CHECK:
        assert partial_heads, (
            f"{label}: no kill landed mid-pull ({dict(tally)}); the delays miss the sync"
        )


@pytest.mark.slow
def test_a_crash_where_the_backup_owes_an_automatic_reply_signs_nothing_new(
    history: History, tmp_path: Path, full_run: bool
) -> None:
    """The riskiest crash points, made on purpose rather than by chance.

    For each head after which Bob owes an automatic reply (a roll to feed, a secret to
    reveal), the backup is brought to exactly that head the way a sync does it (one
    transaction per packet, its file marked read with it), as a kill right after that
    commit would leave it; then the real `hexpost sync` runs. It must take in Bob's own
    later packets from the folder rather than answer anew: a fresh answer would be a second,
    different packet signed by Bob for the same position. The default run takes the first
    and the last head of each kind (the longest and the shortest catch-up), ``--full`` all.
    """
    owed = _restart_points(history.owes_automatic, full_run)
    command = _hexpost()
    transport = FolderTransport(history.folder).name
    files = sorted(history.files, key=lambda name: (_file_seq(name), name))
    base = _fresh_copy(history, tmp_path / "base")
    home = Home(base)
    replica = home.replica()
    index = 0
    try:
        for target, kind in owed:
            while index < len(files) and _file_seq(files[index]) <= target:
                name = files[index]
                outcome = replica.receive(
                    (history.folder / name).read_bytes(),
                    source=f"{transport} {name}",
                    now=now(),
                    ref=(transport, name),
                )
                assert outcome.status in ("applied", "duplicate"), f"{name}: {outcome}"
                index += 1
            home.close()
            where = f"backup stopped after packet {target}, where Bob owes a {kind}"
            head, _ = _check(history, _image(base, tmp_path / "image"), where)
            assert head == target, f"{where}: the backup is at packet {head}"
            copy = _image(base, tmp_path / "copy")
            where = f"{where}, then a whole `hexpost sync`"
            _clean_run(command, copy, where)
            _finished(history, copy, tmp_path / "image", where)
            replica = home.replica()
    finally:
        home.close()
    print(
        f"\nrestarted from {len(owed)} of the {len(history.owes_automatic)} heads owing an "
        "automatic reply"
    )


def _restart_points(owes: dict[int, str], full: bool) -> list[tuple[int, str]]:
    """The heads to restart from, in order: all of them, or the first and last of each kind."""
    if full:
        return sorted(owes.items())
    chosen: set[int] = set()
    for kind in set(owes.values()):
        heads = sorted(head for head, owed in owes.items() if owed == kind)
        chosen.update((heads[0], heads[-1]))
    return sorted((head, owes[head]) for head in chosen)
