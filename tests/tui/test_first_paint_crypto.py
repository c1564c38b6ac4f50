"""Reading a game loads no cryptography (issue 16, item 5).

Loading cryptography's bindings cost about 19M instructions before the game screen's first
paint, though reading a game signs, verifies, seals and opens nothing: the modules that do
name its classes only as types and load it where a key is used (`engine.core.crypto`). Each
check runs in a fresh interpreter on a home holding the tutorial game and reads the child's
``sys.modules`` when it is done: the app's imports and the read its store thread does for a
game named on the command line (`tui.screens.session.Session._game`, quick board), and the
``show``/``games`` commands. A new top-level import of cryptography on that path fails here;
the last test shows the probe sees it once a key is opened.
"""

from __future__ import annotations

import pytest

from tests.tui.fresh import child_report, run_child
from tests.tui.test_app import GAME, Tutorial

CHILD = """
import json, sys
from pathlib import Path

what, home_path = sys.argv[1], sys.argv[2]
name = None
if what == "app":
    import tui.app  # noqa: F401  (everything the app imports before it runs)
    from saves.home import Home
    from tui.screens.session import Session

    session = Session(Home(Path(home_path)))  # its reads called here, off its thread
    game_id = session._find(sys.argv[3])
    name = session._game(game_id, mark_read=False, quick=True).show.name
elif what == "key":
    from saves.home import Home

    name = Home(Path(home_path)).identity(None, unlock=True).name
else:
    from tui.cli import main

    assert main(["--home", home_path, *sys.argv[3:]]) == 0
print(json.dumps({"name": name, "imported": sorted(
    n for n in sys.modules if n.split(".")[0] == "cryptography"),
    "toml": sorted(n for n in ("tomllib", "tomli_w") if n in sys.modules)}), file=sys.stderr)
"""


def run_fresh(*args: str) -> tuple[str | None, list[str]]:
    """What the child read (a game's or an identity's name) and the cryptography modules
    it imported."""
    name, imported, _toml = run_fresh_toml(*args)
    return name, imported


def run_fresh_toml(*args: str) -> tuple[str | None, list[str], list[str]]:
    """As `run_fresh`, with the TOML modules the child imported too."""
    done = run_child(CHILD, *args)
    assert done.returncode == 0, done.stderr[-2000:]
    report = child_report(done)
    return report["name"], report["imported"], report["toml"]


def test_the_app_reads_a_named_game_without_cryptography(tutorial: Tutorial) -> None:
    name, imported = run_fresh("app", str(tutorial.alice.home.path), GAME)
    assert name == GAME  # the game was read, so the check is on a real read
    assert imported == []


def test_the_app_reads_a_game_without_toml_where_no_config_exists(tutorial: Tutorial) -> None:
    """`saves.home.Home` loads the TOML reader only for a config file and the writer only to
    write one (about 8M instructions before the first paint otherwise)."""
    home = tutorial.alice.home.path
    assert not (home / "config.toml").exists()
    name, _, toml = run_fresh_toml("app", str(home), GAME)
    assert name == GAME
    assert toml == []


@pytest.mark.parametrize("command", [("games", "--json"), ("show", GAME, "--json")])
def test_reading_commands_load_no_cryptography(
    tutorial: Tutorial, command: tuple[str, ...]
) -> None:
    _, imported = run_fresh("cli", str(tutorial.alice.home.path), *command)
    assert imported == []


def test_the_check_sees_cryptography_once_a_key_is_opened(tutorial: Tutorial) -> None:
    """Opening the identity's key needs cryptography: the probe finds it, so it does not
    pass by default."""
    name, imported = run_fresh("key", str(tutorial.alice.home.path))
    assert name == "Alice"
    assert "cryptography.hazmat.primitives.asymmetric.ed25519" in imported
