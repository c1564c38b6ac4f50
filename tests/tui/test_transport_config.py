"""The transport and sync settings read from a config.toml written by hand: each mistake is
named with the key and what it must be, never a traceback (`tui.services.transport`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.errors import HexpostError
from saves.home import Home
from tui.services import sync
from tui.services.transport import configured_kind, configured_transport, transport_text


def home_with(tmp_path: Path, text: str) -> Home:
    home = Home(tmp_path)
    home.ensure()
    home.config_path.write_text(text, encoding="utf-8")
    return home


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("transport = 5\n", "transport must be a table"),
        (
            '[transport]\nkind = "pigeon"\n',
            'transport.kind must be "folder" or "mail", not \'pigeon\'',
        ),
        ('[transport]\nkind = "folder"\n', "run `hexpost transport folder PATH`"),
        ('[transport]\nkind = "mail"\n', "run `hexpost account add`"),
        ("", "no transport is set"),
    ],
    ids=["not-a-table", "unknown-kind", "folder-without-path", "mail-without-account", "none"],
)
def test_a_transport_that_cannot_be_built_says_why(tmp_path: Path, text: str, said: str) -> None:
    home = home_with(tmp_path, text)
    with pytest.raises(HexpostError) as raised:
        configured_transport(home)
    assert said in str(raised.value)


def test_every_reader_of_the_transport_names_a_table_written_as_a_value(tmp_path: Path) -> None:
    home = home_with(tmp_path, "transport = 5\nsync = true\n")
    for read in (configured_kind, transport_text):
        with pytest.raises(HexpostError, match="transport must be a table"):
            read(home)
    with pytest.raises(HexpostError, match="sync must be a table"):
        sync.auto_replies(home)
