"""The orders panel's stack orders, forms and the map's what-if, driven headless at 80x24.

The tutorial game as in `tests.tui.test_orders_panel`: the coalition's Strike Force (four
Klingon ships) waits in 1307 at step 3B2. Each test reads back what the widgets hold (the
drafts, the verdict, the map's planned markers) and the store's head, so a form that drafts
the wrong order, or a refusal that still sends, fails.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input, Label, OptionList, Select, Static

import tui.app
from engine.core.face import Choice, Param, ParamKind, Preset
from engine.fe.battle_model import CombatPolicy
from engine.fe.steps import combat_policy, combat_round
from tests.tui.test_app import (
    SIZE,
    TUTORIAL_ATTACK,
    Tutorial,
    app_for,
    open_game,
    settle,
    tutorial_at,
    wind_at,
)  # fmt: skip
from tests.tui.test_orders_panel import TOO_FAR
from tui.screens.game import GameScreen
from tui.widgets.hexmap import HexMap
from tui.widgets.order_forms import (
    PRESET_FIELD,
    TYPE_IT,
    Field,
    OrderForm,
    choice_form,
    order_values,
)
from tui.widgets.orders import OrdersPanel, describe
from tui.widgets.unitpick import UnitPick

STRIKE_FORCE = ["KLI-0001", "KLI-0002", "KLI-0003", "KLI-0004"]


@pytest.fixture
def at_3b2(tmp_path: Path) -> Iterator[Tutorial]:
    with tutorial_at(tmp_path, "3B2") as game:
        yield game


def seq(game: Tutorial) -> int:
    return game.alice.replica.game(game.game_id).head_seq


async def chosen_and_open(pilot: Pilot[None]) -> tuple[GameScreen, OrdersPanel, HexMap]:
    """The game open, 1307 chosen on the map (Enter), the orders panel focused."""
    screen = await open_game(pilot)
    hexmap = screen.query_one(HexMap)
    assert hexmap.cursor == 1307
    await pilot.press("enter", "o")
    panel = screen.query_one(OrdersPanel)
    assert panel.has_focus and panel.chosen == (1307, STRIKE_FORCE)
    return screen, panel, hexmap


async def test_part_of_a_stack_moves_and_the_map_shows_the_plan(at_3b2: Tutorial) -> None:
    before = seq(at_3b2)
    app = app_for(at_3b2.alice)
    async with app.run_test(size=SIZE) as pilot:
        _screen, panel, hexmap = await chosen_and_open(pilot)
        await pilot.press("m")
        pick = panel.query_one(UnitPick)
        labels = [str(pick.get_option_at_index(i).prompt) for i in range(pick.option_count)]
        assert labels[0] == "KLI-0001 D7C"  # the class helps choose
        await pilot.press("space")  # untick the first (the D7C stays behind)
        assert pick.picked == STRIKE_FORCE[1:]
        await pilot.press("enter", "up", "enter", "enter")  # to 1306, then done
        await settle(pilot)
        move = {"type": "move", "units": STRIKE_FORCE[1:], "path": ["1307", "1306"]}
        assert panel.items == [move]
        assert panel.check_text.startswith("legal"), panel.check_text
        # The what-if: the three ships at 1306, the one left in 1307, both marked planned.
        assert hexmap.planned == {1306: "K3~", 1307: "K1~"}
        cell = hexmap.cell(1306)
        assert cell is not None and cell.content == "K3~" and cell.planned
        assert seq(at_3b2) == before  # a what-if only: nothing signed
        await pilot.press("u")
        await settle(pilot)
        assert panel.items == [] and hexmap.planned == {}
        cell = hexmap.cell(1306)
        assert cell is not None and not cell.planned and "~" not in cell.content


async def test_an_illegal_move_shows_no_plan(at_3b2: Tutorial) -> None:
    app = app_for(at_3b2.alice)
    async with app.run_test(size=SIZE) as pilot:
        _screen, panel, hexmap = await chosen_and_open(pilot)
        # Typed: the map takes no hex past the six the allowance reaches (203.1).
        await pilot.press("{")
        await pilot.press(*json.dumps(TOO_FAR), "enter")
        await settle(pilot)
        assert panel.check_text.startswith("REFUSED"), panel.check_text
        assert "(203.1)" in panel.check_text
        assert hexmap.planned == {}


async def select_option(pilot: Pilot[None], form: OrderForm, name: str, value: str) -> None:
    """Choose ``value`` in the form's choice ``name`` with the keys: Enter opens the list,
    down (or up) moves to the line, Enter takes it.

    The list stays open while the highlight moves, as a player's would; closing and opening
    it again at every line made a long menu's walk the slowest part of the suite."""
    (field,) = [f for f in form.fields if f.name == name]
    labels = {choice: label for label, choice in field.choices}
    select = form.query_one(f"#field-{name}", Select)
    select.focus()
    await pilot.pause()
    await pilot.press("enter")
    overlay = select.query_one(OptionList)
    prompts = [str(overlay.get_option_at_index(i).prompt) for i in range(overlay.option_count)]
    target = prompts.index(labels[value])
    start = overlay.highlighted or 0
    await pilot.press(*(["down"] * (target - start) or ["up"] * (start - target)))
    await pilot.press("enter")
    await pilot.pause()
    assert select.value == value, (select.value, value)


