"""The people-facing layer: the `hexpost` command line now, the Textual app next."""
