"""End-to-end tests of the `hexpost` command line, run as a real subprocess.

Two homes (Alice, coalition, passphrase via `--passphrase-env`; Bob, alliance, no passphrase)
share one folder transport and play a game of The Wind through the command line alone: invite,
accept, orders from JSON, TOML and standard input, a die roll answered automatically, a walk
through the sequence of play to a secret step, commit and reveal, verify on both sides, and an
export imported into a third home. The refusal tests check the exit-code contract: 1 with one
`hexpost: ...` line naming what was wrong (and nothing changed), 2 for usage errors.
"""

from __future__ import annotations

import json
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.engine.fe.helpers import setup_items
from tests.saves import conftest as saves
from tests.tui.conftest import (
    ALICE_PASSPHRASE,
    PASSPHRASE_VAR,
    SCENARIO,
    Player,
    assert_refused,
    assert_usage_error,
    clean_env,
    deliver,
    describe,
    exchange,
    hexpost,
    rules_of,
    start_game,
)

SECRET_STEP = saves.SECRET_STEP
"""The secret step both seats owe in the battle of Bob's Kzinti attack in turn 1
(`saves.ATTACK`, put into the walk by `plan_walk`): groups, flagships and battle forces,
5-3E."""
BOB_SECRET = saves.FORCE
"""Bob's (the alliance's) choice: the attacker commits first."""
BOB_SECRET_TEXT = saves.FORCE_TEXT
ALICE_SECRET = saves.COALITION_FORCE
ROLL_PURPOSE = "survey points 505.21"

SHOW_KEYS = {
    "game",
    "name",
    "ruleset",
    "scenario",
    "seq",
    "state_hash",
    "seats",
    "turn",
    "phasing",
    "step",
    "waiting_for",
    "pending",
    "frozen",
    "rolls",
}

SETUP_PACKETS = 5
"""The Wind's set-up: LYR, KZI, KLI, FED, HYD place their fleets, one packet each."""


# --- planning the walk to the secret step ---------------------------------------------------


def plan_walk(
    home: Path, game: str, target: str, attack: tuple[str, dict[str, Any]] | None = None
) -> list[tuple[str, list[dict[str, Any]]]]:
    """The `done` packets (seat, orders) that bring a game from its head to step ``target``.

    Reads the head state from the home in-process and plays the checklist engine forward, so
    the command line then only has to carry the plan out. Each packet completes as many steps
    as its seat can in a row, with `through` wherever the engine allows it. With ``attack``
    (a seat and its move order), that seat gives the move at its first operational movement
    (3B2): a walk to a combat step needs a battle, since without one the combat phase passes
    by itself (302.9).
    """
    from engine.core.ruleset import DecisionKind
    from engine.core.turn_orders import Done
    from engine.fe import FE, RULESET
    from engine.fe.orders import parse_orders

    rules = rules_of(home, game)
    assert rules is not None, f"{game} has not begun"

    def run_of(rules: Any, seat: str) -> list[str]:
        run = FE.own_run(rules, seat, target)
        if attack is not None and seat == attack[0] and not attacked and "3B2" in run:
            return run[: run.index("3B2")]  # the attack is ordered at 3B2 itself
        return run

    plan: list[tuple[str, list[dict[str, Any]]]] = []
    attacked = False
    while (decision := RULESET.pending(rules)[0]).step != target:
        assert decision.kind == DecisionKind.ORDERS, decision
        seat = decision.seats[0]
        orders: list[dict[str, Any]] = []
        if attack is not None and seat == attack[0] and decision.step == "3B2" and not attacked:
            (move,) = parse_orders([attack[1]])
            assert not RULESET.validate(rules, seat, move), RULESET.validate(rules, seat, move)
            rules, attacked = RULESET.apply(rules, seat, move).state, True
            orders.append(attack[1])
        while steps := run_of(rules, seat):
            furthest = next(
                step
                for step in reversed(steps)
                if not RULESET.validate(rules, seat, Done(through=step))
            )
            if furthest == steps[0]:
                order, item = Done(), {"type": "done"}
            else:
                order, item = Done(through=furthest), {"type": "done", "through": furthest}
            rules = RULESET.apply(rules, seat, order).state
            orders.append(item)
        plan.append((seat, orders))
    return plan


