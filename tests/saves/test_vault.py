"""Seeds and secret choices at rest: sealed under the identity key, never in the store's bytes.

The attacker here reads (or edits) the home's SQLite file without the identity key: a backup,
a synced folder, a stolen laptop's disk image. The seed (and the checkpoints cached from it)
would tell every future die roll; an unrevealed choice would tell the other seat what it must
not know yet.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from engine.core import entropy
from engine.core.errors import HexpostError
from mail.loopback import LoopbackNetwork
from saves import vault
from saves.archive import SEALED_VERSION, Archive, export_game, import_game
from saves.home import Home
from saves.keys import generate_identity
from tests.saves.conftest import (
    CHAIN_LENGTH,
    COALITION_FORCE,
    FORCE,
    FORCE_TEXT,
    SECRET_STEP,
    Player,
    create_game,
    exchange,
    kept_secret,
    now,
    owner,
    seed_chain,
    to_battle,
)

CHOICE = FORCE
"""The alliance's carrier group at 5-3C of the battle `to_battle` plays to (515.15)."""
CHOICE_JSON = json.dumps(CHOICE).encode()


def _disk_bytes(player: Player) -> bytes:
    """Everything the home's store holds on disk, after its WAL is folded back."""
    player.home.close()
    db = player.home.db_path
    data = b"".join(
        path.read_bytes()
        for path in (db, Path(f"{db}-wal"), Path(f"{db}-journal"))
        if path.exists()
    )
    player.replica = player.home.replica(unlock=True)
    return data


def _secret_material(player: Player, game: bytes, seat: str) -> dict[str, bytes]:
    """The bytes that must never be on disk in the clear: seed, unrevealed checkpoints."""
    chain = seed_chain(player, game, seat)
    found = vault.read_seed(player.replica.store, player.key, game, seat)
    assert found is not None
    seed, _, checkpoints = found
    assert seed == chain.checkpoints()[-32:], "the last checkpoint is the seed itself"
    # Checkpoint 0 is the anchor, published in the genesis or join: the others are secret.
    hidden = {f"checkpoint {i}": checkpoints[i * 32 : (i + 1) * 32] for i in range(1, 3)}
    return {"seed": seed, **hidden}


def test_the_store_file_holds_no_seed_checkpoint_salt_or_choice(
    game: bytes, players: dict[str, Player]
) -> None:
    to_battle(players, game)
    first, second = owner(players, game)
    first.replica.submit(game, [{"type": "secret", "choice": CHOICE}], now=now())
    exchange(first, second)  # committed, not revealed: the other seat has not chosen yet

    name, _, salt, choice = kept_secret(first, game)
    assert choice == entropy.canonical_choice(CHOICE)
    for player in (first, second):
        seat_of = player.row(game).my_seat
        hidden = _secret_material(player, game, seat_of)
        if player is first:
            hidden |= {"salt": salt, "choice": choice, "choice text": CHOICE_JSON}
        disk = _disk_bytes(player)
        for what, value in hidden.items():
            assert value not in disk, f"{player.name}'s store holds the {what} in the clear"
    rows = first.replica.store.all("SELECT salt, choice FROM secrets WHERE key = ?", (name,))
    assert [(vault.is_sealed(bytes(s)), bytes(c)) for s, c in rows] == [(True, b"")]


def test_a_sealed_blob_moved_to_another_row_does_not_open(
    alice: Player, bob: Player, game: bytes
) -> None:
    """Someone who can write the store swaps seeds between games (or between seats): the
    blob is bound to its row, so the swap is refused by name rather than used."""
    other = create_game(alice, name="other")
    exchange(alice, bob)
    bob.replica.accept(other, now=now(), chain_length=CHAIN_LENGTH)
    exchange(bob, alice)
    store = bob.replica.store
    blob = store.one("SELECT seed FROM entropy_seeds WHERE game_id = ?", (game,))
    assert blob is not None and vault.is_sealed(bytes(blob[0]))
    store.db.execute("UPDATE entropy_seeds SET seed = ? WHERE game_id = ?", (blob[0], other))
    bob.reopen()  # nothing cached: the chain comes from the store

    with pytest.raises(vault.VaultError, match=f"game {other.hex()[:8]}.* does not open"):
        bob.replica.submit(other, [{"type": "note", "text": "hi"}], now=now())
    store = bob.replica.store
    with pytest.raises(vault.VaultError, match="copied from another row"):
        vault.read_seed(store, bob.key, other, "alliance")
    assert vault.read_seed(store, bob.key, game, "alliance") is not None, "its own row opens"


