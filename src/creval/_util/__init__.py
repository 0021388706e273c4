"""Private helpers shared across layers: where caches live, redaction of secrets, fingerprints
of model directories, quiet third-party imports, prompt templates and plug-in entry points.

Nothing here imports any other part of creval but :mod:`creval.errors`; it is not public API.
"""
