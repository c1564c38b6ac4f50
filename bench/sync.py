"""Mail sync benchmark on the local test stack (Dovecot + aiosmtpd, as the mail tests use).

    .venv/bin/python bench/sync.py [--mails 1000] [--repeat 3] [--latency 10] [--profile FILE]

Needs Dovecot (``apt-get install dovecot-imapd dovecot-lmtpd``). Two homes play The Wind
through loopback mail up to a seat's move; that seat then writes ``--mails`` chat packets,
whose emails (built by the real `MailTransport`) are put into the other player's folder with
IMAP APPEND. Then, in the same run, each figure printed with its floor and the ratio:

  (a) full sync of the waiting emails (connect, find, fetch, verify and apply every packet,
      store) against the floor: one connection that logs in, searches the folder and fetches
      every message with one batched ``UID FETCH ... BODY.PEEK[]`` (connect and login
      included on both sides), plus verifying every packet's signature (`open_packet`), which
      no sync may skip; also the same FETCH with imaplib's protocol trace off (imapclient
      turns it on; hexpost's connections turn it off, `mail.imap._quiet`) and the ratio
      against that lower floor; shown on its own, the part of the sync spent reading the
      emails (`mime.read_message` over the same emails, as the IMAP worker reads them);
  (b) a one-shot sync with nothing new (a new connection each time; like every sync the
      player runs, it looks in the spam folder: a STATUS of the receiver's empty Junk folder)
      against connect, login, select and one NOOP; and a watch round's fetch on a kept
      connection (no look: the last was a moment ago) against one NOOP on an open connection;
  (c) with the watch loop running for the receiver: time from the SMTP send of one packet to
      that packet applied on the receiving side (``--latency`` samples). Dovecot is set to
      notify an idling client within 1 s (``imap_idle_notify_interval``).

Runs of (a) use a fresh copy of the receiving home each time; the best of ``--repeat`` counts,
and the floors are measured between them, so a busy moment on a shared machine does not land
on one side only. ``--profile FILE`` first runs cProfile over one full and one empty sync
(the worker thread's IMAP reading shows as the event loop's wait).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from imapclient import IMAPClient  # noqa: E402

from bench.machine import describe  # noqa: E402
from bench.runs import fresh_caches  # noqa: E402
from engine.core.packets import open_packet  # noqa: E402
from mail.loopback import LoopbackNetwork  # noqa: E402
from mail.mailtransport import MailTransport  # noqa: E402
from mail.mime import read_message  # noqa: E402
from mail.sync import pull, sync  # noqa: E402
from mail.watch import Round, watch  # noqa: E402
from saves.home import Home  # noqa: E402
from saves.reading import lookup_in  # noqa: E402
from tests.mail.mailgame import (  # noqa: E402
    PASSWORD_ENV,
    account,
    make_box,
    mark_all_sent,
    new_box,
    outgoing,
)
from tests.mail.servers import MailStack, start_mail_stack  # noqa: E402
from tests.saves.conftest import (  # noqa: E402
    CHAIN_LENGTH,
    Player,
    accept_join,
    create_game,
    exchange,
    now,
    owner,
    play_setup,
)


def _client(stack: MailStack, user: str, box: str) -> IMAPClient:
    client = IMAPClient(stack.host, port=stack.imaps_port, ssl_context=stack.ssl_context())
    client.login(user, stack.password(user))
    client.select_folder(box, readonly=True)
    return client


def floor_fetch(
    stack: MailStack, user: str, box: str, expected: int, *, quiet: bool = False
) -> float:
    """Seconds to log in, select, search and fetch every message by one batched FETCH with
    imapclient as it comes. ``quiet`` first turns off the protocol trace imapclient switches on
    (imaplib formats a message per line read, and a ``repr`` of each message and of the whole
    answer), as hexpost's own connections do (`mail.imap._quiet`): the fetch without that
    overhead, which the sync no longer pays either."""
    began = time.perf_counter()
    client = _client(stack, user, box)
    if quiet:
        client._imap.debug = 0
    fetched = client.fetch(client.search("ALL"), ["BODY.PEEK[]"])
    elapsed = time.perf_counter() - began
    client.logout()
    assert len(fetched) == expected, f"fetched {len(fetched)}, expected {expected}"
    return elapsed


def floor_verify(packets: list[bytes], lookup: object) -> float:
    """Seconds to verify every packet's signature (and decode its envelope and body), as the
    receiver must: the part of a sync's floor that no transport can skip."""
    began = time.perf_counter()
    for data in packets:
        open_packet(data, lookup)  # type: ignore[arg-type]
    return time.perf_counter() - began


