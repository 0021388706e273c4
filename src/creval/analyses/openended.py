"""The analyses of seed 001 (step-wise semantic entropy, multi-agent judge): the Python API.

Over scored ``macgyver`` / ``hypogen`` / ``bookmia`` runs:

* :func:`naive_entropy_frame` (Table 15), :func:`diversity_frame` (Tables 9-11),
  :func:`convergent_frame` (Figure 6, Table 21), :func:`temperature_frame` (Figure 4a-c);

over label files (formats in :mod:`creval.analyses.openended_labels`):

* :func:`entailment_frame` (Table 6 with a threshold sweep), :func:`judge_accuracy_frame`
  (Table 2, Figure 8).

Each has an ``*_analysis`` companion returning an :class:`~creval.analyses.base.AnalysisResult`
for ``creval analyze`` and the reports.
"""

from __future__ import annotations

from creval.analyses.openended_entropy import (
    convergent_analysis,
    convergent_frame,
    diversity_analysis,
    diversity_frame,
    naive_entropy_analysis,
    naive_entropy_frame,
    read_novelty,
    solution_entropies,
    temperature_analysis,
    temperature_frame,
)
from creval.analyses.openended_labels import (
    entailment_analysis,
    entailment_frame,
    judge_accuracy_analysis,
    judge_accuracy_frame,
    read_entailment_labels,
    read_judge_labels,
)
from creval.analyses.openended_runs import steps_frame

__all__ = [
    "convergent_analysis",
    "convergent_frame",
    "diversity_analysis",
    "diversity_frame",
    "entailment_analysis",
    "entailment_frame",
    "judge_accuracy_analysis",
    "judge_accuracy_frame",
    "naive_entropy_analysis",
    "naive_entropy_frame",
    "read_entailment_labels",
    "read_judge_labels",
    "read_novelty",
    "solution_entropies",
    "steps_frame",
    "temperature_analysis",
    "temperature_frame",
]
