"""Retreat and pursuit played by the engine (302.7, 302.8, 307.0; `engine.fe.steps.combat_retreat`).

The tutorial board, with one battle of our own making in 1104, a Kzinti hex with neither a
planet nor a base: the CL KZI-0003 against the D7C KLI-0001 and the D7s KLI-0002/-0003.
Around 1104 the Kzinti find their main supply grid everywhere; the map's starting base of
1004 and the planet of 1105 are supply points (a path of 0 hexes), the other neighbours
(1003, 1103, 1203, 1204) are one hex from one, so the retreat priorities (302.72, 3D) leave
the Kzinti 1004 and 1105, where the rest of the Border Guard stands. The Klingons have no
supply there at all, so every neighbour free of Kzinti is open to them.

The other battles are the loop's (`test_combat_loop`): the D6 KLI-0005 against the Border
Guard and its planet in 1105, the F5 KLI-0006 against the Starbase Squadron and the
starbase KZI-B004 in 1704.
"""

from __future__ import annotations

import pytest

from engine.core.errors import OutOfTurn
from engine.core.ruleset import DecisionKind, Event, RollRequest
from engine.core.turn_orders import Done
from engine.fe import FE as RULESET
from engine.fe import supply
from engine.fe.blocking import Blocking
from engine.fe.combat.retreat import RetreatHex, legal_retreat_hexes
from engine.fe.face import FACE
from engine.fe.forces import Unit
from engine.fe.galaxy import load_galaxy
from engine.fe.model import FeState
from engine.fe.orders import Adjust, PursueOrder, parse_orders
from engine.fe.steps import combat, combat_retreat, pursuit_die
from engine.fe.steps.battles import battle_list
from engine.fe.steps.missions import missions_on
from engine.fe.supply import supply_grid
from tests.engine.fe.helpers import owed
from tests.engine.fe.steps.test_combat_loop import two_battles
from tests.engine.fe.steps.test_combat_round import reveal
from tests.engine.fe.steps.tutorial_states import (
    after_setup,
    orders,
    placed,
    refusals,
    run_to,
    texts,
)
from tests.engine.fe_play import set_up, walk_to
from tests.engine.table import Table

KLINGONS = ("KLI-0001", "KLI-0002", "KLI-0003")


def step(state: FeState) -> str:
    return str(RULESET.summary(state)["step"])


def in_1104() -> FeState:
    """5-7A1 of the battle in 1104 (the only battle hex)."""
    state = placed(after_setup(), {"KZI-0003": 1104, **dict.fromkeys(KLINGONS, 1104)})
    state = run_to(state, "5-7A1")
    record = combat.current(state)
    assert record is not None and record.hex == 1104 and len(state.battles) == 1
    return state


def where(state: FeState, *units: str) -> list[int]:
    return [state.board.unit(u).hex for u in units]


def test_the_announcements_go_defender_attacker_defender() -> None:
    """302.71: the defender first, the attacker, the defender's last option; a defender who
    announced at its first option has no last one."""
    state = in_1104()
    assert owed(state).seats == ("alliance",)
    assert refusals(state, "coalition", {"type": "retreat"})[0].startswith(
        "it is alliance's step 5-7A1"
    )
    state, _ = orders(state, "alliance", {"type": "done"})
    assert (step(state), owed(state).seats) == ("5-7A2", ("coalition",))
    state, _ = orders(state, "coalition", {"type": "done"})
    assert (step(state), owed(state).seats) == ("5-7A3", ("alliance",))
    state, events = orders(state, "alliance", {"type": "retreat"}, {"type": "done"})
    assert texts(events, "retreat")[0] == (
        "alliance announces its retreat from 1104 in round 1 (302.71)"
    )
    assert where(state, "KZI-0003") == [1004]  # carried out at 5-7A4

    state, _ = orders(in_1104(), "alliance", {"type": "retreat"}, {"type": "done"})
    state, events = orders(state, "coalition", {"type": "done"})
    assert (
        "5-7A3 Defender's last retreat option: the defender announced its retreat at its "
        "first option (302.71)" in texts(events, "step-passed")
    )


