"""What ``aut-lite`` declares about published numbers: one reference, to show how a plug-in
gets the powers of a built-in benchmark (``creval references`` lists it, ``creval references
check`` and ``creval profile`` place a run beside it, saying every way the run measured
differently).

The value is an **illustration, not a published result**: the fluency of a model that lists
exactly the uses asked for, 5 per object, under this package's defaults. A real plug-in
transcribes its paper's table here, with the protocol the paper measured under (every option
that changes the number) and the licence under which the numbers may be copied; numbers of
unclear or copyleft licence are read at run time from the user's copy instead
(:meth:`creval.benchmarks.base.Benchmark.read_published_items`).
"""

from __future__ import annotations

from creval.records.references import PaperReferences, Protocol, Reference

PROTOCOL = Protocol(
    id="aut-lite-example", benchmark="aut-lite", data="none", items=5, judge=None,
    description="aut-lite's starter list (5 objects), 5 uses asked per object at temperature "
    "1 and 160 tokens, originality by minilm: an illustration of a plug-in's reference, not a "
    "published result.",
    # every option that changes the number (creval compares each one; limit and seed aside)
    options={"uses": 5, "objects": None, "max_tokens": 160, "temperature": 1.0,
             "embedder": "minilm"},
)

REFERENCES = PaperReferences(
    file="aut-lite-example", paper="creval-plugin-example's illustrative reference (not a "
    "published result)", seed="-", family="aut-lite",
    transcription="Written for the example: the fluency of a model that lists exactly the "
    "uses asked for.",
    protocols={PROTOCOL.id: PROTOCOL},
    values=(Reference(paper="creval-plugin-example's illustrative reference (not a published "
                      "result)", seed="-", subject="a model listing exactly the uses asked",
                      kind="model", benchmark="aut-lite", measure="fluency_mean", value=5.0,
                      protocol=PROTOCOL.id, source="this package's README (an illustration)"),),
    licence="written for this example",
)
