"""``hexpost calc``: a ruleset's calculators, which work its rules without a game or a home.

``hexpost calc combat --potential N --bir B --die D [--ew S] [--rounding MODE] [--json]``
prints the damage points one side scores and the table's percentage, as players work them out
when choosing a battle intensity. The rules are the installed ruleset's (`tui.services.rulesets
.calculate` finds it through the plug-in registry, so this module names no ruleset); a value
the rules refuse comes back as a `HexpostError`, one line and exit 1.
"""

from __future__ import annotations

import argparse
import json

from saves.home import Home
from tui import render
from tui.safe_text import safe_text
from tui.services import rulesets


def cmd_calc(args: argparse.Namespace, _home: Home) -> int:
    values = {
        "potential": args.potential,
        "bir": str(args.bir),
        "die": str(args.die),
        "ew": str(args.ew),
        "rounding": args.rounding or "",
    }
    details = rulesets.calculate(args.calc_command, values)
    if args.json:
        print(json.dumps(render.builtins(details.record), indent=2, ensure_ascii=True))
    else:
        print(safe_text(details.text, multiline=True))
    return 0
