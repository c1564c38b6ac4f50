"""Helpers for the end-to-end command-line tests: run the real `hexpost` as a subprocess.

The commands under test run as `python -m tui.cli` in a child process, exactly as a player's
shell would, with their own home folder (`--home`), so nothing leaks into the user's real
hexpost home. Scaffolding that is not under test (starting a game, walking it through dozens
of steps: `start_game(in_process=True)`, `joined_tutorial`, `deliver`) runs the same entry
point in-process (`Player.in_process`): a process costs a few tenths of a second. Two
players share one folder transport: Alice (coalition) protects her key with a passphrase
read through `--passphrase-env`, Bob (alliance) chose `--no-passphrase`, so both code paths
run on every signing command.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from mail.loopback import LoopbackNetwork
from tests.saves import conftest as saves
from tests.tui.pilots import shorter_idle_windows

ROOT = Path(__file__).resolve().parents[2]
PASSPHRASE_VAR = "HEXPOST_TEST_PASSPHRASE"
ALICE_PASSPHRASE = "correct horse battery staple"
SCENARIO = "the-wind"


@pytest.fixture(autouse=True, scope="session")
def quick_pilot() -> Iterator[None]:
    """Textual's pilot waits for idle in 5 ms windows, not 20 ms, in every app test: most of
    their wall time was those windows (`tests.tui.pilots`); the app's own timing is untouched."""
    with shorter_idle_windows():
        yield


@pytest.fixture
def on_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """`tui.cli` is run on a terminal, as it asks before it opens the app."""
    from tui import cli

    monkeypatch.setattr(cli, "on_terminal", lambda: True)


