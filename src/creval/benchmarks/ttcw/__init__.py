"""TTCW (Chakrabarty et al., CHI 2024): ``ttcw-judges`` validates a writing judge against the
experts' verdicts; ``ttcw`` has a model write stories that a judge then tests."""

from creval.benchmarks.ttcw import judges, writing  # noqa: F401  (registers)
