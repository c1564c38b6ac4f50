"""Entropy seeds and secret choices sealed at rest under the identity key.

A seat's entropy seed (and the checkpoints cached from it) decides every value that seat will
ever put into a roll, and a committed secret choice must stay unknown until it is revealed;
whoever reads either from the store knows the game's future. So neither is written in the
clear: each row holds one sealed blob instead.

The data key is derived (HKDF-SHA256, info ``hexpost/vault/1``) from the identity's Ed25519
private key, never stored. That key is in memory exactly when this home can sign, which is
exactly when a seed or a secret is needed (signing, automatic replies, reveals), so sealing
asks for no passphrase beyond the one the key file already needs; a home whose key file is
not encrypted (``--no-passphrase``) has its seeds only as safe as that file.

A blob is ``MAGIC || nonce || ChaCha20-Poly1305(fields)``. Its associated data names the
table, game, seat and secret key of its row, so a blob copied into another row (another game,
another seat, a seed passed off as a secret) does not open. Rows written by older versions are
plain; they are still read, and `seal_plain_rows` seals them once the key is at hand. A plain
value starts with ``MAGIC`` only by chance (a 32-byte random seed or salt: 2**-64), which is
how the two kinds are told apart without a schema change.

Sealed row layout (the unused column holds ``b""``):

- ``entropy_seeds``: ``seed`` = sealed ``[seed, checkpoints]``, ``checkpoints`` = ``b""``;
- ``secrets``: ``salt`` = sealed ``[salt, choice]``, ``choice`` = ``b""``.
"""

from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING

import msgspec

from engine.core import entropy
from engine.core.crypto import aead_open
from engine.core.errors import HexpostError
from engine.core.state import AnyState
from saves import store_keys
from saves.store import Store

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

MAGIC = b"HXVAULT\x01"
"""The first bytes of every sealed blob; the last byte is the format version."""
INFO = b"hexpost/vault/1"
"""HKDF info string: keys the vault apart from every other use of the identity key."""

_NONCE_BYTES = 12
_TAG_BYTES = 16
_FIELDS = msgspec.msgpack.Decoder(tuple[bytes, bytes])

SEEDS = "entropy_seeds"
SECRETS = "secrets"


class VaultError(HexpostError):
    """A sealed seed or secret that cannot be opened: damaged, moved, or another key's."""


class VaultLocked(VaultError):
    """A sealed seed or secret is needed but the identity key is not unlocked."""


def is_sealed(value: bytes) -> bool:
    """Whether a stored value is a vault blob (else a plain value an older version wrote)."""
    return value.startswith(MAGIC)


def _data_key(key: Ed25519PrivateKey) -> ChaCha20Poly1305:
    # Imported here: reading a game (the app's first paint, `show`) imports this module but
    # opens no blob (issue 16).
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=INFO).derive(
        key.private_bytes_raw()
    )
    return ChaCha20Poly1305(derived)


def _associated(table: str, game_id: bytes, seat: str, name: str) -> bytes:
    """Which row a blob belongs to; msgpack frames each part, so no two rows share bytes."""
    return MAGIC + msgspec.msgpack.encode([table, game_id, seat, name])


def _where(table: str, game_id: bytes, seat: str, name: str) -> str:
    what = "entropy seed" if table == SEEDS else f"secret choice {name!r}"
    return f"the {what} of seat {seat} in game {game_id.hex()[:8]}"


def seal(
    key: Ed25519PrivateKey,
    table: str,
    game_id: bytes,
    seat: str,
    name: str,
    fields: tuple[bytes, bytes],
) -> bytes:
    """Seal two byte strings for the row (table, game, seat, name) with a fresh random nonce."""
    nonce = os.urandom(_NONCE_BYTES)
    plain = msgspec.msgpack.encode(list(fields))
    sealed = _data_key(key).encrypt(nonce, plain, _associated(table, game_id, seat, name))
    return MAGIC + nonce + sealed


def open_sealed(
    key: Ed25519PrivateKey | None,
    table: str,
    game_id: bytes,
    seat: str,
    name: str,
    blob: bytes,
) -> tuple[bytes, bytes]:
    """The two byte strings a blob sealed for this row holds; `VaultError` saying which row
    when it does not open (`VaultLocked` when the key is not unlocked)."""
    where = _where(table, game_id, seat, name)
    if key is None:
        raise VaultLocked(f"{where} is sealed under the identity key: unlock it (passphrase)")
    body = blob[len(MAGIC) :]
    if len(body) < _NONCE_BYTES + _TAG_BYTES:
        raise VaultError(f"{where} is damaged in this home's store (too short to open)")
    nonce, sealed = body[:_NONCE_BYTES], body[_NONCE_BYTES:]
    plain = aead_open(_data_key(key), nonce, sealed, _associated(table, game_id, seat, name))
    try:
        fields = _FIELDS.decode(plain) if plain is not None else None
    except (msgspec.DecodeError, msgspec.ValidationError):
        fields = None
    if fields is None:
        raise VaultError(
            f"{where} does not open with this identity's key: it was sealed by another key, "
            "copied from another row, or damaged"
        )
    return fields


