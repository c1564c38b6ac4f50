"""What every timed run of the engine starts from, in every bench that times it.

The benches time the same packets several times in one process and keep the best run, so
that a busy moment on a shared machine does not land on one side only. The engine keeps
some answers by value (a supply grid by the hexes that block it and its supply points), and
a run would then find what the run before worked out about the very same states, which no
replica receiving those packets has: it applies each packet once. Measured 2026-12-05 at
scale 1 (`bench/turn_instructions.py`): the warm player turn counted 42.8M instructions
with the answers of the run before at hand, 64.7M without them.
"""

from __future__ import annotations

import gc

from engine.core import caches


def fresh_caches() -> None:
    """Empty the engine's caches but those of the shipped data, and collect the garbage.

    The map, the unit tables and what depends on them alone (`caches.clear_all` with
    ``keep_shipped``) stay: any process that read them once holds them."""
    caches.clear_all(keep_shipped=True)
    gc.collect()
