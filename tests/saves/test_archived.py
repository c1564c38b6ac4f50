"""Archiving a game: this home's own filing (`store_games.set_archived`), kept across a
reopen, never signed or sent, and added to a home made before it existed."""

from __future__ import annotations

from saves.store import SCHEMA_VERSION, Store
from tests.saves.conftest import Player, create_game, make_older, now


def test_archiving_is_kept_and_changes_nothing_of_the_game(alice: Player) -> None:
    game = create_game(alice)
    before = alice.snapshot(game)
    alice.replica.set_archived(game, now())
    assert alice.row(game).archived
    assert alice.snapshot(game) == before  # head, hash, log and outbox as they were
    alice.reopen()
    assert alice.row(game).archived
    alice.replica.set_archived(game, "")
    assert alice.row(game).archived == ""


def test_a_home_made_before_archiving_gets_the_column_and_keeps_its_games(
    alice: Player,
) -> None:
    game = create_game(alice, name="older")
    path = alice.replica.store.path
    alice.close()
    make_older(path, "games", "archived", 4)
    store = Store(path)
    assert "archived" in {row[1] for row in store.all("PRAGMA table_info(games)")}
    assert store.one("SELECT value FROM meta WHERE key = 'schema'") == (str(SCHEMA_VERSION),)
    store.close()
    alice.reopen()
    row = alice.row(game)
    assert (row.name, row.archived) == ("older", "")
