"""The screens of the hexpost app: the games list and one game.

Screens are where the app talks to the home: each reads through the app's `Session`
(`tui.screens.session`) in workers, and hands plain records to the widgets
(`tui.widgets`), which never reach the store themselves.
"""
