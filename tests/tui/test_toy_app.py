"""A second ruleset played in the real app, from real homes, with no toy code outside its plug-in.

The toy duel (`tests/engine/toy.py`) is installed through its test ``.dist-info``
(`tests.toy_plugin`) and ships no client code, so the app serves it with the generic client
and the ruleset's face alone. Two real homes (loopback transport, real store) create, join and
accept a duel; North's app then lists it, opens it, draws its checklist, offers the face's
orders, signs a ``say`` written in the form, and steps through it in the review. South's home
receives the packet and owes the next step: what the app signed was a real toy order.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from engine.core.owed import pending
from mail.loopback import LoopbackNetwork
from saves.home import Home
from tests.engine.toy import TOY
from tests.saves.conftest import CHAIN_LENGTH, Player, accept_join, exchange, now
from tests.toy_plugin import toy_plugin  # noqa: F401  (a fixture)
from tui.app import HexpostApp
from tui.screens.game import GameScreen
from tui.screens.games import GamesScreen
from tui.screens.review import ReviewScreen
from tui.widgets.checklist import ChecklistTree
from tui.widgets.confirm import ConfirmDialog
from tui.widgets.order_forms import OrderForm
from tui.widgets.orders import OrdersPanel

from .test_app import SIZE, settle


def duel_homes(tmp_path: Path) -> tuple[Player, Player, bytes]:
    network = LoopbackNetwork()
    north = Player(tmp_path / "north", "North", "north@example.org", network)
    south = Player(tmp_path / "south", "South", "south@example.org", network)
    game_id = north.replica.create(
        TOY, "duel", "north", south.address, name="duel", now=now(), chain_length=CHAIN_LENGTH
    )
    north.sync()
    south.sync()
    south.replica.accept(game_id, now=now(), chain_length=CHAIN_LENGTH)
    exchange(south, north)
    accept_join(north, south, game_id)
    exchange(north, south)
    return north, south, game_id


@pytest.fixture
def duel(tmp_path: Path, toy_plugin: dict[str, str]) -> tuple[Player, Player, bytes]:  # noqa: F811
    return duel_homes(tmp_path)


def test_a_toy_duel_in_the_app(duel: tuple[Player, Player, bytes]) -> None:
    north, south, game_id = duel
    before = north.replica.game(game_id).head_seq
    asyncio.run(play_in_the_app(north.home.path, before))
    reader = Home(north.home.path).replica()
    assert reader.game(game_id).head_seq == before + 1
    events = [event.text for _, event in reader.events(game_id, before + 1)]
    assert "well met" in events
    exchange(north, south)
    decision = pending(TOY, south.replica.state(game_id))[0]
    assert (decision.step, decision.seats) == ("answer", ("south",))


async def play_in_the_app(home: Path, before: int) -> None:
    """North's app: the games list, the game, its checklist, a say signed from its form, and
    the review."""
    app = HexpostApp(Home(home))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        games = app.screen
        assert isinstance(games, GamesScreen)
        table = games.query_one(DataTable)
        cells = [str(cell) for cell in table.get_row_at(0)]
        # North owes the acceptance of South's key first, and accepted it: its next packet (the
        # say) carries it, so the list shows that move.
        assert cells[:3] == ["duel", "R1", "talk"]

        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        status = str(screen.query_one("#game-status", Static).content)
        assert "R1" in status and "step talk" in status

        await pilot.press("c")
        tree = screen.query_one(ChecklistTree)
        assert tree.display and tree.current_step == "talk"
        leaves = [str(leaf.label) for leaf in tree.root.children[0].children]
        assert [leaf[4:].split()[0] for leaf in leaves] == ["talk", "answer", "pick"]
        assert leaves[0].startswith("[>]") and leaves[1].startswith("[ ]")
        await pilot.press("c")

        await pilot.press("o")
        panel = screen.query_one(OrdersPanel)
        assert panel.orders == ["say", "roll"]
        await pilot.press("b")
        form = app.screen
        assert isinstance(form, OrderForm) and form.order == "say"
        await pilot.press(*"well met", "enter")
        await settle(pilot)
        assert panel.items == [{"type": "say", "text": "well met"}]
        assert panel.check_text.startswith(f"legal: would be packet {before + 1}")
        await pilot.press("S")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)

        await pilot.press("v")
        await settle(pilot)
        review = app.screen
        assert isinstance(review, ReviewScreen)
        await pilot.press("escape")
        await settle(pilot)


def test_a_toy_secret_pick_is_a_number_from_the_faces_menu(
    duel: tuple[Player, Player, bytes],
) -> None:
    north, south, game_id = duel
    north.replica.submit(game_id, [{"type": "say", "text": "ready"}], now=now())
    exchange(north, south)
    south.replica.submit(game_id, [{"type": "say", "text": "ready too"}], now=now())
    exchange(south, north)
    assert pending(TOY, north.replica.state(game_id))[0].step == "pick"
    drafted = asyncio.run(pick_in_the_app(north.home.path))
    assert drafted == [{"type": "secret", "choice": 1}]


async def pick_in_the_app(home: Path) -> list[dict[str, object]]:
    """North's app at the secret step: ``p`` opens the face's form, a menu of 1 to 6."""
    app = HexpostApp(Home(home))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        await pilot.press("o")
        panel = screen.query_one(OrdersPanel)
        await pilot.press("p")
        form = app.screen
        assert isinstance(form, OrderForm) and form.order == "secret"
        assert [value for _, value in form.fields[0].choices] == ["1", "2", "3", "4", "5", "6"]
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert panel.check_text.startswith("legal"), panel.check_text
        return list(panel.items)
