"""What a benchmark declares about itself, as typed data: published references, presets,
battery membership, sweep pairing, plan cost shape, data sources.

This layer sits below ``benchmarks/`` (beside ``records.py``): benchmarks import it to declare,
``evaluation/`` imports it to read; it imports nothing of creval but ``errors`` and ``records``.
"""
