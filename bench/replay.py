"""Replay benchmark: how much `verify` costs beyond checking signatures, and its memory.

    .venv/bin/python bench/replay.py [--game campaign|notes] [--packets 5000] [--repeat 3]

The game replayed (in a temporary home):

- ``campaign`` (the default): the golden campaign (tests/golden/fe_campaign.msgpack), The Wind
  from set-up to the end of turn 6, where nearly every packet advances the game: builds,
  moves, battles, supply, economics;
- ``notes``: a game of The Wind with ``--packets`` packets of checklist play (notes of a few
  hundred characters, completed steps with adjustments, rolls and their entropy replies,
  secret steps), whose packets mostly change nothing: for long games.

It times in the same run:

  (a) the floor: for every stored packet, Ed25519 signature verification and msgspec
      decoding of its envelope and body (reading the rows from SQLite included);
  (b) `Replica.verify`, as ``hexpost verify`` runs it: the whole replay from genesis,
      checking every signature, link, order and state hash, and the final snapshot; on a
      machine with two usable cores, with a helper process checking the signatures while
      the replay applies the packets (`saves.signature_helper`; the bench says whether it
      did). The floor (a) uses one core, so with the helper b/a is the wall time a player
      waits over the least one core could do;
  (b1) the same with the helper turned off (``HEXPOST_VERIFY_HELPER=0``): one process,
      one core, as before 2026-12-05.

It prints them and the ratios b/a (target: at most 1.5) and b1/a. To show where the rest
goes it also times

  (c) the engine alone: the packets, already opened, applied from genesis by
      `apply_packet` (each state hash computed and compared), with no signature, no
      decoding and no SQLite;
  (d) of that, the state hash alone: `state_hash` of every state (c) produced;
  (e) verify's opening alone: the stored rows read and opened as `Replica.verify` opens
      them (`saves.replay.open_page`: signature, envelope and body checks, the canonical
      form, the packet id), with no engine;

and prints (c)/a and b1 - c (what verifying adds to the engine, over the floor): when the
engine alone costs more than half the floor, b1/a cannot reach 1.5 however cheap the rest;
e/a is what opening adds to the floor's checks, and b1 - c - e what the replay costs beyond
its two halves timed alone (the final snapshot, and the two halves slowing each other); with
the helper, b - c is what the replay adds to the engine beyond it. Runs of (a), (b), (b1), (c)
and (e) alternate, ``--repeat`` times; the best of each counts, so a busy
moment on a shared machine does not land on one side only. Before each replay, (b), (b1),
(c) and (d), the engine's caches are emptied but for the shipped data (the map and tables
stay read): `hexpost verify` replays a game once, and a replay that found the answers an
earlier one worked out about the same states (the engine remembers some by value, such as
supply grids) would time less than any player waits. (Before 2026-12-05 they were not
emptied, and the best of the repeats was such a replay.) Then the memory: the peak that
Python allocates (tracemalloc) while verifying the first quarter, the first half and the
whole game, each in a home of its own: a replay that streams its packets peaks at about the
same figure (what it holds beyond one state are the engine's bounded caches). tracemalloc
sees the replay's own process; a helper holds one page of packets at a time besides. After
each, it says what the engine's caches hold: entries, how many caches are at their bound,
and any cache without a bound (none, as of 2026-12-05): the peak grows with the game's
length only while caches fill toward their bounds.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import msgspec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.machine import describe  # noqa: E402
from bench.runs import fresh_caches  # noqa: E402
from engine.core import caches  # noqa: E402
from engine.core.game import Result, apply_packet  # noqa: E402
from engine.core.owed import pending  # noqa: E402
from engine.core.packets import (  # noqa: E402
    SIGNATURE_DOMAIN,
    Body,
    Envelope,
    VerifiedPacket,
    open_packet,
)
from engine.core.ruleset import DecisionKind  # noqa: E402
from engine.core.state import state_hash  # noqa: E402
from engine.core.turn_orders import Done, Note, Roll  # noqa: E402
from engine.fe import RULESET  # noqa: E402
from engine.fe.steps.setup_stage import default_placements  # noqa: E402
from saves import ledger, replay, signature_helper, store_games  # noqa: E402
from saves.replica import Identity, Replica, lookup_in  # noqa: E402
from saves.store import Store  # noqa: E402
from tests.engine.table import Table  # noqa: E402
from tests.golden.companion import GoldenGame  # noqa: E402

GOLDEN = ROOT / "tests" / "golden" / "fe_campaign.msgpack"

PROSE = (
    "fleet moves toward the border hex while the reserve holds at the starbase "
    "cripples return for repair and the tug carries a battle pod to the front"
)
WORDS = PROSE.split(" ")


def text(rng: random.Random, low: int, high: int) -> str:
    size = rng.randint(low, high)
    words: list[str] = []
    while sum(len(w) + 1 for w in words) < size:
        words.append(rng.choice(WORDS))
    return " ".join(words)[:size]


def build(count: int, seed: int = 7) -> Table:
    """A legal checklist game of ``count`` packets with realistic order sizes."""
    rng = random.Random(seed)
    table = Table(
        RULESET, "the-wind", ["coalition", "alliance"], label="bench", chain_length=1 << 14
    )
    while len(table.packets) < count:
        assert table.state is not None
        decisions = pending(RULESET, table.state)
        if not decisions:
            raise SystemExit(
                f"--packets {count}: The Wind ended after {len(table.packets)} packets of "
                "this play; ask for fewer"
            )
        decision = decisions[0]
        seat = decision.seats[0]
        if decision.kind == DecisionKind.ENTROPY:
            table.entropy_only(seat)
        elif decision.kind == DecisionKind.SECRET:
            table.commit(seat, text(rng, 40, 200))
        elif decision.kind == DecisionKind.REVEAL:
            table.reveal(seat)
        elif table.state.rules is not None and table.state.rules.setup:
            table.orders(seat, *default_placements(table.state.rules), Done())
        else:
            orders: list[object] = [Note(text(rng, 150, 700))]
            roll = rng.random()
            if roll < 0.05:
                orders.append(Roll("2d6", text(rng, 10, 40)))
            elif roll < 0.22:
                adjustments = [text(rng, 20, 80) for _ in range(rng.randint(0, 3))]
                orders.append(Done(note=text(rng, 50, 300), adjustments=adjustments))
            table.orders(seat, *orders)
    return table


def golden_campaign() -> tuple[list[VerifiedPacket], list[Result]]:
    """The golden campaign's packets, opened and applied as a home takes them in."""
    golden = msgspec.msgpack.decode(GOLDEN.read_bytes(), type=GoldenGame)
    packets: list[VerifiedPacket] = []
    results: list[Result] = []
    state = None
    for data in golden.packets:
        packet = open_packet(data, lookup_in(state))
        result = apply_packet(RULESET, state, packet)
        packets.append(packet)
        results.append(result)
        state = result.state
    return packets, results


