"""Typing in a list of steps goes to the first whose id starts with what was typed: ``3B1``
among a hundred steps, where the arrows took forty presses. A key that extends no id starts
the typing over from it; one that starts none moves nothing."""

from __future__ import annotations

from textual.app import App
from textual.widgets import OptionList

from tui.widgets.ticklist import PickDialog, TickList

STEPS = [("end: the turn's end", "end", False)] + [
    (f"{step} a step", step, False) for step in ("1B", "1C1", "2B3", "3A-1A", "3B1", "3B2", "3B3")
]


async def test_typing_goes_to_the_first_step_with_that_id() -> None:
    app = App[None]()
    async with app.run_test() as pilot:
        dialog = PickDialog("Done through", STEPS)
        await app.push_screen(dialog)
        await pilot.pause()
        pick = dialog.query_one(OptionList)

        def at() -> str:
            assert pick.highlighted is not None
            return STEPS[pick.highlighted][1]

        await pilot.press("3")
        assert at() == "3A-1A"
        await pilot.press("b")
        assert at() == "3B1"
        await pilot.press("2")
        assert at() == "3B2"
        await pilot.press("1")  # "3B21" is no step: a new start, "1B"
        assert at() == "1B"
        await pilot.press("9")  # nothing starts with 9: the line stays
        assert at() == "1B"


async def test_typing_ticks_nothing_in_a_list_of_many() -> None:
    app = App[None]()
    async with app.run_test() as pilot:
        dialog = PickDialog("Standing order", STEPS, multiple=True)
        await app.push_screen(dialog)
        await pilot.pause()
        pick = dialog.query_one(TickList)
        await pilot.press("2", "b")
        assert pick.highlighted is not None and STEPS[pick.highlighted][1] == "2B3"
        assert pick.picked == []
