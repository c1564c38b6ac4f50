"""A second ruleset played through the real command line, with no line of its code outside it.

The toy duel (`tests/engine/toy.py`) is installed the way any ruleset package would be: a
``.dist-info`` naming its `Plugin` in the ``hexpost.rulesets`` entry point group
(`tests/plugins`), put on the child's ``PYTHONPATH``. Two homes then create, join, accept,
talk, answer, pick secret numbers, and check their games with ``show --json``, ``games``,
``log`` and ``verify`` -- the commands F&E players use, knowing nothing of the toy. A broken
plug-in beside it is named by ``scenarios`` and ``data check`` while the others keep working.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.toy_plugin import PLUGINS, ROOT
from tests.tui.conftest import Player, accept_join, clean_env, describe, exchange, hexpost


@dataclass
class ToyPlayer(Player):
    """A player whose hexpost has the toy ruleset installed."""

    extra_path: str = ""

    def env(self, **extra: str) -> dict[str, str]:
        env = super().env(**extra)
        paths = [str(ROOT), str(PLUGINS), self.extra_path]
        env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
        return env


def toy_player(name: str, root: Path, folder: Path) -> ToyPlayer:
    player = ToyPlayer(name, f"{name.lower()}@example.org", root / name.lower() / "home")
    player.create_identity()
    player.ok("transport", "folder", folder)
    return player


@pytest.fixture(scope="module")
def duel(tmp_path_factory: pytest.TempPathFactory) -> tuple[ToyPlayer, ToyPlayer, str]:
    root = tmp_path_factory.mktemp("toy")
    folder = root / "shared"
    north, south = toy_player("North", root, folder), toy_player("South", root, folder)
    game = north.ok(
        "new", "--scenario", "duel", "--seat", "north", "--opponent", south.address,
        "--opponent-seat", "south", "--name", "duel",
    ).strip()  # fmt: skip
    exchange(north, south)
    south.ok("accept", game[:10])
    exchange(south, north)
    accept_join(north, south, game)
    exchange(north, south)
    return north, south, game


def test_the_toy_scenario_is_listed_beside_fe(duel: tuple[ToyPlayer, ToyPlayer, str]) -> None:
    north, _, _ = duel
    rows = {row["id"]: row for row in north.json("scenarios")}
    assert rows["duel"]["ruleset"] == "toy" and rows["duel"]["seats"] == ["north", "south"]
    assert rows["the-wind"]["ruleset"] == "fe"


def test_a_round_played_through_the_command_line(duel: tuple[ToyPlayer, ToyPlayer, str]) -> None:
    north, south, game = duel
    shown = south.show(game[:10])
    assert shown["ruleset"] == "toy/1.2" and shown["scenario"] == "duel"
    assert shown["turn"] == {"number": 1, "label": "Round 1", "tag": "R1"}
    assert shown["step"] == "talk" and shown["waiting_for"] == ["north"]
    assert shown["board"] is None and shown["choices"] == []
    assert [c["order"] for c in north.show(game[:10])["choices"]] == ["say", "roll"]

    north.orders(game[:10], [{"type": "say", "text": "hello from the north"}])
    exchange(north, south)
    shown = south.show(game[:10], "--checklist")
    assert shown["step"] == "answer" and shown["waiting_for"] == ["south"]
    assert [(i["step"], i["status"]) for i in shown["checklist"]] == [
        ("talk", "todo"),
        ("answer", "current"),
        ("pick", "todo"),
    ]
    say = next(c for c in shown["choices"] if c["order"] == "say")
    assert say["params"] == [
        {
            "name": "text",
            "kind": "text",
            "required": True,
            "options": [],
            "help": "",
            "entries": [],
            "value": "",
            "suggested": "",
        }
    ]

    south.orders(game[:10], [{"type": "say", "text": "and hello back"}])
    exchange(south, north)
    north.orders(game[:10], [{"type": "secret", "choice": 4}])
    exchange(north, south)
    south.orders(game[:10], [{"type": "secret", "choice": 2}])
    exchange(south, north)
    exchange(north, south)
    for player in (north, south):
        shown = player.show(game[:10])
        assert shown["turn"]["tag"] == "R2" and shown["step"] == "talk", describe_record(shown)

    log = north.json("log", game[:10])
    texts = [text for record in log for text in record["events"]]
    assert "hello from the north" in texts and "and hello back" in texts
    games = south.json("games")
    assert games[0]["turn"]["label"] == "Round 2"
    assert (
        north.ok("verify", game[:10]).splitlines()[-1]
        == south.ok("verify", game[:10]).splitlines()[-1]
    )


def test_a_refused_toy_order_names_the_toy_rule(duel: tuple[ToyPlayer, ToyPlayer, str]) -> None:
    north, _, game = duel
    done = north.run("orders", game[:10], "-", stdin='{"orders": [{"type": "say", "text": ""}]}')
    assert done.returncode == 1, describe(done)
    assert "say something" in done.stderr and "T1" in done.stderr


def test_the_toy_has_no_map(duel: tuple[ToyPlayer, ToyPlayer, str]) -> None:
    north, _, game = duel
    done = north.run("show", game[:10], "--map")
    assert done.returncode == 1 and "has no strategic map" in done.stderr, describe(done)


# --- broken plug-ins --------------------------------------------------------------------------


def broken_plugins(root: Path) -> Path:
    """A folder holding three bad ruleset plug-ins: one that does not import, one taking the
    ``fe`` id a second time, one whose ruleset has no version."""
    folder = root / "broken"
    (folder / "hexpost_broken-0.1.dist-info").mkdir(parents=True)
    (folder / "hexpost_broken-0.1.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: hexpost-broken\nVersion: 0.1\n"
    )
    (folder / "hexpost_broken-0.1.dist-info" / "entry_points.txt").write_text(
        "[hexpost.rulesets]\n"
        "ghost = no_such_module_anywhere:PLUGIN\n"
        "twin = engine.fe:PLUGIN\n"
        "unversioned = brokenplug:PLUGIN\n"
    )
    (folder / "brokenplug.py").write_text(
        "from engine.core.plugin import Plugin\n"
        "from tests.engine.toy import Toy, ToyFace\n"
        "class Unversioned(Toy):\n"
        "    id = 'nover'\n"
        "    version = ''\n"
        "PLUGIN = Plugin(Unversioned(), ToyFace())\n"
    )
    return folder


def test_broken_plugins_are_named_and_the_rest_works(tmp_path: Path) -> None:
    folder = broken_plugins(tmp_path)
    env = clean_env(PYTHONPATH=os.pathsep.join([str(ROOT), str(PLUGINS), str(folder)]))
    home = ["--home", str(tmp_path / "home")]
    listed = hexpost(*home, "scenarios", "--json", env=env)
    assert listed.returncode == 0, describe(listed)
    ids = {row["id"] for row in __import__("json").loads(listed.stdout)}
    assert {"the-wind", "duel"} <= ids
    for name in ("ghost", "twin", "unversioned"):
        assert f"plug-in {name} " in listed.stderr, describe(listed)
    assert "no_such_module_anywhere" in listed.stderr
    assert "already took" in listed.stderr and "MAJOR.MINOR" in listed.stderr

    checked = hexpost(*home, "data", "check", env=env)
    assert checked.returncode == 1, describe(checked)
    for name in ("ghost", "twin", "unversioned"):
        assert f"plug-in {name}:" in checked.stdout, describe(checked)
    assert "Traceback" not in checked.stderr


def describe_record(record: dict[str, Any]) -> str:
    return f"step {record['step']}, turn {record['turn']}, waiting for {record['waiting_for']}"
