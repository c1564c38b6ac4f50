"""`hexpost design` through the real command line: every action, and every way a player can get
it wrong (a one-line error naming the argument and its range, exit 2; a refusal, exit 1).

Each command runs through `tui.cli.main` on its own home in ``tmp_path`` (the main paths also
as a `hexpost` child process, as a player's shell runs it); the expected text
is worked out in-process from `engine.design`, so the tests check the command prints what the
engine derives, all of it, within 80 columns."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from engine.design import (
    FIELDS_BY_NAME,
    INPUT_FIELDS,
    QUANTITIES,
    DesignInputs,
    canonical_name,
    convert,
    derive,
    design_json,
    display,
)
from saves.designs import load_design, save_design
from tests.tui.conftest import describe, hexpost
from tui import design_cmd
from tui.cli import main

SCOUT = ("--size", "2", "--tl", "12", "--speed", "3", "--sensors", "2")
ARMORED_DINGHY = ("--size", "-5", "--tl", "12", "--speed", "0", "--armor", "1")
"""Size + speed is under 1, so no armor allowance: armor makes this design impossible."""


def run(home: Path, *args: str, fresh: bool = False) -> subprocess.CompletedProcess[str]:
    """``hexpost --home HOME design ARGS``: in a child process with ``fresh``, else through
    `tui.cli.main` in this one (the same entry point, a tenth of the time)."""
    if fresh:
        done = hexpost("--home", home, "design", *args)
    else:
        argv = ["--home", str(home), "design", *args]
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse's own usage errors
                code = exc.code if isinstance(exc.code, int) else 2
        command = [sys.executable, "-m", "tui.cli", *argv]
        done = subprocess.CompletedProcess(command, code, out.getvalue(), err.getvalue())
    assert "Traceback" not in done.stderr + done.stdout, describe(done)
    return done


def ok(home: Path, *args: str, fresh: bool = False) -> str:
    done = run(home, *args, fresh=fresh)
    assert done.returncode == 0, describe(done)
    return done.stdout


def usage_error(home: Path, *args: str, fresh: bool = False) -> str:
    """Exit 2 with one line on stderr; returns that line."""
    done = run(home, *args, fresh=fresh)
    assert done.returncode == 2, describe(done)
    lines = done.stderr.splitlines()
    assert len(lines) == 1, describe(done)
    return lines[0]


def refused(home: Path, *args: str, fresh: bool = False) -> str:
    """Exit 1 with one ``hexpost: ...`` line on stderr; returns that line."""
    done = run(home, *args, fresh=fresh)
    assert done.returncode == 1, describe(done)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("hexpost: "), describe(done)
    return lines[0]


def assert_fits(text: str, width: int = 80) -> None:
    for line in text.splitlines():
        assert len(line) <= width, f"{len(line)} columns: {line!r}"


# --- calc ------------------------------------------------------------------------------------


def table_rows(out: str) -> list[tuple[str, str, str]]:
    """The figures table read back by its header's columns: (label, value, formula), a cell
    wrapped onto following lines joined again (those lines leave the value column empty)."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("FIGURE "))
    value_at, formula_at = lines[start].index("VALUE"), lines[start].index("FORMULA")
    rows: list[list[str]] = []
    for line in lines[start + 1 :]:
        if not line:
            break
        cells = [line[:value_at].strip(), line[value_at:formula_at].strip(), line[formula_at:]]
        if cells[1]:
            rows.append([cells[0], cells[1], cells[2].strip()])
        else:
            rows[-1][0] = f"{rows[-1][0]} {cells[0]}".strip()
            rows[-1][2] = f"{rows[-1][2]} {cells[2].strip()}".strip()
    return [(label, value, formula) for label, value, formula in rows]


def test_calc_prints_every_figure_with_its_formula(tmp_path: Path) -> None:
    out = ok(tmp_path, "calc", *SCOUT, fresh=True)
    design = derive(DesignInputs(size=2, tl=12, speed=3, sensors=2))
    assert out == "\n".join(design_cmd.design_lines(design)) + "\n"
    assert_fits(out)
    rows = table_rows(out)
    assert len(rows) == len(design.figures)
    notes = list(dict.fromkeys(figure.note for figure in design.figures if figure.note))
    for (label, value, formula), figure in zip(rows, design.figures, strict=True):
        marker = f" [{notes.index(figure.note) + 1}]" if figure.note else ""
        assert label == figure.label + marker
        assert value == f"{display(figure.value)} {figure.unit}".strip()
        assert formula == " ".join(figure.formula.split())
        if figure.note:
            assert f"{marker.strip()} {' '.join(figure.note.split())}" in " ".join(out.split())
    assert out.rstrip().endswith("the design is possible")


