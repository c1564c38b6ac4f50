"""The hexpost commands over real mail: a sync killed at random points loses nothing, an
invitation made and taken through the commands, ``--watch`` waking on new mail and answering
a roll, and processed mail moved to the folder the account names.

The servers are the test mail stack's (`tests.mail.servers`); each `hexpost` here is a real
process, as a player or a service manager starts it.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from imapclient import IMAPClient

from mail.accounts import save_mail_config
from mail.imap import ImapFolder
from mail.mailtransport import FIRST_BATCH, MailTransport
from mail.sync import sync
from mail.watch import Round, watch
from saves.home import Home
from tests.mail.mailgame import (
    FOREIGN,
    Mailbox,
    account,
    chat,
    close,
    mail_player,
    make_box,
    new_box,
    same_game,
    set_passwords,
    start,
    statuses,
)
from tests.mail.servers import MailStack
from tests.saves.conftest import (
    Player,
    now,
)
from tests.tui.conftest import clean_env, describe, hexpost
from tests.watching import output_lines, read_until, stopped, watching

KILLS = 6
"""How many runs of `hexpost sync` the kill -9 test kills (half of them timed inside the pull)."""
FULL_KILLS = 12
"""How many it kills with ``--full`` (or ``HEXPOST_FULL=1``)."""


def _cli(home: Path) -> list[str]:
    return [sys.executable, "-m", "tui.cli", "--home", str(home), "sync"]


def _head_of(db: sqlite3.Connection, game_id: bytes, otherwise: int) -> int:
    try:
        row = db.execute("SELECT head_seq FROM games WHERE game_id = ?", (game_id,)).fetchone()
    except sqlite3.Error:  # the writer holds a lock a moment: ask again next time
        return otherwise
    return otherwise if row is None else int(row[0])


def _wait_or_kill_mid_pull(
    process: subprocess.Popen[bytes], home: Path, game_id: bytes, rng: random.Random
) -> bool:
    """Watch ``home``'s head from outside while ``process`` syncs it (a reader of the WAL
    store never blocks the writer), and kill the process soon after the head first moves:
    after a batch of the pull committed, before the cursor is saved and the mail filed away.
    True when it was killed, False when it ended first."""
    db = sqlite3.connect(f"file:{home / 'hexpost.sqlite3'}?mode=ro", uri=True, timeout=5)
    try:
        start = _head_of(db, game_id, -1)
        while process.poll() is None:
            if _head_of(db, game_id, start) > start:
                time.sleep(rng.uniform(0.0, 0.03))
                if process.poll() is not None:
                    return False
                process.send_signal(signal.SIGKILL)
                process.wait()
                return True
            time.sleep(0.002)
    finally:
        db.close()
    return False


def _settled(home: Path, game_id: bytes) -> int:
    """Open a crashed home afresh and check it: a gap-free chain that replays to its head."""
    opened = Home(home)
    try:
        replica = opened.replica()
        row = replica.game(game_id)
        count = opened.store().one("SELECT COUNT(*) FROM packets WHERE game_id = ?", (game_id,))
        assert count is not None and count[0] == row.head_seq + 1, "a gap or a duplicate"
        assert replica.verify(game_id) == row.state_hash
        return int(row.head_seq)
    finally:
        opened.close()


def test_kill_9_during_a_mail_sync_loses_nothing_and_applies_nothing_twice(
    played: tuple[bytes, Player, Player], mail_stack: MailStack, tmp_path: Path, full_run: bool
) -> None:
    game_id, first, second = played
    wanted = FULL_KILLS if full_run else KILLS
    seqs = [chat(first, game_id, f"line {n}") for n in range(40)]
    assert first.sync().sent == seqs
    transport = second.transport
    assert isinstance(transport, MailTransport)
    save_mail_config(second.home, transport.config)
    config = second.home.config()
    config["transport"] = {"kind": "mail"}
    second.home.save_config(config)
    home = Path(second.home.path)
    start_seq = second.row(game_id).head_seq
    close(second)

    # How long an unkilled run takes, on a copy (the copy reads the same folder).
    probe = tmp_path / "probe"
    shutil.copytree(home, probe)
    began = time.monotonic()
    done = subprocess.run(_cli(probe), capture_output=True, text=True, timeout=120, check=False)
    full = time.monotonic() - began
    assert done.returncode == 0, done.stderr
    assert _settled(probe, game_id) == seqs[-1]

    rng = random.Random(20261130)
    kills, rounds, attempts = 0, 0, 0
    while kills < wanted:
        rounds += 1
        assert rounds <= 4 * wanted, f"only {kills} runs were killed in {rounds} rounds"
        work = tmp_path / f"round{rounds}"
        shutil.copytree(home, work)
        heads = [start_seq]
        while True:
            process = subprocess.Popen(
                _cli(work),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            attempts += 1
            try:
                if attempts % 2:  # at a random moment of the run
                    try:
                        process.wait(timeout=rng.uniform(0.3, 1.1) * full)
                        killed = False
                    except subprocess.TimeoutExpired:
                        process.send_signal(signal.SIGKILL)
                        process.wait()
                        killed = True
                else:  # inside the pull: start-up and login are most of a run, and kills at
                    # random moments alone could all miss the few hundred milliseconds of it
                    killed = _wait_or_kill_mid_pull(process, work, game_id, rng)
            finally:
                if process.poll() is None:
                    process.kill()
                assert process.stderr is not None
                errors = process.stderr.read().decode(errors="replace")
                process.stderr.close()
            if killed:
                kills += 1
                heads.append(_settled(work, game_id))
                assert heads == sorted(heads), f"a crash took a packet back: heads {heads}"
                continue
            assert process.returncode == 0, errors
            break
        assert _settled(work, game_id) == seqs[-1], "the run after the crashes took in everything"
        # The forty mails come down in two fetched batches, the first `FIRST_BATCH` (20) and
        # the rest, each taken in as one transaction: a crash leaves each batch whole or not
        # at all (tests/saves/test_batch.py kills a run inside a batch on purpose).
        bounds = {start_seq, start_seq + min(FIRST_BATCH, len(seqs)), seqs[-1]}
        assert set(heads) <= bounds, f"a batch landed in part: {heads}, not {bounds}"
    home = work
    again = Home(home)
    try:
        assert again.replica().verify(game_id) == first.replica.verify(game_id)
    finally:
        again.close()


# --- the commands: an invitation by mail -------------------------------------------------------


def _mail_home(path: Path, stack: MailStack, user: str, box: str) -> Path:
    make_box(stack, user, box)
    config = account(stack, user, box)
    home = Home(path)
    home.create_identity(user.title(), config.address, None, scrypt_n=2)
    save_mail_config(home, config)
    settings = home.config()
    settings["transport"] = {"kind": "mail"}
    home.save_config(settings)
    home.close()
    return path


def test_invitation_by_mail_through_the_commands(
    mail_stack: MailStack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_passwords(mail_stack, monkeypatch)
    box = new_box()
    alice = _mail_home(tmp_path / "alice", mail_stack, "alice", box)
    bob = _mail_home(tmp_path / "bob", mail_stack, "bob", box)
    env = clean_env(**{k: v for k, v in os.environ.items() if k.startswith("HEXPOST_TEST_")})

    def run(home: Path, *args: str) -> str:
        done = hexpost("--home", home, *args, env=env)
        assert done.returncode == 0, describe(done)
        return done.stdout

    bob_address = account(mail_stack, "bob", box).address
    game = run(
        alice, "new", "--scenario", "the-wind", "--seat", "coalition", "--opponent", bob_address
    ).strip()
    assert "sent 1 packet" in run(alice, "sync")
    shown = run(bob, "sync")
    fingerprint = json.loads(run(alice, "identity", "show", "--json"))["fingerprint"]
    assert "received: invitation:" in shown and fingerprint in shown
    run(bob, "accept", game)
    assert "sent 1 packet" in run(bob, "sync")
    joined = run(alice, "sync")
    assert "received: applied" in joined and "joined" in joined
    assert "hexpost accept" in joined  # the creator is told to accept the key explicitly
    assert "accepted" in run(alice, "accept", game)
    run(alice, "sync")
    run(bob, "sync")
    states = [json.loads(run(h, "show", game, "--json"))["state_hash"] for h in (alice, bob)]
    assert states[0] == states[1]

    # `sync --watch` on Bob's side shows what Alice sends as it arrives; Ctrl-C ends it.
    watcher = watching(["--home", str(bob)], env)
    try:
        lines = output_lines(watcher)
        seen = read_until(lines, "watching ")
        run(alice, "chat", game, "hello by mail")  # a chat message: outside the chain
        run(alice, "sync")
        seen += read_until(lines, "hello by mail")
        assert "received: chat:" in seen and "not part of the game record" in seen, seen
        watcher.send_signal(signal.SIGINT)
        assert watcher.wait(timeout=30) == 0
        seen += read_until(lines, "stopped watching")
    finally:
        stopped(watcher)

    # Run as a service (systemd, a container), it is stopped by SIGTERM: the same clean end.
    watcher = watching(["--home", str(bob)], env)
    try:
        out = watcher.stdout
        assert out is not None
        assert out.readline().startswith("watching ")
        watcher.send_signal(signal.SIGTERM)
        assert watcher.wait(timeout=30) == 0
        assert "stopped watching" in out.read()
    finally:
        stopped(watcher)


# --- watching ----------------------------------------------------------------------------------


def test_mail_announced_while_fetching_wakes_the_next_idle_at_once(
    mail_stack: MailStack, box: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race behind the invitation test's rare failure on a busy machine.

    A message delivered after the fetch's NOOP and before its SEARCH is not in the SEARCH's
    answer, yet Dovecot announces it (EXISTS) at the end of that SEARCH; an IDLE begun after
    that reports only mail newer still. So `sync --watch`, whose first round overlapped the
    delivery, slept until its IDLE timed out (25 minutes by default) with the mail waiting.
    The delivery is put exactly there, through a second connection.
    """
    make_box(mail_stack, "bob", box)
    config = account(mail_stack, "bob", box).imap
    view = Mailbox(mail_stack, "bob", box)
    real_search = IMAPClient.search
    pending = [FOREIGN]

    def search_after_a_delivery(client: IMAPClient, *args: Any, **kwargs: Any) -> Any:
        if pending and client is not view.client:
            view.append(pending.pop())
        return real_search(client, *args, **kwargs)

    # A message already there, so that the fetch searches (a folder whose UIDNEXT shows
    # nothing past the cursor is not searched at all).
    view.append(FOREIGN)
    folder = ImapFolder.open(config, mail_stack.password("bob"))
    try:
        monkeypatch.setattr(IMAPClient, "search", search_after_a_delivery)
        found, cursor = folder.fetch_new("", set())
        monkeypatch.setattr(IMAPClient, "search", real_search)
        assert not pending, "the delivery was made during the fetch"
        assert (found, cursor) == ([], f"{folder.uidvalidity}:1"), "the search saw one mail"
        assert folder.idle(5.0), "mail announced during the fetch waited for the IDLE timeout"
        _, after = folder.fetch_new(cursor, set())
        assert after == f"{folder.uidvalidity}:2", "the next fetch reads the message"
        assert not folder.idle(0.5), "nothing else arrived: IDLE waits its time"
    finally:
        folder.close()
        view.close()


