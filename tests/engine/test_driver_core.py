"""The protocol core's short path to the decision owed now (issue 16).

Before every packet and every order the core asks which decision is owed and by whom; it
only ever reads the first. `engine.core.owed.owed_first` answers that without building the
lists `pending` returns (joins, the acceptance of joined keys, entropy for armed rolls, an
open secret step, the ruleset's decisions). Here it is compared with ``pending(...)[0]`` on
every state of games that pass through each kind of decision, and on each of them resigned.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec

from engine.core import owed
from engine.core.game import apply_packet
from engine.core.owed import pending
from engine.core.packets import key_id, open_packet
from engine.core.ruleset import DecisionKind
from engine.core.state import AnyState
from engine.fe import RULESET
from tests.engine.test_random_play import play
from tests.golden.companion import read_golden

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def _golden_states(name: str) -> Iterator[AnyState]:
    """Every state of a golden game, replayed from its packets."""
    golden = read_golden(GOLDEN / name)
    keys: dict[bytes, bytes] = {}
    state = None
    for data in golden.packets:
        packet = open_packet(data, lambda kid: [keys[kid]] if kid in keys else [])
        if packet.envelope.public_key:
            keys[key_id(packet.envelope.public_key)] = packet.envelope.public_key
        state = apply_packet(RULESET, state, packet).state
        yield state


def _states() -> Iterator[AnyState]:
    for seed in (2, 4):  # random play: joins, the acceptance, orders, entropy for rolls
        yield from (result.state for result in play(seed, 80).results)
    yield from _golden_states("fe_battle.msgpack")  # secret steps: commits and reveals


def test_the_decision_owed_first_is_the_first_that_pending_lists() -> None:
    kinds: set[DecisionKind | None] = set()
    for state in _states():
        resigned = msgspec.structs.replace(
            state, core=msgspec.structs.replace(state.core, resigned=state.core.creator)
        )
        for each in (state, resigned):
            decisions = pending(RULESET, each)
            first = decisions[0] if decisions else None
            assert owed.owed_first(RULESET, each) == first
            kinds.add(first.kind if first else None)
    assert kinds == {*DecisionKind, None}, kinds
