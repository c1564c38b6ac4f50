"""Every dialog takes its frame from `tui.widgets.dialog.Dialog` (written once) and its width
from itself: a check that Textual's type selectors carry the frame to the subclasses, and
that a subclass's own width wins over nothing the base sets."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.containers import Vertical

from tui.screens.review import PacketDialog
from tui.widgets.confirm import ConfirmDialog
from tui.widgets.dialog import Dialog
from tui.widgets.passphrase import LineDialog
from tui.widgets.step_detail import StepDetail


class _Host(App[None]):
    pass


class _Step:
    """Enough of a checklist step for `StepDetail`."""

    step = "1A2"
    title = "Supply check 1 for combat"
    phase = "1"
    phase_title = "Economics"
    phase_rule = "105.0"
    actor = "both"
    kind = "automatic"
    status = "todo"
    rules = ("410.22",)
    standing: tuple[str, ...] = ()
    policy: tuple[str, ...] = ()
    headings: tuple[tuple[str, str], ...] = ()
    policy_order = ""
    orders: tuple[str, ...] = ()


@pytest.mark.parametrize(
    ("make", "width"),
    [
        (lambda: ConfirmDialog("Sure?", ["a line"]), 60),
        (lambda: LineDialog("Name?"), 64),
        (lambda: StepDetail(_Step()), 72),
        (lambda: PacketDialog(10, 3), 40),
    ],
)
async def test_a_dialog_has_the_shared_frame_and_its_own_width(make: object, width: int) -> None:
    app = _Host()
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = make()  # type: ignore[operator]
        assert isinstance(dialog, Dialog)
        await app.push_screen(dialog)
        await pilot.pause()
        box = dialog.query_one(Vertical)
        assert box.outer_size.width == width
        assert box.styles.border.top[0] == "round"
        assert dialog.styles.align == ("center", "middle")
        assert box.region.x == (80 - width) // 2  # centred
