"""Enter on a checklist step shows the step in full (`tui.widgets.step_detail`): at 80 columns
the tree's line and the status line are cut, so the marks after a long title were lost."""

from __future__ import annotations

from textual.widgets import Static, Tree

from engine.core.turn_orders import Standing
from engine.fe.face import FACE
from engine.fe.orders import PolicyOrder
from tests.engine.fe.helpers import play, start
from tests.tui.test_app import Tutorial, app_for, settle, top
from tui.screens.game import GameScreen
from tui.services.show import checklist_lines
from tui.widgets.checklist import ChecklistTree
from tui.widgets.step_detail import StepDetail, detail_lines


def test_a_step_in_full_spells_out_what_the_tree_marks() -> None:
    state = play(start(), "coalition", Standing(["5"]))
    state = play(state, "coalition", PolicyOrder(allocate="suggested"))
    lines = {line.step: line for line in checklist_lines(FACE, state) or ()}
    allocation = detail_lines(lines["5-6A"])
    assert allocation[0] == "5-6A  Defender allocates general damage"
    assert "who acts: the non-phasing player" in allocation
    assert "kind: decision: orders from the player who acts" in allocation
    assert "status: to do" in allocation
    assert "rules: 302.6, 302.617" in allocation
    assert "orders it takes: allocate, and done" in allocation
    assert "coalition's standing order completes it when coalition owes it" in allocation
    assert "coalition's signed policy answers it when coalition owes it" in allocation
    assert "a policy signed with `policy` can answer it" in allocation
    assert any(line.startswith("part of play: 5 ") for line in allocation)
    assert any(line.startswith("within: 5-6 ") for line in allocation)
    movement = detail_lines(lines["3B2"])
    assert "orders it takes: move, batch, battles, and done" in movement
    assert not any("policy" in line or "standing" in line for line in movement)
    supply = detail_lines(lines["1A2"])
    assert "kind: automatic: the engine does it, nobody is asked" in supply
    assert not any(line.startswith("orders it takes") for line in supply)


async def test_enter_on_a_step_at_80_columns_shows_it_in_full(tutorial: Tutorial) -> None:
    app = app_for(tutorial.alice)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")  # open the game (read by a worker: let it land first)
        await settle(pilot)
        await pilot.press("c")  # then its checklist
        await settle(pilot)
        game = top(app)
        assert isinstance(game, GameScreen)
        tree = game.query_one(ChecklistTree)
        assert tree.has_focus
        node = next(n for n in tree._step_nodes.values() if n.data == "1A3D")
        tree.move_cursor(node)
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        detail = top(app)
        assert isinstance(detail, StepDetail)
        text = str(detail.query_one("#step-detail-lines", Static).content)
        assert "1A3D  Count turns of diplomatic presence at captive planets" in text
        assert "rules: 540.21" in text
        await pilot.press("escape")
        await settle(pilot)
        assert top(app) is game
        assert isinstance(game.focused, Tree)  # back where the player was
