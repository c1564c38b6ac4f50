"""Drafts that end the step owed and run into another step of the player's: the orders panel
offers that step's orders next, read from the state after the drafts, so the player's own
run of steps goes out in one packet, as the command line writes it.

Found in the game by mail: at 3A-5C a ``d`` was drafted and ``m`` then said "3A-5C has
nothing for m to move or place: S signs your drafts, then the next step's"; the movement
of 3B2 cost a packet of its own. The tutorial walks the coalition (Alice) to 3A-5C, whose
``done`` leads to 3B2, the coalition's operational movement.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot

from engine.core.owed import pending
from engine.fe import RULESET
from engine.fe.face import FACE
from saves.home import Home
from tests.tui.test_app import SIZE, Tutorial, app_for, open_game, settle, tutorial_at
from tests.tui.test_orders_panel import STRIKE_FORCE, TOO_FAR
from tui.screens.game import GameScreen
from tui.screens.order_data import destinations
from tui.screens.session import Session
from tui.widgets.confirm import ConfirmDialog
from tui.widgets.hexmap import HexMap
from tui.widgets.orders import OrdersPanel
from tui.widgets.ticklist import PickDialog

NORTH = {"type": "move", "units": STRIKE_FORCE, "path": ["1307", "1306"]}
"""The Strike Force one hex north (`tests.tui.test_order_keys`)."""


NO_STOPS = "no later step is yours to play on to after these drafts: S signs them"


async def d_lists_nothing(pilot: Pilot[None], screen: GameScreen) -> None:
    """``D`` opens no list: the status line says no later step is the player's."""
    await pilot.press("D")
    await settle(pilot)
    assert not isinstance(pilot.app.screen, PickDialog)
    assert screen.status.text == NO_STOPS


@pytest.fixture
def before_3b2(tmp_path: Path) -> Iterator[Tutorial]:
    with tutorial_at(tmp_path, "3A-5C") as game:
        yield game


