"""`board_views.highest_number`: the highest ``N`` of a prefix's ids ``PREFIX-N`` on a board.

The next unit built takes the id after it, so it must be exact whatever ids a board holds:
the usual four ASCII digits, longer numbers past 9999, letters, other scripts' digits
(``str.isdecimal`` accepts them and ``int`` reads them), ids of other empires. Each answer
is compared with the plain reading: every id with the prefix, its rest read as a number
when it is one.
"""

from __future__ import annotations

import random

import pytest

from engine.fe import board_views
from engine.fe.forces import Board, Unit


def _plain(board: Board, prefix: str) -> int:
    """The highest number read id by id, the slow way."""
    numbers = [
        int(u.id[len(prefix) :])
        for u in board.units
        if u.id.startswith(prefix) and u.id[len(prefix) :].isdecimal()
    ]
    return max(numbers, default=0)


_ODD_RESTS = (
    "10000", "99999", "0", "00", "12a", "X1", "P012", "P999",
    "٣٣٣٣", "0٣٣٣", "٩", "9999", "0999", "", "-12",
)  # fmt: skip
"""Rests of an id after its prefix that are not four ASCII digits, or sort oddly: a longer
number that sorts before a shorter one, other scripts' digits (which sort after ``9``), a
letter (a PDU's ``P012``), an empty rest."""


def _board(rng: random.Random, sort: bool) -> Board:
    """A board of random ids, a few odd; in id order (read by bisection) or not."""
    ids = {f"KLI-{rng.randrange(10_000):04d}" for _ in range(rng.randrange(0, 40))}
    ids |= {f"LYR-{rng.randrange(10_000):04d}" for _ in range(rng.randrange(0, 5))}
    for _ in range(rng.randrange(0, 3)):
        ids.add("KLI-" + rng.choice(_ODD_RESTS))
    order = sorted(ids) if sort else rng.sample(sorted(ids), len(ids))
    return Board(tuple(Unit(uid, uid[:3], "F5", 101) for uid in order))


@pytest.mark.parametrize("sort", [True, False])
def test_the_highest_number_is_the_plain_reading_whatever_the_ids(sort: bool) -> None:
    rng = random.Random(16)
    odd = 0
    for number in range(600):
        board = _board(rng, sort)
        for prefix in ("KLI-", "LYR-", "KZI-"):
            expected = _plain(board, prefix)
            got = board_views.highest_number.__wrapped__(board, prefix)  # type: ignore[attr-defined]
            assert got == expected, f"board {number}, {prefix}: {[u.id for u in board.units]}"
        odd += any(len(u.id) != 8 for u in board.units)
    assert odd > 100, "hardly any board held an odd id: a weak test"


@pytest.mark.parametrize(
    ("ids", "expected"),
    [
        (("KLI-0999", "KLI-10000", "KLI-9999"), 10000),  # sorts before the shorter 9999
        (("KLI-0998", "KLI-٩٩٩٩"), 9999),  # other digits sort after every ASCII digit
        (("KLI-0998", "KLI-0999", "KLI-09a9"), 999),  # a letter sorts after the digits
        (("KLI-0005", "KLI-X"), 5),
        (("KLI-0005", "KLI-0007", "KLI-P012"), 7),  # a PDU's id sorts after the numbers
        (("KLI-0005", "KLI-P012", "KLI-٣٣٣٣"), 3333),
        (("KLI-0999", "KLI-0٣٣٣"), 999),  # other digits after an ASCII one
        (("KLI-",), 0),
        ((), 0),
    ],
)
def test_odd_ids_read_as_numbers_exactly(ids: tuple[str, ...], expected: int) -> None:
    board = Board(tuple(Unit(uid, "KLI", "F5", 101) for uid in sorted(ids)))
    assert board_views.highest_number.__wrapped__(board, "KLI-") == expected  # type: ignore[attr-defined]
