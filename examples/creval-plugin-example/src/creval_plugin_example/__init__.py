"""An example creval plug-in: the ``aut-lite`` benchmark (Alternative Uses, lite).

Installed, it is found through the ``creval.benchmarks`` entry point in pyproject.toml::

    creval list                       # shows aut-lite
    creval run aut-lite --model local --limit 1 --out runs/aut
"""

from creval_plugin_example.benchmark import AlternativeUses, AUTOptions
from creval_plugin_example.scoring import originality, parse_uses

__all__ = ["AUTOptions", "AlternativeUses", "originality", "parse_uses"]
