"""The hexpost Textual app: a home's games, one game at a time, in a terminal.

The app itself only wires things: it owns the `Session` (the home on its store thread, see
`tui.screens.session`), starts on the games list, opens a game named on the command line,
and closes the store on the way out. The screens do the talking to the home and the widgets
only show data. Every binding a screen shows in its footer is also in the command palette
(ctrl+p), so a player who forgot a key can search for what they want to do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial

from textual.app import App, SystemCommand
from textual.screen import Screen

from mail.transport import Transport
from saves.home import Home
from tui.screens.games import GamesScreen
from tui.screens.session import Session


class HexpostApp(App[None]):
    """Play the games of ``home``; ``game`` (a name or id prefix) opens that game at once.

    ``passphrase`` unlocks an encrypted identity so a sync can sign automatic replies;
    ``transport`` replaces the configured transport (tests use a loopback one).
    """

    CSS_PATH = "app.tcss"
    TITLE = "hexpost"

    def __init__(
        self,
        home: Home,
        game: str | None = None,
        *,
        passphrase: bytes | None = None,
        transport: Callable[[Home], Transport] | None = None,
    ) -> None:
        super().__init__()
        self.session = Session(home, passphrase=passphrase, transport=transport)
        self._game = game

    def get_default_screen(self) -> Screen[None]:
        # The games list is the bottom of the stack: escape from a game always lands there.
        return GamesScreen(open_game=self._game)

    def on_unmount(self) -> None:
        self.session.close()

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """Textual's own commands, then every key the footer offers now, by its description
        (only the ones `check_action` allows at this moment; a widget's hidden navigation
        keys, such as a table's cursor moves, would only bury them)."""
        yield from super().get_system_commands(screen)
        seen: set[str] = set()
        for active in screen.active_bindings.values():
            binding = active.binding
            if not (active.enabled and binding.show and binding.description):
                continue
            if binding.action in seen:
                continue
            if binding.action in ("quit", "app.quit", "command_palette"):
                continue
            seen.add(binding.action)
            key = binding.key_display or binding.key
            help_text = f"{binding.tooltip} (key {key})" if binding.tooltip else f"key {key}"
            run = partial(self.run_action, binding.action, active.node)
            yield SystemCommand(binding.description, help_text, run)
