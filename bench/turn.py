"""Player-turn benchmark: what applying a whole F&E player turn of The Wind costs.

    .venv/bin/python bench/turn.py [--repeat 5] [--scale 4]

Builds, through the real protocol core, The Wind after its set-up (every empire's starting
fleets on the map, about 690 units; with ``--scale N`` every unit is there N times, copies
stacked with their original and numbered on after the highest ids as the engine numbers new
units, so the board holds N times the units; with ``--still`` too, the copies stay where
they are and only the originals move, so that turn differs from the scale-1 turn only by
the units that did not move) played on to turn 2, and then the coalition's whole second
player turn: income, supply checks, its builds (one packet of build orders, the golden
campaign's choice: every schedule slot filled at the capitals), one movement batch in which
every released coalition stack moves (the new units too), the reaction window, the combat
phase (passed by itself when the moves made no battle hex), the arrivals of the off-map
fleets due (a strategic order at 8A), and the rest of the sequence of play (with
``--still``, the copies neither move nor arrive). ``--no-production`` leaves the builds and
arrivals out (the turn this bench timed before 2026-12-04).
With ``--signed`` both seats sign in advance what `bench.handoffs` signs (its standing
order but strategic movement, the combat policy, reactions "never"), as players who take
the app's offers do: the engine plays every routine step and each seat's packet holds all it
does until the other decides, so the same player turn comes in 4 packets, not 29. It is
counted from the coalition's builds (its first decision: the engine plays the steps before
them in the packet that ends the alliance's turn) to the alliance's. The rules do the same
work; the floor is 4 packets' signatures, so the ratios come out several times higher.
Then it times, in the same run and on the same packets:

  (a) the floor: Ed25519 signature verification and msgspec decoding of every packet of the
      player turn;
  (b) apply: `apply_packet` of the same packets from the set-up state (the rules, the state
      hash after every packet), without the signature checks already counted in (a), from
      the state decoded from its snapshot: what a one-shot ``hexpost sync`` does;
  (w) warm apply: the same, from the state the replica keeps in memory between syncs (the
      app and ``sync --watch``: `saves.reading.Reader` keeps each game's head state), here
      the state left by applying the WARM packets before the turn in the same process, so
      the views those packets read are still at hand.

It prints them, the ratios b/a and w/a, and the state's size: its canonical bytes and the memory the
decoded state holds (tracemalloc). Runs alternate ``--repeat`` times and the best of each
counts, so a busy moment on a shared machine does not land on one side only. Before each
run of (b) and (w) the engine's caches are emptied but for the shipped data
(`bench.runs.fresh_caches`): every run applies the same packets to an equal state, and the
engine remembers some answers by value (supply grids by what blocks them), so a run would
otherwise find what the run before worked out about the turn's very states, which no
replica receiving the turn has. (Before 2026-12-05 they were not emptied: at scale 1, b/a
read 2.50-2.57 where the same code reads 3.62-3.75 with them emptied, and w/a 2.11-2.12
where it reads 2.73-2.80, in alternated runs of both benches.) No target is asserted: the
figures go into the session notes.

``--per-packet`` then shows where (b) goes: each packet's best time over ``--repeat`` runs
from the decoded state, its share of the turn, who wrote it and the steps it took the game
through (a turn's first packet pays for the first reading of the freshly decoded board).
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
import tracemalloc
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.handoffs import POLICIES, ROUTINE  # noqa: E402
from bench.machine import describe  # noqa: E402
from bench.runs import fresh_caches  # noqa: E402
from engine.core.game import apply_packet  # noqa: E402
from engine.core.owed import pending  # noqa: E402
from engine.core.packets import SIGNATURE_DOMAIN, Body, Envelope, VerifiedPacket  # noqa: E402
from engine.core.ruleset import AnyRuleset, OptionValue, Seat  # noqa: E402
from engine.core.state import GameState, decode_state, encode_state  # noqa: E402
from engine.core.turn_orders import Done, Standing  # noqa: E402
from engine.fe import RULESET, flow  # noqa: E402
from engine.fe.checklist import FeRuleset  # noqa: E402
from engine.fe.forces import Unit  # noqa: E402
from engine.fe.model import FeState  # noqa: E402
from engine.fe.orders import Batch, MoveOrder, ReactionOrder, StrategicOrder  # noqa: E402
from tests.engine.fe.helpers import start  # noqa: E402
from tests.engine.fe_campaign import arrive, builds  # noqa: E402
from tests.engine.fe_play import set_up  # noqa: E402
from tests.engine.fe_wind import first_legal, rules, walk_to  # noqa: E402
from tests.engine.table import Table  # noqa: E402

NEIGHBOUR_STEPS = ((0, -1), (0, 1), (1, 0), (-1, 0), (1, 1), (-1, 1), (1, -1), (-1, -1))


class ScaledWind(FeRuleset):
    """F&E starting from The Wind after its set-up with every unit there ``scale`` times.

    The copies are numbered as the engine numbers new units (`engine.fe.production.next_ids`):
    each after the highest id of its kind (``KLI-0212`` or ``LYR-P012``), as wide, so the
    board reads as a real game's board of that many units."""

    def __init__(self, scale: int) -> None:
        self.scale = scale
        self.copy_ids: frozenset[str] = frozenset()
        """The ids of the copies `initial_state` made (the same at every call: the scenario's
        units are), for `build` to tell the copies from the originals. The one thing this
        bench's ruleset keeps besides its scale; the real one keeps nothing."""

    def initial_state(
        self, scenario_id: str, seats: Sequence[Seat], options: Mapping[str, OptionValue]
    ) -> FeState:
        state = start(dict(options), scenario=scenario_id)
        board = state.board
        copies = scaled_copies(board.units, self.scale)
        self.copy_ids = frozenset(unit.id for unit in copies)
        return state.with_board(board.with_units(copies))


