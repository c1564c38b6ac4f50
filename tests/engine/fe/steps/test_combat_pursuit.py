"""The pursuit battle played by the engine (302.742, 307.3, 307.4): `combat_pursuit`.

The board of `test_combat_retreat`: the Kzinti CL KZI-0003 retreats from 1104 to 1004 after
round 1 against the D7C KLI-0001 and the D7s KLI-0002/-0003, which pursue (three ships: a
pursuit die of 2 succeeds, 307.0). Round 1 leaves the alliance 2 plus points carried against
it and the coalition 1 (`test_combat_retreat.in_1104`), which the pursuit round takes over
(308.2). The pursuit round is 1104's round 2, marked ``pursuit`` on the record.

The policy test plays the large board of `tests.engine.fe_battle` through the protocol core:
the Klingons retreat from 1105 after round 1, the Kzinti pursue with every ship there (more
than six, so the pursuit cannot fail), and the pursuit battle is fought within the packet
that rolls the pursuit die.
"""

from __future__ import annotations

import msgspec
import pytest

from engine.core.owed import last_to_commit
from engine.core.ruleset import DecisionKind, Event
from engine.core.turn_orders import Done, Standing
from engine.fe import RULESET, battle_report
from engine.fe.face import FACE
from engine.fe.forces import Unit
from engine.fe.model import FeState
from engine.fe.orders import PolicyOrder, PursueOrder
from engine.fe.steps import combat, combat_damage, combat_policy, pursuit_round
from tests.engine.fe.helpers import owed
from tests.engine.fe.steps.test_combat_retreat import KLINGONS, at_pursuit, pursue, step
from tests.engine.fe.steps.test_combat_round import refusals as secret_refusals
from tests.engine.fe.steps.test_combat_round import reveal
from tests.engine.fe.steps.tutorial_states import (
    after_setup,
    orders,
    placed,
    refusals,
    run_to,
    texts,
)
from tests.engine.fe_battle import PlacedFe, large_board, policy, rules
from tests.engine.table import Table

PURSUED = {"bir": 4, "flagship": "KZI-0003", "force": ["KZI-0003"]}


def pursued_at_setup(options: tuple[tuple[str, object], ...] = ()) -> FeState:
    """5-8D after a pursuit die of 2 against the three Klingons (307.0)."""
    state = at_pursuit()
    if options:
        kept = tuple(o for o in state.options if o[0] not in dict(options))
        state = msgspec.structs.replace(state, options=(*kept, *options))
    state, roll = pursue(state, "coalition", list(KLINGONS))
    state = RULESET.apply_roll(state, roll, (2,)).state
    state, _ = orders(state, "coalition", {"type": "done"})
    assert step(state) == "5-8D" and owed(state).kind == DecisionKind.SECRET
    assert owed(state).seats == ("coalition", "alliance")
    return state


