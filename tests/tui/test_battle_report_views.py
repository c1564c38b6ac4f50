"""The battle report in ``hexpost log`` and in the app's review (issue 14 item 13).

A home holds the golden campaign up to the end of its first battle round, imported as a game
archive (`tests.golden.first_battle`, `saves.archive`). The engine's report lines
(`engine.fe.battle_report`: a round's fire, its losses) are events of the packets that made
them, so the log prints them under those packets and the review shows them with them.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from saves.archive import FORMAT, VERSION, Archive, import_game
from saves.home import Home
from tests.golden.first_battle import FIRE, LOSSES, FirstRound, first_round
from tests.saves.conftest import now
from tests.tui.test_app import SIZE, settle
from tests.tui.test_hostile_text import run_cli
from tui.app import HexpostApp
from tui.screens.review import ReviewScreen
from tui.widgets.eventlog import EventLog

GAME = "battle"


@pytest.fixture(scope="module")
def battle() -> FirstRound:
    return first_round()


@pytest.fixture
def home(tmp_path: Path, battle: FirstRound) -> tuple[Path, str]:
    """A home with the battle imported as the alliance's game; its path and the game id."""
    path = tmp_path / "home"
    holder = Home(path)
    try:
        archive = Archive(
            format=FORMAT,
            version=VERSION,
            name=GAME,
            my_seat="alliance",
            status="active",
            packets=battle.packets,
        )
        row = import_game(holder.replica(), msgspec.msgpack.encode(archive), now=now())
    finally:
        holder.close()
    return path, row.game_id.hex()


def test_the_log_prints_the_report_under_the_packets_that_made_it(
    home: tuple[Path, str], battle: FirstRound
) -> None:
    path, _ = home
    code, out, err = run_cli(path, "log", GAME)
    assert code == 0, err
    assert max(len(line) for line in out.splitlines()) <= 80  # each event fits, wrapped
    lines = out.replace("\n" + " " * 11, " ").splitlines()  # (an event with its wrapped part)
    (fire,) = battle.reports(battle.fire_seq)
    losses = next(t for t in battle.reports(battle.losses_seq) if LOSSES.match(t))
    assert FIRE.match(fire)
    headers = {seq: lines.index(next(x for x in lines if x.startswith(f"#{seq} "))) for seq in (
        battle.fire_seq, battle.losses_seq
    )}  # fmt: skip
    assert lines.index(f"       {fire}") > headers[battle.fire_seq]
    assert lines.index(f"       {losses}") > headers[battle.losses_seq]
    code, out, _ = run_cli(path, "log", GAME, "--json")
    records = {r["seq"]: r["events"] for r in json.loads(out) if r["kind"] != "claim"}
    assert fire in records[battle.fire_seq] and losses in records[battle.losses_seq]


KEYS = [
    "seat", "flagship", "force", "potential", "bir", "vbir_die", "ew", "die", "permille",
    "damage", "directed", "allocated", "plus", "minus", "losses",
]  # fmt: skip


def test_show_json_has_the_battle_s_record_per_round_and_side(
    home: tuple[Path, str], battle: FirstRound
) -> None:
    """``show --json``: after the dice, the round's figures and no allocation yet; at the
    round's end, the allocations too, and the report's lines as the events said them."""
    path, _ = home
    code, out, err = run_cli(path, "show", GAME, "--at", str(battle.fire_seq), "--json")
    assert code == 0, err
    (fought,) = json.loads(out)["battles"]
    (first,) = fought["log"]
    sides = (first["attacker"], first["defender"])
    assert [list(side) for side in sides] == [KEYS, KEYS]
    for side in sides:
        assert isinstance(side["potential"], str) and side["damage"] >= 0
        assert 1 <= side["die"] <= 6 and side["bir"] == sides[0]["bir"]
        assert (side["allocated"], side["plus"], side["minus"]) == (None, None, None)
    assert fought["report"] == battle.reports(battle.fire_seq)
    code, out, _ = run_cli(path, "show", GAME, "--json")
    (fought,) = json.loads(out)["battles"]
    (first,) = fought["log"]
    for side in (first["attacker"], first["defender"]):
        assert side["allocated"] is not None and side["plus"] is not None
    assert fought["report"][1:] == battle.reports(battle.losses_seq)


def rendered(log: EventLog) -> str:
    """What the log widget drew, its wrapped lines joined again."""
    return " ".join(" ".join(strip.text for strip in log.lines).split())


async def test_the_review_shows_the_report_with_its_packet(
    home: tuple[Path, str], battle: FirstRound
) -> None:
    path, game_id = home
    (fire,) = battle.reports(battle.fire_seq)
    losses = next(t for t in battle.reports(battle.losses_seq) if LOSSES.match(t))
    app = HexpostApp(Home(path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(ReviewScreen(game_id, battle.fire_seq))
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.seq == battle.fire_seq
        log = screen.query_one(EventLog)
        assert (battle.fire_seq, "", "battle-report", fire) in log.rows
        assert " ".join(fire.split()) in rendered(log)
        screen.show_packet(battle.losses_seq)
        await settle(pilot)
        assert screen.seq == battle.losses_seq
        assert " ".join(losses.split()) in rendered(screen.query_one(EventLog))


def test_log_last_lists_only_the_last_packets(home: tuple[Path, str]) -> None:
    """``--last N``: the last N packets' records, so the last evening's moves of a long game
    need no paging through all of it; a count below 1 is refused by name."""
    path, _ = home
    code, out, err = run_cli(path, "log", GAME, "--json")
    assert code == 0, err
    every = [r["seq"] for r in json.loads(out) if r["kind"] not in ("claim", "chat")]
    code, out, err = run_cli(path, "log", GAME, "--json", "--last", "3")
    assert code == 0, err
    assert [r["seq"] for r in json.loads(out)] == every[-3:]
    code, out, err = run_cli(path, "log", GAME, "--last", "0")
    assert code == 1 and "--last 0: give a count of packets, 1 or more" in err, err
