"""Hex geometry: neighbours on both column parities and every edge, distance, rings, lines, paths.

The expected neighbour lists below were worked out by hand from the convention (odd-numbered
columns sit half a hex higher): an odd column touches rows r-1 and r of the columns beside
it, an even column rows r and r+1.
"""

from __future__ import annotations

import itertools
from collections import deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.hexgrid import (
    NORTH,
    NORTHWEST,
    SOUTHEAST,
    distance,
    from_cube,
    join,
    line,
    neighbours,
    path,
    ring,
    split,
    step,
    to_cube,
    valid,
    within,
)

W, H = 61, 19


def _all(width: int, height: int) -> list[int]:
    return [c * 100 + r for c in range(1, width + 1) for r in range(1, height + 1)]


def _bfs(start: int, width: int, height: int) -> dict[int, int]:
    steps = {start: 0}
    todo = deque([start])
    while todo:
        here = todo.popleft()
        for nxt in neighbours(here, width, height):
            if nxt not in steps:
                steps[nxt] = steps[here] + 1
                todo.append(nxt)
    return steps


BFS_FROM: dict[int, dict[int, int]] = {}


def _steps(a: int, b: int) -> int:
    if a not in BFS_FROM:
        BFS_FROM[a] = _bfs(a, W, H)
    return BFS_FROM[a][b]


hexes = st.builds(join, st.integers(1, W), st.integers(1, H))


# -- ids ----------------------------------------------------------------------------------------


def test_split_join_and_valid() -> None:
    assert split(4613) == (46, 13)
    assert join(4, 8) == 408
    assert valid(101, W, H) and valid(6119, W, H)
    for bad in (0, 100, 120, 6200, 6120, 1900, -101, 1920):
        assert not valid(bad, W, H), bad
    with pytest.raises(ValueError):
        join(3, 100)


@given(hexes)
def test_cube_round_trip(h: int) -> None:
    x, y, z = to_cube(h)
    assert x + y + z == 0
    assert from_cube((x, y, z)) == h


# -- neighbours ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("h", "expected"),
    [
        # interior, odd column (higher): N, NE, SE, S, SW, NW
        (1111, (1110, 1210, 1211, 1112, 1011, 1010)),
        # interior, even column (lower)
        (1010, (1009, 1110, 1111, 1011, 911, 910)),
        (2908, (2907, 3007, 3008, 2909, 2808, 2807)),
        (1411, (1410, 1511, 1512, 1412, 1312, 1311)),
        # top edge: odd column loses N, NE and NW; even column loses only N
        (301, (401, 302, 201)),
        (201, (301, 302, 202, 102, 101)),
        # bottom edge: odd column loses only S; even column loses SE, S and SW
        (319, (318, 418, 419, 219, 218)),
        (219, (218, 319, 119)),
        # left edge (column 1, odd) and right edge (column 61, odd)
        (110, (109, 209, 210, 111)),
        (6110, (6109, 6111, 6010, 6009)),
        # the four corners
        (101, (201, 102)),
        (119, (118, 218, 219)),
        (6101, (6102, 6001)),
        (6119, (6118, 6019, 6018)),
    ],
)
def test_neighbours_by_hand(h: int, expected: tuple[int, ...]) -> None:
    assert neighbours(h, W, H) == expected


def test_even_right_edge_and_corners_of_an_even_width_map() -> None:
    # A 4x3 map: column 4 is even (lower), so its corners differ from column 61's.
    assert neighbours(401, 4, 3) == (402, 302, 301)
    assert neighbours(403, 4, 3) == (402, 303)
    assert neighbours(402, 4, 3) == (401, 403, 303, 302)


def test_neighbours_refuse_hexes_off_the_map() -> None:
    with pytest.raises(ValueError):
        neighbours(6201, W, H)
    with pytest.raises(ValueError):
        neighbours(120, W, H)


def test_neighbourhood_is_symmetric_everywhere() -> None:
    for h in _all(W, H):
        around = neighbours(h, W, H)
        assert len(set(around)) == len(around)
        assert 2 <= len(around) <= 6
        for n in around:
            assert h in neighbours(n, W, H)
            assert distance(h, n) == 1


def test_step_follows_directions() -> None:
    assert step(1111, NORTH, W, H) == 1110
    assert step(1111, SOUTHEAST, W, H) == 1211
    assert step(1010, NORTHWEST, W, H) == 910
    assert step(101, NORTH, W, H) is None


# -- distance -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "d"),
    [
        (101, 101, 0),
        (101, 102, 1),
        (101, 201, 1),
        (101, 202, 2),
        (101, 119, 18),
        (101, 6101, 60),
        (101, 6119, 60),
        (119, 6101, 60),
        (2908, 1411, 15),
        (4613, 4514, 1),
        (1111, 1311, 2),
        (1111, 1314, 4),
        (1010, 1007, 3),
    ],
)
def test_distance_by_hand(a: int, b: int, d: int) -> None:
    assert distance(a, b) == d
    assert distance(b, a) == d


@settings(max_examples=300, deadline=None)
@given(hexes, hexes)
def test_distance_is_symmetric_and_equals_bfs_steps(a: int, b: int) -> None:
    assert distance(a, b) == distance(b, a) == _steps(a, b)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.data())
def test_distance_equals_bfs_on_small_maps(width: int, height: int, data: st.DataObject) -> None:
    a = data.draw(st.sampled_from(_all(width, height)))
    steps = _bfs(a, width, height)
    assert len(steps) == width * height
    for b, n in steps.items():
        assert distance(a, b) == n


