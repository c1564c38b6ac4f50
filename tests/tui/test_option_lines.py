"""The rule options a game was made with, as `new` and `show` print them: each as
``--option ID=VALUE`` takes it back (true/false in lower case), wrapped at 80 columns."""

from __future__ import annotations

from engine.fe import RULESET
from tests.saves.conftest import SCENARIO
from tui import cli, render
from tui.services.start import scenario_rules


def test_every_option_is_printed_as_the_command_line_takes_it() -> None:
    options = {spec.id: spec.default for spec in scenario_rules(SCENARIO)}
    assert any(isinstance(value, bool) for value in options.values())
    lines = render.option_lines(options, " (change with --option id=value)")
    assert all(len(line) <= 80 for line in lines)
    text = " ".join(line.strip() for line in lines)
    assert "True" not in text and "False" not in text
    chosen = text.removeprefix("rule options: ").removesuffix(" (change with --option id=value)")
    args = [arg for pair in chosen.split(", ") for arg in ("--option", pair)]
    parsed = cli.parse_arguments(["new", "--scenario", SCENARIO, "--seat", "coalition",
                                  "--opponent", "bob@example.org", *args])  # fmt: skip
    from tui.services.start import parse_options

    assert parse_options(parsed.option, SCENARIO) == options
    assert RULESET is not None


def test_a_text_option_whose_words_look_like_yes_or_no_stays_a_text() -> None:
    """``economy-fractions`` takes 'on' or 'off' (`hexpost scenario rules` says so): read
    as true/false, the game was refused ("takes a text, not False")."""
    from tui.services.start import parse_options

    parsed = parse_options(["economy-fractions=off", "orion=yes", "hex-cost=2"], SCENARIO)
    assert parsed == {"economy-fractions": "off", "orion": True, "hex-cost": 2}
    assert parse_options(["orion=maybe"], SCENARIO) == {"orion": "maybe"}  # (refused later)