def test_a_reading_shared_by_figures_is_numbered_once() -> None:
    design = derive(DesignInputs(size=2, tl=12))
    first, second, third = design.figures[:3]
    shared = replace(
        design,
        figures=(
            replace(first, note="our reading"),
            replace(second, note=""),
            replace(third, note="our reading"),
        ),
    )
    lines = design_cmd.design_lines(shared)
    assert [line.split("  ")[0] for line in lines if "[1]" in line and "  " in line] == [
        f"{first.label} [1]",
        f"{third.label} [1]",
    ]
    assert "[1] our reading" in lines and not any("[2]" in line for line in lines)


def test_calc_source_example_size_2_has_169_habitable_space(tmp_path: Path) -> None:
    out = ok(tmp_path, "calc", "--size", "+2", "--tl", "12")
    label = derive(DesignInputs(size=2, tl=12)).figure("habitable_space").label
    line = next(line for line in out.splitlines() if line.startswith(label))
    assert " 169 " in f"{line} "


def test_calc_json_is_the_engines_design_json(tmp_path: Path) -> None:
    out = ok(tmp_path, "calc", *SCOUT, "--json")
    expected = design_json(derive(DesignInputs(size=2, tl=12, speed=3, sensors=2)))
    assert json.loads(out) == json.loads(json.dumps(expected))


def test_impossible_design_lists_problems_with_rules_and_exits_1(tmp_path: Path) -> None:
    design = derive(DesignInputs(size=-5, tl=12, speed=0, armor=1))
    assert not design.possible and any(p.field == "armor" for p in design.problems)
    done = run(tmp_path, "calc", *ARMORED_DINGHY, fresh=True)
    assert done.returncode == 1, describe(done)
    assert done.stderr == ""
    flat = " ".join(done.stdout.split())
    assert f"the design is impossible ({len(design.problems)}):" in flat
    for problem in design.problems:
        assert f"--{problem.field.replace('_', '-')}: {' '.join(problem.message.split())}" in flat
        assert f"(rule: {' '.join(problem.rule.split())})" in flat
    assert_fits(done.stdout)
    as_json = run(tmp_path, "calc", *ARMORED_DINGHY, "--json")
    assert as_json.returncode == 1
    assert json.loads(as_json.stdout)["possible"] is False


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (("--size", "big", "--tl", "12"), "size"),
        (("--size", "2", "--tl", "1.5"), "tl"),
        (("--size", "2", "--tl", "12", "--speed", "11"), "speed"),
        (("--size", "2", "--tl", "12", "--maneuver", "-11"), "maneuver"),
        (("--size", "11", "--tl", "12"), "size"),
        (("--size", "2", "--tl", "12", "--crew-quality", "9"), "crew_quality"),
        (("--size", "2", "--tl", "12", "--supply-months", "x"), "supply_months"),
    ],
)
def test_calc_bad_value_names_the_flag_and_range(
    tmp_path: Path, args: tuple[str, ...], flag: str
) -> None:
    line = usage_error(tmp_path, "calc", *args)
    field = FIELDS_BY_NAME[flag]
    assert line.startswith(f"hexpost design calc: error: --{flag.replace('_', '-')}: ")
    assert f"from {field.range_text()}" in line


def test_calc_needs_size_and_tl(tmp_path: Path) -> None:
    done = run(tmp_path, "calc", "--size", "2")
    assert done.returncode == 2 and "--tl" in done.stderr, describe(done)


def test_calc_save_then_show_derives_the_same(tmp_path: Path) -> None:
    calc = run(tmp_path, "calc", *SCOUT, "--save", "scout", "--notes", "eyes", fresh=True)
    assert calc.returncode == 0, describe(calc)
    path = tmp_path / "designs" / "scout.toml"
    assert calc.stdout.startswith(f"saved design scout to {path}\n")
    table = calc.stdout.split("\n", 1)[1]
    shown = ok(tmp_path, "show", "scout", fresh=True)
    assert shown == f"design scout ({path})\n  eyes\n" + table
    record = json.loads(ok(tmp_path, "show", "scout", "--json"))
    expected = design_json(derive(DesignInputs(size=2, tl=12, speed=3, sensors=2)))
    assert record == {"name": "scout", "notes": "eyes", **json.loads(json.dumps(expected))}
    again = run(tmp_path, "calc", *SCOUT, "--save", "scout", "--json")
    assert again.returncode == 1 and "'scout' exists" in again.stderr, describe(again)
    replaced = run(tmp_path, "calc", "--size", "4", "--tl", "15", "--save", "scout", "--replace")
    assert replaced.returncode == 0, describe(replaced)
    assert load_design(tmp_path, "scout").inputs == DesignInputs(size=4, tl=15)


