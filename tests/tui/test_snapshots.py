"""Snapshot tests of the app's screens (pytest-textual-snapshot's ``snap_compare``).

Each test builds real homes (the tutorial of `tests.tui.test_app`, or The Wind of
`tests.saves.conftest`), opens the app on one of them, walks to a screen with the keys a
player would press, waits until every worker is done, and compares a picture of the terminal
(an SVG holding the screen's text and colours) with the one stored in ``__snapshots__/``
next to this file. Most pictures are 80x24, the smallest terminal the app is laid out for
(a player on SSH); The Wind's game screen is also taken at 120x40.

What would change a picture from one run to the next is pinned down: the packets' times come
from the test clock of `tests.saves.conftest`, restarted at 0 for every test; the games list
measures "waiting since" against a fixed `NOW` (`HexpostApp`'s ``clock``); the input cursors
do not blink. Keys, entropy seeds and game ids are still random, so no picture may show a
fingerprint, a hash or a game id.

When a change to the UI changes a picture on purpose, these tests fail. Regenerate the
pictures with::

    .venv/bin/python -m pytest tests/tui/test_snapshots.py --snapshot-update

then review the SVG diff (``git diff tests/tui/__snapshots__``: each SVG holds the screen's
text, and any browser shows the picture; a failing run also writes ``snapshot_report.html``
with the old and new pictures side by side) before committing the new pictures.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from tests.saves import conftest as saves
from tests.saves.conftest import Player, exchange
from tests.tui.test_app import Tutorial, app_for, settle, walk_to
from tests.tui.test_orders_panel import TOO_FAR
from tests.tui.test_review import HEAD, MOVE
from tui.app import HexpostApp
from tui.screens.game import GameScreen
from tui.screens.games import GamesScreen
from tui.screens.new_game import NewGameScreen
from tui.screens.review import ReviewScreen
from tui.widgets.checklist import ChecklistTree
from tui.widgets.orders import OrdersPanel

SnapCompare = Callable[..., bool]

SMALL = (80, 24)
ROOMY = (120, 40)
NOW = datetime(2030, 1, 1, 6, 0, 0, tzinfo=UTC)
"""The games list's "now": six hours after the test clock's first packet."""


@pytest.fixture(autouse=True)
def restart_test_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test's packets are stamped from 2030-01-01T00:00:00, whatever ran before it."""
    monkeypatch.setattr(saves, "_TICKS", itertools.count())


def app_on(player: Player) -> HexpostApp:
    return app_for(player, clock=lambda: NOW)


def still_cursors(pilot: Pilot[None]) -> None:
    """A blinking cursor would be caught on or off at random: keep every one steadily on."""
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False


async def loaded(pilot: Pilot[None]) -> None:
    """Wait for the screen on top to show its data, not its "reading..." placeholder."""
    for _ in range(20):
        await settle(pilot)
        screen = pilot.app.screen
        if isinstance(screen, GamesScreen) and screen.overview is not None:
            break
        if isinstance(screen, GameScreen) and screen.data is not None:
            break
        if isinstance(screen, ReviewScreen) and screen.seq is not None:
            break
    else:
        raise AssertionError(f"{pilot.app.screen!r} never finished loading")
    await settle(pilot)
    still_cursors(pilot)


async def into_game(pilot: Pilot[None]) -> GameScreen:
    """From the games list, open its first game and wait for it. The notification of what
    arrived (`tui.services.news`, tested in test_app) is dismissed: it would cover the side
    panel these pictures are about."""
    await loaded(pilot)
    await pilot.press("enter")
    await loaded(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, GameScreen)
    pilot.app.clear_notifications()
    await settle(pilot)
    return screen


def test_games_list(snap_compare: SnapCompare, tutorial: Tutorial) -> None:
    """Alice's home: the tutorial, her move since the last set-up packet."""

    async def run_before(pilot: Pilot[None]) -> None:
        await loaded(pilot)
        assert isinstance(pilot.app.screen, GamesScreen)

    assert snap_compare(app_on(tutorial.alice), terminal_size=SMALL, run_before=run_before)


