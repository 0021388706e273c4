"""Template scores of the analysis, mined from both sets or from reference texts."""

from __future__ import annotations

from collections import Counter

import pytest

pytest.importorskip("spacy", reason="needs the 'pos' extra")

from creval.benchmarks.metric_validity.data import LabelledText  # noqa: E402
from creval.benchmarks.metric_validity.scoring import template_scores  # noqa: E402
from creval.metrics.templates import mine_templates, templates_per_token  # noqa: E402
from creval.pos import get_tagger, tags_only  # noqa: E402

ITEMS = [
    LabelledText(id="c1", text="She runs fast. The old man walked home slowly.", label=1),
    LabelledText(id="c2", text="Green apples fell from the tree at dawn.", label=1),
    LabelledText(id="u1", text="He runs fast. She runs fast too.", label=0),
    LabelledText(id="u2", text="", label=0),
]
REFERENCE = ["I like green apples.", "We like red apples.", "They like ripe pears."]


@pytest.mark.parametrize("reference", [None, REFERENCE])
def test_templates_from_both_sets_or_a_reference(reference: list[str] | None) -> None:
    per_text: dict[str, dict[str, float]] = {}
    excluded: Counter[str] = Counter()
    out = template_scores(ITEMS, "spacy", n=2, top_k=2, per_text=per_text, excluded=excluded,
                          reference=reference)
    tagger = get_tagger("spacy")
    texts = [i.text for i in ITEMS[:3]]
    tags = [tags_only(t) for t in tagger.tag(texts)]
    source = tags if reference is None else [tags_only(t) for t in tagger.tag(reference)]
    templates = mine_templates(source, n=2, top_k=2)
    assert out["templates"] == [" ".join(t) for t in templates]
    expected = templates_per_token(tags, templates)
    assert [per_text[i.id]["tpt"] for i in ITEMS[:3]] == pytest.approx(expected)
    assert excluded == Counter({"templates: no tokens": 1})  # the empty text