@pytest.mark.parametrize(
    "where",
    [
        (vault.SEEDS, bytes(16), "alliance", ""),  # another game
        (vault.SEEDS, bytes(range(16)), "coalition", ""),  # another seat
        (vault.SECRETS, bytes(range(16)), "alliance", ""),  # a seed passed off as a secret
    ],
)
def test_a_blob_opens_only_for_its_own_row_and_key(where: tuple[str, bytes, str, str]) -> None:
    key = generate_identity()
    row = (vault.SEEDS, bytes(range(16)), "alliance", "")
    blob = vault.seal(key, *row, (b"seed" * 8, b"checkpoints"))
    assert vault.open_sealed(key, *row, blob) == (b"seed" * 8, b"checkpoints")
    with pytest.raises(vault.VaultError, match="does not open with this identity's key"):
        vault.open_sealed(key, *where, blob)
    with pytest.raises(vault.VaultError, match="does not open"):
        vault.open_sealed(generate_identity(), *row, blob)
    damaged = bytearray(blob)
    damaged[-1] ^= 1
    with pytest.raises(vault.VaultError, match="damaged"):
        vault.open_sealed(key, *row, bytes(damaged))
    with pytest.raises(vault.VaultLocked, match="unlock"):
        vault.open_sealed(None, *row, blob)
    with pytest.raises(vault.VaultError, match="too short"):
        vault.open_sealed(key, *row, vault.MAGIC + b"x")


def _make_plain(player: Player, game: bytes) -> tuple[bytes, bytes]:
    """Rewrite a home's rows as an older version kept them (in the clear); the plain seed
    and the plain choice (b"" when no secret is kept)."""
    store = player.replica.store
    seat = player.row(game).my_seat
    found = vault.read_seed(store, player.key, game, seat)
    assert found is not None
    seed, _, checkpoints = found
    choice = b""
    with store.transaction() as db:
        db.execute(
            "UPDATE entropy_seeds SET seed = ?, checkpoints = ? WHERE game_id = ?",
            (seed, checkpoints, game),
        )
        for (name,) in store.all("SELECT key FROM secrets WHERE game_id = ?", (game,)):
            kept = vault.read_secret(store, player.key, game, str(name), seat)
            assert kept is not None
            choice = kept[1]
            db.execute(
                "UPDATE secrets SET salt = ?, choice = ? WHERE game_id = ? AND key = ?",
                (*kept, game, name),
            )
    return seed, choice


def _sealed_rows(player: Player) -> list[bool]:
    store = player.replica.store
    seeds = store.all("SELECT seed FROM entropy_seeds")
    secrets = store.all("SELECT salt FROM secrets")
    return [vault.is_sealed(bytes(value)) for (value,) in seeds + secrets]


def test_an_older_homes_plain_seed_still_works_and_is_sealed_when_it_next_signs(
    alice: Player, bob: Player, game: bytes
) -> None:
    seed, _ = _make_plain(bob, game)
    assert _sealed_rows(bob) == [False]
    reader = bob.home.replica()  # no key: a plain row is read as it is
    found = vault.read_seed(reader.store, None, game, "alliance")
    assert found is not None and found[0] == seed

    bob.reopen()
    alice.replica.submit(
        game, [{"type": "done"}, {"type": "roll", "dice": "2d6", "purpose": "x"}], now=now()
    )
    alice.sync()
    report = bob.sync()  # answers the roll from the plain seed, and seals it
    assert len(report.sent) == 1 and report.problems == []
    assert _sealed_rows(bob) == [True]
    assert seed not in _disk_bytes(bob), "the plain seed's old bytes are gone from the file"
    alice.sync()
    assert alice.replica.verify(game) == bob.replica.verify(game)


def test_an_older_homes_plain_secret_is_revealed_and_sealed(
    game: bytes, players: dict[str, Player]
) -> None:
    to_battle(players, game)
    first, second = owner(players, game)
    first.replica.submit(game, [{"type": "secret", "choice": CHOICE}], now=now())
    exchange(first, second)
    _, choice = _make_plain(first, game)
    assert choice == entropy.canonical_choice(CHOICE)
    first.reopen()
    assert _sealed_rows(first) == [False, False]  # its seed, its choice

    second.replica.submit(game, [{"type": "secret", "choice": COALITION_FORCE}], now=now())
    second.sync()
    report = first.sync()  # the automatic reveal reads the plain choice, then it is sealed
    assert report.problems == [] and len(report.sent) == 1
    assert _sealed_rows(first) == [True, True]
    second.sync()
    text = " ".join(e.text for _, e in second.replica.events(game) if e.step == SECRET_STEP)
    assert FORCE_TEXT in text
    assert first.replica.verify(game) == second.replica.verify(game)


