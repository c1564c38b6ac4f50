"""docs/orders.md stays true: every example order in it parses, and every order type is shown."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from engine.fe import RULESET
from engine.fe.orders import ORDER_TYPES

DOC = Path(__file__).resolve().parents[3] / "docs" / "orders.md"


def examples() -> list[dict[str, object]]:
    text = DOC.read_text(encoding="utf-8")
    found = [json.loads(line) for line in re.findall(r"^\{\"type\".*\}$", text, re.MULTILINE)]
    for block in re.findall(r"```json\n(\{\"orders\".*?)```", text, re.DOTALL):
        found.extend(json.loads(block)["orders"])
    for block in re.findall(r"```toml\n(.*?)```", text, re.DOTALL):
        found.extend(tomllib.loads(block)["orders"])
    return found


def test_every_example_parses() -> None:
    items = examples()
    assert len(items) >= 10
    plain = [item for item in items if item["type"] != "secret"]
    assert len(RULESET.parse_orders(plain)) == len(plain)


def test_every_order_type_is_documented() -> None:
    shown = {item["type"] for item in examples()}
    assert shown == {*ORDER_TYPES, "secret"}
