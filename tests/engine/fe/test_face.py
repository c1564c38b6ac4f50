"""F&E through the client face (`engine.fe.face`): typed records a ruleset-blind client draws."""

from __future__ import annotations

import msgspec
import pytest

from engine.core.face import Board, Fact, ParamKind, past_steps_of
from engine.core.turn_orders import Done
from engine.fe import FACE, FE
from engine.fe.model import FeState
from engine.fe.orders import parse_orders
from tests.engine.fe.helpers import fresh
from tests.engine.fe.steps.test_adjust_area import tutorial_after_setup


@pytest.fixture(scope="module")
def after_setup() -> FeState:
    return tutorial_after_setup()


def test_summary_says_turn_step_and_who_is_owed(after_setup: FeState) -> None:
    summary = FACE.summary(after_setup)
    old = FE.summary(after_setup)
    assert summary.turn == old["turn"]["number"] == 1
    assert summary.turn_label.startswith("Turn 1, ")
    assert summary.step == old["step"] and summary.step_title == old["step_title"]
    assert summary.phase == old["phase"] and summary.phasing == old["phasing"]
    assert list(summary.waiting_for) == old["waiting_for"]
    assert summary.part == "" and not summary.over


def test_the_set_up_is_named_as_a_part() -> None:
    assert FACE.summary(fresh()).part == "Set-up"


def test_board_holds_every_unit_as_a_piece_and_every_empire_as_a_side(
    after_setup: FeState,
) -> None:
    board = FACE.board(after_setup)
    assert isinstance(board, Board) and board.grid is not None
    assert (board.grid.columns, board.grid.rows) == (61, 19)
    assert board.grid.contains("1307") and not board.grid.contains("6201")
    assert [p.id for p in board.pieces] == [u.id for u in after_setup.board.units]
    piece = next(p for p in board.pieces if p.id == "KLI-0002")
    assert (piece.kind, piece.side, piece.hex, piece.group) == ("D7", "KLI", "1307", "Strike Force")
    assert [s.id for s in board.sides] == ["KLI", "KZI"]
    assert dict((f.label, f.value) for f in board.sides[0].facts)["units on the map"] == "11"
    assert board.sides[0].facts[0] == Fact("treasury", "0 EP")
    place = next(p for p in board.places if p.hex == "1307")
    assert "KLI-0002" in place.pieces
    msgspec.json.encode(board)  # plain data all the way down


def test_choices_follow_the_current_step() -> None:
    state = fresh()
    seat = FE.pending(state)[0].seats[0]
    choices = {c.order: c for c in FACE.choices(state, seat)}
    assert "place" in choices and "done" in choices and "back" not in choices
    params = {p.name: p for p in choices["place"].params}
    assert params["hex"].kind == ParamKind.HEX and params["hex"].required
    assert not params["unit"].required
    other = next(s for s in state.seats if s != seat)
    assert FACE.choices(state, other) == ()


def test_a_choice_builds_an_order_the_engine_reads(after_setup: FeState) -> None:
    seat = FE.pending(after_setup)[0].seats[0]
    done = next(c for c in FACE.choices(after_setup, seat) if c.order == "done")
    item = {"type": done.order} | {p.name: "" for p in done.params if p.kind == ParamKind.TEXT}
    assert parse_orders([item]) == [Done()]


def test_checklist_is_the_rulesets_own(after_setup: FeState) -> None:
    items = FACE.checklist(after_setup)
    assert list(items) == FE.checklist(after_setup)
    assert sum(1 for i in items if i.status == "current") == 1


def test_the_set_up_s_steps_are_past_steps_once_it_is_over(after_setup: FeState) -> None:
    """The checklist lets the set-up's rows go when it ends; `past_steps` still gives them,
    done, as the checklist had them while it lasted."""
    first = fresh(scenario=after_setup.scenario)
    during = [item for item in FACE.checklist(first) if item.phase == "0"]
    assert len(during) > 1 and past_steps_of(FACE, first) == ()
    past = past_steps_of(FACE, after_setup)
    assert not any(item.phase == "0" for item in FACE.checklist(after_setup))
    assert [(i.step, i.title, i.kind) for i in past] == [(i.step, i.title, i.kind) for i in during]
    assert {item.status for item in past} == {"done"}
    assert past_steps_of(object(), after_setup) == ()  # a face without them: none


def test_order_text_is_plain_words() -> None:
    (order,) = parse_orders([{"type": "move", "units": ["A", "B"], "path": ["1307", "1407"]}])
    assert FACE.order_text(order) == "move units=A,B path=1307,1407"


def test_the_map_sheet_is_the_printed_map() -> None:
    sheet = FACE.map_sheet("the-wind")
    cells = {c.hex: c for c in sheet.cells}
    assert (sheet.grid.columns, sheet.grid.rows) == (61, 19)
    glyphs = {s.id: s.glyph for s in sheet.sides}
    assert glyphs["KLI"] and glyphs["KZI"] and glyphs["KLI"] != glyphs["KZI"]
    capitals = [c for c in sheet.cells if "capital" in c.features]
    assert capitals and all(c.owner for c in capitals)
    assert any(c.zone == "neutral" for c in sheet.cells)
    assert all(sheet.grid.contains(h) for h in cells)


