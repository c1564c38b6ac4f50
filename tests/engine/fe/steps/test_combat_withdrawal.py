"""Withdrawal before combat (302.1) and approach and base battles (302.22, 302.23), played
by the engine (`engine.fe.steps.combat_withdrawal`) on the tutorial board.

The Klingon D6 KLI-0005 is put into a Kzinti hex before the coalition's turn, so phase 5 has
one battle hex, defended by the Kzinti (alliance):

- 1104, an empty Kzinti hex (no base, no planet), with the Border Guard moved in: KZI-0001
  CC, -0002 BC, -0003 CL, -0004 and -0005 FF;
- 1205, the Kzinti battle station KZI-B001's hex, a base battle, with or without the Border
  Guard.
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core.face import ParamKind
from engine.core.ruleset import Event
from engine.fe import FE as RULESET
from engine.fe.face import FACE
from engine.fe.forces import Unit
from engine.fe.model import FeState
from engine.fe.opening import WithdrawOrder
from engine.fe.sequence import load_sequence
from engine.fe.steps import combat, combat_approach, combat_round, combat_withdrawal
from tests.engine.fe.helpers import owed, run_until
from tests.engine.fe.steps.tutorial_states import after_setup, orders, placed, refusals, run_to

GUARD = ("KZI-0001", "KZI-0002", "KZI-0003", "KZI-0004", "KZI-0005")
DONE = {"type": "done"}


def step(state: FeState) -> str:
    return str(RULESET.summary(state)["step"])


def battle_in(h: int, guard: tuple[str, ...] = GUARD, *extra: Unit) -> FeState:
    """Turn 1, the coalition's step 5-1A with one battle: the D6 and ``guard`` in ``h``."""
    state = placed(after_setup(), {"KLI-0005": h, **dict.fromkeys(guard, h)}, *extra)
    return run_to(state, "5-1A")


def record(state: FeState) -> Any:
    found = combat.current(state)
    assert found is not None
    return found


def passed(events: list[Event]) -> dict[str, str]:
    """The steps passed by themselves, with why."""
    return {e.step: e.text for e in events if e.kind == "step-passed"}


def withdraw(units: list[str], to: str, flagship: str = "") -> dict[str, Any]:
    return {"type": "withdraw", "units": units, "to": to, "flagship": flagship}


# --- withdrawal (302.1) ------------------------------------------------------------------------


def test_every_defender_withdraws_and_the_battle_is_over() -> None:
    state = battle_in(1104, ("KZI-0004", "KZI-0005"))
    assert owed(state).step == "5-1A" and owed(state).seats == ("alliance",)
    state, events = orders(state, "alliance", withdraw(["KZI-0004", "KZI-0005"], "1103"), DONE)
    assert [e.text for e in events if e.kind == "withdrawal"] == [
        "alliance announces the withdrawal of KZI-0004, KZI-0005 from 1104 to 1103 before "
        "combat (302.11)"
    ]
    assert owed(state).step == "5-1B" and owed(state).seats == ("coalition",)
    state, events = orders(state, "coalition", DONE)
    board = state.board
    assert board.unit("KZI-0004").hex == 1103 and board.unit("KZI-0005").hex == 1103
    assert "KZI-0004, KZI-0005 withdraw from 1104 to 1103, unopposed (302.12)" in [
        e.text for e in events
    ]
    assert state.battles[0].resolved == "the defender withdrew from 1104 before combat"
    assert state.battles[0].rounds == 0
    assert step(state).startswith("6")  # the only battle: phase 6 follows
    assert not [e for e in events if e.step.startswith(("5-2", "5-3", "5-7"))]


def test_crippled_units_withdrawing_may_be_pursued() -> None:
    state = battle_in(1104, ("KZI-0004", "KZI-0005"))
    board = state.board
    state = state.with_board(
        board.with_units([msgspec.structs.replace(board.unit("KZI-0004"), crippled=True)])
    )
    state, _ = orders(state, "alliance", withdraw(["KZI-0004", "KZI-0005"], "1103"), DONE)
    state, events = orders(state, "coalition", DONE)
    assert step(state) == "5-8A" and owed(state).seats == ("coalition",)
    assert (
        "the defender withdrew from 1104 before combat: the battle is resolved; the attacker "
        "may pursue the crippled KZI-0004 (302.1)"
    ) in [e.text for e in events]


