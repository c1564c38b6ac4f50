"""The read-only commands start without the modules they have no use for (issue 16, item 5).

``hexpost games --json`` and ``hexpost show GAME --json`` read the home and print: each is run
in a fresh interpreter on a home holding the tutorial game, and the modules it imported are
read from its ``sys.modules`` when it is done. asyncio, the mail package and Textual were all
imported by them before (`tui.commands` imported the sync and account commands, the F&E client
its demo and that demo's loopback transport); a new top-level import that brings them back
fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.tui.fresh import child_report, run_child
from tests.tui.test_app import GAME, Tutorial

CHILD = """
import json, sys
from tui.cli import main
code = 2
try:
    code = main(sys.argv[1:])
finally:
    unwanted = ("asyncio", "mail", "textual")
    print(json.dumps({"code": code, "imported": sorted(
        name for name in sys.modules if name.split(".")[0] in unwanted)}), file=sys.stderr)
"""


def run_fresh(home: Path, *command: str) -> tuple[int, str, list[str]]:
    """Exit code, standard output and the unwanted modules of ``hexpost command``."""
    done = run_child(CHILD, "--home", str(home), *command)
    report = child_report(done)
    return report["code"], done.stdout, report["imported"]


@pytest.mark.parametrize("command", [("games", "--json"), ("show", GAME, "--json")])
def test_reading_commands_import_no_mail_asyncio_or_textual(
    tutorial: Tutorial, command: tuple[str, ...]
) -> None:
    code, out, imported = run_fresh(Path(tutorial.alice.home.path), *command)
    assert code == 0
    printed = json.loads(out)
    names = [row["name"] for row in printed] if command[0] == "games" else [printed["name"]]
    assert names == [GAME]  # the command did its work, so the check is on a real run
    assert imported == []


def test_the_check_sees_a_command_that_imports_them(tutorial: Tutorial) -> None:
    """The same check on ``sync`` (which needs the mail modules) finds them: the probe
    reads the child's modules, it does not pass by default."""
    _, _, imported = run_fresh(Path(tutorial.alice.home.path), "sync")
    assert "asyncio" in imported and "mail" in imported
