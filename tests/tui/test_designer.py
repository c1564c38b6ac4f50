"""The ship designer screen (issue 17): the design calculator as a live form, at 80x24.

Driven headless through the pilot on a home of its own in ``tmp_path`` (the designer needs no
game and no identity): opened from the command palette by typing its name, the values typed
key by key, and every check reads what the widgets show (the figure's text, the line under a
field, the status line) or what the designs file holds. The expected numbers are the
source's own example (size +2: 169 habitable space) and the engine's refusals, so the screen
cannot show something the procedure did not say.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Static

from engine.design import derive, inputs_as_dict, make_inputs
from saves import designs as store
from saves.home import Home
from tests.tui.pilots import settle_until
from tests.tui.test_app import SIZE, Tutorial, app_for, open_game, settle, status_text, top
from tests.tui.test_hexmap import screen_lines
from tests.tui.test_snapshots import SnapCompare, still_cursors
from tui.app import HexpostApp
from tui.screens.designer import DesignerScreen
from tui.screens.games import GamesScreen
from tui.services import designs
from tui.widgets.confirm import ConfirmDialog
from tui.widgets.design_form import DesignForm, FieldRow, NameDialog, PickDialog

FIELDS = [
    "size", "tl", "speed", "maneuver", "gs", "supply_months", "shielding", "sensors",
    "compartments", "armor", "crew_quality",
]  # fmt: skip


def app_in(tmp_path: Path) -> HexpostApp:
    """The app on a fresh home of its own (no identity, no games)."""
    return HexpostApp(Home(tmp_path / "home"))


async def open_designer(pilot: Pilot[None]) -> DesignerScreen:
    """From the screen on top, the palette (ctrl+p), "ship designer" typed, Enter."""
    await settle(pilot)
    await pilot.press("ctrl+p")
    await pilot.pause()
    await pilot.press(*"ship designer")
    await pilot.pause(0.3)  # the palette searches in a worker of its own
    await pilot.press("enter")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, DesignerScreen)
    return screen


def saved_inputs(app: HexpostApp, name: str) -> dict[str, int]:
    """What the designs file of the app's home holds for ``name`` (read as the CLI would)."""
    return inputs_as_dict(store.load_design(app.session.home.path, name).inputs)


def break_the_file(app: HexpostApp, name: str) -> None:
    """Edit design ``name``'s file by hand into a bad state: a size out of its range."""
    path = store.design_path(app.session.home.path, name)
    text = path.read_text()
    assert "size = 2\n" in text
    path.write_text(text.replace("size = 2\n", "size = 40\n"))


def form_of(screen: DesignerScreen) -> DesignForm:
    return screen.query_one(DesignForm)


async def retype(pilot: Pilot[None], screen: DesignerScreen, name: str, text: str) -> None:
    """Tab to field ``name`` (from wherever the focus is), clear it and type ``text``."""
    for _ in range(len(FIELDS) + 1):
        if screen.focused is screen.query_one(f"#design-{name}"):
            break
        await pilot.press("tab")
    field = screen.query_one(f"#design-{name}", Input)
    assert screen.focused is field
    await pilot.press("ctrl+u", *text)  # ctrl+u: delete to the start of the line
    await pilot.pause()
    assert field.value == text


