"""How packets travel between players: a shared folder now, SMTP/IMAP later.

A transport only moves opaque signed bytes. It never judges them: the engine checks
signatures and the chain, and the store remembers what was already read.
"""
