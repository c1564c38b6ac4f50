"""What a seat may do now (`engine.fe.choice_lists` through the face), the board search
(`engine.fe.finder`) and moves that name a stack or a fleet (`engine.fe.stacks`)."""

from __future__ import annotations

import functools

import msgspec
import pytest

from engine.core.choices import OptionList, choices_view, find_of, names, search_board, template
from engine.core.face import Board, Choice, Param, ParamKind, Piece, Place
from engine.fe import FACE, FE, flow, production
from engine.fe.model import FeState
from engine.fe.orders import BuildOrder, MoveOrder, decode_orders, encode_orders
from engine.fe.signed_choices import ENGINE_PICKS
from engine.fe.stacks import expand
from tests.engine.fe.helpers import at_step, fresh, run_until
from tests.engine.fe.steps.tutorial_states import (
    after_setup,
    orders,
    placed,
    refusals,
    run_to,
)

STRIKE_FORCE = ["KLI-0001", "KLI-0002", "KLI-0003", "KLI-0004"]


@functools.cache
def at_movement() -> FeState:
    """The tutorial at the coalition's 3B2: Strike Force in 1307, Flank Patrol in 1607."""
    return run_to(after_setup(), "3B2")


@functools.cache
def wind_builds() -> FeState:
    """The Wind's first turn at 2B3, the coalition building with 200 EP an empire (board as
    the scenario starts)."""
    state = FE.initial_state("the-wind", ["coalition", "alliance"], {})
    index = [s.id for s in flow.sequence().main].index("2B3")
    state = msgspec.structs.replace(state, setup=False, step=index, turn=1)
    return state.with_ep2("KLI", 400).with_ep2("LYR", 400)


def one_list(state: FeState, seat: str, key: str) -> OptionList:
    found = [item for item in FACE.lists(state, seat) if item.key == key]
    assert len(found) == 1, [item.key for item in FACE.lists(state, seat)]
    return found[0]


def facts(item: object) -> dict[str, str]:
    return {f.label: f.value for f in item.facts}  # type: ignore[attr-defined]


# --- set-up -------------------------------------------------------------------------------


def test_set_up_lists_each_waiting_fleet_with_its_hexes() -> None:
    state = FE.initial_state("tutorial", ["coalition", "alliance"], {})
    listed = one_list(state, "alliance", "setup")
    assert (listed.order, listed.rule) == ("place", "600.0")
    rows = {dict(i.values)["fleet"]: facts(i) for i in listed.items}
    assert set(rows) == {"Border Guard", "Starbase Squadron"}
    assert rows["Border Guard"]["set-up hexes"] == "1105 1205 1305 1405 1505 1605"
    assert rows["Starbase Squadron"]["units"] == "KZI-0006 BC KZI-0007 SF"
    assert FACE.lists(state, "coalition") == (), "the coalition owes nothing yet"
    placed_one, _ = orders(state, "alliance", {"type": "place", "fleet": "Border Guard",
                                               "hex": "1105"})  # fmt: skip
    left = one_list(placed_one, "alliance", "setup")
    assert [dict(i.values)["fleet"] for i in left.items] == ["Starbase Squadron"]


def test_the_place_form_names_only_what_the_empire_setting_up_may_place() -> None:
    """A seat plays several empires (the alliance: KZI, HYD, FED), and fleets of different
    empires share names (Home Fleet, First Fleet), so the board's waiting pieces do not tell
    a client what the step takes: the form's fleet and unit fields list exactly the fleets
    and units of the empire setting up now, which a placement menu offers and nothing else."""
    state = run_until(fresh(), at_step("0-KZI"))
    place = next(c for c in FACE.choices(state, "alliance") if c.order == "place")
    params = {p.name: p for p in place.params}
    listed = one_list(state, "alliance", "setup")
    fleets = tuple(dict(i.values)["fleet"] for i in listed.items)
    assert params["fleet"].options == fleets and "Home Fleet" in fleets
    units = tuple(uid for i in listed.items for uid in facts(i)["units"].split()[::2])
    assert params["unit"].options == units and all(u.startswith("KZI-") for u in units)
    waiting = {p.id: p.group for p in FACE.board(state).pieces if not p.hex}
    others = [i for i, group in waiting.items() if i not in units]
    assert others and any(waiting[i] in fleets for i in others), "names other empires share"
    first = listed.items[0]
    hex_id = facts(first)["set-up hexes"].split()[0]
    order = {"type": "place", "unit": facts(first)["units"].split()[0], "hex": hex_id}
    assert not refusals(state, "alliance", order)