def test_the_engine_picks_the_hex_by_the_priorities() -> None:
    """No ``to``: the engine's pick among 1004 and 1105 (both a supply point, 3D) is 1004,
    free of other ships and lowest; the CL moves there at 5-7A4, the battle is resolved."""
    state = in_1104()
    facts = combat_retreat.candidates(state, "alliance", 1104)
    assert legal_retreat_hexes(facts) == (1004, 1105)
    assert [(f.hex, f.grid, f.supply_distance, f.friendly_ships) for f in facts] == [
        (1103, "main", 1, 0),
        (1203, "main", 1, 0),
        (1204, "main", 1, 0),
        (1105, "main", 0, 4),
        (1004, "main", 0, 0),
        (1003, "main", 1, 0),
    ]
    state, _ = orders(state, "alliance", {"type": "retreat"}, {"type": "done"})
    state, events = orders(state, "coalition", {"type": "done"})
    assert where(state, "KZI-0003", *KLINGONS) == [1004, 1104, 1104, 1104]
    (moved,) = [e for e in events if e.kind == "retreat"]
    assert moved.text == (
        "alliance retreats from 1104 to 1004 after round 1, the engine's pick by the retreat "
        "priorities: KZI-0003 (302.72)"
    )
    assert moved.step == "5-7A4"
    assert moved.data == {
        "hex": "1104",
        "round": 1,
        "seat": "alliance",
        "to": "1004",
        "units": ["KZI-0003"],
    }
    record = combat.current(state)
    assert record is not None and record.retreated == (("alliance", 1004),)
    assert record.resolved == "alliance retreated after round 1"


def fresh_supply_of(state: FeState, empire: str, hexes: tuple[int, ...]) -> dict[int, object]:
    """What `combat_retreat._supply_of` reads, worked out from scratch: both searches of the
    map on this board, the distances of ``hexes`` read from them."""
    galaxy = load_galaxy()
    blocked = Blocking(galaxy, state.board, empire, "supply")
    around = supply.neighbours_fn(galaxy, empire)
    tugs = missions_on(state.board, state.supply_tugs, empire)
    points = [p for p in supply_grid(galaxy, state.board, empire, tugs).points if p.grid >= 0]
    main = supply.spread(around, [(p.hex, 0) for p in points if p.main], blocked, 6)
    every = supply.spread(around, [(p.hex, 0) for p in points], blocked, 6)

    def distance(reach: dict[int, tuple[int, int]], h: int) -> int | None:
        found = [reach[h][0]] if h in reach else []
        found += [
            reach[n][0] + 1 for n in around(h) if n in reach and reach[n][0] < 6 and not blocked(n)
        ]
        return min(found) if found else None

    out: dict[int, object] = {}
    for h in hexes:
        to_main, to_any = distance(main, h), distance(every, h)
        out[h] = (
            ("main", to_main)
            if to_main is not None
            else ("partial", to_any)
            if to_any is not None
            else ("none", 0)
        )
    return out


def test_the_remembered_supply_searches_match_a_fresh_search_as_units_move() -> None:
    """The two searches behind a retreat's candidate hexes are kept per board and grid
    (`combat_retreat._reaches`): on every board along the way (ships moved next to 1104,
    into its neighbours, a Kzinti base taken off the map) the answers are those of a fresh
    search."""
    state = in_1104()
    hexes = (1003, 1004, 1103, 1105, 1203, 1204, 1305, 1506)
    boards = [
        state,
        placed(state, {"KLI-0005": 1003}),
        placed(state, {"KLI-0005": 1004, "KLI-0006": 1203}),
        placed(state, {"KLI-0005": 1105, "KLI-0006": 1204, "KZI-B004": 0}),
        placed(state, {"KZI-0003": 1003}),
    ]
    seen = []
    for board_state in boards:
        for empire in ("KZI", "KLI"):
            got = combat_retreat._supply_of(board_state, empire, hexes)
            assert got == fresh_supply_of(board_state, empire, hexes), empire
            seen.append(got)
    assert len({repr(s) for s in seen}) > 2  # the moves changed what the searches find


