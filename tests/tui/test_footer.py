"""`KeysFooter` (`tui.widgets.footer`): built again when the keys it shows change, and only
then, however many binding signals arrive."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from tests.tui.pilots import refreshed, settle_until
from tui.widgets.footer import KeysFooter


class Keys(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "first", "First"),
        Binding("b", "second", "Second"),
        Binding("x", "hidden", "Hidden", show=False),
    ]

    second_on = True

    def compose(self) -> ComposeResult:
        yield Static("keys")
        yield KeysFooter(compact=True, show_command_palette=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "second":
            return True if self.second_on else None  # None: shown greyed out
        return True

    def action_first(self) -> None:
        pass

    def action_second(self) -> None:
        pass

    def action_hidden(self) -> None:
        pass


def shown(app: Keys) -> list[tuple[str, bool]]:
    return [(key.description, key.has_class("-disabled")) for key in app.query(FooterKey)]


async def test_the_footer_shows_the_keys_and_keeps_them_while_they_stay_the_same() -> None:
    app = Keys()
    async with app.run_test(size=(60, 5)) as pilot:
        keys = [("First", False), ("Second", False)]
        # The footer builds its keys after the screen's first binding signal.
        await settle_until(pilot, lambda: shown(app) == keys, "the footer shows its keys")
        before = list(app.query(FooterKey))
        for _ in range(4):  # signals without any change of the keys
            app.refresh_bindings()
        await pilot.pause()
        await refreshed(pilot)  # a rebuild would have been made by now
        assert list(app.query(FooterKey)) == before  # the same widgets: not built again


async def test_a_change_of_the_keys_builds_the_footer_once_more() -> None:
    app = Keys()
    async with app.run_test(size=(60, 5)) as pilot:
        await settle_until(pilot, lambda: shown(app), "the footer shows its keys")
        before = list(app.query(FooterKey))
        app.second_on = False
        app.refresh_bindings()
        app.refresh_bindings()
        await settle_until(
            pilot, lambda: shown(app) == [("First", False), ("Second", True)], "rebuilt"
        )
        assert not set(app.query(FooterKey)) & set(before)
