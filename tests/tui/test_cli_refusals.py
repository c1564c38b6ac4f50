"""The `hexpost` command line's contract outside a game's flow, run as a real subprocess.

Identities, homes and scenarios; then the refusals, each of which exits 1 with one
`hexpost: ...` line naming what was wrong and changes nothing, and the usage errors, which
exit 2. Alice and Bob are this module's own homes (`tests.tui.conftest`); `quiet_game` is a
game joined and left at its first set-up step for the refusals to aim at.
"""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import pytest

from tests.tui.conftest import (
    ALICE_PASSPHRASE,
    PASSPHRASE_VAR,
    SCENARIO,
    Player,
    assert_refused,
    assert_usage_error,
    clean_env,
    describe,
    hexpost,
)

# --- identities, homes, scenarios ------------------------------------------------------------


def test_identities_show_fingerprints_and_encryption(alice: Player, bob: Player) -> None:
    a = alice.json("identity", "show")
    b = bob.json("identity", "show")
    assert (a["name"], a["address"], a["encrypted"]) == ("Alice", "alice@example.org", True)
    assert (b["name"], b["address"], b["encrypted"]) == ("Bob", "bob@example.org", False)
    assert a["fingerprint"] and b["fingerprint"] and a["fingerprint"] != b["fingerprint"]
    text = bob.ok("identity", "show")
    assert b["fingerprint"] in text and "NOT encrypted" in text
    unsafe = "only as safe as the unencrypted key file"
    assert unsafe in b["seeds_and_secrets"] and unsafe in text, "--no-passphrase says so"
    assert max(len(line) for line in text.splitlines()) <= 80, text
    assert "passphrase protects" in a["seeds_and_secrets"]


def test_key_files_are_private(alice: Player, bob: Player) -> None:
    for player in (alice, bob):
        mode = stat.S_IMODE((player.home / "identity.key").stat().st_mode)
        assert mode == 0o600, f"{player.name}'s key file has mode {oct(mode)}"


def test_hexpost_home_variable_replaces_home_option(alice: Player, quiet_game: str) -> None:
    env = clean_env(HEXPOST_HOME=str(alice.home))
    identity = hexpost("identity", "show", "--json", env=env)
    assert identity.returncode == 0, describe(identity)
    assert json.loads(identity.stdout)["fingerprint"] == alice.fingerprint
    shown = hexpost("show", quiet_game, "--json", env=env)
    assert shown.returncode == 0, describe(shown)
    assert json.loads(shown.stdout)["seq"] == 1


def test_scenarios_list_the_wind_with_its_seats(tmp_path: Path) -> None:
    done = hexpost("--home", tmp_path / "h", "scenarios", "--json")
    assert done.returncode == 0, describe(done)
    rows = {row["id"]: row for row in json.loads(done.stdout)}
    assert SCENARIO in rows
    assert rows[SCENARIO]["seats"] == ["coalition", "alliance"]


def test_scenario_rules_lists_each_option_with_what_it_takes(tmp_path: Path) -> None:
    done = hexpost("--home", tmp_path / "h", "scenario", "rules", SCENARIO)
    assert done.returncode == 0, describe(done)
    assert (  # (within 80 columns: its wrapped part indented past the help under it)
        "damage-rounding=nearest-half-up  takes nearest-half-up, nearest-half-down, down,\n"
        "        up (rule 302.4)\n    Rounding of potential x table percentage"
    ) in done.stdout
    assert max(len(line) for line in done.stdout.splitlines()) <= 80
    assert "peace-income-permille=500  takes 0 to 1000 (rule 600.0)" in done.stdout
    as_json = hexpost("--home", tmp_path / "h", "scenario", "rules", SCENARIO, "--json")
    rows = {row["id"]: row for row in json.loads(as_json.stdout)}
    assert rows["damage-rounding"]["choices"] == [
        "nearest-half-up",
        "nearest-half-down",
        "down",
        "up",
    ]
    assert rows["peace-income-permille"]["bounds"] == [0, 1000]
    assert_refused(
        hexpost("--home", tmp_path / "h", "scenario", "rules", "nope"), "no scenario 'nope'"
    )