def test_a_retreat_goes_to_the_legal_hex_it_names() -> None:
    state = in_1104()
    state, events = orders(state, "alliance", {"type": "retreat", "to": "1105"}, {"type": "done"})
    assert texts(events, "retreat")[1] == "alliance will retreat from 1104 to 1105 (302.72)"
    state, events = orders(state, "coalition", {"type": "done"})
    assert where(state, "KZI-0003") == [1105]
    assert texts(events, "retreat") == [
        "alliance retreats from 1104 to 1105 after round 1, as it named: KZI-0003 (302.72)"
    ]


def test_a_retreat_into_an_illegal_hex_is_refused_with_the_rule_and_the_legal_hexes() -> None:
    state = in_1104()
    assert refusals(state, "alliance", {"type": "retreat", "to": "1103"}) == [
        "a retreat into 1103 breaks the retreat priorities: its supply path is 1 hexes long, "
        "the shortest is 0 (priority 3D); it may enter 1004, 1105 (302.72)"
    ]
    assert refusals(state, "alliance", {"type": "retreat", "to": "1307"}) == [
        "1307 is not adjacent to the battle hex; a retreat may enter 1004, 1105 (302.72)"
    ]
    # the Klingons may not pick the hex of the Kzinti Border Guard (priority 2)
    assert refusals(state, "coalition", {"type": "retreat", "to": "1105"})[0].startswith(
        "it is alliance's step 5-7A1"
    )
    state, _ = orders(state, "alliance", {"type": "done"})
    assert refusals(state, "coalition", {"type": "retreat", "to": "1105"}) == [
        "a retreat into 1105 breaks the retreat priorities: 1105 holds 4 enemy units against 0 "
        "friendly ships (priority 2); it may enter 1003, 1004, 1103, 1203, 1204 (302.72)"
    ]


def test_a_base_left_behind_fights_on_and_may_not_retreat() -> None:
    """1704: the Kzinti ships retreat, the starbase stays (302.741): the next round begins
    at 5-2A1 with the battle unresolved; in round 2 the starbase alone may not retreat."""
    state = run_to(two_battles(), "3B2")
    state, _ = orders(state, "coalition", {"type": "battles", "hexes": ["1704"]})
    state = run_to(state, "5-7A1")
    state, _ = orders(state, "alliance", {"type": "retreat"}, {"type": "done"})
    state, events = orders(state, "coalition", {"type": "done"})
    assert where(state, "KZI-0006", "KZI-0007", "KZI-B004") == [1803, 1803, 1704]
    assert step(state) == "5-2A2"  # 5-2A1 passes (no cloaks); the starbase: approach offer
    record = combat.current(state)
    assert record is not None and record.hex == 1704
    assert (record.rounds, record.retreats, record.resolved) == (1, (), "")
    assert texts(events, "battle")[-1] == (
        "alliance leaves KZI-B004 behind in 1704: the battle goes on, round 2 begins at 5-2A1 "
        "and nobody pursues (302.741)"
    )
    assert 1704 in state.battle_hexes or any(r.hex == 1704 for r in state.battles)
    state = run_to(state, "5-7A1")
    assert refusals(state, "alliance", {"type": "retreat"}) == [
        "nothing of alliance's in 1704 can retreat: bases, PDUs and planets stay and fight on "
        "(302.741)"
    ]


def at_pursuit() -> FeState:
    """The CL retreated from 1104 to 1004; 5-8A is the Klingons' alone."""
    state, _ = orders(in_1104(), "alliance", {"type": "retreat"}, {"type": "done"})
    state, _ = orders(state, "coalition", {"type": "done"})
    assert step(state) == "5-8A"
    return state


def pursue(state: FeState, seat: str, units: list[str]) -> tuple[FeState, RollRequest]:
    (order,) = parse_orders([{"type": "pursue", "units": units}])
    assert not RULESET.validate(state, seat, order)
    applied = RULESET.apply(state, seat, order)
    (roll,) = applied.rolls
    return applied.state, roll


