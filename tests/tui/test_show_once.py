"""``hexpost show --json`` works F&E's views record out once, and prints what a fresh one says
(issue 16, item 5).

The record (`engine.fe.views`: every unit's supply, most of what ``show`` computes) is both
the source of the face's board and, as it is, the top-level ``empires``, ``units``, ``hexes``
and ``battles`` of the JSON (`tui.rulesets.fe`). Both come from one computation now
(`engine.fe.views.shared_views`); here that is counted, and what is printed is compared with
the record and the board of a fresh computation (a decoded copy of the state, every engine
cache emptied), for the game now and as it stood after an earlier packet, asked for in one
process one after the other, as the game screen's review does.
"""

from __future__ import annotations

import argparse
from typing import Any

import msgspec
import pytest

from engine.core import caches
from engine.fe import face_board
from engine.fe import views as fe_views
from engine.fe.model import FeState
from tests.saves.conftest import Player
from tui import commands, render
from tui.safe_text import safe_record
from tui.services import show
from tui.services.jsonform import json_form

EXTRAS = ("empires", "units", "hexes", "battles")


def _fresh(state: FeState) -> dict[str, Any]:
    caches.clear_all()
    return fe_views.views(msgspec.msgpack.decode(msgspec.msgpack.encode(state), type=FeState))


def _assert_printed_as_fresh(printed: dict[str, Any], state: FeState) -> None:
    fresh = _fresh(state)
    assert {key: printed[key] for key in EXTRAS} == json_form(fresh)
    assert printed["board"] == json_form(face_board._board(fresh))


def test_show_works_the_record_out_once(wind: Player, monkeypatch: pytest.MonkeyPatch) -> None:
    replica = wind.replica
    (row,) = replica.games()
    worked: list[FeState] = []
    real = fe_views.views

    def counted(state: FeState) -> dict[str, Any]:
        worked.append(state)
        return real(state)

    caches.clear_all()
    monkeypatch.setattr(fe_views, "views", counted)
    printed = render.show_record(replica, row, at=None, checklist=False)
    state = replica.state(row.game_id).rules
    assert isinstance(state, FeState)
    assert len(worked) == 1, "the views record was worked out more than once"
    monkeypatch.undo()
    _assert_printed_as_fresh(printed, state)


def test_each_position_prints_its_own_record(wind: Player) -> None:
    replica = wind.replica
    (row,) = replica.games()
    earlier = row.head_seq - 1
    then = replica.state(row.game_id, earlier).rules
    now = replica.state(row.game_id).rules
    assert isinstance(then, FeState) and isinstance(now, FeState)
    assert then.board != now.board, "the two positions must differ: a weak test"
    for at, state in ((earlier, then), (None, now), (earlier, then)):
        printed = render.show_record(replica, row, at=at, checklist=False)
        _assert_printed_as_fresh(printed, state)


def test_the_text_form_says_what_it_said_with_the_extras(
    wind: Player, capsys: pytest.CaptureFixture[str]
) -> None:
    """``hexpost show`` without ``--json`` leaves the ruleset's top-level keys out of its
    record (its text form prints none of them): what it prints is the text of the whole
    record."""
    replica = wind.replica
    (row,) = replica.games()
    whole = show.show(replica, row, at=None, checklist=False)
    assert whole.extras, "the whole record has its extras: a weak test"
    expected = render.show_text(safe_record(render.builtins(whole)))
    args = argparse.Namespace(
        game=row.name, at=None, checklist=False, json=False, map=False, region=None,
        detailed=False,
    )  # fmt: skip
    assert commands.cmd_show(args, wind.home) == 0
    assert capsys.readouterr().out == expected + "\n"
