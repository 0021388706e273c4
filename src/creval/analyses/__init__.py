"""The seed papers' analyses, recomputed from run directories (and label files where the
paper used human labels): ``creval analyze NAME RUN...`` on the command line, a function
returning a pandas frame in Python.

Every analysis is saved into a run directory as ``analyses/NAME.json`` (the typed
:class:`creval.records.Analysis`: tables, plot specs, notes, inputs, options) with its main
table as ``analyses/NAME.csv``; the run's Markdown and HTML reports show it. See
:mod:`creval.analyses.base`.
"""
