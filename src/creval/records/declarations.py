"""What a benchmark declares about itself, as typed data: published references, presets,
battery membership, sweep pairing, plan cost shape, data sources.

The benchmark fills these values in its own package; ``evaluation/``, ``report/`` and ``cli/``
read them through the benchmark's hooks and never name a benchmark. Like the run contract
beside it, this module imports nothing of creval but ``errors`` (a bottom layer), so a
benchmark declares without importing the layers that read the declarations.
"""

from __future__ import annotations