def test_an_auxiliary_cannot_withdraw_and_the_order_is_refused_whole() -> None:
    auxiliary = Unit("KZI-0900", "KZI", "SAV", 1104)
    state = battle_in(1104, ("KZI-0004",), auxiliary)
    assert refusals(state, "alliance", withdraw(["KZI-0004", "KZI-0900"], "1103")) == [
        "SAV KZI-0900 is an auxiliary: auxiliaries cannot withdraw before combat (549.212)"
    ]
    before = state
    state, _ = orders(state, "alliance", DONE)  # stays: nothing was withdrawn
    assert state.board.unit("KZI-0004").hex == 1104 and before.board is state.board
    assert record(state).opening.withdrawing == ()


def test_a_base_cannot_withdraw_so_the_steps_pass_by_themselves() -> None:
    """The battle station alone defends 1205: nothing may withdraw, so 5-1A..5-1F and the
    attacker's 5-2A1 and 5-2A2 pass; the first hand-off is the defender's answer at 5-2A3."""
    start = placed(after_setup(), {"KLI-0005": 1205})
    events: list[Event] = []
    state = run_until(start, lambda s: owed(s).step == "5-2A3", events)
    assert combat_withdrawal.may_withdraw(state, record(state)) == ()
    order = WithdrawOrder(["KZI-B001"], "1204")  # checked as 5-1A would have
    problems = combat_withdrawal.check_withdraw(state, "alliance", order)
    assert [f"{v.message} ({v.rule})" for v in problems] == [
        "BATS KZI-B001 has no movement points: it cannot withdraw (302.11)"
    ]
    assert owed(state).step == "5-2A3" and owed(state).seats == ("alliance",)
    why = passed(events)
    assert why["5-1A"].endswith("the defender has nothing that may withdraw (302.11)")
    assert why["5-1B"].endswith("nobody withdraws (302.11)")
    assert why["5-2A2"].endswith(
        "round 1: the approach battle is offered, as the rules require (302.22)"
    )


def test_where_a_withdrawal_may_go() -> None:
    """One adjacent hex, by the retreat priorities: not 1103 while a Klingon stack there
    outnumbers the withdrawing ships and other hexes are free."""
    state = battle_in(1104, ("KZI-0004", "KZI-0005"))
    assert refusals(state, "alliance", withdraw(["KZI-0004", "KZI-0005"], "1307")) == [
        "1307 is not next to the battle hex 1104: a withdrawal goes one hex, as a retreat does "
        "(302.72)"
    ]
    assert refusals(state, "alliance", withdraw(["KZI-0006"], "1103")) == [
        "KZI-0006 is in 1704, not in the battle hex 1104 (302.11)"
    ]
    assert refusals(state, "coalition", withdraw(["KLI-0005"], "1103"))  # not its step
    blocked = placed(state, dict.fromkeys(("KLI-0001", "KLI-0002", "KLI-0003"), 1103))
    (text,) = refusals(blocked, "alliance", withdraw(["KZI-0004", "KZI-0005"], "1103"))
    assert "1103 holds 3 enemy units against 2 friendly ships (priority 2)" in text
    assert text.endswith("(302.72)")


def test_the_staying_force_names_its_flagship() -> None:
    state = battle_in(1104)
    going = ["KZI-0003", "KZI-0004", "KZI-0005"]
    assert refusals(state, "alliance", withdraw(going, "1103")) == [
        "name the flagship of the units that stay (flagship): one of KZI-0001, KZI-0002 (302.133)"
    ]
    assert refusals(state, "alliance", withdraw(going, "1103", "KZI-0004")) == [
        "KZI-0004 may not be the staying force's flagship: the eligible units are KZI-0001, "
        "KZI-0002 (302.133)"
    ]
    assert refusals(state, "alliance", withdraw([*GUARD], "1103", "KZI-0001")) == [
        "nothing that stays can command: no flagship to name (not KZI-0001) (302.133)"
    ]


