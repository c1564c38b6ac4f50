"""The face's menus for a battle round's piecewise choices (`engine.fe.battle_menus`).

The allocation menu (302.6, 302.61) is checked against the engine itself: on the tutorial's
round in 1105 (`damaged_round`: 2 points on the Kzinti force, 11 on the D6), every list the
menu lets a player build is walked, and wherever the menu says the list may end the engine
takes it as an ``allocate`` order, and wherever it says not, the engine refuses it. The EW
menu of 5-4A2 (308.51, 313.0) offers exactly the values the reveal's check accepts.
"""

from __future__ import annotations

from engine.core.face import ParamKind, StepMenu, menu_of
from engine.fe import RULESET
from engine.fe.face import FACE
from engine.fe.forces import Unit
from engine.fe.model import FeState
from engine.fe.orders import AllocateOrder
from tests.engine.fe.helpers import owed
from tests.engine.fe.steps.test_combat_loop import two_battles
from tests.engine.fe.steps.test_combat_round import damaged_round, reveal
from tests.engine.fe.steps.tutorial_states import orders, placed, run_to
from tests.engine.toy import ToyFace


def menu(state: FeState, seat: str, *chosen: str) -> StepMenu:
    found = FACE.menu(state, seat, "allocate", chosen)
    assert found is not None
    return found


def engine_refusals(state: FeState, seat: str, losses: list[str]) -> list[str]:
    return [
        f"{v.message} ({v.rule})"
        for v in RULESET.validate(state, seat, AllocateOrder(losses=losses))
    ]


def at_5_6b() -> FeState:
    """The same round at 5-6B: the Kzinti crippled a frigate; the D6 owes 11 points."""
    state, _ = orders(
        damaged_round(),
        "alliance",
        {"type": "allocate", "losses": ["cripple KZI-0004"]},
        {"type": "done"},
    )
    return run_to(state, "5-6B")


def test_the_menu_offers_the_legal_losses_with_their_prices_and_what_remains() -> None:
    """2 points on the Kzinti: only crippling a frigate (4 points) is possible, and 2 is half
    of 4, so the list may not end empty (302.61); after it, 2 points are over-resolved."""
    state = damaged_round()
    first = menu(state, "alliance")
    assert [(i.value, i.label, i.cost) for i in first.items] == [
        ("cripple KZI-0004", "cripple KZI-0004 (FF)", "4"),
        ("cripple KZI-0005", "cripple KZI-0005 (FF)", "4"),
    ]
    assert first.heading == (
        "5-6A: resolve 2 damage points on your battle force in 1105, round 1 (302.6)"
    )
    assert first.remaining == "2 points left to resolve"
    assert not first.can_stop and first.why_not.endswith("(forced resolution) (302.61)")
    assert first.suggested == ("cripple KZI-0004",)
    after = menu(state, "alliance", "cripple KZI-0004")
    assert after.can_stop and after.items == () and after.why_not == ""
    assert after.remaining.startswith("2 points over-resolved: minus points")
    assert after.remaining.endswith("(308.2)")
    assert engine_refusals(state, "alliance", ["cripple KZI-0004"]) == []


def test_the_menu_follows_the_damage_loss_by_loss() -> None:
    """11 points on the D6 (defence 8, crippled 4): crippling it leaves 3, at least half of the
    4 its destruction then costs, so the list may not end there; destroying it ends it 1
    point over."""
    state = at_5_6b()
    assert FACE.menu(state, "alliance", "allocate", ()) is None  # 5-6B is the attacker's
    first = menu(state, "coalition")
    assert [(i.value, i.cost) for i in first.items] == [
        ("cripple KLI-0005", "8"),
        ("destroy KLI-0005", "12"),
    ]
    crippled = menu(state, "coalition", "cripple KLI-0005")
    assert [(i.value, i.cost) for i in crippled.items] == [("destroy KLI-0005", "4")]
    assert crippled.remaining == "3 points left to resolve" and not crippled.can_stop
    (refused,) = engine_refusals(state, "coalition", ["cripple KLI-0005"])
    assert crippled.why_not == refused and refused.endswith("(302.61)")
    done = menu(state, "coalition", "cripple KLI-0005", "destroy KLI-0005")
    assert done.can_stop and done.remaining.startswith("1 points over-resolved")


