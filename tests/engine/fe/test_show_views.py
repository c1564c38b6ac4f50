"""The views record `show` prints and builds its board from is worked out once per state, and
is always that state's own (issue 16, item 5).

`engine.fe.views.shared_views` remembers the record of the last state asked about, so the
face's board (`engine.fe.face_board.board`) and ``show --json``'s top-level keys read one
record. Here The Wind's set-up board is changed at random, as the supply caches' test does
(units move, meet, are built, crippled or destroyed, hexes captured or devastated, wars begin,
tugs take the supply mission): after every change, the record and the board are compared
with those of a fresh computation (a decoded copy of the state, every cache emptied), and so
is the record of the state before the change, asked for again once the new one is held: a
record kept for another state, or for the same board under other bookkeeping, fails here.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from engine.core import caches
from engine.fe import face_board
from engine.fe.face import FACE
from engine.fe.model import FeState
from engine.fe.views import shared_views, views
from tests.engine.fe.helpers import start
from tests.engine.fe.test_supply_cache import CHANGERS, _at_war

CHANGES = 16


def _copy(state: FeState) -> FeState:
    """An equal state sharing no object with ``state`` (nor its memos)."""
    return msgspec.msgpack.decode(msgspec.msgpack.encode(state), type=FeState)


def _fresh(state: FeState) -> dict[str, object]:
    """``views`` of a copy of ``state`` with every cache emptied."""
    caches.clear_all()
    return views(_copy(state))


@pytest.mark.parametrize("seed", [4, 5])
def test_the_shared_record_is_each_state_own_after_every_change(seed: int) -> None:
    rng = random.Random(seed)
    before = _at_war(start())
    before_fresh = _fresh(before)
    differed = 0
    for number in range(CHANGES):
        state, what = rng.choice(CHANGERS)(before, rng)
        board = FACE.board(state)
        record = shared_views(state)
        assert shared_views(state) is record, "the record is worked out once per state"
        fresh = _fresh(state)
        assert record == fresh, f"change {number} ({what}): the record"
        assert board == face_board._board(fresh), f"change {number} ({what}): the board"
        shared_views(state)
        assert shared_views(before) == before_fresh, f"change {number} ({what}): the state before"
        differed += fresh != before_fresh
        before, before_fresh = state, fresh
    assert differed >= CHANGES // 2, "the changes hardly changed the record: a weak test"


def test_a_change_of_bookkeeping_alone_gets_its_own_record() -> None:
    """Two states on one board (a treasury is the state's, not the board's) are told apart:
    the record is keyed by the state, not by its board."""
    state = start()
    richer = state.with_ep2("KLI", state.ep2("KLI") + 7)
    assert richer.board is state.board
    assert shared_views(state) == views(state)
    assert shared_views(richer) == views(richer) != views(state)