def test_new_prints_the_id_alone_and_names_the_next_command(tmp_path: Path) -> None:
    """stdout is the game's id (a script reads it); stderr tells the player that nothing
    left yet: the next sync sends the invitation."""
    erin = Player("Erin", "erin@example.org", tmp_path / "erin")
    erin.create_identity()
    done = erin.run(
        "new", "--scenario", SCENARIO, "--seat", "coalition", "--opponent", "x@example.org",
        "--name", "first",
    )  # fmt: skip
    assert done.returncode == 0, describe(done)
    assert re.fullmatch(r"[0-9a-f]{32}\n", done.stdout)
    assert "created first: `hexpost sync` sends the invitation to x@example.org" in done.stderr


def test_new_refuses_a_value_its_rule_does_not_take(alice: Player) -> None:
    done = alice.run(
        "new", "--scenario", SCENARIO, "--seat", "coalition", "--opponent", "x@example.org",
        "--option", "damage-rounding=sideways",
    )  # fmt: skip
    assert_refused(done, "optional rule 'damage-rounding' takes one of", "not 'sideways'")


def test_demo_plays_to_the_same_game() -> None:
    done = hexpost("demo")
    assert done.returncode == 0, describe(done)
    assert "Both players hold the same game." in done.stdout
    assert max(len(line) for line in done.stdout.splitlines()) <= 80  # (its long lines wrap)
    unwrapped = " ".join(done.stdout.split())
    for shown in (
        "its set-up hexes are 1207, 1307, 1407 (600.0)",  # a placement refused
        "KLI collects 9 EP",  # income, by the engine
        "1307->1201 needs 7 hexes, allowance 6 (203.1)",  # a move refused
        "KZI reacts with CC KZI-0001, BC KZI-0002 1205->1305",  # reaction movement
        "Battle hexes: 1305 (KLI 4 ships vs KZI 2 ships)",  # the combat phase's list
    ):
        assert shown in unwrapped, shown
    paced = re.search(
        r"hand-offs: (\d+), (\d+) waiting for a player, (\d+) for a hexpost", unwrapped
    )
    assert paced is not None, done.stdout[-500:]
    total, human, machine = map(int, paced.groups())
    assert total == human + machine and human > 0 and machine > 0  # the reveals were a hexpost's


# --- refusals: exit 1, one line naming the problem, nothing changed ---------------------------


def assert_unchanged(player: Player, game: str, seq: int = 1) -> None:
    assert player.seq(game) == seq


def test_order_out_of_turn_names_the_step(bob: Player, quiet_game: str) -> None:
    done = bob.run("orders", quiet_game, "-", stdin='{"orders": [{"type": "done"}]}')
    # The coalition owes its acceptance of Bob's key first (its set-up orders carry it).
    assert_refused(done, "coalition owes the next move", "accept")
    assert_unchanged(bob, quiet_game)


def test_unknown_order_type(alice: Player, quiet_game: str) -> None:
    done = alice.run("orders", quiet_game, "-", stdin='{"orders": [{"type": "teleport"}]}')
    assert_refused(done, "teleport")
    assert_unchanged(alice, quiet_game)


def test_invalid_json_names_the_file_and_line(
    alice: Player, quiet_game: str, tmp_path: Path
) -> None:
    bad = tmp_path / "broken.json"
    bad.write_text('{\n  "orders": [\n    {"type": "done",}\n  ]\n}\n', encoding="utf-8")
    done = alice.run("orders", quiet_game, bad)
    assert_refused(done, str(bad), "line 3")
    assert_unchanged(alice, quiet_game)