def test_a_successful_pursuit_is_fought_for_one_round_with_damage() -> None:
    """BIR 4 + 4, variable die 4: total 8. The Klingons' potential 25 at die 3 scores 35% = 9
    points; the CL's 6 at die 6 42.5% = 3. The pursuer cripples the CL for its defence 6
    (307.4 at the normal cost), resolves the 3 points and its 1 carried with a D7 (4 points,
    4 minus), and the alliance owes the 3 left plus its 2 carried: it destroys the cripple."""
    state = reveal(pursued_at_setup(), {"coalition": 4, "alliance": PURSUED}, dice=(4, 3, 6))
    record = combat.current(state)
    assert record is not None and record.rounds == 1
    log = record.log[-1]
    assert (log.round, log.pursuit, log.bir) == (2, True, 8)
    assert (log.attacker.force, log.attacker.damage) == (KLINGONS, 9)
    assert (log.defender.force, log.defender.damage) == (("KZI-0003",), 3)
    assert (step(state), owed(state).seats) == ("5-8E", ("coalition",))
    assert refusals(state, "coalition", {"type": "done"}) == [
        "4 pursuit damage points to resolve first: send an allocate order (307.4)"
    ]
    state, events = orders(state, "coalition", {"type": "direct", "unit": "KZI-0003"})
    assert texts(events, "directed") == [
        "coalition directs damage in the 1104 pursuit battle: KZI-0003 crippled for 6 of its 9 "
        "points (at the normal cost); 3 go to general allocation (307.4)"
    ]
    assert state.board.unit("KZI-0003").crippled
    order = combat_damage.suggested(state, "coalition")
    assert order is not None and order.losses == ["cripple KLI-0002"]
    state, _ = orders(state, "coalition", {"type": "allocate", "losses": order.losses})
    state, _ = orders(state, "coalition", {"type": "done"})
    assert (step(state), owed(state).seats) == ("5-8F", ("alliance",))
    state, events = orders(
        state, "alliance", {"type": "allocate", "losses": ["destroy KZI-0003"]}, {"type": "done"}
    )
    assert [u.id for u in state.board.units if u.id == "KZI-0003"] == []
    assert state.board.unit("KLI-0002").crippled
    record = state.battles[0]
    assert record.pursuit == "fought"
    assert texts(events, "pursuit") == [
        "the 1104 pursuit battle is over: alliance's survivors stay in their retreat hex 1004 "
        "(302.72)"
    ]
    assert next(e.text for e in events if e.kind == "step-passed") == (
        "5-8G Each side: slow-unit retreat battle, manual adjustments: no slow units retreated: "
        "no slow-unit retreat battle (302.742B)"
    )
    assert texts(events, battle_report.REPORT_KIND) == [
        "1104 pursuit battle (round 2) losses: coalition directed 6 points: KZI-0003 crippled; "
        "alliance owed 5 points, allocated 3: KZI-0003 destroyed, 2 plus points carried; "
        "coalition owed 4 points, allocated 8: KLI-0002 crippled, 4 minus points carried (302.6)"
    ]
    (pursuit,) = [r for r in battle_report.rounds_json(record) if r.get("pursuit")]
    assert pursuit["round"] == 2 and pursuit["attacker"]["damage"] == 9


def test_the_set_up_refuses_illegal_choices_by_rule() -> None:
    state = pursued_at_setup()
    assert secret_refusals(state, "coalition", 5) == [
        "a battle intensity rating of 5 is outside the allowed 1 to 4 (304.1)"
    ]
    assert secret_refusals(state, "coalition", {"bir": 2, "force": ["KLI-0001"]}) == [
        "the pursuit force is the ships of the pursue order (KLI-0001, KLI-0002, KLI-0003): "
        "the pursuer chooses no flagship or force at 5-8D (302.742)"
    ]
    assert secret_refusals(state, "alliance", {"bir": 2, "flagship": "KZI-0001"}) == [
        "KZI-0001 may not be flagship of the pursued force: the eligible units are KZI-0003 "
        "(302.32)"
    ]
    assert secret_refusals(state, "alliance", {"bir": 2, "force": ["KZI-0003"]}) == [
        "a force needs its flagship: name it too (302.32)"
    ]
    assert secret_refusals(state, "alliance", "the whole fleet")[0].startswith(
        "the secret choice of 5-8D is your BIR pick"
    )
    assert secret_refusals(state, "alliance", PURSUED) == []


def test_directed_damage_beyond_the_points_is_refused_with_its_price() -> None:
    """BIR 1 + 1, variable die 1: total 0; the Klingons' die 1 scores 10% of 25 = 3 points
    (nearest, halves up): crippling the CL costs its defence, 6 (307.4)."""
    state = reveal(
        pursued_at_setup(), {"coalition": 1, "alliance": {**PURSUED, "bir": 1}}, dice=(1, 1, 1)
    )
    assert refusals(state, "coalition", {"type": "direct", "unit": "KZI-0003"}) == [
        "to cripple KZI-0003 costs 6 points in the pursuit battle and you scored 3 (307.4)"
    ]
    assert refusals(state, "coalition", {"type": "direct", "unit": "KZI-0001"}) == [
        "KZI-0001 is not an enemy unit in this battle (302.5)"
    ]
    assert refusals(state, "alliance", {"type": "allocate", "losses": []})[0].startswith(
        "it is coalition's step 5-8E"
    )