def clean_env(**extra: str) -> dict[str, str]:
    """The environment for a child: no stray hexpost settings from the caller's shell.

    Whether the child may write bytecode is left to the caller (``make unit`` lets it): a
    child that could not would compile every module it imports again, which is about 0.13 s of
    each `hexpost` command's 0.33 s, hundreds of times in one run of the suite."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("HEXPOST_HOME", PASSPHRASE_VAR)
    }
    env.update(extra)
    return env


def hexpost(
    *args: str | Path, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `hexpost ARGS` and return what it did (never raises on a non-zero exit)."""
    return subprocess.run(
        [sys.executable, "-m", "tui.cli", *map(str, args)],
        cwd=ROOT,
        env=env if env is not None else clean_env(),
        input=stdin,
        stdin=subprocess.DEVNULL if stdin is None else None,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def describe(done: subprocess.CompletedProcess[str]) -> str:
    return (
        f"hexpost {' '.join(done.args[3:])} exited {done.returncode}\n"
        f"--- stdout\n{done.stdout}--- stderr\n{done.stderr}"
    )


def assert_refused(done: subprocess.CompletedProcess[str], *needles: str) -> str:
    """Exit 1 with one `hexpost: ...` line on stderr naming each of ``needles``; no traceback."""
    assert done.returncode == 1, describe(done)
    assert "Traceback" not in done.stderr, describe(done)
    assert "Traceback" not in done.stdout, describe(done)
    lines = done.stderr.splitlines()
    assert len(lines) == 1, describe(done)
    line = lines[0]
    assert line.startswith("hexpost: "), describe(done)
    for needle in needles:
        assert needle in line, f"{needle!r} not in {line!r}"
    return line


def assert_usage_error(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 2, describe(done)
    assert "Traceback" not in done.stderr, describe(done)
    assert "usage:" in done.stderr, describe(done)


@dataclass
class Player:
    """One player's home; ``passphrase`` is None for a key stored without one."""

    name: str
    address: str
    home: Path
    passphrase: str | None = None
    fingerprint: str = field(default="", init=False)

    def env(self, **extra: str) -> dict[str, str]:
        if self.passphrase is not None:
            extra.setdefault(PASSPHRASE_VAR, self.passphrase)
        return clean_env(**extra)

    def global_args(self, *, unlock: bool = True) -> list[str]:
        args = ["--home", str(self.home)]
        if self.passphrase is not None and unlock:
            args += ["--passphrase-env", PASSPHRASE_VAR]
        return args

    def run(
        self, *args: str | Path, stdin: str | None = None, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return hexpost(*self.global_args(), *args, env=env or self.env(), stdin=stdin)

    def ok(self, *args: str | Path, stdin: str | None = None) -> str:
        """Run a command that must succeed; returns its standard output."""
        done = self.run(*args, stdin=stdin)
        assert done.returncode == 0, describe(done)
        assert "Traceback" not in done.stderr, describe(done)
        return done.stdout

    def json(self, *args: str | Path) -> Any:
        return json.loads(self.ok(*args, "--json"))

    def show(self, game: str, *extra: str) -> dict[str, Any]:
        record = self.json("show", game, *extra)
        assert isinstance(record, dict)
        return record

    def seq(self, game: str) -> int:
        return int(self.show(game)["seq"])

    def sync(self) -> str:
        return self.ok("sync")

    def orders(self, game: str, orders: list[dict[str, Any]]) -> str:
        """Sign and queue ``orders`` read from standard input."""
        return self.ok("orders", game, "-", stdin=json.dumps({"orders": orders}))

    def in_process(self, *args: str | Path, stdin: str | None = None, unlock: bool = True) -> str:
        """Run a command through the same entry point (`tui.cli.main`) without a new process.

        Only for scaffolding that is not itself under test, such as walking a game through
        dozens of checklist steps: spawning a process per step would make the suite slow.
        ``unlock=False`` leaves out the passphrase (a sync then receives and sends, but signs
        no automatic replies), which saves an scrypt derivation where none is needed.
        """
        from tui import cli

        out, err = io.StringIO(), io.StringIO()
        argv = [*self.global_args(unlock=unlock), *map(str, args)]
        whole = _built_parser(cli.build_parser)
        with (
            mock.patch.object(cli, "build_parser", lambda: whole),
            _environment(self.env()),
            _stdin(stdin),
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
        ):
            code = cli.main(argv)
        assert code == 0, f"hexpost {' '.join(argv)} exited {code}: {err.getvalue()}"
        return out.getvalue()

    def create_identity(self) -> str:
        extra = [] if self.passphrase is not None else ["--no-passphrase"]
        out = self.ok("identity", "create", "--name", self.name, "--address", self.address, *extra)
        self.fingerprint = self.json("identity", "show")["fingerprint"]
        return out


@functools.cache
def _built_parser(build: Callable[[], argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """The whole command line's parser, built once for every in-process command: building it
    takes some 25 ms (argparse looks up a translation for each help text), a fifth of an
    in-process `orders` or `sync`. Parsing leaves a parser as it was (an appending option
    copies its default), so one serves them all; the real processes still build their own."""
    return build()


@contextlib.contextmanager
def _environment(env: dict[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def _stdin(text: str | None) -> Iterator[None]:
    saved = sys.stdin
    sys.stdin = io.StringIO(text or "")
    try:
        yield
    finally:
        sys.stdin = saved


def exchange(sender: Player, receiver: Player, *, in_process: bool = False) -> None:
    """Send what ``sender`` queued and let ``receiver`` take it in (and auto-reply);
    ``in_process``: through `Player.in_process`, for scaffolding."""
    for player in (sender, receiver):
        if in_process:
            player.in_process("sync")
        else:
            player.sync()


@pytest.fixture(scope="module")
def shared_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("shared-folder")


@pytest.fixture(scope="module")
def alice(tmp_path_factory: pytest.TempPathFactory, shared_folder: Path) -> Player:
    player = Player(
        "Alice",
        "alice@example.org",
        tmp_path_factory.mktemp("alice") / "home",
        ALICE_PASSPHRASE,
    )
    player.create_identity()
    player.ok("transport", "folder", shared_folder)
    return player


@pytest.fixture(scope="module")
def bob(tmp_path_factory: pytest.TempPathFactory, shared_folder: Path) -> Player:
    player = Player("Bob", "bob@example.org", tmp_path_factory.mktemp("bob") / "home")
    player.create_identity()
    player.ok("transport", "folder", shared_folder)
    return player


def start_game(
    alice: Player, bob: Player, name: str, *, setup: bool = True, in_process: bool = False
) -> tuple[str, dict[str, str]]:
    """Alice invites Bob, Bob accepts, and (unless ``setup`` is False) both set up their
    empires with the default placements; returns the game id and what each step printed.

    ``in_process``: every command through `Player.in_process`, for a test whose subject comes
    after the game's start (some fifteen `hexpost` processes fewer; `tests/tui/test_cli.py`
    starts its game through real processes)."""

    def run(player: Player, *args: str | Path) -> str:
        return player.in_process(*args) if in_process else player.ok(*args)

    out: dict[str, str] = {}
    out["new"] = run(
        alice,
        "new",
        "--scenario",
        SCENARIO,
        "--seat",
        "coalition",
        "--opponent",
        bob.address,
        "--opponent-seat",
        "alliance",
        "--name",
        name,
    )
    game = out["new"].strip()
    out["alice_sync_invite"] = run(alice, "sync")
    out["bob_sync_invite"] = run(bob, "sync")
    out["bob_games_invited"] = run(bob, "games", "--json")
    out["bob_show_invited"] = run(bob, "show", game[:10], "--json")
    out["accept"] = run(bob, "accept", game[:10])
    exchange(bob, alice, in_process=in_process)
    out["alice_accept"] = accept_join(alice, bob, game, in_process=in_process)
    if setup:
        play_setup({"coalition": alice, "alliance": bob}, game)
    return game, out


def accept_join(creator: Player, joiner: Player, game: str, *, in_process: bool = False) -> str:
    """The creator accepts the key that joined (`hexpost accept`); when that signs a packet
    (the joiner moves next), it is delivered. Returns what `accept` printed."""
    accept = ("accept", game[:10])
    printed = creator.in_process(*accept) if in_process else creator.ok(*accept)
    if "signed and queued" in printed:
        exchange(creator, joiner, in_process=in_process)
    return printed


def joined_tutorial(alice: Player, bob: Player, name: str) -> str:
    """A tutorial game Alice (coalition) created and Bob (alliance) joined, his key accepted,
    at its first set-up step (the alliance's KZI): its id's first ten digits.

    Scaffolding for tests whose subject comes later, so it runs in-process (`Player.in_process`);
    `tests/tui/test_trust_cli.py` invites and joins through real processes."""
    game = alice.in_process(
        "new", "--scenario", "tutorial", "--seat", "coalition", "--opponent", bob.address,
        "--opponent-seat", "alliance", "--name", name,
    ).strip()  # fmt: skip
    exchange(alice, bob, in_process=True)
    bob.in_process("accept", game[:10])
    exchange(bob, alice, in_process=True)
    accept_join(alice, bob, game, in_process=True)
    return game[:10]


def set_up_tutorial(alice: Player, bob: Player, game: str) -> None:
    """Both seats of a `joined_tutorial` place their fleets (the alliance first), in-process."""
    from tests.engine.fe.steps.tutorial_states import TUTORIAL_SETUP

    seats = ("alliance", "coalition")
    deliver({"coalition": alice, "alliance": bob}, game, [(s, TUTORIAL_SETUP[s]) for s in seats])


def deliver(
    players: dict[str, Player], game: str, plan: Iterable[tuple[str, list[dict[str, Any]]]]
) -> None:
    """Each (seat, orders) of ``plan`` signed by that seat's player and taken in by the other.

    Scaffolding for walks whose packets are not what is tested (dozens of them at times), so
    it runs `tui.cli.main` in-process; the syncs carry no passphrase (no automatic replies
    are signed on the way)."""
    for seat, orders in plan:
        owner = players[seat]
        other = next(p for p in players.values() if p is not owner)
        owner.in_process("orders", game[:10], "-", stdin=json.dumps({"orders": orders}))
        owner.in_process("sync", unlock=False)
        other.in_process("sync", unlock=False)


def rules_of(home: Path, game: str) -> Any:
    """The ruleset state of ``game`` as ``home`` holds it now (None before it begins), read
    in-process: scaffolding for tests that plan what the command line then carries out."""
    from saves.home import Home

    holder = Home(home)
    try:
        replica = holder.replica()
        return replica.state(replica.find(game).game_id).rules
    finally:
        holder.close()


def play_setup(players: dict[str, Player], game: str) -> None:
    """Each seat places its empires' starting fleets (default placements) until turn 1.

    Scaffolding, so it runs `tui.cli.main` in-process like the long walks do.
    """
    from engine.fe import RULESET
    from tests.engine.fe.helpers import setup_items

    while True:
        rules = rules_of(next(iter(players.values())).home, game)
        if rules is None or not rules.setup:
            return
        seat = RULESET.pending(rules)[0].seats[0]
        deliver(players, game, [(seat, setup_items(rules))])


@pytest.fixture(scope="module")
def quiet_game(alice: Player, bob: Player) -> str:
    """A joined game left at packet 1 (coalition owes 0-LYR, the first set-up step): the
    refusal tests' target."""
    game, _ = start_game(alice, bob, "quiet", setup=False, in_process=True)
    assert alice.seq(game) == 1
    assert bob.seq(game) == 1
    return game


@pytest.fixture
def two_homes(tmp_path: Path) -> Iterator[tuple[saves.Player, saves.Player]]:
    """Alice's and Bob's homes (`tests.saves.conftest.Player`: identities, no games) on one
    loopback network, closed afterwards."""
    network = LoopbackNetwork()
    alice = saves.Player(tmp_path / "alice", "Alice", "alice@example.org", network)
    bob = saves.Player(tmp_path / "bob", "Bob", "bob@example.org", network)
    yield alice, bob
    alice.close()
    bob.close()


@pytest.fixture
def wind(tmp_path: Path) -> Iterator[saves.Player]:
    """Alice's home with The Wind set up (every starting fleet placed), at turn 1 (a
    `tests.saves.conftest.Player`, not this module's command-line `Player`)."""
    network = LoopbackNetwork()
    alice = saves.Player(tmp_path / "alice", "Alice", "alice@example.org", network)
    bob = saves.Player(tmp_path / "bob", "Bob", "bob@example.org", network)
    saves.start_game(alice, bob)
    yield alice
    alice.close()
    bob.close()


@pytest.fixture
def tutorial(tmp_path: Path) -> Iterator[Any]:
    """The tutorial set up by two homes, at turn 1 step 1A1 (the coalition owes it): see
    `tests.tui.test_app.tutorial_homes`."""
    from tests.tui.test_app import tutorial_homes

    game = tutorial_homes(tmp_path)
    yield game
    game.alice.close()
    game.bob.close()