def test_the_place_form_offers_each_waiting_fleet() -> None:
    state = FE.initial_state("tutorial", ["coalition", "alliance"], {})
    place = next(c for c in FACE.choices(state, "alliance") if c.order == "place")
    assert [dict(p.values) for p in place.presets] == [
        {"fleet": "Border Guard"},
        {"fleet": "Starbase Squadron"},
    ]
    assert "1105 1205" in place.presets[0].label


# --- production ---------------------------------------------------------------------------


def test_each_listed_build_is_one_the_engine_accepts_at_its_price() -> None:
    state = wind_builds()
    listed = one_list(state, "coalition", "production")
    assert listed.order == "build" and listed.rule == "431.0"
    assert listed.items, "The Wind's first turn has open slots"
    substitutes = 0
    for item in listed.items:
        values = dict(item.values)
        site = facts(item)["sites"].split()[0]
        order = BuildOrder(values["cls"], site, values.get("instead_of", ""), values["empire"])
        assert FE.validate(state, "coalition", order) == [], item.label
        build = production.Build(order.cls, int(site), order.instead_of)
        cost2 = production.build_cost2(order.empire, build, state.turn)
        assert isinstance(cost2, int)
        assert facts(item)["cost"] == f"{cost2 // 2}{'.5' if cost2 % 2 else ''} EP"
        substitutes += bool(order.instead_of)
    assert substitutes, "substitutions are listed with the slots they fill"
    assert any(n.startswith("KLI: treasury ") and "sites " in n for n in listed.notes)


def test_a_build_too_dear_for_the_treasury_is_not_listed() -> None:
    state = wind_builds()
    listed = one_list(state, "coalition", "production")
    dearest = max(listed.items, key=lambda i: float(facts(i)["cost"].split()[0]))
    empire = dict(dearest.values)["empire"]
    price2 = int(float(facts(dearest)["cost"].split()[0]) * 2)
    poorer = state.with_ep2(empire, price2 - 1)
    labels = [i.label for i in one_list(poorer, "coalition", "production").items]
    assert dearest.label not in labels
    assert any(
        f"{empire}: treasury " in n for n in one_list(poorer, "coalition", "production").notes
    )


def test_the_build_form_prices_each_preset_and_says_what_the_empire_builds_with() -> None:
    """The app's build form has no list beside it: each preset's label carries the price the
    list gives, and the choice's note each empire's treasury, schedule and sites."""
    state = wind_builds()
    build = next(c for c in FACE.choices(state, "coalition") if c.order == "build")
    listed = one_list(state, "coalition", "production")
    prices = {tuple(sorted(i.values)): facts(i)["cost"] for i in listed.items}
    assert len(build.presets) == len(prices)
    for preset in build.presets:
        assert preset.label.endswith(f"{prices[tuple(sorted(preset.values))]})"), preset.label
    assert build.note == "; ".join(listed.notes)
    assert not build.note.startswith("nothing")


def test_the_build_form_says_why_there_is_nothing_to_build() -> None:
    """The tutorial's empires have no schedule on its first turn: the form's note says there
    is nothing to build, and why, rather than leave an empty form to guess at."""
    state = run_to(after_setup(), "2B3")
    build = next(c for c in FACE.choices(state, "alliance") if c.order == "build")
    assert build.presets == ()
    assert build.note.startswith("nothing to build now. KZI: treasury "), build.note
    assert "schedule yet" in build.note


# --- movement -----------------------------------------------------------------------------


