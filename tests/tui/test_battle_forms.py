"""The app's secret form writes, at each typed step of a battle round, a choice the engine
accepts (`engine.fe.steps.combat_round`, `tui.widgets.order_forms.order_values`)."""

from __future__ import annotations

import json

from engine.fe import RULESET
from engine.fe.face import FACE
from engine.fe.orders import parse_orders
from engine.fe.steps import combat
from tests.engine.fe.steps.test_combat_groups import at_groups
from tests.engine.fe.steps.test_combat_loop import two_battles
from tests.engine.fe.steps.test_combat_round import damaged_round, reveal
from tests.engine.fe.steps.tutorial_states import run_to
from tui.widgets.order_forms import order_values


def test_the_app_s_forms_write_choices_the_engine_accepts() -> None:
    """The face describes each typed step so the app's secret form (`order_values`) writes a
    choice the engine takes: a flagship from a menu, a force as ids in a line, a BIR from a
    menu (an integer), the EW as "default"."""
    state = run_to(two_battles(), "5-3D")
    answers = {
        "5-3D": ("KZI-0001", "KLI-0005"),
        "5-3E": ("KZI-0001, KZI-0002 KZI-0003", "KLI-0005"),
        "5-3X2": ("2", "3"),
        "5-4A2": ("default", "default"),
    }
    for step_id, (alliance, coalition) in answers.items():
        state = run_to(state, step_id)
        made: dict[str, object] = {}
        for seat, text in (("alliance", alliance), ("coalition", coalition)):
            (choice,) = FACE.choices(state, seat)
            order = order_values(choice, {"choice": text})
            assert isinstance(order, dict) and order["type"] == "secret", order
            made[seat] = order["choice"]
        dice = {"5-3X2": (3,), "5-4A2": (2, 5)}.get(step_id, ())
        state = reveal(state, made, dice=dice)
    record = combat.current(state)
    assert record is not None and record.log[-1].defender.force == (
        "KZI-0001",
        "KZI-0002",
        "KZI-0003",
    )
    assert record.log[-1].attacker.bir == 3 and record.log[-1].defender.damage >= 0


def test_the_allocation_form_writes_losses_the_engine_accepts() -> None:
    """5-6A: the face offers ``allocate`` with its losses as a ``;``-separated line."""
    state = damaged_round()
    allocate = next(c for c in FACE.choices(state, "alliance") if c.order == "allocate")
    order = order_values(allocate, {"losses": "cripple KZI-0004"})
    assert order == {"type": "allocate", "losses": ["cripple KZI-0004"]}
    (parsed,) = parse_orders([order])
    assert not RULESET.validate(state, "alliance", parsed)


def test_the_group_and_support_echelon_forms_write_choices_the_engine_accepts() -> None:
    """5-3C: one field per carrier with its escorts; 5-3E with units able to send fighters
    forward: the force's ids and a JSON object of what each sends (302.563)."""
    state = at_groups()
    (groups,) = FACE.choices(state, "coalition")
    made = order_values(groups, {"_choice_0": "KLI-9002 KLI-9003", "_choice_1": ""})
    assert made == {"type": "secret", "choice": {"KLI-9001": ["KLI-9002", "KLI-9003"]}}
    (none,) = FACE.choices(state, "alliance")
    said = order_values(none, {"choice": "none"})
    assert isinstance(said, dict)
    state = reveal(state, {"coalition": made["choice"], "alliance": said["choice"]})
    state = reveal(run_to(state, "5-3D"), {"coalition": "KLI-0001", "alliance": "KZI-0001"})
    state = run_to(state, "5-3E")
    (force,) = FACE.choices(state, "coalition")
    order = order_values(force, {"_choice_0": "KLI-0001, KLI-0002", "_choice_1": '{"KLI-9001": 6}'})
    assert order == {
        "type": "secret",
        "choice": {"units": ["KLI-0001", "KLI-0002"], "forward": {"KLI-9001": 6}},
    }
    state = reveal(state, {"coalition": order["choice"], "alliance": ["KZI-0001"]})
    record = combat.current(state)
    assert record is not None and record.log[-1].attacker.forward == (("KLI-9001", 12),)


def test_the_force_form_starts_from_the_engine_s_pick_and_sends_it_as_written() -> None:
    """5-3E's form is filled with the force a policy's "auto" would pick: the player
    confirms it or edits it, rather than typing every id; sent as it stands, it is legal."""
    from tui.widgets.order_forms import param_fields

    state = run_to(two_battles(), "5-3D")
    state = reveal(state, {"alliance": "KZI-0001", "coalition": "KLI-0005"})
    state = run_to(state, "5-3E")
    (choice,) = FACE.choices(state, "alliance")
    (field,) = param_fields(choice.params[0])
    assert field.value.split()[0] == "KZI-0001", field.value  # the flagship first
    assert len(field.value.split()) > 1
    order = order_values(choice, {"choice": field.value})
    assert isinstance(order, dict) and order["choice"] == field.value.split()
    state = reveal(state, {"alliance": order["choice"], "coalition": ["KLI-0005"]})
    record = combat.current(state)
    assert record is not None
    assert list(record.log[-1].defender.force) == field.value.split()


def test_hexpost_choices_prints_the_engine_s_pick() -> None:
    """The command line says the same pick the form starts from, so a player writing the
    order by hand can take it."""
    import msgspec

    from engine.core.choices import choices_view
    from tui.choices_cmd import choices_text

    state = run_to(two_battles(), "5-3D")
    state = reveal(state, {"alliance": "KZI-0001", "coalition": "KLI-0005"})
    state = run_to(state, "5-3E")
    view = msgspec.to_builtins(choices_view(FACE, state, "alliance"))
    (secret,) = view["orders"]
    (choice,) = FACE.choices(state, "alliance")
    picked = {"type": "secret", "choice": choice.params[0].suggested.split()}
    assert json.loads(secret["picked"]) == picked
    lines = choices_text(view).splitlines()
    at = lines.index("    the engine's pick, ready to send:")
    assert json.loads(lines[at + 1]) == picked  # (whole on its line, to copy)


def test_the_allocation_s_pick_is_printed_ready_to_send_and_the_engine_takes_it() -> None:
    """``hexpost choices`` at an allocation showed ``{"type": "allocate"}`` and nothing of
    what to lose: it now prints the engine's allocation as an order, and the points to
    resolve as the losses' help; that order is legal as printed."""
    import msgspec

    from engine.core.choices import choices_view

    state = damaged_round()
    view = msgspec.to_builtins(choices_view(FACE, state, "alliance"))
    allocate = next(k for k in view["orders"] if k["order"] == "allocate")
    order = json.loads(allocate["picked"])
    assert order["type"] == "allocate" and order["losses"], order
    (parsed,) = parse_orders([order])
    assert not RULESET.validate(state, "alliance", parsed)
    assert "damage points on your battle force" in dict(allocate["helps"])["losses"]
