"""The lookups a build order reads, remembered or indexed, against a fresh computation.

`production.build_terms` (price, substitution count and first turn in service per class, slot
and turn), the Shipyard tally read by bisection (`yard.used`), the rule options per game
(`yard.production_options`, `yard.repair_options`) and the scenarios by id
(`scenario.find_scenario`): each answer must be what reading the tables, the tally, the
options or the scenario list afresh gives.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from engine.core import caches
from engine.core.ruleset import OptionValue
from engine.fe import production, repair, rule_options
from engine.fe.oob import date_turn
from engine.fe.production import Build, build_cost2, build_terms, counts_as_substitution
from engine.fe.scenario import find_scenario, load_scenarios
from engine.fe.steps import yard
from engine.fe.units import load_units
from tests.engine.fe.helpers import start

EMPIRES = ("FED", "HYD", "KLI", "KZI", "LYR", "ROM")


def _fresh_terms(empire: str, cls: str, instead_of: str, turn: int) -> tuple[object, ...]:
    order = Build(cls, 1411, instead_of)
    info = load_units().find(empire, cls)
    available = date_turn(info.available) if info is not None else 0
    return (
        build_cost2(empire, order, turn),
        counts_as_substitution(empire, order, turn),
        available,
    )


def _slots_named(empire: str) -> list[str]:
    """Every class of the empire and every name its substitutions stand in for."""
    names = {""}
    for cls in load_units().empire_classes(empire):
        names.add(cls.id)
        for sub in cls.substitutions:
            names.update(sub.instead_of)
    return sorted(names)


@pytest.mark.parametrize("empire", EMPIRES)
def test_build_terms_answer_as_the_tables_read_afresh(empire: str) -> None:
    """Every class of the empire (and a few names that are none), in every slot it may fill
    and some it may not, on turns across the war: the remembered terms, asked twice, equal
    the price, the substitution count and the first turn in service read afresh."""
    rng = random.Random(empire)
    classes = [c.id for c in load_units().empire_classes(empire)] + ["XX", "SB", "D7"]
    slots = _slots_named(empire)
    caches.clear_all()
    compared = counted = refused = 0
    for cls in classes:
        for instead_of in [*rng.sample(slots, min(6, len(slots))), "", cls]:
            for turn in (1, 2, rng.randrange(3, 30)):
                expected = _fresh_terms(empire, cls, instead_of, turn)
                for _ in range(2):
                    terms = build_terms(empire, cls, instead_of, turn)
                    assert (terms.cost2, terms.counted, terms.available) == expected
                compared += 1
                counted += expected[1] is True
                refused += isinstance(expected[0], str)
    assert compared > 50 and refused > 0
    assert counted > 0 or empire in ("LYR",), "no build counted as a substitution"


def test_build_terms_are_told_apart_by_turn_and_slot() -> None:
    """A substitution allowed only from a later year is refused before it and priced after
    it: the turn is part of what is remembered, as is the slot."""
    found = []
    for empire in EMPIRES:
        for row in load_units().empire_classes(empire):
            for sub in row.substitutions:
                if sub.from_year and sub.instead_of:
                    found.append((empire, row.id, sub.instead_of[0]))
    assert found, "no substitution with a first year in the tables"
    for empire, cls, slot in found[:20]:
        answers = {turn: build_terms(empire, cls, slot, turn).cost2 for turn in range(1, 40)}
        assert answers == {turn: _fresh_terms(empire, cls, slot, turn)[0] for turn in range(1, 40)}
        assert build_terms(empire, cls, "", 5).cost2 == _fresh_terms(empire, cls, "", 5)[0]


def _scan(entries: tuple[tuple[str, str, int], ...], empire: str, what: str) -> int:
    for name, key, count in entries:
        if name == empire and key == what:
            return count
    return 0


@pytest.mark.parametrize("seed", range(10))
def test_the_tally_read_by_bisection_answers_as_a_scan(seed: int) -> None:
    """Random uses of the Shipyard tally (`yard.use`), each read back by `yard.used` for
    every empire and key seen and some never used: the same counts a scan of the tally
    finds."""
    rng = random.Random(seed)
    state = start()
    keys = [f"slot {c}" for c in ("D7", "F5", "CA", "E4")] + ["substitutions", "major 1411"]
    keys += [f"built KLI-{n:04d}" for n in range(3)]
    for _ in range(rng.randrange(1, 40)):
        uses = [(rng.choice(keys), rng.randrange(1, 3)) for _ in range(rng.randrange(1, 3))]
        state = yard.use(state, rng.choice(EMPIRES), *uses)
        tally = state.shipyard_used
        assert list(tally) == sorted(tally)
        for empire in (*EMPIRES, "AAA", "ZZZ"):
            for what in (*keys, "", "slot", "zz"):
                assert yard.used(state, empire, what) == _scan(tally, empire, what)


def test_the_options_per_game_answer_as_read_afresh() -> None:
    """The production and repair options of states whose chosen options differ, each asked
    twice, equal the options read from `rule_options.values` afresh; a state with other
    options gets its own answer."""
    base = start()
    chosen: list[tuple[tuple[str, OptionValue], ...]] = [
        (),
        ((production.SUBSTITUTIONS_PER_TURN, 0),),
        ((production.SUBSTITUTIONS_PER_TURN, 3), (repair.REPAIR_POINTS, "difference")),
        ((repair.CRIPPLED_FACILITIES, True), (production.SUBSTITUTIONS_PER_TURN, "x")),
        ((repair.REPAIR_POINTS, "nonsense"), (repair.CRIPPLED_FACILITIES, True)),
        ((production.SUBSTITUTIONS_PER_TURN, 1), (repair.CRIPPLED_FACILITIES, 1)),
    ]
    seen, expected = set(), set()
    for options in chosen * 2:
        state = msgspec.structs.replace(base, options=options)
        values = rule_options.values(state)
        fresh = (production.production_options(values), repair.repair_options(values))
        assert (yard.production_options(state), yard.repair_options(state)) == fresh
        seen.add((yard.production_options(state), yard.repair_options(state)))
        expected.add(fresh)
    assert seen == expected and len(expected) >= 5


def test_scenarios_by_id_answer_as_a_scan() -> None:
    """Every shipped scenario is found by its id, the very one the list holds; an unknown
    id finds none."""
    scenarios = load_scenarios()
    assert scenarios
    for scenario in scenarios:
        assert find_scenario(scenario.id) is next(s for s in scenarios if s.id == scenario.id)
    for unknown in ("", "no-such-scenario", scenarios[0].id.upper() + "x"):
        assert find_scenario(unknown) is None
