"""creval inside Inspect AI (the ``inspect`` extra: ``pip install 'creval[inspect]'``).

* Tasks ``creval/dat``, ``creval/sat``, ``creval/jcq``, ``creval/ttct`` and
  ``creval/neocoder`` (state 0), registered through the ``inspect_ai`` entry point::

      inspect eval creval/dat --model openai/gpt-4o-mini -T trials=30
      inspect eval creval/ttct --model openai/gpt-4o-mini --model-role grader=openai/gpt-4o

* creval's model backends in Inspect: ``--model creval/local`` (the packaged offline
  model), ``creval/hf:NAME``, ``creval/replay:RUN_DIR``.
* The other way round, Inspect's providers in creval: ``creval run dat --model
  inspect:openai/gpt-4o-mini`` (:mod:`creval.models.inspect_backend`).
"""

from creval.models.inspect_backend import require_inspect

require_inspect()

from creval.integrations.inspect.tasks import dat, jcq, neocoder, sat, ttct  # noqa: E402

__all__ = ["dat", "jcq", "neocoder", "sat", "ttct"]
