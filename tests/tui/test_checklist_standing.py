"""The checklist shows which steps a standing order covers: a field in each line (``show
--json``) and words in the app's tree, never colour alone."""

from __future__ import annotations

import msgspec

from engine.core.turn_orders import Standing
from engine.fe.face import FACE
from tests.engine.fe.helpers import play, start
from tui.services.show import checklist_lines
from tui.widgets.checklist import STANDING_MARK, _actor_texts, _step_label


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