@pytest.fixture(scope="module")
def wind_at_2b3() -> FeState:
    """The Wind set up, at the coalition's 2B3 of turn 1."""
    from engine.fe import RULESET
    from tests.engine.fe_play import set_up
    from tests.engine.fe_wind import SEATS, rules, walk_to
    from tests.engine.table import Table

    table = Table(RULESET, "the-wind", SEATS, label="convert-menu")
    set_up(table)
    walk_to(table, "2B3")
    return rules(table)


def test_build_and_convert_menus_come_as_presets(wind_at_2b3: FeState) -> None:
    from engine.fe import choice_lists, menus

    state, seat = wind_at_2b3, "coalition"
    builds = menus.build_presets(state, seat)
    assert builds, "the schedule offers something on turn 1"
    first = dict(builds[0].values)
    assert set(first) >= {"empire", "cls"}
    choice = next(c for c in FACE.choices(state, seat) if c.order == "build")
    assert choice.presets == builds
    # the same classes as `hexpost choices` lists
    (listed,) = [x for x in choice_lists.lists(state, seat) if x.key == "production"]
    assert [p.values for p in builds] == [item.values for item in listed.items]
    converts = next(c for c in FACE.choices(state, seat) if c.order == "convert")
    assert converts.presets == menus.convert_presets(state, seat) != ()


def test_a_build_menu_line_names_the_hex_of_an_empire_with_one_site(wind_at_2b3: FeState) -> None:
    """The Wind's turn 1: each coalition empire builds at its capital alone, so picking the
    line completes the order (the form asks for no hex); with several sites it asks."""
    from engine.fe import choice_lists, menus

    state, seat = wind_at_2b3, "coalition"
    lines = choice_lists.buildable(state, seat)
    presets = menus.build_presets(state, seat)
    for b, preset in zip(lines, presets, strict=True):
        values = dict(preset.values)
        if len(b.sites) == 1:
            assert values["hex"] == f"{b.sites[0]:04d}", preset
        else:
            assert "hex" not in values, preset
    assert dict(presets[0].values) == {"empire": "LYR", "cls": "BC", "hex": "0408"}
    several = b._replace(sites=(408, 1411))
    assert "hex" not in dict(choice_lists.build_values(several))


def test_the_build_menu_offers_every_class_the_capital_takes_and_no_other(
    wind_at_2b3: FeState,
) -> None:
    """The build menu names the scheduled slots and their substitutes in service this turn:
    each is accepted at the empire's capital, and every class the engine accepts there for
    a slot of the menu is offered (18 of the 74 lines on turn 1 named substitutes not in
    service for years before the menu checked)."""
    from engine.fe import menus
    from engine.fe.galaxy import load_galaxy
    from engine.fe.orders import BuildOrder
    from engine.fe.units import load_units

    state, seat = wind_at_2b3, "coalition"
    galaxy = load_galaxy()
    offered = [dict(p.values) for p in menus.build_presets(state, seat)]
    slots = {(o["empire"], o.get("instead_of") or o["cls"]) for o in offered}
    taken = []
    for empire, slot in sorted(slots):
        capital = f"{galaxy.capitals_of(empire)[0].hex:04d}"
        for unit in load_units().empire_classes(empire):
            instead_of = "" if unit.id == slot else slot
            order = BuildOrder(unit.id, capital, instead_of, empire)
            if not FE.validate(state, seat, order):
                taken.append((empire, unit.id, instead_of))
    assert len(taken) > 40
    assert sorted((o["empire"], o["cls"], o.get("instead_of", "")) for o in offered) == sorted(
        taken
    )


def test_the_convert_menu_offers_every_conversion_the_engine_takes_and_no_other(
    wind_at_2b3: FeState,
) -> None:
    """At 2B3 a unit converts only where its hex has the capacity (a starbase, the capital),
    into a class already in service, if the treasury pays: listing every conversion the
    tables name for every unit (800 lines for the Klingons and Lyrans on turn 1, four in
    five refused) left the player to find the few that work."""
    from engine.fe import menus
    from engine.fe.forces import OFF_MAP
    from engine.fe.orders import ConvertOrder
    from engine.fe.units import load_units

    state, seat = wind_at_2b3, "coalition"
    assert FE.summary(state)["step"] == "2B3" and FE.summary(state)["phasing"] == seat
    offered = [dict(p.values) for p in menus.convert_presets(state, seat)]
    taken = []
    for unit in state.board.units:
        if unit.empire not in ("KLI", "LYR") or unit.hex == OFF_MAP:
            continue
        for target in load_units().empire_classes(unit.empire):
            if any(unit.cls in conv.source for conv in target.conversions):
                order = ConvertOrder(unit.id, target.id)
                if not FE.validate(state, seat, order):
                    taken.append({"unit": unit.id, "to": target.id})
    assert taken, "some conversion is possible on turn 1"
    assert sorted(map(str, offered)) == sorted(map(str, taken))
    choice = next(c for c in FACE.choices(state, seat) if c.order == "convert")
    assert [dict(p.values) for p in choice.presets] == offered


def test_a_secret_step_offers_one_secret_choice_in_words() -> None:
    from engine.fe import flow

    state = FE.initial_state("the-wind", ["coalition", "alliance"], {})
    index = [s.id for s in flow.sequence().main].index("5-3C")
    state = msgspec.structs.replace(state, setup=False, step=index, turn=1)
    (choice,) = FACE.choices(state, "coalition")
    assert choice.order == "secret"
    assert [(p.name, p.kind) for p in choice.params] == [("choice", ParamKind.TEXT)]
