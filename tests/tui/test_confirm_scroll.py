"""A confirmation longer than its box says so, and the keys scroll it.

Seen in the game by mail: Alice set up the Klingons' ten fleets in one packet at 80x24; "Sign
and send these orders?" showed orders 1 to 9, and the tenth and the ``done`` after it lay
below the box's edge with nothing saying so. The focus is on Yes, so no key scrolled the list:
she could sign orders she could not read. The dialog now says how many lines there are when
they do not fit, and the arrow and page keys scroll them while Yes keeps the focus.
"""

from __future__ import annotations

from textual.app import App
from textual.containers import VerticalScroll
from textual.widgets import Button, Label

from tui.widgets.confirm import ConfirmDialog


class _Host(App[None]):
    pass


def _question(dialog: ConfirmDialog) -> str:
    return str(dialog.query_one(Label).content)


async def test_a_long_confirmation_says_so_and_scrolls_with_the_keys() -> None:
    lines = [f"{n}. place fleet number {n}" for n in range(1, 21)]
    app = _Host()
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = ConfirmDialog("Sign and send these orders?", lines)
        await app.push_screen(dialog)
        await pilot.pause()
        scroll = dialog.query_one(VerticalScroll)
        assert scroll.max_scroll_y > 0
        assert "20 lines" in _question(dialog) and "scroll" in _question(dialog)
        await pilot.press("down", "down")
        await pilot.pause()
        assert scroll.scroll_y == 2
        await pilot.press("end")
        await pilot.pause()
        assert scroll.scroll_y == scroll.max_scroll_y
        assert dialog.focused is dialog.query_one("#yes", Button)


async def test_a_short_confirmation_asks_only_its_question() -> None:
    app = _Host()
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = ConfirmDialog("Sign and send these orders?", ["1. done"])
        await app.push_screen(dialog)
        await pilot.pause()
        assert _question(dialog) == "Sign and send these orders?"
