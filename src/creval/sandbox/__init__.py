"""Run untrusted, model-written Python in separate, limited and (where possible) isolated processes.

>>> from creval.sandbox import Limits, run
>>> run("print(sum(map(int, input().split())))", stdin="2 3", limits=Limits(wall_seconds=5)).stdout
'5\\n'
"""

from __future__ import annotations

from creval.sandbox.isolation import describe_isolation, run, run_many
from creval.sandbox.types import Execution, Isolation, Job, Limits, Verdict

__all__ = ["Execution", "Isolation", "Job", "Limits", "Verdict", "describe_isolation", "run",
           "run_many"]
