"""Random keys on the whole app: no sequence of keys may crash it.

Each screen's keys are tested one by one elsewhere; here a seeded stream of the keys the app
binds (and a few it does not) is pressed on Alice's home with The Wind set up, at 80x24,
through every screen the keys reach (the games list, the game, its order forms and dialogs,
the review, the help, the settings, the calculator), sometimes letting the workers finish
between keys and sometimes not. An exception anywhere in the app ends `run_test` with it;
the app must still be running after the last key (``q``, which quits, is never pressed).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from textual import events

from saves.home import Home
from tests.saves.conftest import Player
from tests.tui.test_app import SIZE, settle
from tui.app import HexpostApp

KEYS = (
    "escape", "enter", "ctrl+s", "ctrl+o", "c", "v", "r", "s", "g", "e", "z", "y", "x", "up",
    "k", "u", "backspace", "t", "right_square_bracket", "right_curly_bracket", "right", "n",
    "question_mark", "plus", "p", "o", "minus", "m", "left_square_bracket",
    "left_curly_bracket", "left", "h", "i", "home", "f", "end", "down", "j", "d", "comma", "b",
    "1", "a", "S", "P", "O", "D", "A", "4", "3", "2", "tab", "shift+tab", "space", "0", "5",
    "9", "w", "l", "period", "slash", "pageup", "pagedown", "delete",
)  # fmt: skip
PRESSES = 150
SETTLE = 0.15
"""How often the workers are let finish after a key (else the next key lands at once)."""


def app_in(tmp_path: Path, wind: Player, monkeypatch: pytest.MonkeyPatch) -> HexpostApp:
    """The app on Alice's home, run from ``tmp_path``: a folder typed at random in the
    settings (a shared folder, a backup) is made where it says, a relative one in the
    working folder, so here, not in the checkout."""
    monkeypatch.chdir(tmp_path)
    return HexpostApp(Home(wind.home.path))


@pytest.mark.parametrize("seed", [10, 13])
async def test_random_keys_never_crash_the_app(
    wind: Player, seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    app = app_in(tmp_path, wind, monkeypatch)
    screens: set[str] = set()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for _ in range(PRESSES):
            await pilot.press(rng.choice(KEYS))
            screens.add(type(app.screen).__name__)
            if rng.random() < SETTLE:
                await settle(pilot)
            assert app.is_running
        await settle(pilot)
    assert {"GamesScreen", "GameScreen"} <= screens
    assert len(screens) >= 4, screens


BURST = 6
"""Keys in one burst at most (`test_random_bursts_never_crash_the_app`)."""


@pytest.mark.parametrize("seed", [2, 7])
async def test_random_bursts_never_crash_the_app(
    wind: Player, seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same keys, arriving in bursts of up to `BURST` at once (as over a laggy SSH link,
    or from tmux): the app hands them on one at a time (`tui.typeahead.KeyOrder`), waiting
    for what each caused, and no key may be lost for ever (the app still takes keys after)."""
    rng = random.Random(seed)
    app = app_in(tmp_path, wind, monkeypatch)
    screens: set[str] = set()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")  # The Wind's game screen, where most keys do something
        await settle(pilot)
        screens.add(type(app.screen).__name__)
        for _ in range(PRESSES // 3):
            for key in rng.choices(KEYS, k=rng.randint(1, BURST)):
                app.post_message(events.Key(key, key if len(key) == 1 else None))
            await pilot.pause()
            screens.add(type(app.screen).__name__)
            if rng.random() < SETTLE * 2:
                await settle(pilot)
            assert app.is_running
        await settle(pilot)
        assert not app._key_order.waiting and app._key_order.in_flight is None
    assert "GameScreen" in screens and len(screens) >= 3, screens
