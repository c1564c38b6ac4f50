"""A hexpost home: one player's folder holding config, identity key and game store.

Two players can share one machine by using two homes (``--home`` or ``HEXPOST_HOME``). The
default home comes from platformdirs, so it lands where the operating system expects user
data. Layout::

    HOME/config.toml        transport and mail settings (no secrets)
    HOME/identity.key       the Ed25519 identity, scrypt-encrypted unless opted out (0600)
    HOME/hexpost.sqlite3    every game's packets, snapshots and outbox (0600)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import platformdirs

from engine.core.errors import HexpostError
from engine.core.packets import fingerprint
from engine.core.text import MAX_NAME, text_problem
from saves import store_keys
from saves.addresses import address_problem
from saves.keys import (
    Identity,
    KeyFileInfo,
    generate_identity,
    key_file_info,
    read_key_file,
    write_key_file,
)
from saves.store import Store

if TYPE_CHECKING:
    from saves.replica import Replica


def default_home() -> Path:
    """``HEXPOST_HOME`` if set, else the platform's user data folder for hexpost."""
    env = os.environ.get("HEXPOST_HOME")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir("hexpost", appauthor=False))


class Home:
    """Paths and settings of one home; opens its store and identity on demand."""

    def __init__(self, path: Path) -> None:
        self.path = path.expanduser().absolute()
        self.config_path = self.path / "config.toml"
        self.key_path = self.path / "identity.key"
        self.db_path = self.path / "hexpost.sqlite3"
        self._store: Store | None = None

    def ensure(self) -> None:
        """Create the home folder, readable by its owner only."""
        if self.path.is_file():  # (``--home`` naming a file: mkdir would say "File exists")
            raise HexpostError(f"{self.path}: a home is a folder, and this is a file")
        try:
            self.path.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            raise HexpostError(
                f"cannot make the home folder {self.path}: {exc.strerror or exc}"
            ) from None

    # --- config --------------------------------------------------------------------------

    def config(self) -> dict[str, Any]:
        if not self.config_path.exists():
            return {}
        import tomllib  # only where a config file exists: most start-ups have none (issue 16)

        try:
            with self.config_path.open("rb") as handle:
                return tomllib.load(handle)
        except tomllib.TOMLDecodeError as exc:
            raise HexpostError(f"{self.config_path}: {exc}") from None
        except UnicodeDecodeError:  # (it is edited by hand: saved in another encoding)
            raise HexpostError(f"{self.config_path}: not UTF-8 text") from None
        except RecursionError:  # (the parser recurses per level of nesting)
            raise HexpostError(f"{self.config_path}: nested too deeply") from None

    def table(self, name: str, config: dict[str, Any] | None = None) -> dict[str, Any]:
        """The config's table ``name`` (``[sync]``), empty when it has none; a value of another
        kind there (``sync = 5``, written by hand) is named, not tripped over later. From
        ``config`` when the caller read it already."""
        value = (self.config() if config is None else config).get(name)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise HexpostError(
                f"{self.config_path}: {name} must be a table ([{name}] and its keys), not {value!r}"
            )
        return value

    def save_config(self, config: dict[str, Any]) -> None:
        """Write the config atomically (a crash leaves the old file or the new one)."""
        import tomli_w  # only to write one, which a start-up never does (issue 16)

        self.ensure()
        temp = self.config_path.with_suffix(".toml.tmp")
        temp.write_text(tomli_w.dumps(config), encoding="utf-8")
        os.replace(temp, self.config_path)

    # --- store and identity --------------------------------------------------------------

    def store(self) -> Store:
        if self._store is None:
            self.ensure()
            self._store = Store(self.db_path)
        return self._store

    def identity_info(self) -> KeyFileInfo | None:
        if not self.key_path.exists():
            return None
        return key_file_info(self.key_path)

    def create_identity(
        self, name: str, address: str, passphrase: bytes | None, *, scrypt_n: int | None = None
    ) -> KeyFileInfo:
        """Make a new identity key; ``passphrase=None`` stores it unencrypted (explicit opt-out)."""
        if not name.strip():
            raise HexpostError("an identity needs a name")
        problem = address_problem(address)
        if problem is not None:
            raise HexpostError(f"your address {problem}")
        # Both go into every genesis and join this identity signs (`saves.creating`).
        for text, what in ((name, "your name"), (address, "your address")):
            problem = text_problem(text, what, MAX_NAME)
            if problem is not None:
                raise HexpostError(problem)
        self.ensure()
        key = generate_identity()
        extra = {} if scrypt_n is None else {"scrypt_n": scrypt_n}
        write_key_file(self.key_path, key, passphrase, name=name, address=address, **extra)
        info = key_file_info(self.key_path)
        store = self.store()
        with store.transaction():
            store_keys.record_identity(
                store,
                info.public_key,
                fingerprint(info.public_key),
                name,
                address,
                str(self.key_path),
            )
        return info

    def identity(self, passphrase: bytes | None = None, *, unlock: bool = False) -> Identity | None:
        """The identity; with ``unlock`` the private key is loaded (needs the passphrase)."""
        info = self.identity_info()
        if info is None:
            return None
        key = read_key_file(self.key_path, passphrase) if unlock else None
        return Identity(info.name, info.address, info.public_key, key)

    def replica(self, passphrase: bytes | None = None, *, unlock: bool = False) -> Replica:
        """This home's games, as the identity (unlocked or not) sees them.

        `saves.replica` is imported here, not at the top: it brings in every ruleset (the
        whole F&E engine), which a home needs only once a game is opened, so the app's first
        paint does not wait for it. Nothing below `saves.replica` imports this module.
        """
        from saves.replica import Replica

        return Replica(self.store(), self.identity(passphrase, unlock=unlock))

    def repairs(self) -> list[str]:
        """What reading found damaged in this home's store and rebuilt since it was opened
        (`saves.store.Store.repairs`), one line each."""
        return [] if self._store is None else list(self._store.repairs)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
