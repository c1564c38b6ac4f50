"""A packet's ``adjust place`` orders applied as a run (`FeRuleset.apply_run`,
`engine.fe.steps.adjust.apply_place_run`) give what applying them one by one gives: the
same state (hash), the same events, or the same refusal of the same order.

The run checks each placement against the state before the run and counts the units it
has placed (their ids, and the board's bound `forces.MOST_UNITS`), so these tests feed it
what a modified client could send: placements for both of the seat's empires in turn,
unknown classes, hexes off the map, the other side's empire, notes and ``done`` in
between, placements past the bound, and a standing order that could complete the step.
"""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from engine.core.turn_orders import Done, Note
from engine.fe import FE
from engine.fe.forces import OFF_MAP
from engine.fe.orders import Adjust
from engine.fe.steps import adjust
from tests.engine.fe.test_build_runs import ONE_BY_ONE, _at_builds, _outcome
from tests.engine.fe_wind import SEATS, rules
from tests.engine.table import Table

SEAT = "coalition"


def _place(empire: str, cls: str, hex_text: str, reason: str = "reinforcement") -> Adjust:
    return Adjust(change="place", reason=reason, empire=empire, cls=cls, hex=hex_text)


def _legal(table: Table) -> list[Adjust]:
    """One placement of each class the coalition's empires have on the map, at its hex."""
    seen: dict[tuple[str, str], Adjust] = {}
    for unit in rules(table).board.units:
        if unit.empire in ("KLI", "LYR") and unit.hex != OFF_MAP:
            seen.setdefault(
                (unit.empire, unit.cls), _place(unit.empire, unit.cls, f"{unit.hex:04d}")
            )
    return list(seen.values())


def _same(orders: list[Any]) -> tuple[str, Any]:
    table = _at_builds()
    run = _outcome(FE, table, orders)
    assert run == _outcome(ONE_BY_ONE, table, orders)
    return run


def test_a_packet_of_placements_is_taken_as_one_run() -> None:
    table = _at_builds()
    legal = _legal(table)
    ran = FE.apply_run(rules(table), SEAT, [*legal, Done()])
    assert ran is not None and ran[1] == len(legal) > 10
    kind, (_, events) = _same([*legal, Done()])
    assert kind == "applied"
    ids = [e.data["unit"] for e in events if e.kind == "adjust"]
    assert len(set(ids)) == len(legal)  # each its own id, the empires' counted apart


BAD = [
    _place("KLI", "NOSUCH", "1307"),  # no such class
    _place("KLI", "D7", "0000"),  # off the map
    _place("FED", "CA", "1307"),  # the other side's empire
    Adjust(change="place", reason="x", cls="D7", hex="1307"),  # no empire named (two played)
]


@pytest.mark.parametrize("seed", range(12))
def test_random_packets_of_placements_give_what_one_by_one_gives(seed: int) -> None:
    rng = random.Random(seed)
    legal = _legal(_at_builds())
    orders: list[Any] = [rng.choice(legal) for _ in range(rng.randint(1, 40))]
    for _ in range(rng.randint(0, 3)):
        orders.insert(rng.randint(0, len(orders)), Note(f"note {rng.randrange(100)}"))
    if seed % 3 == 0:
        orders.insert(rng.randint(0, len(orders)), rng.choice(BAD))
    if seed % 4 == 1:
        orders.insert(rng.randint(0, len(orders)), Done())
    _same(orders)


def test_a_refused_placement_is_named_by_its_number() -> None:
    legal = _legal(_at_builds())
    kind, (error, message) = _same([*legal[:5], BAD[0], *legal[5:8]])
    assert (kind, error) == ("refused", "IllegalOrder")
    assert message.startswith("order 6 at step 2B3: adjust place: KLI has no unit class")


def test_placements_past_the_bound_are_refused_as_one_by_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = _at_builds()
    monkeypatch.setattr(adjust, "MOST_UNITS", len(rules(table).board.units) + 5)
    legal = _legal(table)
    kind, (_, message) = _same(legal[:8])
    assert kind == "refused"
    assert message.startswith("order 6 at step 2B3: adjust place: the board holds")
    assert _same(legal[:5])[0] == "applied"


def test_no_run_where_a_standing_order_could_complete_the_step() -> None:
    """One by one, a standing order covering the step would complete it after the first
    placement (`TurnsDriver.run_standing`), so the orders after it would meet another step:
    no run is taken then, whichever seat's order it is."""
    table = _at_builds()
    legal = _legal(table)
    state = rules(table)
    assert FE.apply_run(state, SEAT, legal[:6]) is not None
    for seat in SEATS:
        covered = msgspec.structs.replace(state, standing=((seat, ("2B3",)),))
        assert FE.apply_run(covered, SEAT, legal[:6]) is None, seat
