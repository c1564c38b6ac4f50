"""A packet's builds applied as a run (`FeRuleset.apply_run`) give what applying them one by
one gives: the same state (hash), the same events, or the same refusal of the same order.

The run checks each build against a state that has the earlier builds' payments but not
their units (`engine.fe.steps.shipyard.apply_build_run`), so these tests feed it what a
modified client could send: builds past a schedule slot or the treasury, at a hex that is
no site, of unknown or limited classes, for another side's empire, with notes and ``done``
in between, and compare every packet with the one-by-one path of the very same engine.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache
from typing import Any

import msgspec
import pytest

from engine.core import author
from engine.core.errors import HexpostError
from engine.core.game import Result
from engine.core.packets import Turn
from engine.core.ruleset import Applied, Seat
from engine.core.turn_orders import Done, Note, Standing
from engine.fe import FE, RULESET
from engine.fe.checklist import FeRuleset
from engine.fe.model import FeState
from engine.fe.orders import BuildOrder
from engine.fe.steps import shipyard
from engine.fe.units import load_units
from tests.engine.fe_campaign import builds
from tests.engine.fe_play import set_up
from tests.engine.fe_wind import SEATS, rules, walk_to
from tests.engine.table import Table


class OneByOne(FeRuleset):
    """F&E with no runs: the core applies every order on its own."""

    def apply_run(
        self, state: FeState, seat: Seat, orders: Sequence[Any], start: int = 0
    ) -> tuple[Applied[FeState], int] | None:
        return None


ONE_BY_ONE = OneByOne()


@cache
def _at_builds() -> Table:
    """The Wind at the coalition's first 2B3 (a table only read from here on)."""
    table = Table(RULESET, "the-wind", SEATS, label="build-runs")
    set_up(table)
    walk_to(table, "2B3")
    return table


def _outcome(ruleset: FeRuleset, table: Table, orders: list[Any]) -> tuple[str, Any]:
    """The packet of ``orders`` by the coalition drafted on the table's state: its state hash
    and events, or the error raised (type and message)."""
    body = table.body("coalition", Turn(RULESET.encode_orders(orders)))
    public = table.players["coalition"].public
    try:
        result: Result = author.draft(ruleset, table.state, body, public)
    except HexpostError as exc:
        return "refused", (type(exc).__name__, str(exc))
    return "applied", (result.state_hash, result.events)


def _substitutes(legal: list[BuildOrder]) -> list[BuildOrder]:
    """Builds of a class in place of a scheduled one (450.4), for each slot the legal builds
    fill: counted against the turn's substitution limit, some over it."""
    found: list[BuildOrder] = []
    for order in {(o.empire, o.cls, o.hex): o for o in legal}.values():
        for unit_class in load_units().empire_classes(order.empire):
            if any(order.cls in sub.instead_of for sub in unit_class.substitutions):
                found.append(
                    BuildOrder(unit_class.id, order.hex, instead_of=order.cls, empire=order.empire)
                )
    return found


def _refused(legal: list[BuildOrder]) -> list[Any]:
    """Orders a modified client might slip between legal builds."""
    first = legal[0]
    return [
        *legal[:4],  # past their schedule slots, once the legal ones are in
        BuildOrder(cls=first.cls, hex="0101", empire=first.empire),  # no site
        BuildOrder(cls="NOSUCH", hex=first.hex, empire=first.empire),
        BuildOrder(cls="BP", hex=first.hex, empire="KLI"),  # classes limited in service
        BuildOrder(cls="VP", hex=first.hex, empire="KLI"),
        BuildOrder(cls=first.cls, hex=first.hex, empire="FED"),  # the other side's empire
        BuildOrder(cls=first.cls, hex=first.hex),  # no empire named (the seat plays two)
        Done(),  # the step ends: the builds after it belong to no step
    ]


def test_the_golden_campaign_builds_in_runs() -> None:
    """The run is taken for a turn's builds (else the tests below compare nothing)."""
    table = _at_builds()
    legal = builds(table, "coalition")
    state = rules(table)
    step = RULESET.pending(state)[0]
    assert step.step == "2B3"
    ran = FE.apply_run(state, "coalition", [*legal, Done()])
    assert ran is not None
    assert ran[1] == len(legal) > 10


def test_legal_builds_give_the_one_by_one_state_and_events() -> None:
    table = _at_builds()
    orders = [*builds(table, "coalition"), Done()]
    run = _outcome(FE, table, orders)
    assert run[0] == "applied"
    assert run == _outcome(ONE_BY_ONE, table, orders)