async def test_the_palette_opens_it_and_size_2_gives_169_habitable_space(
    tmp_path: Path,
) -> None:
    app = app_in(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_designer(pilot)
        form = form_of(screen)
        assert [field.name for field in form.fields] == FIELDS
        assert screen.focused is screen.query_one("#design-size")
        assert form.values["size"] == "0"  # the defaults are filled in
        assert "Habitable space: 121 spaces" in form.figure_text("habitable_space")
        await retype(pilot, screen, "size", "2")
        text = form.figure_text("habitable_space")
        assert text.startswith("Habitable space: 169 spaces")
        assert "(11 + SIZE)^2" in text  # the formula's name under it
        assert "Total volume: 2197 spaces" in form.figure_text("total_volume")
        assert form.verdict_text == "a possible design"
        assert all(form.error_text(name) == "" for name in FIELDS)


def shows(app: HexpostApp, text: str) -> Callable[[], bool]:
    """Whether some line of the screen shows ``text`` (asked when called)."""
    return lambda: any(text in line for line in screen_lines(app))


async def test_the_screen_shows_the_figures_each_key_makes(tmp_path: Path) -> None:
    """The figures are drawn from lines kept between keys (`design_form.FigureList`): what
    the screen shows, read from the compositor, follows the keys (``figure_text`` reads the
    form's record, which a figure list left unrepainted would still pass)."""
    app = app_in(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_designer(pilot)
        for size, habitable in (("2", "169"), ("5", "256"), ("-1", "100")):
            await retype(pilot, screen, "size", size)
            wanted = f"Habitable space: {habitable} spaces"
            await settle_until(pilot, shows(app, wanted), wanted)
        lines = screen_lines(app)
        head = next(y for y, line in enumerate(lines) if "Habitable space" in line)
        assert "  (11 + SIZE)^2" in lines[head + 1]  # its formula indented under it
        await retype(pilot, screen, "size", "x")
        await settle_until(
            pilot, lambda: not shows(app, "Habitable space")(), "no figures from a bad value"
        )


async def test_the_field_shows_its_range_and_its_help(tmp_path: Path) -> None:
    app = app_in(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_designer(pilot)
        size = screen.query_one("#design-size", Input)
        assert size.tooltip is not None and "SIZE + 11" in str(size.tooltip)
        ranges = [row.range_text for row in screen.query(FieldRow)]
        assert ranges[:2] == ["-10..+10", "10..30"]  # size, tech level


async def test_a_bad_value_is_marked_under_its_field(tmp_path: Path) -> None:
    app = app_in(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_designer(pilot)
        form = form_of(screen)
        await retype(pilot, screen, "tl", "x9")
        error = form.error_text("tl")
        assert "tl: 'x9' is not a whole number" in error
        assert "10 to 30" in error
        assert form.error_text("size") == ""
        assert form.figure_text("habitable_space") == ""  # no figures from a bad value
        assert form.verdict_text.startswith("no figures: 1 bad value")
        await retype(pilot, screen, "speed", "11")  # two bad fields, each under itself
        assert "speed: 11 is out of range" in form.error_text("speed")
        assert "-10 to +10" in form.error_text("speed")
        assert "x9" in form.error_text("tl")
        await retype(pilot, screen, "tl", "12")
        await retype(pilot, screen, "speed", "1")
        assert form.error_text("tl") == form.error_text("speed") == ""
        assert "Habitable space: 121 spaces" in form.figure_text("habitable_space")


async def test_an_impossible_design_shows_the_rule_on_its_field(tmp_path: Path) -> None:
    app = app_in(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_designer(pilot)
        form = form_of(screen)
        await retype(pilot, screen, "maneuver", "-7")
        error = form.error_text("maneuver")
        assert "maneuver -7" in error and "below -6" in error
        assert "[rule: maneuver cannot be below -6]" in error
        assert form.verdict_text.startswith("impossible design: 1 rule broken")
        assert "Habitable space: 121 spaces" in form.figure_text("habitable_space")
        await retype(pilot, screen, "armor", "2")  # size 0 + speed 0 is under 1
        armor = form.error_text("armor")
        assert "[rule: a ship whose SIZE + speed is under 1 cannot carry armor]" in armor
        # Every problem the procedure finds is shown, each on its own field's line.
        problems = derive(make_inputs({"size": 0, "tl": 15, "maneuver": -7, "armor": 2})).problems
        assert {p.field for p in problems} == {"maneuver", "armor"}
        for problem in problems:
            assert f"{problem.message} [rule: {problem.rule}]" in form.error_text(problem.field)
        assert form.verdict_text.startswith(f"impossible design: {len(problems)} rules broken")
        await retype(pilot, screen, "armor", "0")
        await retype(pilot, screen, "maneuver", "-6")
        assert form.error_text("maneuver") == form.error_text("armor") == ""
        assert form.verdict_text == "a possible design"


async def test_every_field_scrolls_into_view_at_80x24(tmp_path: Path) -> None:
    app = app_in(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_designer(pilot)
        figures = screen.query_one("#design-figures", VerticalScroll)
        assert figures.max_scroll_y > 0  # the figures scroll on their own
        for name in ("tl", "speed", "gs", "supply_months", "shielding", "sensors"):
            await retype(pilot, screen, name, "999")  # each marked in 2-3 lines under it
        await retype(pilot, screen, "crew_quality", "3")  # the last field: off the first page
        field = screen.query_one("#design-crew_quality", Input)
        column = screen.query_one("#design-inputs", VerticalScroll)
        # The column scrolls to the focused field after the next refresh.
        await settle_until(
            pilot, lambda: column.region.contains_region(field.region), "the last field shows"
        )
        assert column.scroll_y > 0
        assert screen.region.width == 80


async def test_save_then_load_round_trip(tmp_path: Path) -> None:
    app = app_in(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_designer(pilot)
        form = form_of(screen)
        await retype(pilot, screen, "size", "+2")
        await retype(pilot, screen, "tl", "20")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, NameDialog)
        await pilot.press(*"cutter", "enter")
        await settle(pilot)
        assert top(app) is screen
        assert status_text(app) == "saved design cutter (designs/cutter.toml in the home)"
        stored = saved_inputs(app, "cutter")
        assert stored["size"] == 2 and stored["tl"] == 20
        await retype(pilot, screen, "size", "5")
        assert "Habitable space: 256 spaces" in form.figure_text("habitable_space")
        await pilot.press("ctrl+o")
        await settle(pilot)
        picker = app.screen
        assert isinstance(picker, PickDialog)
        assert picker.names == ["cutter"]
        assert picker.query_one(OptionList).has_focus
        await pilot.press("enter")
        await settle(pilot)
        assert top(app) is screen
        assert form.values["size"] == "+2"
        assert form.values["tl"] == "20"
        assert "Habitable space: 169 spaces" in form.figure_text("habitable_space")
        assert "loaded cutter" in status_text(app)


async def test_saving_over_a_name_needs_a_yes(tmp_path: Path) -> None:
    app = app_in(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_designer(pilot)
        await retype(pilot, screen, "size", "2")
        await pilot.press("ctrl+s", *"cutter", "enter")
        await settle(pilot)
        await retype(pilot, screen, "size", "3")
        await pilot.press("ctrl+s")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, NameDialog)
        assert dialog.query_one(Input).value == "cutter"  # the name it was saved under
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")
        await settle(pilot)
        assert "kept as it was" in status_text(app)
        assert saved_inputs(app, "cutter")["size"] == 2
        await pilot.press("ctrl+s", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await settle(pilot)
        assert saved_inputs(app, "cutter")["size"] == 3


async def test_bad_values_are_not_saved_and_a_broken_file_is_not_loaded(tmp_path: Path) -> None:
    app = app_in(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_designer(pilot)
        await retype(pilot, screen, "size", "11")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen  # no name asked
        assert "fix the marked values" in status_text(app)
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert "no saved designs yet" in status_text(app)
        assert app.screen is screen
        await retype(pilot, screen, "size", "2")
        await pilot.press("ctrl+s", *"cutter", "enter")
        await settle(pilot)
        break_the_file(app, "cutter")
        await retype(pilot, screen, "size", "4")
        await pilot.press("ctrl+o")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is screen
        reason = "not loaded: cutter.toml: size: 40 is out of range"
        assert status_text(app).startswith(reason)  # the file, the field and its range
        assert "-10 to +10" in status_text(app)
        assert [n.message for n in app._notifications][-1].startswith(reason)
        assert form_of(screen).values["size"] == "4"  # the form is left as it was


async def test_escape_closes_it_where_it_was_opened(tmp_path: Path) -> None:
    app = app_in(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_designer(pilot)
        titles = [c.title for c in app.get_system_commands(screen)]
        assert "Ship designer" not in titles  # not twice over itself
        assert {"Save", "Load", "Close"} <= set(titles)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, GamesScreen)
        assert "Ship designer" in [c.title for c in app.get_system_commands(app.screen)]


async def test_a_name_the_store_refuses_is_asked_again_with_the_reason(tmp_path: Path) -> None:
    app = app_in(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_designer(pilot)
        await pilot.press("ctrl+s", *"my ship", "enter")
        await settle(pilot)
        dialog = top(app)
        assert isinstance(dialog, NameDialog)  # asked again, the name kept to mend
        assert dialog.query_one(Input).value == "my ship"
        problem = str(dialog.query_one("#name-problem", Static).content)
        assert "letters, digits, '-' or '_'" in problem
        assert store.design_names(app.session.home.path) == []
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen
        assert status_text(app) == "not saved"
        await pilot.press("ctrl+s", "enter")  # a blank name is refused in the dialog itself
        await pilot.pause()
        dialog = top(app)
        assert isinstance(dialog, NameDialog)
        assert "needs a name" in str(dialog.query_one("#name-problem", Static).content)


async def test_it_opens_over_a_game_and_closes_back_to_it(tutorial: Tutorial) -> None:
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        game = await open_game(pilot)
        screen = await open_designer(pilot)
        await retype(pilot, screen, "size", "2")
        assert "169 spaces" in form_of(screen).figure_text("habitable_space")
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is game


def test_designer_snapshot(snap_compare: SnapCompare, tmp_path: Path) -> None:
    """The designer at 80x24 on the source's size +2 example with a maneuver the rules
    refuse: the inputs with their ranges, the rule under Maneuver, the figures beside."""

    async def run_before(pilot: Pilot[None]) -> None:
        screen = await open_designer(pilot)
        await retype(pilot, screen, "size", "+2")
        await retype(pilot, screen, "maneuver", "-7")
        await settle(pilot)
        still_cursors(pilot)

    assert snap_compare(app_in(tmp_path), terminal_size=SIZE, run_before=run_before)


# --- the service alone -----------------------------------------------------------------------


def test_work_marks_every_bad_value_at_once_and_blank_is_bad() -> None:
    view = designs.work({"size": "2", "tl": "", "speed": "fast", "armor": "21"})
    assert view.inputs is None and view.figures == () and not view.possible
    errors = view.errors()
    assert sorted(errors) == ["armor", "speed", "tl"]
    assert "10 to 30" in errors["tl"][0]
    assert "'fast' is not a whole number" in errors["speed"][0]
    assert "21 is out of range" in errors["armor"][0]
    good = designs.work({"size": "+2"})  # the rest at their defaults
    assert good.inputs is not None and good.inputs["size"] == 2
    assert [f.value for f in good.figures if f.key == "habitable_space"] == ["169"]


def test_replacing_a_design_keeps_the_notes_written_in_its_file(tmp_path: Path) -> None:
    home = Home(tmp_path / "home")
    store.save_design(home.path, "cutter", {"size": 2, "tl": 15}, notes="fast raider")
    outcome = designs.save_design(home, "cutter", {"size": 3, "tl": 15}, False)
    assert outcome.taken and "exists" in outcome.text
    assert store.load_design(home.path, "cutter").inputs.size == 2  # nothing written
    outcome = designs.save_design(home, "cutter", {"size": 3, "tl": 15}, True)
    assert not outcome.taken
    saved = store.load_design(home.path, "cutter")
    assert saved.inputs.size == 3
    assert saved.notes == "fast raider"
