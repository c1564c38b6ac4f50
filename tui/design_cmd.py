"""``hexpost design``: the ship design calculator and the designs saved in a home.

``design calc`` works every figure of a design out from its inputs (`engine.design.derive`);
``design convert`` turns a damage, distance, power or cost figure from one scale or game system
into another; ``design save``, ``list``, ``show``, ``compare`` and ``delete`` keep designs by name
in the home (`saves.designs`, TOML files a player may edit). None needs an identity or a game.

Exit codes, as the rest of the command line: 0 done; 1 refused (an impossible design, with the
rule that forbids each problem; no design of that name; a name already taken); 2 the user's input
is malformed: a value out of range or not a number, an unknown scale, a bad design name, or a
saved design file edited into an invalid state. Each is one line on stderr naming the argument
(or the file and field) and what is allowed, never a traceback.

JSON (``--json``): ``calc`` prints `engine.design.design_json` (keys in docs/design.md);
``show`` the same object with ``name`` and ``notes``; ``list`` a list of objects with ``name``,
``path`` and either ``inputs``, ``notes``, ``possible`` or ``error``; ``convert`` an object with
``value``, ``from``, ``to``, ``quantity``, ``result`` (rounded for display) and ``exact``.

This module is imported by `tui.cli` to build the parser, so its top level imports nothing
heavy: the engine's design package and the saves are imported by the commands themselves.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fractions import Fraction

    from engine.design import Design, DesignInputs
    from saves.home import Home

EXIT_OK = 0
EXIT_REFUSED = 1
EXIT_USAGE = 2
WIDTH = 80

_NUMBER = re.compile(r"[+-]?(?:\d+/\d+|\d+(?:\.\d*)?|\.\d+)")
MAX_VALUE_CHARS = 40

_QUANTITIES = ("damage", "distance", "power", "cost")
_FIELDS = (
    "size",
    "tl",
    "speed",
    "maneuver",
    "gs",
    "supply_months",
    "shielding",
    "sensors",
    "compartments",
    "armor",
    "crew_quality",
)
"""`engine.design.QUANTITIES` and the names of `engine.design.INPUT_FIELDS`, spelt out so that
building the parser, which every `hexpost` command does, imports no engine module (about 40 ms
at start-up); tests/tui/test_design_cmd.py checks they agree. The fields' help and ranges are
the engine's, looked up only when a help text is printed (`_FieldHelp`)."""
_REQUIRED = ("size", "tl")


