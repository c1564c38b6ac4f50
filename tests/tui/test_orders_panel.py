"""The orders panel in the game screen, driven headless at 80x24: draft, check, confirm, send.

The game is the tutorial between two in-process homes (as in `tests.tui.test_app`); the app
opens Alice's (coalition) home on a second connection. Every check reads the store back (the
game's packet seq) or the panel's own state (its drafts, the verdict it shows), so a panel
that sends an illegal order, or sends nothing, fails.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from textual.pilot import Pilot

from engine.core.face import Param, ParamKind
from engine.core.owed import pending
from engine.fe import RULESET
from tests.saves.conftest import now
from tests.tui.pilots import settle_until
from tests.tui.test_app import (
    SIZE,
    Tutorial,
    app_for,
    open_game,
    settle,
    top,
    tutorial_at,
    walk_to,
)  # fmt: skip
from tui.screens.game import GameScreen
from tui.widgets.confirm import ConfirmDialog
from tui.widgets.hexmap import HexMap
from tui.widgets.order_forms import typed_value
from tui.widgets.orders import OrdersPanel, describe, parse_items
from tui.widgets.passphrase import PassphraseDialog
from tui.widgets.unitpick import UnitPick

TOO_FAR = {
    "type": "move",
    "units": ["KLI-0005"],
    "path": ["1607", "1608", "1609", "1610", "1611", "1612", "1613", "1614"],
}
STRIKE_FORCE = ["KLI-0001", "KLI-0002", "KLI-0003", "KLI-0004"]
"""The coalition's four ships in 1307, where the cursor starts."""


@pytest.fixture
def game(tmp_path: Path) -> Iterator[Tutorial]:
    """The tutorial set up, at turn 1 step 1A1 (the coalition owes it)."""
    with tutorial_at(tmp_path) as tutorial:
        yield tutorial


@pytest.fixture
def at_3b2(game: Tutorial) -> Tutorial:
    """The same game walked to 3B2, the coalition's movement."""
    walk_to(game, "3B2")
    assert pending(RULESET, game.alice.replica.state(game.game_id))[0].step == "3B2"
    return game


def seq(game: Tutorial) -> int:
    """The head of Alice's game as her store holds it (what the app wrote, too)."""
    return game.alice.replica.game(game.game_id).head_seq


async def open_orders(pilot: Pilot[None]) -> tuple[GameScreen, OrdersPanel]:
    screen = await open_game(pilot)
    panel = screen.query_one(OrdersPanel)
    assert not panel.display
    await pilot.press("o")
    assert panel.display and panel.has_focus
    assert not screen.query_one("#hex-scroll").display  # 80x24: one or the other
    return screen, panel


async def test_a_done_checks_legal_and_is_sent_after_confirmation(game: Tutorial) -> None:
    before = seq(game)
    app = app_for(game.alice)
    async with app.run_test(size=SIZE) as pilot:
        app.session._clock = now  # packets after the test clock's, as a real clock would be
        screen, panel = await open_orders(pilot)
        # Every order the face offers at 1A1, in its order; the step has none of its own.
        assert "1A1 takes: done, note, roll, standing, adjust" in panel.hint_text
        await pilot.press("d")
        await settle(pilot)
        assert panel.items == [{"type": "done"}]
        assert panel.check_text.startswith(f"legal: would be packet {before + 1}")
        await pilot.press("S")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        assert "1. done" in app.screen.lines
        await pilot.press("n")  # declined: nothing is sent, the drafts stay
        await settle(pilot)
        assert top(app) is screen
        assert seq(game) == before and panel.items == [{"type": "done"}]
        await pilot.press("S")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert top(app) is screen
        assert seq(game) == before + 1
        assert panel.items == []
        queued, then = panel.check_text.splitlines()
        assert queued == f"packet {before + 1} signed and queued: s sends it"
        assert then.startswith("then ") and then.endswith(" is yours too")  # 1A1 done: 1A2 on
        assert screen.data is not None and screen.data.show.seq == before + 1
        assert panel.hint_text.startswith("1A3A takes:")  # the hint follows the game


async def test_an_illegal_order_shows_the_reason_and_nothing_is_sent(at_3b2: Tutorial) -> None:
    before = seq(at_3b2)
    app = app_for(at_3b2.alice)
    async with app.run_test(size=SIZE) as pilot:
        app.session._clock = now
        screen, panel = await open_orders(pilot)
        assert "3B2 takes: move, batch, battles, done" in panel.hint_text
        await pilot.press("{")
        # The keys of the panel and the screen (d, u, m, n, c, o, s...) go into the text.
        await pilot.press(*json.dumps(TOO_FAR), "enter")
        await settle(pilot)
        assert panel.items == [TOO_FAR]
        assert "needs 7 hexes, allowance 6 (203.1)" in panel.check_text
        assert panel.check_text.startswith("REFUSED: order 1")
        await pilot.press("S")  # refused drafts are not offered for signing
        await settle(pilot)
        assert app.screen is screen
        assert "REFUSED" in panel.check_text
        assert seq(at_3b2) == before
        await pilot.press("u")
        await settle(pilot)
        assert panel.items == []
        assert panel.check_text == ""
        await pilot.press("{", *"{nope", "enter")  # not JSON: said in place, no draft
        assert "not JSON" in panel.check_text and panel.items == []
        await pilot.press("escape")
        assert panel.has_focus
        await pilot.press("n", *"hold 1307", "enter")  # a note asks for its text only
        await settle(pilot)
        assert panel.items == [{"type": "note", "text": "hold 1307"}]
        assert panel.check_text.startswith("legal"), panel.check_text
        assert seq(at_3b2) == before


