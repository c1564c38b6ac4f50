"""The checklist tree, fed with real F&E checklists in an 80x24 app (what a player over SSH
sees): one node per phase and step with the right marks, the current step found and shown,
the player's open phases kept across refreshes, and a chosen step reported to the app."""

from __future__ import annotations

from functools import cache
from typing import Any

from rich.style import Style
from textual.app import App, ComposeResult
from textual.widgets.tree import TreeNode

from engine.fe.face import FACE
from engine.fe.model import FeState
from tests.engine.fe.helpers import at_step, fresh, run_until, start
from tests.tui.pilots import settle_until
from tui.services.show import ChecklistLine, checklist_lines
from tui.widgets.checklist import ChecklistTree

SIZE = (80, 24)


def items_of(state: FeState) -> tuple[ChecklistLine, ...]:
    """The checklist as the app gets it: the lines of the game's record, as ``hexpost show``
    builds them (each with its phase's title and rule)."""
    return checklist_lines(FACE, state) or ()


@cache
def at(step: str) -> tuple[ChecklistLine, ...]:
    return tuple(items_of(run_until(start(), at_step(step))))


@cache
def in_setup() -> tuple[ChecklistLine, ...]:
    return tuple(items_of(fresh()))


class ChecklistApp(App[None]):
    def __init__(self, items: Any, seats: dict[str, str] | None = None) -> None:
        super().__init__()
        self.items = items
        self.seats = seats
        self.selected: list[str] = []

    def compose(self) -> ComposeResult:
        yield ChecklistTree(id="checklist")

    def on_mount(self) -> None:
        self.checklist.show_items(self.items, self.seats)

    @property
    def checklist(self) -> ChecklistTree:
        return self.query_one(ChecklistTree)

    def on_checklist_tree_step_selected(self, message: ChecklistTree.StepSelected) -> None:
        self.selected.append(message.step_id)


def phase_at(tree: ChecklistTree, phase_id: str) -> TreeNode[str]:
    """The phase's node, which the test expects to be there."""
    node = tree.phase_node(phase_id)
    assert node is not None, phase_id
    return node


def step_at(tree: ChecklistTree, step_id: str) -> TreeNode[str]:
    """The step's node, which the test expects to be there."""
    node = tree.step_node(step_id)
    assert node is not None, step_id
    return node


def visible_text(tree: ChecklistTree) -> list[str]:
    return [tree.render_line(y).text for y in range(tree.scrollable_content_region.height)]


def label(tree: ChecklistTree, step: str) -> str:
    node = tree.step_node(step)
    assert node is not None, step
    return str(node.label)


async def test_one_node_per_phase_and_step_with_their_marks() -> None:
    items = at("3B2")
    app = ChecklistApp(items)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        tree = app.checklist
        phases = list(dict.fromkeys(item.phase for item in items))
        assert phases == [str(n) for n in range(1, 11)]
        assert [str(node.label) for node in tree.root.children][2] == (
            "[>]  3 Operations  (105.0)  44/49"
        )
        for phase, node in zip(phases, tree.root.children, strict=True):
            assert tree.phase_node(phase) is node
            title = next(i.phase_title for i in items if i.phase == phase)
            assert title and title in str(node.label)  # each line carries its phase's title
            assert [child.data for child in node.children] == [
                item.step for item in items if item.phase == phase
            ]
        marks = {"done": "[x]", "current": "[>]", "todo": "[ ]", "skipped": "[-]"}
        assert {item.status for item in items} == set(marks)
        for item in items:
            text = label(tree, item.step)
            assert text.startswith(f"{marks[item.status]} {item.step} ")
            assert text.endswith(item.title)
        assert label(tree, "1A1") == (
            "[x] 1A1    M -  Bases and PDUs begun last player turn become active"
        )
        assert label(tree, "3B1").startswith("[x] 3B1    A P  ")
        assert label(tree, "3B2").startswith("[>] 3B2    D P  ")
        assert label(tree, "3B3").startswith("[ ] 3B3    D N  ")
        assert label(tree, "1A2").startswith("[x] 1A2    A B  ")
        secret = next(item.step for item in items if item.kind == "secret")
        assert label(tree, secret)[11] == "S"
        assert str(phase_at(tree, "1").label).startswith("[x]  1 Economics")
        assert str(phase_at(tree, "4").label) == "[ ]  4 Reserve movement  (105.0)  0/2"


async def test_seat_names_replace_the_role_letters() -> None:
    seats = {"phasing": "coalition", "non-phasing": "alliance"}
    app = ChecklistApp(at("3B2"), seats)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert label(app.checklist, "3B2").startswith("[>] 3B2    D coalition  Operational")
        assert label(app.checklist, "3B3").startswith("[ ] 3B3    D alliance   Reaction")
        assert label(app.checklist, "1A2").startswith("[x] 1A2    A both       Supply")
        assert label(app.checklist, "1A1").startswith("[x] 1A1    M -          Bases")


async def test_the_set_up_part_comes_first_as_its_own_phase() -> None:
    app = ChecklistApp(in_setup())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        first = app.checklist.root.children[0]
        assert str(first.label) == "[>]  0 Set-up  (600.0)  0/5"
        assert first.is_expanded
        assert app.checklist.cursor_node is app.checklist.step_node("0-LYR")
        assert app.checklist.current_step == "0-LYR"