def _opposed(oppose: bool) -> FeState:
    state = battle_in(1104)
    going = ["KZI-0003", "KZI-0004", "KZI-0005"]
    state, _ = orders(state, "alliance", withdraw(going, "1103", "KZI-0002"), DONE)
    answer = [{"type": "oppose"}, DONE] if oppose else [DONE]
    state, events = orders(state, "coalition", *answer)
    assert [state.board.unit(u).hex for u in going] == [1103, 1103, 1103]
    assert not record(state).resolved  # the CC and BC stay: the battle goes on
    if oppose:
        texts = [e.text for e in events if e.kind == "withdrawal"]
        assert texts == [
            "coalition opposes the withdrawal from 1104 (302.13)",
            "KZI-0003, KZI-0004, KZI-0005 withdraw from 1104 to 1103, opposed (302.13)",
            "KZI-0002 is the flagship of the force that stays in 1104: it serves in round 1 "
            "(302.133)",
        ]
    return state


def test_an_opposed_withdrawal_fixes_the_staying_force_s_flagship_for_round_1() -> None:
    state = _opposed(True)
    assert record(state).opening.opposed and record(state).opening.staying_flagship == "KZI-0002"
    assert combat_round.secret_problems(state, "5-3D", "alliance", "KZI-0002") == []
    (problem,) = combat_round.secret_problems(state, "5-3D", "alliance", "KZI-0001") or []
    assert problem.rule == "302.133"
    assert (
        problem.message
        == "KZI-0002 was named flagship of the force that stayed: it serves in round 1"
    )
    assert combat_round.secret_problems(state, "5-3D", "coalition", "KLI-0005") == []
    later = combat.replace_current(state, msgspec.structs.replace(record(state), rounds=1))
    assert combat_round.secret_problems(later, "5-3D", "alliance", "KZI-0001") == []


def test_an_unopposed_withdrawal_leaves_the_flagship_free() -> None:
    state = _opposed(False)
    assert not record(state).opening.opposed and record(state).opening.staying_flagship == ""
    assert combat_round.secret_problems(state, "5-3D", "alliance", "KZI-0001") == []


def test_oppose_needs_a_withdrawal_and_is_the_attacker_s() -> None:
    state = battle_in(1104)
    assert refusals(state, "coalition", {"type": "oppose"})  # not its step yet
    state, _ = orders(state, "alliance", withdraw(["KZI-0005"], "1103", "KZI-0001"))
    assert refusals(state, "alliance", withdraw(["KZI-0004"], "1103", "KZI-0001")) == [
        "alliance already announced its withdrawal from 1104 (302.11)"
    ]
    state, _ = orders(state, "alliance", DONE)
    state, _ = orders(state, "coalition", {"type": "oppose"})
    assert refusals(state, "coalition", {"type": "oppose"}) == [
        "the withdrawal is opposed already (302.13)"
    ]


def test_without_a_withdrawal_or_a_base_nothing_waits_for_anyone() -> None:
    """The defender stays (done at 5-1A): every other step of 5-1 and 5-2 passes by itself in
    a hex without a base; the next hand-off is the forces' step 5-3B."""
    state = battle_in(1104)
    events: list[Event] = []
    state, events = orders(state, "alliance", DONE)
    assert owed(state).step == "5-3B"
    why = passed(events)
    assert set(why) == {"5-1B", "5-1E", "5-2A1", "5-2A2", "5-2A3", "5-2B1"}
    assert why["5-2A1"].endswith("no base or base-like unit of the defender in 1104 (302.211)")
    assert record(state).opening.kind == ""


def test_withdrawal_needs_a_battle() -> None:
    # no battle hex on this board, so the phase passes (302.9): the step is set by hand
    quiet = run_to(after_setup(), "4A")
    state = msgspec.structs.replace(quiet, step=combat.index_of("5-1A"))
    assert owed(state).step == "5-1A"
    assert refusals(state, "alliance", withdraw(["KZI-0004"], "1103")) == [
        "no battle is being fought (302.1)"
    ]


# --- approach and base battles (302.22, 302.23) ------------------------------------------------


def test_an_accepted_approach_battle_leaves_the_base_out() -> None:
    state = battle_in(1205)
    state, _ = orders(state, "alliance", DONE)  # no withdrawal
    assert owed(state).step == "5-2A3" and owed(state).seats == ("alliance",)
    assert combat_approach.base_like(state, record(state)) == "BATS KZI-B001"
    state, events = orders(state, "alliance", {"type": "approach", "accept": True}, DONE)
    assert [e.text for e in events if e.kind == "approach"] == [
        "alliance accepts the approach battle in 1205, round 1: the base does not fight (302.22)",
        "the approach battle in 1205, round 1, is fought without the base",
    ]
    assert record(state).opening.kind == "approach" and record(state).opening.accepted == 1
    assert not [e for e in events if e.step.startswith("5-2B")]
    assert "KZI-B001" not in combat_round.units_here(state, "alliance")
    assert "KZI-0001" in combat_round.units_here(state, "alliance")


