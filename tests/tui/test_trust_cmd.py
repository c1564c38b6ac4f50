"""The trust commands as a player runs them: `hexpost evidence` on a game frozen by a real
equivocation, `hexpost verify-evidence` in a fresh process with no home, `hexpost verify`
saying the game is frozen, export and import keeping the freeze; `hexpost claim` refused before
the reply window passes and sent after it through a shared folder to the other home, whose
`games` and `log` show it; the app's games list and game screen show an open claim.

The homes are built in-process (`tests.saves.conftest.Player`: unencrypted keys, the counter
clock, loopback mail); every command under test runs as a real `hexpost` subprocess.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Static

from engine.core.owed import pending
from engine.core.packets import fingerprint
from engine.fe import RULESET
from mail.loopback import LoopbackNetwork
from saves import claims, evidence
from tests.saves.conftest import Player, create_game, now, start_game
from tests.tui.conftest import assert_refused, clean_env, describe, hexpost
from tests.tui.test_app import app_for, open_game, settle

SIZE = (80, 24)


class Homes:
    def __init__(self, tmp_path: Path) -> None:
        self.network = LoopbackNetwork()
        self.alice = Player(tmp_path / "alice", "Alice", "alice@example.org", self.network)
        self.bob = Player(tmp_path / "bob", "Bob", "bob@example.org", self.network)
        self.game = start_game(self.alice, self.bob)
        self.tmp = tmp_path

    def close(self) -> None:
        self.alice.close()
        self.bob.close()


@pytest.fixture
def homes(tmp_path: Path) -> Iterator[Homes]:
    found = Homes(tmp_path)
    yield found
    found.close()


def run(player: Player, *args: str | Path) -> Any:
    return hexpost("--home", player.home.path, *args)


def ok(player: Player, *args: str | Path) -> str:
    done = run(player, *args)
    assert done.returncode == 0, describe(done)
    assert "Traceback" not in done.stderr, describe(done)
    return str(done.stdout)


def _freeze_by_equivocation(homes: Homes) -> tuple[bytes, bytes]:
    """Alice's home and a copy of it sign different packets for one position; Bob sees both."""
    twin = homes.alice.copy_home(homes.tmp / "alice-copy", "AliceCopy", homes.network)
    try:
        a = homes.alice.replica.submit(homes.game, [{"type": "note", "text": "east"}], now=now())
        b = twin.replica.submit(homes.game, [{"type": "note", "text": "west"}], now=now())
        first, second = homes.alice.packet(homes.game, a.seq), twin.packet(homes.game, b.seq)
    finally:
        twin.close()
    bob = homes.bob.replica
    assert bob.receive(first, source="t", now=now()).status == "applied"
    assert bob.receive(second, source="t", now=now()).status == "equivocation"
    return first, second


# --- evidence -----------------------------------------------------------------------------------


def test_evidence_is_shown_written_and_verified_by_anyone(homes: Homes) -> None:
    game = homes.game.hex()
    out_file = homes.tmp / "proof.msgpack"
    said = ok(homes.bob, "evidence", game[:10], "-o", out_file)
    assert "has no evidence: it is not frozen" in said
    assert not out_file.exists()

    _freeze_by_equivocation(homes)
    (row,) = evidence.stored(homes.bob.replica.store, homes.game)
    ids = [pid.hex() for pid in evidence.packet_ids(row)]
    expected = (
        f"PROOF: seat coalition, key fingerprint {fingerprint(homes.alice.public_key)}, signed "
        f"two different packets for position {row.seq}: ids {ids[0][:16]} and {ids[1][:16]}"
    )

    shown = ok(homes.bob, "evidence", game[:10], "--output", out_file)
    assert "is FROZEN: equivocation: coalition signed two different packets" in shown
    assert f"evidence 1 of 1: equivocation at position {row.seq}, seat coalition" in shown
    assert f"packet {ids[0]}" in shown and f"packet {ids[1]}" in shown
    assert expected in shown
    assert f"hexpost verify-evidence {out_file}" in shown
    record = json.loads(ok(homes.bob, "evidence", game[:10], "-o", out_file, "--json"))
    assert record["file"] == str(out_file)
    assert record["frozen"].startswith("equivocation")
    (piece,) = record["evidence"]
    assert {k: piece[k] for k in ("kind", "position", "seat", "packets", "verdict")} == {
        "kind": "equivocation",
        "position": row.seq,
        "seat": "coalition",
        "packets": ids,
        "verdict": expected,
    }
    assert piece["fingerprint"] == fingerprint(homes.alice.public_key)

    # A fresh process with no home at all: nothing is read or made there.
    nowhere = homes.tmp / "no-home"
    done = hexpost("verify-evidence", out_file, env=clean_env(HEXPOST_HOME=str(nowhere)))
    assert done.returncode == 0, describe(done)
    assert done.stdout.splitlines()[0] == expected
    assert not nowhere.exists()
    proven = json.loads(
        hexpost(
            "verify-evidence", out_file, "--json", env=clean_env(HEXPOST_HOME=str(nowhere))
        ).stdout
    )
    assert proven["proven"] is True and proven["pieces"][0]["verdict"] == expected

    # One byte changed: refused, saying what does not hold.
    data = out_file.read_bytes()
    tampered = homes.tmp / "tampered.msgpack"
    at = data.index(homes.bob.packet(homes.game, row.seq)) + 20  # inside the first signature
    tampered.write_bytes(data[:at] + bytes([data[at] ^ 0x40]) + data[at + 1 :])
    line = assert_refused(hexpost("verify-evidence", tampered), f"{tampered}: NOT PROVEN")
    assert "accused packet 1" in line
    answer = hexpost("verify-evidence", tampered, "--json")
    assert answer.returncode == 1 and json.loads(answer.stdout)["proven"] is False
    assert_refused(hexpost("verify-evidence", homes.tmp / "missing"), "cannot read")