# --- the two tables ------------------------------------------------------------------------


def read_seed(
    store: Store, key: Ed25519PrivateKey | None, game_id: bytes, seat: str
) -> tuple[bytes, int, bytes] | None:
    """``(seed, chain length, checkpoints)`` of a seat, plain or sealed; None if not kept."""
    row = store_keys.seed_row(store, game_id, seat)
    if row is None:
        return None
    seed, length, checkpoints = row
    if is_sealed(seed):
        seed, checkpoints = open_sealed(key, SEEDS, game_id, seat, "", seed)
    return seed, length, checkpoints


def write_seed(
    store: Store,
    key: Ed25519PrivateKey,
    game_id: bytes,
    seat: str,
    seed: bytes,
    length: int,
    checkpoints: bytes,
) -> None:
    """Keep a new seed with its checkpoints, sealed (in the caller's transaction)."""
    blob = seal(key, SEEDS, game_id, seat, "", (seed, checkpoints))
    store_keys.insert_seed(store, game_id, seat, blob, length)


def read_secret(
    store: Store, key: Ed25519PrivateKey | None, game_id: bytes, name: str, seat: str
) -> tuple[bytes, bytes] | None:
    """``(salt, choice)`` kept for a secret decision, plain or sealed; None if not kept."""
    row = store_keys.secret_row(store, game_id, name, seat)
    if row is None:
        return None
    salt, choice = row
    if is_sealed(salt):
        return open_sealed(key, SECRETS, game_id, seat, name, salt)
    return salt, choice


def write_secret(
    store: Store,
    key: Ed25519PrivateKey,
    game_id: bytes,
    name: str,
    seat: str,
    salt: bytes,
    choice: bytes,
) -> None:
    """Keep a committed choice and its salt, sealed (in the caller's transaction)."""
    blob = seal(key, SECRETS, game_id, seat, name, (salt, choice))
    store_keys.insert_secret(store, game_id, name, seat, blob, b"")


def seal_plain_rows(store: Store, key: Ed25519PrivateKey) -> int:
    """Seal every row an older version left in the clear; returns how many were sealed.

    Cheap when there is nothing to do (one query per table), so callers run it whenever the
    key is at hand. A row another process sealed meanwhile is left as it is (each update
    names the plain bytes it replaces). ``secure_delete`` is on while the old bytes are
    overwritten, so SQLite zeroes the space they held rather than leave them in a free part
    of a page.
    """
    plain_seeds = store_keys.seeds_not_starting_with(store, MAGIC)
    plain_secrets = store_keys.secrets_not_starting_with(store, MAGIC)
    if not plain_seeds and not plain_secrets:
        return 0
    with store_keys.secure_delete(store), store.transaction():
        for game_id, seat, seed, checkpoints in plain_seeds:
            blob = seal(key, SEEDS, bytes(game_id), str(seat), "", (seed, checkpoints))
            store_keys.replace_seed(store, bytes(game_id), str(seat), bytes(seed), blob)
        for game_id, name, seat, salt, choice in plain_secrets:
            blob = seal(key, SECRETS, bytes(game_id), str(seat), str(name), (salt, choice))
            store_keys.replace_secret(
                store, bytes(game_id), str(name), str(seat), bytes(salt), blob
            )
    return len(plain_seeds) + len(plain_secrets)


# --- drafts ----------------------------------------------------------------------------------

_STAND_IN = hashlib.sha256(b"hexpost/vault/dry-run stand-in").digest()


def draft_stand_in(state: AnyState, seat: str) -> tuple[AnyState, bytes]:
    """A state and entropy value to *draft* the seat's next packet with while its seed is
    sealed and the key is not unlocked (a dry run, say the app checking orders as they are
    typed). Never signed: the seat's last value in the copy is replaced by one a fixed
    stand-in follows, so the engine's chain check passes and nothing else changes.

    Refused when a roll waits for this seat's value: its dice would be drawn from the
    stand-in, and a preview of wrong dice is worse than none.
    """
    for roll in state.core.armed:
        if all(owner != seat for owner, _ in roll.values):
            raise VaultLocked(
                f"a roll waits for {seat}'s entropy, whose seed is sealed under the identity "
                "key: unlock it to see this draft"
            )
    kept = state.core.seat_state(seat)
    stand_in = msgspec.structs.replace(kept, entropy=entropy.chain_step(_STAND_IN))
    core = state.core.with_seat(stand_in)
    return msgspec.structs.replace(state, core=core), _STAND_IN
