"""The allocation editor and the EW form, driven by keys on the game screen at 80x24.

The game screen is the real one; its session is a stand-in (as in
`tests.tui.test_orders_any_ruleset`) holding a real F&E state of the tutorial's battle in
1105 (`tests.engine.fe.steps.test_combat_round.damaged_round`): the record it hands over
carries the face's choices for that state, the editor's menus come from the face
(`engine.core.face.menu_of`, as `tui.screens.order_data.step_menu` asks it on the store
thread), and the drafts are checked by the engine itself. So the editor can offer nothing
the rules do not, and an order it writes is one the engine takes or the test fails.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Select

from engine.core.face import StepMenu, menu_of
from engine.fe import RULESET
from engine.fe.face import FACE
from engine.fe.model import FeState
from engine.fe.orders import parse_orders
from saves.home import Home
from tests.engine.fe.helpers import owed
from tests.engine.fe.steps.test_combat_round import damaged_round
from tests.engine.fe.test_allocation_menu import at_5_6b, ew_round
from tests.tui.records import a_show_record
from tests.tui.test_app import SIZE, settle
from tui import app as app_module
from tui.app import HexpostApp
from tui.screens.game import GameScreen
from tui.screens.order_data import step_menu
from tui.screens.session import Checked, GameData, Session
from tui.services.show import DecisionRecord, ShowRecord, step_orders
from tui.widgets.allocation_editor import AllocationEditor
from tui.widgets.order_forms import OrderForm
from tui.widgets.orders import OrdersPanel

GAME_ID = "cd" * 16


def battle_record(state: FeState, seat: str) -> ShowRecord:
    """The record `tui.services.show` would make of ``state`` for ``seat``'s home."""
    decision = owed(state)
    summary = FACE.summary(state)
    return a_show_record(
        game=GAME_ID,
        name="battle",
        my_seat=seat,
        step=decision.step,
        step_title=summary.step_title,
        waiting_for=tuple(decision.seats),
        pending=(
            DecisionRecord(tuple(decision.seats), decision.step, str(decision.kind), "k", "", ()),
        ),
        summary=summary,
        board=FACE.board(state),
        choices=FACE.choices(state, seat),
    )


class BattleSession(Session):
    """The session's door with the store replaced by one F&E state and the engine."""

    def __init__(self, home: Home, state: FeState, seat: str) -> None:
        super().__init__(home)
        self.state = state
        self.seat = seat
        self.checked: list[tuple[list[dict[str, Any]], bool]] = []
        self.menus: list[tuple[str, ...]] = []

    async def game(self, game_id: str, *, mark_read: bool = True, quick: bool = False) -> GameData:
        record = battle_record(self.state, self.seat)
        return GameData(record, [], step_orders=step_orders(record.choices))

    async def step_menu(
        self,
        game_id: str,
        order: str,
        chosen: tuple[str, ...],
        drafts: list[dict[str, Any]] | None = None,
    ) -> StepMenu | None:
        self.menus.append(chosen)
        return menu_of(FACE, self.state, self.seat, order, chosen)

    async def check_orders(self, game_id: str, items: list[dict[str, Any]]) -> Checked:
        problems = [
            f"{v.message} ({v.rule})"
            for order in parse_orders([i for i in items if i["type"] != "secret"])
            for v in RULESET.validate(self.state, self.seat, order)
        ]
        self.checked.append((items, not problems))
        return Checked(not problems, problems[0] if problems else "legal: would be packet 9")

    async def wait_for_mail(self, timeout: float) -> bool | None:
        return None


class BattleApp(HexpostApp):
    CSS_PATH = str(Path(app_module.__file__).parent / "app.tcss")

    def __init__(self, home: Home, state: FeState, seat: str) -> None:
        super().__init__(home)
        self.battle = BattleSession(home, state, seat)
        self.session = self.battle

    def get_default_screen(self) -> Screen[None]:
        return GameScreen(GAME_ID)


async def open_editor(pilot: Pilot[None]) -> tuple[OrdersPanel, AllocationEditor]:
    """Orders panel, then ``b``: the step's own order, the allocation, in its editor."""
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, GameScreen) and screen.data is not None
    await pilot.press("o")
    panel = screen.query_one(OrdersPanel)
    assert "b: allocate" in panel.hint_text
    await pilot.press("b")
    await settle(pilot)
    editor = pilot.app.screen
    assert isinstance(editor, AllocationEditor)
    return panel, editor


async def test_the_editor_opens_on_the_suggestion_and_offers_only_legal_losses(
    tmp_path: Path,
) -> None:
    """5-6A, 2 points on the Kzinti force: the editor opens on the engine's suggestion
    (crippling a frigate, 2 points over); cleared, it offers the two frigates and refuses to
    finish (302.61); one picked, it finishes, and the engine takes the order."""
    app = BattleApp(Home(tmp_path / "home"), damaged_round(), "alliance")
    async with app.run_test(size=SIZE) as pilot:
        panel, editor = await open_editor(pilot)
        assert editor.chosen == ["cripple KZI-0004"] and editor.can_finish
        assert editor.offered == []
        assert editor.remaining_text.startswith("2 points over-resolved")
        await pilot.press("c")
        await settle(pilot)
        assert editor.chosen == [] and not editor.can_finish
        assert editor.offered == ["cripple KZI-0004", "cripple KZI-0005"]
        assert editor.remaining_text == "2 points left to resolve"
        await pilot.press("f")
        assert app.screen is editor, "finished with the points unresolved"
        assert editor.why_text.startswith("cannot finish yet: 2 points remain")
        assert editor.why_text.endswith("(302.61)")
        await pilot.press("down", "enter")
        await settle(pilot)
        assert editor.chosen == ["cripple KZI-0005"] and editor.can_finish
        assert editor.offered == []
        await pilot.press("f")
        await settle(pilot)
        assert app.screen is not editor
        order = {"type": "allocate", "losses": ["cripple KZI-0005"]}
        assert panel.items == [order]
        assert app.battle.checked[-1] == ([order], True)
        assert panel.check_text == "legal: would be packet 9"