async def test_an_adjustment_asks_only_its_fields_and_needs_a_reason(at_3b2: Tutorial) -> None:
    before = seq(at_3b2)
    app = app_for(at_3b2.alice)
    async with app.run_test(size=SIZE) as pilot:
        _screen, panel, _hexmap = await chosen_and_open(pilot)
        await pilot.press("A")
        form = app.screen
        assert isinstance(form, OrderForm)
        # F&E's client code (tui/rulesets/fe) narrows the fields to those the change needs.
        assert list(form.values) == ["change", "ep", "empire", "reason"]  # a treasury change
        assert form.hint_text.startswith("Enter on the last field")  # the reason: a text
        await select_option(pilot, form, "change", "cripple")
        assert list(form.values) == ["change", "unit", "empire", "reason"]
        assert form.values["unit"] == "KLI-0001"  # the chosen stack's first unit
        await pilot.press("ctrl+s")  # no reason: the form says so and stays
        assert isinstance(app.screen, OrderForm) and "reason" in form.error_text
        form.query_one("#field-reason").focus()
        await pilot.press(*"combat at 1305", "enter")
        await settle(pilot)
        assert app.screen is not form
        cripple = {
            "type": "adjust", "change": "cripple", "unit": "KLI-0001", "reason": "combat at 1305"
        }  # fmt: skip
        assert panel.items == [cripple]
        assert panel.check_text.startswith("legal"), panel.check_text
        assert seq(at_3b2) == before


async def test_a_refused_adjustment_names_its_rule(at_3b2: Tutorial) -> None:
    before = seq(at_3b2)
    app = app_for(at_3b2.alice)
    async with app.run_test(size=SIZE) as pilot:
        _screen, panel, _hexmap = await chosen_and_open(pilot)
        await pilot.press("A")
        form = app.screen
        assert isinstance(form, OrderForm)
        await select_option(pilot, form, "change", "capture")
        assert list(form.values) == ["change", "hex", "empire", "reason"]
        hex_field = form.query_one("#field-hex")
        hex_field.focus()
        await pilot.press(*["backspace"] * 4, *"1105", "tab", "tab", *"taken", "enter")
        await settle(pilot)
        assert panel.items == [
            {"type": "adjust", "change": "capture", "hex": "1105", "reason": "taken"}
        ]
        assert panel.check_text.startswith("REFUSED"), panel.check_text
        assert "(508.2)" in panel.check_text  # a planet falls only in its captor's combat phase
        await pilot.press("S")  # refused drafts are not offered for signing
        await settle(pilot)
        assert not isinstance(app.screen, OrderForm)
        assert seq(at_3b2) == before


async def test_b_is_the_steps_own_order_and_a_build_out_of_its_step_is_refused(
    at_3b2: Tutorial,
) -> None:
    """The forms are the step's choices: at 3B2 ``b`` drafts its own ``batch``, ``2`` opens
    its second own order's form (``battles``, the order of the battle hexes, 302.9) and no
    build form is offered; a build typed as JSON is refused by the engine, naming the step
    that takes it and the rule."""
    before = seq(at_3b2)
    app = app_for(at_3b2.alice)
    async with app.run_test(size=SIZE) as pilot:
        _screen, panel, _hexmap = await chosen_and_open(pilot)
        assert "build" not in panel.orders and "b: batch" in panel.hint_text
        await pilot.press("b")
        await settle(pilot)
        assert panel.items == [{"type": "batch"}]
        await pilot.press("u", "2")  # its second own order: the order of the battles
        await settle(pilot)
        assert isinstance(app.screen, OrderForm)
        assert list(app.screen.values) == ["hexes"]
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, OrderForm) and panel.items == []
        build = {"type": "build", "cls": "D7", "hex": "1307"}
        await pilot.press("{", *json.dumps(build), "enter")
        await settle(pilot)
        assert panel.items == [build]
        assert "belongs to step 2B3" in panel.check_text, panel.check_text
        assert "(105.0)" in panel.check_text
        assert seq(at_3b2) == before


