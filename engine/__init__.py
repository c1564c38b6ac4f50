"""The pure rules layer of hexpost: packets, the hash chain, dice, and the rulesets.

Nothing in this package performs I/O, reads the clock or uses global randomness, so every
machine that applies the same packets computes the same state bytes.
"""
