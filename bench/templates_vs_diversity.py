"""Syntactic templates: creval against the ``diversity`` package (0.3.1) on the same texts.

Both sides get the same spaCy tags and sentences (diversity would split sentences with
nltk's punkt, whose data cannot be installed offline, so its ``extract_patterns`` step is
replayed here with its own ``token_patterns`` and ``pos_patterns`` on our sentences). Then:

- mined templates: creval ranks POS n-grams by count, ties by tag text; diversity sorts by
  count only, so ties keep first-appearance order (a different top-k at the cut);
- template rate: creval looks for the POS n-gram in each text's tag sequence; diversity
  looks for the *word strings* that realised the template anywhere in the mined texts,
  as raw substrings of each text (a string can match inside a longer word, and with
  templates mined from a reference set a text whose tags match but whose words differ
  is missed);
- templates per token: creval divides by tagged tokens; diversity by whitespace words and
  counts substring occurrences;
- CR-POS: creval gzips once; diversity's ``compression_ratio`` gzips twice.

Every difference is counted and printed. Measured on 100 staged MacGyver solutions
(n = 5, top 100): 5 templates differ at the top-100 cut (ties); template rate 0.99 on both
sides; mean TPT 0.2529 (creval) against 0.2285 (diversity), different for 98 texts: every
text has more tagged tokens than whitespace words (punctuation is a token), and
diversity's substring search made 235 matches that start or end inside a word. The diversity wheel is fetched with
``pip download --no-deps diversity==0.3.1`` (or pass ``--wheel``) and only its
``patterns`` and ``template`` modules are loaded (its package ``__init__`` pulls in
``evaluate``, ``rouge_score`` and an OpenAI client that are not needed here).
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import subprocess
import sys
import tempfile
import types
import zipfile
from pathlib import Path

from creval.benchmarks.metric_validity.data import balanced_sample, load_domain
from creval.metrics.templates import mine_templates, template_counts, templates_per_token
from creval.pos import get_tagger

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "creative_eval"


def load_diversity(wheel: str | None) -> tuple[types.ModuleType, types.ModuleType]:
    work = Path(tempfile.mkdtemp(prefix="diversity-"))
    if wheel is None:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q",
                        "diversity==0.3.1", "-d", str(work)], check=True)
        wheel = str(next(work.glob("diversity-0.3.1-*.whl")))
    with zipfile.ZipFile(wheel) as z:
        z.extractall(work / "src")
    package = types.ModuleType("diversity")
    package.__path__ = [str(work / "src" / "diversity")]
    sys.modules["diversity"] = package  # skip diversity/__init__.py
    return (importlib.import_module("diversity.patterns.Token"),
            importlib.import_module("diversity.template"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-class", type=int, default=50)
    parser.add_argument("--n", type=int, default=5)
    parser.add_argument("--top-k", type=int, default=100)
    parser.add_argument("--wheel", default=None)
    args = parser.parse_args()
    token_mod, template_mod = load_diversity(args.wheel)
    source = SHARED / "problem_solving" / "macgyver_solvable_labeled.jsonl"
    items = balanced_sample(load_domain("problem-solving", str(source) if source.is_file() else None),
                            per_class=args.per_class, seed=0)
    texts = [i.text for i in items]
    tagged = get_tagger("spacy").tag(texts)
    tags = [[[t for _, t in s] for s in doc] for doc in tagged]

    ours = mine_templates(tags, n=args.n, top_k=args.top_k)
    sentences_pos = [" ".join(t for _, t in s) for doc in tagged for s in doc]
    theirs = [tuple(p.split(" ")) for p, _ in token_mod.token_patterns(sentences_pos, args.n, args.top_k)]
    # diversity's pos_patterns: the word strings realising each template, from all sentences
    tuples = [s for doc in tagged for s in doc]
    realised = {" ".join(t): set() for t in theirs}
    for sentence in tuples:
        words, pos = [w for w, _ in sentence], [t for _, t in sentence]
        for i in range(len(pos) - args.n + 1):
            key = " ".join(pos[i:i + args.n])
            if key in realised:
                realised[key].add(" ".join(words[i:i + args.n]))

    our_counts = template_counts(tags, ours)
    our_rate = sum(c > 0 for c in our_counts) / len(texts)
    our_tpt = templates_per_token(tags, ours)
    their_rate = template_mod.template_rate(texts, templates=realised)
    their_tpt = template_mod.templates_per_token(texts, templates=realised)
    inside_word = 0
    for text in texts:
        for strings in realised.values():
            for s in strings:
                for m in re.finditer(re.escape(s), text):
                    before = text[m.start() - 1] if m.start() else " "
                    after = text[m.end()] if m.end() < len(text) else " "
                    inside_word += before.isalnum() or after.isalnum()
    print(json.dumps({
        "texts": len(texts), "n": args.n, "top_k": args.top_k,
        "templates_only_in_creval": len(set(ours) - set(theirs)),
        "templates_only_in_diversity": len(set(theirs) - set(ours)),
        "template_rate": {"creval": round(our_rate, 4), "diversity": round(their_rate, 4)},
        "mean_tpt": {"creval": round(sum(our_tpt) / len(our_tpt), 4),
                     "diversity": round(sum(their_tpt) / len(their_tpt), 4)},
        "substring_matches_inside_a_word_in_diversity": inside_word,
        "texts_whose_tpt_differs": sum(abs(a - b) > 1e-12 for a, b in zip(our_tpt, their_tpt, strict=True)),
        "tokens_vs_whitespace_words": sum(sum(map(len, t)) != len(x.split()) for t, x in zip(tags, texts, strict=True)),
    }, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