class _FieldHelp(argparse.HelpFormatter):
    """Help for ``design calc`` and ``design save``: each input's line is the engine's own help
    and range (`engine.design.InputField`), imported only when the help is shown."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.dest not in _FIELDS:
            return super()._get_help_string(action)
        from engine.design import FIELDS_BY_NAME

        field = FIELDS_BY_NAME[action.dest]
        default = "" if field.name in _REQUIRED else f", default {field.default}"
        return f"{field.help} ({field.range_text()}{default})".replace("%", "%%")


class UsageError(Exception):
    """A malformed argument: printed as one line, exit 2 (argparse's convention)."""


# --- the parser ----------------------------------------------------------------------------------


def add_design_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``design`` and its actions to the ``hexpost`` command's subparsers."""
    design = sub.add_parser(
        "design",
        help="the ship design calculator, scale conversions and saved designs",
        description="Work out a starship design from its hull size and tech level (the "
        "starship scale and design system: volume, habitable space, crew, supply, shielding, "
        "hull, armor, sensors...), convert figures between scales and game systems, and keep "
        "designs by name in this home as TOML files you may edit. Needs no identity or game.",
        epilog="Exit codes: 0 done; 1 an impossible design (each problem with the rule that "
        "forbids it), or no design of that name; 2 a malformed argument or design file. "
        "docs/design.md describes every formula and the JSON keys.",
    )
    dsub = design.add_subparsers(dest="design_command", metavar="ACTION", required=True)

    def inputs(parser: argparse.ArgumentParser) -> None:
        group = parser.add_argument_group("design inputs (whole numbers; +2 and -3 are fine)")
        for name in _FIELDS:  # the help line is the engine's (`_FieldHelp`)
            group.add_argument(
                _flag(name), dest=name, metavar="N", required=name in _REQUIRED, help=name
            )

    calc = dsub.add_parser(
        "calc",
        formatter_class=_FieldHelp,
        help="every derived figure of a design, with its formula",
        description="Prints each figure the design procedure derives from the inputs, with "
        "its formula, then the problems that make the design impossible, each with the rule "
        "that forbids it; exits 1 when there are any.",
    )
    inputs(calc)
    calc.add_argument("--json", action="store_true", help="print the design as JSON")
    calc.add_argument("--save", metavar="NAME", help="also save the inputs as design NAME")
    calc.add_argument("--notes", default="", metavar="TEXT", help="with --save: a note to keep")
    calc.add_argument("--replace", action="store_true", help="with --save: replace design NAME")

    convert = dsub.add_parser(
        "convert",
        help="convert a figure between scales and game systems",
        description="Converts VALUE of a quantity from one scale (starship, corvette, mecha, "
        "melee) or game system (damage only, e.g. sfb, traveller, starfire, palladium, "
        "battletech) to another. Exact: 3/4 stays 3/4, the result is exact and shown rounded.",
    )
    convert.add_argument("value", metavar="VALUE", help="a number: 12, -1.5 or 3/4")
    convert.add_argument("--from", dest="source", required=True, metavar="SCALE")
    convert.add_argument("--to", dest="target", required=True, metavar="SCALE")
    convert.add_argument("--quantity", choices=_QUANTITIES, default="damage")
    convert.add_argument("--json", action="store_true")

    save = dsub.add_parser(
        "save",
        formatter_class=_FieldHelp,
        help="save a design's inputs by name",
        description="Saves the inputs as HOME/designs/NAME.toml (refused if NAME exists, "
        "unless --replace). An impossible design may be saved as a draft.",
    )
    save.add_argument("name", metavar="NAME", help="letters, digits, - and _ (at most 40)")
    inputs(save)
    save.add_argument("--notes", default="", metavar="TEXT", help="a free-text note to keep")
    save.add_argument("--replace", action="store_true", help="replace an existing design")

    listing = dsub.add_parser("list", help="the designs saved in this home")
    listing.add_argument("--json", action="store_true")

    show = dsub.add_parser(
        "show",
        help="a saved design, every figure derived again from its inputs",
        description="Loads design NAME and derives every figure again, as `design calc` "
        "prints them; exits 1 when the design is impossible.",
    )
    show.add_argument("name", metavar="NAME")
    show.add_argument("--json", action="store_true")

    compare = dsub.add_parser(
        "compare",
        help="saved designs side by side",
        description="The inputs and every figure of two or more saved designs in columns; "
        "a * marks the rows where they differ.",
    )
    compare.add_argument("name", metavar="NAME")
    compare.add_argument("others", nargs="+", metavar="NAME")

    delete = dsub.add_parser("delete", help="remove a saved design")
    delete.add_argument("name", metavar="NAME")


# --- running -------------------------------------------------------------------------------------


def run(args: argparse.Namespace, home: Home) -> int:
    """Run ``hexpost design ACTION``: a malformed input is one line and exit 2, a refusal one
    line and exit 1 (see the module docstring)."""
    from engine.design import ConversionError, DesignInputError
    from saves.designs import DesignExistsError, DesignNotFoundError, DesignStoreError

    action = args.design_command
    try:
        return _ACTIONS[action](args, home)
    except DesignInputError as exc:
        message = str(exc).removeprefix(f"{exc.field}: ")
        return _fail(action, f"{_flag(exc.field)}: {message}", EXIT_USAGE)
    except (DesignNotFoundError, DesignExistsError):
        raise  # a refusal, not a malformed input: `tui.cli` prints it and exits 1
    except (DesignStoreError, ConversionError, UsageError) as exc:
        return _fail(action, str(exc), EXIT_USAGE)


def _fail(action: str, message: str, code: int) -> int:
    print(f"hexpost design {action}: error: {_one_line(message)}", file=sys.stderr)
    return code


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _flag(field: str) -> str:
    return "--" + field.replace("_", "-")


def _given_inputs(args: argparse.Namespace) -> DesignInputs:
    """The inputs given as flags, checked (`engine.design.make_inputs` fills the defaults)."""
    from engine.design import INPUT_FIELDS, make_inputs

    values = {
        field.name: getattr(args, field.name)
        for field in INPUT_FIELDS
        if getattr(args, field.name, None) is not None
    }
    return make_inputs(values)


def _calc(args: argparse.Namespace, home: Home) -> int:
    from engine.design import derive

    if not args.save and (args.notes or args.replace):
        raise UsageError(f"{'--notes' if args.notes else '--replace'} needs --save NAME")
    design = derive(_given_inputs(args))
    if args.save:
        _save(home, args.save, design.inputs, args.notes, args.replace, quiet=args.json)
    _print_design(design, as_json=args.json)
    return EXIT_OK if design.possible else EXIT_REFUSED


def _save(
    home: Home, name: str, inputs: DesignInputs, notes: str, replace: bool, *, quiet: bool
) -> None:
    from saves.designs import save_design

    saved = save_design(home.path, name, inputs, notes=notes, replace=replace)
    print(f"saved design {saved.name} to {saved.path}", file=sys.stderr if quiet else sys.stdout)


def _save_action(args: argparse.Namespace, home: Home) -> int:
    from engine.design import derive

    inputs = _given_inputs(args)
    _save(home, args.name, inputs, args.notes, args.replace, quiet=False)
    problems = derive(inputs).problems
    if problems:
        print(
            f"note: as it stands the design is impossible ({len(problems)} problem"
            f"{'s' if len(problems) != 1 else ''}): `hexpost design show {args.name}` lists them"
        )
    return EXIT_OK


def _show(args: argparse.Namespace, home: Home) -> int:
    from engine.design import derive, design_json
    from saves.designs import load_design

    saved = load_design(home.path, args.name)
    design = derive(saved.inputs)
    if args.json:
        record = {"name": saved.name, "notes": saved.notes, **design_json(design)}
        print(json.dumps(record, indent=2, ensure_ascii=True))
    else:
        print(f"design {saved.name} ({saved.path})")
        for line in saved.notes.splitlines():
            print(f"  {line}")
        _print_design(design, as_json=False)
    return EXIT_OK if design.possible else EXIT_REFUSED


def _list(args: argparse.Namespace, home: Home) -> int:
    from engine.design import derive, inputs_as_dict
    from saves.designs import designs_folder, list_designs

    entries = list_designs(home.path)
    if args.json:
        rows = []
        for entry in entries:
            row: dict[str, object] = {"name": entry.name, "path": str(entry.path)}
            if entry.design is None:
                row["error"] = entry.error
            else:
                row["inputs"] = inputs_as_dict(entry.design.inputs)
                row["notes"] = entry.design.notes
                row["possible"] = derive(entry.design.inputs).possible
            rows.append(row)
        print(json.dumps(rows, indent=2, ensure_ascii=True))
        return EXIT_OK
    if not entries:
        print(f"no saved designs in {designs_folder(home.path)}")
        print("save one with `hexpost design save NAME --size N --tl N`")
        return EXIT_OK
    name_width = max(4, *(len(entry.name) for entry in entries))
    print(f"{'NAME':<{name_width}}  SIZE   TL  SPEED  STATE       NOTES")
    for entry in entries:
        if entry.design is None:
            print(f"{entry.name:<{name_width}}  {'':>4}  {'':>3}  {'':>5}  unreadable")
            print(f"hexpost design list: {entry.error}", file=sys.stderr)
            continue
        inputs = entry.design.inputs
        state = "possible" if derive(inputs).possible else "impossible"
        line = (
            f"{entry.name:<{name_width}}  {inputs.size:>+4}  {inputs.tl:>3}  {inputs.speed:>5}  "
            f"{state:<10}  "
        )
        first = entry.design.notes.splitlines()[0] if entry.design.notes.strip() else ""
        room = max(0, WIDTH - len(line))
        print((line + _clip(first, room)).rstrip())
    return EXIT_OK


def _compare(args: argparse.Namespace, home: Home) -> int:
    from engine.design import derive
    from saves.designs import load_design

    names = [args.name, *args.others]
    designs = [derive(load_design(home.path, name).inputs) for name in names]
    for line in compare_lines(names, designs):
        print(line)
    return EXIT_OK


def _delete(args: argparse.Namespace, home: Home) -> int:
    from saves.designs import delete_design

    path = delete_design(home.path, args.name)
    print(f"deleted design {args.name} ({path})")
    return EXIT_OK


def _convert(args: argparse.Namespace, _home: Home) -> int:
    from engine.design import canonical_name, convert, display

    value = parse_value(args.value)
    source, target = canonical_name(args.source), canonical_name(args.target)
    result = convert(value, source, target, args.quantity)
    if args.json:
        record = {
            "value": _exact(value),
            "from": source,
            "to": target,
            "quantity": args.quantity,
            "result": display(result),
            "exact": _exact(result),
        }
        print(json.dumps(record, indent=2, ensure_ascii=True))
        return EXIT_OK
    shown = display(result)
    exact = _exact(result)
    suffix = "" if exact == shown else f" (exactly {exact})"
    print(f"{_exact(value)} {source} {args.quantity} = {shown} {target} {args.quantity}{suffix}")
    return EXIT_OK


_ACTIONS = {
    "calc": _calc,
    "convert": _convert,
    "save": _save_action,
    "list": _list,
    "show": _show,
    "compare": _compare,
    "delete": _delete,
}


# --- values and text -----------------------------------------------------------------------------


def parse_value(text: str) -> Fraction:
    """VALUE as an exact fraction: an integer, a decimal or ``N/D``; anything else (an
    exponent, ``inf``, ``nan``, a zero denominator, a very long number) is a `UsageError`."""
    from fractions import Fraction

    cleaned = text.strip()
    if len(cleaned) > MAX_VALUE_CHARS or _NUMBER.fullmatch(cleaned) is None:
        shown = cleaned if len(cleaned) <= MAX_VALUE_CHARS else cleaned[:MAX_VALUE_CHARS] + "..."
        raise UsageError(
            f"VALUE {shown!r}: give a number such as 12, -1.5 or 3/4 "
            f"(at most {MAX_VALUE_CHARS} characters)"
        )
    try:
        return Fraction(cleaned)
    except ZeroDivisionError:
        raise UsageError(f"VALUE {cleaned!r}: a fraction's denominator cannot be 0") from None


def _exact(value: Fraction) -> str:
    return (
        str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    )


def _clip(text: str, width: int) -> str:
    if len(text) <= width:
        return text
    return text[: max(0, width - 3)] + "..." if width >= 3 else ""


def _print_design(design: Design, *, as_json: bool) -> None:
    from engine.design import design_json

    if as_json:
        print(json.dumps(design_json(design), indent=2, ensure_ascii=True))
        return
    for line in design_lines(design):
        print(line)


def inputs_line(inputs: DesignInputs) -> list[str]:
    """The inputs as ``size +2, tl 12, ...`` wrapped to the width."""
    from engine.design import inputs_as_dict

    parts = [f"{name.replace('_', ' ')} {value}" for name, value in inputs_as_dict(inputs).items()]
    return textwrap.wrap("inputs: " + ", ".join(parts), WIDTH, subsequent_indent="  ")


def _table(rows: Sequence[Sequence[str]], widths: Sequence[int]) -> list[str]:
    """Rows of cells in columns of ``widths`` (two spaces apart), a cell too wide for its
    column wrapped onto the following lines."""
    lines = []
    for row in rows:
        cells = [
            textwrap.wrap(cell, width) or [""] for cell, width in zip(row, widths, strict=True)
        ]
        for index in range(max(len(cell) for cell in cells)):
            parts = [
                (cell[index] if index < len(cell) else "").ljust(width)
                for cell, width in zip(cells, widths, strict=True)
            ]
            lines.append("  ".join(parts).rstrip())
    return lines


def design_lines(design: Design) -> list[str]:
    """``design calc``'s text: the inputs, a table of figures (label, value, formula) within
    80 columns, the readings chosen where the source is ambiguous, then the problems."""
    from engine.design import display

    notes: list[str] = []
    rows = [["FIGURE", "VALUE", "FORMULA"]]
    for figure in design.figures:
        label = figure.label
        if figure.note:  # one number a reading, however many figures share it
            if figure.note not in notes:
                notes.append(figure.note)
            label += f" [{notes.index(figure.note) + 1}]"
        value = display(figure.value) + (f" {figure.unit}" if figure.unit else "")
        rows.append([label, value, figure.formula])
    label_width = min(28, max(len(row[0]) for row in rows))
    value_width = min(30, max(len(row[1]) for row in rows))  # a value is never wrapped
    formula_width = WIDTH - label_width - value_width - 4
    lines = [*inputs_line(design.inputs), ""]
    lines += _table(rows, (label_width, value_width, formula_width))
    if notes:
        lines += ["", "readings chosen where the source is ambiguous:"]
        for number, note in enumerate(notes, 1):
            lines += textwrap.wrap(f"[{number}] {note}", WIDTH, subsequent_indent="    ")
    lines += problem_lines(design)
    return lines


def problem_lines(design: Design) -> list[str]:
    if not design.problems:
        return ["", "the design is possible"]
    lines = ["", f"the design is impossible ({len(design.problems)}):"]
    for problem in design.problems:
        text = f"- {_flag(problem.field)}: {problem.message} (rule: {problem.rule})"
        lines += textwrap.wrap(text, WIDTH, subsequent_indent="  ")
    return lines


def compare_lines(names: Sequence[str], designs: Sequence[Design]) -> list[str]:
    """Designs side by side: the inputs, then every figure, one column per design; a ``*``
    marks a row where they differ. Two designs fit 80 columns (a long label is clipped with
    ``...``, a value never is); more take the width they need."""
    from engine.design import FIELDS_BY_NAME, display, inputs_as_dict

    rows: list[list[str]] = []
    inputs = [inputs_as_dict(design.inputs) for design in designs]
    for key in inputs[0]:
        rows.append([FIELDS_BY_NAME[key].label, *(str(values[key]) for values in inputs)])
    first = designs[0]
    for figure in first.figures:
        cells = []
        for design in designs:
            try:
                other = design.figure(figure.key)
            except KeyError:
                cells.append("-")
                continue
            cells.append(display(other.value) + (f" {other.unit}" if other.unit else ""))
        rows.append([figure.label, *cells])
    # A column is as wide as its widest value (the widest figure, armor capacity at the top of
    # the ranges, is 23 characters), never clipped; a long design name is clipped in the header.
    value_width = max(8, *(len(cell) for row in rows for cell in row[1:]))
    longest = max(len(row[0]) for row in rows)
    room = WIDTH - 2 - len(names) * (value_width + 2)
    label_width = min(longest, room) if len(names) <= 2 else longest  # clip only to fit two
    header = "  " + "FIGURE".ljust(label_width)
    header += "".join("  " + _clip(name, value_width).rjust(value_width) for name in names)
    lines = [header.rstrip()]
    for row in rows:
        mark = "*" if len(set(row[1:])) > 1 else " "
        line = f"{mark} {_clip(row[0], label_width).ljust(label_width)}"
        line += "".join("  " + cell.rjust(value_width) for cell in row[1:])
        lines.append(line.rstrip())
    for name, design in zip(names, designs, strict=True):
        if design.problems:
            lines.append("")
            lines.append(f"{name} is impossible:")
            for problem in design.problems:
                text = f"- {_flag(problem.field)}: {problem.message} (rule: {problem.rule})"
                lines += textwrap.wrap(text, WIDTH, subsequent_indent="  ")
    return lines