def test_the_doubled_cost_option_prices_directed_damage_as_a_round() -> None:
    """``pursuit-directed-cost`` "double": the same 9 points no longer buy the cripple (12)."""
    state = pursued_at_setup(((pursuit_round.DIRECTED_COST, pursuit_round.DOUBLE),))
    state = reveal(state, {"coalition": 4, "alliance": PURSUED}, dice=(4, 3, 6))
    assert refusals(state, "coalition", {"type": "direct", "unit": "KZI-0003"}) == [
        "to cripple KZI-0003 costs 12 points in the pursuit battle and you scored 9 (307.4)"
    ]


def test_without_return_fire_only_the_pursuers_roll() -> None:
    """``pursuit-return-fire`` false: no die for the pursued, which scores nothing."""
    state = pursued_at_setup(((pursuit_round.RETURN_FIRE, False),))
    state = reveal(state, {"coalition": 4, "alliance": PURSUED}, dice=(4, 3))
    record = combat.current(state)
    assert record is not None
    assert (record.log[-1].defender.damage, record.log[-1].attacker.damage) == (0, 9)
    # the pursuer owes only the plus point carried out of round 1 (308.2)
    assert (step(state), refusals(state, "coalition", {"type": "done"})) == (
        "5-8E",
        ["1 pursuit damage points to resolve first: send an allocate order (307.4)"],
    )


def test_a_failed_pursuit_passes_the_pursuit_battle_by_itself() -> None:
    state = at_pursuit()
    state, roll = pursue(state, "coalition", list(KLINGONS))
    rolled = RULESET.apply_roll(state, roll, (3,))
    state, events = orders(rolled.state, "coalition", {"type": "done"})
    passed = [e.text for e in events if e.kind == "step-passed" and e.step.startswith("5-8")]
    assert passed == [
        "5-8D Pursued sets up its force; both pick the BIR: no pursuit battle",
        "5-8E Pursuer directs damage, allocates return fire: no pursuit battle",
        "5-8F Pursued allocates; tug, decoy escape: manual: no pursuit battle",
        "5-8G Each side: slow-unit retreat battle, manual adjustments: no pursuit battle",
    ]
    assert all(not log.pursuit for log in state.battles[0].log)


def _policy_game(version: str | None = None) -> Table:
    """The large board: the Klingons' policy retreats after round 1, the Kzinti's pursues
    (in a game begun at ``version`` of the ruleset, by default its own)."""
    leaving = policy(1, retreat=1)
    chasing = PolicyOrder(**{**msgspec.structs.asdict(policy(1)), "pursue": "always"})
    ruleset = PlacedFe(large_board, version=version)
    table = Table(ruleset, "tutorial", ["coalition", "alliance"], label="chase")
    signed: set[str] = set()
    for _ in range(400):
        record = rules(table).battles[0] if rules(table).battles else None
        if record is not None and record.pursuit == "fought":
            return table
        seat, kind, _step = table.owed()
        if kind == DecisionKind.ENTROPY:
            table.entropy_only(seat)
            continue
        extra: list[object] = []
        if seat not in signed:
            signed.add(seat)
            extra = [Standing(["5"]), leaving if seat == "coalition" else chasing]
        table.orders(seat, *extra, Done())
    raise AssertionError("the pursuit battle was not fought")


