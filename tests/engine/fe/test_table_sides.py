"""The class readings sorted out in C against the unit tables (`applies._table_sides`,
`replacements._table_carriers`) against a unit-by-unit reading: random sets of classes and
random units, captured ships among them (whose ``"KLI:D7"`` the tables do not list, read one
by one), on and off the map, crippled or not."""

from __future__ import annotations

import random

import pytest

from engine.fe import applies
from engine.fe.forces import OFF_MAP, Unit
from engine.fe.steps import replacements
from engine.fe.units import load_units

Side = tuple[str, str, bool]


def _sides() -> list[Side]:
    return [(c.empire, c.id, crippled) for c in load_units().classes for crippled in (False, True)]


def _captured(rng: random.Random, sides: list[Side]) -> Side:
    """A ship of one empire captured by another: its class written ``"BUILDER:CLASS"``."""
    empire, cls, crippled = rng.choice(sides)
    captor = rng.choice(sorted({e for e, _, _ in sides} - {empire}))
    return captor, f"{empire}:{cls}", crippled


def _is(kind: str, side: Side) -> bool:
    empire, cls, crippled = side
    return applies.UNIT_KINDS[kind](Unit("", empire, cls, crippled=crippled))


@pytest.mark.parametrize("kind", sorted(applies.UNIT_KINDS))
def test_the_table_sides_of_a_kind_are_those_a_unit_of_each_class_shows(kind: str) -> None:
    listed, of_kind = applies._table_sides(kind)
    assert listed == frozenset(_sides())
    assert of_kind == frozenset(side for side in _sides() if _is(kind, side))
    assert of_kind, f"no class of the tables is a {kind}"


@pytest.mark.parametrize("seed", range(4))
def test_a_set_of_classes_has_a_kind_as_its_classes_read_one_by_one_say(seed: int) -> None:
    rng = random.Random(seed)
    sides = _sides()
    for round_ in range(60):
        kind = rng.choice(sorted(applies.UNIT_KINDS))
        chosen = rng.sample(sides, rng.randint(0, 30))
        if round_ % 3 == 0:  # nothing of the kind but a captured ship that is one
            chosen = [side for side in chosen if not _is(kind, side)]
            of_kind = [side for side in sides if _is(kind, side)]
            empire, cls, crippled = rng.choice(of_kind)
            captor = rng.choice(sorted({e for e, _, _ in sides} - {empire}))
            chosen.append((captor, f"{empire}:{cls}", crippled))
        elif round_ % 3 == 1:
            chosen += [_captured(rng, sides) for _ in range(rng.randint(0, 4))]
        classes = frozenset(chosen)
        fresh = any(_is(kind, side) for side in classes)
        assert applies._classes_have(classes, kind) is fresh, (round_, kind, sorted(classes))


def test_the_table_carriers_are_the_sides_that_carry_fighters() -> None:
    listed, carriers = replacements._table_carriers()
    assert listed == frozenset(_sides())
    assert carriers == frozenset(
        side
        for side in _sides()
        if replacements._carries(Unit("", side[0], side[1], crippled=side[2]))[0] != 0
    )
    assert carriers < listed


@pytest.mark.parametrize("seed", range(4))
def test_the_fighter_carriers_of_an_empire_are_its_units_read_one_by_one(seed: int) -> None:
    """One empire's units (with ships it captured), some off the map: the carriers on the map,
    in their order, as each unit's own side says."""
    rng = random.Random(seed)
    sides = _sides()
    for round_ in range(40):
        empire, units = _random_units(rng, sides, round_, sides, most=120, captured=6)
        fresh = tuple(u for u in units if u.hex != OFF_MAP and replacements._carries(u)[0] != 0)
        assert replacements._fighter_carriers(units) == fresh, (round_, empire)


def test_the_table_buyers_are_the_sides_that_buy_pfs_or_f111s() -> None:
    listed, buyers = replacements._table_buyers(replacements.F111_CLASSES)
    assert listed == frozenset(_sides())
    assert buyers == frozenset(
        side
        for side in _sides()
        if replacements._buyable(Unit("", side[0], side[1], crippled=side[2]))
    )
    assert buyers < listed and buyers


@pytest.mark.parametrize("seed", range(4))
def test_the_buyers_of_an_empire_are_its_units_read_one_by_one(seed: int) -> None:
    """One empire's units (with ships it captured, PF tenders among them), some off the map:
    the units on the map that buy PFs or F-111s at 2B4, in their order."""
    rng = random.Random(seed)
    sides = _sides()
    _, buyers = replacements._table_buyers(replacements.F111_CLASSES)
    for round_ in range(40):
        empire, units = _random_units(rng, sides, round_, sorted(buyers), most=200, captured=4)
        fresh = tuple(u for u in units if u.hex != OFF_MAP and replacements._buyable(u))
        assert replacements._buyers(units) == fresh, (round_, empire)


def _random_units(
    rng: random.Random,
    sides: list[Side],
    round_: int,
    capturable: list[Side],
    *,
    most: int,
    captured: int,
) -> tuple[str, tuple[Unit, ...]]:
    """An empire and up to ``most`` of its units, some off the map: in every fourth round
    units of every empire under its name (a class name that counts for one side and not
    another), in every second round up to ``captured`` ships it took from ``capturable``'s
    other empires (which the tables list under their builder, ``BUILDER:CLASS``)."""
    empire = rng.choice(sorted({e for e, _, _ in sides}))
    own = sides if round_ % 4 == 3 else [side for side in sides if side[0] == empire]
    picks = [rng.choice(own) for _ in range(rng.randint(0, most))]
    if round_ % 2 == 0:
        others = [side for side in capturable if side[0] != empire]
        for builder, cls, crippled in rng.sample(others, rng.randint(1, captured)):
            picks.append((empire, f"{builder}:{cls}", crippled))
    units = tuple(
        Unit(f"{empire}-{n:04d}", e, cls, rng.choice([OFF_MAP, 1307, 1408]), crippled=crippled)
        for n, (e, cls, crippled) in enumerate(picks)
    )
    return empire, units
