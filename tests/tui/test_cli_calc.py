"""`hexpost calc combat` through the real command line: the issue's examples and refusals."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.core.errors import HexpostError
from tui.rulesets import GenericClient
from tui.services import rulesets

ROOT = Path(__file__).resolve().parents[2]


def hexpost(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def calc(*args: str) -> subprocess.CompletedProcess[str]:
    return hexpost("calc", "combat", *args)


def test_issue_example_40_at_bir_4_die_3_is_10_points_at_25_percent() -> None:
    done = calc("--potential", "40", "--bir", "4", "--die", "3")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "10 damage points: potential 40 x 25% = 10, rounded nearest-half-up"
    assert lines[1] == "(combat table 302.4: BIR 4 + die 3 = result 7)"


def test_issue_example_36_at_bir_10_as_json() -> None:
    six = calc("--potential", "36", "--bir", "10", "--die", "6", "--json")
    assert six.returncode == 0, six.stderr
    record = json.loads(six.stdout)
    assert (record["percent"], record["permille"], record["damage"]) == ("50%", 500, 18)
    five = json.loads(calc("--potential", "36", "--bir", "10", "--die", "5", "--json").stdout)
    assert five == {
        "potential": "36",
        "bir": 10,
        "die": 5,
        "ew": 0,
        "result": 15,
        "permille": 450,
        "percent": "45%",
        "exact": "16.2",
        "damage": 16,
        "rounding": "nearest-half-up",
    }
    up = json.loads(
        calc("--potential", "36", "--bir", "10", "--die", "5", "--rounding", "up", "--json").stdout
    )
    assert (up["damage"], up["rounding"]) == (17, "up")


def test_ew_shift_and_half_potential() -> None:
    done = calc("--potential", "40.5", "--bir", "3", "--die", "4", "--ew", "2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("12 damage points: potential 40.5 x 30% = 12.15,")
    assert "BIR 3 + die 4 + EW 2 = result 9" in done.stdout
    top = calc("--potential", "36", "--bir", "10", "--die", "6", "--ew", "2")
    assert "result 16, the table's top" in top.stdout and top.stdout.startswith("18 damage")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--potential", "36", "--bir", "10", "--die", "7"),
            "hexpost: calc combat: a die roll of 7 is not possible: a die shows 1 to 6 (302.4)",
        ),
        (
            ("--potential", "-3", "--bir", "4", "--die", "3"),
            "hexpost: calc combat: --potential '-3' is not a combat potential: give a whole or "
            "half number of factors from 0 to 999999.5 (e.g. 40 or 40.5)",
        ),
        (
            ("--potential", "40", "--bir", "11", "--die", "3"),
            "hexpost: calc combat: a BIR total of 11 is not on the combat table: its rows are 0 "
            "to 10 (302.4)",
        ),
        (
            ("--potential", "40", "--bir", "4", "--die", "3", "--ew", "3"),
            "hexpost: calc combat: an EW shift of 3 is not possible: the side with more EW "
            "points adds 0 to 2 to its own roll, the other side nothing (308.51)",
        ),
        (
            ("--potential", "40", "--bir", "4", "--die", "3", "--rounding", "banker"),
            "hexpost: calc combat: --rounding 'banker' is not one of nearest-half-up, "
            "nearest-half-down, down, up (option damage-rounding, 302.4)",
        ),
        (
            ("--potential", "40.25", "--bir", "4", "--die", "3"),
            "hexpost: calc combat: --potential '40.25' is not a combat potential: give a whole "
            "or half number of factors from 0 to 999999.5 (e.g. 40 or 40.5)",
        ),
        (
            ("--potential", "1000000", "--bir", "4", "--die", "3"),
            "hexpost: calc combat: --potential '1000000' is not a combat potential: give a "
            "whole or half number of factors from 0 to 999999.5 (e.g. 40 or 40.5)",
        ),
    ],
)
def test_bad_values_are_refused_in_one_line_exit_1(args: tuple[str, ...], message: str) -> None:
    done = calc(*args)
    assert done.returncode == 1
    assert done.stderr.strip() == message
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_non_numbers_and_missing_values_are_usage_errors() -> None:
    for args in (("--potential", "40", "--bir", "x", "--die", "3"), ("--potential", "40")):
        done = calc(*args)
        assert done.returncode == 2
        assert "usage: hexpost calc combat" in done.stderr
        assert "Traceback" not in done.stderr


def test_a_ruleset_without_calculators_answers_none() -> None:
    assert GenericClient("toy").calculate("combat", {}) is None
    with pytest.raises(HexpostError, match="no installed ruleset has a retreat calculator"):
        rulesets.calculate("retreat", {})
