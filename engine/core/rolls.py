"""Die rolls in the protocol core: arming a roll a ruleset asks for, and resolving it.

A roll is *armed* in the packet whose order (or secret step) asked for it, with the asking
seat's entropy value from that packet, and *resolved* once every other seat has revealed its
next value in a later packet (`engine.core.entropy` reads the dice); the dice the rules then
ask for as their sequence runs on are read from the same values (`_follow_on`, in games of a
ruleset version that says so). A roll is bound to the
decision it was asked in and to its purpose: the same purpose twice in one decision is refused
unless the ruleset marks the request ``again`` (P6), so nobody can ask again after a result
they dislike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from engine.core import entropy
from engine.core.errors import IllegalOrder
from engine.core.ruleset import Event, RollRequest, Ruleset, Seat, version_numbers
from engine.core.state import ArmedRoll, CoreState, GameState, OpenSecret

AnyState = GameState[Any]


def dice_text(request: RollRequest) -> str:
    return f"{request.count}d{request.sides}"


MAX_ROLLS_PER_DECISION = 64
"""Different purposes one decision may roll for (a bound on the state, far above any step)."""


def purpose_key(purpose: str) -> str:
    """A roll's purpose as compared: case and spacing do not make a new purpose."""
    return " ".join(purpose.casefold().split())


def arm(
    state: AnyState,
    seat: Seat,
    rolls: Sequence[RollRequest],
    events: list[Event],
    decision_key: str,
) -> AnyState:
    """Arm the rolls an order or a secret step asked for, in the decision ``decision_key``.

    A roll is bound to its decision and purpose (P6): a second roll for the same purpose in
    the same decision is refused unless the ruleset marks it ``again``, so the seat that asked
    cannot ask again after seeing a result it does not like.
    """
    if not rolls:
        return state
    core, ids = _admit(state.core, seat, rolls, decision_key)
    value = core.seat_state(seat).entropy
    armed = list(core.armed)
    for request, event in zip(rolls, ids, strict=True):
        armed.append(ArmedRoll(event, request, seat, core.seq, ((seat, value),)))
        events.append(
            Event(
                "roll-armed",
                f"{seat} asked for {dice_text(request)} for {request.purpose}",
                seat,
                request.step,
                {"event": event, "purpose": request.purpose},
            )
        )
    core = msgspec.structs.replace(core, armed=tuple(armed))
    return msgspec.structs.replace(state, core=core)


def _admit(
    core: CoreState, seat: Seat, rolls: Sequence[RollRequest], decision_key: str
) -> tuple[CoreState, list[str]]:
    """Check ``rolls`` as asked by ``seat`` in the decision ``decision_key`` (P6, the dice's
    bounds) and number them: the core with its roll count and the decision's purposes
    updated, and each roll's event id."""
    count = core.rolls_armed
    rolled = core.rolled if core.rolls_at == decision_key else ()
    ids: list[str] = []
    for request in rolls:
        if request.at_reveal:
            raise IllegalOrder(
                f"dice for {request.purpose!r} are read at a secret step's reveal only: an "
                "order's roll waits for the other seats' next values",
                rule="P6",
            )
        if not (1 <= request.count <= 100 and 2 <= request.sides <= 256):
            raise IllegalOrder(f"cannot roll {dice_text(request)}")
        purpose = purpose_key(request.purpose)
        if purpose in rolled and not request.again:
            raise IllegalOrder(
                f"{seat} already rolled for {request.purpose!r} in step {request.step}: a roll "
                "is made once per purpose and step (a re-roll would let its asker choose)",
                rule="P6",
            )
        if purpose not in rolled:
            if len(rolled) >= MAX_ROLLS_PER_DECISION:
                raise IllegalOrder(
                    f"more than {MAX_ROLLS_PER_DECISION} different rolls in step {request.step}"
                )
            rolled = (*rolled, purpose)
        count += 1
        ids.append(f"r{count}/{request.step}")
    core = msgspec.structs.replace(core, rolls_armed=count, rolls_at=decision_key, rolled=rolled)
    return core, ids