def test_movement_lists_each_unit_with_its_points_left() -> None:
    state = at_movement()
    listed = one_list(state, "coalition", "movement")
    assert (listed.order, listed.rule) == ("move", "203.1")
    rows = {dict(i.values)["units"]: facts(i) for i in listed.items}
    assert sorted(rows) == [*STRIKE_FORCE, "KLI-0005", "KLI-0006"], "bases never move"
    assert rows["KLI-0001"]["movement left"] == "6" and rows["KLI-0001"]["hex"] == "1307"
    moved, _ = orders(state, "coalition", {"type": "move", "units": ["KLI-0001"],
                                           "path": ["1307", "1308", "1307"]})  # fmt: skip
    rows = {
        dict(i.values)["units"]: facts(i) for i in one_list(moved, "coalition", "movement").items
    }
    assert rows["KLI-0001"]["movement left"] == "4"
    assert FACE.lists(state, "alliance") == ()


def test_an_unreleased_fleet_is_named_in_a_note_not_listed() -> None:
    state = at_movement()
    held = tuple(r for r in state.released if r != ("KLI", "Flank Patrol"))
    state = msgspec.structs.replace(state, released=held)
    listed = one_list(state, "coalition", "movement")
    assert "KLI-0005" not in [dict(i.values)["units"] for i in listed.items]
    assert "not released, may not move (600.3): KLI Flank Patrol (2)" in listed.notes


def test_the_move_form_asks_for_units_and_path_and_offers_stack_and_fleet() -> None:
    move = next(c for c in FACE.choices(at_movement(), "coalition") if c.order == "move")
    params = {p.name: p for p in move.params}
    assert params["path"].required and params["units"].required
    assert not any(params[name].required for name in ("stack", "fleet", "only"))


# --- the view and templates ---------------------------------------------------------------


def test_the_view_gives_templates_and_lists_only_to_the_seat_that_owes() -> None:
    state = at_movement()
    view = choices_view(FACE, state, "coalition")
    assert view.owes and view.step == "3B2"
    kinds = {k.order: k for k in view.orders}
    assert kinds["move"].template == '{"type": "move", "units": ["UNIT"], "path": ["HEX", "HEX"]}'
    assert kinds["move"].optional == ("stack", "fleet", "only")
    assert kinds["batch"].template == '{"type": "batch"}'
    assert [x.key for x in view.lists] == ["movement"]
    other = choices_view(FACE, state, "alliance")
    assert not other.owes and other.orders == () and other.lists == ()
    msgspec.json.encode(view)


def test_a_template_fills_a_menu_with_its_first_value() -> None:
    params = (
        Param("a", ParamKind.TEXT, True, ("one", "two")),
        Param("b", ParamKind.INTEGER),
        Param("c", ParamKind.FLAG, False),
    )
    choice = Choice("x", "X", params)
    kind = template(choice)
    assert kind.template == '{"type": "x", "a": "one", "b": 0}'
    assert kind.optional == ("c",)


# --- find ---------------------------------------------------------------------------------


def test_find_matches_ids_classes_fleets_and_hexes_case_insensitively() -> None:
    state = at_movement()
    assert names(find_of(FACE, state, "coalition", "kli-0002")) == ("KLI-0002",)
    assert names(find_of(FACE, state, "coalition", "d7")) == ("KLI-0002", "KLI-0003")
    fleet = find_of(FACE, state, "coalition", "strike")
    assert names(fleet) == tuple(STRIKE_FORCE)
    assert {f.matched for f in fleet} == {"group"} and fleet[0].hex == "1307"
    here = find_of(FACE, state, "coalition", "1307")
    assert names(here) == (*STRIKE_FORCE, "KLI-B002")
    assert all(f.matched == "hex" and f.side == "KLI" for f in here)
    assert find_of(FACE, state, "coalition", "no such thing") == ()


