"""Bridges to other evaluation frameworks; each is an optional extra and the top layer.

* :mod:`creval.integrations.inspect`: creval benchmarks as Inspect AI tasks and scorers,
  and creval's model backends as an Inspect model API (``pip install 'creval[inspect]'``).

Nothing below this package imports it.
"""
