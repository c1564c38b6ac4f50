"""An archive is a file from elsewhere (a public one is made to be shared): every field it
brings besides the packets (which are checked by replaying them) is bounded and checked
before anything is stored, and a refusal names the field, with nothing stored; and
`hexpost import` reads no more of a file than an archive may hold."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from engine.core.errors import HexpostError
from saves import archive
from saves.archive import Archive, export_game, import_game
from saves.home import Home
from tests.saves.conftest import Player
from tui.services import chain


@pytest.fixture
def exported(alice: Player, bob: Player, game: bytes) -> Archive:
    return msgspec.msgpack.decode(export_game(bob.replica, game), type=Archive)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"seed_length": 1 << 63}, "seed_length"),
        ({"seed_length": (1 << 64) - 1}, "seed_length"),
        ({"seed_length": -1}, "seed_length"),
        ({"status": "won"}, "status"),
        ({"my_seat": "romulans"}, "^the archive's seat 'romulans' is not one of the game's"),
        ({"name": "x" * 10_000}, "name"),
        ({"name": "evil\x1b[2Jname"}, "name"),
    ],
)
def test_a_hostile_field_is_refused_by_name_and_nothing_is_stored(
    tmp_path: Path, exported: Archive, changes: dict[str, object], message: str
) -> None:
    data = msgspec.msgpack.encode(msgspec.structs.replace(exported, **changes))
    home = Home(tmp_path / "restore")
    try:
        replica = home.replica()
        with pytest.raises(HexpostError, match=message):
            import_game(replica, data, now="2026-12-05T00:00:00Z")
        assert replica.games() == []
        assert replica.store.one("SELECT COUNT(*) FROM packets") == (0,)
    finally:
        home.close()


def test_a_file_larger_than_an_archive_may_be_is_refused_unread(
    tmp_path: Path, exported: Archive, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command reads at most the limit and a byte: a huge file costs no more memory."""
    data = msgspec.msgpack.encode(exported)
    path = tmp_path / "game.hexpost"
    path.write_bytes(data)
    monkeypatch.setattr(archive, "MAX_ARCHIVE_SIZE", len(data) - 1)
    home = Home(tmp_path / "restore")
    try:
        with pytest.raises(HexpostError, match="larger than a game archive may be"):
            chain.import_game(home, str(path), lambda: "2026-12-05T00:00:00Z")
        assert home.replica().games() == []
        monkeypatch.setattr(archive, "MAX_ARCHIVE_SIZE", len(data))
        assert chain.import_game(home, str(path), lambda: "2026-12-05T00:00:00Z").name
    finally:
        home.close()
