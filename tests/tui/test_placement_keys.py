"""The set-up placement written from the app's keys and the map (issue 15, item 9).

Before the first turn each seat places its waiting fleets: ``m`` in the orders panel offers
what the empire setting up may place, the map marks the hexes it may go to, and Enter there
drafts the ``place`` order. These tests start from the tutorial stopped before its set-up
(`in_setup`), unlike the other order keys' tests in `tests.tui.test_order_keys`, which play
from its first turn; that fixture and the placement helpers stay there, where
`tests.tui.test_kept_drafts` imports them too.
"""

from __future__ import annotations

import msgspec

from engine.core.face import ParamKind
from engine.core.owed import pending
from engine.fe import FE, RULESET
from engine.fe.face import FACE
from tests.engine.fe.helpers import at_step, fresh, run_until
from tests.engine.fe.steps.tutorial_states import SEATS
from tests.tui.test_app import SIZE, Tutorial, app_for, open_game, settle
from tests.tui.test_order_keys import in_setup, pick, place_border_guard
from tui.screens.game import GameScreen
from tui.screens.hexinfo import waiting_pieces
from tui.widgets.hexmap import HexMap
from tui.widgets.order_text import placement_items
from tui.widgets.orders import OrdersPanel
from tui.widgets.ticklist import PickDialog

__all__ = ["in_setup"]  # the fixture, used by name


async def test_set_up_placement_picks_the_fleet_then_its_hex_on_the_map(
    in_setup: Tutorial,
) -> None:
    game = in_setup
    state = game.bob.replica.state(game.game_id)
    assert pending(RULESET, state)[0].seats[0] == "alliance"
    app = app_for(game.bob)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        await pilot.press("o")
        assert "m: place, then its hex on the map" in panel.hint_text
        await pilot.press("m")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, PickDialog)
        assert "g:Border Guard" in dialog.values and "g:Strike Force" not in dialog.values
        await pick(pilot, "g:Border Guard")
        await settle(pilot)
        assert isinstance(app.focused, HexMap) and panel.building
        assert "place Border Guard: cursor to its hex" in panel.hint_text
        rules = state.rules
        assert rules is not None
        reach = FACE.destinations(rules, "alliance", "place", ("Border Guard",))
        assert reach is not None
        listed = reach.hexes
        assert "1105" in listed  # its set-up hexes, marked on the map
        hexmap = screen.query_one(HexMap)
        assert hexmap.targets == {int(h) for h in listed}
        # The cursor goes to the first hex marked (as for a hex pick): the fleet's own hexes
        # may be far from where the map was looking.
        assert hexmap.cursor == int(listed[0]), (hexmap.cursor, listed)
        assert "place: Enter on" in screen.status.text
        await pilot.press("g", *"1105", "enter")
        await pilot.press("enter")
        await settle(pilot)
        assert panel.items == [{"type": "place", "fleet": "Border Guard", "hex": "1105"}]
        assert panel.check_text.startswith("legal"), panel.check_text
        assert not panel.building and panel.has_focus
        assert screen.query_one(HexMap).targets == frozenset()  # the marks go with the hex
        assert "Enter on" not in screen.status.text  # and the line that told of them


def test_a_placement_offers_only_what_the_empire_setting_up_may_place() -> None:
    """The alliance plays KZI, HYD and FED, every one of their fleets waits off the board at
    the Kzinti set-up, and fleet names repeat across empires: the placement menu offers the
    fleets and units the place form names (the Kzinti's), each fleet with its own units, not
    every waiting piece of the seat grouped by name."""
    state = run_until(fresh(), at_step("0-KZI"))
    (place,) = [c for c in FACE.choices(state, "alliance") if c.order == "place"]
    waiting = waiting_pieces(FACE.board(state), "alliance")
    assert {i.partition("-")[0] for i, _, _ in waiting} == {"KZI", "HYD", "FED"}
    items = placement_items(place, waiting)
    values = [value for _, value, _ in items]
    fleets = next(p.options for p in place.params if p.name == "fleet")
    units = next(p.options for p in place.params if p.name == "unit")
    assert values == [f"g:{f}" for f in fleets] + [f"p:{u}" for u in units]
    home = next(label for label, value, _ in items if value == "g:Home Fleet")
    assert "KZI-" in home and "HYD-" not in home and "FED-" not in home
    # A choice whose fields list nothing offers every waiting piece (a ruleset without lists).
    bare = msgspec.structs.replace(
        place, params=tuple(msgspec.structs.replace(p, options=()) for p in place.params)
    )
    assert len(placement_items(bare, waiting)) > len(items)


async def test_a_fleet_placed_in_the_drafts_leaves_the_placement_menu(in_setup: Tutorial) -> None:
    """Once a draft places a fleet, ``m`` no longer offers it or its units (placing it again
    could only be refused); undoing the draft offers it again."""
    game = in_setup
    app = app_for(game.bob)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = await place_border_guard(pilot, screen)
        assert panel.check_text.startswith("legal"), panel.check_text
        rules = game.bob.replica.state(game.game_id).rules
        assert rules is not None
        placed = [
            p.id for p in FACE.board(rules).pieces if p.group == "Border Guard" and p.side == "KZI"
        ]
        assert placed
        await pilot.press("m")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, PickDialog)
        assert "g:Border Guard" not in dialog.values
        assert not {f"p:{p}" for p in placed} & set(dialog.values)
        await pilot.press("escape")
        await pilot.press("u")
        await settle(pilot)
        assert panel.items == []
        await pilot.press("m")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, PickDialog)
        assert "g:Border Guard" in dialog.values


async def test_a_placement_given_up_with_escape_drafts_nothing(in_setup: Tutorial) -> None:
    game = in_setup
    app = app_for(game.bob)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        await pilot.press("o", "m")
        await pilot.pause()
        await pick(pilot, "g:Border Guard")
        await pilot.press("escape")
        await settle(pilot)
        assert panel.items == [] and not panel.building
        assert isinstance(app.screen, GameScreen)  # escape ended the placement only
        assert screen.query_one(HexMap).targets == frozenset()


def test_a_placement_names_a_fleet_as_a_group() -> None:
    (place, *_) = FACE.choices(FE.initial_state("tutorial", SEATS, {}), "alliance")
    kinds = {p.name: p.kind for p in place.params}
    assert place.order == "place" and kinds["fleet"] == ParamKind.GROUP
