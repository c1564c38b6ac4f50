"""The app on a damaged home: a game whose stored packets no longer replay is listed with
why, and opening it says so; a database that cannot be opened is said in one line.

(The stores' side of the same damage: `tests/saves/test_damaged_snapshot.py` and
`tests/saves/test_damaged_database.py`.)
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import pytest
from textual.widgets import DataTable, Static

from mail.loopback import LoopbackNetwork
from saves.home import Home
from tests.saves.conftest import Player, create_game, play_notes, start_game
from tests.saves.test_damaged_snapshot import _break_packets
from tests.tui.test_app import SIZE, settle, status_text, top
from tui.app import HexpostApp
from tui.cli import main
from tui.screens.games import GamesScreen


class Damaged(NamedTuple):
    home: Path
    name: str
    seq: int


@pytest.fixture
def damaged(tmp_path: Path) -> Damaged:
    """Bob's home with a game whose packets no longer rebuild its lost head state (packet
    ``seq`` altered), and a good game beside it."""
    network = LoopbackNetwork()
    alice = Player(tmp_path / "alice", "Alice", "alice@example.org", network)
    bob = Player(tmp_path / "bob", "Bob", "bob@example.org", network)
    try:
        game = start_game(alice, bob)
        play_notes({"coalition": alice, "alliance": bob}, game, 6)
        create_game(bob, opponent="carol@example.org", name="other")
        seq = _break_packets(bob, game)
        return Damaged(bob.home.path, bob.row(game).name, seq)
    finally:
        alice.close()
        bob.close()


async def test_the_app_lists_an_unreadable_game_and_says_why_it_does_not_open(
    damaged: Damaged,
) -> None:
    app = HexpostApp(Home(damaged.home))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        names = [str(table.get_row_at(index)[0]) for index in range(table.row_count)]
        assert sorted(names) == sorted([damaged.name, "other"])
        table.move_cursor(row=names.index(damaged.name))
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(top(app), GamesScreen)
        assert f"packet {damaged.seq}" in status_text(app)


def test_play_on_a_database_that_cannot_be_opened_says_so_in_one_line(
    tmp_path: Path, on_terminal: None, capsys: pytest.CaptureFixture[str]
) -> None:
    home = Home(tmp_path / "home")
    home.close()
    home.db_path.parent.mkdir(parents=True, exist_ok=True)
    home.db_path.write_bytes(b"x" * 9000)
    assert main(["--home", str(home.path), "play"]) == 1
    _, err = capsys.readouterr()
    assert err.startswith(f"hexpost: the home's database {home.db_path}: file is not a database")
    assert err.count("\n") == 1


@pytest.fixture
def head_damaged(tmp_path: Path) -> Damaged:
    """Bob's home with its game's head state damaged (at packet ``seq``); the packets whole."""
    network = LoopbackNetwork()
    alice = Player(tmp_path / "alice", "Alice", "alice@example.org", network)
    bob = Player(tmp_path / "bob", "Bob", "bob@example.org", network)
    try:
        game = start_game(alice, bob)
        head = bob.row(game).head_seq
        with bob.replica.store.transaction() as db:
            db.execute(
                "UPDATE snapshots SET state = x'c1' WHERE game_id = ? AND seq = ?", (game, head)
            )
        return Damaged(bob.home.path, bob.row(game).name, head)
    finally:
        alice.close()
        bob.close()


async def test_the_app_says_what_it_rebuilt_above_the_games(head_damaged: Damaged) -> None:
    app = HexpostApp(Home(head_damaged.home))
    async with app.run_test(size=(120, 24)) as pilot:
        await settle(pilot)
        note = str(app.screen.query_one("#home-note", Static).content)
        name, seq = head_damaged.name, head_damaged.seq
        assert f"game {name}: the kept state at packet {seq} was damaged" in note
