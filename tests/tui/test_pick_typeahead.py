"""Typing in a list of steps goes to the first whose id starts with what was typed: ``3B1``
among a hundred steps, where the arrows took forty presses. After a line was found, a key
that extends no id starts the typing over from it; typing that finds nothing moves nothing,
says so, and goes on finding nothing until backspace clears it.

Found in the app: ``D`` listed the steps up to 2B11, ``3B2`` was typed, and Enter took 2A3:
the 3 and the B found nothing, each started the typing over, and the 2 went to 2A3."""

from __future__ import annotations

from textual import events
from textual.app import App
from textual.widgets import OptionList, Static

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


EARLY = [("end: the turn's end", "end", False)] + [
    (f"{step} a step", step, False) for step in ("1B", "1H", "2A3", "2B11")
]
"""The steps ``D`` listed in the app: none begins with 3."""


async def test_typing_a_step_not_listed_moves_nothing_and_says_so() -> None:
    app = App[None]()
    async with app.run_test() as pilot:
        dialog = PickDialog("Done through", EARLY)
        await app.push_screen(dialog)
        await pilot.pause()
        pick = dialog.query_one(OptionList)
        note = dialog.query_one("#pick-note", Static)
        assert not note.display
        await pilot.press("3", "B", "2")
        assert pick.highlighted == 0  # still the first line, not 2A3
        assert note.display
        assert str(note.content) == "nothing listed starts with 3B2 (backspace clears it)"
        await pilot.press("enter")  # refused: the line highlighted is not what was typed
        assert app.screen is dialog
        await pilot.press("backspace", "2", "b")
        assert pick.highlighted is not None and EARLY[pick.highlighted][1] == "2B11"
        assert not note.display


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


async def test_keys_that_arrive_together_are_taken_in_the_order_typed() -> None:
    """Over SSH, or from tmux's ``send-keys``, keys can arrive in one burst: ``2 B 1 1
    Enter`` must take 2B11, the line the keys before Enter named. The app once handled Enter
    as the burst came in, before the list had read the keys typed ahead of it, and took the
    first line."""
    app = App[None]()
    picked: list[list[str] | None] = []
    async with app.run_test() as pilot:
        dialog = PickDialog("Done through", EARLY)
        await app.push_screen(dialog, picked.append)
        await pilot.pause()
        for key in ("2", "b", "1", "1"):
            app.post_message(events.Key(key, key))
        app.post_message(events.Key("enter", "\r"))
        await pilot.pause()
        await pilot.pause()
    assert picked == [["2B11"]]


async def test_enter_takes_the_ticked_lines_of_a_list_of_many() -> None:
    app = App[None]()
    picked: list[list[str] | None] = []
    async with app.run_test() as pilot:
        dialog = PickDialog("Standing order", STEPS, multiple=True)
        await app.push_screen(dialog, picked.append)
        await pilot.pause()
        await pilot.press("2", "b", "space", "backspace", "3", "b", "2", "space", "enter")
    assert picked == [["2B3", "3B2"]]
