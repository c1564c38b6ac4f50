"""The ruleset-independent game protocol: packets, chain, entropy, and the game driver."""
