"""A home's folder and its config.toml, which players edit by hand: a wrong one is named with
what is wrong, never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.errors import HexpostError
from saves.home import Home


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"[sync\n", "config.toml: "),
        (b'[sync]\nnote = "caf\xe9"\n', "config.toml: not UTF-8 text"),
        (b"x = " + b"[" * 5_000, "config.toml: nested too deeply"),
    ],
    ids=["not-toml", "latin-1", "nested"],
)
def test_a_broken_config_is_named_with_what_is_wrong(
    tmp_path: Path, data: bytes, said: str
) -> None:
    home = Home(tmp_path)
    home.ensure()
    home.config_path.write_bytes(data)
    with pytest.raises(HexpostError) as raised:
        home.config()
    assert said in str(raised.value)


def test_a_home_that_is_a_file_says_so(tmp_path: Path) -> None:
    """``--home`` naming a file (a typo for its folder): said in words, not "File exists"."""
    where = tmp_path / "notes.txt"
    where.write_text("x")
    with pytest.raises(HexpostError, match=r"notes\.txt: a home is a folder, and this is a file"):
        Home(where).store()


def test_a_table_written_as_a_value_is_named(tmp_path: Path) -> None:
    home = Home(tmp_path)
    home.ensure()
    home.config_path.write_text('sync = 5\n[transport]\nkind = "folder"\n', encoding="utf-8")
    assert home.table("transport") == {"kind": "folder"}
    assert home.table("backup") == {}
    with pytest.raises(HexpostError, match=r"config\.toml: sync must be a table \(\[sync\]"):
        home.table("sync")


def test_a_home_that_cannot_be_made_is_said_to_be_so(tmp_path: Path) -> None:
    """``--home`` under a file (or a folder nobody may write) said only "notes.txt/home: Not a
    directory", which did not say what hexpost was trying to do."""
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    where = tmp_path / "notes.txt" / "home"
    with pytest.raises(HexpostError) as raised:
        Home(where).ensure()
    assert str(raised.value) == f"cannot make the home folder {where}: Not a directory"
