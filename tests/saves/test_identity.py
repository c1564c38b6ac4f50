"""An identity is made only with a name and an address that every packet can carry: its
name and address go into each game's genesis or join, where the engine refuses control
characters and more than 200 characters. Made anyway, the identity could never start or
join a game, and said so only as "malformed packet body"."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.errors import HexpostError
from saves.home import Home

ALONE = ": give the address alone, such as bob@example.org"


@pytest.mark.parametrize(
    ("name", "address", "words"),
    [
        ("", "a@example.org", "an identity needs a name"),
        ("Ann", "ann", f"your address 'ann' is not an email address{ALONE}"),
        (
            "Ann",
            "Ann <ann@example.org>",
            f"your address 'Ann <ann@example.org>' holds a name besides the address{ALONE}",
        ),
        (
            "Ann\x1b[2J",
            "a@example.org",
            "your name holds a control or formatting character (U+001B at position 4)",
        ),
        ("A" * 201, "a@example.org", "your name is at most 200 characters, not 201"),
        (
            "Ann",
            "a\u202e@example.org",
            "your address holds a control or formatting character (U+202E at position 2)",
        ),
    ],
)
def test_an_identity_no_packet_could_carry_is_refused_and_nothing_is_written(
    tmp_path: Path, name: str, address: str, words: str
) -> None:
    home = Home(tmp_path / "home")
    try:
        with pytest.raises(HexpostError) as caught:
            home.create_identity(name, address, None)
        assert str(caught.value) == words
        assert home.identity_info() is None
        assert not home.key_path.exists()
    finally:
        home.close()


def test_a_name_of_200_characters_is_taken(tmp_path: Path) -> None:
    home = Home(tmp_path / "home")
    try:
        home.create_identity("A" * 200, "a@example.org", None, scrypt_n=2)
        info = home.identity_info()
        assert info is not None and info.name == "A" * 200
    finally:
        home.close()
