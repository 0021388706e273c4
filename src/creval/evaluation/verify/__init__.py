"""Re-deriving a run from its own records (``creval verify``)."""