async def test_a_roll_is_drafted_from_its_form(at_3b2: Tutorial) -> None:
    app = app_for(at_3b2.alice)
    async with app.run_test(size=SIZE) as pilot:
        _screen, panel, _hexmap = await chosen_and_open(pilot)
        assert panel.check_action("secret", ()) is False  # 3B2 is not a secret step
        await pilot.press("x")
        form = app.screen
        assert isinstance(form, OrderForm) and form.values == {"dice": "", "purpose": ""}
        await pilot.press(*"2d6", "ctrl+s")  # the purpose is still blank: the form says so
        assert "purpose" in form.error_text and app.screen is form
        await pilot.press("enter")  # Enter on the dice goes on to the purpose
        await pilot.press(*"survey", "enter")
        await settle(pilot)
        assert panel.items == [{"type": "roll", "dice": "2d6", "purpose": "survey"}]
        assert panel.check_text.startswith("legal"), panel.check_text


@pytest.fixture
def at_5_3e(tmp_path: Path) -> Iterator[Tutorial]:
    """The tutorial walked to 5-3E of the battle in 1205, a secret step both seats owe (from
    fe 5.10 the flagship and the battle force at once; nobody has a carrier there)."""
    with tutorial_at(tmp_path, "5-3E", TUTORIAL_ATTACK) as game:
        yield game


async def test_a_secret_step_takes_a_hidden_choice(at_5_3e: Tutorial) -> None:
    state = at_5_3e.alice.replica.state(at_5_3e.game_id)
    assert state.rules is not None
    eligible = list(combat_round.eligible_flagships(state.rules, "coalition"))
    assert len(eligible) > 1, eligible  # a choice to hide (one alone would be the rules')
    app = app_for(at_5_3e.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        await pilot.press("o")
        panel = screen.query_one(OrdersPanel)
        assert "5-3E is secret" in panel.hint_text
        await pilot.press("p")
        assert isinstance(app.screen, OrderForm)
        # The form offers the Klingons' eligible flagships (302.32), then the force.
        flagship, units = app.screen.fields
        assert [value for _, value in flagship.choices] == eligible
        assert "KLI-0004" in units.label  # the units there, listed
        # Both start from the engine's pick, what a policy's "auto" would choose.
        auto = combat_policy.choice(state.rules, "5-3E", "coalition", CombatPolicy())
        assert isinstance(auto, dict)
        assert (flagship.value, units.value.split()) == (auto["flagship"], auto["units"])
        await pilot.press("ctrl+s")  # taken as it stands
        await settle(pilot)
        picked = {"flagship": auto["flagship"], "units": auto["units"]}
        assert panel.items == [{"type": "secret", "choice": picked}], panel.items
        assert panel.check_text.startswith("legal"), panel.check_text
        await pilot.press("u", "p", "tab", "ctrl+u")  # the force cleared: what is missing
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert panel.items == [{"type": "secret", "choice": {"flagship": auto["flagship"]}}]
        assert 'name your battle force\'s "units"' in panel.check_text, panel.check_text
        await pilot.press("u")  # take it back and write it again, with a force of one
        await pilot.press("p")
        app.screen.query_one(f"#field-{flagship.name}", Select).value = eligible[0]
        await pilot.press("tab", "ctrl+u", *eligible[0], "ctrl+s")
        await settle(pilot)
        chosen = {"flagship": eligible[0], "units": [eligible[0]]}
        assert panel.items == [{"type": "secret", "choice": chosen}]
        assert panel.check_text.startswith("legal"), panel.check_text
        assert "S sends your hidden choice" in panel.hint_text, "the choice is written"
        assert screen.query_one(HexMap).planned == {}  # a hidden choice moves nothing


@pytest.fixture
def wind_2b3(tmp_path: Path) -> Iterator[Tutorial]:
    """The Wind set up and walked to 2B3: the coalition (Lyrans and Klingons) builds."""
    with wind_at(tmp_path, "2B3") as game:
        yield game


async def test_a_build_from_the_schedule_shows_on_the_map(wind_2b3: Tutorial) -> None:
    """The menu is this turn's schedule (the Lyran BC first) and the substitutes in service;
    built at the Lyran capital it is legal and the what-if shows the new unit there; at
    1307 the engine refuses it."""
    before = seq(wind_2b3)
    app = app_for(wind_2b3.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        await pilot.press("o")
        panel = screen.query_one(OrdersPanel)
        assert "b: build" in panel.hint_text
        await pilot.press("b")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, OrderForm)
        assert form.order == "build"
        menu = form.query_one(f"#field-{PRESET_FIELD}", Select)
        labels = [label for label, _ in form.fields[0].choices]
        assert labels[0] == "LYR BC (1 slot, 10 EP)"  # the price beside the slot
        assert not any(label.startswith("LYR BCH") for label in labels)  # not before turn 24
        assert "KLI D7C (1 slot, 9 EP)" in labels
        assert "KLI E4 instead of D7C (2.5 EP)" in labels  # half an EP written so
        # Above the fields, what the player builds with: each empire's treasury and sites.
        about = str(form.query_one("#form-about", Static).content)
        assert about.startswith("LYR: treasury "), about
        assert "KLI: treasury " in about and "sites" in about
        assert menu.value == "0"  # the first line of the schedule
        # The preset gives the rest: the Lyrans build at one site, their capital.
        assert list(form.values) == [PRESET_FIELD]
        assert form.hint_text.startswith("ctrl+s adds it")  # Enter would open the menu
        await pilot.press("ctrl+s")
        await settle(pilot)
        build = {"type": "build", "cls": "BC", "hex": "0408", "empire": "LYR"}
        assert panel.items == [build]
        assert panel.check_text.startswith("legal"), panel.check_text
        assert list(screen.query_one(HexMap).planned) == [408]
        await pilot.press("u", "b")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, OrderForm)
        await select_option(pilot, form, PRESET_FIELD, TYPE_IT)  # typed by hand
        for name, text in (("cls", "BC"), ("hex", "1307"), ("empire", "LYR")):
            form.query_one(f"#field-{name}").focus()
            await pilot.press(*text)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert panel.check_text.startswith("REFUSED"), panel.check_text
        assert "(431.0)" in panel.check_text
        assert screen.query_one(HexMap).planned == {}
        assert seq(wind_2b3) == before


