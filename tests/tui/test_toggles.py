"""Check boxes and radio buttons say their state in their mark (`tui.widgets.toggles`).

Textual's own draw ``X`` and ``●`` whether on or off, the state in colour alone: over SSH on
a monochrome terminal, or under ``NO_COLOR``, "No passphrase" ticked or not looked the same.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Checkbox, RadioButton, RadioSet

from tui.screens.new_game import RuleSwitch
from tui.widgets.toggles import MarkedCheckbox, MarkedRadioButton


def drawn(widget: Checkbox | RadioButton) -> str:
    return widget.render().plain


class Toggles(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.changes: list[tuple[str, bool]] = []

    def compose(self) -> ComposeResult:
        yield MarkedCheckbox("No passphrase", id="box")
        yield RuleSwitch("fast-repairs", False, id="rule")
        with RadioSet():
            yield MarkedRadioButton("Shared folder", value=True, id="folder")
            yield MarkedRadioButton("Mail account", id="mail")

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        self.changes.append((event.checkbox.id or "", event.value))


async def test_the_mark_follows_the_value_and_textual_s_messages_still_come() -> None:
    app = Toggles()
    async with app.run_test() as pilot:
        box, rule = app.query_one("#box", MarkedCheckbox), app.query_one("#rule", RuleSwitch)
        folder = app.query_one("#folder", MarkedRadioButton)
        mail = app.query_one("#mail", MarkedRadioButton)
        assert "X" not in drawn(box) and "●" in drawn(folder) and "●" not in drawn(mail)
        box.focus()
        await pilot.press("space")
        await pilot.pause()
        assert "X" in drawn(box) and box.has_class("-on")
        rule.value = True
        await pilot.pause()
        # The rule's switch says it in words and in its mark, and is a checkbox still: its
        # change reaches the screen (before, its watcher replaced Textual's and none did).
        assert drawn(rule).startswith("▐X▌ fast-repairs: yes") and rule.has_class("-on")
        assert app.changes == [("box", True), ("rule", True)]
        mail.value = True
        await pilot.pause()
        assert "●" in drawn(mail) and "●" not in drawn(folder)
