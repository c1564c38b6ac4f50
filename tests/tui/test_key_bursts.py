"""Keys that arrive in one burst are handled in the order they were typed.

Over SSH with some lag, or from tmux's ``send-keys``, a player's ``down down Enter`` reaches
the app at once. A priority binding runs as its key comes in, ahead of the keys before it
that still wait in the focused widget's queue: Enter on the games list once opened the game
the cursor was on before the arrows moved it, and ctrl+s on the new-game form created the game
before the last letters typed reached their field. (The pick lists' case is in
`tests.tui.test_pick_typeahead`.)
"""

from __future__ import annotations

from typing import Any

import pytest
from textual import events
from textual.widgets import DataTable, Input, Select

from tests.saves.conftest import Player, join_tutorial
from tests.tui.test_app import SIZE, app_for, open_game, settle, top
from tests.tui.test_new_game import open_form
from tui import typeahead
from tui.screens.game import GameScreen
from tui.screens.games import GamesScreen
from tui.typeahead import KeyOrder, TypeAhead
from tui.widgets.footer import Key, KeysFooter
from tui.widgets.hexmap import HexMap
from tui.widgets.orders import OrdersPanel


@pytest.fixture
def alice(two_homes: tuple[Player, Player]) -> Player:
    """Alice's home with two tutorial games, both read (made outside the tests' event loop:
    the mail exchange runs one of its own)."""
    alice, bob = two_homes
    for name in ("border", "second"):
        alice.replica.mark_read(join_tutorial(alice, bob, name))
    return alice


async def test_down_then_enter_in_one_burst_opens_the_game_below(alice: Player) -> None:
    app = app_for(alice)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = top(app)
        assert isinstance(screen, GamesScreen)
        table = screen.query_one(DataTable)
        assert table.row_count == 2 and table.cursor_row == 0
        below = table.coordinate_to_cell_key(table.cursor_coordinate.down()).row_key.value
        app.post_message(events.Key("down", None))
        app.post_message(events.Key("enter", "\r"))
        await settle(pilot)
        opened = top(app)
        assert isinstance(opened, GameScreen)
        assert opened.game_id == below


async def test_the_footer_still_names_enter(alice: Player) -> None:
    app = app_for(alice)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pieces, _ = app.screen.query_one(KeysFooter).shown_now()
        keys = [(p.key, p.description) for p in pieces if isinstance(p, Key)]
        assert keys[0] == ("enter", "Open"), keys


async def test_an_address_typed_with_ctrl_s_in_one_burst_is_read_whole(alice: Player) -> None:
    """The new-game form once bound ctrl+s with priority: typed right after the opponent's
    address, it read the form before the address reached its field, and refused it as
    empty (or, with part of it there, would have invited a truncated address)."""
    await create_in_one_burst(alice, [*typed("bob@example.org"), CTRL_S], name="third")
    assert invited(alice, "third") == ["bob@example.org"]


async def test_fields_typed_with_tab_between_in_one_burst_each_get_their_own(
    alice: Player,
) -> None:
    """``bob@example.org Tab third ctrl+s`` in one burst on the new-game form: Textual routes
    each key, as it reads it, to the widget focused then, so the name's letters were routed
    to the opponent's field before Tab, waiting in that field's queue, moved the focus; the
    form then invited "bob@example.orgthird" (`tui.typeahead.KeyOrder` hands a key on only
    once the key before it is handled)."""
    keys = [*typed("bob@example.org"), ("tab", "\t"), *typed("third"), CTRL_S]
    await create_in_one_burst(alice, keys)
    assert invited(alice, "third") == ["bob@example.org"]


CTRL_S = ("ctrl+s", None)


def typed(text: str) -> list[tuple[str, str | None]]:
    return [(char, char) for char in text]


async def create_in_one_burst(
    alice: Player, keys: list[tuple[str, str | None]], name: str = ""
) -> None:
    """The new-game form for the tutorial (named ``name`` if given), the opponent's field
    focused, then ``keys`` posted at once (as a burst arrives); the form must have closed."""
    app = app_for(alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_form(pilot)
        screen.query_one("#scenario", Select).value = "tutorial"
        await settle(pilot)
        if name:
            screen.query_one("#name", Input).value = name
        screen.query_one("#opponent", Input).focus()
        await pilot.pause()
        for key, char in keys:
            app.post_message(events.Key(key, char))
        await settle(pilot)
        assert isinstance(top(app), GamesScreen), screen.query_one("#opponent", Input).value


def invited(alice: Player, name: str) -> list[str]:
    """The addresses the game ``name`` invited."""
    (game,) = [g for g in alice.replica.games() if g.name == name]
    core = alice.replica.state(game.game_id).core
    return [s.address for s in core.seats if s.seat != game.my_seat]


async def test_a_hex_typed_after_g_in_one_burst_goes_to_the_go_to_dialog(
    alice: Player,
) -> None:
    """``g 1 1 0 5 Enter`` in one burst: the digits were routed to the map before the go-to
    dialog opened, and were lost (`tui.typeahead` reads them again for the dialog)."""
    app = app_for(alice)
    async with app.run_test(size=SIZE) as pilot:
        game = await open_game(pilot)
        hexmap = game.query_one(HexMap)
        assert hexmap.has_focus and hexmap.cursor != 1105
        for key in ("g", "1", "1", "0", "5"):
            app.post_message(events.Key(key, key))
        app.post_message(events.Key("enter", "\r"))
        await settle(pilot)
        assert top(app) is game, "the dialog took the hex and closed"
        assert hexmap.cursor == 1105


def test_typeahead_reads_again_only_keys_routed_on_another_screen() -> None:
    first, second = object(), object()
    typed = TypeAhead()
    keys = [events.Key(str(n % 10), str(n % 10)) for n in range(typeahead.LIMIT + 1)]
    for key in keys:
        typed.routed(key, first)
    assert not typed.typed_for_another(keys[0], second)  # forgotten: over the limit
    assert typed.typed_for_another(keys[1], second)
    assert not typed.typed_for_another(keys[1], second)  # once only
    assert not typed.typed_for_another(keys[2], first)  # still the same screen
    assert not typed.typed_for_another(events.Key("x", "x"), second)  # never routed


def test_key_order_hands_keys_on_one_at_a_time_in_the_order_typed() -> None:
    order = KeyOrder()
    a, b, c = (events.Key(k, k) for k in "abc")
    assert not order.hold(a)  # nothing in flight: routed at once
    assert order.hold(b) and order.hold(c)  # typed while a is in flight: they wait
    following = order.handled(a)
    assert following is not None and following.key == "b" and order.in_flight is following
    assert order.handled(a) is None  # a stale word (the release timer) changes nothing
    assert not order.hold(following)  # the key handed on is routed when it is read
    last = order.handled(following)
    assert last is not None and last.key == "c"
    assert order.handled(last) is None and order.in_flight is None
    assert not order.hold(events.Key("d", "d"))  # typed alone later: routed at once


async def test_done_typed_with_the_key_that_opens_the_orders_panel(tutorial: Any) -> None:
    """``o d`` in one burst on the game screen drafts the done: ``o`` opens the orders panel
    and gives it the focus, and ``d`` is the panel's key."""
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        panel = (await open_game(pilot)).query_one(OrdersPanel)
        for key in ("o", "d"):
            app.post_message(events.Key(key, key))
        await settle(pilot)
        assert panel.check_text.startswith("legal: would be packet"), panel.check_text
