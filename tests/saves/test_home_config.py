"""A home's config.toml, which players edit by hand: a broken one is named, never a crash."""

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
