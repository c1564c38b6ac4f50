"""Standing reaction policies: the non-phasing seat's reaction windows, signed in advance.

Every movement batch the phasing player ends opens a reaction window (3B3, 205.0) for the
other seat, and by email each window is a round trip, mostly to hear "no reaction". A
``reaction`` order (`engine.fe.orders.ReactionOrder`, the fields of
`engine.fe.reaction.ReactionPolicy`) lets a seat sign once what it does in its windows, and
the engine answers them for it (`by_policy`, called by the sequence driver when 3B3 comes up,
whether a ``batch`` order or the end of movement opened it):

- "never": the window passes with an event; the phasing player's packet goes on moving;
- "react": the units the policy covers (named, or any of the seat's) react to an enemy that
  entered a hex it covers (named, or any), as far as the rules allow (`movement.check_react`
  judges each reaction exactly as it judges the seat's own ``react`` orders); the window then
  closes;
- when the policy cannot decide, the seat is asked as if it had signed nothing, and an event
  says why: a covered unit could react to two covered hexes and the policy names no hexes to
  prefer, or (``otherwise: "ask"``) a unit could react where the policy does not cover it.

A policy answers only its own seat's windows, the ones the rules give that seat as the
non-phasing player: nothing the phasing player decides is ever answered by it, and a seat's
policy is idle in its own player turn. It is public, like every order: the phasing player
reads it before choosing how to move.

Choices (C): units react in stacks: the covered units that stand in one hex and go for the
same hex react together, stacks in the order of their lowest unit id; a stack the rules
refuse whole (203.5: those staying behind must still pin the enemy) is tried unit by unit in
id order, each checked against the board the reactions before it left, and a unit still
refused stays (the event says why). With named hexes, a unit that may react to several goes
to the one named first. A reaction goes straight into the hex the enemy entered: reaction
range is one hex (205.0), and extended reaction is not part of play yet (`engine.fe.reaction`).
"""

from __future__ import annotations

import msgspec

from engine.core.ruleset import Event, Seat, Violation
from engine.fe.forces import Unit, allowance
from engine.fe.galaxy import HexId
from engine.fe.model import FeState
from engine.fe.orders import React, ReactionOrder, hex_id
from engine.fe.reaction import REACTION_RULE, ReactionPolicy, why_not
from engine.fe.sequence import Step
from engine.fe.steps import base, movement, reactors

REACTION_STEP = movement.REACTION_STEP


def policy_of(state: FeState, seat: Seat) -> ReactionPolicy | None:
    return next((p for who, p in state.reaction_policies if who == seat), None)


def answers(policy: ReactionPolicy) -> bool:
    """Whether ``policy`` answers its seat's reaction windows as a rule, for the checklist
    (`engine.fe.policy_cover`): "never", or "react" that lets an uncovered unit stay. A
    window it cannot decide (two hexes a unit could go for) still asks the seat."""
    return policy.mode == "never" or (policy.mode == "react" and policy.otherwise == "stay")


def non_phasing(state: FeState) -> Seat:
    """The seat that owes the reaction window: the one after the phasing seat."""
    seats = state.seats
    return seats[(seats.index(base.phasing(state)) + 1) % len(seats)]


# --- signing -------------------------------------------------------------------------------


def _hexes_text(hexes: tuple[str, ...]) -> str:
    return ", ".join(hexes)


def describe(policy: ReactionPolicy) -> str:
    """The policy in words, as the event that signs it shows it to both players."""
    if policy.mode == "never":
        return "never react"
    if policy.mode != "react":
        return ""
    who = ", ".join(policy.units) if policy.units else "any unit within reach"
    where = (
        f"an enemy entering {_hexes_text(policy.hexes)} (preferred in that order)"
        if policy.hexes
        else "an enemy entering any hex within their reaction range"
    )
    rest = (
        "the seat is asked when a unit could react otherwise"
        if policy.otherwise == "ask"
        else "no other reaction"
    )
    return f"react with {who} to {where}; {rest}"


def check(state: FeState, seat: Seat, order: ReactionOrder) -> list[Violation]:
    """Every reason the policy is refused: units that are not the seat's (or cannot move at
    all), hexes off the map, names given twice, fields a mode does not take (205.0)."""
    if order.mode != "react":
        if order.units or order.hexes or order.otherwise != "stay":
            what = "never react" if order.mode == "never" else "cancel the policy"
            text = f"a reaction policy of mode {order.mode} ({what}) names no units, hexes"
            text += " or otherwise"
            return [Violation(text, REACTION_RULE)]
        return []
    units, out = base.own_units(state, seat, list(order.units), REACTION_RULE)
    out = [Violation(f"reaction policy: {v.message}", v.rule) for v in out]
    for unit in units:
        if allowance(unit) == 0:
            out.append(
                Violation(
                    f"reaction policy: {unit.id} ({unit.cls}) has no movement allowance "
                    "and never reacts",
                    REACTION_RULE,
                )
            )
    seen: set[str] = set()
    for text in order.hexes:
        if text in seen:
            out.append(Violation(f"reaction policy: hex {text} is named twice", REACTION_RULE))
        elif not base.on_map(hex_id(text)):
            out.append(Violation(f"reaction policy: hex {text} is not on the map", REACTION_RULE))
        seen.add(text)
    return out


