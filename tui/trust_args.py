"""The arguments of the commands that settle trouble or end a game: ``claim``, ``resend``,
``decline`` and ``resign`` (run by `tui.trust_cmd`).

Imported by `tui.cli` to build the parser, so it imports nothing but argparse.
"""

from __future__ import annotations

import argparse


def add_trust_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the four commands' parsers, in the order ``hexpost --help`` lists them."""
    claim = sub.add_parser(
        "claim",
        help="sign a late claim: the other seat has let its reply window pass",
        description="Once the game's reply window has passed since the other seat came to "
        "owe the move, signs a claim saying so and queues it; `hexpost sync` sends it. Both "
        "logs, `hexpost games` and the app show it; it changes nothing in the game.",
    )
    claim.add_argument("game", metavar="GAME")
    claim.add_argument("--note", metavar="TEXT", help="one line to go with the claim")

    resend = sub.add_parser(
        "resend",
        help="send this home's packets of a game again (the other side got a damaged copy)",
        description="Queues your packets of GAME again, each as a new email or a new file in "
        "the shared folder; `hexpost sync` sends them. Without --from: every packet of yours "
        "after the other side's latest one (they hold all of yours before it).",
    )
    resend.add_argument("game", metavar="GAME")
    resend.add_argument(
        "--from",
        dest="from_seq",
        type=int,
        metavar="SEQ",
        default=None,
        help="the first packet to send (the other side's refusal or `verify` names it)",
    )
    resend.add_argument(
        "--to",
        dest="to_seq",
        type=int,
        metavar="SEQ",
        default=None,
        help="the last packet to send (without it: up to the game's latest)",
    )
    resend.add_argument(
        "--every-seat",
        action="store_true",
        help="with --from: the other player's packets too (their home is behind the game, "
        "restored from an older copy, and lacks some of its own, or lost some from its store)",
    )

    decline = sub.add_parser(
        "decline",
        help="refuse an invitation, or the key that joined your game: the game ends before "
        "it began",
        description="For an invitation you do not want to play: signs a join that declines "
        "it, so the creator hears no with the next sync instead of waiting (one held until "
        "this hexpost can play its ruleset is dropped: its creator cannot be told). For a "
        "game you created, when the key that joined is not the player you invited (their "
        "fingerprint differs): signs a resignation that declines it.",
    )
    decline.add_argument("game", metavar="GAME")
    decline.add_argument("--reason", metavar="TEXT", default="", help="one line for the log")

    resign = sub.add_parser(
        "resign",
        help="concede a game: it ends for both players",
        description="On your move: signs a resignation and queues it; `hexpost sync` sends "
        "it, and the other player's sync shows the game over, with your reason. The game "
        "takes a packet only from the player whose move it is, so off your move it is kept "
        "for your next one, which your sync then signs by itself (--cancel takes it back "
        "until then; a chat message can tell them now). It asks first on a terminal and "
        "otherwise needs --yes.",
    )
    resign.add_argument("game", metavar="GAME")
    resign.add_argument("--reason", metavar="TEXT", default="", help="one line for both logs")
    resign.add_argument(
        "--yes", action="store_true", help="resign without asking (scripts, no terminal)"
    )
    resign.add_argument(
        "--cancel", action="store_true", help="take back a resignation kept for your next move"
    )
