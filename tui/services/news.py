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

if TYPE_CHECKING:
    from saves.news import GameNews


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


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
        sent = _plural(news.packets, "packet")
        lines.append(f"{item.name}: {sent} from {_who(item, news.seat)}")
        lines += [f"  {line}" for line in news.lines]
        tail = left_off(news)
        if tail:
            lines.append(f"  {tail}")
    if waits:
        owed = waits_words(item.waits)
        lines.append(f"  {owed}" if lines else f"{item.name}: {owed}")
    return lines
