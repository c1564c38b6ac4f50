"""What hexpost keeps on the player's disk: games, outboxes and identity keys.

This layer may use the engine to check what it stores, but never the terminal interface, so
the same files serve the command line, the full-screen client and the tests.
"""