def test_verify_without_a_game_checks_every_game_and_goes_on_past_a_damaged_one(
    homes: Homes,
) -> None:
    """What a weekly cron job runs: every game of the home, one line each. A packet damaged
    on disk in one game is named with what mends it, the other games are still checked, and
    the exit status and the one error line say which did not verify."""
    second = start_game(homes.alice, homes.bob)
    seq = homes.bob.row(homes.game).head_seq - 1
    with homes.bob.replica.store.transaction() as db:
        db.execute(
            "UPDATE packets SET data = x'c1' WHERE game_id = ? AND seq = ?", (homes.game, seq)
        )
    homes.bob.close()
    done = run(homes.bob, "verify")
    damaged = f"wind ({homes.game.hex()[:8]})"
    line = assert_refused(done, f"1 of 2 games did not verify: {damaged}")
    assert line.endswith(damaged)
    lines = done.stdout.splitlines()
    assert len(lines) == 2
    (bad,) = [text for text in lines if text.startswith("NOT VERIFIED ")]
    assert bad.startswith(f"NOT VERIFIED {damaged}: packet {seq}: ")
    assert "ask the other player to run `hexpost resend" in bad
    (good,) = [text for text in lines if text.startswith("verified ")]
    count = homes.alice.row(second).head_seq + 1
    assert good == (
        f"verified {count} packets of wind ({second.hex()[:8]}): every signature, link and "
        "state hash holds"
    )
    homes.bob.reopen()


def test_verify_counts_a_lone_packet_as_one(homes: Homes) -> None:
    """A game just created holds its first packet alone: verify (of the game, and of every
    game) says "1 packet", not "1 packets"."""
    game = create_game(homes.alice, name="lone").hex()
    homes.alice.close()
    shown = ok(homes.alice, "verify", game[:10]).splitlines()[0]
    assert shown == "verified 1 packet of lone: every signature, link and state hash holds"
    every = [line for line in ok(homes.alice, "verify").splitlines() if "lone" in line]
    assert every == [
        f"verified 1 packet of lone ({game[:8]}): every signature, link and state hash holds"
    ]
    homes.alice.reopen()


def test_verify_says_the_game_is_frozen_and_export_import_keep_it(homes: Homes) -> None:
    _freeze_by_equivocation(homes)
    game = homes.game.hex()
    done = run(homes.bob, "verify", game[:10])
    assert "stored packets of wind replay" in done.stdout
    assert_refused(
        done, "game wind is FROZEN (equivocation: coalition signed", "hexpost evidence wind"
    )
    every = run(homes.bob, "verify")  # (every game: the one, frozen)
    assert_refused(every, "1 of 1 games did not verify: wind")
    assert every.stdout.startswith(f"FROZEN wind ({game[:8]}): its ")
    assert "(equivocation: coalition signed" in every.stdout
    assert every.stdout.rstrip().endswith("see `hexpost evidence wind`")

    archive = homes.tmp / "wind.hexpost"
    ok(homes.bob, "export", game[:10], "--public", "-o", archive)
    third = homes.tmp / "third"
    assert hexpost("--home", third, "import", archive).returncode == 0
    assert_refused(hexpost("--home", third, "verify", game[:10]), "is FROZEN (equivocation")
    out = homes.tmp / "out.msgpack"
    moved = json.loads(ok_at(third, "evidence", game[:10], "-o", out, "--json"))
    kept = json.loads(ok(homes.bob, "evidence", game[:10], "-o", out, "--json"))
    assert moved["evidence"] == kept["evidence"]
    assert moved["frozen"] == kept["frozen"]