def test_find_shows_states_and_moves_made() -> None:
    moved, _ = orders(at_movement(), "coalition", {"type": "move", "units": ["KLI-0001"],
                                                   "path": ["1307", "1308"]})  # fmt: skip
    (row,) = find_of(FACE, moved, "coalition", "KLI-0001")
    assert row.hex == "1308" and "moved-1" in row.marks
    (base_row,) = find_of(FACE, moved, "coalition", "KLI-B002")
    assert "base" in base_row.marks


def test_find_matches_a_planet_by_name() -> None:
    state = after_setup()
    board = FACE.board(state)
    named = next(p for p in board.places if any(" " in f for f in p.features))
    word = named.features[0].split(" ", 1)[1]
    found = find_of(FACE, state, "coalition", word.lower())
    assert found and all(f.hex == named.hex and f.matched == "place" for f in found)


def test_the_neutral_search_lists_an_empty_hex_by_itself() -> None:
    board = Board(None, (), (Piece("A-1", "CA", "A", "0101", (), "First"),),
                  (Place("0202", "B", ("planet",)),))  # fmt: skip
    assert names(search_board(board, "first")) == ("A-1",)
    (row,) = search_board(board, "0202")
    assert (row.matched, row.piece, row.note) == ("hex", "", "planet")
    assert search_board(board, "  ") == ()


# --- moves naming a stack or a fleet ------------------------------------------------------


def move(**fields: object) -> MoveOrder:
    return msgspec.convert({"type": "move", **fields}, MoveOrder)


def test_a_stack_moves_every_unit_of_the_seat_there() -> None:
    state, events = orders(at_movement(), "coalition",
                           {"type": "move", "stack": "1307", "path": ["1307", "1308"]})  # fmt: skip
    assert all(state.board.unit(u).hex == 1308 for u in STRIKE_FORCE)
    assert state.board.unit("KLI-B002").hex == 1307, "the battle station stays"
    (event,) = [e for e in events if e.kind == "move"]
    assert event.data["units"] == STRIKE_FORCE


def test_a_fleet_moves_by_name_and_only_narrows_it() -> None:
    state, events = orders(at_movement(), "coalition",
                           {"type": "move", "fleet": "strike force", "only": ["d7"],
                            "path": ["1307", "1308"]})  # fmt: skip
    assert [u.id for u in state.board.at(1308)] == ["KLI-0002", "KLI-0003"]
    assert "Strike Force" in next(e.text for e in events if e.kind == "move")


def test_a_stack_with_one_unit_that_may_not_move_is_refused_whole() -> None:
    state = placed(at_movement(), {"KLI-0005": 1307})
    held = tuple(r for r in state.released if r != ("KLI", "Flank Patrol"))
    state = msgspec.structs.replace(state, released=held)
    problems = refusals(state, "coalition", {"type": "move", "stack": "1307",
                                             "path": ["1307", "1308"]})  # fmt: skip
    assert problems == [
        "fleet Flank Patrol (KLI) is not released (600-series scenario rules): KLI-0005 (600.3)"
    ]


def test_a_stack_beyond_one_units_allowance_names_that_unit() -> None:
    state, _ = orders(at_movement(), "coalition", {"type": "move", "units": ["KLI-0001"],
                                                   "path": ["1307", "1308", "1307"]})  # fmt: skip
    path = ["1307", "1308", "1309", "1310", "1311", "1312"]
    problems = refusals(state, "coalition", {"type": "move", "stack": "1307", "path": path})
    assert problems == [
        "KLI-0001 (D7C): 1307->1312 needs 5 hexes, allowance 6 (2 already moved this phase) (203.1)"
    ]