def test_only_the_side_that_stayed_pursues_with_its_ships_here() -> None:
    state = at_pursuit()
    assert owed(state).seats == ("coalition",)  # the retreating side has no part in 5-8A
    names = [c.order for c in FACE.choices(state, "coalition")]
    assert names[0] == "pursue"
    assert refusals(state, "coalition", {"type": "pursue", "units": ["KLI-0004"]}) == [
        "KLI-0004 is in 1307, not in the battle hex 1104 (302.742)"
    ]
    assert refusals(state, "coalition", {"type": "pursue", "units": ["KZI-0001"]}) == [
        "KZI-0001 is a unit of KZI, not of coalition (302.742)"
    ]
    assert refusals(state, "alliance", {"type": "pursue", "units": ["KZI-0003"]})[0].startswith(
        "it is coalition's step 5-8A"
    )


def test_a_pursuit_die_below_the_number_of_pursuers_succeeds() -> None:
    """Three pursuing ships: a die of 2 succeeds (2 < 3, 307.0); the pursuit battle is the
    players' (5-8D, secret, stops for them); the roll an order asks for is a fair one of the
    core."""
    state = at_pursuit()
    state, events = orders(state, "coalition", {"type": "pursue", "units": list(KLINGONS)})
    assert texts(events, "pursuit") == [
        "coalition pursues alliance's retreat from 1104 with 3 ships: KLI-0001, KLI-0002, "
        "KLI-0003; the pursuit die follows (302.742, 307.0)"
    ]
    roll = _pursuit_roll(at_pursuit())
    assert (roll.count, roll.sides, roll.at_reveal) == (1, 6, False)
    assert roll.purpose == "pursuit, 1104 round 1, coalition" and roll.step == "5-8A"
    assert refusals(state, "coalition", {"type": "done"}) == [
        "the pursuit die is not rolled yet (307.0)"
    ]
    assert refusals(state, "coalition", {"type": "pursue", "units": ["KLI-0001"]}) == [
        "coalition already pursued from 1104 (302.742)"
    ]
    rolled = RULESET.apply_roll(state, roll, (2,))
    assert [e.text for e in rolled.events] == [
        "1104 round 1: pursuit die 2 against 3 pursuing ships (success below 3): the pursuit "
        "succeeds: the pursuit battle follows (5-8D to 5-8G) (307.0)"
    ]
    record = combat.current(rolled.state)
    assert record is not None
    assert (record.pursuers, record.pursuit_die, record.pursuit) == (KLINGONS, 2, "succeeded")
    state, _ = orders(rolled.state, "coalition", {"type": "done"})
    assert step(state) == "5-8D"
    (listed,) = battle_list(state)
    assert listed["retreated"] == {"alliance": "1004"}
    assert listed["pursuit"] == {"units": list(KLINGONS), "die": 2, "result": "succeeded"}


def test_a_pursuit_die_at_or_above_the_number_of_pursuers_fails() -> None:
    state = at_pursuit()
    roll = _pursuit_roll(state)
    state, _ = orders(state, "coalition", {"type": "pursue", "units": list(KLINGONS)})
    rolled = RULESET.apply_roll(state, roll, (3,))
    assert rolled.events[0].text.endswith("the pursuit fails: the retreat stands (307.0)")
    events: list[Event] = []
    state, events = orders(rolled.state, "coalition", {"type": "done"})
    assert [e.step for e in events if e.kind == "step-passed"][:4] == [
        "5-8D",
        "5-8E",
        "5-8F",
        "5-8G",
    ]
    assert where(state, "KZI-0003") == [1004]
    record = state.battles[0]
    assert (record.pursuit_die, record.pursuit) == (3, "failed")


