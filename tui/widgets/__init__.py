"""Textual widgets of the hexpost client.

Widgets receive plain data (attributes and ``show_*`` methods down) and post messages
(intent up); none of them calls the engine, the store or the network, so each can be built
and tested with hand-made data and the app stays the one place that talks to the game.
"""