async def test_the_current_step_is_selected_styled_and_on_screen() -> None:
    app = ChecklistApp(at("3B2"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        tree = app.checklist
        node = step_at(tree, "3B2")
        assert tree.current_step == "3B2"
        assert tree.cursor_node is node
        assert [n for n in tree.root.children if n.is_expanded] == [tree.phase_node("3")]
        assert node.line > SIZE[1], "late in phase 3: the tree had to scroll"
        screen = visible_text(tree)
        shown = [line.lstrip("│├└─▼▶ ")[:8] for line in screen]
        assert "[>] 3B2 " in shown, screen
        assert {"[ ] 3B4 ", "[ ] 3B5 ", "[ ] 3B6 "} <= set(shown), "what comes next shows too"
        current = tree.render_label(node, Style(), Style())
        assert any(span.style and Style.parse(str(span.style)).bold for span in current.spans)
        other = tree.render_label(step_at(tree, "3B3"), Style(), Style())
        assert not any(span.style and Style.parse(str(span.style)).bold for span in other.spans)


async def test_c_brings_the_cursor_back_to_the_current_step() -> None:
    app = ChecklistApp(at("3B2"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        tree = app.checklist
        tree.focus()
        await pilot.press("up", "up", "up")
        assert tree.cursor_node is tree.step_node("3A-6C")
        phase_at(tree, "3").collapse()
        await pilot.press("c")
        await pilot.pause()
        assert phase_at(tree, "3").is_expanded
        assert tree.cursor_node is tree.step_node("3B2")


async def test_c_scrolls_the_current_step_near_the_top_to_show_what_comes_next() -> None:
    app = ChecklistApp(at("3B2"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        tree = app.checklist
        tree.focus()
        await pilot.press("plus", "home")
        await settle_until(pilot, lambda: tree.scroll_offset.y == 0, "scrolled to the top")
        await pilot.press("c")

        def shown() -> set[str]:
            return {line.lstrip("│├└─▼▶ ")[:8] for line in visible_text(tree)}

        wanted = {"[>] 3B2 ", "[ ] 3B4 ", "[ ] 3B5 ", "[ ] 3B6 ", "[ ]  4 R"}
        await settle_until(pilot, lambda: wanted <= shown(), "3B2 and what follows show")


async def test_a_refresh_keeps_the_phases_the_player_opened_and_closed() -> None:
    app = ChecklistApp(at("3B2"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        tree = app.checklist
        tree.focus()
        tree.move_cursor(tree.phase_node("6"))
        await pilot.press("space")
        assert phase_at(tree, "6").is_expanded

        tree.show_items(at("3B2"))  # same step: nothing moves
        await pilot.pause()
        assert phase_at(tree, "6").is_expanded
        assert tree.cursor_node is tree.phase_node("6")

        phase_at(tree, "3").collapse()
        tree.show_items(at("3B2"))
        await pilot.pause()
        assert not phase_at(tree, "3").is_expanded, "the player closed it; still current"

        tree.show_items(at("3B4"))  # the game moved on
        await pilot.pause()
        assert phase_at(tree, "3").is_expanded
        assert phase_at(tree, "6").is_expanded
        assert tree.cursor_node is tree.step_node("3B4")
        assert label(tree, "3B2").startswith("[x] 3B2 ")
        assert label(tree, "3B4").startswith("[>] 3B4 ")


async def test_a_new_shape_rebuilds_but_keeps_open_phases() -> None:
    app = ChecklistApp(in_setup())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        tree = app.checklist
        phase_at(tree, "7").expand()
        tree.show_items(at("1A1"))  # set-up over: no phase 0
        await pilot.pause()
        assert tree.phase_node("0") is None
        assert tree.step_node("0-LYR") is None
        assert len(tree.root.children) == 10
        assert phase_at(tree, "7").is_expanded
        assert phase_at(tree, "1").is_expanded
        assert not phase_at(tree, "2").is_expanded
        assert tree.cursor_node is tree.step_node("1A1")


async def test_enter_on_a_step_posts_step_selected_and_on_a_phase_does_not() -> None:
    app = ChecklistApp(at("3B2"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        tree = app.checklist
        tree.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert app.selected == ["3B2"]
        await pilot.press("down", "enter")
        await pilot.pause()
        assert app.selected == ["3B2", "3B3"]
        tree.move_cursor(tree.phase_node("4"))
        await pilot.press("enter")
        await pilot.pause()
        assert app.selected == ["3B2", "3B3"]
        assert phase_at(tree, "4").is_expanded, "enter opens a phase"


async def test_plus_opens_every_phase_and_minus_closes_the_others() -> None:
    app = ChecklistApp(at("3B2"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        tree = app.checklist
        tree.focus()
        await pilot.press("plus")
        assert all(node.is_expanded for node in tree.root.children)
        await pilot.press("minus")
        await pilot.pause()
        assert [node for node in tree.root.children if node.is_expanded] == [tree.phase_node("3")]
        assert tree.cursor_node is tree.step_node("3B2")


async def test_lines_without_phase_titles_are_grouped_by_phase_id() -> None:
    """A ruleset that names no phases still gets its checklist: each phase by its id."""
    rows = [
        ChecklistLine(step, f"Step {step}", "1", "both", "manual", (), status)
        for step, status in (("talk", "done"), ("answer", "current"), ("pick", "todo"))
    ]
    app = ChecklistApp(rows)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert [str(n.label) for n in app.checklist.root.children] == ["[>]  1 Phase 1  1/3"]
        assert label(app.checklist, "answer") == "[>] answer M B  Step answer"
        assert app.checklist.current_step == "answer"