@pytest.mark.parametrize(
    ("flag", "extra"), [("--notes", ("--notes", "x")), ("--replace", ("--replace",))]
)
def test_calc_save_options_need_save(tmp_path: Path, flag: str, extra: tuple[str, ...]) -> None:
    assert usage_error(tmp_path, "calc", *SCOUT, *extra).endswith(f"{flag} needs --save NAME")
    assert not (tmp_path / "designs").exists()


def test_calc_json_with_save_keeps_stdout_json(tmp_path: Path) -> None:
    done = run(tmp_path, "calc", *SCOUT, "--json", "--save", "scout")
    assert done.returncode == 0, describe(done)
    assert json.loads(done.stdout)["possible"] is True
    assert done.stderr.startswith("saved design scout to ")


# --- save, list, show, compare, delete ----------------------------------------------------------


def test_save_list_delete(tmp_path: Path) -> None:
    empty = ok(tmp_path, "list")
    assert empty.startswith("no saved designs in ")
    assert ok(tmp_path, "list", "--json") == "[]\n"
    saved = ok(tmp_path, "save", "scout", *SCOUT, "--notes", "fast\nsecond line")
    assert saved == f"saved design scout to {tmp_path / 'designs' / 'scout.toml'}\n"
    impossible = ok(tmp_path, "save", "dinghy", *ARMORED_DINGHY)
    assert "as it stands the design is impossible" in impossible
    listing = ok(tmp_path, "list")
    assert_fits(listing)
    lines = listing.splitlines()
    assert lines[0].split() == ["NAME", "SIZE", "TL", "SPEED", "STATE", "NOTES"]
    assert lines[1].split() == ["dinghy", "-5", "12", "0", "impossible"]
    assert lines[2].split() == ["scout", "+2", "12", "3", "possible", "fast"]
    rows = json.loads(ok(tmp_path, "list", "--json"))
    assert [row["name"] for row in rows] == ["dinghy", "scout"]
    assert rows[1]["inputs"]["speed"] == 3 and rows[1]["notes"] == "fast\nsecond line"
    assert (rows[0]["possible"], rows[1]["possible"]) == (False, True)
    taken = refused(tmp_path, "save", "scout", "--size", "1", "--tl", "10")
    assert "'scout' exists" in taken
    assert load_design(tmp_path, "scout").inputs.size == 2
    deleted = ok(tmp_path, "delete", "scout")
    assert deleted.startswith("deleted design scout (")
    assert "no design named 'scout'" in refused(tmp_path, "delete", "scout")
    assert [row["name"] for row in json.loads(ok(tmp_path, "list", "--json"))] == ["dinghy"]


def test_list_shows_a_broken_file_beside_the_good_ones(tmp_path: Path) -> None:
    save_design(tmp_path, "good", DesignInputs(size=1, tl=11))
    broken = tmp_path / "designs" / "broken.toml"
    broken.write_text("size = 2\ntl = 'soon'\n", encoding="utf-8")
    done = run(tmp_path, "list")
    assert done.returncode == 0, describe(done)
    assert done.stdout.splitlines()[1].split() == ["broken", "unreadable"]
    assert done.stderr.startswith(f"hexpost design list: {broken}: ")
    rows = json.loads(ok(tmp_path, "list", "--json"))
    assert "tl" in rows[0]["error"] and rows[1]["name"] == "good"
    assert set(rows[0]) == {"name", "path", "error"}  # the keys README.md documents
    assert set(rows[1]) == {"name", "path", "inputs", "notes", "possible"}
    assert rows[0]["path"] == str(broken)


def test_show_impossible_exits_1(tmp_path: Path) -> None:
    save_design(tmp_path, "dinghy", DesignInputs(size=-5, tl=12, speed=0, armor=1))
    done = run(tmp_path, "show", "dinghy")
    assert done.returncode == 1 and "the design is impossible" in done.stdout, describe(done)


