"""End-to-end tests of the `hexpost` command line, run as a real subprocess.

Two homes (Alice, coalition, passphrase via `--passphrase-env`; Bob, alliance, no passphrase)
share one folder transport and play a game of The Wind through the command line alone: invite,
accept, orders from JSON, TOML and standard input, a die roll answered automatically, a walk
through the sequence of play to a secret step, commit and reveal, verify on both sides, and an
export imported into a third home, and a backup. The identities, the refusals and the usage
errors are `tests.tui.test_cli_refusals`'.
"""

from __future__ import annotations

import json
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from engine.core.text import said
from tests.engine.fe.helpers import setup_items
from tests.saves import conftest as saves
from tests.tui.conftest import (
    ALICE_PASSPHRASE,
    PASSPHRASE_VAR,
    SCENARIO,
    Player,
    assert_refused,
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
        assert any(BOB_SECRET_TEXT in t and f"coalition: {said(ALICE_SECRET)}" in t for t in texts)


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
    assert_refused(again, f"{archive}: game ", "is already in this home")


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
