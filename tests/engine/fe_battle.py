"""One F&E battle played through the real protocol core, with or without combat policies.

`PlacedFe` is the real F&E ruleset starting from a board the caller gives (the tutorial's
after set-up, with units moved or added), so a battle can be played at once; every packet is
signed, chained and checked by the core as in a real game. `play_battle` walks the game to
its first battle and through it, either with both sides' signed policies and standing orders
for phase 5, or with every choice sent by hand (each secret committed and revealed, each
allocation typed), and reports the packets and hand-offs of each round. Used by the policy
tests and by ``bench/combat.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

from engine.core.owed import last_to_commit, pending
from engine.core.ruleset import DecisionKind, OptionValue, Seat
from engine.core.turn_orders import Done, Standing
from engine.fe.checklist import FeRuleset
from engine.fe.forces import Unit
from engine.fe.model import FeState
from engine.fe.orders import PolicyOrder
from engine.fe.steps import combat, combat_damage, combat_policy, combat_round
from tests.engine.fe.steps.tutorial_states import after_setup, placed
from tests.engine.table import Table

SEATS = ["coalition", "alliance"]
BATTLE_HEX = 1105
STRIKE = ("KLI-0001", "KLI-0002", "KLI-0003", "KLI-0004", "KLI-0005")
"""The Klingon Strike Force and the D6: moved into the Kzinti Border Guard's hex 1105."""


def policy(bir: int, retreat: int = 0) -> PolicyOrder:
    return PolicyOrder(
        flagship="auto", force="auto", bir=bir, ew="default", allocate="suggested", retreat=retreat
    )


def small_board() -> FeState:
    """The Strike Force and the D6 against the Border Guard in 1105 (no other battle)."""
    return placed(after_setup(), dict.fromkeys(STRIKE, BATTLE_HEX))


def large_board() -> FeState:
    """Two full battle forces with fighters in 1105: the Klingons' C8 command cruiser, a C8V
    and two D7V carriers with six D7 and the Strike Force; the Kzinti's DN, a CVA and two CV
    carriers with three BC and the Border Guard (each side over its command limit, so each
    keeps a reserve)."""
    added = [
        *(Unit(f"KLI-90{n:02d}", "KLI", cls, BATTLE_HEX) for n, cls in enumerate(
            ("C8", "C8V", "D7V", "D7V", "D7", "D7", "D7", "D7", "D7", "D7")
        )),
        *(Unit(f"KZI-90{n:02d}", "KZI", cls, BATTLE_HEX) for n, cls in enumerate(
            ("DN", "CVA", "CV", "CV", "BC", "BC", "BC")
        )),
    ]  # fmt: skip
    return placed(after_setup(), dict.fromkeys(STRIKE, BATTLE_HEX), *added)


class PlacedFe(FeRuleset):
    """F&E starting from ``board`` instead of the set-up; with ``version``, its games are
    begun at that version of the ruleset (``"5.0"``: before follow-on dice were read at once,
    `engine.core.rolls.follows_on`)."""

    def __init__(
        self, board: Callable[[], FeState] = small_board, *, version: str | None = None
    ) -> None:
        self.board = board
        if version is not None:
            self.version = version

    def initial_state(
        self, scenario_id: str, seats: Sequence[Seat], options: Mapping[str, OptionValue]
    ) -> FeState:
        return self.board()


def rules(table: Table) -> FeState:
    assert table.state is not None and isinstance(table.state.rules, FeState)
    return table.state.rules


class Played(msgspec.Struct):
    """What `play_battle` saw: the index of the first packet written in the battle, and per
    round fought the seats of its packets in order."""

    start: int
    rounds: dict[int, list[str]]

    def handoffs(self, number: int) -> int:
        """Seat changes within round ``number``, plus the one into it."""
        seats = self.rounds.get(number, [])
        before = self.rounds.get(number - 1, [])
        previous = before[-1] if before else ""
        count = 0
        for seat in seats:
            count += seat != previous
            previous = seat
        return count


def _hand_choice(state: FeState, seat: str, step: str, signed: PolicyOrder | None) -> object:
    """The choice a player sending everything by hand makes: the same as its policy would
    (so both ways fight the same battle)."""
    if combat.current(state) is None or step not in combat_policy.POLICY_STEPS or not signed:
        return f"{seat}: nothing at {step}"
    return combat_policy.choice(state, step, seat, signed)


def walk_to_secret(table: Table) -> tuple[str, DecisionKind, str]:
    """Answer ``done`` (and entropy) until a secret commitment is owed; what is owed then
    (seat, kind, step)."""
    for _ in range(200):
        seat, kind, step = table.owed()
        if kind == DecisionKind.SECRET:
            return seat, kind, step
        if kind == DecisionKind.ENTROPY:
            table.entropy_only(seat)
        else:
            table.orders(seat, Done())
    raise AssertionError("no secret step reached")


def play_battle(
    table: Table,
    policies: Mapping[str, PolicyOrder],
    *,
    rounds: int,
    by_hand: bool = False,
    hands: Mapping[str, PolicyOrder] | None = None,
) -> Played:
    """Walk to the battle in 1105 and fight it until ``rounds`` rounds are fought or it ends.

    Each seat's first packet signs a standing order for phase 5 and, unless ``by_hand``,
    its policy. By hand, the policy is only used to work out the choices it would make: the
    seat commits and reveals them, and types its allocation. ``hands`` gives the policy a
    seat's choices by hand are worked out from, when it is not the one it signs (a seat that
    signs none, or one covering only part of a round)."""
    hands = {**policies, **(hands or {})}
    signed: set[str] = set()
    played = Played(-1, {})
    for _ in range(5000):
        state = rules(table)
        record = combat.current(state)
        fighting = record is not None and record.hex == BATTLE_HEX
        if record is not None and record.hex == BATTLE_HEX and record.rounds >= rounds:
            return played
        if played.start >= 0 and not fighting:
            return played
        assert table.state is not None
        decision = pending(table.ruleset, table.state)[0]
        seat, kind = decision.seats[0], decision.kind
        if fighting:
            assert record is not None
            if played.start < 0:
                played.start = len(table.packets)
            played.rounds.setdefault(record.rounds + 1, []).append(seat)
        if kind == DecisionKind.ENTROPY:
            table.entropy_only(seat)
        elif kind == DecisionKind.SECRET:
            assert table.state is not None
            last = last_to_commit(table.ruleset, table.state, seat)
            choice = _hand_choice(state, seat, decision.step, hands.get(seat))
            table.commit(seat, choice, reveal_now=last)
        elif kind == DecisionKind.REVEAL:
            table.reveal(seat)
        else:
            extra: list[Any] = []
            if seat not in signed:
                signed.add(seat)
                extra.append(Standing(["5"]))
                if not by_hand and seat in policies:
                    extra.append(policies[seat])
            if decision.step in combat_round.TYPED_STEPS:
                raise AssertionError(f"orders owed at secret step {decision.step}")
            if decision.step in combat_damage.ALLOCATION_STEPS:
                order = combat_damage.suggested(state, seat)
                if order is not None and combat_damage.finish(state, seat):
                    table.orders(seat, *extra, order)  # the standing order then ends the step
                    continue
            table.orders(seat, *extra, Done())
    raise AssertionError("the battle did not end or reach the rounds asked for")
