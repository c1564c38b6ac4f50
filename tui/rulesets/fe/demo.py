"""F&E's `hexpost demo`: a game of the tutorial scenario played by two local seats, with no account.

Two homes in a temporary folder (Alice for the Klingons, Bob for the Kzinti) exchange packets
through the in-memory loopback transport: Alice creates the game and invites Bob, Bob accepts,
both set up their starting fleets (the engine checks every placement), the engine collects
the Klingon income, Alice asks for a die roll (Bob's client answers it automatically with
fresh entropy), Bob signs a standing order so the engine completes his routine steps, the
Klingon Strike Force moves into Kzinti space (a move past its allowance is refused first)
and Bob's Border Guard reacts, the engine lists the battle hex, both make a secret choice at
a secret step of the combat phase, and finally both replay and verify the whole chain and
show that they hold the same state hash.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import tempfile
from pathlib import Path
from typing import Any

from engine.core.errors import HexpostError
from engine.core.owed import pending
from engine.core.packets import fingerprint
from engine.core.text import counted
from engine.fe import FE, RULESET
from engine.fe.steps import combat_round
from mail.loopback import LoopbackNetwork, LoopbackTransport
from mail.sync import sync
from saves import joins
from saves.home import Home
from saves.replica import Replica
from tui.render import fit_lines
from tui.rulesets import DemoSeat
from tui.services.pace import pace_report
from tui.when import now

SCENARIO = "tutorial"
GAME_NAME = "demo-tutorial"
NOTABLE = ("income", "battle-hexes", "release", "war", "supply")
"""Events worth showing while the demo walks through routine steps."""


class Seat:
    """One demo player: a home, a replica able to sign, and its view of the transport."""

    def __init__(self, root: Path, name: str, address: str, network: LoopbackNetwork) -> None:
        self.name = name
        self.home = Home(root / name.lower())
        info = self.home.create_identity(name, address, None, scrypt_n=2)
        self.fingerprint = fingerprint(info.public_key)
        self.replica: Replica = self.home.replica(unlock=True)
        self.transport = LoopbackTransport(network, f"loopback:{name.lower()}")

    def sync(self) -> list[str]:
        report = asyncio.run(sync(self.replica, self.transport, now))
        return [f"{o.status}: {o.detail}" for o in report.received if o.status != "duplicate"]


def say(text: str, hang: int = 4) -> None:
    """Print lines of the demo's account within 80 columns: a longer one wraps, its
    continuation ``hang`` columns past its indent (`tui.render.fit_lines`)."""
    print("\n".join(fit_lines(text.split("\n"), hang=hang)), flush=True)


def heading(text: str) -> None:
    """A numbered part of the demo, after a blank line; it wraps under its words."""
    say(f"\n{text}", hang=3)


def exchange(first: Seat, second: Seat) -> None:
    """Deliver what ``first`` queued to ``second`` and bring any automatic reply back."""
    first.sync()
    for line in second.sync():
        say(f"    {second.name} received: {line}")
    for line in first.sync():
        say(f"    {first.name} received: {line}")


def advance(players: dict[str, Seat], game_id: bytes, target: str) -> None:
    """Both seats mark their manual steps done until the game reaches step ``target``."""
    while True:
        any_replica = next(iter(players.values())).replica
        state = any_replica.state(game_id)
        decision = pending(RULESET, state)[0]
        if decision.step == target:
            return
        owner = players[decision.seats[0]]
        assert state.rules is not None, "the demo's game has begun"
        count = len(FE.own_run(state.rules, decision.seats[0], target))
        orders: list[dict[str, Any]] = [{"type": "done"} for _ in range(count)]
        orders[0]["note"] = "nothing to do here in the demo"
        result = owner.replica.submit(game_id, orders, now=now())
        steps = counted(count, "step")
        say(f"  {owner.name} completes {steps} from {decision.step} (packet {result.seq})")
        for event in result.events:
            if event.kind in NOTABLE:
                say(f"    {event.text}")
        other = next(p for p in players.values() if p is not owner)
        exchange(owner, other)


def _submit(player: Seat, game_id: bytes, orders: list[dict[str, Any]]) -> None:
    """Sign orders and print what the engine made of them."""
    result = player.replica.submit(game_id, orders, now=now())
    say(f"  {player.name} signs packet {result.seq}:")
    for event in result.events:
        if event.kind not in ("step-auto", "step-passed", "step-skipped"):
            say(f"    {event.text}")


def _owes(player: Seat, game_id: bytes, seat: str, step: str) -> bool:
    """Whether ``seat`` owes ``step`` now, as ``player``'s replica sees the game."""
    decision = pending(RULESET, player.replica.state(game_id))[0]
    return decision.step == step and decision.seats == (seat,)