def test_sealed_seeds_answer_rolls_after_the_home_is_reopened(
    alice: Player, bob: Player, game: bytes
) -> None:
    """Nothing cached in memory: every automatic reply opens the sealed seed from disk."""
    for round_ in range(2):
        alice.replica.submit(
            game,
            [{"type": "done"}, {"type": "roll", "dice": "1d6", "purpose": f"r{round_}"}],
            now=now(),
        )
        alice.sync()
        bob.reopen()
        assert len(bob.sync().sent) == 1
        alice.sync()
    assert alice.replica.verify(game) == bob.replica.verify(game)
    assert _sealed_rows(bob) == [True]


def test_a_dry_run_without_the_key_still_checks_orders(
    game: bytes, players: dict[str, Player]
) -> None:
    """The app checks orders as they are typed, before any passphrase: the sealed seed's
    value is replaced by a stand-in for the draft, and nothing is signed."""
    player, _ = owner(players, game)
    reader = player.home.replica()
    reader.identity = player.home.identity()
    items = [{"type": "note", "text": "a plan"}]
    queued = player.count("outbox", game)
    draft = reader.submit(game, items, now=now(), dry_run=True)
    real = player.replica.submit(game, items, now=now(), dry_run=True)
    assert (draft.seq, [e.text for e in draft.events]) == (real.seq, [e.text for e in real.events])
    assert player.count("outbox", game) == queued
    with pytest.raises(HexpostError, match="sealed under the identity key: unlock it"):
        reader.submit(game, items, now=now())


def test_a_roll_waiting_on_a_sealed_seed_is_not_previewed_from_a_stand_in(
    alice: Player, bob: Player, game: bytes
) -> None:
    alice.replica.submit(
        game, [{"type": "done"}, {"type": "roll", "dice": "2d6", "purpose": "x"}], now=now()
    )
    alice.sync()
    bob.replica.receive(alice.packet(game, bob.row(game).head_seq + 1), source="t", now=now())
    with pytest.raises(vault.VaultLocked, match="a roll waits for alliance's entropy"):
        vault.draft_stand_in(bob.replica.state(game), "alliance")


def test_a_private_archive_keeps_them_sealed_and_another_key_cannot_use_them(
    tmp_path: Path, network: LoopbackNetwork, alice: Player, bob: Player, game: bytes
) -> None:
    data = export_game(bob.replica, game)
    archive = msgspec.msgpack.decode(data, type=Archive)
    assert archive.version == SEALED_VERSION and vault.is_sealed(archive.seed)
    seed = vault.read_seed(bob.replica.store, bob.key, game, "alliance")
    assert seed is not None and seed[0] not in data

    stranger = Player(tmp_path / "stranger", "Mallory", "bob@example.org", network)
    try:
        import_game(stranger.replica, data, now=now())
        with pytest.raises(vault.VaultError, match="does not open with this identity's key"):
            vault.read_seed(stranger.replica.store, stranger.key, game, "alliance")
        # Signing says first that the seat is another key's (`saves.seat_key`).
        with pytest.raises(HexpostError, match="this copy shows the game, it cannot play in it"):
            stranger.replica.submit(game, [{"type": "note", "text": "x"}], now=now())
    finally:
        stranger.close()


def test_a_home_without_a_passphrase_seals_too(tmp_path: Path) -> None:
    """The vault key comes from the identity key, present whenever this home can sign; with
    --no-passphrase it is only as safe as the key file (`hexpost identity show` says so)."""
    home = Home(tmp_path / "plain")
    try:
        info = home.create_identity("Pat", "pat@example.org", None, scrypt_n=2)
        assert not info.encrypted
        replica = home.replica(unlock=True)
        from engine.fe import RULESET

        game = replica.create(
            RULESET, "the-wind", "coalition", "x@example.org", now=now(), chain_length=1024
        )
        row = replica.store.one("SELECT seed FROM entropy_seeds WHERE game_id = ?", (game,))
        assert row is not None and vault.is_sealed(bytes(row[0]))
    finally:
        home.close()