def store_game(
    packets: list[VerifiedPacket], results: list[Result], path: Path
) -> tuple[Replica, bytes]:
    store = Store(path)
    replica = Replica(store, Identity("Bench", "bench@example.org", b""))
    game_id = results[0].state.core.game_id
    with store.transaction():
        store_games.insert_game(
            store,
            game_id,
            name="bench",
            ruleset="fe",
            scenario="the-wind",
            my_seat="coalition",
            status="active",
            now="2026-01-01T00:00:00Z",
        )
        for packet, result in zip(packets, results, strict=True):
            ledger.store_applied(store, packet, result, "2026-01-01T00:00:00Z", mine=False)
    return replica, game_id


def floor(replica: Replica, game_id: bytes, keys: dict[bytes, bytes]) -> float:
    """Signature checks and decoding only: the least any verification must do."""
    envelope_decoder = msgspec.msgpack.Decoder(Envelope)
    body_decoder = msgspec.msgpack.Decoder(Body)
    public = {kid: Ed25519PublicKey.from_public_bytes(pk) for kid, pk in keys.items()}
    gc.collect()
    start = time.perf_counter()
    for _, data in replica.packets(game_id):
        envelope = envelope_decoder.decode(data)
        public[envelope.key_id].verify(envelope.signature, SIGNATURE_DOMAIN + envelope.body)
        body_decoder.decode(envelope.body)
    return time.perf_counter() - start


def full_verify(replica: Replica, game_id: bytes, *, helper: bool = True) -> float:
    """(b), or with ``helper`` False (b1): the helper process turned off."""
    replica._heads.clear()  # measure from the store, as `hexpost verify` does
    if not helper:
        os.environ["HEXPOST_VERIFY_HELPER"] = "0"
    fresh_caches()
    try:
        start = time.perf_counter()
        replica.verify(game_id)
        return time.perf_counter() - start
    finally:
        os.environ.pop("HEXPOST_VERIFY_HELPER", None)


def opening_only(replica: Replica, game_id: bytes) -> float:
    """(e): the rows read and opened as `Replica.verify` does, without applying them."""
    gc.collect()
    start = time.perf_counter()
    keys: dict[bytes, list[bytes]] = {}
    for page in store_games.packet_pages(replica.store, game_id):
        replay.open_page(page, keys)
    return time.perf_counter() - start


