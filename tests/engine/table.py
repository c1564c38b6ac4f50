"""A test harness: two (or more) seats writing and applying packets with the pure engine.

Keys, seeds, salts and the game id are derived from fixed labels, so a game played through
`Table` is byte-for-byte reproducible (Ed25519 signatures are deterministic).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine.core import author, entropy
from engine.core.game import Result, apply_packet
from engine.core.owed import pending
from engine.core.packets import (
    PROTOCOL_VERSION,
    Body,
    Commit,
    EntropyOnly,
    Genesis,
    Join,
    Kind,
    Reveal,
    SeatBinding,
    Turn,
    VerifiedPacket,
    raw_public_key,
)
from engine.core.ruleset import AnyRuleset, DecisionKind, OptionValue
from engine.core.state import AnyState


def _derive(label: str, size: int = 32) -> bytes:
    return hashlib.sha256(b"hexpost-tests/" + label.encode()).digest()[:size]


class Player:
    def __init__(self, seat: str, label: str, chain_length: int = 4096) -> None:
        self.seat = seat
        self.key = Ed25519PrivateKey.from_private_bytes(_derive(f"key/{label}"))
        self.public = raw_public_key(self.key)
        self.chain = entropy.EntropyChain(_derive(f"seed/{label}"), chain_length)
        self.secrets: dict[str, tuple[bytes, bytes]] = {}


class Table:
    """Everyone's view of one game, kept in lock step by applying every packet everywhere."""

    def __init__(
        self,
        ruleset: AnyRuleset,
        scenario: str,
        seats: Sequence[str],
        *,
        label: str = "game",
        options: Mapping[str, OptionValue] | None = None,
        chain_length: int = 4096,
        creator_seat: str | None = None,
    ) -> None:
        """``creator_seat`` (default: the first seat) writes the genesis; the others join."""
        self.ruleset = ruleset
        self.players = {seat: Player(seat, f"{label}/{seat}", chain_length) for seat in seats}
        self.game_id = _derive(f"id/{label}", 16)
        self.state: AnyState | None = None
        self.packets: list[VerifiedPacket] = []
        self.results: list[Result] = []
        self.events: list[Any] = []
        first = creator_seat or seats[0]
        creator = self.players[first]
        info = next(s for s in ruleset.scenarios() if s.id == scenario)
        chosen = {o.id: o.default for o in info.options} | dict(options or {})
        genesis = Genesis(
            protocol=PROTOCOL_VERSION,
            ruleset_id=ruleset.id,
            ruleset_version=ruleset.version,
            scenario_id=scenario,
            scenario_hash=info.data_hash,
            options=sorted(chosen.items()),
            seats=[
                SeatBinding(s, s.title(), f"{s}@example.org", creator.public if s == first else b"")
                for s in seats
            ],
            creator=first,
            anchor=creator.chain.anchor,
            name=label,
        )
        self.write(first, genesis)
        for seat in [s for s in seats if s != first]:
            player = self.players[seat]
            assert self.state is not None
            self.write(
                seat,
                Join(
                    self.state.genesis_id,
                    seat.title(),
                    f"{seat}@example.org",
                    player.public,
                    player.chain.anchor,
                ),
            )

    def body(
        self,
        seat: str,
        kind: Kind,
        commits: Sequence[Commit] = (),
        reveals: Sequence[Reveal] = (),
    ) -> Body:
        player = self.players[seat]
        index = (
            1
            if self.state is None or not self.state.core.seat_state(seat).joined
            else (self.state.core.seat_state(seat).entropy_index + 1)
        )
        return author.new_body(
            self.ruleset,
            self.state,
            game_id=self.game_id,
            seat=seat,
            kind=kind,
            entropy_value=player.chain.value(index),
            commits=commits,
            reveals=reveals,
        )

    def write(
        self,
        seat: str,
        kind: Kind,
        commits: Sequence[Commit] = (),
        reveals: Sequence[Reveal] = (),
    ) -> VerifiedPacket:
        body = self.body(seat, kind, commits, reveals)
        packet, _ = author.write(self.ruleset, self.state, body, self.players[seat].key)
        return self.accept(packet)

    def accept(self, packet: VerifiedPacket) -> VerifiedPacket:
        result = apply_packet(self.ruleset, self.state, packet)
        self.state = result.state
        self.packets.append(packet)
        self.results.append(result)
        self.events.extend(result.events)
        return packet

    def orders(self, seat: str, *orders: Any) -> VerifiedPacket:
        return self.write(seat, Turn(self.ruleset.encode_orders(list(orders))))

    def entropy_only(self, seat: str) -> VerifiedPacket:
        return self.write(seat, EntropyOnly())

    def commit(
        self, seat: str, choice: object, *orders: Any, reveal_now: bool = False
    ) -> VerifiedPacket:
        """Commit to ``choice`` for the secret decision owed after ``orders``."""
        probe = self.body(seat, Turn(self.ruleset.encode_orders(list(orders))))
        after = author.draft(self.ruleset, self.state, probe, self.players[seat].public).state
        decision = pending(self.ruleset, after)[0]
        assert decision.kind == DecisionKind.SECRET, decision
        salt = _derive(f"salt/{decision.key}/{seat}")
        data = entropy.canonical_choice(choice)
        self.players[seat].secrets[decision.key] = (salt, data)
        digest = entropy.commitment(self.game_id, decision.key, seat, salt, data)
        reveals = [Reveal(decision.key, salt, data)] if reveal_now else []
        return self.write(
            seat,
            Turn(self.ruleset.encode_orders(list(orders))),
            [Commit(decision.key, digest)],
            reveals,
        )

    def reveal(self, seat: str, *orders: Any, key: str | None = None) -> VerifiedPacket:
        assert self.state is not None
        decision = pending(self.ruleset, self.state)[0]
        key = key or decision.key
        salt, data = self.players[seat].secrets[key]
        return self.write(
            seat, Turn(self.ruleset.encode_orders(list(orders))), reveals=[Reveal(key, salt, data)]
        )

    def owed(self) -> tuple[str, DecisionKind, str]:
        assert self.state is not None
        decision = pending(self.ruleset, self.state)[0]
        return decision.seats[0], decision.kind, decision.step
