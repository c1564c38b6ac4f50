"""What arrived in a game, in lines of words: under ``hexpost sync`` and when the app opens a game.

`saves.news` gathers the news (`engine.core.news` summarizes it); this module only lays it
out, the same for both faces::

    wind: 14 packets from Bob (alliance)
      KZI built FF at 1401 (2.5 EP)
      KZI moved 5 units 1003->0904
      more: 2 move; 12 routine steps
      waits for you: 3B3 Reaction movement

The lines carry the other player's words (names, chat, fleet names) as they came: a face
escapes them (`tui.safe_text`) when it shows them. Their number is bounded whatever arrived:
`engine.core.news` keeps a few lines per seat and counts the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core.text import counted

if TYPE_CHECKING:
    from saves.news import GameNews


def _who(item: GameNews, seat: str) -> str:
    if seat == item.my_seat:
        return "you"
    name = item.names.get(seat, seat)
    return name if name == seat else f"{name} ({seat})"


def news_lines(item: GameNews, *, waits: bool = True) -> list[str]:
    """``item`` as a heading per seat that sent packets, its lines indented under it, and
    (``waits``) what the game waits for now as the last line."""
    from engine.core.news import left_off
    from saves.news import waits_words

    lines: list[str] = []
    for news in item.news.seats:
        sent = counted(news.packets, "packet")
        lines.append(f"{item.name}: {sent} from {_who(item, news.seat)}")
        lines += [f"  {line}" for line in news.lines]
        if not news.lines and news.done_at:  # (a packet of dones: where it ended steps)
            lines.append(f"  done at {', '.join(news.done_at)}")
        tail = left_off(news)
        if tail:
            lines.append(f"  {tail}")
    if waits:
        owed = waits_words(item.waits)
        lines.append(f"  {owed}" if lines else f"{item.name}: {owed}")
    return lines


MOVES = ("orders", "secret")
"""What a player decides (`engine.core.ruleset.DecisionKind`'s values, as `saves.news.Waits`
keeps them): said as a seat's move. A
join, a reveal or dice are said as the games list says them: a reply the protocol asks for,
most of them sent by the player's client by itself."""


def news_line(item: GameNews) -> str:
    """``item`` in one line, for the game's own status line when it has no room for
    `news_lines`: whose move it is, at which step (its title is in the side panel), then
    per seat its player's name, the line its news leads with (`SeatNews.lead`) and how many
    more the log (``e``) has;
    no game name (the screen's title has it):
    ``your move: 5-2A3; Bob: Battle hexes: 1107 (+4 more: e)``. What a narrow line cuts
    is the end, the least needed."""
    from engine.core.news import left_off
    from saves.news import waits_words

    parts = []
    listed = [news for news in item.news.seats if news.lines]
    for news in listed or item.news.seats:  # (a seat of routine steps only, when one has more)
        said = [*news.lines, left_off(news)]
        who = "you" if news.seat == item.my_seat else item.names.get(news.seat, news.seat)
        if news.lines:
            more = len(news.lines) - 1 + (1 if said[-1] else 0)
            first = news.lead or news.lines[-1]
            parts.append(f"{who}: {first}" + (f" (+{more} more: e)" if more else ""))
        else:  # routine steps alone (say which it ended with its own done), or nothing
            sent = f"done at {', '.join(news.done_at)}" if news.done_at else None
            sent = sent or counted(news.packets, "packet")
            parts.append(f"{who}: {sent} ({said[-1]})" if said[-1] else f"{who}: {sent}")
    owed = item.waits
    if owed is not None and owed.step and owed.kind in MOVES:  # (its title: the side panel)
        whose = "your" if owed.mine else f"{owed.who}'s"
        wait = f"{whose} move: {owed.step}"
    else:
        wait = waits_words(owed)
    return "; ".join([wait, *parts])
