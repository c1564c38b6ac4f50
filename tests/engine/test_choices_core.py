"""`engine.core.choices` for a ruleset with no lists and no board (the toy duel): templates
from its choices alone, nothing to list, nothing to find."""

from __future__ import annotations

import json

from engine.core.choices import choices_view, find_of
from tests.engine.toy import PLUGIN, TOY


def test_a_face_without_lists_gets_templates_only() -> None:
    state = TOY.initial_state("duel", ["north", "south"], {})
    view = choices_view(PLUGIN.face, state, "north")
    assert view.owes and view.step == "talk" and view.lists == ()
    kinds = {k.order: k for k in view.orders}
    assert json.loads(kinds["say"].template) == {"type": "say", "text": "TEXT"}
    assert json.loads(kinds["roll"].template)["sides"] == 6, "an integer menu's first value"
    waiting = choices_view(PLUGIN.face, state, "south")
    assert not waiting.owes and waiting.orders == ()


def test_a_face_without_a_board_finds_nothing() -> None:
    state = TOY.initial_state("duel", ["north", "south"], {})
    assert find_of(PLUGIN.face, state, "north", "anything") == ()