def feed(
    ruleset: Ruleset[Any], state: AnyState, seat: Seat, value: bytes, events: list[Event]
) -> AnyState:
    """Give ``seat``'s fresh value to every roll armed before this packet; resolve full ones."""
    core = state.core
    if not core.armed:
        return state
    still: list[ArmedRoll] = []
    resolved: list[ArmedRoll] = []
    for armed in core.armed:
        roll = armed
        if roll.seq < core.seq and all(s != seat for s, _ in roll.values):
            roll = msgspec.structs.replace(roll, values=(*roll.values, (seat, value)))
        done = {s for s, _ in roll.values} >= {s.seat for s in core.seats}
        (resolved if done else still).append(roll)
    state = msgspec.structs.replace(state, core=msgspec.structs.replace(core, armed=tuple(still)))
    read_on = follows_on(ruleset, core.ruleset_version)
    for roll in resolved:
        text = f"{roll.seat} rolled"
        state, more = _resolve(
            ruleset, state, roll.request, roll.event, roll.values, text, roll.seat, events
        )
        if read_on:
            state = _follow_on(ruleset, state, seat, more, roll, events)
        else:
            # Dice the rules need next (the sequence ran on to them once these were in) are
            # armed in this packet, with this seat's value, for the other seats' next ones.
            state = arm(state, seat, more, events, roll.event)
    return state


MAX_FOLLOW_ON = 64
"""Follow-on rolls one packet reads from the values that completed a roll (`_follow_on`):
the rolls past them are armed for the other seats' next values, as any roll is. An F&E
round fought by policies asks for three dice, so one packet fights about twenty rounds; the
bound keeps a packet's work finite (about 30 ms) whatever the rules and policies ask: two
policies that never retreat, with fighters replaced every round, can fight on for ever."""


def follows_on(ruleset: Ruleset[Any], version: str) -> bool:
    """Whether a game of ``ruleset`` at ``version`` (its genesis's) reads follow-on dice at
    once (`Ruleset.follow_on_dice_from`). A game begun before keeps arming them, so that its
    recorded packets replay to the same states."""
    return _from(ruleset, "follow_on_dice_from", version)


def in_asked_order(ruleset: Ruleset[Any], version: str) -> bool:
    """Whether a game of ``ruleset`` at ``version`` arms a reveal's waiting dice in the order
    the ruleset asked for them (`Ruleset.reveal_dice_in_order_from`, `reveal_dice`)."""
    return _from(ruleset, "reveal_dice_in_order_from", version)


def _from(ruleset: Ruleset[Any], attribute: str, version: str) -> bool:
    since = getattr(ruleset, attribute, "")  # a plug-in written before the attribute: never
    return bool(since) and version_numbers(version) >= version_numbers(since)


def reveal_dice(
    ruleset: Ruleset[Any], version: str, asked: Sequence[RollRequest], everyone: bool
) -> tuple[list[RollRequest], list[RollRequest]]:
    """The dice a secret step's choices asked for, as (those read now from the reveals'
    values, those armed for the other seats' next values).

    The ruleset marks those it would read at the reveal (`RollRequest.at_reveal`); they are
    read there only when ``everyone`` (every seat) revealed. When a seat was not asked (its
    signed policy chose for it), its value is not among the reveals and the last revealer
    knows the others, so they wait, like an order's roll, with the rest. They wait in the
    order asked: a ruleset asks first for the dice the later ones need (F&E's variable BIR
    die before the combat dice whose damage it sets). Games begun before the ruleset's
    `Ruleset.reveal_dice_in_order_from` put them after the rest, as they were recorded.
    """
    now = [request for request in asked if request.at_reveal]
    later = [request for request in asked if not request.at_reveal]
    if everyone:
        return now, later
    if in_asked_order(ruleset, version):
        return [], [msgspec.structs.replace(r, at_reveal=False) for r in asked]
    return [], [*later, *(msgspec.structs.replace(r, at_reveal=False) for r in now)]