@pytest.mark.parametrize("version", ["5.0", "5.1"])
def test_a_policy_answered_pursuit_costs_no_packet_of_its_own(version: str) -> None:
    """Both policies make the pursuit battle's set-up, so its dice come with the pursuit die:
    in a game begun under 5.0 they are armed with it and the one packet that rolls them
    fights the whole pursuit round, no entropy packet and no hand-off more than a pursuit
    that fails; from 5.1 the die and the pursuit battle are read from the values that rolled
    the round before, in the packet that completed them."""
    table = _policy_game(version)
    record = rules(table).battles[0]
    assert record.retreated[0][0] == "coalition" and len(record.pursuers) > 6
    rows = {row.step: row.policy for row in FACE.checklist(rules(table))}
    both = ("coalition", "alliance")  # each set-up and allocation is its policy's, as played
    assert (rows["5-8A"], rows["5-8D"], rows["5-8F"]) == (("alliance",), both, both)
    log = record.log[-1]
    assert log.pursuit and log.attacker.damage >= 0 and log.defender.damage >= 0

    def packets(wanted: str) -> set[int]:
        return {
            i
            for i, result in enumerate(table.results)
            for e in result.events
            if wanted in e.text or wanted == e.kind
        }

    if version == "5.1":
        (rolled,) = packets("then rolled 1d6 for pursuit, 1105")
        assert packets("alliance rolled 1d6 for combat die, 1105 round 1") == {rolled}
        assert packets("then rolled 1d6 for variable BIR, 1105 pursuit battle:") == {rolled}
        assert packets("the 1105 pursuit battle is over") == {rolled}
        assert max(packets("roll-armed")) < rolled and len(table.packets) == rolled + 1
        return
    (armed,) = packets("asked for 1d6 for pursuit,")
    assert packets("asked for 1d6 for variable BIR, 1105 pursuit battle") == {armed}
    (rolled,) = packets("1d6 for pursuit, 1105") - {armed}
    assert packets("1d6 for variable BIR, 1105 pursuit battle:") == {rolled}
    assert packets("the 1105 pursuit battle is over") == {rolled}
    assert rolled == armed + 1 and len(table.packets) == rolled + 1
    chosen = [e for e in table.results[rolled].events if e.kind == "secret"]
    assert [e.step for e in chosen] == ["5-8D"] and chosen[0].data["policy"]


def test_dice_armed_with_a_failed_pursuit_are_said_unused() -> None:
    """Dice armed with the pursuit die (both policies making the set-up) that land after the
    die failed change nothing and say so (307.0)."""
    state, roll = pursue(at_pursuit(), "coalition", list(KLINGONS))
    state = RULESET.apply_roll(state, roll, (3,)).state
    record = state.battles[0]
    assert record.pursuit == "failed"
    requests = pursuit_round.dice_for(
        state, msgspec.structs.replace(record, pursuit="succeeded"), at_reveal=False
    )
    armed = combat.replace_current(state, msgspec.structs.replace(record, pursuit_dice=True))
    said: list[str] = []
    for request in requests:
        events: list[Event] = []
        assert pursuit_round.apply_die(armed, request, (4,), events) is armed
        said += texts(events, "pursuit")
    assert said == [
        "1104: the pursuit failed, so the variable BIR, 1104 pursuit battle die (4) is not used "
        "(307.0)",
        "1104: the pursuit failed, so the combat die, 1104 pursuit battle, coalition die (4) is "
        "not used (307.0)",
        "1104: the pursuit failed, so the combat die, 1104 pursuit battle, alliance die (4) is "
        "not used (307.0)",
    ]
    quiet: list[Event] = []
    assert pursuit_round.apply_die(state, requests[0], (4,), quiet) is state and quiet == []


def test_the_app_offers_the_pursuit_set_up_as_a_bir_pick() -> None:
    (choice,) = FACE.choices(pursued_at_setup(), "alliance")
    assert choice.title == "Secret pursuit set-up"
    assert choice.params[0].options == ("1", "2", "3", "4")


def test_the_app_offers_the_pursuers_targets_and_the_allocation_editor() -> None:
    state = reveal(pursued_at_setup(), {"coalition": 4, "alliance": PURSUED}, dice=(4, 3, 6))
    (direct,) = [c for c in FACE.choices(state, "coalition") if c.order == "direct"]
    assert [p.options for p in direct.params if p.name == "unit"] == [("KZI-0003",)]
    # 9 points at the normal cost: the CL crippled for its defence 6, or destroyed for 6 + 3
    assert [(p.label, p.values) for p in direct.presets] == [
        ("KZI-0003 CL: cripple for 6 of your 9 points", (("unit", "KZI-0003"), ("destroy", "no"))),
        ("KZI-0003 CL: destroy for 9 of your 9 points", (("unit", "KZI-0003"), ("destroy", "yes"))),
    ]
    menu = FACE.menu(state, "coalition", "allocate", ())
    assert menu is not None and not menu.can_stop
    assert menu.suggested == ("cripple KLI-0002",)


