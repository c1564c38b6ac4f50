"""What another process changed in this home since the app last looked.

A player's home is often used by more than the app: ``hexpost sync --watch`` as a service
applies the opponent's packets and signs the automatic replies, and a shell runs ``hexpost
orders`` or ``hexpost chat``. Each writes through its own connection, so the app would show a
game as it was until the player pressed ``r``, while its checks of the drafts and its sends
already read the new head: orders signed against a state the screen did not show. The app
asks `HomeWatch.changes` every couple of seconds instead.

SQLite says whether another connection committed anything (`saves.store.Store.data_version`),
which costs next to nothing when nothing did: only then are the games' rows and chat counts
read and compared with the last ones seen, to tell which games changed. The app's own
commits do not move that version, so they never count as another's change; so that they are
not taken for one later either, the rows are read again after them (told by the connection's
own count of changes, `saves.store.Store.own_changes`), before the next comparison. A commit
that changed no game's row or messages (another window marking a game read that was read
already, a backup's bookkeeping) names no game.
"""

from __future__ import annotations

from collections.abc import Mapping

from saves import store_chat, store_games
from saves.store import Store
from saves.store_games import GameRow

Marks = Mapping[bytes, tuple[GameRow, int]]
"""Each game's row and how many chat messages it keeps."""


def _marks(store: Store) -> dict[bytes, tuple[GameRow, int]]:
    chats = store_chat.counts(store)
    return {row.game_id: (row, chats.get(row.game_id, 0)) for row in store_games.games(store)}


class HomeWatch:
    """Asked on the store thread only (`tui.screens.session`), like the store itself."""

    def __init__(self) -> None:
        self._version: int | None = None
        self._own = -1
        self._marks: Marks = {}

    def changes(self, store: Store) -> frozenset[str] | None:
        """The hex ids of the games another connection changed since the last call (an empty
        set: it committed something that is no game's), or None when it committed nothing.
        The first call only takes note of where the home stands."""
        version, own = store.data_version(), store.own_changes()
        if version == self._version:
            if own != self._own:  # this connection wrote: what it wrote is no news
                self._own, self._marks = own, _marks(store)
            return None
        first = self._version is None
        self._version, self._own = version, own
        before, self._marks = self._marks, _marks(store)
        if first:
            return None
        return frozenset(
            game_id.hex()
            for game_id in self._marks.keys() | before.keys()
            if self._marks.get(game_id) != before.get(game_id)
        )