def _try(player: Seat, game_id: bytes, orders: list[dict[str, Any]]) -> str:
    """Check orders without signing; the engine's refusal, or "accepted"."""
    try:
        player.replica.submit(game_id, orders, now=now(), dry_run=True)
    except HexpostError as exc:
        return f"refused: {exc}"
    return "accepted"


def run_demo(keep: Path | None = None) -> int:
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        return _play(keep)
    with tempfile.TemporaryDirectory(prefix="hexpost-demo-") as root:
        return _play(Path(root))


def start_game(root: Path, network: LoopbackNetwork) -> tuple[Seat, Seat, bytes]:
    """Alice's and Bob's homes under ``root`` with the tutorial created, accepted and set up
    (turn 1, step 1A1: the Klingons' move), printing each step.

    Shared with the Textual demo (`tui.demo_app`), which starts from this point so the two
    demos cannot drift apart; it silences the printing instead of taking a flag for it.
    """
    say("hexpost demo: two local players, one game of Federation & Empire, no account")
    say(f"  homes in {root}")
    alice = Seat(root, "Alice", "alice@example.org", network)
    bob = Seat(root, "Bob", "bob@example.org", network)
    say(f"  Alice (Coalition) fingerprint {alice.fingerprint}")
    say(f"  Bob   (Alliance)  fingerprint {bob.fingerprint}")

    heading("1. Alice creates a game of the tutorial scenario and invites Bob")
    game_id = alice.replica.create(
        RULESET, SCENARIO, "coalition", "bob@example.org", name=GAME_NAME, now=now()
    )
    alice.sync()
    for line in bob.sync():
        say(f"    Bob received: {line}")
    say("2. Bob checks Alice's fingerprint and accepts")
    bob.replica.accept(game_id, now=now())
    exchange(bob, alice)
    say(
        "   Alice checks that the key that joined is Bob's (anyone who read the invitation "
        "could have answered it) and accepts it; the Kzinti move next, so this is a packet",
        hang=0,
    )
    say(f"    {joins.accept(alice.replica, game_id, now=now()).text}")
    exchange(alice, bob)

    heading("3. Set-up: the Kzinti place first, then the Klingons; the engine checks each hex")
    refused = _try(alice, game_id, [{"type": "place", "fleet": "Strike Force", "hex": "1105"}])
    say(f"    Alice tries to place before her turn: {refused}")
    _submit(bob, game_id, [
        {"type": "place", "fleet": "Border Guard", "hex": "1205"},
        {"type": "place", "fleet": "Starbase Squadron", "hex": "1704"},
        {"type": "done"},
    ])  # fmt: skip
    exchange(bob, alice)
    refused = _try(alice, game_id, [{"type": "place", "fleet": "Strike Force", "hex": "1105"}])
    say(f"    Alice tries a hex outside her set-up area: {refused}")
    _submit(alice, game_id, [
        {"type": "place", "fleet": "Strike Force", "hex": "1307"},
        {"type": "place", "fleet": "Flank Patrol", "hex": "1607"},
        {"type": "done", "note": "Klingons deployed"},
    ])  # fmt: skip
    exchange(alice, bob)
    return alice, bob, game_id