def test_a_refused_approach_battle_is_a_base_battle_the_attacker_may_leave() -> None:
    state = battle_in(1205)
    state, _ = orders(state, "alliance", DONE)
    state, events = orders(state, "alliance", DONE)  # done alone refuses
    assert [e.text for e in events if e.kind == "approach"] == [
        "alliance refuses the approach battle in 1205, round 1: a base battle; the attacker "
        "may retreat before it (302.23)"
    ]
    assert record(state).opening.kind == "base" and record(state).opening.declined == 1
    assert owed(state).step == "5-2B1" and owed(state).seats == ("coalition",)
    base_battle = state
    state, _ = orders(state, "coalition", {"type": "retreat"}, DONE)
    assert step(state) == "5-7A1" and record(state).retreats == ("coalition",)
    state, _ = orders(base_battle, "coalition", DONE)  # fights the base battle, base included
    assert owed(state).step == "5-3B"
    assert "KZI-B001" in combat_round.units_here(state, "alliance")


def test_the_answer_is_the_defender_s_and_given_once() -> None:
    state = battle_in(1205)
    state, _ = orders(state, "alliance", DONE)
    assert refusals(state, "coalition", {"type": "approach"})  # not the attacker's step
    state, _ = orders(state, "alliance", {"type": "approach", "accept": False})
    assert refusals(state, "alliance", {"type": "approach"}) == [
        "the approach battle of round 1 was answered already (302.22)"
    ]
    evasion = load_sequence().steps["5-1E"]
    (problem,) = combat_approach.check_cloak(state, "alliance", evasion)
    assert (problem.message, problem.rule) == ("alliance has no cloaking ships in 1205", "306.1")


def test_from_round_2_the_attacker_may_offer_again() -> None:
    state = battle_in(1205)
    state, _ = orders(state, "alliance", DONE)
    state, _ = orders(state, "alliance", DONE)  # refused: a base battle
    state, _ = orders(state, "coalition", DONE)
    state = run_to(state, "5-7A1")
    state, _ = orders(state, "alliance", DONE)
    state, _ = orders(state, "coalition", DONE)
    state, _ = orders(state, "alliance", DONE)  # nobody retreats: round 2
    assert owed(state).step == "5-2A2" and owed(state).seats == ("coalition",)
    no_offer, _ = orders(state, "coalition", DONE)
    assert owed(no_offer).step == "5-3B" and record(no_offer).opening.kind == "base"
    assert refusals(state, "coalition", {"type": "approach", "accept": False}) == [
        "an approach order at 5-2A2 offers the battle; to offer none answer done (302.22)"
    ]
    state, events = orders(state, "coalition", {"type": "approach"}, DONE)
    assert "coalition offers an approach battle in 1205, round 2 (302.22)" in [
        e.text for e in events
    ]
    assert owed(state).step == "5-2A3" and record(state).opening.offered == 2


def test_the_face_offers_the_opening_orders() -> None:
    """The app builds its forms from these: a withdrawal's units, hex and flagship at 5-1A,
    the defender's answer (a flag) at 5-2A3."""
    state = battle_in(1104)
    choices = {c.order: c for c in FACE.choices(state, "alliance")}
    withdrawal = choices["withdraw"]
    assert withdrawal.title == "Withdraw before combat" and withdrawal.rule == "302.11"
    assert [(p.name, p.kind, p.required) for p in withdrawal.params] == [
        ("units", ParamKind.PIECES, True),
        ("to", ParamKind.HEX, True),
        ("flagship", ParamKind.PIECE, False),
    ]
    state = battle_in(1205)
    state, _ = orders(state, "alliance", DONE)
    answer = {c.order: c for c in FACE.choices(state, "alliance")}["approach"]
    assert [(p.name, p.kind) for p in answer.params] == [("accept", ParamKind.FLAG)]
    assert answer.title == "Offer, accept or refuse the approach battle"
