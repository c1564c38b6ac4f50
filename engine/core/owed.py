"""Who acts now: the decisions a game owes, in order, and the one seat that may write next.

Every packet and every order is checked against the first decision owed (P2: one seat acts at
a time), so these are asked about the same immutable state many times a packet; the ruleset's
own list is remembered for the last rules state asked about. Joining and accepting keys come
first, then entropy an armed roll waits for, then an open secret step's commits and reveals,
then the ruleset's decisions.
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core import caches, rolls
from engine.core.packets import fingerprint
from engine.core.ruleset import AnyRuleset, Decision, DecisionKind, Seat
from engine.core.state import AnyState, CoreState, OpenSecret

_SECRET = DecisionKind.SECRET
"""Read off the enum once (a member read off its enum class goes through the enum's
metaclass in Python 3.11)."""


def pending(ruleset: AnyRuleset, state: AnyState) -> list[Decision]:
    """The decisions owed now; the first one's single seat is the only seat that may act."""
    core = state.core
    if core.resigned:
        return []
    joining = _joining(core)
    if joining is not None:
        return [joining]
    if core.unaccepted:
        # The creator's next packet accepts the joined keys; what follows is listed too, so a
        # client can draft the orders that ride in the same packet.
        return [_acceptance(core), *_after_joins(ruleset, state)]
    return _after_joins(ruleset, state)


def owed_first(ruleset: AnyRuleset, state: AnyState) -> Decision | None:
    """``pending(ruleset, state)[0]``, or None when nothing is owed, without the lists:
    asked before every packet and every order, where only the first decision counts."""
    core = state.core
    if core.resigned:
        return None
    first = _joining(core)
    if first is None and core.unaccepted:
        first = _acceptance(core)
    if first is None and core.armed:
        first = _entropy_owed(core)
    if first is not None:
        return first
    if core.secret is not None:
        return _secret_turn(core.secret)
    if state.rules is None:
        return None
    decisions = _pending_of(ruleset, state.rules)
    if not decisions:
        return None
    first = decisions[0]
    return _secret_turn(OpenSecret(first)) if first.kind == _SECRET else first


def last_to_commit(ruleset: AnyRuleset, state: AnyState, seat: Seat) -> bool:
    """Whether ``seat``, committing to the secret step owed in ``state``, is the last seat
    asked: every other seat asked is already bound (or none is asked but ``seat``), so it may
    reveal in the same packet, in the clear, and save the round trip of a reveal of its own.

    The seats asked are the step's, less those its ruleset decides for (a signed policy, a
    choice the rules leave one way to make): read off the open secret once a seat has
    committed, else off the ruleset's first decision."""
    secret = state.core.secret
    if secret is None:
        if state.rules is None:
            return False
        decisions = _ruleset_pending(ruleset, state.rules)
        if not decisions or decisions[0].kind != _SECRET:
            return False
        secret = OpenSecret(decisions[0])
    committed = {owner for owner, _ in secret.commits}
    return committed >= set(secret.decision.seats) - {seat}


JOIN_STEP = "join"
"""The step of the protocol's own decisions before a ruleset's first: each seat's join and the
creator's acceptance of the keys that joined. Their events carry it as their step."""


def _joining(core: CoreState) -> Decision | None:
    """The first seat still to join, asked to (None once every seat has)."""
    for seat in core.seats:
        if not seat.public_key:  # `SeatState.joined`, read inline: asked before every order
            return Decision((seat.seat,), JOIN_STEP, DecisionKind.JOIN, "join", "Join the game")
    return None


def _entropy_owed(core: CoreState) -> Decision | None:
    """The first armed roll's first seat whose entropy value it still waits for."""
    for roll in core.armed:
        have = {seat for seat, _ in roll.values}
        for seat in core.seats:
            if seat.seat not in have:
                title = f"Entropy for {rolls.dice_text(roll.request)} ({roll.request.purpose})"
                return Decision(
                    (seat.seat,), roll.request.step, DecisionKind.ENTROPY, roll.event, title
                )
    return None


def _after_joins(ruleset: AnyRuleset, state: AnyState) -> list[Decision]:
    core = state.core
    waiting = _entropy_owed(core)
    if waiting is not None:
        return [waiting]
    if core.secret is not None:
        return [_secret_turn(core.secret)]
    if state.rules is None:
        return []
    decisions = _ruleset_pending(ruleset, state.rules)
    if decisions and decisions[0].kind == _SECRET:
        return [_secret_turn(OpenSecret(decisions[0])), *decisions[1:]]
    return decisions


def _ruleset_pending(ruleset: AnyRuleset, rules: Any) -> list[Decision]:
    """``ruleset.pending(rules)``, remembered for the last rules state asked about.

    Applying one packet asks several times about the same immutable rules state (who may
    write it, then who owes each order); `_pending_of` makes the repeats free.
    """
    return list(_pending_of(ruleset, rules))


@caches.by_identity(maxsize=1)
def _pending_of(ruleset: AnyRuleset, rules: Any) -> tuple[Decision, ...]:
    """A tuple, so that no caller can change what the next one is given."""
    return tuple(ruleset.pending(rules))


def _acceptance(core: CoreState) -> Decision:
    """The creator's decision to accept (or decline) the keys that joined its game."""
    joined = [core.seat_state(seat) for seat in core.unaccepted]
    who = "; ".join(
        f"{s.name or s.seat} <{s.address}> as {s.seat}, key {fingerprint(s.public_key)}"
        for s in joined
    )
    return Decision(
        (core.creator,),
        JOIN_STEP,
        DecisionKind.ACCEPT,
        "accept/" + "/".join(core.unaccepted),
        f"Accept the key that joined: {who}",
        ("P10",),
    )


def _secret_turn(secret: OpenSecret) -> Decision:
    decision = secret.decision
    committed = {seat for seat, _ in secret.commits}
    for seat in decision.seats:
        if seat not in committed:
            return msgspec.structs.replace(decision, seats=(seat,), kind=DecisionKind.SECRET)
    revealed = {seat for seat, _ in secret.reveals}
    for seat in decision.seats:
        if seat not in revealed:
            return msgspec.structs.replace(decision, seats=(seat,), kind=DecisionKind.REVEAL)
    # Every reveal in resolves the step at once, so this is a secret step owed by no seat (a
    # ruleset's secret decision that names none): the core refuses a packet leaving one.
    return msgspec.structs.replace(decision, seats=())


def actor(ruleset: AnyRuleset, state: AnyState) -> Seat | None:
    """The seat that may write the next packet, or None when nobody can (game over)."""
    decisions = pending(ruleset, state)
    return decisions[0].seats[0] if decisions else None


def describe(decision: Decision) -> str:
    """A decision in a refusal's words: ``orders for step 1A1 (Bases and PDUs...)``; the
    protocol's join and acceptance (whose step is called ``join``) by their title alone,
    ``join the game``, ``accept the key that joined: ...``."""
    if decision.kind in (DecisionKind.JOIN, DecisionKind.ACCEPT) and decision.title:
        return decision.title[:1].lower() + decision.title[1:]
    title = f" ({decision.title})" if decision.title else ""
    return f"{decision.kind.value} for step {decision.step}{title}"