@pytest.mark.parametrize(
    ("fields", "needle"),
    [
        ({"stack": "1607", "path": ["1307", "1308"]}, "the stack in 1607 is not where the path"),
        ({"fleet": "Flank Patrol", "path": ["1307", "1308"]}, "KLI-0005 (D6) in 1607"),
        ({"fleet": "Nobody's Fleet", "path": ["1307", "1308"]}, "no fleet named"),
        ({"stack": "1307", "only": ["F5"], "path": ["1307", "1308"]}, "only F5: no such unit"),
        ({"stack": "1307", "units": ["KLI-0001"], "path": ["1307", "1308"]}, "not both"),
        ({"stack": "1105", "path": ["1105", "1106"]}, "holds no unit of coalition"),
        ({"stack": "1307"}, "a move needs a path"),
        ({"path": ["1307", "1308"]}, "lists its units, or names a stack or a fleet"),
    ],
)
def test_bad_stacks_and_fleets_are_refused_with_the_rule(
    fields: dict[str, object], needle: str
) -> None:
    problems = refusals(at_movement(), "coalition", {"type": "move", **fields})
    assert len(problems) == 1 and needle in problems[0] and problems[0].endswith("(203.0)")


def test_a_fleet_name_two_empires_share_is_refused_until_the_empire_is_named() -> None:
    state = wind_builds()
    home = [u for u in state.board.units if u.fleet == "Home Fleet" and u.empire == "KLI"]
    hexes = {u.id: 1411 for u in home}
    state = placed(state, hexes)
    found = expand(state, "coalition", move(fleet="home fleet", path=["1411", "1412"]))
    assert isinstance(found, list)
    (problem,) = found
    assert "names KLI Home Fleet and LYR Home Fleet" in problem.message
    assert problem.rule == "203.0"
    named = expand(state, "coalition", move(fleet="KLI Home Fleet", path=["1411", "1412"]))
    assert isinstance(named, MoveOrder)
    mobile = sorted(u.id for u in home if u.info().move > 0)
    assert named.units == mobile and named.fleet == ""


def test_listed_units_stay_as_they_were() -> None:
    order = move(units=["KLI-0001"], path=["1307", "1308"])
    assert expand(at_movement(), "coalition", order) is order


def test_moves_signed_before_the_new_fields_keep_their_bytes() -> None:
    old = MoveOrder(["KLI-0001"], ["1307", "1308"])
    data = encode_orders([old])
    assert msgspec.msgpack.decode(data) == [
        {"type": "move", "units": ["KLI-0001"], "path": ["1307", "1308"]}
    ]
    assert decode_orders(data) == [old]
    new = move(fleet="Strike Force", only=["D7"], path=["1307", "1308"])
    assert decode_orders(encode_orders([new])) == [new]


def _values(state: FeState, seat: str, order: str) -> dict[str, str]:
    (choice,) = [c for c in FACE.choices(state, seat) if c.order == order]
    return {p.name: p.value for p in choice.params}


def test_the_policy_forms_start_from_the_policies_in_force() -> None:
    """A new policy replaces the old one whole, so its form starts from the one signed (a
    BIR changed alone keeps the rest); fields at their defaults (ask) are blank."""
    state = at_movement()
    assert set(_values(state, "coalition", "policy").values()) == {""}
    (offered,) = [c for c in FACE.choices(state, "coalition") if c.order == "policy"]
    assert offered.presets == (ENGINE_PICKS,), "the engine's picks, while none is in force"
    signed = {"flagship": "auto", "bir": 3, "allocate": "suggested", "retreat": 0}
    state, _ = orders(state, "coalition", {"type": "policy", **signed})
    now = _values(state, "coalition", "policy")
    assert now == {
        "flagship": "auto", "force": "", "bir": "3", "ew": "", "allocate": "suggested",
        "retreat": "0", "pursue": "",
    }  # fmt: skip
    reaction = {"mode": "react", "units": ["KLI-0001", "KLI-0002"], "hexes": ["1306"]}
    state, _ = orders(state, "coalition", {"type": "reaction", **reaction})
    assert _values(state, "coalition", "reaction") == {
        "mode": "react", "units": "KLI-0001 KLI-0002", "hexes": "1306", "otherwise": "stay",
    }  # fmt: skip
    (policy,) = [c for c in FACE.choices(state, "coalition") if c.order == "policy"]
    assert policy.presets == ()
    assert template(policy).now == (
        ("flagship", "auto"), ("bir", "3"), ("allocate", "suggested"), ("retreat", "0"),
    )  # fmt: skip