def _follow_on(
    ruleset: Ruleset[Any],
    state: AnyState,
    seat: Seat,
    asked: Sequence[RollRequest],
    roll: ArmedRoll,
    events: list[Event],
) -> AnyState:
    """Read at once, from the values that completed ``roll``, the dice the rules ask for as
    the sequence runs on from it (and from those, in turn), up to `MAX_FOLLOW_ON`.

    Fair for the same reason as ``roll`` itself. Those values are each seat's next link of a
    chain fixed when it took its seat, and the last of them came in this packet (``seat``'s),
    applied before anything else the packet carries. So every choice the sequence runs
    through was signed before that value was sent: the policies and standing orders of
    earlier packets; and where a seat must decide, the rules stop and ask no dice. The seat
    that sent the last value could work all of these dice out before sending it, as it could
    ``roll``'s, and had nothing left to choose: all it could do is not answer. So a battle
    fought by policies on both sides takes one packet, the other seat's next one, instead of
    one per round.
    """
    queue = [(roll.event, list(asked))]
    read = 0
    while queue:
        key, requests = queue.pop(0)
        if not requests:
            continue
        if read >= MAX_FOLLOW_ON:
            state = arm(state, seat, requests, events, key)
            continue
        core, ids = _admit(state.core, seat, requests, key)
        state = msgspec.structs.replace(state, core=core)
        for request, event in zip(requests, ids, strict=True):
            read += 1
            state, more = _resolve(
                ruleset, state, request, event, roll.values, "then rolled", seat, events
            )
            queue.append((event, more))
    return state


def roll_at_reveal(
    ruleset: Ruleset[Any],
    state: AnyState,
    seat: Seat,
    secret: OpenSecret,
    requests: Sequence[RollRequest],
    events: list[Event],
) -> AnyState:
    """Resolve the dice a secret step asked for as its last choice was revealed.

    The values are the ones each seat's reveal packet carried (``secret.entropies``): every
    seat had committed before the first of them was sent, each is the next link of its
    seat's pre-committed chain (so nobody chooses it), and the dice need all of them, so no
    choice of the step could depend on the dice. The last seat to reveal can work the dice
    out before sending its reveal, but its choice is already bound by its commitment; all it
    could do is not answer, which the late-claim machinery names. No packet waits for them.
    Dice the rules then need (the sequence ran on to them) are armed by ``seat``, the last
    revealer, for the other seats' next values.
    """
    if not requests:
        return state
    more: list[RollRequest] = []
    for request in requests:
        if not (1 <= request.count <= 100 and 2 <= request.sides <= 256):
            raise IllegalOrder(f"cannot roll {dice_text(request)}")
        count = state.core.rolls_armed + 1
        state = msgspec.structs.replace(
            state, core=msgspec.structs.replace(state.core, rolls_armed=count)
        )
        event = f"r{count}/{request.step}"
        text = f"the reveal of {request.step} rolled"
        state, asked = _resolve(ruleset, state, request, event, secret.entropies, text, "", events)
        more.extend(asked)
    return arm(state, seat, more, events, secret.decision.key)


def _resolve(
    ruleset: Ruleset[Any],
    state: AnyState,
    request: RollRequest,
    event_id: str,
    contributed: Sequence[tuple[Seat, bytes]],
    who: str,
    seat: Seat,
    events: list[Event],
) -> tuple[AnyState, list[RollRequest]]:
    """Read the dice from the seats' values (in seat order), record them as a ``roll``
    event and hand them to the ruleset; return the dice it asks for next."""
    core = state.core
    order = [s.seat for s in core.seats]
    values = [v for _, v in sorted(contributed, key=lambda item: order.index(item[0]))]
    dice = entropy.roll_dice(core.game_id, event_id, values, request.count, request.sides)
    events.append(
        Event(
            "roll",
            f"{who} {dice_text(request)} for {request.purpose}: " + ", ".join(map(str, dice)),
            seat,
            request.step,
            {
                "event": event_id,
                "purpose": request.purpose,
                "count": request.count,
                "sides": request.sides,
                "dice": list(dice),
                "total": sum(dice),
            },
        )
    )
    assert state.rules is not None
    applied = ruleset.apply_roll(state.rules, request, dice)
    events.extend(applied.events)
    return msgspec.structs.replace(state, rules=applied.state), list(applied.rolls)
