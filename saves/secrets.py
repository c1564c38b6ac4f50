"""This seat's side of secret choices: commit now, keep the choice here, reveal it later.

The salt comes from the operating system's random source, so the commitment tells the other
seat nothing about the choice (P7). The choice and salt stay in this home's store, sealed
under the identity key (`saves.vault`), until the reveal is owed; `owed_reveals` then puts
them in the next packet (the automatic reply does this without the player).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import msgspec

from engine.core import entropy
from engine.core.errors import HexpostError, IllegalOrder, NotPending
from engine.core.owed import last_to_commit, pending
from engine.core.packets import Body, Commit, Reveal, Turn
from engine.core.ruleset import AnyRuleset, DecisionKind, Seat
from engine.core.state import AnyState
from saves import vault
from saves.store import Store

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey


class HeldSecret(msgspec.Struct, frozen=True):
    """A committed choice to keep until its reveal."""

    key: str
    salt: bytes
    choice: bytes


def owed_reveals(
    store: Store,
    game_id: bytes,
    ruleset: AnyRuleset,
    state: AnyState,
    seat: Seat,
    key: Ed25519PrivateKey | None = None,
) -> list[Reveal]:
    """The reveal this seat owes now (if any), read from the choices it kept.

    The choice is kept sealed (`saves.vault`), so ``key`` (the unlocked identity key) is
    needed to open it; without it a sealed choice raises `saves.vault.VaultLocked`.
    """
    decisions = pending(ruleset, state)
    if not decisions or decisions[0].kind != DecisionKind.REVEAL or decisions[0].seats[0] != seat:
        return []
    name = decisions[0].key
    kept = vault.read_secret(store, key, game_id, name, seat)
    if kept is None:
        raise HexpostError(
            f"the secret choice for {name} is not in this home: it cannot be revealed"
        )
    salt, choice = kept
    return [Reveal(name, salt, choice)]


def add_commit(
    ruleset: AnyRuleset,
    after_orders: AnyState,
    seat: Seat,
    item: Mapping[str, Any],
    body: Body,
    position: int,
) -> tuple[Body, HeldSecret]:
    """Add a commitment to ``item["choice"]`` for the secret decision due after the orders.

    When every other seat has already committed, the reveal goes in the same packet: the
    others are bound, so answering in the clear costs nothing and saves a round trip.
    """
    decisions = pending(ruleset, after_orders)
    owed = decisions[0] if decisions else None
    if owed is None or owed.kind != DecisionKind.SECRET or owed.seats[0] != seat:
        what = (
            f"{owed.seats[0]} owes {owed.kind.value} at step {owed.step}"
            if owed
            else "the game is over"
        )
        raise NotPending(f"order {position}: no secret choice of yours is due here ({what})")
    if "choice" not in item or item["choice"] in ("", None):
        raise IllegalOrder(f'order {position}: a secret order needs a "choice"')
    choice = item["choice"]
    open_secret = after_orders.core.secret
    full = (
        open_secret.decision if open_secret is not None else ruleset.pending(after_orders.rules)[0]
    )
    violations = ruleset.validate_secret(after_orders.rules, full, seat, choice)
    if violations:
        raise IllegalOrder(
            f"order {position}: secret choice for {owed.step}: {violations[0].message}",
            rule=violations[0].rule,
        )
    data = entropy.canonical_choice(choice)
    salt = os.urandom(entropy.SALT_SIZE)
    digest = entropy.commitment(body.game_id, owed.key, seat, salt, data)
    reveals = list(body.reveals)
    if last_to_commit(ruleset, after_orders, seat):
        reveals.append(Reveal(owed.key, salt, data))
    orders = body.kind.orders if isinstance(body.kind, Turn) else Turn().orders
    body = msgspec.structs.replace(
        body, kind=Turn(orders), commits=[*body.commits, Commit(owed.key, digest)], reveals=reveals
    )
    return body, HeldSecret(owed.key, salt, data)