def test_one_side_s_policy_makes_its_set_up_and_the_other_is_asked_alone() -> None:
    """The pursuer signed a BIR: only the pursued commits at 5-8D, and the dice wait for the
    seats' next values since one set-up came from no reveal (`engine.core.game`)."""
    state = pursued_at_setup()
    signed = PolicyOrder(bir=3, ew="default")
    state = RULESET.apply(state, "coalition", signed).state
    assert owed(state).seats == ("alliance",)
    applied = RULESET.apply_secret(state, owed(state), {"alliance": PURSUED})
    record = combat.current(applied.state)
    assert record is not None
    assert (record.log[-1].attacker.bir, record.log[-1].defender.bir) == (3, 4)
    assert [r.purpose for r in applied.rolls] == [
        "variable BIR, 1104 pursuit battle",
        "combat die, 1104 pursuit battle, coalition",
        "combat die, 1104 pursuit battle, alliance",
    ]


def test_slow_units_stop_5_8g_for_typed_adjustments() -> None:
    """An auxiliary carrier (LAV, 549.0) retreats with the CL: it is no ship, so it stays out
    of the pursued force (549.32) and 5-8G, the slow-unit retreat battle (302.742B), stops
    for each side's typed adjustments, the pursuer's first."""
    state = placed(after_setup(), {"KZI-0003": 1104, **dict.fromkeys(KLINGONS, 1104)})
    state = run_to(state, "5-7A1")  # the tables hold no auxiliary: it joins after round 1
    state = placed(state, {}, Unit("KZI-9100", "KZI", "LAV", 1104))
    state, _ = orders(state, "alliance", {"type": "retreat"}, {"type": "done"})
    state, _ = orders(state, "coalition", {"type": "done"})
    assert step(state) == "5-8A" and state.board.unit("KZI-9100").hex == 1004
    state, roll = pursue(state, "coalition", list(KLINGONS))
    state = RULESET.apply_roll(state, roll, (1,)).state
    state, _ = orders(state, "coalition", {"type": "done"})
    assert secret_refusals(state, "alliance", {"bir": 1, "flagship": "KZI-9100"}) == [
        "KZI-9100 may not be flagship of the pursued force: the eligible units are KZI-0003 "
        "(302.32)"
    ]
    state = reveal(state, {"coalition": 1, "alliance": PURSUED}, dice=(3, 1, 1))
    for seat in ("coalition", "alliance"):
        order = combat_damage.suggested(state, seat)
        if order is not None and step(state) != "5-8G":
            state, _ = orders(state, seat, {"type": "allocate", "losses": order.losses})
            state, _ = orders(state, seat, {"type": "done"})
    assert (step(state), owed(state).seats) == ("5-8G", ("coalition",))
    state, _ = orders(state, "coalition", {"type": "done"})
    assert (step(state), owed(state).seats) == ("5-8G", ("alliance",))
    state, _ = orders(
        state,
        "alliance",
        {"type": "adjust", "change": "destroy", "unit": "KZI-9100", "reason": "slow units"},
        {"type": "done"},
    )
    assert [u for u in state.board.units if u.id == "KZI-9100"] == []
    assert state.battles[0].pursuit == "fought"


