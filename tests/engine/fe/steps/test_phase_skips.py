"""The steps that pass by themselves when the phasing side has nothing to do (2A2 repairs,
2B4 replacements, 5-8B retrograde) read the phasing empires' units (or the battle hexes'
stacks) and like classes once: each answer is the one a pass over every unit of the board
gives, on boards changed at random (cripples, units off the map, battle hexes, units that
carry bought fighters).
"""

from __future__ import annotations

import random

import msgspec
import pytest

from engine.fe.forces import OFF_MAP, Unit
from engine.fe.model import FeState
from engine.fe.sequence import load_sequence
from engine.fe.steps import base, repairs, replacements, retrograde, yard
from engine.fe.unit_kinds import is_base
from tests.engine.fe.helpers import start

ROUNDS = 8


def _repairable_unit_by_unit(state: FeState) -> str:
    empires = base.phasing_empires(state)
    for unit in state.board.units:
        crippled = unit.empire in empires and unit.crippled and unit.hex != OFF_MAP
        if crippled and not repairs._repair_unit_problems(state, unit, ()):
            return ""
    return f"{', '.join(empires)}: no crippled ship that a base or FRD can repair now"


def _replaceable_unit_by_unit(state: FeState) -> bool:
    """Whether some unit of a paying phasing empire in supply carries PFs or F-111s."""
    empires = base.phasing_empires(state)
    paying = {e for e in empires if state.ep2(e) > 0}
    return any(
        unit.empire in paying
        and unit.hex != OFF_MAP
        and replacements._buyable(unit)
        and not yard.cut_off(state, unit)
        for unit in state.board.units
    )


def _retrograde_unit_by_unit(state: FeState) -> bool:
    mine = base.phasing_empires(state)
    return any(
        u.empire in mine and retrograde.could_retrograde(state, u) for u in state.board.units
    )


def _changed(state: FeState, rng: random.Random) -> FeState:
    """Some units crippled or repaired, some taken off the map, some moved onto others."""
    units = [u for u in state.board.units if u.hex != OFF_MAP]
    bases = {u.empire: u.hex for u in units if is_base(u)}
    changed: list[Unit] = []
    for unit in rng.sample(units, 40):
        roll = rng.random()
        if roll < 0.3:
            changed.append(msgspec.structs.replace(unit, crippled=not unit.crippled))
        elif roll < 0.6 and unit.empire in bases:  # a cripple at a base of its empire
            changed.append(msgspec.structs.replace(unit, crippled=True, hex=bases[unit.empire]))
        elif roll < 0.7:
            changed.append(msgspec.structs.replace(unit, hex=OFF_MAP))
        else:
            changed.append(msgspec.structs.replace(unit, hex=rng.choice(units).hex))
    state = state.with_units(changed)
    hexes = sorted({u.hex for u in rng.sample(units, 12)})
    return msgspec.structs.replace(state, battle_hexes=tuple(hexes))


@pytest.mark.parametrize("seed", [1, 2])
def test_the_skips_match_a_reading_of_every_unit(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    # Let the fighters of some carriers count as bought F-111s (527.13), so that 2B4 finds
    # buyers; the class list is read when the step asks.
    carriers = sorted({u.cls for u in start().board.units if replacements._carries(u)[0]})
    monkeypatch.setattr(replacements, "F111_CLASSES", tuple(carriers[::3]))
    found = {"repairs": 0, "replacements": 0, "retrograde": 0}
    first = start()
    for turn in (0, 1):
        for _ in range(ROUNDS):  # each round changes the starting board afresh
            state = msgspec.structs.replace(first, player_turn=turn)
            for empire in ("KLI", "LYR", "FED", "KZI", "HYD"):  # some can pay, some cannot
                state = state.with_ep2(empire, rng.choice((0, 40, 40)))
            state = _changed(state, rng)
            expected = _repairable_unit_by_unit(state)
            assert repairs.repairable(state) == expected
            found["repairs"] += expected == ""
            buys = _replaceable_unit_by_unit(state)
            assert (replacements.replaceable(state) == "") == buys
            found["replacements"] += buys
            could = _retrograde_unit_by_unit(state)
            assert (retrograde.AREA.skip(state, _RETROGRADE_STEP) == "") == could
            found["retrograde"] += could
    # Each answer came out both ways at least once.
    assert all(0 < n < 2 * ROUNDS for n in found.values()), found


_RETROGRADE_STEP = next(
    s for s in load_sequence().every_step() if s.phase == retrograde.RETROGRADE_PHASE
)
