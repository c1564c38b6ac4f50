"""The data commands: `show GAME --map`, `scenario info`, `data check`, `scenarios`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

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


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("demo")
    assert hexpost("demo", "--keep", str(root)).returncode == 0
    return root / "alice"


def test_show_map_draws_the_whole_galaxy_in_80_columns(demo_home: Path) -> None:
    done = hexpost("--home", str(demo_home), "show", "demo-tutorial", "--map")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert any("K@" in line for line in lines), "the Klingon capital is drawn"
    assert any("Klingon" in line for line in lines), "the legend names the empires"


def test_show_map_region_and_its_refusal(demo_home: Path) -> None:
    done = hexpost(
        "--home", str(demo_home), "show", "demo-tutorial", "--map", "--region", "1409:1612"
    )
    assert done.returncode == 0, done.stderr
    header = " ".join(done.stdout.splitlines()[:2]).split()
    assert header == ["15", "14", "16"], header
    bad = hexpost("--home", str(demo_home), "show", "demo-tutorial", "--region", "0100:9999")
    assert bad.returncode == 1
    assert (
        bad.stderr.strip() == "hexpost: --region: region 0100:9999: column 99 is off the 61x19 map"
    )


def test_scenario_info_json_gives_each_empires_holdings() -> None:
    done = hexpost("scenario", "info", "the-wind", "--json")
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    income = {e["empire"]: e["income"] for e in record["empires"]}
    assert income == {"LYR": 115, "KLI": 142, "KZI": 93, "HYD": 74, "FED": 221}
    klingon = next(e for e in record["empires"] if e["empire"] == "KLI")
    assert klingon["seat"] == "coalition" and klingon["capitals"] == [1411]
    assert len(klingon["provinces"]) == 26


def test_scenarios_lists_the_wind_and_the_tutorial() -> None:
    done = hexpost("scenarios", "--json")
    ids = [row["id"] for row in json.loads(done.stdout)]
    assert ids == ["the-wind", "tutorial"]


def test_data_check_passes_on_the_shipped_data_and_unknown_scenario_is_refused() -> None:
    done = hexpost("data", "check")
    assert done.returncode == 0 and "no broken references" in done.stdout
    # what the sources leave open is named, and is no failure
    assert "left open by the sources (not errors):" in done.stdout
    assert "THO income: the economics chart (753.0) gives 22 EP" in done.stdout
    as_json = json.loads(hexpost("data", "check", "--json").stdout)
    assert as_json["problems"] == [] and [g["entry"] for g in as_json["gaps"]] == ["THO income"]
    bad = hexpost("scenario", "info", "nope")
    assert bad.returncode == 1
    assert bad.stderr.strip() == "hexpost: no scenario 'nope' (known: the-wind, tutorial)"


def test_show_at_beyond_the_chain_is_refused(demo_home: Path) -> None:
    head = json.loads(hexpost("--home", str(demo_home), "show", "demo-tutorial", "--json").stdout)
    done = hexpost("--home", str(demo_home), "show", "demo-tutorial", "--at", "999")
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"hexpost: --at 999: game demo-tutorial has packets 0 to {head['seq']}"
    )


def test_scenario_info_for_one_turn_shows_schedules_and_economies() -> None:
    done = hexpost("scenario", "info", "the-wind", "--turn", "3")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "The Wind (601): Fall Y169 (turn 3)"
    klingon = lines.index("KLI (coalition)")
    # Fall Y169 repeats the Fall Y168 schedule (the source lists changes only)
    assert lines[klingon + 1].split() == [
        "schedule", "the", "Fall", "Y168", "schedule:",
        "D7C,", "D7,", "D6,", "9", "D5,", "4", "F5,", "2", "F5L,", "3", "E4",
    ]  # fmt: skip
    federation = lines.index("FED (alliance)")
    assert "no fall schedule yet" in lines[federation + 1]
    assert lines[federation + 2].split()[:6] == [
        "economy",
        "peace,",
        "collects",
        "50%",
        "of",
        "its",
    ]
    assert "limited-war (75%)" in lines[federation + 2] and "KZI space" in lines[federation + 2]
    hydran = lines.index("HYD (alliance)")
    assert "the Fall Y169 schedule" in lines[hydran + 1]
    assert "war, collects 100%" in lines[hydran + 2] and "at war with KLI, LYR" in lines[hydran + 2]


def test_scenario_info_for_one_turn_as_json_and_its_refusal() -> None:
    done = hexpost("scenario", "info", "the-wind", "--turn", "2", "--json")
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert (record["turn"], record["label"]) == (2, "Spring Y169 (turn 2)")
    by_empire = {e["empire"]: e for e in record["empires"]}
    assert by_empire["HYD"]["economy"] == {"economy": "peace", "permille": 500}  # war on turn 3
    assert by_empire["HYD"]["schedule"] == {"batch": None, "slots": {}}
    assert by_empire["KLI"]["schedule"]["batch"] == "Spring Y169"
    assert by_empire["FED"]["economy"]["war_entry"][0]["economy"] == "limited-war"
    bad = hexpost("scenario", "info", "the-wind", "--turn", "7")
    assert bad.returncode == 1
    assert bad.stderr.strip() == "hexpost: scenario the-wind plays turns 1 to 6, not 7"