def test_new_game_form(snap_compare: SnapCompare, tutorial: Tutorial) -> None:
    """``n`` on Alice's games list: the form at 80x24, The Wind's rules at their defaults."""

    async def run_before(pilot: Pilot[None]) -> None:
        await loaded(pilot)
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(pilot.app.screen, NewGameScreen)
        still_cursors(pilot)

    assert snap_compare(app_on(tutorial.alice), terminal_size=SMALL, run_before=run_before)


def test_tutorial_game_screen(snap_compare: SnapCompare, tutorial: Tutorial) -> None:
    """The tutorial's map with both sides' stacks; the side panel shows the Strike Force's hex."""

    async def run_before(pilot: Pilot[None]) -> None:
        await into_game(pilot)

    assert snap_compare(app_on(tutorial.alice), terminal_size=SMALL, run_before=run_before)


@pytest.mark.parametrize("size", [SMALL, ROOMY], ids=["80x24", "120x40"])
def test_wind_game_screen(snap_compare: SnapCompare, wind: Player, size: tuple[int, int]) -> None:
    """The Wind after set-up; at 120x40 the checklist and the log show from the start."""

    async def run_before(pilot: Pilot[None]) -> None:
        await into_game(pilot)

    assert snap_compare(app_on(wind), terminal_size=size, run_before=run_before)


def test_checklist(snap_compare: SnapCompare, tutorial: Tutorial) -> None:
    """``c`` on the tutorial's game screen: the checklist under the map, at step 1A1."""

    async def run_before(pilot: Pilot[None]) -> None:
        screen = await into_game(pilot)
        await pilot.press("c")
        await settle(pilot)
        checklist = screen.query_one(ChecklistTree)
        assert checklist.display and checklist.current_step == "1A1"

    assert snap_compare(app_on(tutorial.alice), terminal_size=SMALL, run_before=run_before)


@pytest.fixture
def moved(tutorial: Tutorial) -> Tutorial:
    """The tutorial at the coalition's movement: Alice moved KLI-0001 1307->1306 and ended the
    batch (packet `HEAD`), the one packet Bob has not read yet."""
    walk_to(tutorial, "3B2")
    tutorial.bob.replica.mark_read(tutorial.game_id)
    tutorial.alice.replica.submit(tutorial.game_id, MOVE, now=saves.now())
    exchange(tutorial.alice, tutorial.bob)
    assert tutorial.bob.replica.game(tutorial.game_id).head_seq == HEAD
    return tutorial


@pytest.mark.parametrize(
    ("keys", "seq"), [((), HEAD), (("p",), HEAD - 1)], ids=["unread-move", "one-step-back"]
)
def test_review_screen(
    snap_compare: SnapCompare, moved: Tutorial, keys: tuple[str, ...], seq: int
) -> None:
    """Bob's review (``v`` on the games list) opens on Alice's move, the packet he had not
    read, with what it changed; ``p`` steps back to the packet before it."""

    async def run_before(pilot: Pilot[None]) -> None:
        await loaded(pilot)
        await pilot.press("v")
        await loaded(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, ReviewScreen) and screen.seq == HEAD
        for key in keys:
            await pilot.press(key)
            await loaded(pilot)
        assert screen.seq == seq

    assert snap_compare(app_on(moved.bob), terminal_size=SMALL, run_before=run_before)


def test_orders_panel_refuses_a_move(snap_compare: SnapCompare, tutorial: Tutorial) -> None:
    """At 3B2, a move past the Flank Patrol's allowance, typed as JSON: the panel shows the
    engine's refusal with the rule (203.1)."""
    walk_to(tutorial, "3B2")

    async def run_before(pilot: Pilot[None]) -> None:
        screen = await into_game(pilot)
        await pilot.press("o")
        await pilot.press("{", *json.dumps(TOO_FAR), "enter")
        await settle(pilot)
        panel = screen.query_one(OrdersPanel)
        assert panel.check_text.startswith("REFUSED: order 1"), panel.check_text
        still_cursors(pilot)

    assert snap_compare(app_on(tutorial.alice), terminal_size=SMALL, run_before=run_before)
