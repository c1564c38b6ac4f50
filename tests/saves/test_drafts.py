"""`saves.drafts`: a game's unsigned drafts kept between visits, never a hidden choice, and
read back as no drafts when the row is not a list of orders."""

from __future__ import annotations

from pathlib import Path

import pytest

from saves import drafts, store_drafts
from saves.store import Store

GAME = bytes(16)
OTHER = bytes([1]) * 16
MOVE = {"type": "move", "pieces": ["KZI-0001"], "to": "1105"}
NOTE = {"type": "note", "text": "hold the line"}


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "home.sqlite3")


def test_drafts_are_kept_per_game_and_survive_a_reopen(store: Store, tmp_path: Path) -> None:
    assert drafts.kept(store, GAME) == []
    assert drafts.keep(store, GAME, [MOVE, NOTE])
    assert drafts.keep(store, OTHER, [NOTE])
    assert drafts.keep(store, GAME, [NOTE, MOVE])  # the last list written wins
    store.db.close()
    again = Store(tmp_path / "home.sqlite3")
    assert drafts.kept(again, GAME) == [NOTE, MOVE]
    assert drafts.kept(again, OTHER) == [NOTE]
    drafts.forget(again, GAME)
    assert drafts.kept(again, GAME) == []
    assert drafts.kept(again, OTHER) == [NOTE]
    assert drafts.keep(again, OTHER, [])  # none left: nothing kept
    assert store_drafts.read(again, OTHER) is None


def test_a_hidden_choice_is_never_written_to_disk(store: Store) -> None:
    secret = {"type": "secret", "choice": "attack-at-dawn"}
    assert drafts.keep(store, GAME, [NOTE, secret])
    assert drafts.kept(store, GAME) == [NOTE]
    assert drafts.keep(store, GAME, [secret])
    assert store_drafts.read(store, GAME) is None  # not even an empty list
    files = [store.path, store.path.with_name(store.path.name + "-wal")]
    assert not [f for f in files if f.exists() and b"attack-at-dawn" in f.read_bytes()]


def test_drafts_too_large_are_not_kept_and_leave_no_older_list(store: Store) -> None:
    assert drafts.keep(store, GAME, [NOTE])
    huge = [{"type": "note", "text": "x" * 1000} for _ in range(drafts.MAX_BYTES // 1000 + 1)]
    assert not drafts.keep(store, GAME, huge)
    assert drafts.kept(store, GAME) == []  # the old list would come back as if current


@pytest.mark.parametrize(
    "row",
    [
        b"not json",
        b'{"type": "note"}',
        b"[" * 100_000,
        b"[1, 2]",
        b'[{"text": "no type"}]',
        b"[" + b'"x",' * (drafts.MAX_BYTES // 4) + b'"x"]',
    ],
    ids=["not-json", "an-object", "nested-deep", "numbers", "no-type", "too-large"],
)
def test_a_damaged_row_reads_as_no_drafts(store: Store, row: bytes) -> None:
    store_drafts.write(store, GAME, row)
    assert drafts.kept(store, GAME) == []


def test_the_sound_orders_of_a_mixed_row_are_read(store: Store) -> None:
    store_drafts.write(store, GAME, b'[{"type": "note", "text": "a"}, 7, {"type": 3}]')
    assert drafts.kept(store, GAME) == [{"type": "note", "text": "a"}]