@given(hexes, hexes, hexes)
def test_triangle_inequality(a: int, b: int, c: int) -> None:
    assert distance(a, c) <= distance(a, b) + distance(b, c)


# -- rings and areas ----------------------------------------------------------------------------


def test_ring_one_is_the_neighbours_in_order() -> None:
    for h in (1111, 1010, 101, 6119, 219, 301):
        assert ring(h, 1, W, H) == neighbours(h, W, H)
    assert ring(1010, 0, W, H) == (1010,)


def test_ring_two_by_hand() -> None:
    # Clockwise from the hex two rows north of 1010.
    assert ring(1010, 2, W, H) == (
        (1008, 1109, 1209, 1210, 1211, 1112, 1012, 912, 811, 810, 809, 909)
    )


@settings(deadline=None)
@given(hexes, st.integers(0, 8))
def test_ring_and_within_match_distance(h: int, r: int) -> None:
    ring_hexes = ring(h, r, W, H)
    assert len(set(ring_hexes)) == len(ring_hexes)
    assert sorted(ring_hexes) == sorted(x for x in _all(W, H) if distance(h, x) == r)
    area = within(h, r, W, H)
    assert sorted(area) == sorted(x for x in _all(W, H) if distance(h, x) <= r)
    assert area[0] == h


def test_full_rings_in_the_middle() -> None:
    for r in range(1, 8):
        assert len(ring(3010, r, W, H)) == 6 * r
    assert len(within(3010, 3, W, H)) == 37


def test_ring_refuses_a_negative_radius() -> None:
    with pytest.raises(ValueError):
        ring(1010, -1, W, H)


# -- lines and paths ----------------------------------------------------------------------------


def test_line_by_hand() -> None:
    assert line(1010, 1010) == (1010,)
    assert line(1010, 1013) == (1010, 1011, 1012, 1013)
    assert line(1111, 1411) == (1111, 1211, 1311, 1411)
    # Along the top edge the line zigzags with the columns: 0201 sits lower than 0101.
    assert line(101, 401) == (101, 201, 301, 401)


@settings(deadline=None)
@given(hexes, hexes)
def test_line_is_a_chain_of_neighbours_on_the_map(a: int, b: int) -> None:
    for hexes_on in (line(a, b), line(a, b, W, H)):
        assert hexes_on[0] == a and hexes_on[-1] == b
        assert len(hexes_on) == distance(a, b) + 1
        for x, y in itertools.pairwise(hexes_on):
            assert distance(x, y) == 1
    assert all(valid(h, W, H) for h in line(a, b, W, H))
    assert line(a, b, W, H) == line(a, b, W, H)


def test_line_along_an_edge_stays_on_the_map_when_told_its_size() -> None:
    # 0101 to 0301 runs exactly between 0200 (off the map) and 0201.
    assert line(101, 301) == (101, 200, 301)
    assert line(101, 301, W, H) == (101, 201, 301)
    assert line(6101, 6119, W, H) == tuple(6100 + r for r in range(1, 20))


@settings(deadline=None)
@given(hexes, hexes)
def test_path_on_an_open_map_is_shortest(a: int, b: int) -> None:
    found = path(a, b, W, H)
    assert found is not None
    assert found[0] == a and found[-1] == b
    assert len(found) == distance(a, b) + 1
    for x, y in itertools.pairwise(found):
        assert y in neighbours(x, W, H)


def test_path_goes_around_a_wall() -> None:
    # Column 5 blocked except its bottom hex: the path must dip to row 19.
    wall = {500 + r for r in range(1, 19)}
    found = path(301, 701, W, H, passable=lambda h: h not in wall)
    assert found is not None
    assert not wall.intersection(found)
    assert 519 in found
    assert path(301, 701, W, H, passable=lambda h: h // 100 != 5) is None
    assert path(301, 701, W, H, passable=lambda h: h not in wall, max_steps=10) is None


def test_path_ties_are_broken_the_same_way() -> None:
    # Two hexes two apart with two equally short routes: the clockwise-first one wins.
    assert path(1010, 1112, W, H) == (1010, 1111, 1112)
    assert path(1010, 1212, W, H) == path(1010, 1212, W, H)
    assert path(101, 101, W, H) == (101,)


def test_path_respects_max_steps() -> None:
    assert path(1010, 1016, W, H, max_steps=6) == (1010, 1011, 1012, 1013, 1014, 1015, 1016)
    assert path(1010, 1017, W, H, max_steps=6) is None


def _neighbours_by_cube(h: int, width: int, height: int) -> tuple[int, ...]:
    """`neighbours` as the cube arithmetic defines it, one direction at a time."""
    return tuple(s for d in range(6) if (s := step(h, d, width, height)) is not None)


@pytest.mark.parametrize("size", [(61, 19), (1, 1), (2, 2), (3, 7), (8, 99), (120, 5)])
def test_neighbours_follow_the_cube_directions_on_every_hex(size: tuple[int, int]) -> None:
    """The column-step table `neighbours` reads gives what the cube directions give, in the
    same order, on every hex of maps odd and even in width, with edges on every side."""
    width, height = size
    for column in range(1, width + 1):
        for row in range(1, height + 1):
            h = column * 100 + row
            assert neighbours(h, width, height) == _neighbours_by_cube(h, width, height), h