async def test_the_editor_follows_the_damage_and_undoes(tmp_path: Path) -> None:
    """5-6B, 11 points on the D6: after crippling it 3 points remain, at least half of the 4
    its destruction costs, so the editor will not finish (302.61, the engine's own words);
    undone, then destroyed outright, the list ends and the engine takes it."""
    app = BattleApp(Home(tmp_path / "home"), at_5_6b(), "coalition")
    async with app.run_test(size=SIZE) as pilot:
        panel, editor = await open_editor(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert editor.offered == ["cripple KLI-0005", "destroy KLI-0005"]
        await pilot.press("enter")
        await settle(pilot)
        assert editor.chosen == ["cripple KLI-0005"]
        assert editor.offered == ["destroy KLI-0005"]
        assert editor.remaining_text == "3 points left to resolve"
        await pilot.press("f")
        (refusal,) = [
            f"{v.message} ({v.rule})"
            for order in parse_orders([{"type": "allocate", "losses": ["cripple KLI-0005"]}])
            for v in RULESET.validate(app.battle.state, "coalition", order)
        ]
        assert app.screen is editor and editor.why_text == f"cannot finish yet: {refusal}"
        await pilot.press("u")
        await settle(pilot)
        assert editor.chosen == [] and editor.offered[1] == "destroy KLI-0005"
        await pilot.press("down", "enter")
        await settle(pilot)
        assert editor.chosen == ["destroy KLI-0005"] and editor.can_finish
        # A late answer for picks since taken back changes nothing.
        stale = menu_of(FACE, app.battle.state, "coalition", "allocate", ["cripple KLI-0005"])
        editor.show_menu(stale)
        assert editor.offered == [] and editor.can_finish
        await pilot.press("f")
        await settle(pilot)
        order = {"type": "allocate", "losses": ["destroy KLI-0005"]}
        assert panel.items == [order] and app.battle.checked[-1] == ([order], True)


async def test_escape_gives_up_and_writes_nothing(tmp_path: Path) -> None:
    app = BattleApp(Home(tmp_path / "home"), damaged_round(), "alliance")
    async with app.run_test(size=SIZE) as pilot:
        panel, editor = await open_editor(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is not editor and panel.items == []


async def test_the_ew_form_asks_each_variable_unit_and_writes_its_ew(tmp_path: Path) -> None:
    """5-4A2 with the Kzinti starbase in the battle force: the secret form asks for its EW
    factor from a menu of the six on its table (313.0) and writes ``{"KZI-B004": 3}``; the
    engine takes it as the secret choice."""
    state = ew_round()
    app = BattleApp(Home(tmp_path / "home"), state, "alliance")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        await pilot.press("o", "p")
        form = app.screen
        assert isinstance(form, OrderForm)
        assert list(form.values) == ["_choice_0"]
        (field,) = form.fields
        assert field.label.startswith("KZI-B004 (optional): SB (EW 1: attack 36")
        assert [value for _, value in field.choices] == ["1", "2", "3", "4", "5", "6"]
        form.query_one("#field-_choice_0", Select).value = "3"
        await pilot.press("ctrl+s")
        await settle(pilot)
        panel = screen.query_one(OrdersPanel)
        assert panel.items == [{"type": "secret", "choice": {"KZI-B004": 3}}]
        choice = panel.items[0]["choice"]
        assert not RULESET.validate_secret(state, owed(state), "alliance", choice)
        await pilot.press("u", "p")
        await pilot.press("ctrl+s")  # nothing chosen: every unit keeps its most attack
        await settle(pilot)
        assert panel.items == [{"type": "secret", "choice": {}}]
        assert not RULESET.validate_secret(state, owed(state), "alliance", {})


def test_editor_snapshot(snap_compare: Callable[..., bool], tmp_path: Path) -> None:
    """The editor at 80x24 over the game screen: 5-6B, the D6 crippled with 3 points left,
    destroying it the one loss offered, and why the list may not end yet (302.61)."""
    app = BattleApp(Home(tmp_path / "home"), at_5_6b(), "coalition")

    async def run_before(pilot: Pilot[None]) -> None:
        _panel, editor = await open_editor(pilot)
        await pilot.press("c")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("f")
        assert editor.why_text.endswith("(302.61)")

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_the_store_thread_asks_the_game_s_face_for_the_menu() -> None:
    """`order_data.step_menu` answers for the home's seat with its game's face: the F&E
    face's menu at 5-6A, and no menu for an order that has none."""

    class Replica:
        def game(self, game_id: bytes) -> SimpleNamespace:
            assert game_id == bytes.fromhex(GAME_ID)
            return SimpleNamespace(ruleset="fe", my_seat="alliance")

        def state(self, game_id: bytes) -> SimpleNamespace:
            return SimpleNamespace(rules=damaged_round())

    replica = cast(Any, Replica())
    found = step_menu(replica, GAME_ID, "allocate", ("cripple KZI-0004",))
    assert found == menu_of(FACE, damaged_round(), "alliance", "allocate", ["cripple KZI-0004"])
    assert found is not None and found.can_stop
    assert step_menu(replica, GAME_ID, "build", ()) is None