def test_missing_orders_file(alice: Player, quiet_game: str, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.json"
    done = alice.run("orders", quiet_game, missing)
    assert_refused(done, str(missing))
    assert_unchanged(alice, quiet_game)


def test_dry_run_checks_without_queueing(alice: Player, quiet_game: str) -> None:
    illegal = alice.run(
        "orders",
        quiet_game,
        "-",
        "--dry-run",
        stdin='{"orders": [{"type": "back", "step": "5-1A"}]}',
    )
    assert_refused(illegal, "back")
    legal = alice.run(
        "orders",
        quiet_game,
        "-",
        "--dry-run",
        stdin='{"orders": [{"type": "place", "fleet": "Home Fleet", "hex": "0408"}]}',
    )
    assert legal.returncode == 0, describe(legal)
    assert "legal" in legal.stdout
    assert_unchanged(alice, quiet_game)


def test_unknown_game_name(alice: Player, quiet_game: str) -> None:
    done = alice.run("orders", "no-such-game", "-", stdin='{"orders": [{"type": "done"}]}')
    assert_refused(done, "no-such-game")
    assert_refused(alice.run("show", "no-such-game"), "no-such-game")
    assert_unchanged(alice, quiet_game)


@pytest.fixture(scope="module")
def crowded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Player, list[str], str]:
    """A home (no transport) with games named "twin" until two ids share their first digit."""
    dave = Player("Dave", "dave@example.org", tmp_path_factory.mktemp("dave") / "home")
    dave.create_identity()
    games: list[str] = []
    for _ in range(17):  # 16 hex digits: 17 games must repeat one
        game = dave.in_process(  # scaffolding: seventeen processes fewer
            "new",
            "--scenario",
            SCENARIO,
            "--seat",
            "coalition",
            "--opponent",
            "x@example.org",
            "--name",
            "twin",
        ).strip()
        if any(other[0] == game[0] for other in games):
            games.append(game)
            return dave, games, game[0]
        games.append(game)
    raise AssertionError("17 game ids and no shared first digit")


def test_ambiguous_prefix(crowded: tuple[Player, list[str], str]) -> None:
    dave, games, digit = crowded
    line = assert_refused(dave.run("show", digit, "--json"), "several games")
    twins = [game for game in games if game[0] == digit]
    assert all(game[:8] in line for game in twins)
    assert_refused(dave.run("show", "twin"), "several games")
    for game in twins:
        assert_unchanged(dave, game, 0)


def test_new_with_an_unknown_scenario(alice: Player, quiet_game: str) -> None:
    before = alice.json("games")
    done = alice.run(
        "new", "--scenario", "the-storm", "--seat", "coalition", "--opponent", "bob@example.org"
    )
    assert_refused(done, "the-storm", SCENARIO)
    assert alice.json("games") == before


def test_identity_create_twice(bob: Player, quiet_game: str) -> None:
    key = (bob.home / "identity.key").read_bytes()
    done = bob.run(
        "identity", "create", "--name", "Bob", "--address", "bob@example.org", "--no-passphrase"
    )
    assert_refused(done, "already has an identity")
    assert (bob.home / "identity.key").read_bytes() == key
    assert bob.json("identity", "show")["fingerprint"] == bob.fingerprint
    assert_unchanged(bob, quiet_game)


def test_wrong_passphrase(alice: Player, quiet_game: str) -> None:
    env = alice.env(**{PASSPHRASE_VAR: ALICE_PASSPHRASE + "!"})
    done = alice.run("orders", quiet_game, "-", stdin='{"orders": [{"type": "done"}]}', env=env)
    assert_refused(done, "wrong passphrase")
    assert_unchanged(alice, quiet_game)


def test_passphrase_env_names_an_unset_variable(alice: Player, quiet_game: str) -> None:
    done = hexpost(
        "--home",
        alice.home,
        "--passphrase-env",
        "HEXPOST_TEST_UNSET_VARIABLE",
        "orders",
        quiet_game,
        "-",
        stdin='{"orders": [{"type": "done"}]}',
        env=clean_env(),
    )
    assert_refused(done, "HEXPOST_TEST_UNSET_VARIABLE")
    assert_unchanged(alice, quiet_game)