def settle(first: Player, second: Player, game: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Sync both sides until they hold the same head and nobody owes an automatic reply."""
    for _ in range(4):
        exchange(first, second)
        a, b = first.show(game), second.show(game)
        automatic = [p for p in a["pending"] if p["kind"] in ("entropy", "reveal")]
        if (a["seq"], a["state_hash"]) == (b["seq"], b["state_hash"]) and not automatic:
            return a, b
    raise AssertionError(f"the two homes did not settle: {a['seq']} vs {b['seq']}")


# --- the whole game, played once for the module ----------------------------------------------


@dataclass
class Flow:
    game: str
    started: dict[str, str]
    at_join: dict[str, Any] = field(default_factory=dict)
    alice_after_orders: dict[str, Any] = field(default_factory=dict)
    bob_after_orders: dict[str, Any] = field(default_factory=dict)
    checklist: dict[str, Any] = field(default_factory=dict)
    alice_after_roll: dict[str, Any] = field(default_factory=dict)
    bob_after_roll: dict[str, Any] = field(default_factory=dict)
    bob_sync_roll: str = ""
    plan: list[tuple[str, list[dict[str, Any]]]] = field(default_factory=list)
    at_secret: dict[str, Any] = field(default_factory=dict)
    bob_at_secret: dict[str, Any] = field(default_factory=dict)
    alice_log_after_commit: list[dict[str, Any]] = field(default_factory=list)
    alice_show_after_commit: dict[str, Any] = field(default_factory=dict)
    bob_choices_after_commit: dict[str, Any] = field(default_factory=dict)
    alice_final: dict[str, Any] = field(default_factory=dict)
    bob_final: dict[str, Any] = field(default_factory=dict)


@pytest.fixture(scope="module")
def flow(alice: Player, bob: Player, tmp_path_factory: pytest.TempPathFactory) -> Flow:
    game, started = start_game(alice, bob, "wind-e2e")
    result = Flow(game, started)
    result.at_join = alice.show(game)
    short = game[:8]

    # Orders from a JSON file (Alice), standard input (Alice), a TOML file (Bob).
    files = tmp_path_factory.mktemp("orders")
    json_file = files / "turn1.json"
    json_file.write_text(
        json.dumps(
            {
                "orders": [
                    {"type": "note", "text": "opening: all fleets at their bases"},
                    {"type": "done", "note": "no bases or PDUs were being deployed"},
                ]
            }
        ),
        encoding="utf-8",
    )
    alice.ok("orders", short, json_file)
    alice.ok("orders", short, "-", stdin='{"orders": [{"type": "done", "through": "2B11"}]}')
    exchange(alice, bob)
    toml_file = files / "turn1.toml"
    toml_file.write_text(
        '[[orders]]\ntype = "done"\nnote = "alliance scuttles nothing"\n', encoding="utf-8"
    )
    bob.ok("orders", short, toml_file)
    exchange(bob, alice)
    result.alice_after_orders = alice.show(short)
    result.bob_after_orders = bob.show(short)
    result.checklist = bob.show(short, "--checklist")

    # A roll, signed via --passphrase-command; Bob's sync answers it automatically.
    roll = hexpost(
        "--home",
        alice.home,
        "--passphrase-command",
        f'printf "%s\\n" "${PASSPHRASE_VAR}"',
        "orders",
        short,
        "-",
        env=alice.env(),
        stdin=json.dumps({"orders": [{"type": "roll", "dice": "2d6", "purpose": ROLL_PURPOSE}]}),
    )
    assert roll.returncode == 0, describe(roll)
    alice.sync()
    result.bob_sync_roll = bob.sync()
    alice.sync()
    result.alice_after_roll = alice.show(short)
    result.bob_after_roll = bob.show(short)

    # Walk to the first secret step, alternating between the seats as the checklist demands.
    players = {"coalition": alice, "alliance": bob}
    result.plan = plan_walk(alice.home, game, SECRET_STEP, ("alliance", saves.ATTACK))
    # The walk is scaffolding (dozens of packets), so it goes through `tui.cli.main` in-process;
    # everything asserted on below is still read back through real subprocesses.
    deliver(players, short, result.plan)
    result.at_secret = alice.show(short)
    result.bob_at_secret = bob.show(short)

    # Commit and reveal: Alice must not see Bob's choice before both have committed.
    bob.orders(short, [{"type": "secret", "choice": BOB_SECRET}])
    exchange(bob, alice)
    result.alice_log_after_commit = alice.json("log", short)
    result.alice_show_after_commit = alice.show(short)
    result.bob_choices_after_commit = bob.json("choices", short)
    alice.orders(short, [{"type": "secret", "choice": ALICE_SECRET}])
    result.alice_final, result.bob_final = settle(alice, bob, short)
    return result


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
    assert (
        "damage-rounding=nearest-half-up  takes nearest-half-up, nearest-half-down, down, up "
        "(rule 302.4)\n    Rounding of potential x table percentage"
    ) in done.stdout
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
    for shown in (
        "its set-up hexes are 1207, 1307, 1407 (600.0)",  # a placement refused
        "KLI collects 9 EP",  # income, by the engine
        "1307->1201 needs 7 hexes, allowance 6 (203.1)",  # a move refused
        "KZI reacts with CC KZI-0001, BC KZI-0002 1205->1305",  # reaction movement
        "Battle hexes: 1305 (KLI 4 ships vs KZI 2 ships)",  # the combat phase's list
    ):
        assert shown in done.stdout, shown
    paced = re.search(
        r"hand-offs: (\d+), (\d+) waiting for a player, (\d+) for a hexpost", done.stdout
    )
    assert paced is not None, done.stdout[-500:]
    total, human, machine = map(int, paced.groups())
    assert total == human + machine and human > 0 and machine > 0  # the reveals were a hexpost's


# --- the flow ---------------------------------------------------------------------------------


def test_new_prints_the_game_id_and_bob_sees_the_invitation(flow: Flow, bob: Player) -> None:
    game = flow.game
    assert len(game) == 32 and int(game, 16) >= 0
    invitation = flow.started["bob_sync_invite"]
    assert "invitation" in invitation and "Alice" in invitation and game[:8] in invitation
    rows = json.loads(flow.started["bob_games_invited"])
    row = next(r for r in rows if r["game"] == game)
    assert (row["status"], row["my_seat"], row["name"]) == ("invited", "alliance", "wind-e2e")
    invited = json.loads(flow.started["bob_show_invited"])
    seats = {s["seat"]: s for s in invited["seats"]}
    assert seats["coalition"]["name"] == "Alice"
    assert seats["alliance"]["fingerprint"] is None
    assert invited["waiting_for"] == ["alliance"]
    assert "joined wind-e2e as alliance" in flow.started["accept"]


def test_show_json_has_the_contract_fields_after_join(
    flow: Flow, alice: Player, bob: Player
) -> None:
    record = flow.at_join
    assert record.keys() >= SHOW_KEYS
    assert record["game"] == flow.game and record["name"] == "wind-e2e"
    assert record["ruleset"].startswith("fe/") and record["scenario"] == SCENARIO
    assert record["seq"] == 1 + SETUP_PACKETS
    assert len(bytes.fromhex(record["state_hash"])) == 32
    seats = {s["seat"]: s for s in record["seats"]}
    assert seats["coalition"] == {
        "seat": "coalition",
        "name": "Alice",
        "address": "alice@example.org",
        "fingerprint": alice.fingerprint,
    }
    assert seats["alliance"]["name"] == "Bob"
    assert seats["alliance"]["fingerprint"] == bob.fingerprint
    assert {"number", "label", "tag"} <= record["turn"].keys()
    assert record["turn"]["tag"] == "T1 Fall Y168"
    assert record["turn"]["number"] == 1
    assert record["phasing"] == "coalition"
    assert record["step"] == "1A1"
    assert record["waiting_for"] == ["coalition"]
    assert record["pending"][0]["step"] == "1A1"
    assert record["pending"][0]["seats"] == ["coalition"]
    assert record["frozen"] is None
    assert record["rolls"] == []


def test_orders_from_json_toml_and_stdin_reach_both_homes(flow: Flow) -> None:
    a, b = flow.alice_after_orders, flow.bob_after_orders
    assert a.keys() >= SHOW_KEYS
    assert b.keys() >= SHOW_KEYS
    assert a["seq"] == b["seq"] == 4 + SETUP_PACKETS
    assert a["state_hash"] == b["state_hash"]
    assert a["step"] == b["step"] == "3A-1A"
    assert a["waiting_for"] == ["coalition"]
    assert (a["my_seat"], b["my_seat"]) == ("coalition", "alliance")


def test_checklist_statuses(flow: Flow) -> None:
    items = flow.checklist["checklist"]
    assert items and all({"step", "title", "actor", "kind", "status"} <= i.keys() for i in items)
    status = {item["step"]: item["status"] for item in items}
    assert status["1A1"] == status["1A2"] == status["2B11"] == "done"
    assert status["3A-1A"] == "current"
    assert [i["step"] for i in items if i["status"] == "current"] == ["3A-1A"]
    kinds = {item["step"]: item["kind"] for item in items}
    assert (kinds["1C3"], kinds["3B2"], kinds["1A1"]) == ("automatic", "decision", "manual")
    assert status[SECRET_STEP] == "todo"
    assert {i["status"] for i in items} <= {"done", "current", "todo", "skipped"}
    assert next(i for i in items if i["step"] == SECRET_STEP)["kind"] == "secret"


def test_show_at_an_earlier_packet(flow: Flow, bob: Player) -> None:
    then = bob.show(flow.game[:8], "--at", str(1 + SETUP_PACKETS))
    assert then["seq"] == 1 + SETUP_PACKETS
    assert then["state_hash"] == flow.at_join["state_hash"]
    assert then["step"] == "1A1"
    assert then["waiting_for"] == ["coalition"]


def test_roll_is_answered_by_the_other_side_and_shown(flow: Flow) -> None:
    assert "applied" in flow.bob_sync_roll and "sent" in flow.bob_sync_roll
    a, b = flow.alice_after_roll, flow.bob_after_roll
    assert a["seq"] == b["seq"] == 6 + SETUP_PACKETS
    assert a["state_hash"] == b["state_hash"]
    assert a["rolls"] == b["rolls"]
    (roll,) = a["rolls"]
    assert roll["purpose"] == ROLL_PURPOSE
    assert roll["event"]
    assert len(roll["dice"]) == 2 and all(1 <= d <= 6 for d in roll["dice"])
    assert roll["seat"] == "coalition"


def test_walk_to_the_secret_step_uses_through(flow: Flow) -> None:
    assert any("through" in order for _, orders in flow.plan for order in orders)
    assert {seat for seat, _ in flow.plan} == {"coalition", "alliance"}
    record = flow.at_secret
    assert record["step"] == SECRET_STEP
    assert record["pending"][0]["step"] == SECRET_STEP
    assert record["pending"][0]["kind"] == "secret"
    assert record["waiting_for"][0] == "alliance"  # the attacker (515.15)
    assert (flow.bob_at_secret["seq"], flow.bob_at_secret["state_hash"]) == (
        record["seq"],
        record["state_hash"],
    )


def test_secret_choice_stays_hidden_until_both_committed(flow: Flow) -> None:
    texts = [text for record in flow.alice_log_after_commit for text in record["events"]]
    assert any("committed" in text for text in texts)
    assert not any(BOB_SECRET_TEXT in text for text in texts)
    assert flow.alice_show_after_commit["waiting_for"] == ["coalition"]


def test_choices_after_a_commitment_say_the_seat_owes_nothing(flow: Flow) -> None:
    """Found in a game played from the command line: after Bob committed his secret choice,
    `hexpost choices` still said he owed the step and offered its template, and sending it
    was refused (the coalition owed the next move)."""
    record = flow.bob_choices_after_commit
    assert not record["owes"] and record["orders"] == [], record


def test_secret_choices_are_revealed_to_both(flow: Flow, alice: Player, bob: Player) -> None:
    a, b = flow.alice_final, flow.bob_final
    assert a["state_hash"] == b["state_hash"] and a["seq"] == b["seq"]
    assert a["step"] != SECRET_STEP
    for player in (alice, bob):
        texts = [t for r in player.json("log", flow.game[:8]) for t in r["events"]]
        assert any(BOB_SECRET_TEXT in t and f"coalition: {ALICE_SECRET}" in t for t in texts)


def test_games_json_lists_the_game(flow: Flow, alice: Player) -> None:
    rows = alice.json("games")
    row = next(r for r in rows if r["game"] == flow.game)
    assert row["name"] == "wind-e2e"
    assert row["my_seat"] == "coalition"
    assert row["status"] == "active"
    assert row["seq"] == flow.alice_final["seq"]
    assert row["frozen"] is None
    assert row["step"] == flow.alice_final["step"]
    assert row["waiting_for"] == flow.alice_final["waiting_for"]


def test_log_json_lists_every_packet(flow: Flow, bob: Player) -> None:
    records = bob.json("log", flow.game[:8])
    assert [r["seq"] for r in records] == list(range(flow.bob_final["seq"] + 1))
    assert [r["kind"] for r in records[:2]] == ["genesis", "join"]
    assert [r["seat"] for r in records[:2]] == ["coalition", "alliance"]
    assert any("sets up" in t for t in records[2]["events"])
    first = 2 + SETUP_PACKETS
    assert any("opening: all fleets at their bases" in t for t in records[first]["events"])
    assert any("alliance scuttles nothing" in t for t in records[first + 2]["events"])
    assert all(len(bytes.fromhex(r["packet"])) == 32 for r in records)


def test_verify_gives_the_same_hash_on_both_sides(flow: Flow, alice: Player, bob: Player) -> None:
    hashes = []
    for player in (alice, bob):
        out = player.ok("verify", flow.game[:8])
        assert f"verified {flow.alice_final['seq'] + 1} packets" in out
        last = out.strip().splitlines()[-1]
        assert last.startswith("state hash ")
        hashes.append(last.removeprefix("state hash "))
    assert hashes[0] == hashes[1] == flow.alice_final["state_hash"]


def test_export_and_import_into_a_third_home(
    flow: Flow, alice: Player, tmp_path_factory: pytest.TempPathFactory
) -> None:
    where = tmp_path_factory.mktemp("carol")
    archive = where / "wind.hxa"
    alice.ok("export", flow.game[:8], "-o", archive)
    assert stat.S_IMODE(archive.stat().st_mode) == 0o600
    carol = Player("Carol", "carol@example.org", where / "home")
    assert "imported wind-e2e" in carol.ok("import", archive)
    out = carol.ok("verify", flow.game)
    assert f"state hash {flow.alice_final['state_hash']}" in out
    record = carol.show(flow.game[:8])
    assert record["state_hash"] == flow.alice_final["state_hash"]
    assert record["my_seat"] == "coalition"
    again = carol.run("import", archive)
    assert_refused(again, "already in this home")


def test_backup_makes_a_home_that_holds_the_games(
    alice: Player, quiet_game: str, tmp_path: Path
) -> None:
    copy = tmp_path / "alice backup"
    games = len(alice.json("games"))
    out = alice.ok("backup", copy)
    assert out.startswith(f"backed up the identity key, {games} game{'s' * (games != 1)} (")
    assert f"to play from it after a loss: hexpost --home '{copy}' restored" in out
    restored = Player("Alice", "alice@example.org", copy, ALICE_PASSPHRASE)
    assert restored.show(quiet_game)["state_hash"] == alice.show(quiet_game)["state_hash"]
    assert "state hash " in restored.ok("verify", quiet_game)
    note = "this home is a backup copy taken"
    listed = restored.ok("games")
    assert note in listed  # on the game whose move is Alice's
    assert listed.startswith("This home is a backup copy taken ")  # and above every game
    as_json = restored.run("games", "--json")  # the note on stderr, the list the same JSON
    assert "This home is a backup copy taken " in as_json.stderr
    names = [game["name"] for game in alice.json("games")]
    assert [game["name"] for game in json.loads(as_json.stdout)] == names
    rules = rules_of(copy, quiet_game)
    assert rules is not None
    setup = json.dumps({"orders": setup_items(rules)})
    assert_refused(restored.run("orders", quiet_game, "-", stdin=setup), note)
    assert restored.seq(quiet_game) == 1
    assert "is now the home you play from" in restored.ok("restored")
    assert "nothing to do" in restored.ok("restored")
    assert "backup copy" not in restored.ok("games")
    assert restored.run("games", "--json").stderr == ""
    assert_refused(alice.run("backup", copy), str(copy), "is not empty")
    assert_refused(alice.run("resend", quiet_game, "--every-seat"), "--every-seat needs --from")


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
