"""Orders that leave the step still the player's (a note alone, an answer without the done
that ends the step) are legal, but sent alone they hand the other player nothing: the
verdict says so on its second line, where 80x24 shows it, and so does the send's
confirmation; orders that end the step say nothing of it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tui.test_app import SIZE, Tutorial, app_for, open_game, settle, tutorial_at
from tui.widgets.confirm import ConfirmDialog
from tui.widgets.orders import OrdersPanel

STAYS = "1A1 stays your move: d ends it"


@pytest.fixture
def game(tmp_path: Path) -> Iterator[Tutorial]:
    with tutorial_at(tmp_path) as tutorial:
        yield tutorial


async def test_a_note_alone_says_the_step_stays_yours(game: Tutorial) -> None:
    app = app_for(game.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        await pilot.press("o", "n", *"thinking", "enter")
        await settle(pilot)
        lines = panel.check_text.splitlines()
        assert lines[0].startswith("legal: would be packet"), lines
        assert lines[1] == STAYS, lines
        await pilot.press("S")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        assert any("the game still waits for you at 1A1" in line for line in dialog.lines)
        await pilot.press("y")  # sent as it is: the panel and the status line still say it
        await settle(pilot)
        said = "1A1 stays your move: d ends it"  # (the map has the keys back, and hands d on)
        assert screen.status.text == f"packet 5 signed and queued: s sends it; {said}"
        await pilot.press("d")  # the done, from the map: the step ends, nothing to say
        await settle(pilot)
        assert panel.check_text.startswith("legal") and STAYS not in panel.check_text


@pytest.fixture
def at_10d(tmp_path: Path) -> Iterator[Tutorial]:
    with tutorial_at(tmp_path, "10D") as tutorial:
        yield tutorial


async def test_orders_that_hand_the_game_over_say_to_whom(at_10d: Tutorial) -> None:
    """The last done of the coalition's player turn hands the game to Bob: the verdict's
    second line says whose move it then is, and at which step (it said nothing of it, and
    neither did the command line)."""
    app = app_for(at_10d.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        await pilot.press("o", "d")
        await settle(pilot)
        lines = panel.check_text.splitlines()
        assert lines[0].startswith("legal: would be packet"), lines
        assert lines[1].startswith("then the game waits for Bob (alliance): "), lines
        await pilot.press("S")  # the confirmation says it too, before anything is signed
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        assert any(
            line.startswith("Then the game waits for Bob (alliance): ") for line in dialog.lines
        )
