"""Identity key files: a player's Ed25519 signing key, sealed at rest under a passphrase.

Whoever holds the private key can sign moves in the player's name, so the file is encrypted
(scrypt, then ChaCha20-Poly1305) unless the user explicitly chose not to, is created with mode
0600 from its first byte, is never overwritten, and is refused when others can read it, as ssh
does. The name, address and public key stay in the clear so a key can be listed and shown
without asking for the passphrase.

The cipher and scrypt are imported by `_sealing_cipher`, when a key is sealed or unlocked:
every command and the app import this module to read a key file's clear part, and opening a
game needs neither (issue 16).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from engine.core.crypto import aead_open, new_private_key, private_key_from_raw
from engine.core.errors import HexpostError, newer_version
from saves.files import fsync_directory, write_synced

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

FORMAT = "hexpost-identity-key"
VERSION = 1
DEFAULT_SCRYPT_N = 2**15
"""scrypt CPU/memory cost: about 32 MiB and a tenth of a second per unlock."""
SCRYPT_R = 8
SCRYPT_P = 1
MAX_SCRYPT_MEMORY = 256 * 1024 * 1024
"""A key file asking for more scrypt memory than this is refused rather than obeyed."""
MAX_KEY_FILE_BYTES = 64 * 1024

_CIPHER = "chacha20-poly1305"
_SALT_BYTES = 16
_NONCE_BYTES = 12
_KEY_BYTES = 32
_TAG_BYTES = 16
_ASSOCIATED_PREFIX = f"{FORMAT}/{VERSION}:".encode()


class KeyFileError(HexpostError):
    """A key file that cannot be written, read, unlocked or trusted."""


class KeyFileInfo(msgspec.Struct, frozen=True):
    """What a key file says about itself without its passphrase."""

    public_key: bytes
    """The raw 32-byte Ed25519 public key."""
    name: str
    address: str
    encrypted: bool


class Identity(msgspec.Struct, frozen=True):
    """Who a home plays as. ``key`` is None when only the public part is loaded (no passphrase
    asked), which is enough to read games but not to sign."""

    name: str
    address: str
    public_key: bytes
    key: Ed25519PrivateKey | None = None


class KdfParams(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """How the passphrase was stretched into the sealing key."""

    name: str
    n: int
    r: int
    p: int
    salt: bytes


class CipherParams(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """How the private key was sealed."""

    name: str
    nonce: bytes


class _Header(msgspec.Struct, frozen=True):
    """The first fields read, so a newer version is told apart from a foreign file."""

    format: str
    version: int


class _KeyFileDoc(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The JSON document on disk; bytes fields are base64."""

    format: str
    version: int
    name: str
    address: str
    public_key: bytes
    kdf: KdfParams | None
    """None only when the user explicitly chose to store the key unencrypted."""
    cipher: CipherParams | None
    private_key: bytes
    """The sealed raw private key (48 bytes), or the raw private key (32 bytes) when kdf is None."""


def generate_identity() -> Ed25519PrivateKey:
    """A new identity key from the operating system's random source."""
    return new_private_key()


def _public_bytes(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes_raw()


def _sealing_cipher(passphrase: bytes, kdf: KdfParams) -> ChaCha20Poly1305:
    """The cipher under the key scrypt derives from ``passphrase`` with ``kdf``."""
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

    key = Scrypt(salt=kdf.salt, length=_KEY_BYTES, n=kdf.n, r=kdf.r, p=kdf.p).derive(passphrase)
    return ChaCha20Poly1305(key)


def _associated_data(public_key: bytes) -> bytes:
    """Binds the sealed key to its public key, so neither can be swapped for another's."""
    return _ASSOCIATED_PREFIX + public_key


def _build(
    key: Ed25519PrivateKey, passphrase: bytes | None, name: str, address: str, scrypt_n: int
) -> _KeyFileDoc:
    public = _public_bytes(key)
    private = key.private_bytes_raw()
    if passphrase is None:
        return _KeyFileDoc(FORMAT, VERSION, name, address, public, None, None, private)
    # os.urandom is what secrets.token_bytes returns; the secrets module (and the hmac it
    # imports) cost every start-up a million instructions for these two calls (issue 16).
    kdf = KdfParams("scrypt", scrypt_n, SCRYPT_R, SCRYPT_P, os.urandom(_SALT_BYTES))
    cipher = CipherParams(_CIPHER, os.urandom(_NONCE_BYTES))
    sealed = _sealing_cipher(passphrase, kdf).encrypt(
        cipher.nonce, private, _associated_data(public)
    )
    return _KeyFileDoc(FORMAT, VERSION, name, address, public, kdf, cipher, sealed)


def write_key_file(
    path: Path,
    key: Ed25519PrivateKey,
    passphrase: bytes | None,
    *,
    name: str,
    address: str,
    scrypt_n: int = DEFAULT_SCRYPT_N,
) -> None:
    """Write a new key file; `passphrase=None` means the user explicitly chose no encryption.

    `scrypt_n` exists so tests can use a cheap cost; real callers keep the default. The file
    is written to a 0600 temp file, fsynced, then linked into place, which fails rather than
    overwrite an existing key.
    """
    if passphrase == b"":
        raise KeyFileError(
            "an empty passphrase protects nothing: choose one, or store the key unencrypted"
        )
    if scrypt_n < 2 or scrypt_n & (scrypt_n - 1):
        raise ValueError(f"scrypt_n must be a power of two of at least 2, not {scrypt_n}")
    if os.path.lexists(path):
        raise KeyFileError(f"key file {path} already exists: refusing to overwrite it")
    doc = _build(key, passphrase, name, address, scrypt_n)
    data = msgspec.json.format(msgspec.json.encode(doc), indent=2) + b"\n"
    try:
        _write_new_private_file(path, data)
    except FileExistsError as exc:
        raise KeyFileError(f"key file {path} already exists: refusing to overwrite it") from exc
    except OSError as exc:
        raise KeyFileError(f"cannot write key file {path}: {exc.strerror or exc}") from exc


def _write_new_private_file(path: Path, data: bytes) -> None:
    """Create `path` holding `data`, mode 0600 from the start, atomically, never overwriting.

    Raises FileExistsError if `path` appeared meanwhile. A hard link is the portable atomic
    rename that refuses to replace; without hard links we check and then rename.
    """
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.urandom(8).hex()}.tmp")
    try:
        write_synced(temp, data, 0o600, exact_mode=True)
        try:
            os.link(temp, path)
        except FileExistsError:
            raise
        except OSError:
            if os.path.lexists(path):
                raise FileExistsError(path) from None
            os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)
    fsync_directory(path.parent)


