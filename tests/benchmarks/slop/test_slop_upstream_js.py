"""creval's slop metrics against upstream's own JavaScript, run by Node on the same texts:
released outputs of three models, hand-made edge cases, and random strings built from the
characters where JavaScript and Python differ (UTF-16 lengths, whitespace, line terminators,
curly quotes, dashes)."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from creval.benchmarks.slop.data import read_released, slop_lists
from creval.metrics.slop import (
    METRICS,
    alpha_tokens,
    lexical_diversity,
    not_x_but_y_matches,
    slop_metrics,
    words_only_lower,
)

HARNESS = Path(__file__).with_name("upstream_metrics.mjs")
MODELS = ("gemma-3-4b-it", "claude-sonnet-4-5", "kimi-k2")

EDGE = [
    "", "   ", "...", "It wasn't fear, but a quiet resolve.",
    "The tapestry\u00a0of night \U0001F600 \u201cunfurled\u201d\u2014not slowly, but all at once.",
    "It is not a bug.\u2028It is a feature.", "It is not a bug.\u00a0It is a feature.",
    "They didn't WALK. They Walked on air.", "\ufeffNo. \x1c\n\n\u3000\n\nYes",
    "'Twas the night\u2019s end; it wasn\u2019t over \u2013 it was beginning.",
    "O'Neil's dog's bone isn't there... 'quoted' ``x'' \u2018y\u2019 don''t",
]
PALETTE = (list("abcdeiklnorstuwy ABIT.,;:!?-'\"*_~\n") + [
    " not ", " but ", " just ", " it ", " was ", " is ", "n't", " They ", " It ", "no longer",
    "\u00a0", "\u2028", "\u2029", "\r", "\u2014", "\u2013", "\u201c", "\u201d", "\u2018", "\u2019",
    "\U0001F600", "\ufeff", "\x1c", "\u0130", "\u212a", "\u00e9", "\u2033", "\u00ab", "`",
    " tapestry ", " testament ", " voice barely whisper ", " took deep breath "])


def _fuzz(n: int) -> list[str]:
    rng = random.Random(20251202)
    return ["".join(rng.choice(PALETTE) for _ in range(rng.randrange(1, 120))) for _ in range(n)]


def _upstream(root: Path, texts: list[str]) -> list[dict]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node not found: upstream's JavaScript cannot run here")
    done = subprocess.run([node, str(HARNESS), str(root)], input=json.dumps(texts),
                          capture_output=True, text=True, timeout=600, check=True)
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def texts(slop_data: Path) -> list[str]:
    released = []
    for model in MODELS:
        path = slop_data / "results" / f"{model}.json.gz"
        if path.is_file():
            released += [str(s.get("output") or "") for s in read_released(path)[1][::25]]
    return EDGE + _fuzz(300) + released


def test_every_metric_matches_upstream_javascript(slop_data: Path, texts: list[str]) -> None:
    words, trigrams = slop_lists(slop_data)
    theirs = _upstream(slop_data, texts)
    assert len(theirs) == len(texts)
    mismatches = []
    for text, want in zip(texts, theirs, strict=True):
        toks = alpha_tokens(words_only_lower(text))
        assert toks == want["tokens"], text
        ours = slop_metrics(text, words=words, trigrams=trigrams)
        if not toks:
            assert ours is None
            continue
        assert ours is not None
        for name in METRICS:
            if ours[name] != pytest.approx(want[name], rel=1e-12, abs=1e-12):
                mismatches.append((name, ours[name], want[name], text[:80]))
        patterns = [f"S1_{m['pattern']}" for m in not_x_but_y_matches(text)]
        if patterns != want["not_x_but_y_patterns"]:
            mismatches.append(("patterns", patterns, want["not_x_but_y_patterns"], text[:80]))
    assert not mismatches, mismatches[:5]


def test_mattr_matches_upstream_on_a_long_text(slop_data: Path) -> None:
    path = slop_data / "results" / "gemma-3-4b-it.json.gz"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    text = "\n\n".join(str(s.get("output") or "") for s in read_released(path)[1][:12])
    (want,) = _upstream(slop_data, [text])
    toks = alpha_tokens(words_only_lower(text))
    assert len(toks) > 5000
    assert lexical_diversity(toks) == pytest.approx((want["mattr_500"], want["type_token_ratio"]), rel=1e-12)


def test_stopwords_are_upstreams(slop_data: Path) -> None:
    import re

    from creval.metrics.slop import STOPWORDS

    source = (slop_data / "js" / "metrics.js").read_text(encoding="utf-8")
    block = source[source.index("const STOPWORDS"):source.index("]);", source.index("const STOPWORDS"))]
    assert set(re.findall(r'"([a-z]+)"', block)) == STOPWORDS
