"""Export and import of a whole game: a checked replay into another home, private or public."""

from __future__ import annotations

import shutil
from pathlib import Path

import msgspec
import pytest

from engine.core.entropy import canonical_choice
from engine.core.errors import HexpostError
from engine.core.owed import pending
from engine.core.state import encode_state
from engine.fe import RULESET
from mail.loopback import LoopbackNetwork
from saves import chat_messages, signature_helper
from saves.archive import Archive, export_game, import_game
from saves.home import Home
from saves.vault import is_sealed
from tests.saves.conftest import (
    CHAIN_LENGTH,
    COALITION_FORCE,
    FORCE,
    FORCE_TEXT,
    SECRET_STEP,
    Player,
    accept_join,
    create_game,
    exchange,
    now,
    owner,
    to_battle,
)


def _play_a_little(alice: Player, bob: Player, game: bytes) -> None:
    alice.replica.submit(
        game,
        [{"type": "done"}, {"type": "roll", "dice": "2d6", "purpose": "survey 505.21"}],
        now=now(),
    )
    exchange(alice, bob)  # Bob answers the roll automatically
    alice.replica.submit(game, [{"type": "note", "text": "after the roll"}], now=now())
    exchange(alice, bob)


def _seed(player: Player, game: bytes) -> bytes:
    row = player.replica.store.one("SELECT seed FROM entropy_seeds WHERE game_id = ?", (game,))
    assert row is not None
    return bytes(row[0])


def test_export_import_into_another_home_verifies_the_same(
    tmp_path: Path, alice: Player, bob: Player, game: bytes
) -> None:
    _play_a_little(alice, bob, game)
    private = export_game(bob.replica, game)
    public = export_game(bob.replica, game, public=True)

    archive = msgspec.msgpack.decode(private, type=Archive)
    assert archive.seed == _seed(bob, game)
    assert archive.seed_length > 0
    assert (archive.my_seat, archive.status) == ("alliance", "active")
    assert archive.packets == [data for _, data in bob.replica.packets(game)]
    shown = msgspec.msgpack.decode(public, type=Archive)
    assert (shown.seed, shown.seed_length, shown.secrets) == (b"", 0, [])
    assert _seed(bob, game) not in public
    assert shown.packets == archive.packets

    for label, data in (("private", private), ("public", public)):
        home = Home(tmp_path / "elsewhere" / label)
        try:
            replica = home.replica()
            assert replica.games() == []
            row = import_game(replica, data, now=now())
            assert row.game_id == game
            assert (row.my_seat, row.status, row.head_seq) == (
                "alliance",
                "active",
                bob.row(game).head_seq,
            )
            assert row.state_hash == bob.row(game).state_hash
            assert replica.verify(game) == bob.replica.verify(game) == alice.replica.verify(game)
            assert encode_state(replica.state(game)) == encode_state(bob.replica.state(game))
            assert replica.events(game) == bob.replica.events(game)
            with pytest.raises(HexpostError, match=r"^game [0-9a-f]{12} is already in this home$"):
                import_game(replica, data, now=now())
            assert len(replica.games()) == 1
            assert replica.packets(game) == bob.replica.packets(game)
            seeds = replica.store.all("SELECT seed FROM entropy_seeds")
            assert seeds == ([] if label == "public" else [(_seed(bob, game),)])
        finally:
            home.close()


OTHER_FILE = r"^not a game file `hexpost export` writes: another kind of file$"