def test_with_nobody_to_pursue_the_pursuit_steps_pass() -> None:
    """The Klingons retreat from 1104 at 5-7A2: the Kzinti CL stays and could pursue; when
    both retreat nobody stays, and 5-8A passes without a hand-off."""
    state, _ = orders(in_1104(), "alliance", {"type": "done"})
    state, _ = orders(state, "coalition", {"type": "retreat"}, {"type": "done"})
    state, events = orders(state, "alliance", {"type": "retreat"}, {"type": "done"})
    assert where(state, "KZI-0003", "KLI-0001") == [1004, 1003]  # the defender first
    assert [e.text for e in events if e.kind == "retreat"][1:] == [
        "alliance retreats from 1104 to 1004 after round 1, the engine's pick by the retreat "
        "priorities: KZI-0003 (302.72)",
        "coalition retreats from 1104 to 1003 after round 1, the engine's pick by the retreat "
        "priorities: KLI-0001, KLI-0002, KLI-0003 (302.72)",
    ]
    assert (
        "5-8A Pursuer (either side) chooses pursuit units: both sides retreated: nobody stayed "
        "to pursue: no pursuit" in texts(events, "step-passed")
    )
    assert combat.current(state) is None or step(state) != "5-8A"


def test_a_hex_a_retreat_makes_a_battle_is_fought_next() -> None:
    """The Border Guard's other ships and the battle station KZI-B001 stand one in each hex
    next to 1104 but 1105, which only the Kzinti planet holds (a planet is no unit for the
    priorities): the Klingons' only hex free of enemy units (priority 2) is 1105, where the
    planet defends, so 1105 is a battle hex after the retreat, fought after 1104 (302.9)."""
    ring = {"KZI-0001": 1103, "KZI-0002": 1203, "KZI-0004": 1204, "KZI-0005": 1003}
    state = placed(after_setup(), {"KZI-0003": 1104, **dict.fromkeys(KLINGONS, 1104), **ring})
    state = placed(state, {"KZI-B001": 1004})
    state = run_to(state, "5-7A1")
    assert [r.hex for r in state.battles] == [1104]
    state, _ = orders(state, "alliance", {"type": "done"})
    state, _ = orders(state, "coalition", {"type": "retreat"}, {"type": "done"})
    state, events = orders(state, "alliance", {"type": "done"})
    assert where(state, *KLINGONS) == [1105, 1105, 1105]
    assert texts(events, "retreat")[-1].startswith("coalition retreats from 1104 to 1105")
    assert owed(state).seats == ("alliance",) and step(state) == "5-8A"  # the CL may pursue
    events = []
    state = run_to(state, "5-3D", events)  # 5-1A passes: nothing in 1105 may withdraw
    assert [r.hex for r in state.battles] == [1104, 1105]
    assert combat.current(state) == state.battles[1]
    assert "new battle hexes after the retreats: 1105 (302.9)" in texts(events, "battle")


def _pursuit_roll(state: FeState) -> RollRequest:
    _, roll = pursue(state, "coalition", list(KLINGONS))
    return roll


def test_the_face_offers_the_retreat_hex_and_the_pursuit() -> None:
    state = in_1104()
    (retreat,) = [c for c in FACE.choices(state, "alliance") if c.order == "retreat"]
    assert [(p.name, p.kind.value, p.required) for p in retreat.params] == [("to", "hex", False)]
    state = at_pursuit()
    (chase,) = [c for c in FACE.choices(state, "coalition") if c.order == "pursue"]
    assert chase.title == "Pursue the retreating enemy"
    assert [p.name for p in chase.params] == ["units"]
    # The ships that may pursue, listed; every one of them offered as one ready line (as a
    # policy's pursue "always" sends them), which the engine takes.
    ships = tuple(u.id for u in pursuit_die.pursuit_ships(state, "coalition", 1104))
    assert ships and chase.params[0].options == ships
    (everyone,) = chase.presets
    assert everyone.label == f"every ship that may pursue ({len(ships)})"
    assert dict(everyone.values) == {"units": " ".join(ships)}
    pursue(state, "coalition", list(ships))


def test_with_no_hex_open_the_retreat_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Closed space or the map's edge all round (302.72): no retreat may be announced. The
    board has no such hex near the tutorial's fleets, so the facts are stood in for."""
    state = in_1104()
    closed = [RetreatHex(hex=h, enterable=False) for h in (1003, 1004, 1103, 1105, 1203, 1204)]
    monkeypatch.setattr(combat_retreat, "candidates", lambda *_: closed)
    assert refusals(state, "alliance", {"type": "retreat"}) == [
        "no hex next to 1104 is open to alliance's retreat (closed space or the map's edge all "
        "round): stay and fight (302.72)"
    ]


