"""Who a home plays as, and whether it can sign now: the identity and its key, as values.

Asking for a passphrase is the faces' job (the command line reads a variable, runs a command
or prompts; the app shows a dialog): they hand over the secret, or a callable that fetches it
only when the key turns out to be encrypted. What is decided here, once for both: what the
identity record says, when a key counts as locked, how typed words become a passphrase, and
that a sync without the passphrase still receives and sends, only without automatic replies.
"""

from __future__ import annotations

import enum
import unicodedata
from collections.abc import Callable
from typing import TYPE_CHECKING

import msgspec

from engine.core.errors import HexpostError

if TYPE_CHECKING:
    # The app imports this module (for `Settings`) before its first paint: the store, the
    # keys and the engine are imported where they are used, on the session's store thread.
    from saves.home import Home
    from saves.replica import Replica

NO_IDENTITY = "this home has no identity yet: run `hexpost identity create`"


class NoIdentity(HexpostError):
    """Signing was asked of a home that has no identity key yet."""


class WrongPassphrase(HexpostError):
    """The passphrase does not open the key (or the sealed key was altered: the two look alike)."""


class IdentityRecord(msgspec.Struct, frozen=True):
    """What ``hexpost identity show --json`` prints and the settings screen shows."""

    name: str
    address: str
    fingerprint: str
    public_key: str
    encrypted: bool
    key_file: str
    seeds_and_secrets: str
    """How safe the sealed entropy seeds and secret choices are: as safe as the key itself."""


class KeyState(enum.Enum):
    """Whether a home can sign now: no identity, a key that needs a passphrase not at hand,
    or ready (an unencrypted key, or the passphrase at hand)."""

    NONE = "none"
    LOCKED = "locked"
    READY = "ready"


def identity_record(home: Home) -> IdentityRecord | None:
    """The home's identity as a record; None when it has none."""
    from engine.core.packets import fingerprint

    info = home.identity_info()
    if info is None:
        return None
    return IdentityRecord(
        name=info.name,
        address=info.address,
        fingerprint=fingerprint(info.public_key),
        public_key=info.public_key.hex(),
        encrypted=info.encrypted,
        key_file=str(home.key_path),
        seeds_and_secrets=(
            "sealed with the identity key, which its passphrase protects"
            if info.encrypted
            else "only as safe as the unencrypted key file: whoever can read it can open them"
        ),
    )


def create_identity(home: Home, name: str, address: str, secret: bytes | None) -> IdentityRecord:
    """Make the home's identity (``secret=None``: stored unencrypted) and return its record;
    the one way to make one, for ``hexpost identity create`` and the app's form alike."""
    refuse_second_identity(home)
    home.create_identity(name.strip(), address.strip(), secret)
    record = identity_record(home)
    assert record is not None
    return record


def refuse_second_identity(home: Home) -> None:
    """A home holds one identity: say so before anything asks for a new passphrase."""
    if home.identity_info() is not None:
        raise HexpostError(f"this home already has an identity ({home.key_path})")


def passphrase_bytes(text: str) -> bytes:
    """A typed passphrase as the key file takes it: NFC-normalised (the same words typed on
    another keyboard or system unlock the key), UTF-8, never empty."""
    if not text:
        raise HexpostError("the passphrase is empty")
    return unicodedata.normalize("NFC", text).encode()


def key_state(home: Home, *, secret_at_hand: bool) -> KeyState:
    """Whether ``home`` could sign now, given whether a passphrase is (or can be) at hand."""
    info = home.identity_info()
    if info is None:
        return KeyState.NONE
    if info.encrypted and not secret_at_hand:
        return KeyState.LOCKED
    return KeyState.READY


def signer(home: Home, ask: Callable[[], bytes] | None) -> Replica:
    """A replica able to sign. ``ask`` fetches the passphrase and is called only when the
    key is encrypted; None when there is no way to get one (then an encrypted key refuses)."""
    info = home.identity_info()
    if info is None:
        raise NoIdentity(NO_IDENTITY)
    secret = None
    if info.encrypted:
        if ask is None:
            raise HexpostError("the identity key is encrypted and no passphrase was given")
        secret = ask()
    return home.replica(secret, unlock=True)


def sync_replica(home: Home, ask: Callable[[], bytes] | None) -> tuple[Replica, bool]:
    """The replica a sync works with, and whether it can sign automatic replies: it signs when
    the key is unencrypted or ``ask`` can fetch the passphrase, and otherwise only receives
    and sends (a home with no identity yet can still pick up an invitation)."""
    if key_state(home, secret_at_hand=ask is not None) is not KeyState.READY:
        return home.replica(), False
    return signer(home, ask), True


def unlock(home: Home, text: str) -> tuple[bytes, Replica]:
    """Open the signing key with the typed ``text``: the passphrase as bytes and a signing
    replica; `WrongPassphrase` when it does not open the key."""
    from saves.keys import KeyFileError

    secret = passphrase_bytes(text)
    try:
        return secret, home.replica(secret, unlock=True)
    except KeyFileError as exc:
        if "wrong passphrase" in str(exc):
            raise WrongPassphrase(str(exc)) from None
        raise


class Settings(msgspec.Struct, frozen=True):
    """What the settings screen shows: the identity (None: none yet), the transport as
    ``hexpost transport show`` words it, its kind and folder, and whether this session holds
    the passphrase already."""

    identity: IdentityRecord | None
    transport: str
    transport_kind: str | None
    folder: str | None
    unlocked: bool
    copy_taken_at: str | None = None
    """When this home was copied, if it is a backup copy not yet confirmed (`saves.backup`)."""
    backup_folder: str | None = None
    """Where this home backs up after each sync, if it does (`tui.services.sync`)."""


def settings(home: Home, *, unlocked: bool) -> Settings:
    from saves import store_backup
    from tui.services.sync import backup_folder_in
    from tui.services.transport import transport_text

    config = home.config()
    transport = config.get("transport") or {}
    copied = store_backup.copy_taken_at(home.store()) if home.db_path.exists() else None
    return Settings(
        identity=identity_record(home),
        transport=transport_text(home),
        transport_kind=transport.get("kind"),
        folder=transport.get("path"),
        unlocked=unlocked,
        copy_taken_at=copied,
        backup_folder=backup_folder_in(config),
    )
