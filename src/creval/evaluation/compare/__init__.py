"""A run against published values and other runs: evidence, conditions, comparability, tests."""
