"""The command line's parsers of the commands that start a game: ``new`` (create one and
invite an opponent) and ``accept`` (join an invitation, or accept the key that joined).
`tui.cli` builds them here; `tui.commands` runs them."""

from __future__ import annotations

import argparse


def add_start_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``new`` and ``accept`` to the command line's subcommands ``sub``."""
    new = sub.add_parser("new", help="create a game and invite an opponent")
    new.add_argument(
        "--scenario", required=True, metavar="ID", help="the scenario (`hexpost scenarios`)"
    )
    new.add_argument("--seat", required=True, help="your seat, e.g. coalition")
    new.add_argument("--opponent", required=True, metavar="ADDR", help="opponent's address")
    new.add_argument(
        "--opponent-seat", metavar="SEAT", help="their seat (default: the scenario's other one)"
    )
    new.add_argument("--name", help="a short name for the game")
    new.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="ID=VALUE",
        help="set an optional rule (repeatable), e.g. --option orion=true; "
        "hexpost scenario rules ID lists them and the values each takes",
    )
    new.add_argument(
        "--reply-window",
        type=int,
        default=72,
        metavar="HOURS",
        help="hours a player has to answer before a reminder and a late claim (default: 72)",
    )

    accept = sub.add_parser(
        "accept",
        help="join a game you were invited to, or accept the key that joined your game",
        description="For an invitation: join it (your key and entropy anchor are bound to "
        "your seat). For a game you created: accept the key that joined it, after comparing "
        "its fingerprint with the player you invited by another channel; your next packet "
        "carries the acceptance. Anyone who read the invitation could have answered it.",
    )
    accept.add_argument("game", metavar="GAME")
    accept.add_argument(
        "--fingerprint",
        metavar="FP",
        help="the fingerprint the invited player told you; refused if the joined key differs",
    )
