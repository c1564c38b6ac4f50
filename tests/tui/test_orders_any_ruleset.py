"""The game screen for a ruleset the app has never heard of, from its face alone.

The record is made by hand, as `tui.services.show` would make it for a game of the test
suite's toy ruleset (installed for the test as a plug-in, `tests.toy_plugin`; it ships no
client code): no board, a checklist of three steps in one unnamed phase, and two choices,
``say`` (one text) and ``roll`` (two whole numbers, one of them from a menu, and a text).
The session is a stand-in that hands over that record and records the drafts it is asked to
check. So whatever the orders panel offers, the forms it opens and the orders they make, and
what the checklist draws, can come from nowhere but the record: an F&E assumption anywhere
on the way fails here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Select, Static

from engine.core.face import Choice, Param, ParamKind, Summary
from saves.home import Home
from tests.toy_plugin import toy_plugin  # noqa: F401  (a fixture)
from tests.tui.records import a_show_record
from tests.tui.test_app import SIZE, settle, top
from tui import app as app_module
from tui.app import HexpostApp
from tui.screens.game import GameScreen
from tui.screens.session import Checked, GameData, Session
from tui.services.games import TurnRecord
from tui.services.show import (
    ChecklistLine,
    DecisionRecord,
    SeatRecord,
    ShowRecord,
    step_orders,
)
from tui.widgets.checklist import ChecklistTree
from tui.widgets.order_forms import ChoiceMenu, OrderForm
from tui.widgets.orders import OrdersPanel

GAME_ID = "ab" * 16

SAY = Choice("say", "Say something", (Param("text", ParamKind.TEXT),), "D1")
ROLL = Choice(
    "roll",
    "Roll dice",
    (
        Param("count", ParamKind.INTEGER),
        Param("sides", ParamKind.INTEGER, True, ("6", "10")),
        Param("purpose", ParamKind.TEXT),
    ),
)


def duel_record() -> ShowRecord:
    """Round 1 of a duel: north owes ``talk``; the other two steps are to come."""
    lines = tuple(
        ChecklistLine(step, title, "1", "both", "manual", (), status)
        for step, title, status in (
            ("talk", "North says something", "current"),
            ("answer", "South answers", "todo"),
            ("pick", "Both pick a number", "todo"),
        )
    )
    summary = Summary(1, "Round 1", "R1", step="talk", step_title="Talk", waiting_for=("north",))
    return a_show_record(
        game=GAME_ID,
        name="duel",
        ruleset="toy/1.2",
        scenario="duel",
        my_seat="north",
        seq=3,
        seats=(
            SeatRecord("north", "North", "north@example.org", "aa"),
            SeatRecord("south", "South", "south@example.org", "bb"),
        ),
        turn=TurnRecord(1, "Round 1", "R1"),
        step="talk",
        step_title="Talk",
        waiting_for=("north",),
        pending=(DecisionRecord(("north",), "talk", "orders", "talk-1", "Talk", ()),),
        summary=summary,
        choices=(SAY, ROLL),
        checklist=lines,
    )


class DuelSession(Session):
    """The session's door with the store replaced by the hand-made record."""

    def __init__(self, home: Home) -> None:
        super().__init__(home)
        self.checked: list[list[dict[str, Any]]] = []

    async def game(self, game_id: str, *, mark_read: bool = True, quick: bool = False) -> GameData:
        record = duel_record()
        return GameData(record, [], step_orders=step_orders(record.choices))

    async def check_orders(self, game_id: str, items: list[dict[str, Any]]) -> Checked:
        self.checked.append(items)
        return Checked(True, f"legal: would be packet 4 ({len(items)} orders)")

    async def wait_for_mail(self, timeout: float) -> bool | None:
        return None


class DuelApp(HexpostApp):
    CSS_PATH = str(Path(app_module.__file__).parent / "app.tcss")  # the app's own styles

    def __init__(self, home: Home) -> None:
        super().__init__(home)
        self.session = DuelSession(home)

    def get_default_screen(self) -> Screen[None]:
        return GameScreen(GAME_ID)


async def open_panel(pilot: Pilot[None]) -> tuple[GameScreen, OrdersPanel]:
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, GameScreen) and screen.data is not None
    await pilot.press("o")
    panel = screen.query_one(OrdersPanel)
    assert panel.has_focus
    return screen, panel


@pytest.mark.usefixtures("toy_plugin")
async def test_the_panel_offers_exactly_the_faces_forms(tmp_path: Path) -> None:
    app = DuelApp(Home(tmp_path / "home"))
    async with app.run_test(size=SIZE) as pilot:
        screen, panel = await open_panel(pilot)
        assert panel.orders == ["say", "roll"]
        assert panel.hint_text.startswith("talk takes: say, roll\nb: say, x: roll, f: forms")
        # No done and no stack order at this step: their keys are not offered.
        assert panel.check_action("done", ()) is False
        assert panel.check_action("move", ()) is False
        await pilot.press("f")
        menu = app.screen
        assert isinstance(menu, ChoiceMenu) and menu.orders == ["say", "roll"]
        await pilot.press("down", "enter")  # the roll
        form = app.screen
        assert isinstance(form, OrderForm) and form.order == "roll"
        assert form.title_text == "Roll dice"
        assert list(form.values) == ["count", "sides", "purpose"]
        sides = form.query_one("#field-sides", Select)
        assert [value for _, value in form.fields[1].choices] == ["6", "10"]
        assert sides.value == "6"  # a required menu starts on its first option
        await pilot.press(*"two", "tab", "tab", *"initiative", "enter")
        assert top(app) is form and "count: a whole number" in form.error_text
        form.query_one("#field-count").focus()
        await pilot.press(*["backspace"] * 3, *"2", "ctrl+s")
        await settle(pilot)
        roll = {"type": "roll", "count": 2, "sides": 6, "purpose": "initiative"}
        assert panel.items == [roll]
        assert isinstance(app.session, DuelSession) and app.session.checked[-1] == [roll]
        assert panel.check_text == "legal: would be packet 4 (1 orders)"
        await pilot.press("b")  # the step's own order: say
        say = app.screen
        assert isinstance(say, OrderForm) and say.title_text == "Say something (D1)"
        await pilot.press("enter")
        assert "fill in: text" in say.error_text
        await pilot.press(*"well met", "enter")
        await settle(pilot)
        assert panel.items == [roll, {"type": "say", "text": "well met"}]
        await pilot.press("A")  # no adjust in this game: said, no form
        assert not isinstance(app.screen, OrderForm)
        await pilot.pause()
        # Said on the status line: the drafts are as legal as before, and the panel says so.
        assert panel.check_text == "legal: would be packet 4 (2 orders)"
        assert screen.status.text == "talk takes no adjust order: f lists what it takes"


@pytest.mark.usefixtures("toy_plugin")
async def test_the_checklist_and_status_come_from_the_record(tmp_path: Path) -> None:
    app = DuelApp(Home(tmp_path / "home"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        status = str(screen.query_one("#game-status", Static).content)
        assert status.splitlines()[1:] == ["R1", "step talk Talk", "YOUR MOVE (north)"]
        assert "no map" in str(screen.query_one("#hex-info", Static).content)
        await pilot.press("c")
        tree = screen.query_one(ChecklistTree)
        assert tree.display and tree.current_step == "talk"
        assert [str(node.label) for node in tree.root.children] == ["[>]  1 Phase 1  0/3"]
        steps = [str(leaf.label) for leaf in tree.root.children[0].children]
        assert steps == [
            "[>] talk   M B  North says something",
            "[ ] answer M B  South answers",
            "[ ] pick   M B  Both pick a number",
        ]
