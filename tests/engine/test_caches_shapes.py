"""An identity cache keys its entries the same way whichever way it is reached (issue 16).

`engine.core.caches.by_identity` calls a function of one or two positional arguments
through a `call` that makes the key inline (the id alone for one argument, a pair for two,
the id and the value for an identity-keyed first argument and a value-keyed second); every
other function through the general `call`. `peek` and `prime` make their keys with one
function per cache. Here each shape of function is checked: a call's entry is found by
`peek`, a primed entry is answered by a call without computing, another object (even an
equal one) is a miss, an equal value in a value-keyed place is a hit, and the bound holds
with the newest entries (a primed one counts as newest).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engine.core import caches


class Box:
    """A key object compared by identity (its equality is identity too)."""

    def __init__(self, value: int) -> None:
        self.value = value


Made = tuple[Callable[..., Any], Callable[[int], tuple[Any, ...]], list[tuple[Any, ...]]]


def _shape(name: str) -> Made:
    """A cache of the shape ``name``, a maker of its arguments from a number, and the list
    of the arguments it computed for."""
    computed: list[tuple[Any, ...]] = []

    def record(*args: Any) -> tuple[Any, ...]:
        computed.append(args)
        return tuple(a.value if isinstance(a, Box) else a for a in args)

    if name == "one":

        @caches.by_identity(maxsize=3, name="tests.shapes.one")
        def one(box: Box) -> tuple[Any, ...]:
            return record(box)

        return one, lambda n: (Box(n),), computed
    if name == "pair":

        @caches.by_identity(maxsize=3, name="tests.shapes.pair")
        def pair(box: Box, other: Box) -> tuple[Any, ...]:
            return record(box, other)

        return pair, lambda n: (Box(n), Box(-n)), computed
    if name == "keyed":

        @caches.by_identity(maxsize=3, identity=1, name="tests.shapes.keyed")
        def keyed(box: Box, tag: str) -> tuple[Any, ...]:
            return record(box, tag)

        return keyed, lambda n: (Box(n), f"tag{n}"), computed
    if name == "three":

        @caches.by_identity(maxsize=3, identity=2, name="tests.shapes.three")
        def three(box: Box, other: Box, tag: str) -> tuple[Any, ...]:
            return record(box, other, tag)

        return three, lambda n: (Box(n), Box(-n), f"tag{n}"), computed
    if name == "all_three":

        @caches.by_identity(maxsize=3, name="tests.shapes.all_three")
        def all_three(box: Box, other: Box, last: Box) -> tuple[Any, ...]:
            return record(box, other, last)

        return all_three, lambda n: (Box(n), Box(-n), Box(n * 10)), computed

    @caches.by_identity(maxsize=3, identity=1, name="tests.shapes.defaults")
    def defaults(box: Box, tag: str = "") -> tuple[Any, ...]:
        return record(box, tag)

    return defaults, lambda n: (Box(n), f"tag{n}"), computed


SHAPES = ("one", "pair", "keyed", "three", "all_three", "defaults")


@pytest.mark.parametrize("name", SHAPES)
def test_a_call_stores_what_peek_finds_and_a_primed_entry_answers_a_call(name: str) -> None:
    fn, make, computed = _shape(name)
    args = make(1)
    first = fn(*args)
    assert caches.peek(fn, *args) is first and fn(*args) is first and len(computed) == 1
    primed_args = make(2)
    primed = ("primed",)
    caches.prime(fn, primed, *primed_args)
    assert fn(*primed_args) is primed and len(computed) == 1  # answered, not computed
    assert caches.peek(fn, *primed_args) is primed


@pytest.mark.parametrize("name", SHAPES)
def test_another_key_object_misses_and_an_equal_value_hits(name: str) -> None:
    fn, make, computed = _shape(name)
    args = make(3)
    fn(*args)
    fresh = make(3)  # equal values, new key objects
    assert caches.peek(fn, *fresh) is None
    assert fn(*fresh) == fn(*args) and len(computed) == 2
    if isinstance(args[-1], str):  # a value-keyed last argument: an equal string is a hit
        same = (*args[:-1], "".join(["tag", "3"]))
        assert same[-1] is not args[-1] and fn(*same) is fn(*args) and len(computed) == 2


@pytest.mark.parametrize("name", SHAPES)
def test_the_bound_keeps_the_newest_entries_a_primed_one_counting_as_newest(name: str) -> None:
    fn, make, _ = _shape(name)
    held = [make(n) for n in range(4)]
    for args in held[:3]:
        fn(*args)
    caches.prime(fn, ("again",), *held[0])  # the oldest, primed again: now the newest
    fn(*held[3])  # one too many: the oldest goes, which is now held[1]
    assert caches.peek(fn, *held[1]) is None
    assert [caches.peek(fn, *args) is not None for args in (held[0], held[2], held[3])] == [
        True,
        True,
        True,
    ]
    sizes = {info.name: info.size for info in caches.describe()}
    assert sizes[f"tests.shapes.{name}"] == 3


def test_a_cache_of_one_entry_holds_only_the_last_answer() -> None:
    computed: list[int] = []

    @caches.by_identity(maxsize=1, name="tests.shapes.last")
    def value_of(box: Box, other: Box) -> int:
        computed.append(box.value)
        return box.value + other.value

    a, b, c = Box(1), Box(2), Box(3)
    assert value_of(a, b) == 3 and value_of(a, b) == 3 and computed == [1]
    assert value_of(c, b) == 5 and caches.peek(value_of, a, b) is None
    assert value_of(a, b) == 3 and computed == [1, 3, 1]
    assert {i.name: i.size for i in caches.describe()}["tests.shapes.last"] == 1


@pytest.mark.parametrize("name", SHAPES)
def test_newest_is_the_last_entry_stored_or_primed(name: str) -> None:
    fn, make, _ = _shape(name)
    assert caches.newest(fn) is None
    first = make(1)
    value = fn(*first)
    held = caches.newest(fn)
    assert held is not None and held[1] is value and held[0][0] is first[0]
    second = make(2)
    caches.prime(fn, ("primed",), *second)
    newest = caches.newest(fn)
    assert newest is not None and newest[1] == ("primed",) and newest[0][0] is second[0]
    fn(*first)  # a hit stores nothing: the primed entry stays the newest
    assert caches.newest(fn) == newest
    caches.clear_all()
    assert caches.newest(fn) is None
