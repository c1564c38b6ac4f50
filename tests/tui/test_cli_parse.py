"""The app's commands, ``games`` and ``show`` are parsed without building every command's
parser (`tui.cli`, issue 16 item 5), and the command line means exactly what it meant before:
each case below is parsed both ways, by `parse_arguments` and by the whole parser, and must
agree, including what argparse prints and the exit code when it refuses or shows help."""

from __future__ import annotations

import argparse
import contextlib
import io
from collections.abc import Callable

import pytest

from tui import cli

APP_LINES = [
    [],
    ["play"],
    ["play", "wind"],
    ["--home", "/tmp/h", "play", "wind"],
    ["--home=/tmp/h", "play"],
    ["--passphrase-env", "PW", "play", "wind"],
    ["--passphrase-command", "pass show hexpost", "review", "wind"],
    ["review", "wind"],
    ["play", "--", "-odd-name"],
]

READING_LINES = [
    ["games", "--json"],
    ["games"],
    ["show", "wind", "--json"],
    ["--home", "/tmp/h", "show", "wind", "--at", "3", "--checklist"],
    ["show", "wind", "--map", "--region", "0101:0505", "--detailed"],
    ["show", "wind", "--js"],  # an abbreviation of the command's own option: the same
    ["show", "--", "-odd-name"],
]

OTHER_LINES = [
    ["design", "--help"],
    ["identity", "create", "--name", "A", "--address", "a@example.org"],
]

REFUSED_OR_HELP = [
    ["-h"],
    ["--help"],
    ["play", "-h"],
    ["review", "--help"],
    ["review"],  # its GAME is required
    ["play", "a", "b"],  # one game at most
    ["--home"],  # the folder is missing
    ["--home", "", "games"],  # an empty folder name
    ["--hom", "/tmp/h", "play"],  # an abbreviation: argparse's own rules decide
    ["--h", "/tmp/h", "play"],  # ambiguous with --help in the whole parser
    ["--passphrase-env", "A", "--passphrase-command", "B", "play"],  # exclusive
    ["plya"],
    ["--nope", "play"],
    ["show", "wind", "-h"],
    ["show", "wind", "--h"],  # --help, by abbreviation
    ["show", "wind", "--at", "x"],  # not a number
    ["show"],  # its GAME is required
    ["games", "--map"],
    ["--home", "/tmp/h", "show", "wind", "--nope"],
]


def outcome(
    parse: Callable[[list[str]], argparse.Namespace], argv: list[str]
) -> tuple[object, str, str]:
    """What parsing ``argv`` gives: the namespace (or the exit code), stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            result: object = vars(parse(argv))
        except SystemExit as stop:
            result = ("exit", stop.code)
    return result, out.getvalue(), err.getvalue()


def whole(argv: list[str]) -> argparse.Namespace:
    return cli.build_parser().parse_args(argv)


@pytest.mark.parametrize("argv", APP_LINES + READING_LINES + OTHER_LINES + REFUSED_OR_HELP)
def test_the_command_line_means_what_the_whole_parser_says(argv: list[str]) -> None:
    assert outcome(cli.parse_arguments, argv) == outcome(whole, argv)


@pytest.mark.parametrize("argv", APP_LINES + READING_LINES)
def test_the_app_and_reading_commands_never_build_the_whole_parser(
    argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused() -> argparse.ArgumentParser:
        raise AssertionError("the whole parser was built")

    monkeypatch.setattr(cli, "build_parser", refused)
    assert cli.parse_arguments(argv).command in cli.QUICK_COMMANDS


@pytest.mark.parametrize("argv", OTHER_LINES + REFUSED_OR_HELP)
def test_everything_else_goes_to_the_whole_parser(
    argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[bool] = []
    real = cli.build_parser

    def counted() -> argparse.ArgumentParser:
        built.append(True)
        return real()

    monkeypatch.setattr(cli, "build_parser", counted)
    outcome(cli.parse_arguments, argv)
    assert built == [True]


def test_the_orders_help_lists_no_ruleset_s_orders_and_points_at_choices() -> None:
    """The command line is every ruleset's (nothing above engine/ assumes F&E): its help for
    ``orders`` sends the player to ``choices``, which lists the orders of the game's own
    ruleset, instead of a list of F&E orders that left out the combat phase's."""
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    text = " ".join(sub.choices["orders"].format_help().split())
    assert "hexpost choices GAME" in text
    for fe_order in ("retrograde", "strategic", "convert", "mission"):
        assert fe_order not in text


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["identity"], "create, show"),
        (["transport"], "folder, mail, show"),
        (["design"], "calc, convert, save, list, show, compare, delete"),
        (["calc"], "combat"),
        (["scenario"], "info, rules"),
    ],
)
def test_a_command_without_its_action_names_the_actions(argv: list[str], named: str) -> None:
    """``hexpost identity`` alone said only that an ACTION is required: it now names them,
    and the command that explains each, with the usage error's exit code."""
    result, out, err = outcome(cli.parse_arguments, argv)
    assert result == ("exit", 2) and out == ""
    line = err.strip().splitlines()[-1]
    assert line.startswith(f"hexpost {argv[0]}: error: the following arguments are required: ")
    assert f"(one of: {named});" in line, line
    assert f"`hexpost {argv[0]} -h` says what each does" in line, line


@pytest.mark.parametrize("argv", [["--home", "", "games"], ["--home", "  ", "sync"]])
def test_an_empty_home_is_a_usage_error_not_the_default_home(argv: list[str]) -> None:
    """``--home ""`` (a variable that was not set, in a script) used the default home, as if
    no --home were given: a script meant for one home ran in another."""
    result, _out, err = outcome(cli.parse_arguments, argv)
    assert result == ("exit", 2)
    assert "argument --home: an empty folder name: give the home's path" in err