async def test_m_after_a_done_moves_at_the_step_it_runs_into(before_3b2: Tutorial) -> None:
    app = app_for(before_3b2.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        hexmap = screen.query_one(HexMap)
        panel = screen.query_one(OrdersPanel)
        await pilot.press("o")
        await settle(pilot)
        assert panel.hint_text.startswith("3A-5C takes:"), panel.hint_text
        assert panel.stack is None  # nothing to move at 3A-5C
        await pilot.press("d")
        await settle(pilot)
        assert panel.check_text.splitlines()[1] == "then 3B2 is yours too", panel.check_text
        assert panel.hint_text.startswith("3B2 takes:"), panel.hint_text
        assert panel.stack_kind == "move"
        await pilot.press("o")  # the keys back to the map, the cursor on the Strike Force
        await settle(pilot)
        assert hexmap.has_focus and hexmap.cursor == 1307
        await pilot.press("m", "enter")  # every unit of the hex
        await settle(pilot)
        # The hexes it may reach are read after the done (at 3A-5C it may go nowhere).
        assert 1306 in hexmap.targets, hexmap.targets
        await pilot.press("up", "enter", "enter")  # one hex north, and the path ends
        await settle(pilot)
        assert panel.items == [{"type": "done"}, NORTH]
        assert panel.check_text.startswith("legal"), panel.check_text
        assert panel.hint_text.startswith("3B2 takes:"), panel.hint_text
        await pilot.press("S")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await settle(pilot)
        assert screen.status.text.startswith("packet "), screen.status.text
    state = before_3b2.alice.replica.state(before_3b2.game_id)
    (owed, *_) = pending(RULESET, state)
    assert owed.step == "3B2" and owed.seats == ("coalition",)  # the move made, 3B2 still open
    assert state.rules is not None
    board = FACE.board(state.rules)
    assert {p.hex for p in board.pieces if p.id in STRIKE_FORCE} == {"1306"}


async def test_undoing_the_done_offers_the_step_owed_again(before_3b2: Tutorial) -> None:
    app = app_for(before_3b2.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        await pilot.press("o", "d")
        await settle(pilot)
        assert panel.hint_text.startswith("3B2 takes:")
        await pilot.press("u")
        await settle(pilot)
        assert panel.items == [] and panel.hint_text.startswith("3A-5C takes:"), panel.hint_text
        assert screen.status.text == "took back: done; no drafts left", screen.status.text
        assert panel.stack is None


async def test_a_refused_draft_leaves_the_panel_at_the_step_it_was_offering(
    before_3b2: Tutorial,
) -> None:
    """The move mistyped at 3B2 is refused: the panel stays at 3B2, where it is mended."""
    app = app_for(before_3b2.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        await pilot.press("o", "d")
        await settle(pilot)
        panel.restore([{"type": "done"}, TOO_FAR])
        await settle(pilot)
        assert panel.check_text.startswith("REFUSED"), panel.check_text
        assert panel.hint_text.startswith("3B2 takes:"), panel.hint_text


@pytest.fixture
def at_1a1(tmp_path: Path) -> Iterator[Tutorial]:
    with tutorial_at(tmp_path) as game:
        yield game


async def test_d_then_capital_d_plays_on_from_the_step_offered(at_1a1: Tutorial) -> None:
    """After a done at 1A1 the panel offers 1A3A: D lists the steps after it, and the one
    after it is a plain done there (before, the list began after 1A1, and picking 1A3B
    wrote a done through 1A1 again)."""
    app = app_for(at_1a1.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        await pilot.press("o", "d")
        await settle(pilot)
        assert panel.hint_text.startswith("1A3A takes:"), panel.hint_text
        await pilot.press("D")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, PickDialog)
        assert "1A3A" not in dialog.values and dialog.values[1] == "1A3B", dialog.values
        last = dialog.values[-1]
        assert dialog.title_text == (
            f"Play on to which step? It stays yours to {last}; "
            "past it the game needs more than your done"
        )
        await pilot.press("down", "enter")
        await settle(pilot)
        assert panel.items == [{"type": "done"}, {"type": "done"}]
        assert panel.hint_text.startswith("1A3B takes:"), panel.hint_text


@pytest.fixture
def at_2b11(tmp_path: Path) -> Iterator[Tutorial]:
    with tutorial_at(tmp_path, "2B11") as game:
        yield game


async def test_drafts_that_hand_the_game_over_say_so(at_2b11: Tutorial) -> None:
    """At 2B11 the coalition's done hands the step to the alliance: the panel stays at 2B11,
    and a key it has no use for says the drafts end it."""
    app = app_for(at_2b11.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        await pilot.press("o", "d")
        await settle(pilot)
        assert panel.check_text.startswith("legal"), panel.check_text
        assert panel.hint_text.startswith("2B11 takes:"), panel.hint_text
        await pilot.press("m")
        await settle(pilot)
        said = "2B11 has nothing for m to move or place: your drafts end it, S signs them"
        assert screen.status.text == said
        # D lists nothing after them (before, it listed the steps after 2B11 as the game
        # stands, and a done through any of them was refused: the alliance owes the next).
        await d_lists_nothing(pilot, screen)
        assert panel.items == [{"type": "done"}]


def test_the_menus_of_the_next_step_read_the_state_after_the_drafts(before_3b2: Tutorial) -> None:
    """`Session.after_drafts`: the last dry run's state for the same drafts, a dry run of
    its own for others, None for refused ones or none (the game as it stands)."""
    session = Session(Home(before_3b2.alice.home.path))
    try:
        game_id = before_3b2.game_id.hex()
        checked = session._orders(game_id, [{"type": "done"}], True)
        assert checked.ok and checked.next is not None and checked.next.step == "3B2"
        assert checked.next.step_orders and not checked.next.secret
        assert checked.verdict is not None
        assert session.after_drafts(game_id, [{"type": "done"}]) is checked.verdict.after
        again = session.after_drafts(game_id, [{"type": "done"}, NORTH])
        assert again is not None and again is not checked.verdict.after
        assert pending(RULESET, again)[0].step == "3B2"
        assert session.after_drafts(game_id, [{"type": "done"}, TOO_FAR]) is None
        assert session.after_drafts(game_id, None) is None
        # At 3B2, after the done, the Strike Force may go north; at 3A-5C it may not move.
        reach = destinations(session.reader(), game_id, "move", tuple(STRIKE_FORCE), ())
        assert reach is None or "1306" not in reach.hexes
        after = session.after_drafts(game_id, [{"type": "done"}])
        reach = destinations(session.reader(), game_id, "move", tuple(STRIKE_FORCE), (), after)
        assert reach is not None and "1306" in reach.hexes
    finally:
        session.home.close()


async def test_d_after_drafts_that_play_the_part_out_lists_nothing(before_3b2: Tutorial) -> None:
    """Seen in the app: a standing order drafted with the done played the coalition's part
    to its end (the alliance owes 4A), yet D listed the steps after 3A-5C as the game stands,
    and the done through picked was refused. D reads where the drafts leave the player."""
    app = app_for(before_3b2.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        await pilot.press("o")
        panel.restore([{"type": "standing", "steps": ["manual"]}, {"type": "done"}])
        await settle(pilot)
        assert panel.check_text.startswith("legal"), panel.check_text
        await d_lists_nothing(pilot, screen)


async def test_the_confirmation_says_the_game_then_waits_for_the_player(
    before_3b2: Tutorial,
) -> None:
    """Seen in the app: a directed attack and its done at 5-5B were sent alone, and the game
    then waited for the same player at 5-7A2 (its retreat option): a packet that handed the
    other player nothing. The confirmation says so, as it does for a step left open."""
    app = app_for(before_3b2.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        await pilot.press("o", "d")
        await settle(pilot)
        await pilot.press("S")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        text = " ".join(dialog.lines)
        assert "The game then waits for you at 3B2: sent now, they give the other" in text
        await pilot.press("n")
        await settle(pilot)
        panel = screen.query_one(OrdersPanel)
        panel.restore([{"type": "standing", "steps": ["manual"]}, {"type": "done"}])
        await settle(pilot)  # (they play the coalition's part out: the alliance owes 4A)
        assert panel.check_text.startswith("legal") and "yours too" not in panel.check_text
        await pilot.press("S")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        assert "The game then waits" not in " ".join(dialog.lines)


async def test_d_s_notice_goes_once_the_drafts_it_was_said_of_change(
    at_2b11: Tutorial,
) -> None:
    """Found in the app: "no later step is yours..." stayed on the status line after the
    drafts it was said of were undone, telling something no longer true."""
    app = app_for(at_2b11.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        await pilot.press("o", "d")
        await settle(pilot)
        await d_lists_nothing(pilot, screen)
        await pilot.press("D")  # said again for the same drafts: it stays
        await settle(pilot)
        assert screen.status.text == NO_STOPS
        await pilot.press("u")
        await settle(pilot)
        assert panel.items == []
        assert screen.status.text != NO_STOPS, screen.status.text


async def test_the_unit_list_and_the_move_s_prompt_scroll_into_the_panel(
    before_3b2: Tutorial,
) -> None:
    """Drafts and a verdict that fill the side column pushed the unit list and the move's
    prompt below its bottom: ``m`` ticked units the player could not see (found by playing
    the alliance's run from 1B to 3B2, whose verdict lists a dozen steps' events)."""
    from textual.widgets import Static

    from tui.widgets.unitpick import UnitPick

    app = app_for(before_3b2.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        await pilot.press("o")
        await settle(pilot)
        notes = [{"type": "note", "text": f"a long thought, number {n}"} for n in range(12)]
        panel.restore([{"type": "done"}, *notes])
        await settle(pilot)
        assert panel.hint_text.startswith("3B2 takes:"), panel.hint_text
        await pilot.press("o", "m")  # the map's cursor is on the Strike Force
        await settle(pilot)
        pick = panel.query_one(UnitPick)
        assert pick.display and pick.has_focus
        assert panel.can_view_entire(pick), (panel.scroll_offset, pick.region, panel.region)
        await pilot.press("enter")
        await settle(pilot)
        hint = panel.query_one("#orders-hint", Static)
        assert panel.hint_text.startswith("move"), panel.hint_text
        assert panel.can_view_partial(hint), (panel.scroll_offset, hint.region, panel.region)


async def test_a_hex_chosen_before_a_send_holds_the_pieces_there_after_it(
    before_3b2: Tutorial,
) -> None:
    """After a move was signed, the panel still held the hex chosen before it with the units
    that had left: ``m`` ticked them again and drew their path from a hex they were not in
    (found by playing: "m: move of 5 in 1105", the fleet by then in 1304)."""
    app = app_for(before_3b2.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        await pilot.press("o", "d", "o")
        await settle(pilot)
        await pilot.press("enter")  # the Strike Force's hex, 1307, chosen on the map
        await settle(pilot)
        assert panel.chosen == (1307, STRIKE_FORCE), panel.chosen
        await pilot.press("m", "enter", "up", "enter", "enter", "S", "y")
        await settle(pilot)
        assert screen.status.text.startswith("packet "), screen.status.text
        assert panel.chosen == (1307, []), panel.chosen  # the ships left 1307
        assert "in 1307" not in panel.hint_text, panel.hint_text
