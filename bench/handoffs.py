"""Pace benchmark: packets and hand-offs an F&E player turn costs, with and without the
orders players sign in advance.

    .venv/bin/python bench/handoffs.py

Every hand-off (the next packet written by the other seat) is an email round trip of hours
or days, so this counts them the way `bench/golden_handoffs.py` counts a recorded game. It
plays, through the real protocol core (signed, hash-chained packets), The Wind after its
set-up:

- **the coalition's player turn 1:** builds at 2B3 (one Lyran and one Klingon ship), three
  operational movement batches at 3B2 (six of the Red Claw Fleet onto the Kzinti Count's
  Fleet in 0701, four of the Home Fleet after them, four more of it one hex on), the
  alliance's reaction windows between them, the battle in 0701 until it ends, and the rest
  of the turn;
  of the turn;
- **the alliance's player turn 1:** a Kzinti build and one movement batch, no battle.

Each seat writes, whenever it owes something, one packet with everything it can do then
(its planned orders at their steps and ``done`` for every routine step up to the next point
where the other seat decides or a secret is owed). Three ways of playing:

- ``plain``: nothing signed in advance; every secret battle choice is committed and revealed
  by hand (the second seat to commit reveals in the same packet, in the clear, as the app
  does: until 2026-12-04 this bench revealed it in a packet of its own, one hand-off more
  per secret step), every allocation and retreat is sent when the step comes;
- ``manual``: in their set-up packets both seats sign the standing order the app offers
  first (``manual``: every step the engine does not play, `engine.core.standing`), and no
  policy: every decision is still sent when its step comes;
- ``offered``: the same, and the combat policy the app offers first
  (`engine.fe.signed_choices.ENGINE_PICKS`: flagship, force, EW and allocation the
  engine's; the BIR, retreat and pursuit asked);
- ``signed``: in their set-up packets both seats sign a standing order (`ROUTINE`),
  a combat policy (flagship and force "auto", a BIR, default EW, the suggested allocation,
  the Kzinti retreat after round 1, no pursuit) and a reaction policy ("never": the
  non-phasing side's reaction windows pass, 205.0).

``--version 5.0`` plays the same games begun under fe 5.0, where each round of a battle
fought by policies waits for the other seat's next packet (later versions read those dice
from the values that rolled the round before: `engine.core.rolls.follows_on`).

It prints, per player turn, the packets and hand-offs (a hand-off is a packet written by
another seat than the one before it, counting the turn's first packet against the last one
before the turn), and for the battle the packets and hand-offs from its first round's first
step to its end. The issue's goals: a player turn without battles in at most 3 packets and
2 hand-offs; a battle round in at most 3 hand-offs with policies.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.core import pace  # noqa: E402
from engine.core.owed import last_to_commit, pending  # noqa: E402
from engine.core.ruleset import DecisionKind, Ruleset  # noqa: E402
from engine.core.sequence import MANUAL_NAME  # noqa: E402
from engine.core.turn_orders import Done, Standing  # noqa: E402
from engine.fe import RULESET  # noqa: E402
from engine.fe.battle_report import REPORT_KIND  # noqa: E402
from engine.fe.checklist import FeRuleset  # noqa: E402
from engine.fe.model import FeState  # noqa: E402
from engine.fe.orders import Batch, PolicyOrder, ReactionOrder, RetreatOrder  # noqa: E402
from engine.fe.signed_choices import ENGINE_PICKS  # noqa: E402
from engine.fe.steps import combat_damage  # noqa: E402
from engine.fe.steps.setup_stage import default_placements  # noqa: E402
from tests.engine.fe_play import scripted_retreat, secret_choice  # noqa: E402
from tests.engine.fe_wind import build, march, rules, units_at  # noqa: E402
from tests.engine.table import Table  # noqa: E402

SEATS = ["coalition", "alliance"]
ROUTINE = [*(str(n) for n in range(1, 11)), "1B", "2A2", "2B4", "2B7", "6D2", "8A", "9A"]
"""The standing order both seats sign: every phase (its routine steps: the engine never lets
a phase cover a player's own builds or movement), and by id the player's own decisions
these players do not use in the turns played here (survey, repairs, fighter replacement, tug
missions, retrograde, strategic movement, reserves); builds (2B3) and movement (3B2) stay
theirs."""
POLICIES = {
    "coalition": PolicyOrder(
        flagship="auto", force="auto", bir=3, ew="default", allocate="suggested", retreat=0,
        pursue="never",
    ),
    "alliance": PolicyOrder(
        flagship="auto", force="auto", bir=2, ew="default", allocate="suggested", retreat=1,
        pursue="never",
    ),
}  # fmt: skip

ROUND_LINE = re.compile(r"^\d{4} round \d+:")
"""A battle report's first line of a round (`engine.fe.battle_report.report_lines`)."""

Plan = Callable[[Table], list[Any]]
"""Orders a seat gives when a step comes, computed on the board as it then stands (the last
order completes the step or ends the batch)."""


def coalition_plans() -> dict[str, list[Plan]]:
    def builds(table: Table) -> list[Any]:
        return [build(table, "LYR"), build(table, "KLI"), Done()]

    def red_claw(table: Table) -> list[Any]:
        target = units_at(table, "KZI", "Count's Fleet")[0].hex
        return [march(table, "coalition", units_at(table, "LYR", "Red Claw Fleet")[:6], target),
                Batch()]  # fmt: skip

    def home(table: Table) -> list[Any]:
        target = units_at(table, "KZI", "Count's Fleet")[0].hex
        return [march(table, "coalition", units_at(table, "LYR", "Home Fleet")[:4], target),
                Batch()]  # fmt: skip

    def home_rest(table: Table) -> list[Any]:
        units = units_at(table, "LYR", "Home Fleet")[4:8]
        return [march(table, "coalition", units, units[0].hex + 1), Done()]

    return {"2B3": [builds], "3B2": [red_claw, home, home_rest]}


def alliance_plans() -> dict[str, list[Plan]]:
    def builds(table: Table) -> list[Any]:
        return [build(table, "KZI"), Done()]

    def duke(table: Table) -> list[Any]:
        units = units_at(table, "KZI", "Duke's Fleet")[:5]
        return [march(table, "alliance", units, units[0].hex - 1), Done()]

    return {"2B3": [builds], "3B2": [duke]}


def _apply(state: FeState, seat: str, order: Any) -> FeState | None:
    if RULESET.validate(state, seat, order):
        return None
    return RULESET.apply(state, seat, order).state


def packet_orders(table: Table, seat: str, plans: dict[str, list[Plan]]) -> list[Any]:
    """Everything ``seat`` can send now in one packet: planned orders at their steps, the
    battle's allocation and scripted retreat, ``done`` for the rest; simulated on the rules
    state so the packet is accepted whole."""
    assert table.state is not None
    orders: list[Any] = []
    state = rules(table)
    probe = Table.__new__(Table)  # the plans read the board as it will stand through a table
    for _ in range(200):
        decisions = RULESET.pending(state)
        if not decisions or decisions[0].seats[0] != seat:
            break
        if decisions[0].kind != DecisionKind.ORDERS:
            break
        step = decisions[0].step
        batch: list[Any]
        if plans.get(step):
            probe.state = msgspec.structs.replace(table.state, rules=state)
            batch = plans[step].pop(0)(probe)
        elif step in combat_damage.ALLOCATION_STEPS and combat_damage.finish(state, seat):
            order = combat_damage.suggested(state, seat)
            assert order is not None
            batch = [order, Done()]
        elif scripted_retreat(state, seat, step):
            batch = [RetreatOrder(), Done()]
        else:
            batch = [Done()]
        after: FeState | None = state
        for order in batch:
            after = _apply(after, seat, order) if after is not None else None
        if after is None:
            if batch == [Done()]:
                break
            raise AssertionError(f"{seat}'s planned orders at {step} are refused: {batch}")
        orders += batch
        state = after
    return orders


def play_until(
    table: Table, plans: dict[str, dict[str, list[Plan]]], turn: int, player_turn: int
) -> None:
    """Each owing seat sends its packet until player turn ``player_turn`` of game turn
    ``turn`` begins."""
    for _ in range(2000):
        state = rules(table)
        if (state.turn, state.player_turn) == (turn, player_turn) and not state.orion:
            return
        assert table.state is not None
        decision = pending(RULESET, table.state)[0]
        seat = decision.seats[0]
        if decision.kind == DecisionKind.SECRET:
            choice = secret_choice(table, seat, decision.step, "nothing special")
            table.commit(seat, choice, reveal_now=last_to_commit(table.ruleset, table.state, seat))
        elif decision.kind == DecisionKind.REVEAL:
            table.reveal(seat)
        elif decision.kind == DecisionKind.ENTROPY:
            table.entropy_only(seat)
        else:
            orders = packet_orders(table, seat, plans[seat])
            assert orders, f"{seat} owes {decision.step} but can send nothing"
            table.orders(seat, *orders)
    raise AssertionError("the turn never ended")


MODES = {
    "plain": "plain (nothing signed in advance):",
    "manual": "the standing order 'manual' alone (no policy):",
    "offered": "'manual' and the combat policy of the engine's picks (the app's offers):",
    "signed": "signed in advance (standing order, combat and reaction policies):",
}


MODES_BEFORE = ("plain", "signed")
"""The modes whose games keep the label (so the keys and dice) they had before the others."""


def set_up(table: Table, mode: str) -> None:
    """The set-up stage; unless ``mode`` is plain, each seat's placement packet also signs
    its standing order ("manual": the app's first offer; "offered": with its combat policy
    too; "signed": `ROUTINE` and the combat and reaction policies)."""
    signed_seats: set[str] = set()
    while rules(table).setup:
        assert table.state is not None
        seat = pending(RULESET, table.state)[0].seats[0]
        extra: list[Any] = []
        if mode in ("manual", "offered") and seat not in signed_seats:
            extra = [Standing([MANUAL_NAME])]
            if mode == "offered":
                extra += RULESET.parse_orders([{"type": "policy", **dict(ENGINE_PICKS.values)}])
            signed_seats.add(seat)
        if mode == "signed" and seat not in signed_seats:
            extra = [Standing(ROUTINE), POLICIES[seat], ReactionOrder(mode="never")]
            signed_seats.add(seat)
        table.orders(seat, *extra, *default_placements(rules(table)), Done())


def count(table: Table, begin: int, end: int) -> pace.HandOffs:
    """Packets ``begin`` to ``end`` (excluded) of ``table``, their hand-offs counted from the
    seat of the packet before them (a run of one seat that goes on past ``end`` is classed
    whole, so an automatic reply that ends a turn before its seat's own turn counts human)."""
    packets = [(p.body.seat, pace.automatic(p.body)) for p in table.packets]
    return pace.count(packets[begin:end], before=packets[begin - 1][0], after=packets[end:])


class AtVersion(FeRuleset):
    """F&E as it plays a game begun at ``version`` (``"5.0"``: before follow-on dice)."""

    def __init__(self, version: str) -> None:
        self.version = version


def measure(mode: str, ruleset: Ruleset[FeState] = RULESET) -> dict[str, pace.HandOffs]:
    label = f"bench-handoffs-{mode == 'signed'}" + ("" if mode in MODES_BEFORE else f"-{mode}")
    table = Table(ruleset, "the-wind", SEATS, label=label)
    set_up(table, mode)
    plans = {"coalition": coalition_plans(), "alliance": alliance_plans()}
    first = len(table.packets)
    play_until(table, plans, 1, 1)
    middle = len(table.packets)
    play_until(table, plans, 2, 0)
    battle = [
        i for i, p in enumerate(table.results)
        if first <= i < middle and any(e.step.startswith("5-") for e in p.events if e.step)
    ]  # fmt: skip
    figures = {
        "coalition turn 1 (builds, 3 batches, 1 battle)": count(table, first, middle),
        "alliance turn 1 (build, 1 batch, no battle)": count(table, middle, len(table.packets)),
    }
    rounds = sum(
        1 for result in table.results[first:middle] for e in result.events
        if e.kind == REPORT_KIND and ROUND_LINE.match(e.text)
    )  # fmt: skip
    if battle:
        fought = count(table, battle[0], battle[-1] + 1)
        figures[f"the battle, {rounds} rounds (first to last packet of phase 5)"] = fought
        figures["the battle per round"] = pace.HandOffs(
            *(round(figure / rounds) for figure in fought)
        )
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--version",
        default=RULESET.version,
        help=f"the fe version the games are begun at (default {RULESET.version}; 5.0: each "
        "round of a battle fought by policies waits for a packet)",
    )
    args = parser.parse_args()
    ruleset: Ruleset[FeState] = (
        RULESET if args.version == RULESET.version else AtVersion(args.version)
    )
    print(f"games of fe {ruleset.version}")
    for mode, title in MODES.items():  # each game has its own keys, so its own dice
        print(title)
        for name, figures in measure(mode, ruleset).items():
            print(f"  {name}: {figures}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
