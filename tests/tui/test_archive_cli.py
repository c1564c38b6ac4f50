"""``hexpost archive`` and ``hexpost games --all`` through the real command line."""

from __future__ import annotations

import json
from pathlib import Path

from tests.tui.conftest import assert_refused, hexpost
from tests.tui.test_trust_cli import _invite, _player


def test_an_archived_game_leaves_the_list_until_it_needs_you(tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    alice, bob = _player(tmp_path, "Alice", folder), _player(tmp_path, "Bob", folder)
    game = _invite(alice, bob, "unanswered")  # Bob never answers: nothing for Alice to do
    printed = alice.ok("archive", "unanswered")
    assert printed.startswith("archived unanswered: the games list leaves it out"), printed
    listing = alice.ok("games")
    assert "unanswered" not in listing
    assert "no games yet" not in listing
    assert "1 archived game not listed: `hexpost games --all` lists them too" in listing
    assert "archived" in alice.ok("games", "--all").splitlines()[1]
    done = alice.run("games", "--json")
    assert done.returncode == 0 and json.loads(done.stdout) == []
    assert "1 archived game not listed" in done.stderr
    (record,) = alice.json("games", "--all")
    assert record["game"] == game and record["archived"]

    # Bob joins: Alice owes the acceptance, so the game is back in her list.
    bob.ok("accept", game[:10])
    bob.sync()
    alice.sync()
    assert "unanswered" in alice.ok("games")
    assert alice.ok("archive", "unanswered", "--undo") == "unanswered is back in the games list\n"
    assert_refused(alice.run("archive", "nosuchgame"), "no game matches 'nosuchgame'")
    assert "archive" in hexpost("--help").stdout
