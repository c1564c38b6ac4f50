"""`hexpost verify` reads the log a page at a time (`saves.store_games.stream_packets`), so
its memory does not grow with the game; paging must neither drop, repeat nor misplace a
packet, and a wrong stored hash on a later page is still caught."""

from __future__ import annotations

import pytest

from saves import store_games
from tests.saves.conftest import Player, play_notes


def test_pages_give_every_packet_once_in_order_with_its_hash(
    alice: Player, bob: Player, game: bytes
) -> None:
    play_notes({"coalition": alice, "alliance": bob}, game, 7)
    store = alice.replica.store
    whole = store_games.packets_between(store, game)
    hashes = dict(
        (int(seq), bytes(h))
        for seq, h in store.all("SELECT seq, state_hash FROM packets WHERE game_id = ?", (game,))
    )
    for page in (1, 2, 3, len(whole), len(whole) + 5):
        streamed = list(store_games.stream_packets(store, game, page))
        assert [(seq, data) for seq, data, _ in streamed] == whole, page
        assert all(digest == hashes[seq] for seq, _, digest in streamed)


def test_a_damaged_kept_hash_on_a_later_page_is_found_and_put_right(
    alice: Player, bob: Player, game: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    play_notes({"coalition": alice, "alliance": bob}, game, 7)
    store = alice.replica.store
    last = store_games.packets_between(store, game)[-1][0]
    with store.transaction():
        store.db.execute(
            "UPDATE packets SET state_hash = ? WHERE game_id = ? AND seq = ?",
            (bytes(32), game, last),
        )
    monkeypatch.setattr(store_games, "PAGE", 2)
    assert alice.replica.verify(game) == alice.row(game).state_hash
    assert [line for line in alice.replica.store.repairs if f"packet {last} " in line]
    kept = store.one("SELECT state_hash FROM packets WHERE game_id = ? AND seq = ?", (game, last))
    assert kept is not None and bytes(kept[0]) == alice.row(game).state_hash