def apply(state: FeState, seat: Seat, order: ReactionOrder, events: list[Event]) -> FeState:
    """Replace ``seat``'s reaction policy ("ask" cancels it); public, as the event says."""
    policy = ReactionPolicy(
        order.mode, tuple(sorted(order.units)), tuple(order.hexes), order.otherwise
    )
    others = tuple((who, p) for who, p in state.reaction_policies if who != seat)
    if policy.mode == "ask":
        entries = others
        text = f"{seat} cancels its reaction policy: it will be asked at every reaction window"
    else:
        entries = tuple(sorted((*others, (seat, policy))))
        text = (
            f"{seat} signs its reaction policy: {describe(policy)} (the engine answers "
            f"{seat}'s reaction windows, {REACTION_RULE})"
        )
    data = {"policy": msgspec.to_builtins(policy), "rule": REACTION_RULE}
    events.append(Event("reaction-policy", text, seat, data=data))
    return msgspec.structs.replace(state, reaction_policies=entries)


# --- what a policy decides ------------------------------------------------------------------


def _targets(state: FeState, unit: Unit) -> list[HexId]:
    """The hexes entered in the batch that ``unit`` may react to now, sorted (205.0)."""
    board = state.board
    phasing = base.phasing_empires(state)
    return sorted(
        {
            to
            for frm, to in state.batch
            if why_not(board, phasing, to, frm, unit, state.reacted) is None
        }
    )


def _shown(hexes: list[HexId]) -> str:
    return ", ".join(f"{h:04d}" for h in hexes)


def plan(state: FeState, seat: Seat, policy: ReactionPolicy) -> tuple[list[React], str]:
    """The reactions ``policy`` makes in the open window, as ``react`` orders in the order
    they are tried; or, when it cannot decide, why (the seat is then asked)."""
    board = state.board
    mine = base.empires_of(state, seat)
    named = set(policy.units)
    wanted = [hex_id(h) for h in policy.hexes]
    picks: dict[str, HexId] = {}
    for uid in reactors.reactors(state):
        unit = board.unit(uid)
        if unit.empire not in mine:
            continue
        targets = _targets(state, unit)
        inside = [h for h in targets if not wanted or h in wanted]
        if inside and (not named or uid in named):
            if len(inside) > 1 and not wanted:
                return [], (
                    f"{uid} may react to {_shown(inside)} and the policy names no hexes to "
                    "choose between them"
                )
            picks[uid] = min(inside, key=wanted.index) if wanted else inside[0]
        elif targets and policy.otherwise == "ask":
            return [], f"{uid} may react to {_shown(targets)}, which the policy does not cover"
    stacks: dict[tuple[HexId, HexId, str], list[str]] = {}
    for uid in sorted(picks):
        unit = board.unit(uid)
        stacks.setdefault((unit.hex, picks[uid], unit.empire), []).append(uid)
    orders = [
        React(units=ids, path=[f"{start:04d}", f"{to:04d}"], trigger=f"{to:04d}")
        for (start, to, _), ids in stacks.items()
    ]
    return orders, ""


def _react_all(
    state: FeState, seat: Seat, step: Step, orders: list[React], events: list[Event]
) -> tuple[FeState, list[str], list[str]]:
    """Make the planned reactions the rules allow; the units that reacted, and those that
    stayed with the reason."""
    reacted: list[str] = []
    stayed: list[str] = []
    for order in orders:
        tries = [order]
        if len(order.units) > 1 and movement.check_react(state, seat, order):
            tries = [msgspec.structs.replace(order, units=[uid]) for uid in order.units]
        for each in tries:
            problems = movement.check_react(state, seat, each)
            if problems:
                first = problems[0]
                stayed.append(f"{each.units[0]} stays: {first.message} ({first.rule})")
                continue
            state = movement.apply_react(state, seat, step, each, events)
            reacted.extend(each.units)
    return state, reacted, stayed


def by_policy(state: FeState, step: Step, events: list[Event]) -> FeState | None:
    """Answer the open reaction window (3B3) from the non-phasing seat's policy and close
    it, or None to ask the seat. Called only when some unit can react (the step passes by
    itself otherwise, `movement`)."""
    if step.id != REACTION_STEP or not state.reaction_policies:
        return None
    seat = non_phasing(state)
    policy = policy_of(state, seat)
    if policy is None:
        return None
    data: dict[str, object] = {"policy": msgspec.to_builtins(policy), "rule": REACTION_RULE}
    if policy.mode == "never":
        text = f"{seat}'s reaction policy: never react; the window passes ({REACTION_RULE})"
        events.append(Event("reaction-policy", text, seat, step.id, data))
        return movement.AREA.on_done(state, seat, step, events)
    orders, why = plan(state, seat, policy)
    if why:
        text = f"{seat}'s reaction policy cannot decide: {why}; {seat} is asked ({REACTION_RULE})"
        events.append(Event("reaction-policy", text, seat, step.id, data))
        return None
    state, reacted, stayed = _react_all(state, seat, step, orders, events)
    done = f"reacted with {', '.join(reacted)}" if reacted else "no unit it covers reacts"
    text = f"{seat}'s reaction policy: {'; '.join([done, *stayed])} ({REACTION_RULE})"
    events.append(Event("reaction-policy", text, seat, step.id, {**data, "units": reacted}))
    return movement.AREA.on_done(state, seat, step, events)