def _read_bytes(path: Path, *, private: bool) -> bytes:
    """The file's bytes; with `private`, refuse it when group or others have any access."""
    try:
        with open(path, "rb") as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise KeyFileError(f"key file {path} is not a hexpost key file")
            if private:
                _check_private_mode(path, info.st_mode)
            data = f.read(MAX_KEY_FILE_BYTES + 1)
    except FileNotFoundError as exc:
        raise KeyFileError(f"key file {path} does not exist") from exc
    except OSError as exc:
        raise KeyFileError(f"cannot read key file {path}: {exc.strerror or exc}") from exc
    if len(data) > MAX_KEY_FILE_BYTES:
        raise KeyFileError(f"key file {path} is not a hexpost key file")
    return data


def _check_private_mode(path: Path, mode: int) -> None:
    """Refuse a key file others can open, as ssh does (Windows has no such mode bits)."""
    if os.name == "nt" or not mode & 0o077:
        return
    bits = stat.S_IMODE(mode)
    how = "readable" if mode & 0o044 else "writable" if mode & 0o022 else "accessible"
    raise KeyFileError(
        f"key file {path} is {how} by others (mode {bits:04o}): run chmod 600 {path}"
    )


def _parse(path: Path, data: bytes) -> _KeyFileDoc:
    """Decode and sanity-check a key file, before any expensive or secret work."""
    foreign = KeyFileError(f"key file {path} is not a hexpost key file")
    try:
        header = msgspec.json.decode(data, type=_Header)
    except msgspec.DecodeError:
        raise foreign from None
    if header.format != FORMAT:
        raise foreign
    if header.version != VERSION:
        raise KeyFileError(
            f"key file {path} is version {header.version}; this hexpost reads version {VERSION}"
            + newer_version(header.version, VERSION)
        )
    try:
        doc = msgspec.json.decode(data, type=_KeyFileDoc)
    except msgspec.DecodeError:
        raise foreign from None
    if len(doc.public_key) != _KEY_BYTES or (doc.kdf is None) != (doc.cipher is None):
        raise foreign
    if doc.kdf is None:
        if len(doc.private_key) != _KEY_BYTES:
            raise foreign
    elif not _sane_seal(doc.kdf, doc.cipher, doc.private_key):
        raise KeyFileError(f"key file {path} uses encryption settings hexpost does not accept")
    return doc


def _sane_seal(kdf: KdfParams, cipher: CipherParams | None, sealed: bytes) -> bool:
    """Whether the sealing settings are ours and cheap enough to try (a file could ask for GBs)."""
    return (
        kdf.name == "scrypt"
        and kdf.n >= 2
        and not kdf.n & (kdf.n - 1)
        and kdf.r >= 1
        and 1 <= kdf.p <= 16
        and 128 * kdf.n * kdf.r <= MAX_SCRYPT_MEMORY
        and len(kdf.salt) >= _SALT_BYTES
        and cipher is not None
        and cipher.name == _CIPHER
        and len(cipher.nonce) == _NONCE_BYTES
        and len(sealed) == _KEY_BYTES + _TAG_BYTES
    )


def read_key_file(path: Path, passphrase: bytes | None) -> Ed25519PrivateKey:
    """Load and unlock an identity key, checking the file's mode and the key pair's match.

    A passphrase given for an unencrypted file is ignored. A wrong passphrase and an altered
    sealed key cannot be told apart (both fail authentication); both say "wrong passphrase".
    """
    doc = _parse(path, _read_bytes(path, private=True))
    if doc.kdf is None or doc.cipher is None:
        private = doc.private_key
    else:
        if passphrase is None:
            raise KeyFileError(f"key file {path} is encrypted: a passphrase is needed")
        opened = aead_open(
            _sealing_cipher(passphrase, doc.kdf),
            doc.cipher.nonce,
            doc.private_key,
            _associated_data(doc.public_key),
        )
        if opened is None:
            raise KeyFileError(f"wrong passphrase for key file {path}")
        private = opened
    key = private_key_from_raw(private)
    if _public_bytes(key) != doc.public_key:
        raise KeyFileError(
            f"key file {path} is damaged: its private key does not match its public key"
        )
    return key


def key_file_info(path: Path) -> KeyFileInfo:
    """The public facts of a key file, without the passphrase and without the mode check.

    Nothing returned here is secret, so listing keys works even for a file `read_key_file`
    would refuse; the name and address are not authenticated by the seal.
    """
    doc = _parse(path, _read_bytes(path, private=False))
    return KeyFileInfo(
        public_key=doc.public_key,
        name=doc.name,
        address=doc.address,
        encrypted=doc.kdf is not None,
    )
