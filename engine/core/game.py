"""The game driver: from a verified packet and a state to the next state.

This is where the protocol's rules live that hold for every game: one seat acts at a time
(so two honest clients never race for a chain position), every packet reveals its seat's next
entropy value, rolls are armed and resolved, secret steps are committed and opened, and every
order is validated by the ruleset before it is applied. A packet is applied whole or not at
all: any refusal raises before a new state is returned, and states are immutable.

Inside one packet the parts are processed in a fixed order: the entropy value; reveals of
commitments made in earlier packets; the orders; new commitments; and last, reveals of
commitments made in this same packet (allowed only to the last seat to commit, which then
answers in the clear: everyone else is already bound).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from engine.core import entropy, rolls, seating
from engine.core.errors import (
    ChainError,
    CommitmentMismatch,
    DesyncError,
    IllegalOrder,
    NotPending,
    OutOfTurn,
    PacketError,
    RulesError,
    VersionError,
)
from engine.core.owed import describe, owed_first
from engine.core.packets import (
    Chat,
    Commit,
    EntropyOnly,
    Genesis,
    Join,
    Resign,
    Reveal,
    Turn,
    VerifiedPacket,
)
from engine.core.ruleset import (
    AfterOrders,
    AnyRuleset,
    ApplyRun,
    Decision,
    DecisionKind,
    Event,
    Seat,
)
from engine.core.state import AnyState, CoreState, OpenSecret, state_hash

_JOIN, _ACCEPT = DecisionKind.JOIN, DecisionKind.ACCEPT
_ORDERS = DecisionKind.ORDERS
"""The kinds asked about at every packet and order, read off the enum once (reading a member
off its enum class goes through the enum's metaclass in Python 3.11)."""


def ruleset_tag(ruleset: AnyRuleset) -> str:
    """A ruleset's name and version as a packet names them, e.g. ``"duel/1.0"``: what a
    genesis of this client is tagged with (`game_tag` is what a game's other packets carry)."""
    return f"{ruleset.id}/{ruleset.version}"


def game_tag(core: CoreState) -> str:
    """The ruleset and version a game is played at, its genesis's, as every packet after the
    genesis names them. A client whose ruleset is a newer minor version of the same major
    plays the game at the game's version (`engine.core.seating.check_genesis`; what a minor
    version adds is gated on it, e.g. `engine.core.rolls.follows_on`), so its packets name
    that version and a client still at it reads them."""
    return f"{core.ruleset_id}/{core.ruleset_version}"


# --- applying a packet --------------------------------------------------------------------


class Result(msgspec.Struct, frozen=True):
    """A packet's outcome: the new state, its hash, and what happened."""

    state: AnyState
    state_hash: bytes
    events: list[Event]


def apply_packet(
    ruleset: AnyRuleset, state: AnyState | None, packet: VerifiedPacket, *, check_hash: bool = True
) -> Result:
    """Apply a verified packet at the head of the chain, whole or not at all.

    ``check_hash`` is off only while the author computes the hash it is about to sign.
    """
    body = packet.body
    if isinstance(body.kind, Genesis):
        if state is not None:
            raise ChainError(f"a second genesis packet at position {body.seq}")
        new_state, events = seating.start(ruleset, packet)
    else:
        if state is None:
            raise ChainError(f"packet {body.seq} arrived for a game whose genesis is unknown")
        new_state, events = _continue(ruleset, state, packet)
    _refuse_if_owed_by_nobody(ruleset, new_state, body.seq)
    digest = state_hash(new_state)
    if check_hash and body.state_hash != digest:
        raise DesyncError(body.seq, body.state_hash, digest)
    genesis_id = packet.packet_id if isinstance(body.kind, Genesis) else new_state.genesis_id
    new_state = msgspec.structs.replace(new_state, head=packet.packet_id, genesis_id=genesis_id)
    return Result(new_state, digest, events)


def _refuse_if_owed_by_nobody(ruleset: AnyRuleset, state: AnyState, seq: int) -> None:
    """A state whose first decision names no seat cannot be played on, and every reader of
    the game stumbles on it: no packet may leave the game so, whatever its ruleset's bug or a
    modified client's orders (an F&E ``back`` to a step the policies answer once did)."""
    owed = owed_first(ruleset, state)
    if owed is not None and not owed.seats:
        raise RulesError(
            f"packet {seq} would leave the game waiting at {owed.step} for no seat "
            f"({describe(owed)}): refused whole"
        )


def _continue(
    ruleset: AnyRuleset, state: AnyState, packet: VerifiedPacket
) -> tuple[AnyState, list[Event]]:
    body = packet.body
    core = state.core
    if body.game_id != core.game_id:
        raise ChainError("packet belongs to another game")
    if body.seq != core.seq + 1 or body.prev != state.head:
        raise ChainError(
            f"packet {body.seq} does not follow packet {core.seq} of this game's chain"
        )
    if body.ruleset != game_tag(core):
        raise VersionError(
            f"packet {body.seq} is written for ruleset {body.ruleset!r}; this game is played "
            f"at {game_tag(core)}"
        )
    try:
        seat = core.seat_state(body.seat)
    except KeyError:
        raise PacketError(f"packet {body.seq} names an unknown seat {body.seat!r}") from None
    owed = owed_first(ruleset, state)
    if owed is None:
        raise OutOfTurn(f"packet {body.seq} from {body.seat}: the game is over")
    if not owed.seats:  # left so by a packet an older hexpost accepted
        raise ChainError(
            f"packet {body.seq}: the game waits at {owed.step} for no seat, so no packet can "
            "follow the one that left it so"
        )
    if owed.seats[0] != body.seat:
        raise OutOfTurn(
            f"packet {body.seq} from {body.seat}: {owed.seats[0]} owes the next move "
            f"({describe(owed)})"
        )
    if isinstance(body.kind, Join) or owed.kind == _JOIN:
        if owed.kind != _JOIN or not isinstance(body.kind, Join):
            raise OutOfTurn(
                f"packet {body.seq} from {body.seat}: {describe(owed)} is owed; a join is "
                "taken only from a seat that has not joined yet, and a seat's key and entropy "
                "anchor never change once bound"
            )
        core = msgspec.structs.replace(core, seq=body.seq)
        return seating.take_join(ruleset, msgspec.structs.replace(state, core=core), packet)
    if seat.public_key != packet.public_key:
        raise PacketError(f"packet {body.seq} claims seat {body.seat} but is signed by another key")
    if not entropy.follows(seat.entropy, body.entropy):
        raise PacketError(
            f"packet {body.seq}: {body.seat}'s entropy value does not follow its chain"
        )
    # The packet's position and the seat's new entropy value.
    revealed = msgspec.structs.replace(
        seat, entropy=body.entropy, entropy_index=seat.entropy_index + 1
    )
    core = msgspec.structs.replace(core, seq=body.seq).with_seat(revealed)
    state = msgspec.structs.replace(state, core=core)
    events: list[Event] = []
    kind = body.kind
    if owed.kind == _ACCEPT:
        state = seating.accept_joins(
            state, body.seat, declined=isinstance(kind, Resign), events=events
        )
    fed = rolls.feed(ruleset, state, body.seat, body.entropy, events)
    # What is owed depends on the seats' keys, the joins to accept, the armed rolls, the open
    # secret step and the rules, none of which the new position and entropy value change: so
    # unless a join was accepted or a roll fed, the decision read above is still owed.
    owed_now = owed if fed is state and owed.kind != _ACCEPT else None
    state = fed
    if isinstance(kind, Chat):
        events.append(Event("chat", kind.text, body.seat))
    elif isinstance(kind, Resign):
        reason = f": {kind.reason}" if kind.reason else ""
        events.append(Event("resign", f"{body.seat} resigned{reason}", body.seat))
        state = msgspec.structs.replace(
            state, core=msgspec.structs.replace(state.core, resigned=body.seat)
        )
    elif isinstance(kind, Turn):
        state = _turn(ruleset, state, packet, kind, events, owed_now)
    elif isinstance(kind, EntropyOnly):
        pass
    if not isinstance(kind, Turn) and (body.commits or body.reveals):
        raise PacketError(f"packet {body.seq}: only a turn packet may commit or reveal")
    return state, events


def _turn(
    ruleset: AnyRuleset,
    state: AnyState,
    packet: VerifiedPacket,
    turn: Turn,
    events: list[Event],
    owed: Decision | None = None,
) -> AnyState:
    """``owed`` is what `owed_first` gives for ``state`` when the caller has it already."""
    body = packet.body
    seat = body.seat
    committed = {c.key for c in body.commits}
    given = state
    for reveal in body.reveals:  # of commitments made in earlier packets
        if reveal.key not in committed:
            state = _reveal(ruleset, state, seat, reveal, events)
    orders = ruleset.decode_orders(turn.orders)
    apply_run: ApplyRun | None = getattr(ruleset, "apply_run", None)
    done = 0
    while done < len(orders):
        # The decision given holds for the state it was given with (the first order's, unless
        # a reveal came first); each later order is asked about afresh, once for both the
        # ruleset's run and the order alone.
        known = owed if state is given else owed_first(ruleset, state)
        if apply_run is not None and len(orders) - done > 1:
            ran = _run(apply_run, ruleset, state, seat, orders, done, events, known)
            if ran is not None:
                state, taken = ran
                done += taken
                continue
        done += 1
        state = _order(ruleset, state, seat, done, orders[done - 1], events, known)
    if orders:
        state = _after_orders(ruleset, state, seat, events)
    for commit in body.commits:
        state = _commit(ruleset, state, seat, commit, events)
    for reveal in body.reveals:  # of commitments made in this packet
        if reveal.key in committed:
            state = _reveal(ruleset, state, seat, reveal, events)
    return state


def _after_orders(
    ruleset: AnyRuleset, state: AnyState, seat: Seat, events: list[Event]
) -> AnyState:
    """The ruleset's word on the packet's orders (`AfterOrders`), where it has one and the
    seat still owes orders: a step they left with nothing to decide may end here."""
    after: AfterOrders | None = getattr(ruleset, "after_orders", None)
    if after is None or state.rules is None:
        return state
    owed = owed_first(ruleset, state)
    if owed is None or not owed.seats or owed.seats[0] != seat or owed.kind != _ORDERS:
        return state
    applied = after(state.rules, seat)
    if applied is None:
        return state
    events.extend(applied.events)
    state = msgspec.structs.replace(state, rules=applied.state)
    return rolls.arm(state, seat, applied.rolls, events, owed.key)


def _owed(ruleset: AnyRuleset, state: AnyState, seat: Seat, what: str, later: bool) -> Decision:
    """``later``: orders of the same packet came before (and ended the seat's part)."""
    owed = owed_first(ruleset, state)
    if owed is None:
        raise OutOfTurn(f"{what}: the game is over")
    if not owed.seats:  # an order before it in the packet led there
        raise OutOfTurn(f"{what}: the game would wait at {owed.step} for no seat")
    if owed.seats[0] != seat:
        ended = f"; the orders before it ended {seat}'s part: leave it out" if later else ""
        raise OutOfTurn(f"{what}: {owed.seats[0]} owes the next move ({describe(owed)}){ended}")
    return owed


def _run(
    apply_run: ApplyRun,
    ruleset: AnyRuleset,
    state: AnyState,
    seat: Seat,
    orders: Sequence[Any],
    start: int,
    events: list[Event],
    owed: Decision | None,
) -> tuple[AnyState, int] | None:
    """The orders the ruleset applies at once from ``orders[start]`` on (`ApplyRun`), and
    how many, or None when it takes none (or the seat owes no orders now: `_order` says so).
    ``owed`` is `owed_first` of ``state`` if known already. The packet's list itself is
    handed on, never a copy of its rest: a packet of many orders, asked about at each, would
    otherwise cost the square of their number."""
    if owed is None:
        owed = owed_first(ruleset, state)
    if owed is None or not owed.seats or owed.seats[0] != seat or owed.kind != _ORDERS:
        return None
    assert state.rules is not None
    ran = apply_run(state.rules, seat, orders, start)
    if ran is None:
        return None
    applied, taken = ran
    left = len(orders) - start
    if applied.rolls or not 0 < taken <= left:
        raise RuntimeError(
            f"the {ruleset.id} ruleset's apply_run took {taken} of {left} orders and asked for "
            f"{len(applied.rolls)} rolls (it may take 1 or more, and no dice)"
        )
    events.extend(applied.events)
    return msgspec.structs.replace(state, rules=applied.state), taken


def _order(
    ruleset: AnyRuleset,
    state: AnyState,
    seat: Seat,
    index: int,
    order: Any,
    events: list[Event],
    owed: Decision | None = None,
) -> AnyState:
    """Check and apply one order; ``owed`` is `owed_first` of ``state`` if known already."""
    if owed is None:
        owed = owed_first(ruleset, state)
    if owed is None or not owed.seats or owed.seats[0] != seat or owed.kind != _ORDERS:
        what = f"order {index}"  # worded only for a refusal: most orders are in turn
        owed = _owed(ruleset, state, seat, what, index > 1)
        raise NotPending(f"{what}: {seat} owes {describe(owed)}, not orders")
    assert state.rules is not None
    violations = ruleset.validate(state.rules, seat, order)
    if violations:
        first = violations[0]
        raise IllegalOrder(f"order {index} at step {owed.step}: {first.message}", rule=first.rule)
    applied = ruleset.apply(state.rules, seat, order)
    events.extend(applied.events)
    state = msgspec.structs.replace(state, rules=applied.state)
    return rolls.arm(state, seat, applied.rolls, events, owed.key)


def _commit(
    ruleset: AnyRuleset, state: AnyState, seat: Seat, commit: Commit, events: list[Event]
) -> AnyState:
    what = f"commitment for {commit.key}"
    owed = _owed(ruleset, state, seat, what, False)
    if owed.kind != DecisionKind.SECRET or owed.key != commit.key:
        raise NotPending(f"{what}: {seat} owes {describe(owed)}")
    if len(commit.digest) != 32:
        raise PacketError(f"{what}: a commitment is 32 bytes")
    secret = state.core.secret
    if secret is None:
        decisions = ruleset.pending(state.rules) if state.rules is not None else []
        secret = OpenSecret(decisions[0])
    secret = msgspec.structs.replace(secret, commits=(*secret.commits, (seat, commit.digest)))
    events.append(
        Event("commit", f"{seat} committed a secret choice for {owed.step}", seat, owed.step)
    )
    return msgspec.structs.replace(state, core=msgspec.structs.replace(state.core, secret=secret))


def _reveal(
    ruleset: AnyRuleset, state: AnyState, seat: Seat, reveal: Reveal, events: list[Event]
) -> AnyState:
    what = f"reveal for {reveal.key}"
    secret = state.core.secret
    if secret is None or secret.decision.key != reveal.key:
        raise NotPending(f"{what}: no such secret step is open")
    committed = dict(secret.commits)
    if seat not in committed:
        raise NotPending(f"{what}: {seat} has not committed to it")
    if any(s == seat for s, _ in secret.reveals):
        raise NotPending(f"{what}: {seat} already revealed it")
    if len(committed) < len(secret.decision.seats):
        raise NotPending(f"{what}: not every seat has committed yet")
    core = state.core
    if len(reveal.salt) != entropy.SALT_SIZE:
        raise CommitmentMismatch(f"{what}: the salt must be 32 bytes")
    expected = entropy.commitment(core.game_id, reveal.key, seat, reveal.salt, reveal.choice)
    if expected != committed[seat]:
        raise CommitmentMismatch(f"{what}: {seat}'s revealed choice does not match its commitment")
    try:
        choice = msgspec.msgpack.decode(reveal.choice)
    except msgspec.DecodeError:
        raise PacketError(f"{what}: the revealed choice is not readable") from None
    if entropy.canonical_choice(choice) != reveal.choice:
        raise PacketError(f"{what}: the revealed choice is not canonically encoded")
    assert state.rules is not None
    violations = ruleset.validate_secret(state.rules, secret.decision, seat, choice)
    if violations:
        raise IllegalOrder(f"{what}: {violations[0].message}", rule=violations[0].rule)
    secret = msgspec.structs.replace(
        secret,
        reveals=(*secret.reveals, (seat, reveal.choice)),
        entropies=(*secret.entropies, (seat, core.seat_state(seat).entropy)),
    )
    if len(secret.reveals) < len(secret.decision.seats):
        return msgspec.structs.replace(state, core=msgspec.structs.replace(core, secret=secret))
    choices = {s: msgspec.msgpack.decode(c) for s, c in secret.reveals}
    ordered = {s: choices[s] for s in secret.decision.seats}
    state = msgspec.structs.replace(state, core=msgspec.structs.replace(core, secret=None))
    applied = ruleset.apply_secret(state.rules, secret.decision, ordered)
    events.extend(applied.events)
    state = msgspec.structs.replace(state, rules=applied.state)
    everyone = {s for s, _ in secret.entropies} == {s.seat for s in core.seats}
    now, later = rolls.reveal_dice(ruleset, core.ruleset_version, applied.rolls, everyone)
    state = rolls.roll_at_reveal(ruleset, state, seat, secret, now, events)
    return rolls.arm(state, seat, later, events, secret.decision.key)
