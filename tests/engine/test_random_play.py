"""Random legal play of F&E by checklist through the real protocol core (hypothesis).

Each example plays a few dozen packets chosen at random among what the owing seat may do
(complete steps, notes, rolls, standing orders, combat loops, secret choices), then checks
the properties that must hold for any game: every packet replays from its bytes alone to the
state hash it carries, and the game is the same whichever order of dict/set hashing Python
uses (there is no randomness in the engine: only the choices differ between examples).
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core.game import apply_packet
from engine.core.owed import pending
from engine.core.packets import key_id, open_packet
from engine.core.ruleset import DecisionKind
from engine.core.turn_orders import Back, Done, Note, Roll, Standing
from engine.fe import FE, RULESET
from engine.fe.steps.setup_stage import default_placements
from tests.engine.table import Table

ROUTINES: tuple[list[str], ...] = (["1", "2"], ["3A"], ["5-1A", "5-6"], [])


def play(seed: int, packets: int) -> Table:
    rng = random.Random(seed)
    table = Table(RULESET, "the-wind", ["coalition", "alliance"], label=f"random-{seed}")
    while len(table.packets) < packets:
        assert table.state is not None
        decision = pending(RULESET, table.state)[0]
        seat = decision.seats[0]
        if decision.kind == DecisionKind.ENTROPY:
            table.entropy_only(seat)
        elif decision.kind == DecisionKind.SECRET:
            table.commit(seat, f"choice {rng.randrange(100)}", reveal_now=rng.random() < 0.5
                         and _others_committed(table, seat))  # fmt: skip
        elif decision.kind == DecisionKind.REVEAL:
            table.reveal(seat)
        else:
            table.orders(seat, *_orders(rng, table, seat, decision.step))
    return table


def _others_committed(table: Table, seat: str) -> bool:
    assert table.state is not None
    secret = table.state.core.secret
    return secret is not None and len(secret.commits) == len(secret.decision.seats) - 1


def _orders(rng: random.Random, table: Table, seat: str, step: str) -> list[object]:
    assert table.state is not None
    rules = table.state.rules
    assert rules is not None
    if rules.setup:  # set-up: place everything (all at once or in two packets), then done
        placements: list[object] = list(default_placements(rules))
        if len(placements) > 1 and rng.random() < 0.5:
            return placements[: len(placements) // 2]
        return [*placements, Done()]
    roll = rng.random()
    if roll < 0.1:
        return [Note(f"note {rng.randrange(1000)}"), Done()]
    if roll < 0.2:
        return [Roll(f"{rng.randint(1, 3)}d6", f"random play {rng.randrange(10**6)}")]
    if roll < 0.3:
        return [Standing(rng.choice(ROUTINES))]
    if roll < 0.35 and step.startswith("5-") and not RULESET.validate(rules, seat, Back("5-1A")):
        return [Back("5-1A")]
    run = FE.own_run(rules, seat)
    count = rng.randint(1, max(1, len(run)))
    return [Done() for _ in range(count)]


def replay_hashes(table: Table) -> list[bytes]:
    keys: dict[bytes, bytes] = {}
    state = None
    hashes = []
    for packet in table.packets:
        opened = open_packet(packet.data, lambda kid: [keys[kid]] if kid in keys else [])
        if opened.envelope.public_key:
            keys[key_id(opened.envelope.public_key)] = opened.envelope.public_key
        result = apply_packet(RULESET, state, opened)
        assert result.state_hash == opened.body.state_hash
        state = result.state
        hashes.append(result.state_hash)
    return hashes


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32))
def test_random_legal_play_replays_from_bytes(seed: int) -> None:
    table = play(seed, 60)
    hashes = replay_hashes(table)
    assert hashes == [r.state_hash for r in table.results]
    again = play(seed, 60)
    assert [p.data for p in again.packets] == [p.data for p in table.packets]