@pytest.mark.parametrize("helper", [False, True], ids=["in-process", "helper"])
def test_corrupted_archives_are_refused_with_a_clear_message(
    tmp_path: Path,
    alice: Player,
    bob: Player,
    game: bytes,
    helper: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same refusals whether the signatures are checked by the import itself or by a
    helper process beside it (`saves.signature_helper`)."""
    monkeypatch.setattr(signature_helper, "wanted", lambda packets: helper)
    _play_a_little(alice, bob, game)
    data = export_game(bob.replica, game)
    archive = msgspec.msgpack.decode(data, type=Archive)
    packets = archive.packets
    flipped = bytearray(packets[2])
    flipped[len(flipped) // 2] ^= 0x01

    def variant(**changes: object) -> bytes:
        return msgspec.msgpack.encode(msgspec.structs.replace(archive, **changes))

    cases = [
        (
            b"not an archive at all",
            r"^not a game file `hexpost export` writes: another kind of file$",
        ),
        (b'{"orders": []}', r"^not a game file `hexpost export` writes: another kind of file$"),
        (data[: len(data) // 2], r"^a game file cut short \(it ends too soon: copied in part\?\)$"),
        (
            variant(packets="many"),
            r"^a damaged game file: Expected `array`, got `str` - at `\$\.packets`$",
        ),
        (variant(format="something-else"), r"unsupported archive something-else version \d+$"),
        (variant(format="other", version=99), "unsupported archive other version 99$"),
        (variant(version=99), "unsupported archive .* version 99: a newer hexpost wrote it: upd"),
        (variant(packets=[]), "holds no packets"),
        (variant(packets=packets[1:]), "archive packet 0: .*does not start with a genesis"),
        (
            variant(packets=[*packets[:2], bytes(flipped), *packets[3:]]),
            "archive packet 2: bad signature",
        ),
        (
            variant(packets=[*packets[:2], packets[3], packets[2], *packets[4:]]),
            "archive packet 2: packet 3 does not follow packet 1",
        ),
        (variant(packets=[packets[0], packets[0]]), "archive packet 1: a second genesis"),
    ]
    home = Home(tmp_path / "restore")
    try:
        replica = home.replica()
        for corrupt, message in cases:
            with pytest.raises(HexpostError, match=message):
                import_game(replica, corrupt, now=now())
            assert replica.games() == []
            assert replica.store.one("SELECT COUNT(*) FROM packets") == (0,)
        # The genuine archive still imports afterwards.
        assert import_game(replica, data, now=now()).game_id == game
        assert replica.verify(game) == bob.replica.verify(game)
    finally:
        home.close()


def test_a_private_archive_moves_a_game_with_an_open_secret_to_another_machine(
    tmp_path: Path, network: LoopbackNetwork, game: bytes, players: dict[str, Player]
) -> None:
    to_battle(players, game)
    first, second = owner(players, game)
    first.replica.submit(game, [{"type": "secret", "choice": FORCE}], now=now())
    exchange(first, second)

    private = export_game(first.replica, game)
    public = export_game(first.replica, game, public=True)
    kept = msgspec.msgpack.decode(private, type=Archive).secrets
    assert [is_sealed(secret.salt) for secret in kept] == [True], "it travels, sealed"
    choice = canonical_choice(FORCE)
    assert choice not in private, "a mislaid archive does not tell the choice"
    assert choice not in public
    assert msgspec.msgpack.decode(public, type=Archive).secrets == []

    # The same player's key on a new machine: copy the key file, import the private archive.
    moved_path = tmp_path / "new-machine"
    moved_path.mkdir(mode=0o700)
    shutil.copy2(first.home.key_path, moved_path / "identity.key")
    moved = Player(moved_path, "Moved", first.address, network)
    spectator = Player(tmp_path / "public-copy", "Spectator", "eve@example.org", network)
    try:
        assert moved.public_key == first.public_key
        import_game(moved.replica, private, now=now())
        import_game(spectator.replica, public, now=now())
        with pytest.raises(HexpostError, match="this copy shows the game, it cannot play in it"):
            spectator.replica.submit(game, [{"type": "note", "text": "x"}], now=now())
        # The private archive in a home of another key: its sealed seed does not open there,
        # and the refusal says why in the same words, not as a damaged seed.
        other = Player(tmp_path / "private-copy", "Eve", "eve@example.org", network)
        try:
            import_game(other.replica, private, now=now())
            with pytest.raises(HexpostError, match="this copy shows the game, it cannot play"):
                other.replica.submit(game, [{"type": "note", "text": "x"}], now=now())
        finally:
            other.close()
        first.close()

        two = second.replica.submit(
            game, [{"type": "secret", "choice": COALITION_FORCE}], now=now()
        )
        exchange(second, moved)  # the moved home reveals the imported secret by itself
        assert second.row(game).head_seq == two.seq + 1
        assert moved.row(game).head_seq == two.seq + 1
        text = " ".join(e.text for _, e in second.replica.events(game) if e.step == SECRET_STEP)
        assert FORCE_TEXT in text
        assert pending(RULESET, second.replica.state(game))[0].step != SECRET_STEP
        assert moved.replica.verify(game) == second.replica.verify(game)
    finally:
        moved.close()
        spectator.close()


def test_an_imported_game_this_home_cannot_sign_for_never_blocks_its_sync(
    tmp_path: Path, network: LoopbackNetwork, alice: Player, bob: Player, joined: bytes
) -> None:
    """Carol reviews Bob's game from his public archive while her own game goes on."""
    game = joined
    carol = Player(tmp_path / "carol", "Carol", "carol@example.org", network)
    try:
        own = create_game(alice, opponent="carol@example.org", name="carol's")
        exchange(alice, carol)
        carol.replica.accept(own, now=now(), chain_length=CHAIN_LENGTH)
        exchange(carol, alice)
        accept_join(alice, carol, own)
        for game_id in (own, game):  # in both games the other seat now owes dice entropy
            alice.replica.submit(
                game_id, [{"type": "roll", "dice": "1d6", "purpose": "test"}], now=now()
            )
        alice.sync()
        bob.replica.receive(alice.packet(game, 2), source="t", now=now())
        assert bob.replica.pending(game)[0].seats == ("alliance",)

        reviewed = import_game(
            carol.replica, export_game(bob.replica, game, public=True), now=now()
        )
        assert reviewed.my_seat == "alliance"
        report = carol.sync()  # must neither sign for Bob nor give up on Carol's own game
        assert report.failed == []
        assert report.sent == [3]
        assert carol.row(own).head_seq == 3
        assert carol.row(game).head_seq == 2
        assert carol.count("outbox", game) == 0

        bob.sync()  # Bob answers his roll; Carol's reviewing copy follows the game
        carol.sync()
        assert carol.row(game).head_seq == bob.row(game).head_seq == 3
        assert carol.replica.verify(game) == bob.replica.verify(game)
    finally:
        carol.close()


def test_a_private_archive_carries_the_chat_messages_and_a_forged_one_is_refused(
    tmp_path: Path, alice: Player, bob: Player, game: bytes
) -> None:
    _play_a_little(alice, bob, game)
    chat_messages.write(alice.replica, game, "Your move, take your time.", now())
    exchange(alice, bob)
    chat_messages.write(bob.replica, game, "Thanks, tomorrow.", now())
    kept = [(m.body.seat, m.body.seq, m.body.text) for m in _chats(bob, game)]
    assert len(kept) == 2

    private = export_game(bob.replica, game)
    public = export_game(bob.replica, game, public=True)
    assert len(msgspec.msgpack.decode(private, type=Archive).chats) == 2
    assert msgspec.msgpack.decode(public, type=Archive).chats == []  # words between players

    home = Home(tmp_path / "moved")
    try:
        import_game(home.replica(), private, now=now())
        moved = [(m.body.seat, m.body.seq, m.body.text) for m in _chats_of(home, game)]
        assert moved == kept
    finally:
        home.close()

    archive = msgspec.msgpack.decode(private, type=Archive)
    altered = bytearray(archive.chats[0])
    altered[-1] ^= 1  # the signature no longer matches
    forged = msgspec.msgpack.encode(
        msgspec.structs.replace(archive, chats=[bytes(altered), archive.chats[1]])
    )
    other = Home(tmp_path / "forged")
    try:
        with pytest.raises(HexpostError, match="archive chat message 0"):
            import_game(other.replica(), forged, now=now())
        assert other.replica().games() == []  # nothing of the game is kept
    finally:
        other.close()


def _chats(player: Player, game: bytes) -> list[chat_messages.ChatRow]:
    return chat_messages.messages_of(player.replica.store, game)


def _chats_of(home: Home, game: bytes) -> list[chat_messages.ChatRow]:
    return chat_messages.messages_of(home.replica().store, game)