def scaled_copies(units: Sequence[Unit], scale: int) -> list[Unit]:
    """``scale - 1`` copies of each of ``units``, each with the next id after the highest of
    its kind: its id with the digits at its end counted on, as many digits wide."""
    split = [_split_id(unit.id) for unit in units]
    highest: dict[str, int] = {}
    for kind, number in split:
        highest[kind] = max(highest.get(kind, 0), int(number))
    copies: list[Unit] = []
    for _ in range(2, scale + 1):
        for unit, (kind, number) in zip(units, split, strict=True):
            highest[kind] += 1
            fresh = f"{kind}{highest[kind]:0{len(number)}d}"
            copies.append(msgspec.structs.replace(unit, id=fresh))
    return copies


def _split_id(unit_id: str) -> tuple[str, str]:
    """``KLI-0212`` as ``("KLI-", "0212")``, ``LYR-P012`` as ``("LYR-P", "012")``."""
    digits = len(unit_id) - len(unit_id.rstrip("0123456789"))
    if not digits:
        raise ValueError(f"unit id {unit_id!r} does not end in a number")
    return unit_id[:-digits], unit_id[-digits:]


def build(
    scale: int, *, still: bool = False, production: bool = True, signed: bool = False
) -> tuple[Table, int]:
    """The Wind set up and played to turn 2 (when the Klingons' fleets are released), then
    the coalition's second player turn; and the index of that turn's first packet. With
    ``still``, the copies of a scaled board stay where they are and only the originals move.
    With ``production`` (the default) the turn has the golden campaign's builds and
    arrivals too (`tests.engine.fe_campaign`), as a real player turn has. With ``signed``,
    both seats sign in their first orders what `bench.handoffs` signs (`SigningTable`), so
    the engine plays every routine step and each seat's packet holds all it does until the
    other decides."""
    ruleset = RULESET if scale == 1 else ScaledWind(scale)
    seats = ["coalition", "alliance"]
    if signed:
        table: Table = SigningTable(ruleset, "the-wind", seats, label="bench-turn-signed")
    else:
        table = Table(ruleset, "the-wind", seats, label="bench-turn")
    set_up(table)
    for seat in ("coalition", "alliance"):
        walk_to(table, "3B2")
        table.orders(seat, Done())
    # Where a player turn begins for this bench: at its first step without standing orders;
    # with them, at the builds, the phasing player's first decision (the engine plays the
    # steps before it in the packet that ended the other player's turn).
    first = "2B3" if signed else "1A1"
    walk_to(table, first)
    start = len(table.packets)
    if production:  # the coalition's builds, one packet, as the golden campaign makes them
        walk_to(table, "2B3")
        made = builds(table, "coalition")
        table.orders("coalition", *made, Done())
        print(f"built {len(made)} units in one packet")
    walk_to(table, "3B2")
    state = rules(table)
    stacks: dict[tuple[str, str, int], list[str]] = {}
    copy_ids = ruleset.copy_ids if isinstance(ruleset, ScaledWind) else frozenset()
    for unit in state.board.units:
        movable = unit.hex and unit.info().move > 0 and state.board.is_released(unit)
        if still and unit.id in copy_ids:
            continue
        if unit.empire in ("LYR", "KLI") and movable:
            stacks.setdefault((unit.empire, unit.fleet, unit.hex), []).append(unit.id)
    moves: list[MoveOrder] = []
    for (_, _, h), ids in sorted(stacks.items()):
        column, row = divmod(h, 100)
        options = [
            MoveOrder(ids, [f"{h:04d}", f"{column + dc:02d}{row + dr:02d}"])
            for dc, dr in NEIGHBOUR_STEPS
            if 1 <= column + dc <= 61 and 1 <= row + dr <= 19
        ]
        moves.append(first_legal(table, "coalition", options))
    table.orders("coalition", *moves, Batch())  # one batch moving every stack
    if production:  # the off-map fleets due come on (strategic orders at 8A)
        walk_to(table, "8A")
        arrivals = [
            StrategicOrder([i for i in order.units if i not in copy_ids], order.to)
            if still
            else order
            for order in arrive(table, "coalition")
        ]
        table.orders("coalition", *arrivals, Done())
        print(f"brought {sum(len(o.units) for o in arrivals)} units on from off the map")
    walk_to(table, first)  # the alliance's player turn begins
    assert table.state is not None
    decision = pending(RULESET, table.state)[0]
    assert decision.seats == ("alliance",), decision
    print(f"moved {sum(len(m.units) for m in moves)} units in {len(moves)} stacks")
    return table, start


