"""A game's pace in words (`tui.services.pace.PaceReport`'s JSON form): what ``hexpost pace``
prints and the app's pace dialog (``w``) shows, in as many columns as it is given.
"""

from __future__ import annotations

import textwrap
from typing import Any

from engine.core.text import counted
from tui.columns import cut, pad
from tui.when import span

WATCH_HINT_AFTER = 15 * 60
"""Seconds: when the hand-offs this home's hexpost answered alone waited this long (their
median) for a sync, the text suggests ``sync --watch`` (pace.md: a machine hand-off costs
seconds with it, a day without)."""

PART_NUMBERS = 31
"""The columns of a part's figures before its label (packets, player, hexpost, took)."""


def pace_text(record: dict[str, Any], width: int = 80) -> str:
    """The hand-offs per seat, per part of play and per step, no line wider than ``width``
    (at least 60): a part's label and a step's line are cut to fit, marked ``~``."""
    human, machine = record["human"], record["machine"]
    lines = [
        f"{record['name']}: {counted(record['packets'], 'packet')}, "
        f"{counted(human + machine, 'hand-off')}",
        f"{human} waited for a player, {machine} only for a hexpost",
        "",
        f"{'SEAT':<16}{'PLAYER':>7}{'MEDIAN':>9}{'TOTAL':>9}{'HEXPOST':>9}{'MEDIAN':>9}",
    ]
    for seat in record["seats"]:
        name = seat["seat"] + (" (you)" if seat["seat"] == record["my_seat"] else "")
        total = span(seat["human_total"]) if seat["human_timed"] else "-"
        lines.append(
            f"{name[:15]:<16}{seat['human']:>7}{span(seat['human_median']):>9}{total:>9}"
            f"{seat['machine']:>9}{span(seat['machine_median']):>9}"
        )
    lines.append("(waits and times by the clocks of the packets' writers)")
    lines += ["", f"{'PACKETS':>7}{'PLAYER':>7}{'HEXPOST':>8}{'TOOK':>8} PART OF PLAY"]
    for part in record["parts"]:
        lines.append(
            _cut(
                f"{part['packets']:>7}{part['human']:>7}{part['machine']:>8}"
                f"{span(part['took']):>8} {part['label']}",
                width,
            )
        )
    if record["steps"]:
        seats = [seat["seat"] for seat in record["seats"]]
        heads = "".join(f"{seat[:12]:>{min(len(seat), 12) + 2}}" for seat in seats)
        lines += [
            "",
            "STEPS WHERE A PLAYER WAS WAITED FOR MOST",
            f"{'STEP':<9}{heads}  {'KIND':<9}TITLE",
        ]
        for step in record["steps"]:
            counts = "".join(
                f"{step['seats'].get(seat, 0):>{min(len(seat), 12) + 2}}" for seat in seats
            )
            kind = step["kind"][:8]
            lines.append(_cut(f"{step['step'][:8]:<9}{counts}  {kind:<9}{step['title']}", width))
        lines.append("")
        for hint in _step_hints(record["steps"], record["my_seat"]):
            lines += textwrap.wrap(hint, width)
    mine = [seat for seat in record["seats"] if seat["seat"] == record["my_seat"]]
    if mine and (mine[0]["machine_median"] or 0) >= WATCH_HINT_AFTER:
        lines += [
            f"Your hexpost's own answers waited a median of {span(mine[0]['machine_median'])} "
            "for a sync:",
            "`hexpost sync --watch` on an always-on machine sends them in seconds.",
        ]
    return "\n".join(lines)


def overview_text(records: list[dict[str, Any]]) -> str:
    """Every game's pace in one line each (`tui.services.pace.GamePace`'s JSON form), within
    80 columns, with what the columns mean under them."""
    if not records:
        return "no games in this home"
    lines = [
        f"{'GAME':<10}{'NAME':<16}{'PACKETS':>7}{'PLAYER':>7}{'HEXPOST':>8}{'PER PART':>9}"
        f"{'YOU':>8}{'THEM':>8}"
    ]
    for game in records:
        lines.append(
            f"{game['game'][:8]:<10}{pad(cut(game['name'], 15), 16)}{game['packets']:>7}"
            f"{game['human']:>7}{game['machine']:>8}{_per_part(game):>9}"
            f"{span(game['my_median']):>8}{span(game['their_median']):>8}"
        )
    lines += [
        "",
        "PLAYER, HEXPOST: hand-offs that waited for a player, and for a hexpost alone.",
        "PER PART: the player hand-offs per part of play (a player turn, a round).",
        "YOU, THEM: the median wait for your answers and for the slowest other player's",
        "(by the clocks of the packets' writers). `hexpost pace GAME` says where it went.",
    ]
    return "\n".join(lines)


