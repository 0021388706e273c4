"""Open-ended benchmarks of seed 001: MacGyver, HypoGen and BookMIA."""

from creval.benchmarks.openended import benchmark, judge_agreement  # noqa: F401  (register)