def test_every_list_the_menu_builds_is_one_the_engine_judges_alike() -> None:
    """Walk every path through the menu: where it may end the engine takes the list, where
    it may not the engine refuses it, and nothing it offers is refused on the way."""
    for state, seat in ((damaged_round(), "alliance"), (at_5_6b(), "coalition")):
        seen = 0
        paths: list[tuple[str, ...]] = [()]
        while paths:
            chosen = paths.pop()
            found = menu(state, seat, *chosen)
            assert found.problem == "", (chosen, found.problem)
            refusals = engine_refusals(state, seat, list(chosen))
            assert (refusals == []) == found.can_stop, (chosen, refusals)
            paths += [(*chosen, item.value) for item in found.items]
            seen += 1
        assert seen >= 3


def test_a_loss_off_the_menu_is_named_with_the_legal_ones() -> None:
    state = damaged_round()
    found = menu(state, "alliance", "cripple KLI-0005")
    assert found.items == () and not found.can_stop
    assert found.problem == (
        "loss 1, 'cripple KLI-0005', is not a legal next loss (302.6); the legal ones were: "
        "cripple KZI-0004; cripple KZI-0005"
    )
    over = menu(state, "alliance", "cripple KZI-0004", "cripple KZI-0005")
    assert over.problem.startswith("loss 2, 'cripple KZI-0005', is not a legal next loss")
    assert "none: the points are resolved" in over.problem


def test_no_menu_where_nothing_is_owed_or_for_other_orders() -> None:
    state = damaged_round()
    assert FACE.menu(state, "coalition", "allocate", ()) is None  # 5-6A is the defender's
    assert FACE.menu(state, "alliance", "build", ()) is None
    assert FACE.menu(run_to(two_battles(), "5-3D"), "alliance", "allocate", ()) is None
    assert menu_of(FACE, state, "alliance", "allocate", []) == menu(state, "alliance")
    assert menu_of(ToyFace(), state, "alliance", "allocate", []) is None  # no menu: the default


def ew_round() -> FeState:
    """1105 with the Kzinti starbase moved in and a Klingon D6P (EW 1 or 2 for attack) added:
    at 5-4A2 each side has one unit with an EW choice; the D6 and the Kzinti ships none."""
    state = placed(two_battles(), {"KZI-B004": 1105}, Unit("KLI-0099", "KLI", "D6P", 1105))
    state = reveal(run_to(state, "5-3D"), {"coalition": "KLI-0005", "alliance": "KZI-0001"})
    forces: dict[str, object] = {
        "coalition": ["KLI-0005", "KLI-0099"],
        "alliance": ["KZI-0001", "KZI-B004"],
    }
    state = reveal(run_to(state, "5-3E"), forces)
    state = reveal(run_to(state, "5-3X2"), {"coalition": 3, "alliance": 2}, dice=(4,))
    return run_to(state, "5-4A2")


def test_the_ew_form_offers_each_variable_unit_and_the_values_the_rules_take() -> None:
    state = ew_round()
    offered: dict[str, dict[str, tuple[str, ...]]] = {}
    for seat in ("alliance", "coalition"):
        (choice,) = FACE.choices(state, seat)
        (param,) = choice.params
        assert param.kind == ParamKind.RECORD
        offered[seat] = {e.name: e.options for e in param.entries}
        assert all(e.kind == ParamKind.INTEGER and not e.required for e in param.entries)
    assert offered == {
        "alliance": {"KZI-B004": ("1", "2", "3", "4", "5", "6")},
        "coalition": {"KLI-0099": ("1", "2")},
    }
    (choice,) = FACE.choices(state, "coalition")
    assert choice.params[0].entries[0].help == (
        "D6P (EW 1: attack 4, EW 2: attack 2); blank: EW 1, the most attack (308.51)"
    )
    decision = owed(state)
    for seat, entries in offered.items():
        for unit, values in entries.items():
            for value in values:
                choice_made = {unit: int(value)}
                assert not RULESET.validate_secret(state, decision, seat, choice_made)
    assert RULESET.validate_secret(state, decision, "alliance", {"KZI-B004": 7})
    assert RULESET.validate_secret(state, decision, "coalition", {"KLI-0099": 3})


def test_without_a_variable_unit_the_ew_choice_is_the_default() -> None:
    state = run_to(damaged_round_ew_free(), "5-4A2")
    (choice,) = FACE.choices(state, "coalition")
    assert choice.params[0].kind == ParamKind.TEXT
    assert choice.params[0].options == ("default",)


def damaged_round_ew_free() -> FeState:
    state = reveal(run_to(two_battles(), "5-3D"), {"coalition": "KLI-0005", "alliance": "KZI-0001"})
    state = reveal(run_to(state, "5-3E"), {"coalition": ["KLI-0005"], "alliance": ["KZI-0001"]})
    return reveal(run_to(state, "5-3X2"), {"coalition": 1, "alliance": 1}, dice=(3,))