@pytest.mark.parametrize("seed", range(30))
def test_random_build_packets_give_the_one_by_one_outcome(seed: int) -> None:
    """Some of the legal builds in a random order (each new id goes to the order that
    comes first), some of them swapped for a substitute in service, notes between them,
    and for two seeds in three one order that is refused or ends the step, at a random
    place."""
    table = _at_builds()
    rng = random.Random(seed)
    legal = builds(table, "coalition")
    state = rules(table)
    substitutes = [o for o in _substitutes(legal) if not FE.validate(state, "coalition", o)]
    orders: list[Any] = rng.sample(legal, rng.randint(2, len(legal)))
    for i, order in enumerate(orders):
        swaps = [o for o in substitutes if (o.empire, o.instead_of) == (order.empire, order.cls)]
        if swaps and rng.random() < 0.15:
            orders[i] = rng.choice(swaps)
    for _ in range(rng.randint(0, 3)):
        orders.insert(rng.randrange(len(orders) + 1), Note("a note between builds"))
    if seed % 3:
        orders.insert(rng.randrange(len(orders) + 1), rng.choice(_refused(legal)))
    if rng.random() < 0.5:
        orders.append(Done())
    assert _outcome(FE, table, orders) == _outcome(ONE_BY_ONE, table, orders)


def test_a_refused_build_in_a_run_is_named_by_its_number() -> None:
    """The run stops before an order it does not take; the one-by-one path refuses it with
    its number in the packet, as if no run had been made."""
    table = _at_builds()
    legal = builds(table, "coalition")
    bad = BuildOrder(cls=legal[0].cls, hex="0101", empire=legal[0].empire)
    orders = [*legal[:5], bad, *legal[5:]]
    kind, (_error, message) = _outcome(FE, table, orders)
    assert kind == "refused"
    assert message.startswith("order 6 at step 2B3"), message
    assert "0101" in message


def test_the_money_left_is_the_money_each_build_sees() -> None:
    """Builds past the treasury: the first one it cannot pay is refused, by its number."""
    table = _at_builds()
    legal = builds(table, "coalition")
    empire = legal[0].empire
    state = rules(table)
    orders: list[Any] = []
    treasury = state.ep2(empire)
    cost = 0
    for order in legal * 20:
        if order.empire != empire:
            continue
        orders.append(order)
        cost += shipyard._terms(empire, order, state.turn).cost2  # type: ignore[operator]
        if cost > treasury:
            break
    assert cost > treasury, "the treasury pays for every build tried"
    run = _outcome(FE, table, orders)
    assert run == _outcome(ONE_BY_ONE, table, orders)
    assert run[0] == "refused"


def test_a_standing_order_for_the_step_leaves_the_builds_one_by_one() -> None:
    """A seat whose standing order covers 2B3 gets no run: one by one, the step may be
    completed for it after a build, and the next build refused."""
    table = _at_builds()
    covered = msgspec.structs.replace(rules(table), standing=(("coalition", ("2B3",)),))
    assert FE.apply_run(covered, "coalition", builds(table, "coalition")) is None


@pytest.mark.parametrize("steps", [["2B3"], ["2B"], ["2B4"], []])
def test_builds_after_a_standing_order_give_the_one_by_one_outcome(steps: list[str]) -> None:
    """A packet that sets a standing order (for this step, its phase, another step, or
    none) and then builds."""
    table = _at_builds()
    orders = [Standing(steps), *builds(table, "coalition"), Done()]
    assert _outcome(FE, table, orders) == _outcome(ONE_BY_ONE, table, orders)


class Greedy(FeRuleset):
    """F&E whose runs claim more orders than they were given: a bug the core must not trust."""

    def apply_run(
        self, state: FeState, seat: Seat, orders: Sequence[Any], start: int = 0
    ) -> tuple[Applied[FeState], int] | None:
        ran = super().apply_run(state, seat, orders, start)
        return None if ran is None else (ran[0], len(orders) - start + 1)


def test_a_run_that_claims_more_orders_than_given_is_not_trusted() -> None:
    table = _at_builds()
    body = table.body("coalition", Turn(RULESET.encode_orders([*builds(table, "coalition")])))
    with pytest.raises(RuntimeError, match="apply_run took"):
        author.draft(Greedy(), table.state, body, table.players["coalition"].public)


class Watched(FeRuleset):
    """F&E that notes the order lists its runs are handed."""

    def __init__(self) -> None:
        self.handed: list[tuple[int, int]] = []

    def apply_run(
        self, state: FeState, seat: Seat, orders: Sequence[Any], start: int = 0
    ) -> tuple[Applied[FeState], int] | None:
        self.handed.append((id(orders), start))
        return super().apply_run(state, seat, orders, start)


def test_runs_are_handed_the_packets_list_not_a_copy_of_its_rest() -> None:
    """A packet of many orders is asked about a run at each: copying the rest of the list
    each time would cost the square of their number (thousands of notes in one packet)."""
    table = _at_builds()
    legal = builds(table, "coalition")
    orders: list[Any] = [*legal[:3], *[Note(f"note {n}") for n in range(50)], *legal[3:6]]
    watched = Watched()
    body = table.body("coalition", Turn(RULESET.encode_orders(orders)))
    run = author.draft(watched, table.state, body, table.players["coalition"].public)
    assert len({list_id for list_id, _ in watched.handed}) == 1, "a new list for some runs"
    starts = [start for _, start in watched.handed]
    assert starts[0] == 0 and starts == sorted(starts) and len(starts) == 52
    assert run.state_hash == _outcome(ONE_BY_ONE, table, orders)[1][0]
