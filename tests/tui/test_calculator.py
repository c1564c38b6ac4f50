"""The calculator dialog (``i`` on the game screen): F&E's combat damage worked as typed.

Driven headless at 80x24 from a real game (the tutorial of `tests.tui.test_app`), keyboard
only: the orders panel open, ``i``, the values typed field by field with Tab. The expected
numbers are the command line's (`tests.tui.test_cli_calc`), so the dialog and ``hexpost calc
combat`` cannot drift apart. A ruleset without a calculator (the toy duel) says so on the
status line.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.app import App
from textual.containers import Vertical
from textual.pilot import Pilot
from textual.widgets import Input, Select

from engine.core.errors import HexpostError
from saves.home import Home
from tests.toy_plugin import toy_plugin  # noqa: F401  (a fixture)
from tests.tui.pilots import settle_until
from tests.tui.test_app import SIZE, Tutorial, app_for, open_game, settle, status_text
from tests.tui.test_snapshots import (
    SnapCompare,
    app_on,
    into_game,
    restart_test_clock,  # noqa: F401  (a fixture: the packets' times, pinned)
    still_cursors,
)
from tests.tui.test_toy_app import duel_homes
from tui.app import HexpostApp
from tui.rulesets import CalcField, CalcRefusal, GenericClient
from tui.rulesets.fe import calc
from tui.screens.game import GameScreen
from tui.screens.help import HelpScreen
from tui.services import rulesets
from tui.widgets.calculator import CalculatorDialog, Outcome
from tui.widgets.orders import OrdersPanel

FIRST_LINE = "10 damage points: potential 40 x 25% = 10, rounded nearest-half-up"
DIE_7 = "calc combat: a die roll of 7 is not possible: a die shows 1 to 6 (302.4)"
FIELDS = ["potential", "bir", "die", "ew", "rounding"]


async def open_calculator(pilot: Pilot[None]) -> tuple[GameScreen, CalculatorDialog]:
    """The game open, its orders panel focused (``o``), then ``i``."""
    screen = await open_game(pilot)
    await pilot.press("o")
    assert screen.query_one(OrdersPanel).has_focus
    await pilot.press("i")
    await pilot.pause()
    dialog = pilot.app.screen
    assert isinstance(dialog, CalculatorDialog)
    return screen, dialog


async def retype(pilot: Pilot[None], dialog: CalculatorDialog, name: str, text: str) -> None:
    """Tab to field ``name`` (from wherever the focus is), clear it and type ``text``."""
    for _ in range(len(FIELDS)):
        if dialog.focused is dialog.query_one(f"#calc-{name}"):
            break
        await pilot.press("tab")
    field = dialog.query_one(f"#calc-{name}", Input)
    assert dialog.focused is field
    await pilot.press("ctrl+u", *text)  # ctrl+u: delete to the start of the line
    await pilot.pause()
    assert field.value == text


async def test_the_issue_example_worked_as_typed(tutorial: Tutorial) -> None:
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        _screen, dialog = await open_calculator(pilot)
        assert dialog.focused is dialog.query_one("#calc-potential")
        assert dialog.values == {
            "potential": "",
            "bir": "",
            "die": "",
            "ew": "0",
            "rounding": "nearest-half-up",
        }
        assert dialog.result_text == "fill in: Potential, BIR total, Die"
        assert dialog.outcome is None
        await pilot.press(*"40", "tab", "4", "tab")
        assert dialog.result_text == "fill in: Die"
        await pilot.press("3")
        await pilot.pause()
        assert dialog.result_text.splitlines() == [
            FIRST_LINE,
            "(combat table 302.4: BIR 4 + die 3 = result 7)",
        ]
        assert dialog.outcome is not None and not dialog.outcome.refused
        assert all(dialog.error_text(name) == "" for name in FIELDS)
        # The result follows every change: a half factor and an EW shift.
        await retype(pilot, dialog, "potential", "40.5")
        await retype(pilot, dialog, "bir", "3")
        await retype(pilot, dialog, "die", "4")
        await retype(pilot, dialog, "ew", "2")
        assert dialog.result_text.startswith("12 damage points: potential 40.5 x 30% = 12.15,")
        assert "BIR 3 + die 4 + EW 2 = result 9" in dialog.result_text


async def test_the_rounding_menu_changes_the_points(tutorial: Tutorial) -> None:
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        _screen, dialog = await open_calculator(pilot)
        await pilot.press(*"36", "tab", *"10", "tab", "5")
        await pilot.pause()
        assert dialog.result_text.startswith("16 damage points: potential 36 x 45% = 16.2,")
        assert "rounded nearest-half-up" in dialog.result_text
        await pilot.press("tab", "tab")  # past the EW shift to the rounding menu
        menu = dialog.query_one("#calc-rounding", Select)
        assert dialog.focused is menu
        await pilot.press("enter")  # open it; the order is nearest-half-up, -down, down, up
        await pilot.pause()
        await pilot.press("down", "down", "down", "enter")
        await pilot.pause()
        assert menu.value == "up"
        assert dialog.result_text.startswith("17 damage points: potential 36 x 45% = 16.2,")
        assert "rounded up" in dialog.result_text


async def test_a_bad_value_is_refused_beside_its_field(tutorial: Tutorial) -> None:
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen, dialog = await open_calculator(pilot)
        await pilot.press(*"36", "tab", *"10", "tab", "7")
        await pilot.pause()
        assert dialog.error_text("die") == DIE_7
        assert dialog.query_one("#calc-error-die").display
        others = [name for name in FIELDS if name != "die"]
        assert all(dialog.error_text(name) == "" for name in others)
        assert not any(dialog.query_one(f"#calc-error-{name}").display for name in others)
        assert dialog.result_text == "no result: see the marked field"
        assert dialog.outcome is not None and dialog.outcome.refused
        # The refusal's line sits right under the die's field, inside the dialog.
        die_row = dialog.query_one("#calc-die").region
        error = dialog.query_one("#calc-error-die").region
        assert error.y == die_row.bottom and error.height >= 1
        # Fixed, the refusal goes and the result comes back.
        await pilot.press("backspace", "6")
        await pilot.pause()
        assert dialog.error_text("die") == ""
        assert not dialog.query_one("#calc-error-die").display
        assert dialog.result_text.startswith("18 damage points: potential 36 x 50% = 18,")
        # Other fields' refusals go beside them too.
        await retype(pilot, dialog, "ew", "3")
        assert dialog.error_text("ew").startswith("calc combat: an EW shift of 3 is not possible")
        assert dialog.error_text("ew").endswith("(308.51)")
        await retype(pilot, dialog, "ew", "0")
        await retype(pilot, dialog, "potential", "4x")
        assert "--potential '4x' is not a combat potential" in dialog.error_text("potential")
        await retype(pilot, dialog, "potential", "36")
        await retype(pilot, dialog, "bir", "11")
        assert dialog.error_text("bir").endswith("its rows are 0 to 10 (302.4)")
        # Escape closes it: back to the game, the orders panel keeps the keys.
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        assert screen.query_one(OrdersPanel).has_focus


async def test_the_dialog_fits_80x24(tutorial: Tutorial) -> None:
    """Every line of the dialog is on the screen, a refusal and a two-line result shown."""
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        _screen, dialog = await open_calculator(pilot)
        await pilot.press(*"40", "tab", "4", "tab", "7")
        await pilot.pause()
        box = dialog.query_one(Vertical).region
        assert box.x >= 0 and box.y >= 0
        assert box.right <= SIZE[0] and box.bottom <= SIZE[1]
        for widget_id in ("#calc-title", "#calc-rounding", "#calc-error-die", "#calc-hint"):
            shown = dialog.query_one(widget_id).region
            assert shown.height >= 1 and box.contains_region(shown), widget_id
        await pilot.press("backspace", "3")

        def result_shows() -> bool:
            result = dialog.query_one("#calc-result").region
            return result.height >= 2 and dialog.query_one(Vertical).region.contains_region(result)

        # The two-line result gets its height at the next layout.
        await settle_until(pilot, result_shows, "a two-line result inside the dialog")


async def test_help_and_the_palette_name_the_key(tutorial: Tutorial) -> None:
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        assert any(line.split()[:2] == ["i", "Calculator:"] for line in help_screen.keys), (
            help_screen.keys
        )
        await pilot.press("escape")
        await pilot.pause()
        commands = {command.title: command for command in app.get_system_commands(app.screen)}
        assert app.screen is screen  # the game's own commands, the help closed
        assert "Calculator" in commands
        await commands["Calculator"].callback()
        await pilot.pause()
        assert isinstance(app.screen, CalculatorDialog)


def test_snapshot_of_a_refusal_beside_the_die(
    snap_compare: SnapCompare, tutorial: Tutorial
) -> None:
    """The dialog over the tutorial's game at 80x24: die 7 refused on the die's own line."""

    async def run_before(pilot: Pilot[None]) -> None:
        await into_game(pilot)
        await pilot.press("o", "i", *"40", "tab", "4", "tab", "7")
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, CalculatorDialog) and dialog.error_text("die") == DIE_7
        still_cursors(pilot)

    assert snap_compare(app_on(tutorial.alice), terminal_size=SIZE, run_before=run_before)


def test_each_refusal_names_its_field() -> None:
    """The client's refusals carry the field at fault (what the dialog marks), and the same
    text the command line prints."""
    good = {"potential": "40", "bir": "4", "die": "3", "ew": "0", "rounding": "up"}
    for field, bad in [
        ("potential", "-3"),
        ("bir", "11"),
        ("bir", "x"),
        ("die", "7"),
        ("die", ""),
        ("ew", "3"),
        ("rounding", "banker"),
    ]:
        with pytest.raises(CalcRefusal) as refused:
            calc.combat({**good, field: bad})
        assert refused.value.field == field, (field, bad, str(refused.value))
    with pytest.raises(CalcRefusal, match=r"^calc combat: a die roll of 7 .*\(302\.4\)$"):
        calc.combat({**good, "die": "7"})
    assert calc.combat(good).record["damage"] == 10


def test_which_calculators_a_ruleset_has() -> None:
    (combat,) = rulesets.calculators("fe")
    assert combat.name == "combat"
    assert [f.name for f in combat.fields] == FIELDS
    assert combat.fields[-1].choices == ("nearest-half-up", "nearest-half-down", "down", "up")
    assert GenericClient("toy").calculators() == ()
    assert rulesets.calculators("toy") == ()
    with pytest.raises(HexpostError, match=r"^the toy ruleset has no combat calculator$"):
        rulesets.calculate("combat", {"potential": "40"}, ruleset="toy")


def test_a_ruleset_without_a_calculator_says_so(
    tmp_path: Path,
    toy_plugin: dict[str, str],  # noqa: F811
) -> None:
    # Not async: building the homes syncs them, which runs its own event loop.
    north, south, _game_id = duel_homes(tmp_path)
    try:
        asyncio.run(no_calculator_in_the_app(north.home.path))
    finally:
        north.close()
        south.close()


async def no_calculator_in_the_app(home: Path) -> None:
    app = HexpostApp(Home(home))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        await pilot.press("o", "i")
        await settle(pilot)
        assert app.screen is screen
        assert status_text(app) == "no calculator for this ruleset"


async def test_the_dialog_knows_no_ruleset() -> None:
    """Any calculator's fields and work: a refusal blaming no field shows in the result's
    place, an optional field may stay blank, and nothing is worked while a required one is."""
    asked: list[dict[str, str]] = []

    def work(values: dict[str, str]) -> Outcome:
        asked.append(values)
        if values["a"] == "0":
            return Outcome("no such thing (9.9)", refused=True)
        return Outcome(f"twice {values['a']} is {2 * int(values['a'])}")

    fields = [CalcField("a", "A"), CalcField("b", "B", required=False)]
    dialog = CalculatorDialog("Doubles", fields, work)
    app: App[None] = App()
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(dialog)
        await pilot.pause()
        assert dialog.result_text == "fill in: A" and asked == []
        await pilot.press("0")
        await pilot.pause()
        assert dialog.result_text == "no such thing (9.9)"
        assert dialog.error_text("a") == dialog.error_text("b") == ""
        await pilot.press("backspace", "4")
        await pilot.pause()
        assert dialog.result_text == "twice 4 is 8"
        assert asked[-1] == {"a": "4", "b": ""}