def test_show_edited_invalid_file_names_file_field_range_and_keeps_it(tmp_path: Path) -> None:
    save_design(tmp_path, "scout", DesignInputs(size=2, tl=12))
    path = tmp_path / "designs" / "scout.toml"
    speed = FIELDS_BY_NAME["speed"]
    text = f"size = 2\ntl = 12\nspeed = {speed.maximum + 5}\n"
    path.write_text(text, encoding="utf-8")
    for args in (("show", "scout"), ("show", "scout", "--json"), ("compare", "scout", "scout")):
        line = usage_error(tmp_path, *args)
        assert line.startswith(f"hexpost design {args[0]}: error: {path}: ")
        assert "speed" in line and str(speed.minimum) in line and str(speed.maximum) in line
    assert "exists" in refused(tmp_path, "save", "scout", "--size", "1", "--tl", "10")
    assert path.read_text(encoding="utf-8") == text  # nothing overwritten


def test_hostile_notes_reach_the_terminal_escaped(tmp_path: Path) -> None:
    (tmp_path / "designs").mkdir()
    path = tmp_path / "designs" / "trap.toml"
    path.write_text('size = 1\ntl = 10\nnotes = "\\u001b[2Jgone\\u202eevil"\n', encoding="utf-8")
    assert load_design(tmp_path, "trap").notes == "\x1b[2Jgone\u202eevil"
    for args in (("show", "trap"), ("list",)):
        out = ok(tmp_path, *args)
        assert "\x1b" not in out and "\u202e" not in out
        assert "\\x1b[2Jgone\\u202eevil" in out


def test_show_oversized_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "designs").mkdir()
    (tmp_path / "designs" / "huge.toml").write_text("size = 2\ntl = 12\n" + "#" * 100_000)
    assert "too large for a design" in usage_error(tmp_path, "show", "huge")


def test_show_missing_design_is_refused(tmp_path: Path) -> None:
    assert "no design named 'ghost'" in refused(tmp_path, "show", "ghost", fresh=True)


@pytest.mark.parametrize("name", ["../etc", "a b", "x" * 41, "-n"])
def test_bad_names_are_usage_errors(tmp_path: Path, name: str) -> None:
    line = usage_error(tmp_path, "save", "--size=1", "--tl=10", "--", name)
    assert "design name" in line and "40" in line
    assert "design name" in usage_error(tmp_path, "show", "--", name)
    assert not (tmp_path / "designs").exists() or not any((tmp_path / "designs").iterdir())


def test_compare_two_designs_side_by_side_in_80_columns(tmp_path: Path) -> None:
    save_design(tmp_path, "scout", DesignInputs(size=2, tl=12, speed=3))
    save_design(tmp_path, "a-very-long-design-name-indeed", DesignInputs(size=10, tl=20, speed=9))
    out = ok(tmp_path, "compare", "scout", "a-very-long-design-name-indeed")
    assert out == (
        "\n".join(
            design_cmd.compare_lines(
                ["scout", "a-very-long-design-name-indeed"],
                [
                    derive(DesignInputs(size=2, tl=12, speed=3)),
                    derive(DesignInputs(size=10, tl=20, speed=9)),
                ],
            )
        )
        + "\n"
    )
    assert_fits(out)
    lines = out.splitlines()
    assert lines[0].split()[:2] == ["FIGURE", "scout"]
    size_row = next(line for line in lines if line[2:].startswith(FIELDS_BY_NAME["size"].label))
    assert size_row.startswith("*") and size_row.split()[-2:] == ["2", "10"]
    biggest = ("--size", "10", "--tl", "30", "--speed", "10", "--armor", "20", "--sensors", "30")
    ok(tmp_path, "save", "biggest", *biggest, "--gs", "30", "--supply-months", "120")
    widest = ok(tmp_path, "compare", "biggest", "scout")
    assert_fits(widest)
    capacity = derive(load_design(tmp_path, "biggest").inputs).figure("armor_capacity")
    assert f"{display(capacity.value)} {capacity.unit}" in widest  # not clipped
    three = ok(tmp_path, "compare", "scout", "scout", "scout")
    for figure in derive(DesignInputs(size=2, tl=12)).figures:  # three take the width needed
        assert any(line[2:].startswith(f"{figure.label}  ") for line in three.splitlines())
    same = ok(tmp_path, "compare", "scout", "scout")
    assert all(line.startswith(" ") for line in same.splitlines()[1:] if line)
    habitable = derive(DesignInputs(size=2, tl=12)).figure("habitable_space").label
    assert any(line[2:].startswith(habitable) for line in lines)


def test_compare_refusals(tmp_path: Path) -> None:
    save_design(tmp_path, "scout", DesignInputs(size=2, tl=12))
    assert "no design named 'ghost'" in refused(tmp_path, "compare", "scout", "ghost")
    done = run(tmp_path, "compare", "scout")
    assert done.returncode == 2 and "usage:" in done.stderr, describe(done)