def ok_at(home: Path, *args: str | Path) -> str:
    done = hexpost("--home", home, *args)
    assert done.returncode == 0, describe(done)
    return str(done.stdout)


# --- late claims --------------------------------------------------------------------------------


def test_a_late_claim_travels_through_a_shared_folder_and_both_homes_show_it(
    homes: Homes,
) -> None:
    folder = homes.tmp / "shared"
    folder.mkdir()
    for player in (homes.alice, homes.bob):
        player.home.save_config({"transport": {"kind": "folder", "path": str(folder)}})
    state = homes.alice.replica.state(homes.game)
    owed = pending(RULESET, state)[0]
    players = {"coalition": homes.alice, "alliance": homes.bob}
    late = players[owed.seats[0]]
    claimant = next(p for p in players.values() if p is not late)
    game = homes.game.hex()[:10]
    before = {
        p.name: json.loads(ok(p, "show", game, "--json"))["state_hash"] for p in (late, claimant)
    }

    # The packets were stored on 2030-01-01 by the test clock: the window passes after that.
    assert_refused(run(claimant, "claim", game), "passes at 2030-01-04T", "no late claim before")
    assert_refused(run(late, "claim", game), "you owe the next move of wind yourself")
    claimant.replica.store.db.execute(
        "UPDATE games SET waiting_since = '2000-01-01T00:00:00Z' WHERE game_id = ?", (homes.game,)
    )
    said = ok(claimant, "claim", game, "--note", "still there?")
    assert said.startswith(f"late claim signed and queued: {seat_of(late, players)} has owed")
    assert "note: still there?" in said

    assert "sent 1 packet" in ok(claimant, "sync")
    received = ok(late, "sync")
    assert (
        f"received: claim: in game wind ({homes.game.hex()[:8]}): "
        f"{seat_of(claimant, players)} says {owed.seats[0]} has owed the move at packet "
        f"{state.core.seq} (step {owed.step}) since 2000-01-01T00:00:00Z"
    ) in received

    line = f"late claim: {late.name} owes {owed.step} since 2000-01-01"
    for player in (late, claimant):
        (row,) = json.loads(ok(player, "games", "--json"))
        assert row["claim"] == line
        assert line in ok(player, "games")
        log = json.loads(ok(player, "log", game, "--json"))
        kinds = [(r["seq"], r["kind"]) for r in log]
        assert kinds[-2:] == [(state.core.seq, kinds[-2][1]), (state.core.seq, "claim")]
        assert log[-1]["seat"] == seat_of(claimant, players)
        assert "late claim: " in log[-1]["events"][0] and "still there?" in log[-1]["events"][0]
        assert "claim" in ok(player, "log", game)
        assert json.loads(ok(player, "show", game, "--json"))["state_hash"] == before[player.name]
        assert line in ok(player, "show", game)


def seat_of(player: Player, players: dict[str, Player]) -> str:
    return next(seat for seat, p in players.items() if p is player)


async def test_the_app_shows_an_open_claim(homes: Homes) -> None:
    """The waiting seat's claim shows in its games list and on its game screen."""
    players = {"coalition": homes.alice, "alliance": homes.bob}
    owed = pending(RULESET, homes.alice.replica.state(homes.game))[0]
    late = players[owed.seats[0]]
    claimant = next(p for p in players.values() if p is not late)
    claims.make_claim(claimant.replica, homes.game, "2030-01-05T00:00:00Z")
    line = f"late claim: {late.name} owes {owed.step} since 2030-01-01"
    app = app_for(claimant)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        cells = [str(cell) for cell in app.screen.query_one(DataTable).get_row_at(0)]
        assert cells[5] == line
        screen = await open_game(pilot)
        assert line in str(screen.query_one("#game-status", Static).content)
