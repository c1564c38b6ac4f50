"""``hexpost show`` and ``games`` print without importing Rich (issue 16, item 5).

Nothing they print is markup: `tui.safe_text` escapes what they print with the standard
library alone, and imports Rich only for the app's widgets (`tui.safe_text.plain`,
`tui.safe_text.markup_escaped`). Importing it cost ``show --json`` some 55 million
instructions, a twelfth of its start. Run in a fresh interpreter as `tests.tui.test_cli_start`
runs the command; the check is tried on the app's helper, which must import it.
"""

from __future__ import annotations

import pytest

from tests.tui.fresh import child_report, run_child
from tests.tui.test_app import GAME, Tutorial

CHILD = """
import json, sys
from tui.cli import main
from tui.safe_text import plain
code = 0 if sys.argv[1] == "plain" and plain("x") else main(sys.argv[1:])
print(json.dumps({"code": code, "rich": sorted(
    name for name in sys.modules if name.split(".")[0] == "rich")}), file=sys.stderr)
"""


def rich_modules(*argv: str) -> tuple[int, list[str]]:
    done = run_child(CHILD, *argv)
    report = child_report(done)
    return report["code"], report["rich"]


@pytest.mark.parametrize(
    "command", [("games", "--json"), ("show", GAME, "--json"), ("show", GAME), ("games",)]
)
def test_reading_commands_import_no_rich(tutorial: Tutorial, command: tuple[str, ...]) -> None:
    code, imported = rich_modules("--home", str(tutorial.alice.home.path), *command)
    assert code == 0
    assert imported == []


def test_the_check_sees_rich_where_it_is_used() -> None:
    _, imported = rich_modules("plain")
    assert "rich.text" in imported