async def test_the_move_builder_follows_the_map_cursor(at_3b2: Tutorial) -> None:
    app = app_for(at_3b2.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        hexmap = screen.query_one(HexMap)
        panel = screen.query_one(OrdersPanel)
        assert hexmap.cursor == 1307
        await pilot.press("o", "m")  # no hex chosen yet: the one under the map's cursor
        await settle(pilot)
        assert panel.chosen == (1307, STRIKE_FORCE) and panel.query_one(UnitPick).display
        await pilot.press("escape")  # (the unit list gives the move up)
        await settle(pilot)
        assert not panel.building and not panel.query_one(UnitPick).display
        await pilot.press("o")  # back to the map
        assert hexmap.has_focus
        await pilot.press("enter")  # choose 1307 and its four ships
        assert panel.chosen == (1307, STRIKE_FORCE)
        await pilot.press("o", "m")  # first which units: all ticked, Enter takes them
        pick = panel.query_one(UnitPick)
        assert pick.display and pick.has_focus and not panel.building
        assert pick.picked == STRIKE_FORCE
        await pilot.press("enter")
        assert panel.building and hexmap.has_focus and not pick.display
        await pilot.press("up", "enter", "left", "enter", "enter")  # 1306, 1206, then done
        await settle(pilot)
        assert not panel.building and panel.has_focus
        move = {"type": "move", "units": STRIKE_FORCE, "path": ["1307", "1306", "1206"]}
        assert panel.items == [move]
        assert panel.check_text.startswith("legal"), panel.check_text
        # Escape also ends a path; a path of one hex adds nothing, and Escape then goes on
        # to close nothing but the move (the game screen stays). Escape in the unit list
        # gives the move up before it starts.
        await pilot.press("m", "enter", "escape")
        assert not panel.building and panel.items == [move]
        await pilot.press("m", "escape")
        assert not panel.building and not pick.display and panel.has_focus
        assert app.screen is screen
        await pilot.press("u")
        await settle(pilot)
        assert panel.items == []


def test_drafts_read_in_plain_words() -> None:
    assert describe({"type": "done"}) == "done"
    assert describe({"type": "done", "through": "3B1"}) == "done through 3B1"
    assert describe({"type": "note", "text": "hi"}) == "note: hi"
    assert describe(TOO_FAR) == "move KLI-0005 1607> 1608> 1609> 1610> 1611> 1612> 1613> 1614"
    assert describe({"type": "batch"}) == "batch"
    assert describe({"type": "repair", "unit": "KZI-0006"}) == "repair unit KZI-0006"
    assert parse_items('[{"type": "done"}, {"type": "batch"}]') == [
        {"type": "done"},
        {"type": "batch"},
    ]
    with pytest.raises(ValueError, match="a JSON object with a"):
        parse_items('{"unit": "KLI-0001"}')
    # A line of an orders file pasted whole ({"orders": [...]}, as `hexpost orders` reads).
    assert parse_items('{"orders": [{"type": "done"}]}') == [{"type": "done"}]
    with pytest.raises(ValueError, match="a JSON object with a"):
        parse_items('{"orders": [{"type": "done"}], "order": []}')
    # Pasted text nested past the JSON parser's stack is a mistake said in words, not a crash
    # of the app; so is such a record typed into a form's field.
    with pytest.raises(ValueError, match="not JSON: nested too deeply"):
        parse_items("[" * 100_000)
    record = Param("policy", ParamKind.RECORD)
    with pytest.raises(ValueError, match="policy: not a JSON object: nested too deeply"):
        typed_value(record, '{"a":' * 100_000)


async def test_a_locked_key_says_so_and_keeps_the_drafts(
    game: Tutorial, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An encrypted key the app was not given the passphrase of cannot sign: the panel says
    so and the passphrase dialog asks; cancelled, the drafts stay for the next try
    (`tests.tui.test_chat` types wrong and right passphrases into it)."""
    before = seq(game)
    app = app_for(game.alice)
    home = app.session.home
    info = home.identity_info()
    assert info is not None
    monkeypatch.setattr(
        home, "identity_info", lambda: msgspec.structs.replace(info, encrypted=True)
    )
    async with app.run_test(size=SIZE) as pilot:
        app.session._clock = now
        _screen, panel = await open_orders(pilot)
        # Its size is known once it is laid out.
        await settle_until(
            pilot,
            lambda: panel.size.height >= 8,
            "80x24 leaves the panel room for a few drafts",
        )
        await pilot.press("d")
        await settle(pilot)
        assert panel.check_text.startswith("legal")  # a dry run needs no private key
        await pilot.press("S")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, PassphraseDialog)
        await pilot.press("escape")
        await settle(pilot)
        assert "needs its passphrase" in panel.check_text
        assert panel.items == [{"type": "done"}]
        assert seq(game) == before
        await pilot.press("S")  # not an engine refusal: the next try is still offered
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("escape")
        await settle(pilot)
        assert seq(game) == before


async def test_drafts_are_checked_again_when_the_game_moves_on(at_3b2: Tutorial) -> None:
    """A reload (after a sync, or r) checks the drafts against the new state: here the
    same move was sent from elsewhere meanwhile, so the draft no longer starts where the
    ship is."""
    move = {"type": "move", "units": ["KLI-0001"], "path": ["1307", "1306"]}
    app = app_for(at_3b2.alice)
    async with app.run_test(size=SIZE) as pilot:
        _screen, panel = await open_orders(pilot)
        await pilot.press("{", *json.dumps(move), "enter")
        await settle(pilot)
        assert panel.check_text.startswith("legal"), panel.check_text
        at_3b2.alice.replica.submit(at_3b2.game_id, [move], now=now())
        await pilot.press("r")
        await settle(pilot)
        assert panel.items == [move]
        assert panel.check_text.startswith("REFUSED: order 1"), panel.check_text
