"""docs/design.md documents every figure key and every key of the JSON output."""

from __future__ import annotations

import re
from pathlib import Path

from engine.design import derive, make_inputs

DOCS = Path(__file__).resolve().parents[3] / "docs" / "design.md"


def test_the_docs_list_every_json_key_and_figure_key() -> None:
    text = DOCS.read_text(encoding="utf-8")
    design = derive(make_inputs({"size": 2, "tl": 15}))
    documented = set(re.findall(r"`([a-z_]+)`", text))
    for key in [figure.key for figure in design.figures]:
        assert key in documented, key
    for key in ("inputs", "figures", "problems", "possible", "label", "formula", "value"):
        assert key in documented, key
    for key in ("exact", "unit", "note", "field", "rule", "message"):
        assert key in documented, key
