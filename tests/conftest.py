"""What the whole suite shares: the ``--full`` switch and the order test files are handed out in.

``make test`` runs the suite on three workers (on two cores), one test file per worker at a
time (``--dist loadfile``), so the wall time is bounded by how the files fall to the workers.
The scheduler hands files out in collection order; starting the heaviest ones first leaves
only short files for the end, where one worker would otherwise sit idle while the other
finishes a long one (the longest-job-first rule). `HEAVY_FIRST` lists them, heaviest first,
as measured with ``--durations``; every other file keeps its place after them.

The crash loops take a count: the default run kills fewer processes (still reaching every
kind of crash point), and ``--full`` (or ``HEXPOST_FULL=1``, as ``make test-full`` sets it)
runs the whole count.
"""

from __future__ import annotations

import os

import pytest

HEAVY_FIRST = (
    "tests/saves/test_crash.py",
    "tests/tui/test_cli.py",
    "tests/tui/test_trust_cli.py",
    "tests/tui/test_designer.py",
    "tests/tui/test_order_keys.py",
    "tests/tui/test_random_keys.py",
    "tests/tui/test_orders_forms.py",
    "tests/tui/test_cli_refusals.py",
    "tests/engine/fe/test_menus.py",
    "tests/saves/test_damaged_snapshot.py",
    "tests/tui/test_review.py",
    "tests/tui/test_new_game.py",
    "tests/saves/test_lossy_mail.py",
    "tests/mail/test_mail_commands.py",
    "tests/tui/test_chat.py",
    "tests/saves/test_random_damage.py",
    "tests/engine/fe/test_random_campaign.py",
    "tests/engine/fe/test_supply_cache.py",
    "tests/engine/fe/test_edited_packets.py",
    "tests/mail/test_mail_game.py",
    "tests/tui/test_destinations.py",
    "tests/tui/test_demo_app.py",
    "tests/tui/test_cli_concurrent.py",
    "tests/tui/test_cli_choices.py",
    "tests/engine/fe/test_random_policies.py",
    "tests/tui/test_orders_panel.py",
    "tests/tui/test_settings.py",
    "tests/tui/test_snapshots.py",
    "tests/tui/test_trust_cmd.py",
    "tests/tui/test_news.py",
    "tests/tui/test_random_views.py",
    "tests/tui/test_toy_cli.py",
    "tests/tui/test_next_step_orders.py",
    "tests/saves/test_lost_packet_row.py",
    "tests/tui/test_calculator.py",
    "tests/tui/test_cli_pace_tips.py",
    "tests/tui/test_app_game.py",
)
"""The test files that take longest, heaviest first (setup, call and teardown summed per file
from ``--durations=0`` on three workers; last measured 2026-12-07 on an AMD EPYC machine: 55 s
down to 16 s; every other file takes under 16 s). A stale entry only costs balance."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--full",
        action="store_true",
        default=False,
        help="run the crash loops at their full count (as HEXPOST_FULL=1 does)",
    )


def is_full_run(config: pytest.Config) -> bool:
    """Whether this run asked for the full crash loops."""
    return bool(config.getoption("--full")) or os.environ.get("HEXPOST_FULL", "") not in ("", "0")


@pytest.fixture(scope="session")
def full_run(request: pytest.FixtureRequest) -> bool:
    """True under ``--full`` or ``HEXPOST_FULL=1``: crash loops run their whole count."""
    return is_full_run(request.config)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Put the files of `HEAVY_FIRST` first, in that order; the sort is stable, so the tests
    inside a file and all the other files keep the order they were collected in."""
    rank = {path: place for place, path in enumerate(HEAVY_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.partition("::")[0], len(rank)))