# --- convert ---------------------------------------------------------------------------------


def test_convert_starship_damage_to_other_scales_and_sfb(tmp_path: Path) -> None:
    out = ok(tmp_path, "convert", "1", "--from", "starship", "--to", "corvette")
    result = convert(Fraction(1), "starship", "corvette", "damage")
    assert out == f"1 starship damage = {display(result)} corvette damage\n"
    sfb = canonical_name("sfb")
    record = json.loads(
        ok(tmp_path, "convert", "3/4", "--from", "starship", "--to", "sfb", "--json")
    )
    exact = convert(Fraction(3, 4), "starship", sfb, "damage")
    assert record == {
        "value": "3/4",
        "from": "starship",
        "to": sfb,
        "quantity": "damage",
        "result": display(exact),
        "exact": f"{exact.numerator}/{exact.denominator}" if exact.denominator > 1 else str(exact),
    }


def test_convert_decimal_value_and_quantity(tmp_path: Path) -> None:
    out = ok(
        tmp_path, "convert", "-1.5", "--from", "melee", "--to", "starship", "--quantity", "cost"
    )
    result = convert(Fraction(-3, 2), "melee", "starship", "cost")
    assert out.startswith(f"-3/2 melee cost = {display(result)} starship cost")


@pytest.mark.parametrize("value", ["abc", "1e3", "nan", "inf", "1/0", "1.5/2", "", "9" * 41])
def test_convert_refuses_garbage_values(tmp_path: Path, value: str) -> None:
    line = usage_error(tmp_path, "convert", "--from", "starship", "--to", "mecha", "--", value)
    assert line.startswith("hexpost design convert: error: VALUE ")


def test_convert_unknown_scale_lists_the_known_ones(tmp_path: Path) -> None:
    line = usage_error(tmp_path, "convert", "1", "--from", "warp", "--to", "starship", fresh=True)
    assert "warp" in line and "starship" in line and "corvette" in line


def test_convert_quantity_a_system_does_not_have(tmp_path: Path) -> None:
    line = usage_error(
        tmp_path, "convert", "1", "--from", "sfb", "--to", "starship", "--quantity", "distance"
    )
    assert line.startswith("hexpost design convert: error: ") and "distance" in line


def test_convert_unknown_quantity_is_argparse_usage(tmp_path: Path) -> None:
    done = run(tmp_path, "convert", "1", "--from", "starship", "--to", "mecha", "--quantity", "x")
    assert done.returncode == 2 and "--quantity" in done.stderr, describe(done)


def test_parser_names_are_the_engines() -> None:
    assert design_cmd._QUANTITIES == QUANTITIES
    assert tuple(field.name for field in INPUT_FIELDS) == design_cmd._FIELDS


# --- help and imports ------------------------------------------------------------------------


def test_help_texts_give_each_fields_range(tmp_path: Path) -> None:
    top = ok(tmp_path, "--help")
    for action in ("calc", "convert", "save", "list", "show", "compare", "delete"):
        assert action in top
    calc_help = " ".join(ok(tmp_path, "calc", "--help").split())
    for field in FIELDS_BY_NAME.values():
        assert f"--{field.name.replace('_', '-')} N" in calc_help
        assert f"({field.range_text()}" in calc_help
    assert "design" in hexpost("--help").stdout


def test_design_commands_import_no_mail_asyncio_textual_or_ruleset(tmp_path: Path) -> None:
    child = (
        "import json, sys\n"
        "from tui.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in ('asyncio', 'mail', 'textual')"
        " or n.startswith('engine.fe'))\n"
        "print(json.dumps({'code': code, 'bad': bad}), file=sys.stderr)\n"
    )

    def imported(*args: str) -> dict[str, object]:
        done = subprocess.run(
            [sys.executable, "-c", child, "--home", str(tmp_path), *args],
            cwd=Path(__file__).resolve().parents[2],
            capture_output=True,
            text=True,
            check=False,
        )
        report: dict[str, object] = json.loads(done.stderr.strip().splitlines()[-1])
        return report

    save_design(tmp_path, "scout", DesignInputs(size=2, tl=12))
    for args in (
        ("calc", *SCOUT),
        ("convert", "1", "--from", "starship", "--to", "mecha"),
        ("show", "scout"),
        ("list",),
    ):
        assert imported("design", *args) == {"code": 0, "bad": []}
    # the probe sees a command that does import the ruleset
    assert "engine.fe" in str(imported("scenarios")["bad"])
