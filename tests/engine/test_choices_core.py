"""`engine.core.choices` for a ruleset with no lists and no board (the toy duel): templates
from its choices alone, nothing to list, nothing to find."""

from __future__ import annotations

import json

from engine.core.choices import Option, OrderKind, choices_view, find_of, template
from engine.core.face import Choice, Param, ParamKind, Preset, Reach, destinations_of
from tests.engine.toy import PLUGIN, TOY


def test_a_face_without_lists_gets_templates_only() -> None:
    state = TOY.initial_state("duel", ["north", "south"], {})
    view = choices_view(PLUGIN.face, state, "north")
    assert view.owes and view.step == "talk" and view.lists == ()
    kinds = {k.order: k for k in view.orders}
    assert json.loads(kinds["say"].template) == {"type": "say", "text": "TEXT"}
    assert json.loads(kinds["roll"].template)["sides"] == 6, "an integer menu's first value"
    assert not any(k.destinations for k in view.orders), "the toy face lists none"
    waiting = choices_view(PLUGIN.face, state, "south")
    assert not waiting.owes and waiting.orders == ()


def test_a_template_carries_the_face_s_menus() -> None:
    """Ready-made lines and parameters' menus go with the template (``hexpost choices``
    prints them), the fields each line fills as they are."""
    choice = Choice(
        "capture",
        "Capture",
        (Param("unit", ParamKind.PIECE), Param("by", ParamKind.PIECE)),
        presets=(Preset("A-1 by B-2", (("unit", "A-1"), ("by", "B-2"))),),
    )
    kind = template(choice)
    assert kind.menu == (Option("A-1 by B-2", (("unit", "A-1"), ("by", "B-2"))),)
    assert kind.options == ()
    retreat = Choice("retreat", "Retreat", (Param("to", ParamKind.HEX, False, ("0101", "0202")),))
    kind = template(retreat)
    assert kind.options == (("to", ("0101", "0202")),) and kind.menu == ()
    assert json.loads(kind.template) == {"type": "retreat"} and kind.optional == ("to",)
    said = say_kind()
    assert said.menu == () and said.options == ()


def say_kind() -> OrderKind:
    state = TOY.initial_state("duel", ["north", "south"], {})
    (kind,) = [k for k in choices_view(PLUGIN.face, state, "north").orders if k.order == "say"]
    return kind


def test_a_face_without_a_board_finds_nothing() -> None:
    state = TOY.initial_state("duel", ["north", "south"], {})
    assert find_of(PLUGIN.face, state, "north", "anything") == ()


def test_destinations_are_asked_only_of_a_face_that_has_them() -> None:
    """`destinations_of` gives None for a face without the optional method (the toy duel)
    and for an answer that is not a `Reach`; the path drawn so far is passed on."""
    state = TOY.initial_state("duel", ["north", "south"], {})
    assert destinations_of(PLUGIN.face, state, "north", "say", ["a"]) is None

    class Listing:
        def destinations(
            self,
            state: object,
            seat: str,
            order: str,
            pieces: tuple[str, ...],
            path: tuple[str, ...] = (),
        ) -> object:
            if order == "odd":
                return ("0101",)  # not a Reach: not an answer
            if path:
                return Reach(path[-1:])
            return Reach(("0101", "0202")) if pieces == ("A-1",) else Reach(why="no such piece")

    listing = Listing()
    assert destinations_of(listing, state, "north", "go", ["A-1"]) == Reach(("0101", "0202"))
    assert destinations_of(listing, state, "north", "go", ["B-2"]) == Reach(why="no such piece")
    assert destinations_of(listing, state, "north", "go", ["A-1"], ["0101", "0102"]) == Reach(
        ("0102",)
    )
    assert destinations_of(listing, state, "north", "odd", ["A-1"]) is None


def test_a_record_field_s_template_names_its_keys() -> None:
    """Found from the command line: F&E's secret battle force (a JSON object of units and
    fighters sent forward) had the template ``{"choice": {}}``, which the engine refuses,
    and its keys' help (the units that may be picked) was not printed."""
    units = Param("units", ParamKind.PIECES, True, (), "your battle force: A-1 A-2")
    forward = Param("forward", ParamKind.RECORD, False, (), "fighters sent forward")
    force = Choice(
        "secret", "Battle force", (Param("choice", ParamKind.RECORD, entries=(units, forward)),)
    )
    kind = template(force)
    assert json.loads(kind.template) == {"type": "secret", "choice": {"units": ["UNIT"]}}
    assert kind.fields == (
        ("choice.units", "your battle force: A-1 A-2"),
        ("choice.forward (optional)", "fighters sent forward"),
    )
    assert template(Choice("say", "Say", (Param("text", ParamKind.TEXT),))).fields == ()


def test_each_parameter_s_help_comes_with_the_order_kind() -> None:
    """Found from the command line: a policy's ``bir: -1, 1, 2, 3, 4`` did not say that -1
    asks each round, nor ``retreat`` (no menu) what its numbers mean: the face's words for
    each parameter now come with the kind (a record's keys stay in ``fields``)."""
    bir = Param("bir", ParamKind.INTEGER, False, ("-1", "1", "2"), "your pick; -1 asks")
    retreat = Param("retreat", ParamKind.INTEGER, False, (), "0 never, N after round N")
    plain = Param("note", ParamKind.TEXT, False)
    kind = template(Choice("policy", "Policy", (bir, retreat, plain)))
    assert kind.helps == (("bir", "your pick; -1 asks"), ("retreat", "0 never, N after round N"))
    assert kind.fields == ()