SIGNED = [step for step in ROUTINE if step != "8A"]
"""The standing order of ``--signed``: `bench.handoffs.ROUTINE` but strategic movement (8A),
where this turn's off-map fleets arrive."""


class SigningTable(Table):
    """A table whose seats sign, in their first packet of orders, what `bench.handoffs`
    signs in advance: the standing order `SIGNED`, its combat policy and reactions "never".
    On The Wind that is each seat's set-up packet; a scaled board has no set-up stage, so
    a seat signs in a packet of its own when it first owes a step, in place of the ``done``
    orders it was to send (counted without the standing order: `walk_to` counts again)."""

    def __init__(self, ruleset: AnyRuleset, scenario: str, seats: list[str], label: str) -> None:
        self.unsigned = set(seats)
        super().__init__(ruleset, scenario, seats, label=label)

    def orders(self, seat: str, *orders: Any) -> VerifiedPacket:
        if seat in self.unsigned:
            self.unsigned.discard(seat)
            # The standing order last: the engine plays the steps it covers at once, and the
            # next one may be the other seat's.
            signed = (POLICIES[seat], ReactionOrder(mode="never"), Standing(list(SIGNED)))
            if all(isinstance(order, Done) for order in orders):
                return super().orders(seat, *signed)
            orders = (*signed, *orders)
        return super().orders(seat, *orders)


def verify_packet(keys: Mapping[bytes, bytes], data: bytes) -> None:
    """One packet's share of the floor: its signature checked, its body decoded."""
    envelope = msgspec.msgpack.decode(data, type=Envelope)
    Ed25519PublicKey.from_public_bytes(keys[envelope.key_id]).verify(
        envelope.signature, SIGNATURE_DOMAIN + envelope.body
    )
    msgspec.msgpack.decode(envelope.body, type=Body)


def floor(raw: list[bytes]) -> float:
    started = time.perf_counter()
    for data in raw:
        verify_packet(_KEYS, data)
    return time.perf_counter() - started


def apply_all(table: Table, begin: int, snapshot: bytes, warm: int = 0) -> float:
    """Seconds to apply the turn's packets (from ``begin``) to the state ``snapshot`` holds,
    which is the state ``warm`` packets before ``begin``: those are applied first, untimed.

    The engine's caches are emptied first (`fresh_caches`): what an earlier run worked out
    about these very packets' states must not serve this one."""
    fresh_caches()
    state: GameState[FeState] = decode_state(snapshot, FeState)
    for packet in table.packets[begin - warm : begin]:
        state = apply_packet(RULESET, state, packet).state
    packets = table.packets[begin:]
    started = time.perf_counter()
    for packet in packets:
        state = apply_packet(RULESET, state, packet).state
    return time.perf_counter() - started


_KEYS: dict[bytes, bytes] = {}

