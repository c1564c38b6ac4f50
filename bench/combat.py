"""Combat benchmark: a large F&E battle resolved by the engine, and the hand-offs it costs.

    .venv/bin/python bench/combat.py [--repeat 5] [--rounds 6]

Plays, through the real protocol core, the tutorial board with two full battle forces with
fighters in hex 1105 (`tests.engine.fe_battle.large_board`: the Klingons' C8, C8V, two D7V,
six D7 and the Strike Force against the Kzinti DN, CVA, two CV, three BC and the Border
Guard), for ``--rounds`` rounds or until a side is gone, three times:

  - with both sides' signed combat policies and standing orders for phase 5, in a game begun
    under fe 5.0, where each round's dice wait for the other seat's next packet;
  - the same in a game of this version, where the packet that rolls a round's dice reads the
    next rounds' dice from the same values (`engine.core.rolls.follows_on`), so one packet
    fights many rounds (it may fight more than ``--rounds``: the rules, not the bench, stop it);
  - with every choice sent by hand (each secret committed and revealed, each allocation
    typed), the same choices the policies make, so both fight the same kind of battle.

For each it prints the packets and hand-offs of every round, and times, in the same run and
on the same packets (those written from the battle's first step to its end):

  (a) the floor: Ed25519 signature verification and msgspec decoding of every packet;
  (b) apply: `apply_packet` of the same packets from the state before the battle (the rules,
      the dice, the state hash after every packet).

It prints both and the ratio b/a, and per round fought: (b) divided by the rounds against (a)
divided by the packets (a round's work against one packet's checks: a packet that fights
twenty rounds costs twenty rounds). Runs alternate ``--repeat`` times and the best of each
counts; the engine's caches are emptied before each run of (b), the shipped data kept (as
`bench/turn.py` does, and for the same reason). No target is asserted: the figures go into
the session notes (goals: b/a at most 2, at most 3 hand-offs a round with policies).
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

import msgspec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.machine import describe  # noqa: E402
from bench.runs import fresh_caches  # noqa: E402
from engine.core.game import apply_packet  # noqa: E402
from engine.core.packets import SIGNATURE_DOMAIN, Body, Envelope  # noqa: E402
from engine.core.state import GameState, decode_state, encode_state  # noqa: E402
from engine.fe.model import FeState  # noqa: E402
from tests.engine.fe_battle import (  # noqa: E402
    SEATS,
    PlacedFe,
    Played,
    large_board,
    play_battle,
    policy,
    rules,
)
from tests.engine.table import Table  # noqa: E402


def floor(raw: list[bytes], keys: dict[bytes, bytes]) -> float:
    started = time.perf_counter()
    for data in raw:
        envelope = msgspec.msgpack.decode(data, type=Envelope)
        Ed25519PublicKey.from_public_bytes(keys[envelope.key_id]).verify(
            envelope.signature, SIGNATURE_DOMAIN + envelope.body
        )
        msgspec.msgpack.decode(envelope.body, type=Body)
    return time.perf_counter() - started


def apply_all(ruleset: PlacedFe, table: Table, start: int, snapshot: bytes) -> float:
    fresh_caches()  # nothing the run before worked out about these states serves this one
    state: GameState[FeState] = decode_state(snapshot, FeState)
    packets = table.packets[start:]
    started = time.perf_counter()
    for packet in packets:
        state = apply_packet(ruleset, state, packet).state
    return time.perf_counter() - started


def measure(by_hand: bool, rounds: int, repeat: int, version: str | None = None) -> None:
    ruleset = PlacedFe(large_board, version=version)
    label = f"bench-combat-{by_hand}" + ("" if version is None else f"-{version}")
    table = Table(ruleset, "tutorial", SEATS, label=label)
    both = {"coalition": policy(2), "alliance": policy(2)}
    played: Played = play_battle(table, both, rounds=rounds, by_hand=by_hand)
    record = rules(table).battles[0]
    how = "by hand" if by_hand else f"with policies, fe {ruleset.version}"
    print(f"\n{how}: {record.rounds} rounds fought in 1105 ({record.resolved or 'going on'})")
    for number, seats in sorted(played.rounds.items()):
        if number > record.rounds:
            continue
        print(f"  round {number}: {len(seats)} packets, {played.handoffs(number)} hand-offs")
    log = record.log[0]
    print(
        f"  round 1 forces: {len(log.attacker.force)} Klingon units (potential "
        f"{log.attacker.potential2 / 2:g}) against {len(log.defender.force)} Kzinti "
        f"({log.defender.potential2 / 2:g})"
    )
    keys = {
        p.envelope.key_id: p.envelope.public_key for p in table.packets if p.envelope.public_key
    }
    start = played.start
    raw = [p.data for p in table.packets[start:]]
    state = None
    for packet in table.packets[:start]:
        state = apply_packet(ruleset, state, packet).state
    assert state is not None
    snapshot = encode_state(state)
    best_floor = best_apply = float("inf")
    for _ in range(repeat):
        gc.collect()
        best_floor = min(best_floor, floor(raw, keys))
        best_apply = min(best_apply, apply_all(ruleset, table, start, snapshot))
    print(f"  {len(raw)} packets from the battle's first step")
    print(f"  (a) floor, signatures + decoding: {best_floor * 1e3:8.2f} ms")
    print(f"  (b) apply, rules + dice + hashes: {best_apply * 1e3:8.2f} ms")
    print(f"  ratio b/a = {best_apply / best_floor:.2f}")
    per_round, per_packet = best_apply / record.rounds, best_floor / len(raw)
    print(f"  per round: apply {per_round * 1e3:.2f} ms against one packet's floor "
          f"{per_packet * 1e3:.2f} ms: {per_round / per_packet:.2f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    print(describe())
    measure(False, args.rounds, args.repeat, version="5.0")
    measure(False, args.rounds, args.repeat)
    measure(True, args.rounds, args.repeat)


if __name__ == "__main__":
    main()
