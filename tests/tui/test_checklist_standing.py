"""The checklist shows which steps a standing order covers, and which a signed policy answers:
a field in each line (``show --json``) and words in the app's tree and in ``show
--checklist``, never colour alone."""

from __future__ import annotations

import msgspec

from engine.core.turn_orders import Standing
from engine.fe.face import FACE
from engine.fe.orders import PolicyOrder
from tests.engine.fe.helpers import play, start
from tui.render import checklist_line
from tui.services.show import checklist_lines
from tui.widgets.checklist import (
    POLICY_MARK,
    STANDING_MARK,
    _actor_texts,
    _step_label,
    step_words,
)


def test_a_line_covered_by_a_standing_order_says_whose_it_is() -> None:
    state = play(start(), "coalition", Standing(["2"]))
    lines = {line.step: line for line in checklist_lines(FACE, state) or ()}
    assert lines["2A3"].standing == ("coalition",)
    assert lines["2B3"].standing == (), "the builds stay the coalition's own (2B3)"
    assert msgspec.json.decode(msgspec.json.encode(lines["2A3"]))["standing"] == ["coalition"]
    actors = _actor_texts(list(lines.values()), None)
    covered, _ = _step_label(lines["2A3"], actors)
    own, _ = _step_label(lines["2B3"], actors)
    assert covered.plain.endswith(f"{STANDING_MARK} coalition")
    assert STANDING_MARK not in own.plain


def test_a_line_a_signed_policy_answers_says_whose_it_is() -> None:
    state = play(start(), "coalition", PolicyOrder(bir=2, retreat=0))
    lines = {line.step: line for line in checklist_lines(FACE, state) or ()}
    assert lines["5-3X2"].policy == ("coalition",)
    assert lines["5-3D"].policy == (), "the flagship is still the coalition's to choose"
    assert msgspec.json.decode(msgspec.json.encode(lines["5-7A1"]))["policy"] == ["coalition"]
    actors = _actor_texts(list(lines.values()), None)
    answered, _ = _step_label(lines["5-3X2"], actors)
    asked, _ = _step_label(lines["5-3D"], actors)
    assert answered.plain.endswith(f"{POLICY_MARK} coalition")
    assert POLICY_MARK not in asked.plain
    printed = [checklist_line(msgspec.to_builtins(lines[step])) for step in ("5-3X2", "5-3D")]
    assert printed[0].endswith("(policy: coalition)")
    assert "policy" not in printed[1]


def test_choosing_a_step_says_in_full_whose_standing_order_and_policy_answer_it() -> None:
    """The tree's line is cut at the panel's edge; the status line, which Enter on a step
    fills, names both in words, right after the title (the line's end is what 80 columns
    lose: who acts and the kind, which the tree's letters show)."""
    state = play(start(), "coalition", Standing(["5"]))
    state = play(state, "coalition", PolicyOrder(allocate="suggested"))
    lines = {line.step: line for line in checklist_lines(FACE, state) or ()}
    assert step_words(lines["5-6A"]) == (
        "5-6A Defender allocates general damage: coalition's standing order completes it; "
        "coalition's policy answers it; rules 302.6, 302.617; non-phasing, decision, to do"
    )
    assert step_words(lines["5-3D"]) == (
        "5-3D Secretly choose flagships: rules 302.32, 302.33, 308.9, 321.31; both, secret, to do"
    )
    assert "policy" not in step_words(lines["5-3A"]) and "standing" in step_words(lines["5-3A"])
