"""The suite's own set-up (tests/conftest.py): the heavy files go first, ``--full`` is read."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from tests.conftest import HEAVY_FIRST, is_full_run, pytest_collection_modifyitems

ROOT = Path(__file__).resolve().parent.parent


def test_every_heavy_file_exists() -> None:
    """A renamed file would silently lose its early start: name it here or drop it there."""
    missing = [path for path in HEAVY_FIRST if not (ROOT / path).is_file()]
    assert not missing, f"HEAVY_FIRST names files that are gone: {missing}"
    assert len(set(HEAVY_FIRST)) == len(HEAVY_FIRST)


def test_heavy_files_come_first_and_everything_else_keeps_its_order() -> None:
    first, second = HEAVY_FIRST[0], HEAVY_FIRST[1]
    collected = [
        "tests/a/test_one.py::test_x",
        f"{second}::test_b",
        "tests/b/test_two.py::test_y",
        f"{first}::test_a",
        f"{second}::test_a",
        "tests/a/test_one.py::test_w",
    ]
    items = [SimpleNamespace(nodeid=nodeid) for nodeid in collected]
    pytest_collection_modifyitems(cast(Any, None), cast(Any, items))
    assert [item.nodeid for item in items] == [
        f"{first}::test_a",
        f"{second}::test_b",
        f"{second}::test_a",
        "tests/a/test_one.py::test_x",
        "tests/b/test_two.py::test_y",
        "tests/a/test_one.py::test_w",
    ]


@pytest.mark.parametrize(
    ("option", "variable", "expected"),
    [
        (False, None, False),
        (False, "0", False),
        (False, "", False),
        (False, "1", True),
        (True, None, True),
    ],
)
def test_full_run_is_asked_for_by_option_or_variable(
    monkeypatch: pytest.MonkeyPatch, option: bool, variable: str | None, expected: bool
) -> None:
    if variable is None:
        monkeypatch.delenv("HEXPOST_FULL", raising=False)
    else:
        monkeypatch.setenv("HEXPOST_FULL", variable)
    config = SimpleNamespace(getoption=lambda name: option if name == "--full" else None)
    assert is_full_run(cast(Any, config)) is expected
