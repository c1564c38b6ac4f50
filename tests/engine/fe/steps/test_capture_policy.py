"""A combat policy's ``capture`` "never", from F&E 5.5 (`engine.fe.steps.combat_capture`).

Step 5-6X1 asks each side that could try to capture a crippled enemy ship, every round of
every battle in which one is left: a hand-off by email each time, mostly answered with a bare
``done``. A side whose policy says it never captures is not asked; the step passes once no
side is left to ask. The board is `tests.engine.fe.steps.test_combat_capture`'s: the Klingons
in 1104 with a crippled Kzinti CL to take, and nothing of theirs crippled.
"""

from __future__ import annotations

import msgspec
import pytest

from engine.core.errors import IllegalOrder, PacketError
from engine.core.ruleset import Event
from engine.fe import FE as RULESET
from engine.fe.battle_model import CombatPolicy
from engine.fe.face import FACE
from engine.fe.model import FeState
from engine.fe.orders import PolicyOrder
from engine.fe.policy_cover import COMBAT_POLICY_STEPS, policy_cover
from engine.fe.steps import combat_capture, combat_policy
from tests.engine.fe.helpers import owed
from tests.engine.fe.steps.test_combat_capture import battle as capture_battle
from tests.engine.fe.steps.tutorial_states import after_setup, refusals, texts
from tests.engine.fe_battle import PlacedFe
from tests.engine.table import Table

NEVER = CombatPolicy(capture="never")


def battle(
    version: str, to: str = "5-6X1", **policies: CombatPolicy
) -> tuple[FeState, list[Event]]:
    """`test_combat_capture.battle` in a game played at ``version`` with ``policies`` signed
    before it, run to step ``to`` (each step before it answered ``done``)."""
    return capture_battle(version=version, to=to, policies=policies)


def test_a_side_that_never_captures_is_not_asked() -> None:
    state, events = battle("5.5", "5-7A1", coalition=NEVER)
    assert owed(state).step == "5-7A1"
    assert (
        "5-6X1 Either side resolves its ship captures: coalition never capture, as signed in "
        "the combat policy (305.1)" in texts(events, "step-passed")
    )
    assert not any(e.step == "5-6X1" and e.kind == "step-done" for e in events)


def test_without_the_policy_the_side_is_still_asked() -> None:
    """The alliance's "never" changes nothing: it has no crippled Klingon to take."""
    state, _ = battle("5.5", alliance=NEVER)
    assert owed(state).step == "5-6X1" and owed(state).seats == ("coalition",)
    state, _ = battle("5.5")
    assert owed(state).step == "5-6X1" and owed(state).seats == ("coalition",)


def test_a_5_4_game_asks_and_refuses_the_field() -> None:
    state, _ = battle("5.4", coalition=NEVER)  # (a policy a 5.4 game could not have signed)
    assert owed(state).step == "5-6X1" and owed(state).seats == ("coalition",)
    assert refusals(state, "coalition", {"type": "policy", "capture": "never"}) == [
        "a policy's capture answer takes F&E 5.5; this game plays 5.4 (305.1)"
    ]
    assert not combat_capture.declines(state, "coalition")


def test_the_field_is_described_counted_in_the_cover_and_offered_from_5_5() -> None:
    assert combat_policy.describe(NEVER) == "never capture"
    assert combat_capture.CAPTURE_STEP in combat_policy.answered_steps(NEVER)
    assert combat_capture.CAPTURE_STEP in COMBAT_POLICY_STEPS
    for version, covered in (("5.5", True), ("5.4", False)):
        state = msgspec.structs.replace(
            RULESET.at_version(after_setup(), version), policies=(("coalition", NEVER),)
        )
        assert (policy_cover(state).get("5-6X1") == ("coalition",)) is covered
        (form,) = [c for c in FACE.choices(state, "coalition") if c.order == "policy"]
        assert ("capture" in [p.name for p in form.params]) is covered


@pytest.mark.parametrize(
    ("version", "wild"),
    [
        ("5.5", PolicyOrder(capture="always")),  # type: ignore[arg-type]
        ("5.4", PolicyOrder(capture="never")),
    ],
)
def test_a_wild_capture_policy_is_refused_whole(version: str, wild: PolicyOrder) -> None:
    """Through the protocol core, as another player's client would send it: a word outside
    the field's cannot be decoded, and the field in a game of 5.4 is refused by the rules;
    either way the packet is refused whole and the game is as it was."""
    table = Table(PlacedFe(version=version), "tutorial", ["coalition", "alliance"], label="cap")
    before = table.state
    with pytest.raises((PacketError, IllegalOrder)):
        table.orders("coalition", wild)
    assert table.state is before
