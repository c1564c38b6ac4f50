"""The app's order forms turn the face's new menus into orders the engine accepts.

At the states of `tests.engine.fe.test_menus` where a capture, a declaration of war, a
retreat, a repair or a supply mission may be ordered, each line of the form's menu (a
preset, or a value of a parameter's options) makes, through the form
(`tui.widgets.order_forms.choice_form`), an order the engine validates.
"""

from __future__ import annotations

from typing import Any

from engine.core.face import Choice
from engine.fe import FACE, RULESET
from engine.fe.model import FeState
from tests.engine.fe.test_menus import MENUS, menu_states
from tui.widgets.order_forms import PRESET_FIELD, choice_form

OPTION_PARAMS = {"retreat": "to", "repair": "unit", "mission": "unit"}
"""The parameter whose options are the menu, per order (the others come as presets)."""


def _orders(choice: Choice) -> list[list[dict[str, Any] | str]]:
    """What the form makes of each line of its menu: the order, or for a supply mission
    the orders of each of its two values (a unit on the mission may leave it, one off it
    take it)."""
    form = choice_form(choice)
    param = OPTION_PARAMS.get(choice.order)
    if param is None:
        return [[form._make({PRESET_FIELD: str(n)})] for n in range(len(choice.presets))]
    (options,) = [p.options for p in choice.params if p.name == param]
    missions = ("supply", "none") if choice.order == "mission" else ("",)
    return [
        [form._make({param: option, **({"mission": m} if m else {})}) for m in missions]
        for option in options
    ]


def test_each_line_of_a_menu_makes_an_order_the_engine_takes() -> None:
    made: dict[str, int] = dict.fromkeys(MENUS, 0)
    for state, seat, order in menu_states():
        if order not in MENUS:
            continue  # the destinations come on the map (tests/tui/test_destinations.py)
        (choice,) = [c for c in FACE.choices(state, seat) if c.order == order]
        for items in _orders(choice):
            assert all(isinstance(item, dict) for item in items), items
            assert any(_legal(state, seat, item) for item in items), (order, items)
            made[order] += 1
    assert all(made.values()), made


def _legal(state: FeState, seat: str, item: dict[str, Any] | str) -> bool:
    assert isinstance(item, dict)
    (order,) = RULESET.parse_orders([item])
    return not RULESET.validate(state, seat, order)