def test_watch_applies_packets_as_they_arrive_and_answers_a_roll(
    played: tuple[bytes, Player, Player],
) -> None:
    game_id, first, second = played
    rounds: list[Round] = []

    async def scenario() -> None:
        stop = asyncio.Event()
        transport = second.transport
        assert isinstance(transport, MailTransport)
        watching = asyncio.create_task(
            watch(
                second.replica, transport, now, on_round=rounds.append, stop=stop, idle_seconds=30.0
            )
        )
        await _until(lambda: len(rounds) >= 1)
        sub = first.replica.submit(
            game_id,
            [{"type": "done"}, {"type": "roll", "dice": "1d6", "purpose": "watch test"}],
            now=now(),
        )
        await sync(first.replica, first.transport, now)  # on this thread: the store's own
        await _until(lambda: any(r.report and r.report.sent == [sub.seq + 1] for r in rounds))
        stop.set()
        await asyncio.wait_for(watching, timeout=60)

    asyncio.run(scenario())
    assert statuses(first.sync()) == ["applied"]
    same_game(first, second, game_id)


async def _until(condition: Any, timeout: float = 60.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.05)


def test_processed_packet_mail_moves_to_the_named_folder(
    mail_alice: Player,
    mail_stack: MailStack,
    tmp_path: Path,
    box: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    done_box = f"{box}.done"
    bob = mail_player(tmp_path / "bob", mail_stack, "bob", box, imap_processed_folder=done_box)
    try:
        view = Mailbox(mail_stack, "bob", box)
        view.append(FOREIGN)
        view.close()
        game_id = start(mail_alice, bob)
        view = Mailbox(mail_stack, "bob", box)
        try:
            left = view.messages()
        finally:
            view.close()
        assert [m["Subject"] for m in left] == ["lunch?"], "only foreign mail stays in the folder"
        moved = Mailbox(mail_stack, "bob", done_box)
        try:
            assert len(moved.uids()) == mail_alice.count("outbox", game_id)
        finally:
            moved.close()
    finally:
        close(bob)
