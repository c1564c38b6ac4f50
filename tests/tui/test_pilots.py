"""`tests.tui.pilots`: the session's shorter idle window is Textual's, given back afterwards,
and `settle_until` fails with the condition's name when it never comes true."""

from __future__ import annotations

import inspect

import pytest
import textual._wait
from textual.app import App

from tests.tui.pilots import PRODUCTION_WINDOW, TEST_WINDOW, settle_until, shorter_idle_windows


def test_the_production_window_is_textuals_own() -> None:
    """`wait_for_idle`'s default minimum was bound to Textual's window when it was imported,
    before any test shortened it: a Textual upgrade that changes it fails here, not silently."""
    default = inspect.signature(textual._wait.wait_for_idle).parameters["min_sleep"].default
    assert default == PRODUCTION_WINDOW


def test_the_session_window_is_short_and_given_back() -> None:
    assert textual._wait.SLEEP_GRANULARITY == TEST_WINDOW
    with shorter_idle_windows(0.001):
        assert textual._wait.SLEEP_GRANULARITY == 0.001
    assert textual._wait.SLEEP_GRANULARITY == TEST_WINDOW


async def test_settle_until_names_what_never_came_true() -> None:
    async with App[None]().run_test() as pilot:
        await settle_until(pilot, lambda: True)
        with pytest.raises(AssertionError, match=r"not true after 0 s: the moon \(last: 0\)"):
            await settle_until(pilot, lambda: 0, "the moon", timeout=0.05)
