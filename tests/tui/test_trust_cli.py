"""Trust under attack, through the real command line (`hexpost` as a subprocess).

Two homes share a folder. The tests damage a packet file in the folder, answer an invitation
from another address, decline a stranger's join, and feed a failing passphrase command: each
time the command line must name what happened, where, and what to do, with the exit status
saying whether the player has to act.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.tui.conftest import Player, assert_refused, describe

pytestmark = pytest.mark.timeout(300)


def _player(tmp_path: Path, name: str, folder: Path, passphrase: str | None = None) -> Player:
    player = Player(name, f"{name.lower()}@example.org", tmp_path / name.lower(), passphrase)
    player.create_identity()
    player.ok("transport", "folder", folder)
    return player


def _invite(alice: Player, bob: Player, name: str) -> str:
    game = alice.ok(
        "new", "--scenario", "tutorial", "--seat", "coalition", "--opponent", bob.address,
        "--opponent-seat", "alliance", "--name", name,
    ).strip()  # fmt: skip
    alice.sync()
    bob.sync()
    return game


def _files(folder: Path, seq: int) -> list[Path]:
    return sorted(folder.glob(f"hexpost-*-{seq:08d}-*.hxp"))


def test_a_damaged_packet_file_is_named_asked_for_and_resent(tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    alice, bob = _player(tmp_path, "Alice", folder), _player(tmp_path, "Bob", folder)
    game = _invite(alice, bob, "bent")
    bob.ok("accept", game[:10])
    bob.sync()
    joined = alice.sync()
    assert "Bob <bob@example.org> joined bent as alliance with key" in joined, joined
    assert "hexpost accept bent" in joined
    printed = alice.ok("accept", game[:10], "--fingerprint", bob.fingerprint)
    assert "packet 2 (the acceptance) signed and queued" in printed  # the Kzinti move first
    alice.sync()
    (sent,) = _files(folder, 2)
    data = bytearray(sent.read_bytes())
    data[20] ^= 0x01  # one byte of the signature, as a flaky sync tool might do
    sent.write_bytes(bytes(data))

    done = bob.run("sync")
    assert done.returncode == 1, describe(done)  # an item of a game Bob holds was refused
    line = next(x for x in done.stdout.splitlines() if x.startswith("received: rejected"))
    assert "bent packet 2 from coalition" in line, line
    assert sent.name in line  # where it came from
    assert "hexpost resend bent --from 2" in line
    games = bob.ok("games")
    assert "waiting for packet 2 from coalition (last copy was damaged)" in games, games
    assert "waiting for packet 2" in " ".join(bob.show(game[:10])["notes"])
    assert bob.run("sync").returncode == 0  # the same damaged file is not read again

    # Alice's own sync reads the damaged copy of her packet back and tells her.
    mine = alice.run("sync")
    assert mine.returncode == 1, describe(mine)
    assert "a damaged copy of our own packet 2 of bent" in mine.stdout

    assert_refused(alice.run("resend", "bent", "--from", "2", "--to", "1"), "--to 1 is before")
    assert_refused(alice.run("resend", "bent", "--to", "9"), "--to 9: game bent has packets 0")
    again = alice.ok("resend", "bent", "--from", "2", "--to", "2")
    assert again.strip() == "packet 2 of bent queued again: run `hexpost sync` to send it"
    alice.sync()
    assert len(_files(folder, 2)) == 2  # a new file name: the damaged one stays as it was
    healed = bob.run("sync")
    assert healed.returncode == 0, describe(healed)
    assert "applied" in healed.stdout
    assert "damaged" not in bob.ok("games")
    assert bob.seq(game[:10]) == 2

    # Without --from: what the other side may lack (nothing, after Bob's next packet).
    assert "nothing to resend" in bob.ok("resend", "bent")


def test_a_stranger_who_answers_the_invitation_is_flagged_and_can_be_declined(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "shared"
    alice, bob = _player(tmp_path, "Alice", folder), _player(tmp_path, "Bob", folder)
    mallory = Player("Mallory", "bob@example.org", tmp_path / "mallory")  # reads Bob's mail
    mallory.create_identity()
    mallory.ok("transport", "folder", folder)
    game = _invite(alice, bob, "taken")
    mallory.sync()
    # Mallory's home thinks the invitation is hers (it names her address), and answers first.
    mallory.ok("accept", game[:10])
    mallory.sync()
    joined = alice.sync()
    assert "Mallory <bob@example.org> joined taken as alliance" in joined, joined

    # Alice compares fingerprints with Bob: they differ, so hexpost refuses to accept.
    refused = alice.run("accept", game[:10], "--fingerprint", bob.fingerprint)
    assert_refused(refused, "does not match the key that joined", "hexpost decline")
    # Nor will it sign anything else before she decides.
    chat = alice.run("chat", game[:10], "hello?")
    assert_refused(chat, "Compare that fingerprint", "hexpost accept")
    assert "Mallory" in alice.ok("games") and "joined" in alice.ok("games")

    assert "declined the key that joined taken" in alice.ok("decline", game[:10])
    alice.sync()
    record = alice.show(game[:10])
    assert record["over"]
    log = json.dumps(alice.json("log", game[:10]))
    assert "declined the key of Mallory" in log


def test_an_unwanted_invitation_is_declined_and_its_creator_hears_at_once(
    tmp_path: Path,
) -> None:
    """Before, an invitee could only ignore an invitation, and its creator's game waited for
    a join that never came. Now one command answers no, and one sync tells the creator."""
    folder = tmp_path / "shared"
    alice, bob = _player(tmp_path, "Alice", folder), _player(tmp_path, "Bob", folder)
    game = _invite(alice, bob, "unwanted")
    assert "invitation" in bob.ok("games")
    printed = bob.ok("decline", game[:10], "--reason", "no time this winter")
    assert "declined the invitation to unwanted" in printed
    assert "hexpost sync" in printed
    for again in ("accept", "decline"):  # an answer is final
        assert_refused(bob.run(again, game[:10]), "game unwanted is over")
    bob.sync()
    told = alice.sync()
    assert (
        "Bob <bob@example.org> declined the invitation to unwanted (no time this winter)" in told
    ), told
    assert "the game is over" in told
    for player in (alice, bob):
        assert "over: Bob declined the invitation" in player.ok("games")
        assert player.show(game[:10])["over"]
    records = alice.json("log", game[:10])
    assert [r["kind"] for r in records if r.get("seq") == 1] == ["decline"]
    log = json.dumps(records)
    assert "declined the invitation to the alliance seat" in log
    assert "no time this winter" in log
    alice.ok("verify", game[:10])  # the whole chain, the decline included, replays


def test_a_failing_passphrase_command_never_echoes_what_it_printed(tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    alice = _player(tmp_path, "Alice", folder, passphrase="a good long passphrase")
    command = "echo 'my-secret-passphrase'; echo 'part of my-secret' >&2; exit 3"
    unlocked_by_command = Player(alice.name, alice.address, alice.home)  # no --passphrase-env
    done = unlocked_by_command.run("--passphrase-command", command, "chat", "nosuch", "hello")
    line = assert_refused(done, "--passphrase-command failed with exit code 3", "by hand")
    assert "secret" not in done.stderr + done.stdout, line


def test_a_player_resigns_on_their_move_and_both_homes_show_the_game_over(
    tmp_path: Path,
) -> None:
    """Before, a player who wanted to concede had no command for it (only the engine knew
    a resignation): the game stayed open on both sides for ever."""
    folder = tmp_path / "shared"
    alice, bob = _player(tmp_path, "Alice", folder), _player(tmp_path, "Bob", folder)
    game = _invite(alice, bob, "conceded")
    bob.ok("accept", game[:10])
    bob.sync()
    alice.sync()
    alice.ok("accept", game[:10])  # the creator accepts Bob's key: Bob sets up first
    alice.sync()
    bob.sync()
    # Off her move Alice's resignation is kept for her next one, and can be taken back.
    assert_refused(alice.run("resign", game[:10]), "add --yes to confirm")
    printed = alice.ok("resign", game[:10], "--yes", "--reason", "moving house")
    assert "you will resign conceded on your next move" in printed, printed
    assert "hexpost resign conceded --cancel" in printed and "hexpost chat" in printed
    assert "you asked to resign" in alice.ok("games")
    assert alice.show(game[:10])["resign_asked"]
    assert "took back your resignation of conceded" in alice.ok("resign", game[:10], "--cancel")
    assert "nothing to take back" in alice.ok("resign", game[:10], "--cancel")
    assert "you asked to resign" not in alice.ok("games")
    alice.ok("resign", game[:10], "--yes")  # asked again: Bob's resignation comes first
    assert_refused(
        bob.run("resign", game[:10], "--yes", "--reason", "two\nlines"),
        "the reason for resigning is one line of printable text",
    )
    assert not bob.show(game[:10])["over"]  # none of the refusals signed anything
    printed = bob.ok("resign", game[:10], "--yes", "--reason", "outplayed in the set-up")
    assert "resigned conceded" in printed and "the game is over" in printed, printed
    assert "hexpost sync" in printed
    bob.sync()
    told = alice.sync()
    assert "conceded: 1 packet from Bob (alliance)\n  resigned: outplayed in the set-up" in told, (
        told
    )
    assert alice.show(game[:10])["resign_asked"] == ""  # over: nothing left to resign
    for player in (alice, bob):
        assert "over: Bob resigned" in player.ok("games")
        assert player.show(game[:10])["over"]
        assert_refused(player.run("resign", game[:10], "--yes"), "game conceded is over")
    records = alice.json("log", game[:10])
    assert records[-1]["kind"] == "resign"
    alice.ok("verify", game[:10])


def test_resigning_asks_first_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    from tui import trust_cmd

    class Terminal:
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("sys.stdin", Terminal())
    for typed, resigns in (("y", True), (" YES ", True), ("", False), ("n", False)):
        monkeypatch.setattr("builtins.input", lambda question, typed=typed: typed)
        assert trust_cmd.confirmed_resignation("wind", "Resign wind?") is resigns

    def ended(question: str) -> str:
        raise EOFError

    monkeypatch.setattr("builtins.input", ended)
    assert trust_cmd.confirmed_resignation("wind", "Resign wind?") is False
