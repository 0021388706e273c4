"""Pairwise ratings of several runs' models on their common items (``creval rank``)."""
