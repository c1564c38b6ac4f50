"""Which of a hex's pieces ``m`` offers ticked: those that may move now. A piece that moves
only where another carries it (The Wind's PDUs, ``immobile``) and a fleet not yet released
(``not-released``) come unticked, so the usual key, Enter, moves what can move rather than
draw a path the engine then refuses for one PDU."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tui.test_app import SIZE, Tutorial, app_for, open_game, settle, wind_at
from tui.widgets.orders import OrdersPanel
from tui.widgets.unitpick import UnitPick


@pytest.fixture
def wind_3b2(tmp_path: Path) -> Iterator[Tutorial]:
    """The Wind set up and walked to 3B2: the coalition's operational movement."""
    with wind_at(tmp_path, "3B2") as game:
        yield game


async def test_pieces_that_may_not_move_come_unticked(wind_3b2: Tutorial) -> None:
    app = app_for(wind_3b2.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        # The Lyran capital: the Home Fleet, and ten PDUs that stay.
        await pilot.press("g", *"0408", "enter", "enter")
        await settle(pilot)
        said = screen.status.text
        assert said == "0408 chosen, 32 of your 42 pieces may move: m moves them", said
        await pilot.press("o", "m")
        await settle(pilot)
        pick = screen.query_one(UnitPick)
        assert pick.display
        offered = [pick.get_option_at_index(i).value for i in range(pick.option_count)]
        pdus = {f"LYR-P{n:03d}" for n in range(1, 11)}
        assert set(offered) - set(pick.picked) == pdus
        assert "LYR-0043" in pick.picked  # the Home Fleet's DN
        await pilot.press("enter")  # the ticked units: their path starts
        await settle(pilot)
        assert panel.building
        assert "cannot move by itself" not in panel.hint_text, panel.hint_text
        await pilot.press("escape")  # the path given up
        await settle(pilot)
        assert not panel.building and app.screen is screen
        # The Klingons' Eastern Fleet is not released on turn 1: nothing is ticked, and
        # the status line says why.
        await pilot.press("g", *"1709", "enter", "enter", "o", "m")
        await settle(pilot)
        assert pick.display and pick.picked == []
        said = screen.status.text
        assert said.startswith("none of these may move now"), said
