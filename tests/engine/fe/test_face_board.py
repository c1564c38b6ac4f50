"""The quick board (`engine.fe.face_board.quick_board`, a game screen's first paint) is the
whole board less its supply, on The Wind's set-up board changed at random (the changes of
`tests.engine.fe.test_supply_cache`: moves, captures, destruction, crippling, wars...): the
same sides, pieces and places, with no ``supply-*`` piece mark and no "out of supply" or
"income" fact, which only the whole board (shown once worked out) has (issue 16, item 5;
`tests.engine.test_quick_board_income` checks the income)."""

from __future__ import annotations

import random

import msgspec
import pytest

from engine.core.face import Board, Piece, Side
from engine.fe import FACE
from engine.fe.face_board import board, quick_board
from engine.fe.forces import allowance
from engine.fe.model import FeState
from tests.engine.fe.helpers import start
from tests.engine.fe.test_supply_cache import CHANGERS, _at_war, _copy

CHANGES = 25
SUPPLY_FACT = "out of supply"
INCOME_FACT = "income"


def without_supply(whole: Board) -> Board:
    """``whole`` as it would be without its supply and income: what the quick board must
    equal."""

    def piece(p: Piece) -> Piece:
        marks = tuple(m for m in p.marks if not m.startswith("supply-"))
        return msgspec.structs.replace(p, marks=marks)

    def side(s: Side) -> Side:
        facts = tuple(f for f in s.facts if f.label not in (SUPPLY_FACT, INCOME_FACT))
        return msgspec.structs.replace(s, facts=facts)

    return msgspec.structs.replace(
        whole,
        sides=tuple(side(s) for s in whole.sides),
        pieces=tuple(piece(p) for p in whole.pieces),
    )


def supply_said(whole: Board) -> int:
    """How many things ``whole`` says about supply (piece marks and side facts)."""
    marks = sum(m.startswith("supply-") for p in whole.pieces for m in p.marks)
    return marks + sum(f.label == SUPPLY_FACT for s in whole.sides for f in s.facts)


def check(state: FeState, what: str) -> int:
    """The quick board of a fresh copy of ``state`` against the whole board of another."""
    whole = board(_copy(state))
    quick = quick_board(_copy(state))
    assert supply_said(quick) == 0, f"{what}: the quick board says something of supply"
    assert quick == without_supply(whole), f"{what}: the quick board differs"
    return supply_said(whole)


def test_the_face_gives_both() -> None:
    state = start()
    assert FACE.quick_board(state) == without_supply(FACE.board(state))


@pytest.mark.parametrize("seed", [1, 2])
def test_the_quick_board_is_the_board_without_its_supply(seed: int) -> None:
    rng = random.Random(seed)
    state = _at_war(start())
    said = check(state, "set-up")
    for number in range(CHANGES):
        state, what = rng.choice(CHANGERS)(state, rng)
        said += check(state, f"change {number} ({what})")
    assert said, "no board said anything of supply: a weak test"


def test_reserve_units_are_marked_on_both_boards() -> None:
    """The random changes above put no unit in a reserve: a few of every empire's units on
    the map and one off it are (the ``reserve`` mark comes from the state, not the supply)."""
    state = start()
    on_map = [u.id for u in state.board.units if u.hex][::50]
    off_map = [u.id for u in state.board.units if not u.hex][:1]
    state = msgspec.structs.replace(state, reserves=tuple(sorted(on_map + off_map)))
    check(state, "reserves")
    marked = {p.id for p in quick_board(state).pieces if "reserve" in p.marks}
    assert marked == set(on_map + off_map)


def test_pieces_without_movement_of_their_own_are_marked_immobile() -> None:
    """A PDU moves only where something carries it (203.1): the face marks it ``immobile``,
    on both boards, so a client does not offer it first among the pieces to move; a base is
    marked ``base`` instead, and every other piece neither."""
    state = start()
    bases = {p.id for p in board(state).pieces if "base" in p.marks}
    fixed = {u.id for u in state.board.units if allowance(u) == 0} - bases
    assert {u.cls for u in state.board.units if u.id in fixed} >= {"PDU"}
    for shown in (board(state), quick_board(state)):
        assert {p.id for p in shown.pieces if "immobile" in p.marks} == fixed