def floor_connect_noop(stack: MailStack, user: str, box: str) -> float:
    """Connect, log in, select the folder and send one NOOP: the floor of a one-shot sync
    that finds nothing new."""
    began = time.perf_counter()
    client = _client(stack, user, box)
    client.noop()
    elapsed = time.perf_counter() - began
    client.logout()
    return elapsed


def floor_noop(stack: MailStack, user: str, box: str, samples: int = 21) -> float:
    client = _client(stack, user, box)
    times = []
    for _ in range(samples):
        began = time.perf_counter()
        client.noop()
        times.append(time.perf_counter() - began)
    client.logout()
    return statistics.median(times)


class Side:
    """The receiving home, copied fresh for each measured run."""

    def __init__(self, stack: MailStack, source: Path, user: str, box: str, root: Path) -> None:
        self.stack, self.source, self.user, self.box, self.root = stack, source, user, box, root
        self.runs = 0

    def fresh(self) -> tuple[Home, MailTransport]:
        self.runs += 1
        path = self.root / f"copy{self.runs}"
        shutil.copytree(self.source, path)
        home = Home(path)
        return home, MailTransport(account(self.stack, self.user, self.box))


def timed_sync(home: Home, transport: MailTransport) -> tuple[float, int]:
    # A one-shot sync runs in a process of its own: nothing the engine worked out while an
    # earlier run applied the same packets may serve this one (`bench.runs`).
    fresh_caches()
    replica = home.replica(unlock=True)

    async def once() -> int:
        began = time.perf_counter()
        report = await sync(replica, transport, now)
        elapsed[0] = time.perf_counter() - began
        return len(report.received)

    elapsed = [0.0]
    received = asyncio.run(once())
    return elapsed[0], received


def warm_nothing_new(home: Home, transport: MailTransport, samples: int = 21) -> float:
    """A pull with nothing new on a connection kept open (a watch round's fetch)."""
    replica = home.replica(unlock=True)

    async def run() -> float:
        await pull(replica, transport, now)  # opens the connection
        times = []
        for _ in range(samples):
            began = time.perf_counter()
            outcomes = await pull(replica, transport, now)
            times.append(time.perf_counter() - began)
            assert outcomes == []
        return statistics.median(times)

    return asyncio.run(run())


def reading(raws: list[bytes]) -> float:
    """Seconds to read every waiting email (`mime.read_message`), as the IMAP worker thread
    does within a sync: a part of the sync's figure, shown on its own (not a floor)."""
    began = time.perf_counter()
    for raw in raws:
        assert read_message(raw) is not None
    return time.perf_counter() - began


def profile(side: Side, game_id: bytes, seqs: list[int], out: Path, raws: list[bytes]) -> None:
    """cProfile one full sync and then one empty sync on a fresh copy; print the top entries
    and keep the stats in ``out`` (full) and ``out``.empty; then cProfile reading the waiting
    emails alone (``out``.read, by own time: the worker thread's reading shows in the full
    sync only as the event loop's wait); then count the SQL statements a full sync runs on
    another fresh copy (``sqlite3``'s trace callback), most frequent first."""
    profiler = cProfile.Profile()
    profiler.enable()
    reading(raws)
    profiler.disable()
    target = out.with_suffix(out.suffix + ".read")
    print(f"--- profile of reading the {len(raws)} emails (read_message), saved in {target}")
    profiler.dump_stats(target)
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    home, transport = side.fresh()
    for name, target in (("full", out), ("empty", out.with_suffix(out.suffix + ".empty"))):
        profiler = cProfile.Profile()
        profiler.enable()
        received = timed_sync(home, transport)[1]
        profiler.disable()
        print(f"--- profile of the {name} sync ({received} received), saved in {target}")
        profiler.dump_stats(target)
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
    asyncio.run(transport.close())
    home.close()
    home, transport = side.fresh()
    statements: Counter[str] = Counter()
    literal = re.compile(r"x'[0-9a-f]*'|'[^']*'|\b\d+\b")
    home.store().db.set_trace_callback(
        lambda sql: statements.update([literal.sub("?", " ".join(sql.split()))])
    )
    received = timed_sync(home, transport)[1]
    total = sum(statements.values())
    print(f"--- {total} SQL statements in a full sync of {received}: {total / received:.1f} each")
    for sql, count in statements.most_common(30):
        print(f"{count:7d}  {sql[:150]}")
    asyncio.run(transport.close())
    home.close()


