"""NeoCoder (seed 000): Denial Prompting, sandboxed judging, technique detection, NeoGauge."""

from creval.benchmarks.neocoder import benchmark  # noqa: F401  (registers `neocoder`)
