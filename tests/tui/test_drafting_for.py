"""While the orders panel offers the step the drafts run into (`tests.tui.
test_next_step_orders`), the rest of the screen says so: the side panel's status, under the
step as loaded, says which step the drafts are for, and the checklist marks that step. Before,
both showed only the step owed as loaded (3A-5C) while the panel's menus were 3B2's, and a
player reading the side panel did not know where an ``m`` would move.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Static

from tests.tui.test_app import SIZE, Tutorial, app_for, open_game, settle, tutorial_at
from tui.screens.hexinfo import drafting_line
from tui.widgets.checklist import DRAFTING_MARK, ChecklistTree


@pytest.fixture
def before_3b2(tmp_path: Path) -> Iterator[Tutorial]:
    with tutorial_at(tmp_path, "3A-5C") as game:
        yield game


def _status(screen: object) -> list[str]:
    from tui.screens.game import GameScreen

    assert isinstance(screen, GameScreen)
    return str(screen.query_one("#game-status", Static).content).splitlines()


def _label(tree: ChecklistTree, step: str) -> str:
    node = tree.step_node(step)
    assert node is not None, step
    return str(node.label)


async def test_the_side_panel_and_the_checklist_say_which_step_the_drafts_are_for(
    before_3b2: Tutorial,
) -> None:
    app = app_for(before_3b2.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        await pilot.press("o")
        await settle(pilot)
        assert not any(line.startswith("drafting for") for line in _status(screen))
        await pilot.press("d")
        await settle(pilot)
        lines = _status(screen)
        assert any(line.startswith("step 3A-5C") for line in lines), lines  # as loaded
        drafting = [line for line in lines if line.startswith("drafting for")]
        # (3B2's title, "Operational movement (refits, WYN trade)", would take two more lines)
        assert drafting == ["drafting for 3B2"], lines
        await pilot.press("o", "c")  # the map, then the checklist
        await settle(pilot)
        tree = screen.query_one(ChecklistTree)
        assert DRAFTING_MARK in _label(tree, "3B2"), _label(tree, "3B2")
        assert DRAFTING_MARK not in _label(tree, "3A-5C")
        assert tree.current_step == "3A-5C"  # the game's step is still the current one
        await pilot.press("c", "o", "u")  # the checklist closed, the panel, the done undone
        await settle(pilot)
        assert not any(line.startswith("drafting for") for line in _status(screen))
        assert DRAFTING_MARK not in _label(tree, "3B2")


async def test_the_checklist_built_after_the_drafts_marks_their_step(
    before_3b2: Tutorial,
) -> None:
    """At 80x24 the checklist is built when first opened: it marks the step then too."""
    app = app_for(before_3b2.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        await pilot.press("o", "d")
        await settle(pilot)
        await pilot.press("o", "c")
        await settle(pilot)
        tree = screen.query_one(ChecklistTree)
        assert DRAFTING_MARK in _label(tree, "3B2"), _label(tree, "3B2")


def test_the_drafting_line_has_the_title_only_when_it_fits_one_line() -> None:
    assert drafting_line("1B", "Survey") == "drafting for 1B Survey"
    assert drafting_line("3B2", "Operational movement") == "drafting for 3B2"
    assert drafting_line("1B", "S\x1b[2J") == "drafting for 1B S\\x1b[2J"  # escaped