WARM = 5
"""Packets the warm run (w) applies before the turn: the end of the alliance's player turn,
which its replica applied (or signed) itself before the coalition's turn came in."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--scale", type=int, default=1, help="every unit N times (default 1)")
    parser.add_argument(
        "--still",
        action="store_true",
        help="with --scale: the copies stay put and only the original units move, so the "
        "turn differs from scale 1 only by the units that did not move",
    )
    parser.add_argument(
        "--no-production",
        action="store_true",
        help="a turn without builds and arrivals (the coalition only moves)",
    )
    parser.add_argument(
        "--warm",
        type=int,
        default=WARM,
        metavar="N",
        help=f"(w) applies the N packets before the turn first, untimed (default {WARM})",
    )
    parser.add_argument(
        "--signed",
        action="store_true",
        help="both seats sign their standing order and policies in advance, as the app offers: "
        "the turn comes in the few packets a player sends",
    )
    parser.add_argument(
        "--per-packet", action="store_true", help="then each packet's time and the steps it took"
    )
    args = parser.parse_args()
    print(describe())
    table, begin = build(
        args.scale, still=args.still, production=not args.no_production, signed=args.signed
    )
    for packet in table.packets:
        if packet.envelope.public_key:
            _KEYS[packet.envelope.key_id] = packet.envelope.public_key
    raw = [p.data for p in table.packets[begin:]]
    before = _state_before(table, begin)
    snapshot = encode_state(before)
    warm = max(0, min(args.warm, begin))
    warm_snapshot = encode_state(_state_before(table, begin - warm))
    sizes = [len(d) for d in raw]
    assert before.rules is not None
    print(
        f"packets: the coalition's player turn 2 of The Wind ({len(before.rules.board.units)} "
        f"units, scale {args.scale}{', copies still' if args.still else ''}), "
        f"packets {begin}-{len(table.packets) - 1} of the game, "
        + (
            "standing orders and policies signed in advance (--signed)"
            if args.signed
            else "nothing signed in advance (a packet each time a seat owes a step)"
        )
    )
    print(
        f"player turn: {len(raw)} packets, mean {sum(sizes) // len(sizes)} bytes, max {max(sizes)}"
    )
    best_floor = best_apply = best_warm = float("inf")
    for _ in range(args.repeat):
        gc.collect()
        best_floor = min(best_floor, floor(raw))
        best_apply = min(best_apply, apply_all(table, begin, snapshot))
        best_warm = min(best_warm, apply_all(table, begin, warm_snapshot, warm))
    per = 1e6 / len(raw)
    print(f"(a) floor, signatures + decoding: {best_floor * 1e3:8.1f} ms "
          f"({best_floor * per:.1f} us/packet)")  # fmt: skip
    print(f"(b) apply, rules + state hashes:  {best_apply * 1e3:8.1f} ms "
          f"({best_apply * per:.1f} us/packet)")  # fmt: skip
    print(f"(w) warm apply, {warm} packets before: {best_warm * 1e3:5.1f} ms "
          f"({best_warm * per:.1f} us/packet)")  # fmt: skip
    print(f"ratio b/a = {best_apply / best_floor:.2f}, w/a = {best_warm / best_floor:.2f}")
    final = table.state
    assert final is not None
    print(f"state: {len(encode_state(final))} canonical bytes, "
          f"{_resident(encode_state(final)) // 1024} KiB decoded")  # fmt: skip
    if args.per_packet:
        _per_packet(table, begin, snapshot, args.repeat)


def _per_packet(table: Table, begin: int, snapshot: bytes, repeat: int) -> None:
    """Each packet's best apply time over ``repeat`` runs, with the steps it went through."""
    packets = table.packets[begin:]
    best = [float("inf")] * len(packets)
    steps: list[str] = []
    for _ in range(repeat):
        fresh_caches()
        state: GameState[FeState] = decode_state(snapshot, FeState)
        steps = []
        for i, packet in enumerate(packets):
            before = _step_id(state)
            started = time.perf_counter()
            state = apply_packet(RULESET, state, packet).state
            best[i] = min(best[i], time.perf_counter() - started)
            after = _step_id(state)
            steps.append(before if before == after else f"{before} -> {after}")
    total = sum(best)
    print("per packet (best of each over the runs; share of their sum):")
    for i, (packet, spent, went) in enumerate(zip(packets, best, steps, strict=True)):
        print(f"  {begin + i:4d} {packet.body.seat:<10} {spent * 1e6:8.0f} us "
              f"{100 * spent / total:5.1f}%  {went}")  # fmt: skip


def _step_id(state: GameState[FeState]) -> str:
    rules_state = state.rules
    step = None if rules_state is None else flow.current(rules_state)
    return "-" if step is None else step.id


def _state_before(table: Table, begin: int) -> GameState[FeState]:
    state = None
    for packet in table.packets[:begin]:
        state = apply_packet(table.ruleset, state, packet).state
    assert state is not None
    return state


def _resident(snapshot: bytes) -> int:
    """Bytes the decoded state (with its board built) holds, measured with tracemalloc."""
    gc.collect()
    tracemalloc.start()
    state = decode_state(snapshot, FeState)
    assert state.rules is not None
    _ = state.rules.board.units
    size, _peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return size


if __name__ == "__main__":
    main()