def _play(root: Path) -> int:
    alice, bob, game_id = start_game(root, LoopbackNetwork())
    players = {"coalition": alice, "alliance": bob}

    heading("4. Alice completes step 1A1 with a note, then asks for a die roll")
    _submit(alice, game_id, [
        {"type": "done", "note": "no bases or PDUs were being deployed"},
        {"type": "roll", "dice": "2d6", "purpose": "survey points 505.21"},
    ])  # fmt: skip
    say("    Bob's client answers the roll with its next entropy value, automatically:")
    exchange(alice, bob)
    for seq, event in alice.replica.events(game_id):
        if event.kind == "roll":
            say(f"    roll recorded in packet {seq}: {event.text}")

    heading("5. Alice plays on through phases 1 and 2; the engine collects her income")
    _submit(alice, game_id, [{"type": "done", "through": "2B11"}])
    exchange(alice, bob)
    routine = ["1", "2", "3A", "5-1A", "5-1C", "5-1D", "5-1E", "5-2A3", "5-6", "6", "10"]
    _submit(bob, game_id, [{"type": "standing", "steps": routine}])
    say(
        f"    Bob lets the engine complete his routine steps in {', '.join(routine)} for him; "
        "a phase named never covers his own turn's builds, repairs or moves (2B3, 2A2...)",
        hang=0,
    )
    exchange(bob, alice)

    heading("6. Movement: the Strike Force crosses into Kzinti space; Bob may react")
    advance(players, game_id, "3B2")
    strike = ["KLI-0001", "KLI-0002", "KLI-0003", "KLI-0004"]
    too_far = ["1307", "1306", "1305", "1304", "1303", "1302", "1301", "1201"]
    refused = _try(alice, game_id, [{"type": "move", "units": strike, "path": too_far}])
    say(f"    Alice tries a move past the allowance: {refused}")
    _submit(alice, game_id, [
        {"type": "move", "units": strike, "path": ["1307", "1306", "1305"]},
        {"type": "batch"},
    ])  # fmt: skip
    exchange(alice, bob)
    if _owes(bob, game_id, "alliance", "3B3"):
        _submit(bob, game_id, [
            {"type": "react", "units": ["KZI-0001", "KZI-0002"], "path": ["1205", "1305"],
             "trigger": "1305"},
            {"type": "done", "note": "the Border Guard meets them"},
        ])  # fmt: skip
        exchange(bob, alice)
    _submit(alice, game_id, [{"type": "done", "note": "movement over"}])
    exchange(alice, bob)

    heading("7. Both walk the sequence of play to the secret step 5-3E")
    advance(players, game_id, "5-3E")

    heading(
        "8. Secret step 5-3E: each seat commits its flagship and battle force; they are"
        " revealed together"
    )
    for _ in range(2):  # in the order the engine asks (engine.core.turns.answer_order)
        state = alice.replica.state(game_id)
        seat = pending(RULESET, state)[0].seats[0]
        assert state.rules is not None
        flagship = combat_round.eligible_flagships(state.rules, seat)[0]  # (302.32)
        choice = {"flagship": flagship, "units": [flagship]}  # the flagship alone (302.3)
        author = players[seat]
        author.replica.submit(game_id, [{"type": "secret", "choice": choice}], now=now())
        exchange(author, bob if author is alice else alice)
    for seq, event in bob.replica.events(game_id):
        if event.kind in ("commit", "secret"):
            say(f"    packet {seq}: {event.text}")

    heading("9. Both replay the whole chain and compare")
    hashes = {}
    for player in (alice, bob):
        digest = player.replica.verify(game_id)
        count = len(player.replica.packets(game_id))
        hashes[player.name] = digest
        say(f"    {player.name}: {count} packets verified, state hash {digest.hex()[:32]}")
    state = alice.replica.state(game_id)
    decision = pending(RULESET, state)[0]
    assert state.rules is not None, "the demo's game has begun"
    summary = FE.summary(state.rules)
    say(
        f"    now: turn {summary['turn']['number']}, step {summary['step']}, "
        f"waiting for {decision.seats[0]}"
    )
    paced = pace_report(alice.replica, alice.replica.game(game_id))
    say(
        f"    hand-offs: {paced.human + paced.machine}, {paced.human} waiting for a player, "
        f"{paced.machine} for a hexpost alone\n    (`hexpost pace` says where they went)"
    )
    same = len(set(hashes.values())) == 1
    say("\nBoth players hold the same game." if same else "\nThe players' states DIFFER.")
    for player in (alice, bob):
        player.home.close()
    return 0 if same else 1


class FeDemo:
    """F&E's demo for `tui.rulesets.Demo`: the tutorial, Alice's Klingons against Bob's Kzinti."""

    game_name = GAME_NAME

    def run(self, keep: Path | None) -> int:
        return run_demo(keep)

    def seats(self, root: Path) -> tuple[DemoSeat, DemoSeat]:
        """Both homes with the tutorial set up; the narration is swallowed (on a terminal
        the app takes the screen at once). The set-up's store connections are closed: each
        session opens its home again on its own thread."""
        network = LoopbackNetwork()
        with contextlib.redirect_stdout(io.StringIO()):
            alice, bob, _game_id = start_game(root, network)
        seats = (
            DemoSeat("Alice", "Klingons", str(alice.home.path), alice.transport),
            DemoSeat("Bob", "Kzinti", str(bob.home.path), bob.transport),
        )
        alice.home.close()
        bob.home.close()
        return seats
