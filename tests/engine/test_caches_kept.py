"""What a bench's emptying of the caches keeps: the shipped data (`caches.clear_all`).

The apply benches time the same packets several times in one process; between runs they
empty every cache but the loaders of shipped data and the caches declared ``shipped`` (each
argument shipped data or the code's own), so that no run is served what an earlier one
worked out about the same states.
"""

from __future__ import annotations

from engine.core import caches


class Box:
    """An object keyed by identity."""

    def __init__(self, value: int) -> None:
        self.value = value


def test_clearing_all_but_the_shipped_data_keeps_the_loaders_and_the_caches_declared_so() -> None:
    loads: list[int] = []

    def load() -> tuple[int, ...]:
        loads.append(1)
        return (4, 5)

    loader = caches.static(load)

    @caches.derived(maxsize=4, name="tests.caches.double")
    def double(x: int) -> int:
        return 2 * x

    @caches.derived(maxsize=4, name="tests.caches.triple", shipped=True)
    def triple(x: int) -> int:
        return 3 * x

    @caches.by_identity(maxsize=2, name="tests.caches.kept")
    def kept(box: Box) -> int:
        return box.value

    @caches.by_identity(maxsize=2, name="tests.caches.map_kept", shipped=True)
    def map_kept(box: Box) -> int:
        return box.value

    box = Box(7)
    assert (loader(), double(3), triple(3), kept(box), map_kept(box)) == ((4, 5), 6, 9, 7, 7)
    caches.clear_all(keep_shipped=True)
    sizes = {i.name: i.size for i in caches.describe()}
    assert sizes["tests.caches.double"] == 0 and sizes["tests.caches.kept"] == 0
    assert sizes["tests.caches.triple"] == 1 and sizes["tests.caches.map_kept"] == 1
    assert loader() == (4, 5) and len(loads) == 1  # not loaded again
    caches.clear_all()
    sizes = {i.name: i.size for i in caches.describe()}
    assert sizes["tests.caches.triple"] == 0 and sizes["tests.caches.map_kept"] == 0
    assert loader() == (4, 5) and len(loads) == 2
