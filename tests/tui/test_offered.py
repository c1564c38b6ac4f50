"""What the orders panel reads from the step owed (`tui.widgets.offered`), without an app:
which choice ``m`` writes, which ``1`` to ``4`` reach, the keys named and the hint line."""

from __future__ import annotations

from engine.core.face import Choice, Param, ParamKind
from tui.widgets.offered import Offered, draft_position
from tui.widgets.step_offer import StepOffer

DONE = Choice("done", "Done", (Param("through", ParamKind.STEP, required=False),))
NOTE = Choice("note", "Note", (Param("text", ParamKind.TEXT),))
ROLL = Choice("roll", "Roll", (Param("dice", ParamKind.TEXT),))
POLICY = Choice("policy", "Policy", (Param("level", ParamKind.TEXT),))
BUILD = Choice("build", "Build", (Param("cls", ParamKind.TEXT), Param("hex", ParamKind.HEX)))
CONVERT = Choice(
    "convert", "Convert", (Param("piece", ParamKind.PIECE), Param("cls", ParamKind.TEXT))
)
MOVE = Choice("move", "Move", (Param("pieces", ParamKind.PIECES), Param("path", ParamKind.HEXES)))
PLACE = Choice(
    "place", "Place", (Param("group", ParamKind.GROUP, required=False), Param("hex", ParamKind.HEX))
)
RETREAT = Choice("retreat", "Retreat", (Param("to", ParamKind.HEX, options=("0101", "0102")),))


def offered(*choices: Choice, own: tuple[str, ...] = (), secret: bool = False) -> Offered:
    return Offered.of(StepOffer("2B3", choices, own=own, secret=secret))


def test_nothing_owed_offers_nothing_whatever_the_choices() -> None:
    none = Offered.of(StepOffer(None, (DONE, BUILD), own=("build",)))
    assert (none.step, none.choices, none.own, none.secret) == ("", (), (), False)
    assert none.hint(secret_drafted=False, chosen=None) == "nothing owed now"


def test_the_own_keys_skip_named_orders_and_the_stack_order() -> None:
    step = offered(
        DONE, NOTE, BUILD, POLICY, MOVE, CONVERT, own=("build", "policy", "move", "convert")
    )
    assert [c.order for c in step.own] == ["build", "convert"]
    assert step.stack is MOVE and step.stack_kind == "move"
    # d and n are in the footer; P is named because the step offers a policy.
    assert step.key_text() == "b: build, 2: convert, P: policy, f: forms"


def test_a_named_order_that_is_the_steps_own_is_not_named_twice() -> None:
    step = offered(DONE, ROLL, own=("roll",))
    assert step.own == ()  # a roll is named: x, never 1-4
    assert step.key_text() == "x: roll, f: forms"


def test_the_hint_says_what_m_does_with_the_hex_chosen() -> None:
    step = offered(DONE, MOVE, own=("move",))
    lines = step.hint(secret_drafted=False, chosen=None).splitlines()
    assert lines == [
        "2B3 takes: done, move",
        "f: forms",
        "m: move from the cursor",
    ]
    chosen = step.hint(secret_drafted=False, chosen=(408, ["LYR-1", "LYR-2"]))
    assert chosen.splitlines()[-1] == "m: move of 2 in 0408"
    empty = step.hint(secret_drafted=False, chosen=(408, []))
    assert empty.splitlines()[-1] == "m: move from the cursor"


def test_a_placement_or_a_hex_pick_is_what_m_writes_without_a_stack_order() -> None:
    place = offered(DONE, PLACE)
    assert place.stack is None and place.placement is PLACE
    assert place.hint(secret_drafted=False, chosen=None).endswith(
        "m: place, then its hex on the map"
    )
    retreat = offered(RETREAT)
    assert retreat.placement is None and retreat.pick is RETREAT
    assert retreat.hint(secret_drafted=False, chosen=(101, [])).endswith(
        "m: retreat, its hex on the map"
    )
    plain = offered(DONE, NOTE)
    assert plain.hint(secret_drafted=False, chosen=(101, ["X"])).splitlines() == [
        "2B3 takes: done, note",
        "f: forms",
    ]


def test_a_secret_step_says_p_then_s() -> None:
    step = offered(Choice("secret", "Secret", (Param("choice", ParamKind.TEXT),)), secret=True)
    assert step.hint(secret_drafted=False, chosen=None) == (
        "2B3 is secret: p writes your hidden choice"
    )
    assert step.hint(secret_drafted=True, chosen=None).startswith("2B3 is secret: S sends")


def test_a_step_that_takes_nothing_says_so() -> None:
    assert (
        offered()
        .hint(secret_drafted=False, chosen=None)
        .startswith("2B3 takes: nothing you can write here")
    )


def test_a_policy_is_drafted_ahead_of_the_first_standing_order_and_nothing_else_is() -> None:
    drafts = [{"type": "note"}, {"type": "standing"}, {"type": "done"}, {"type": "standing"}]
    assert draft_position(drafts, {"type": "policy"}) == 1
    assert draft_position(drafts, {"type": "done"}) == 4
    assert draft_position(drafts[:1], {"type": "policy"}) == 1  # no standing order: the end