async def test_a_conversion_is_chosen_from_the_tables(wind_2b3: Tutorial) -> None:
    """At the Klingon capital the menu lists the chosen stack's conversions the engine takes
    now: a D7 into a D7C, not into a D7V (not in service yet), which typed by hand is
    refused with its rule; nothing is signed."""
    before = seq(wind_2b3)
    app = app_for(wind_2b3.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        await pilot.press("g", *"1411", "enter")
        await pilot.press("enter", "o")
        panel = screen.query_one(OrdersPanel)
        assert panel.chosen is not None and "KLI-0073" in panel.chosen[1]
        assert "2: convert" in panel.hint_text
        await pilot.press("2")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, OrderForm)
        assert form.order == "convert"
        labels = [label for label, _ in form.fields[0].choices]
        assert "KLI-0073 D7 -> D7C" in labels
        # Only the chosen stack's units (the face lists every unit's conversions).
        assert all(label.startswith(tuple(panel.chosen[1])) for label in labels[:-1])
        # The menu leaves out what the engine would refuse; typed by hand, a class not in
        # service yet is refused with its rule.
        assert "KLI-0073 D7 -> D7V" not in labels
        await select_option(pilot, form, PRESET_FIELD, TYPE_IT)  # the menu's last line
        assert list(form.values) == [PRESET_FIELD, "unit", "to"]
        form.query_one("#field-unit", Input).value = "KLI-0073"
        form.query_one("#field-to", Input).focus()
        await pilot.press(*"D7V", "ctrl+s")
        await settle(pilot)
        assert panel.check_text.startswith("REFUSED"), panel.check_text
        assert "not in service before" in panel.check_text and "(433.1)" in panel.check_text
        await pilot.press("u", "2")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, OrderForm)
        labels = [label for label, _ in form.fields[0].choices]
        await select_option(pilot, form, PRESET_FIELD, str(labels.index("KLI-0073 D7 -> D7C")))
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert panel.items == [{"type": "convert", "unit": "KLI-0073", "to": "D7C"}]
        assert panel.check_text.startswith("legal"), panel.check_text
        assert seq(wind_2b3) == before