def test_the_pursuit_die_is_a_fair_roll_of_the_protocol_core() -> None:
    """Through signed packets: each side moves its ships into 1104 by typed adjustments, the
    scripts fight the round and the Kzintis retreat; the Klingons' pursue order arms the die
    with their entropy value, the Kzintis owe theirs before anything else happens (the
    Klingons cannot even end the step), and the die then lands on the battle record."""
    table = Table(RULESET, "tutorial", ["coalition", "alliance"], label="pursuit")
    table.entropy_only("coalition")  # the creator accepts the joined key; the Kzintis place first
    set_up(table)
    table.orders("coalition", *[Adjust("move", "into 1104", unit=u, hex="1104") for u in KLINGONS])
    walk_to(table, "2B11")  # a "both" step, the first the Kzintis answer in this turn
    if table.owed()[0] == "coalition":
        table.orders("coalition", Done())
    table.orders("alliance", Adjust("move", "into 1104", unit="KZI-0003", hex="1104"))
    walk_to(table, "5-8A")
    assert table.owed() == ("coalition", DecisionKind.ORDERS, "5-8A")
    table.orders("coalition", PursueOrder(units=list(KLINGONS)))
    assert table.owed()[:2] == ("alliance", DecisionKind.ENTROPY)
    with pytest.raises(OutOfTurn):
        table.orders("coalition", Done())
    table.entropy_only("alliance")
    (roll,) = [e for e in table.events if e.kind == "roll" and "pursuit" in e.data["purpose"]]
    assert roll.data["purpose"] == "pursuit, 1104 round 1, coalition" and roll.seat == "coalition"
    (die,) = roll.data["dice"]
    assert table.state is not None and table.state.rules is not None
    record = table.state.rules.battles[0]
    assert (record.pursuit_die, record.pursuit) == (die, "succeeded" if die < 3 else "failed")
    assert table.owed() == ("coalition", DecisionKind.ORDERS, "5-8A")


# --- the pursuit die's modifiers (5-8B) ---------------------------------------------------------

BORDER_GUARD = ("KZI-0001", "KZI-0002", "KZI-0003", "KZI-0004", "KZI-0005")


def after_a_declined_approach() -> FeState:
    """The D6 KLI-0005 attacks the battle station KZI-B001 and the Border Guard in 1205; the
    Kzinti refuse the approach battle and the Klingons retreat before the base battle (5-2B1,
    302.23): 5-8A is the Kzintis'."""
    guard = dict.fromkeys(BORDER_GUARD, 1205)
    state = run_to(placed(after_setup(), {"KLI-0005": 1205, **guard}), "5-1A")
    state, _ = orders(state, "alliance", {"type": "done"})  # no withdrawal
    state, _ = orders(state, "alliance", {"type": "done"})  # refuses the approach battle
    state, _ = orders(state, "coalition", {"type": "retreat"}, {"type": "done"})
    for seat in ("alliance", "coalition", "alliance"):  # 5-7A1 to 5-7A3
        state, _ = orders(state, seat, {"type": "done"})
    assert owed(state).step == "5-8A" and owed(state).seats == ("alliance",)
    return state


def test_a_retreat_from_a_declined_approach_battle_adds_one_to_the_pursuit_die() -> None:
    """Five pursuers: an unmodified 4 would succeed (4 < 5); after the declined approach battle
    the die counts 4 + 1 = 5, which is not below 5, so the pursuit fails (5-8B, 302.23)."""
    state = after_a_declined_approach()
    state, roll = pursue(state, "alliance", list(BORDER_GUARD))
    record = state.battles[0]
    assert (record.pursuit_modifier, record.pursuit) == (1, "rolling")
    rolled = RULESET.apply_roll(state, roll, (4,))
    assert rolled.events[0].text == (
        "1205 round 1: pursuit die 4+1 = 5 against 5 pursuing ships (success below 5): the "
        "pursuit fails: the retreat stands (307.0)"
    )
    assert rolled.state.battles[0].pursuit == "failed"
    rolled = RULESET.apply_roll(state, roll, (3,))  # 3 + 1 = 4 < 5
    assert rolled.state.battles[0].pursuit == "succeeded"