def _per_part(game: dict[str, Any]) -> str:
    """The player hand-offs per part of play to a tenth, in whole-number arithmetic."""
    if not game["parts"]:
        return "-"
    tenths = (game["human"] * 10 + game["parts"] // 2) // game["parts"]
    return f"{tenths // 10}.{tenths % 10}"


def _step_hints(steps: list[dict[str, Any]], me: str) -> list[str]:
    """What would have saved this home's player the waits at ``steps``: the standing order
    ``manual`` for bookkeeping, a standing order or a policy for the decisions taken in the
    other seat's turn, a policy for secret choices (a standing order never makes one), or
    nothing more where the standing order or policy signed since answers the step already.
    Waits only at the player's own moves (joining, their own turn's decisions) are said to be
    theirs; the general advice is left for steps whose kind is not known."""
    mine = [step for step in steps if step["seats"].get(me)]
    covered = [step["step"] for step in mine if me in step["standing"]]
    answered = [s["step"] for s in mine if me in s["policy"] and s["step"] not in covered]
    open_ = [s for s in mine if s["step"] not in covered and s["step"] not in answered]
    manual = [s["step"] for s in open_ if s["kind"] == "manual"]
    decisions = [  # the phasing seat's own decisions (builds, movement) are its turn itself
        s for s in open_ if s["kind"] == "decision" and s["actor"] != "phasing"
    ]
    secret = [s for s in open_ if s["kind"] == "secret"]
    own = [  # joining, and the phasing seat's own decisions: the player's to make
        s
        for s in open_
        if s["kind"] == "join" or (s["kind"] == "decision" and s["actor"] == "phasing")
    ]
    hints = []
    if manual:
        hints.append(
            f"You were waited for at bookkeeping the engine does not play ({', '.join(manual)}): "
            "the standing order `manual` does it for you (in the app: O, then Enter)."
        )
    if decisions:
        named = _signing(decisions)
        hints.append(
            f"Where you always answer the same ({_ids(decisions)}), a standing order naming the "
            "step answers for you at once" + (f", or a signed policy: {named}." if named else ".")
        )
    if secret:
        named = _signing(secret)
        hints.append(
            f"Secret choices ({_ids(secret)}): no standing order makes them, "
            + (
                f"but a policy signed in advance does: {named}."
                if named
                else "and no policy of these rules does: each is yours to make."
            )
        )
    if covered:
        hints.append(f"Your standing order covers {', '.join(covered)} now: those waits are past.")
    if answered:
        hints.append(f"Your policy answers {', '.join(answered)} now: those waits are past.")
    if not hints and own and len(own) == len(open_):
        hints.append(
            f"You were waited for at moves of your own ({_ids(own)}): joining and your own "
            "turn's decisions are yours to make, and nothing signed in advance makes them."
        )
    if not hints:
        hints.append("A standing order or policy signed in advance answers such steps at once.")
    return hints


def _ids(steps: list[dict[str, Any]]) -> str:
    return ", ".join(step["step"] for step in steps)


def _signing(steps: list[dict[str, Any]]) -> str:
    """The orders that sign a policy able to answer ``steps``, each with its steps (`policy`,
    the one key the app gives its own: P)."""
    by_order: dict[str, list[str]] = {}
    for step in steps:
        if step["policy_order"]:
            by_order.setdefault(step["policy_order"], []).append(step["step"])
    return "; ".join(
        f"`{order}` for {', '.join(ids)}" + (" (P in the app)" if order == "policy" else "")
        for order, ids in by_order.items()
    )


def _cut(line: str, width: int) -> str:
    line = line.rstrip()
    return line if len(line) <= width else line[: width - 1] + "~"