def test_no_passphrase_and_no_terminal(alice: Player, quiet_game: str) -> None:
    done = hexpost(
        "--home", alice.home, "orders", quiet_game, "-", stdin='{"orders": [{"type": "done"}]}'
    )
    assert_refused(done, "--passphrase-env")
    assert_unchanged(alice, quiet_game)


def test_orders_file_that_is_not_utf8(alice: Player, quiet_game: str, tmp_path: Path) -> None:
    bad = tmp_path / "latin1.json"
    bad.write_bytes(b'{"orders": [{"type": "note", "text": "caf\xe9"}]}')
    assert_refused(alice.run("orders", quiet_game, bad), str(bad), "UTF-8")
    assert_unchanged(alice, quiet_game)


def test_export_to_an_unwritable_path(alice: Player, quiet_game: str, tmp_path: Path) -> None:
    target = tmp_path / "no-such-folder" / "game.hxa"
    assert_refused(alice.run("export", quiet_game, "-o", target), str(target))
    assert not target.parent.exists()


def test_transport_folder_that_cannot_be_made(bob: Player, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    before = (bob.home / "config.toml").read_bytes()
    assert_refused(bob.run("transport", "folder", blocker / "sub"), str(blocker / "sub"))
    assert (bob.home / "config.toml").read_bytes() == before


def test_home_that_is_a_file(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a home", encoding="utf-8")
    assert_refused(hexpost("--home", blocker, "games"), str(blocker))


def test_sync_of_an_unknown_game_sends_nothing(tmp_path: Path) -> None:
    erin = Player("Erin", "erin@example.org", tmp_path / "home")
    erin.create_identity()
    folder = tmp_path / "folder"
    erin.ok("transport", "folder", folder)
    erin.ok("new", "--scenario", SCENARIO, "--seat", "alliance", "--opponent", "x@example.org")
    assert_refused(erin.run("sync", "no-such-game"), "no-such-game")
    assert list(folder.iterdir()) == []
    assert "sent 1 packet" in erin.sync()
    assert len(list(folder.glob("*.hxp"))) == 1


def test_a_backup_after_each_sync_is_set_made_and_stopped(tmp_path: Path) -> None:
    erin = Player("Erin", "erin@example.org", tmp_path / "home")
    erin.create_identity()
    erin.ok("transport", "folder", tmp_path / "folder")
    kept = tmp_path / "kept"
    out = erin.ok("backup", kept, "--after-each-sync")
    assert "and again after each sync that receives or sends a packet" in out
    erin.ok("new", "--scenario", SCENARIO, "--seat", "alliance", "--opponent", "x@example.org")
    out = erin.sync()
    assert "sent 1 packet" in out
    assert f"backed up the identity key, 1 game (1 packet) to {kept}" in out
    assert "backed up" not in erin.sync()  # nothing received or sent
    assert f"any more (into {kept})" in erin.ok("backup", "--no-after-each-sync")
    assert "[backup]" not in (erin.home / "config.toml").read_text()
    assert_refused(erin.run("backup", kept, "--no-after-each-sync"), "takes no FOLDER")
    assert_refused(erin.run("backup"), "give the FOLDER")


def test_sync_without_a_transport(crowded: tuple[Player, list[str], str]) -> None:
    dave, games, _ = crowded
    assert_refused(dave.run("sync"), "transport")
    assert_unchanged(dave, games[0], 0)


# --- usage errors: exit 2 ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["orders", "some-game"],
        ["frobnicate"],
        ["show", "some-game", "--at", "latest"],
        ["--passphrase-env", "A", "--passphrase-command", "echo", "games"],
        ["identity"],
    ],
    ids=["orders-without-file", "unknown-command", "at-not-a-number", "two-sources", "no-action"],
)
def test_usage_errors_exit_2(args: list[str], tmp_path: Path) -> None:
    assert_usage_error(hexpost("--home", tmp_path / "h", *args))
