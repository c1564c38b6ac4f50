"""Phase 5 combat (302.0): pure rules, no sequence-of-play state."""