def test_a_retreat_after_a_fought_round_takes_no_modifier() -> None:
    """The CL's retreat from 1104 after a round of combat: no approach battle was declined,
    the die stands as rolled (3 pursuers, a 2 succeeds)."""
    state, roll = pursue(at_pursuit(), "coalition", list(KLINGONS))
    assert state.battles[0].pursuit_modifier == 0
    assert RULESET.apply_roll(state, roll, (2,)).state.battles[0].pursuit == "succeeded"


def test_x_or_fast_pursuers_take_one_off_and_all_of_them_succeed_without_a_roll(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No class of the shipped tables is marked X (523) or fast (525.13): the marks are stood
    in for. One fast ship among three pursuers: a 3 counts 2 and succeeds (2 < 3); all three
    fast: a 6 succeeds too."""
    state = at_pursuit()
    assert not any(pursuit_die.x_or_fast(u) for u in state.board.units)
    monkeypatch.setattr(pursuit_die, "x_or_fast", lambda u: u.id == "KLI-0002")
    chased, roll = pursue(state, "coalition", list(KLINGONS))
    assert chased.battles[0].pursuit_modifier == -1
    assert RULESET.apply_roll(chased, roll, (3,)).state.battles[0].pursuit == "succeeded"
    assert RULESET.apply_roll(chased, roll, (4,)).state.battles[0].pursuit == "failed"
    monkeypatch.setattr(pursuit_die, "x_or_fast", lambda u: True)
    chased, roll = pursue(state, "coalition", list(KLINGONS))
    assert RULESET.apply_roll(chased, roll, (6,)).state.battles[0].pursuit == "succeeded"


def test_a_retreat_into_enemy_units_is_a_fighting_retreat_at_bir_0_against_10() -> None:
    """Every hex next to 1104 holds Kzinti units (a new FF in 1105 besides the planet), so the
    Klingons' retreat must enter one (302.72, priority 4): a fighting retreat. The battle it
    makes there uses BIR 0 for the Klingons' rolls and 10 for the Kzinti's, fixed by the rules
    at 5-3X2 with nobody asked and no variable die (302.772)."""
    ring = {"KZI-0001": 1103, "KZI-0002": 1203, "KZI-0004": 1204, "KZI-0005": 1003}
    guard = Unit("KZI-9101", "KZI", "FF", 1105)
    state = placed(
        after_setup(), {"KZI-0003": 1104, **dict.fromkeys(KLINGONS, 1104), **ring}, guard
    )
    state = placed(state, {"KZI-B001": 1004})
    state = run_to(state, "5-7A1")
    state, _ = orders(state, "alliance", {"type": "done"})
    state, _ = orders(state, "coalition", {"type": "retreat"}, {"type": "done"})
    state, events = orders(state, "alliance", {"type": "done"})
    (moved,) = [t for t in texts(events, "retreat") if t.startswith("coalition retreats")]
    assert "a fighting retreat (302.77)" in moved
    to = state.board.unit("KLI-0001").hex
    (marked,) = [r for r in state.battles if r.hex == to]
    assert marked.fighting_retreat == "coalition"
    events = []
    state = run_to(state, "5-4A2", events)
    record = combat.current(state)
    assert record is not None and record.hex == to
    assert any(
        "fixed by the rules (a fighting retreat, 302.772)" in t for t in texts(events, "secret")
    )
    assert (record.log[-1].attacker.bir, record.log[-1].defender.bir) == (0, 10)
    assert not [e for e in events if e.kind == "roll-armed"]  # no variable BIR die
    state = reveal(state, {"coalition": "default", "alliance": "default"}, dice=(3, 3))
    fought = combat.current(state)
    assert fought is not None
    log = fought.log[-1]
    # The 300 table: 10% + 2.5% x (row + die - 1): row 0, die 3: 15%; row 10, die 3: 40%.
    assert (log.attacker.permille, log.defender.permille) == (150, 400)
