"""Work counted, not timed: the function calls (Python and C) a piece of code makes.

A count does not depend on the machine's speed or load, so a test can bound the work that
hostile input costs (an email, a packet) without asserting a wall-clock time. Calls do not
see work done inside C (a copy, a comprehension's loop): a bound on calls catches a Python
loop run once too often, not every cost.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def counted(fn: Callable[..., T], *args: Any) -> tuple[T, int]:
    """``fn(*args)`` and the number of function calls, Python and C, made while it ran."""
    calls = 0

    def profile(frame: object, event: str, arg: object) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(profile)
    try:
        result = fn(*args)
    finally:
        sys.setprofile(None)
    return result, calls
