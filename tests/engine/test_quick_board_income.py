"""The quick board (`engine.fe.face_board.quick_board`, a game screen's first paint) leaves
every side's income out, and the whole board (`board`, which replaces it and which ``show``
and the review read) gives it as a fresh `income_of` works it out (issue 16): checked on The
Wind's set-up board changed at random (the changes of `tests.engine.fe.test_supply_cache`:
moves, captures, devastation, destruction, crippling, wars...). Every fact the quick board
does give is the whole board's, with the same value."""

from __future__ import annotations

import random

import pytest

from engine.core.face import Board
from engine.fe.economics import fmt_ep
from engine.fe.face_board import board, quick_board
from engine.fe.forces import OFF_MAP
from engine.fe.model import FeState
from engine.fe.steps import base
from engine.fe.steps.economy import income_of
from tests.engine.fe.helpers import start
from tests.engine.fe.test_supply_cache import CHANGERS, _at_war, _copy

CHANGES = 30
INCOME = "income"


def facts(shown: Board) -> dict[str, dict[str, str]]:
    """Each side's facts, by side and label."""
    return {side.id: {f.label: f.value for f in side.facts} for side in shown.sides}


def fresh_incomes(state: FeState) -> dict[str, str]:
    """Each side's income as the whole board words it, worked out on a copy of ``state``
    that shares no memo with it."""
    copy = _copy(state)
    return {e: f"{fmt_ep(income_of(copy, e).total2)} EP" for e in base.all_empires(copy)}


def check(state: FeState, what: str) -> dict[str, str]:
    whole, quick = facts(board(_copy(state))), facts(quick_board(_copy(state)))
    incomes = fresh_incomes(state)
    assert set(whole) == set(quick) == set(incomes), what
    for side, said in quick.items():
        assert INCOME not in said, f"{what}: the quick board gives {side}'s income"
        assert said.items() <= whole[side].items(), f"{what}: {side}'s facts differ"
        on_map = sum(1 for u in state.board.units if u.empire == side and u.hex != OFF_MAP)
        assert said["units on the map"] == str(on_map), f"{what}: {side}'s units"
        assert whole[side].get(INCOME) == incomes[side], f"{what}: {side}'s income"
    return incomes


@pytest.mark.parametrize("seed", [3, 4])
def test_only_the_whole_board_gives_the_income_and_it_is_a_fresh_one(seed: int) -> None:
    rng = random.Random(seed)
    state = _at_war(start())
    seen = [check(state, "set-up")]
    for number in range(CHANGES):
        state, what = rng.choice(CHANGERS)(state, rng)
        seen.append(check(state, f"change {number} ({what})"))
    assert len({tuple(sorted(s.items())) for s in seen}) > 1, "no income changed: a weak test"
