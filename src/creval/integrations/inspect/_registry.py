"""What Inspect AI loads through creval's ``inspect_ai`` entry point (``pyproject.toml``).

Importing this module registers the tasks ``creval/dat``, ``creval/sat``, ``creval/jcq``,
``creval/ttct`` and ``creval/neocoder`` and the model API ``creval`` (``--model creval/local``).
"""

from creval.integrations.inspect.modelapi import creval_model_api
from creval.integrations.inspect.tasks import dat, jcq, neocoder, sat, ttct

__all__ = ["creval_model_api", "dat", "jcq", "neocoder", "sat", "ttct"]
