"""The war-entry check (601.0) and the release check's full reading read only the hexes where
a stand fires a condition (`releases.firing_lookup`, `releases._read_hot`), found from each
empire's stands kept per units tuple (`releases._placed`, `releases._bases`) and the hexes
watched for each actor (`releases._watched`, kept per set of triggers and owners).

The Wind after its set-up is changed at random, as `test_release_hexes` changes it (stacks
move, units are destroyed, captured, crippled, built, hexes change hands, fleets are
released), with more war entries watching starbases, listed hexes and empires' space. After
each change, most of the time, `economy.war_entries` is compared with the check as it read
every stand of the board (`releases.TriggerBoard`), and the hot hexes read from the stands
with a fresh reading of a copy of the board that shares nothing with it.
"""

from __future__ import annotations

import random

import msgspec
import pytest

import tests.engine.fe.steps.test_release_hexes as moves
import tests.engine.fe.steps.test_releases as release_tests
from engine.fe.model import FeState
from engine.fe.oob import Economy, ScenarioSetup, Target, Trigger, WarEntry
from engine.fe.steps import base, economy, releases
from tests.engine.fe.helpers import start

CHANGES = 60


def _whole_board_entries(state: FeState) -> list[tuple[str, Economy, str]]:
    """`economy.war_entries` as it read the board before: every stand of every empire
    (`releases.TriggerBoard`), every entry to check."""
    found: list[tuple[str, Economy, str]] = []
    lookup = releases.TriggerBoard(state)
    for setup in sorted(base.scenario_setup(state).empires, key=lambda e: e.empire):
        current = economy.economy_of(state, setup.empire)
        if current == "war":
            continue
        for entry in setup.war_entry:
            if entry.economy == current:
                continue
            reason = releases.trigger_reason(state, base.galaxy(), setup, entry.trigger, lookup)
            if reason:
                found.append((setup.empire, entry.economy, reason))
                break
    return found


def _more_entries(monkeypatch: pytest.MonkeyPatch, state: FeState) -> None:
    """Give the Hydrans war entries fired by a Klingon or Lyran stand in a Federation or
    Kzinti starbase's hex, in one of three listed hexes, or in Kzinti space (an entry to
    limited war, then one to war), on top of The Wind's Federation entry."""
    real = base.scenario_setup(state)
    hyd = real.empire("HYD")
    assert hyd is not None
    entries = (
        WarEntry("limited-war", Trigger((Target("starbase", empires=("FED", "KZI")),), ("KLI",))),
        WarEntry("limited-war", Trigger((Target("hexes", hexes=(1305, 1704, 2210)),), ("LYR",))),
        WarEntry("war", Trigger((Target("empire", empires=("KZI",)),), ("KLI", "LYR"))),
    )
    changed = msgspec.structs.replace(hyd, economy="peace", war_entry=entries)
    empires = tuple(changed if e.empire == "HYD" else e for e in real.empires)
    setup = ScenarioSetup(setup_order=real.setup_order, empires=empires)
    monkeypatch.setattr(base, "scenario_setup", lambda state: setup)


def _assert_hot_hexes_fresh(
    state: FeState, plain: FeState, setups: ScenarioSetup, number: int
) -> None:
    """The hot hexes read from ``state``'s tuples (`releases._read_hot`) are those a fresh
    whole-board reading of ``plain`` (the same units, each in its own empire's tuple) gives."""
    parts = [forces.units for forces in state.forces]
    watchers = releases._watchers(setups, state.board.released)
    hot = releases._read_hot(state.board, parts, watchers)
    fresh = releases.hot_hexes.__wrapped__(moves._plain(plain.board), setups)  # type: ignore[attr-defined]
    assert hot == fresh, f"change {number}: the hot hexes"


@pytest.mark.parametrize("seed", [12, 15, 13, 14])
def test_war_entries_find_what_the_whole_board_gives(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    state = start()
    _more_entries(monkeypatch, state)
    if seed in (13, 14):
        moves._more_triggers(monkeypatch, state)  # (starbase and hex watches: `_bases`)
    setups = base.scenario_setup(state)
    fired = checked = 0
    for number in range(CHANGES):
        state = moves._change(state, rng, number)
        if rng.random() < 0.2:
            continue  # a board never asked
        found = economy.war_entries(state)
        assert found == _whole_board_entries(state), f"change {number}"
        _assert_hot_hexes_fresh(state, state, setups, number)
        fired += bool(found)
        checked += 1
        if found and rng.random() < 0.1:  # the entry applied: the next check skips it
            state = economy.enter_war_economies(state, "1C3", [])
    assert checked > CHANGES // 2
    assert fired > 3, "the random boards hardly ever met a war entry's condition"


@pytest.mark.parametrize("seed", [21, 22])
def test_tuples_mixing_empires_read_as_the_whole_board(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A board whose empires' tuples mix units of several empires (`test_releases._mixed`):
    each tuple's stands are read kind by kind for each empire (`releases._placed`), and the
    war entries and the hot hexes are those of the whole board."""
    rng = random.Random(seed)
    state = start()
    _more_entries(monkeypatch, state)
    moves._more_triggers(monkeypatch, state)
    setups = base.scenario_setup(state)
    fired = 0
    for number in range(CHANGES // 3):
        state = moves._change(state, rng, number)
        mixed = release_tests._mixed(state, rng)
        found = economy.war_entries(mixed)
        assert found == _whole_board_entries(mixed) == _whole_board_entries(state), number
        _assert_hot_hexes_fresh(mixed, state, setups, number)
        fired += bool(found)
    assert fired > 3, "the random boards hardly ever met a war entry's condition"
