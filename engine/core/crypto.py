"""The few cryptography calls a home makes outside signing and verifying, loaded on first use.

Loading cryptography's bindings costs about 19M instructions, and a client that only reads a
game (the app's first paint, ``show``, ``games``) signs, verifies, seals and opens nothing:
the modules that do (`engine.core.packets`, `engine.core.side_records`, `saves.keys`,
`saves.vault`) name cryptography's classes only as types and call it through here or from
inside the functions that use it (issue 16).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305


def new_private_key() -> Ed25519PrivateKey:
    """A new Ed25519 key from the operating system's random source."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return Ed25519PrivateKey.generate()


def private_key_from_raw(raw: bytes) -> Ed25519PrivateKey:
    """The Ed25519 key whose 32 raw private bytes are ``raw``."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return Ed25519PrivateKey.from_private_bytes(raw)


def aead_open(
    cipher: ChaCha20Poly1305, nonce: bytes, sealed: bytes, associated: bytes
) -> bytes | None:
    """The plain bytes ``sealed`` holds, or None when it does not authenticate (a wrong key,
    altered bytes or other associated data: cryptography's ``InvalidTag``)."""
    from cryptography.exceptions import InvalidTag

    try:
        return cipher.decrypt(nonce, sealed, associated)
    except InvalidTag:
        return None