def engine_only(packets: list[VerifiedPacket]) -> tuple[float, float]:
    """(c) and (d): the opened packets applied from genesis, and the state hash alone."""
    fresh_caches()
    states = []
    state = None
    start = time.perf_counter()
    for packet in packets:
        state = apply_packet(RULESET, state, packet).state
        states.append(state)
    engine = time.perf_counter() - start
    fresh_caches()
    start = time.perf_counter()
    for state in states:
        state_hash(state)
    return engine, time.perf_counter() - start


def peak_memory(
    packets: list[VerifiedPacket], results: list[Result], root: Path
) -> tuple[int, str]:
    """The most Python allocated while verifying these packets in a home of their own, and
    what the engine's caches hold afterwards (`caches_held`)."""
    replica, game_id = store_game(packets, results, root / f"peak-{len(packets)}.sqlite3")
    replica._heads.clear()
    fresh_caches()
    tracemalloc.start()
    replica.verify(game_id)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    replica.store.close()
    return peak, caches_held()


def caches_held() -> str:
    """The engine's caches that hold something, in words: their entries, how many are at
    their bound, and any without a bound (the part of the peak that may still grow with a
    longer game, up to their bounds)."""
    held = [c for c in caches.describe() if c.size and c.kind != "static"]
    full = [c for c in held if c.maxsize is not None and c.size >= c.maxsize]
    unbounded = [c.name for c in held if c.maxsize is None]
    return (
        f"{sum(c.size for c in held)} entries in {len(held)} caches, {len(full)} at their bound, "
        + (f"unbounded: {', '.join(unbounded)}" if unbounded else "none unbounded")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=("campaign", "notes"), default="campaign")
    parser.add_argument(
        "--packets",
        type=int,
        default=5_000,
        help="the notes game's length (The Wind ends after about 6,700 packets of it)",
    )
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    print(describe())
    built = time.perf_counter()
    if args.game == "campaign":
        packets, results = golden_campaign()
        what = f"the golden campaign ({GOLDEN.name})"
    else:
        table = build(args.packets)
        packets, results = table.packets, table.results
        what = "a notes game of The Wind"
    sizes = [len(p.data) for p in packets]
    print(
        f"{what}: {len(sizes)} packets, read in {time.perf_counter() - built:.1f} s: "
        f"mean {sum(sizes) // len(sizes)} bytes, max {max(sizes)}, total {sum(sizes) // 1024} KiB"
    )
    keys = {p.envelope.key_id: p.envelope.public_key for p in packets if p.envelope.public_key}
    with tempfile.TemporaryDirectory(prefix="hexpost-bench-") as root:
        replica, game_id = store_game(packets, results, Path(root) / "bench.sqlite3")
        runs = [
            (
                floor(replica, game_id, keys),
                full_verify(replica, game_id),
                full_verify(replica, game_id, helper=False),
                *engine_only(packets),
                opening_only(replica, game_id),
            )
            for _ in range(args.repeat)
        ]
        a, b, b1, c, d, e = (min(run[i] for run in runs) for i in range(6))
        replica.store.close()
        per = 1e6 / len(sizes)
        helped = signature_helper.wanted(len(sizes))
        used = "with" if helped else "without (not wanted here)"
        print(f"(a) floor, signatures + decoding: {a * 1000:8.1f} ms ({a * per:.1f} us/packet)")
        print(f"(b) verify, {used} the signature helper:")
        print(f"                                  {b * 1000:8.1f} ms ({b * per:.1f} us/packet)")
        print(f"ratio b/a = {b / a:.2f} (target <= 1.5)")
        print(f"(b1) verify in one process:       {b1 * 1000:8.1f} ms ({b1 * per:.1f} us/packet)")
        print(f"ratio b1/a = {b1 / a:.2f}")
        print(
            f"(c) the engine alone (apply_packet): {c * 1000:8.1f} ms ({c * per:.1f} us/packet), "
            f"c/a = {c / a:.2f}"
        )
        print(f"(d) of which the state hash:         {d * 1000:8.1f} ms ({d * per:.1f} us/packet)")
        print(
            f"b1 - c, what verifying adds to the engine: {(b1 - c) * per:.1f} us/packet, "
            f"(b1 - c)/a = {(b1 - c) / a:.2f}; with the helper, b - c = {(b - c) * per:.1f} "
            "us/packet"
        )
        print(
            f"(e) verify's opening alone:           {e * 1000:8.1f} ms ({e * per:.1f} us/packet), "
            f"e/a = {e / a:.2f}; b1 - c - e = {(b1 - c - e) * per:.1f} us/packet"
        )
        for share in (4, 2, 1):
            count = len(packets) // share
            peak, held = peak_memory(packets[:count], results[:count], Path(root))
            print(f"peak memory verifying the first {count} packets: {peak / 2**20:.1f} MiB")
            print(f"  the engine's caches then: {held}")


if __name__ == "__main__":
    main()