def latency(
    stack: MailStack, sender: Player, receiver_path: Path, game_id: bytes, box: str, samples: int
) -> list[float]:
    """Seconds from the SMTP send of a packet to its application by a watching receiver (whose
    home is opened on the watcher's own thread: a SQLite connection stays on its thread)."""
    receiver_user = "bob" if sender.name == "Alice" else "alice"
    applied: dict[int, float] = {}
    ready = threading.Event()
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()

    def seen(result: Round) -> None:
        ready.set()
        if result.report is not None:
            for outcome in result.report.received:
                for seq in outcome.applied:
                    applied.setdefault(seq, time.perf_counter())

    async def watching() -> None:
        home = Home(receiver_path)
        transport = MailTransport(account(stack, receiver_user, box))
        try:
            replica = home.replica(unlock=True)
            await watch(replica, transport, now, on_round=seen, stop=stop, idle_seconds=600.0)
        finally:
            await transport.close()
            home.close()

    thread = threading.Thread(target=loop.run_until_complete, args=(watching(),), daemon=True)
    thread.start()
    ready.wait(60)
    sending = sender.transport
    assert isinstance(sending, MailTransport)
    results = []
    for n in range(samples):
        time.sleep(0.3)  # let the watcher settle back into IDLE
        seq = sender.replica.chat(game_id, f"latency {n}", now=now()).seq
        began = time.perf_counter()
        asyncio.run(sync(sender.replica, sending, now))
        deadline = time.monotonic() + 30
        while seq not in applied and time.monotonic() < deadline:
            time.sleep(0.002)
        if seq not in applied:
            raise SystemExit(f"packet {seq} was not applied within 30 s")
        results.append(applied[seq] - began)
    loop.call_soon_threadsafe(stop.set)
    thread.join(60)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mails", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--latency", type=int, default=10)
    parser.add_argument(
        "--profile", metavar="FILE", help="also profile one full and one empty sync (cProfile)"
    )
    args = parser.parse_args()
    print(describe())
    with start_mail_stack() as stack, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        box = new_box()
        for user in stack.users:
            os.environ[PASSWORD_ENV.format(user=user.upper())] = stack.password(user)
            make_box(stack, user, box)
        network = LoopbackNetwork()
        alice = Player(root / "alice", "Alice", account(stack, "alice", box).address, network)
        bob = Player(root / "bob", "Bob", account(stack, "bob", box).address, network)
        game_id = create_game(alice, opponent=bob.address)
        alice.sync()
        bob.sync()
        bob.replica.accept(game_id, now=now(), chain_length=CHAIN_LENGTH)
        exchange(bob, alice)
        accept_join(alice, bob, game_id)
        play_setup({"coalition": alice, "alliance": bob}, game_id)
        sender, receiver = owner({"coalition": alice, "alliance": bob}, game_id)
        sender_user, receiver_user = sender.name.lower(), receiver.name.lower()
        print(f"{sender.name} writes {args.mails} chat packets for {receiver.name}...")
        seqs = [
            sender.replica.chat(game_id, f"bench line {n}", now=now()).seq
            for n in range(args.mails)
        ]
        mark_all_sent(sender)
        mailer = MailTransport(account(stack, sender_user, box))
        appender = IMAPClient(stack.host, port=stack.imaps_port, ssl_context=stack.ssl_context())
        appender.login(receiver_user, stack.password(receiver_user))
        raws = [mailer.build(outgoing(sender, game_id, seq, receiver.address))[1] for seq in seqs]
        for raw in raws:
            appender.append(box, raw)
        if not appender.folder_exists("Junk"):  # (the spam folder every provider has)
            appender.create_folder("Junk")
        appender.logout()
        receiver.close()
        side = Side(stack, root / receiver_user, receiver_user, box, root)

        packets = [sender.packet(game_id, seq) for seq in seqs]
        lookup = lookup_in(sender.replica.state(game_id))
        if args.profile:
            profile(side, game_id, seqs, Path(args.profile), raws)
        full, fetch, verify, idle_sync, connect, noop, read = [], [], [], [], [], [], []
        quiet: list[float] = []
        last: tuple[Home, MailTransport] | None = None
        for _ in range(args.repeat):
            fetch.append(floor_fetch(stack, receiver_user, box, len(seqs)))
            quiet.append(floor_fetch(stack, receiver_user, box, len(seqs), quiet=True))
            verify.append(floor_verify(packets, lookup))
            read.append(reading(raws))
            home, transport = side.fresh()
            seconds, received = timed_sync(home, transport)
            assert received == len(seqs), f"received {received} of {len(seqs)}"
            assert home.replica().game(game_id).head_seq == seqs[-1]
            full.append(seconds)
            asyncio.run(transport.close())
            for _ in range(3):
                fresh_transport = MailTransport(account(stack, receiver_user, box))
                idle_sync.append(timed_sync(home, fresh_transport)[0])
                asyncio.run(fresh_transport.close())
                connect.append(floor_connect_noop(stack, receiver_user, box))
            noop.append(floor_noop(stack, receiver_user, box))
            if last is not None:
                last[0].close()
            last = (home, transport)
        assert last is not None
        warm_transport = MailTransport(account(stack, receiver_user, box))
        warm = warm_nothing_new(last[0], warm_transport)
        asyncio.run(warm_transport.close())
        last[0].close()

        a, fa, fv = min(full), min(fetch), min(verify)
        b, fb, fn = min(idle_sync), min(connect), min(noop)
        print(f"(a) {args.mails} chat packet emails waiting (one game, one sender, MailTransport's")
        print("    own emails appended by IMAP), synced into a fresh copy of the receiving home")
        print(f"    one batched FETCH (login+select+search+fetch):  {fa * 1000:9.1f} ms")
        print(f"    verifying the {len(packets)} packets' signatures:        {fv * 1000:9.1f} ms")
        print(f"    floor, the two together:                         {(fa + fv) * 1000:9.1f} ms")
        print(f"    hexpost sync (connect..apply, all stored):       {a * 1000:9.1f} ms")
        print(
            f"    ratio a / floor: {a / (fa + fv):.2f}   per packet: {a / len(seqs) * 1000:.3f} ms"
        )
        fq = min(quiet)
        print(f"    the batched FETCH with imaplib's trace off:      {fq * 1000:9.1f} ms")
        print(f"    ratio a / (that FETCH + verifying): {a / (fq + fv):.2f}")
        print(f"    of which reading the emails (read_message):    {min(read) * 1000:9.1f} ms")
        print("(b) nothing new, the same folder (the mails of (a) all read)")
        print(f"    floor, connect+login+select+NOOP:                {fb * 1000:9.2f} ms")
        print(f"    hexpost sync (new connection each time):         {b * 1000:9.2f} ms")
        print(f"    ratio b / floor: {b / fb:.2f}")
        print(f"    floor, one NOOP on an open connection:           {fn * 1000:9.3f} ms")
        print(f"    a watch round's fetch (connection kept open):    {warm * 1000:9.3f} ms")
        print(f"    ratio warm / NOOP: {warm / fn:.2f}")
        if args.latency:
            sender.transport = mailer  # type: ignore[assignment]
            samples = latency(stack, sender, last[0].path, game_id, box, args.latency)
            print(f"(c) --watch, SMTP send to packet applied, {len(samples)} samples")
            print(
                f"    median {statistics.median(samples) * 1000:.0f} ms, "
                f"min {min(samples) * 1000:.0f} ms, max {max(samples) * 1000:.0f} ms"
            )
        sender.close()


if __name__ == "__main__":
    main()