def test_by_hand_the_set_up_is_committed_and_its_dice_read_at_the_reveal() -> None:
    """The large board with every secret choice sent by hand (the policies only retreat,
    pursue and allocate): both sides commit at 5-8D and the reveal that completes it rolls
    the pursuit round's dice, so no packet waits for them (`engine.core.rolls`)."""
    hand = {
        "coalition": PolicyOrder(allocate="suggested", retreat=1),
        "alliance": PolicyOrder(allocate="suggested", retreat=0, pursue="always"),
    }
    picks = {"coalition": policy(1), "alliance": policy(1)}
    table = Table(PlacedFe(large_board), "tutorial", ["coalition", "alliance"], label="hand")
    signed: set[str] = set()
    for _ in range(600):
        state = rules(table)
        record = state.battles[0] if state.battles else None
        if record is not None and record.pursuit == "fought":
            break
        seat, kind, at = table.owed()
        if kind == DecisionKind.ENTROPY:
            table.entropy_only(seat)
        elif kind == DecisionKind.SECRET:
            choice = 2 if at == "5-8D" else combat_policy.choice(state, at, seat, picks[seat])
            assert table.state is not None
            last = last_to_commit(table.ruleset, table.state, seat)
            table.commit(seat, choice, reveal_now=last)
        elif kind == DecisionKind.REVEAL:
            table.reveal(seat)
        else:
            extra: list[object] = []
            if seat not in signed:
                signed.add(seat)
                extra = [Standing(["5"]), hand[seat]]
            table.orders(seat, *extra, Done())
    record = rules(table).battles[0]
    assert record.pursuit == "fought" and not record.pursuit_dice
    reveals = [
        i
        for i, result in enumerate(table.results)
        if any(e.kind == "secret" and e.step == "5-8D" for e in result.events)
    ]
    assert len(reveals) == 1
    said = [e.text for e in table.results[reveals[0]].events if e.kind == "roll"]
    assert [t.split(":")[0] for t in said] == [
        "the reveal of 5-8D rolled 1d6 for variable BIR, 1105 pursuit battle",
        "the reveal of 5-8D rolled 1d6 for combat die, 1105 pursuit battle, alliance",
        "the reveal of 5-8D rolled 1d6 for combat die, 1105 pursuit battle, coalition",
    ]


def test_dice_rolled_before_the_set_up_is_made_are_kept_for_it() -> None:
    """The pursuer sends its ``pursue`` order without ``done``: the pursuit die and the
    battle's dice armed with it are rolled by the enemy's next packet, before 5-8A ends and
    the policies make the set-up (5-8D). The dice are kept for the set-up, not lost: the
    round is fought with them when 5-8D is made, and 5-8E never waits for dice again."""
    leaving = policy(1, retreat=1)
    table = Table(PlacedFe(large_board), "tutorial", ["coalition", "alliance"], label="chase")
    signed: set[str] = set()
    pursued = False
    for _ in range(400):
        record = rules(table).battles[0] if rules(table).battles else None
        if record is not None and record.pursuit == "fought":
            break
        seat, kind, step = table.owed()
        if kind == DecisionKind.ENTROPY:
            table.entropy_only(seat)
            continue
        extra: list[object] = []
        if seat not in signed:
            signed.add(seat)
            own = (
                ["5"] if seat == "coalition" else ["5-1", "5-2", "5-3", "5-4", "5-5", "5-6", "5-7"]
            )
            extra = [Standing(own), leaving if seat == "coalition" else policy(1)]
        if step == "5-8A" and not pursued:
            assert record is not None
            ships = [u.id for u in rules(table).board.at(record.hex) if u.empire == "KZI"]
            table.orders(seat, *extra, PursueOrder(units=ships))
            pursued = True
            continue
        table.orders(seat, *extra, Done())
    else:
        raise AssertionError("the pursuit battle was not fought")
    rolled = {
        e.text.rsplit(": ", 1)[0]: int(e.text.rsplit(": ", 1)[1])
        for result in table.results
        for e in result.events
        if e.kind == "roll" and "pursuit battle" in e.text
    }
    log = rules(table).battles[0].log[-1]
    assert (
        log.pursuit
        and log.vbir_die == rolled["alliance rolled 1d6 for variable BIR, 1105 pursuit battle"]
    )
    assert (
        log.defender.die
        == rolled["alliance rolled 1d6 for combat die, 1105 pursuit battle, alliance"]
    )
