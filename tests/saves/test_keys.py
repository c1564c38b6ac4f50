"""Identity key files: sealing, permissions, refusal to overwrite, and refusal of bad files."""

from __future__ import annotations

import base64
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from saves.keys import (
    DEFAULT_SCRYPT_N,
    KeyFileError,
    generate_identity,
    key_file_info,
    read_key_file,
    write_key_file,
)

FAST_N = 2**4
"""A cheap scrypt cost so tests stay fast; real files use DEFAULT_SCRYPT_N."""
PASS = b"correct horse battery staple"


def public(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def write(path: Path, passphrase: bytes | None = PASS) -> Ed25519PrivateKey:
    key = generate_identity()
    write_key_file(
        path, key, passphrase, name="Alice", address="alice@example.org", scrypt_n=FAST_N
    )
    return key


def private_file(path: Path, data: bytes) -> None:
    """A file with mode 0600, so only its contents can be what is wrong with it."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def edit(path: Path, change: dict[str, Any]) -> None:
    """Rewrite fields of a key file's JSON in place, keeping its mode."""
    doc = json.loads(path.read_bytes())
    doc.update(change)
    path.write_text(json.dumps(doc))


def flip_first_byte(b64: str) -> str:
    raw = bytearray(base64.b64decode(b64))
    raw[0] ^= 1
    return base64.b64encode(bytes(raw)).decode()


def test_encrypted_round_trip(tmp_path: Path) -> None:
    key = write(tmp_path / "id.key")
    assert public(read_key_file(tmp_path / "id.key", PASS)) == public(key)


def test_plain_round_trip_ignores_a_passphrase(tmp_path: Path) -> None:
    key = write(tmp_path / "id.key", passphrase=None)
    doc = json.loads((tmp_path / "id.key").read_bytes())
    assert doc["kdf"] is None
    assert doc["cipher"] is None
    assert public(read_key_file(tmp_path / "id.key", None)) == public(key)
    assert public(read_key_file(tmp_path / "id.key", b"whatever")) == public(key)


def test_defaults_are_scrypt_2_15_and_a_fresh_salt_and_nonce(tmp_path: Path) -> None:
    key = generate_identity()
    write_key_file(tmp_path / "a.key", key, PASS, name="A", address="a@example.org")
    write_key_file(tmp_path / "b.key", key, PASS, name="A", address="a@example.org")
    a, b = (json.loads((tmp_path / n).read_bytes()) for n in ("a.key", "b.key"))
    assert (a["kdf"]["name"], a["kdf"]["n"], a["kdf"]["r"], a["kdf"]["p"]) == (
        "scrypt",
        DEFAULT_SCRYPT_N,
        8,
        1,
    )
    assert DEFAULT_SCRYPT_N == 2**15
    assert len(base64.b64decode(a["kdf"]["salt"])) == 16
    assert len(base64.b64decode(a["cipher"]["nonce"])) == 12
    assert a["kdf"]["salt"] != b["kdf"]["salt"]
    assert a["private_key"] != b["private_key"]
    assert public(read_key_file(tmp_path / "a.key", PASS)) == public(key)


def test_wrong_passphrase(tmp_path: Path) -> None:
    path = tmp_path / "id.key"
    write(path)
    with pytest.raises(KeyFileError, match=re.escape(f"wrong passphrase for key file {path}")):
        read_key_file(path, b"Tr0ub4dor&3")


def test_missing_passphrase_for_an_encrypted_file(tmp_path: Path) -> None:
    path = tmp_path / "id.key"
    write(path)
    message = f"key file {path} is encrypted: a passphrase is needed"
    with pytest.raises(KeyFileError, match=re.escape(message)):
        read_key_file(path, None)


def test_empty_passphrase_is_refused_on_write(tmp_path: Path) -> None:
    with pytest.raises(KeyFileError, match="empty passphrase"):
        write(tmp_path / "id.key", passphrase=b"")
    assert not (tmp_path / "id.key").exists()


def test_written_file_has_mode_0600_from_its_creation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    created: list[tuple[int, int]] = []
    real_open = os.open

    def spy(path: Any, flags: int, mode: int = 0o777, *args: Any, **kwargs: Any) -> int:
        if flags & os.O_CREAT:
            created.append((flags, mode))
        return real_open(path, flags, mode, *args, **kwargs)

    monkeypatch.setattr(os, "open", spy)
    old_umask = os.umask(0)
    try:
        write(tmp_path / "id.key")
    finally:
        os.umask(old_umask)

    assert created
    assert all(mode == 0o600 and flags & os.O_EXCL for flags, mode in created)
    assert (tmp_path / "id.key").stat().st_mode & 0o777 == 0o600
    assert os.listdir(tmp_path) == ["id.key"]


def test_creates_missing_parent_directories(tmp_path: Path) -> None:
    path = tmp_path / "config" / "hexpost" / "id.key"
    write(path)
    assert path.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize(
    ("mode", "how"), [(0o644, "readable"), (0o640, "readable"), (0o620, "writable")]
)
def test_files_others_can_open_are_refused(tmp_path: Path, mode: int, how: str) -> None:
    path = tmp_path / "id.key"
    write(path)
    path.chmod(mode)
    message = f"key file {path} is {how} by others (mode {mode:04o}): run chmod 600 {path}"
    with pytest.raises(KeyFileError, match=re.escape(message)):
        read_key_file(path, PASS)


def test_refuses_to_overwrite(tmp_path: Path) -> None:
    path = tmp_path / "id.key"
    first = write(path)
    before = path.read_bytes()
    with pytest.raises(KeyFileError, match="already exists"):
        write(path)
    assert path.read_bytes() == before
    assert public(read_key_file(path, PASS)) == public(first)


def test_refuses_to_overwrite_a_foreign_file(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(b"precious")
    with pytest.raises(KeyFileError, match="already exists"):
        write(path, passphrase=None)
    assert path.read_bytes() == b"precious"


def test_refuses_when_the_name_appears_during_the_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "id.key"
    real_link = os.link

    def racing_link(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
        Path(dst).write_bytes(b"the other writer")
        real_link(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "link", racing_link)
    with pytest.raises(KeyFileError, match="already exists"):
        write(path)
    assert path.read_bytes() == b"the other writer"
    assert os.listdir(tmp_path) == ["id.key"]


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\x00\x01binary garbage",
        b"-----BEGIN OPENSSH PRIVATE KEY-----\n",
        b'{"format": "something-else", "version": 1}',
        b"[1, 2, 3]",
        b'{"format": "hexpost-identity-key", "version": 1, "name": "A"}',
    ],
)
def test_foreign_files_are_not_key_files(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "id.key"
    private_file(path, content)
    message = f"key file {path} is not a hexpost key file"
    with pytest.raises(KeyFileError, match=re.escape(message)):
        read_key_file(path, PASS)
    with pytest.raises(KeyFileError, match=re.escape(message)):
        key_file_info(path)


def test_truncated_file_is_not_a_key_file(tmp_path: Path) -> None:
    whole = tmp_path / "whole.key"
    write(whole)
    cut = tmp_path / "cut.key"
    private_file(cut, whole.read_bytes()[:-40])
    with pytest.raises(KeyFileError, match="is not a hexpost key file"):
        read_key_file(cut, PASS)


def test_a_newer_version_is_named(tmp_path: Path) -> None:
    path = tmp_path / "id.key"
    write(path)
    edit(path, {"version": 2, "new_field": True})
    with pytest.raises(KeyFileError, match="version 1: a newer hexpost wrote it: update hexpost"):
        read_key_file(path, PASS)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(KeyFileError, match="does not exist"):
        read_key_file(tmp_path / "nope.key", PASS)


def test_a_directory_is_not_a_key_file(tmp_path: Path) -> None:
    with pytest.raises(KeyFileError):
        read_key_file(tmp_path, PASS)


def test_absurd_scrypt_cost_is_refused_without_running_it(tmp_path: Path) -> None:
    path = tmp_path / "id.key"
    write(path)
    doc = json.loads(path.read_bytes())
    edit(path, {"kdf": {**doc["kdf"], "n": 2**40}})
    with pytest.raises(KeyFileError, match="encryption settings hexpost does not accept"):
        read_key_file(path, PASS)


def test_info_needs_no_passphrase(tmp_path: Path) -> None:
    sealed_key = write(tmp_path / "sealed.key")
    plain_key = write(tmp_path / "plain.key", passphrase=None)
    (tmp_path / "sealed.key").chmod(0o644)  # info is public: no mode check

    sealed = key_file_info(tmp_path / "sealed.key")
    plain = key_file_info(tmp_path / "plain.key")

    assert (sealed.public_key, sealed.name, sealed.address, sealed.encrypted) == (
        public(sealed_key),
        "Alice",
        "alice@example.org",
        True,
    )
    assert (plain.public_key, plain.encrypted) == (public(plain_key), False)


def test_tampered_ciphertext_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "id.key"
    write(path)
    doc = json.loads(path.read_bytes())
    edit(path, {"private_key": flip_first_byte(doc["private_key"])})
    with pytest.raises(KeyFileError, match="wrong passphrase"):
        read_key_file(path, PASS)


def test_swapped_public_key_is_refused_when_sealed(tmp_path: Path) -> None:
    path = tmp_path / "id.key"
    write(path)
    other = base64.b64encode(public(generate_identity())).decode()
    edit(path, {"public_key": other})
    with pytest.raises(KeyFileError, match="wrong passphrase"):
        read_key_file(path, PASS)


def test_swapped_public_key_is_refused_when_plain(tmp_path: Path) -> None:
    path = tmp_path / "id.key"
    write(path, passphrase=None)
    other = base64.b64encode(public(generate_identity())).decode()
    edit(path, {"public_key": other})
    with pytest.raises(KeyFileError, match="private key does not match its public key"):
        read_key_file(path, None)


def test_generated_identities_differ() -> None:
    assert public(generate_identity()) != public(generate_identity())