def test_stack_orders_read_in_plain_words() -> None:
    assert describe({"type": "retrograde", "units": ["KLI-0001"], "to": "1307"}) == (
        "retrograde KLI-0001 to 1307"
    )
    assert describe({"type": "reserve", "units": STRIKE_FORCE}) == "reserve 4 units"


def test_a_face_choice_with_presets_becomes_an_order() -> None:
    """A form from a choice with presets, without a terminal: a preset fills its values, the
    player the rest; typed values follow the parameters' kinds; a blank required field and a
    number that is not one are named."""
    build = Choice(
        "build",
        "Build",
        (
            Param("cls", ParamKind.TEXT),
            Param("hex", ParamKind.HEX),
            Param("instead_of", ParamKind.TEXT, False),
        ),
        presets=(Preset("KLI F5S instead of F5", (("cls", "F5S"), ("instead_of", "F5"))),),
    )
    form = choice_form(build, {"hex": "1411"})
    assert form.fields[0].choices[0] == ("KLI F5S instead of F5", "0")
    assert [f.name for f in form.fields[1:]] == ["cls", "hex", "instead_of"]
    assert form.fields[2].value == "1411"
    assert form._make({PRESET_FIELD: "0", "hex": "1411"}) == {
        "type": "build", "cls": "F5S", "instead_of": "F5", "hex": "1411"
    }  # fmt: skip
    assert form._make({PRESET_FIELD: "0", "hex": ""}) == "fill in: hex"
    assert form._make({PRESET_FIELD: "-", "cls": "D7", "hex": "1411", "instead_of": ""}) == {
        "type": "build", "cls": "D7", "hex": "1411"
    }  # fmt: skip
    replace = Choice(
        "replace",
        "Replace",
        (
            Param("unit", ParamKind.PIECE),
            Param("fighters", ParamKind.TEXT, False),
            Param("pfs", ParamKind.INTEGER, False),
        ),
    )
    assert order_values(replace, {"unit": "KLI-0040", "pfs": "6", "fighters": ""}) == {
        "type": "replace", "unit": "KLI-0040", "pfs": 6
    }  # fmt: skip
    assert "whole number" in str(order_values(replace, {"unit": "KLI-0040", "pfs": "2.5"}))
    move = Choice(
        "move", "Move", (Param("units", ParamKind.PIECES), Param("path", ParamKind.HEXES))
    )
    assert order_values(move, {"units": "KLI-0001 KLI-0002", "path": "1307, 1306"}) == {
        "type": "move", "units": ["KLI-0001", "KLI-0002"], "path": ["1307", "1306"]
    }  # fmt: skip
    assert order_values(move, {"units": "", "path": ""}) == "fill in: units, path"


async def test_a_long_field_label_wraps_in_the_form() -> None:
    """A field's label says what the value is for (a secret BIR pick's); cut at the form's
    width, its end was lost: it wraps onto more lines instead."""
    label = "choice (the battle intensity rating you pick for this round, from 1 to 4: 304.1)"
    form = OrderForm("Secret BIR pick (304.1)", [Field("choice", label)], dict)
    app = App[None]()
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(form)
        await pilot.pause()
        shown = form.query_one("#label-choice", Label)
        assert shown.size.height >= 2, shown.size
        assert shown.size.width <= 60


async def test_an_open_choice_list_has_a_frame_of_its_own() -> None:
    """A form's choice, opened, lists its values over what lies below the field, past the
    dialog's frame at the foot of a short form. Compact fields draw no border, so the list
    ran into the map behind it: the open list keeps a frame of its own."""
    field = Field("choice", "choice", choices=tuple((str(n), str(n)) for n in range(1, 7)))
    form = OrderForm("Secret BIR pick (304.1)", [field], dict)
    app = App[None](css_path=Path(tui.app.__file__).with_name("app.tcss"))
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(form)
        await pilot.pause()
        form.query_one("#field-choice", Select).focus()
        await pilot.press("enter")
        await pilot.pause()
        overlay = form.query_one("#field-choice", Select).query_one(OptionList)
        assert overlay.display and overlay.region.height > 0
        # The four sides each draw a line: the list's edge shows against the map.
        assert all(edge[0] not in ("", "none", "hidden") for edge in overlay.styles.border)
        assert overlay.region.height == 6 + 2, overlay.region
