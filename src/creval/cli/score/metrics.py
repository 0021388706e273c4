"""``creval score ci|templates|ppl|judge|sns TEXTS.jsonl``: one seed-002 metric over any texts.

Input: JSONL, one object per line with a text field (``--text-field``, default ``text``)
and an optional ``id`` (default: the line number). Output: one JSON line per text with its
``id`` and the metric's values, or ``excluded`` with the reason, to ``--out`` or stdout; a
summary line goes to stderr.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from creval.cli._common import (
    CacheFile,
    NoCache,
    Out,
    TextField,
    TextsFile,
    read_texts,
    write_rows,
)
from creval.errors import CrevalError


def score_ci(
    file: TextsFile,
    index: Annotated[str | None, typer.Option(help="Local index folder (creval index build), or api:NAME for the infini-gram API; default: the small starter index.")] = None,
    min_l: Annotated[int, typer.Option(help="Smallest L of the range.")] = 5,
    max_l: Annotated[int, typer.Option(help="Largest L of the range.")] = 7,
    near_verbatim: Annotated[float | None, typer.Option(help="Also count near-verbatim matches: spans at least this cosine-similar to a corpus span of the same length (e.g. 0.9; local indexes).")] = None,
    near_embedder: Annotated[str, typer.Option(help="Embedder of the near-verbatim spans.")] = "minilm",
    text_field: TextField = "text",
    out: Out = None,
) -> None:
    """Creativity Index: L-uniqueness for every L (keyed by L) and its mean and sum."""
    from creval.index.remote import open_index
    from creval.index.scoring import score_text

    if not 1 <= min_l <= max_l:
        raise CrevalError("--min-l and --max-l need 1 <= min-l <= max-l.")
    texts = read_texts(file, text_field)
    ix = open_index(index, min_length=min_l)
    near = None
    if near_verbatim is not None:
        from creval.embed import get_embedder
        from creval.index.near import NearVerbatim

        near = NearVerbatim(ix, get_embedder(near_embedder), threshold=near_verbatim)
    rows: list[dict[str, Any]] = []
    for text_id, text in texts:
        outcome = score_text(ix, text, min_l=min_l, max_l=max_l, near=near)
        if outcome.result is None:
            rows.append({"id": text_id, "n_words": outcome.n_words, "excluded": outcome.excluded})
        else:
            extra = {"near_spans": outcome.near_spans} if near is not None else {}
            rows.append({"id": text_id, **outcome.result.as_dict(), **extra})
    scored = [float(r["creativity_index_mean"]) for r in rows if "excluded" not in r]
    mean = sum(scored) / len(scored) if scored else None
    write_rows(rows, out, f"ci: {len(scored)} scored, {len(rows) - len(scored)} excluded, "
                      f"mean index {mean if mean is None else round(mean, 4)} over L = {min_l}..{max_l}; "
                      f"{ix.queries} index queries; index {ix.identity().get('path') or index}")


def score_templates(
    file: TextsFile,
    n: Annotated[int, typer.Option(help="Template length (POS tags).")] = 5,
    top_k: Annotated[int, typer.Option(help="Number of templates.")] = 100,
    reference: Annotated[Path | None, typer.Option(help="Mine the templates from these JSONL texts instead of the scored ones.")] = None,
    tagger: Annotated[str, typer.Option(help="spacy or spacy:NAME.")] = "spacy",
    text_field: TextField = "text",
    out: Out = None,
) -> None:
    """Syntactic templates: templates per token per text; CR-POS and template rate overall."""
    from creval.metrics.templates import (
        mine_templates,
        pos_compression_ratio,
        template_counts,
    )
    from creval.pos import get_tagger, tags_only

    if n < 1 or top_k < 1:
        raise CrevalError("--n and --top-k must be positive.")
    texts = read_texts(file, text_field)
    pos = get_tagger(tagger)
    tagged = [tags_only(t) for t in pos.tag([t for _, t in texts])]
    source = tagged
    if reference is not None:
        source = [tags_only(t) for t in pos.tag([t for _, t in read_texts(reference, text_field)])]
    templates = mine_templates([t for t in source if any(t)], n=n, top_k=top_k) if any(map(any, source)) else []
    if not templates:
        raise CrevalError(f"No text has {n} tokens in one sentence: no POS {n}-gram to mine. Lower --n.")
    rows: list[dict[str, Any]] = []
    usable: list[list[list[str]]] = []
    for (text_id, _), tags in zip(texts, tagged, strict=True):
        tokens = sum(len(s) for s in tags)
        if tokens == 0:
            rows.append({"id": text_id, "excluded": "no tokens"})
            continue
        (count,) = template_counts([tags], templates)
        rows.append({"id": text_id, "tokens": tokens, "templates": count, "tpt": count / tokens})
        usable.append(tags)
    cr = pos_compression_ratio(usable) if usable else None
    rate = sum(1 for r in rows if r.get("templates", 0) > 0) / len(usable) if usable else None
    write_rows(rows, out, f"templates: n={n}, top {len(templates)}; CR-POS {cr if cr is None else round(cr, 4)}, "
                      f"template rate {rate if rate is None else round(rate, 4)} over {len(usable)} texts")


def _ask_all(spec: str, base_url: str | None, prompts: list[str], max_tokens: int,
             cache: Path | None, no_cache: bool) -> list[str | Exception]:
    """One answer per prompt from ``spec`` at temperature 0 (errors kept per prompt), answered
    from the response cache when asked before."""
    import asyncio

    from creval.models import ModelOptions, get_model
    from creval.models.base import GenerateRequest, ModelError
    from creval.runner.cache import cached_generate, open_cache

    model = get_model(spec, ModelOptions(base_url=base_url))
    store = open_cache(cache, enabled=not no_cache)
    generate = cached_generate(model, store)

    async def ask(prompt: str) -> str | Exception:
        request = GenerateRequest.chat(prompt, temperature=0.0, max_tokens=max_tokens, seed=0)
        try:
            (completion,) = await generate(request)
        except ModelError as exc:
            return exc
        return completion.text

    async def run() -> list[str | Exception]:
        try:
            return [await ask(p) for p in prompts]
        finally:
            await model.aclose()
            if store is not None:
                store.close()

    return asyncio.run(run())


JudgeSpec = Annotated[str, typer.Option("--judge", help="Judge model spec (local, openai:NAME, hf:NAME).")]
BaseUrl = Annotated[str | None, typer.Option(help="Endpoint of an openai: judge.")]


def score_judge(
    file: TextsFile,
    domain: Annotated[str, typer.Option(help="Rubric: writing, problem-solving or ideation.")] = "writing",
    judge: JudgeSpec = "local",
    base_url: BaseUrl = None,
    prompt_file: Annotated[str | None, typer.Option(help="Your own rubric prompt ({text} placeholder).")] = None,
    max_tokens: Annotated[int, typer.Option(help="Maximum tokens of an answer.")] = 512,
    text_field: TextField = "text",
    out: Out = None,
    cache: CacheFile = None,
    no_cache: NoCache = False,
) -> None:
    """Rubric judge with chain of thought (seed 002): every criterion's score per text, strictly parsed."""
    from creval._util.prompts import format_prompt
    from creval.benchmarks.metric_validity.judging import RUBRICS, judge_template, parse_judgement

    if domain not in RUBRICS:
        raise CrevalError(f"--domain takes {', '.join(RUBRICS)}.")
    texts = read_texts(file, text_field)
    template = judge_template(domain, prompt_file)
    prompts = [format_prompt(template, prompt_file or f"the {domain} rubric", text=t) for _, t in texts]
    rows: list[dict[str, Any]] = []
    for (text_id, text), answer in zip(texts, _ask_all(judge, base_url, prompts, max_tokens, cache, no_cache), strict=True):
        if not text.strip():
            rows.append({"id": text_id, "excluded": "empty text"})
        elif isinstance(answer, Exception):
            rows.append({"id": text_id, "excluded": f"judge error: {answer}"})
        else:
            rows.append({"id": text_id, **parse_judgement(answer, domain), "judgement": answer})
    parsed = sum("scores" in r for r in rows)
    write_rows(rows, out, f"judge: {parsed} parsed, {len(rows) - parsed} parse failures or errors ({judge}, {domain} rubric)")


def score_sns(
    file: TextsFile,
    judge: JudgeSpec = "local",
    base_url: BaseUrl = None,
    embedder: Annotated[str, typer.Option(help="Embedder of the concepts.")] = "minilm",
    text_field: TextField = "text",
    out: Out = None,
    cache: CacheFile = None,
    no_cache: NoCache = False,
) -> None:
    """Semantic Novelty Score: five core concepts named by the judge model, mean pairwise cosine distance."""
    from creval._util.prompts import format_prompt
    from creval.benchmarks.metric_validity.sns import concepts_template, parse_concepts, sns_scores

    texts = read_texts(file, text_field)
    prompts = [format_prompt(concepts_template(), "the SNS concepts prompt", text=t) for _, t in texts]
    rows: list[dict[str, Any]] = []
    concepts: dict[str, list[str]] = {}
    for (text_id, text), answer in zip(texts, _ask_all(judge, base_url, prompts, 128, cache, no_cache), strict=True):
        if not text.strip():
            rows.append({"id": text_id, "excluded": "empty text"})
        elif isinstance(answer, Exception):
            rows.append({"id": text_id, "excluded": f"model error: {answer}"})
        else:
            parsed = parse_concepts(answer)
            rows.append({"id": text_id, **parsed})
            if "concepts" in parsed:
                concepts[text_id] = parsed["concepts"]
    values = sns_scores(concepts, embedder)
    for row in rows:
        if row["id"] in values:
            row["sns"] = values[row["id"]]
    write_rows(rows, out, f"sns: {len(values)} scored, {len(rows) - len(values)} excluded ({judge}, {embedder})")


def score_lziv(file: TextsFile, text_field: TextField = "text", out: Out = None) -> None:
    """Lempel-Ziv complexity of each text (characters, normalised as Bellemare-Pepin et al.),
    printed with its agreement with people's ratings (it does not track them)."""
    from creval.metrics.story import LZIV_VALIDITY, lempel_ziv_complexity

    rows: list[dict[str, Any]] = []
    for text_id, text in read_texts(file, text_field):
        rows.append({"id": text_id, "lziv": lempel_ziv_complexity(text)} if len(text) >= 2
                    else {"id": text_id, "excluded": "fewer than 2 characters"})
    scored = [float(r["lziv"]) for r in rows if "lziv" in r]
    mean = round(sum(scored) / len(scored), 4) if scored else None
    write_rows(rows, out, f"lziv: {len(scored)} scored, {len(rows) - len(scored)} excluded, "
                          f"mean {mean}. {LZIV_VALIDITY}")


def register(app: typer.Typer) -> None:
    """Add ``ci``, ``templates``, ``ppl``, ``judge`` and ``sns`` to ``creval score``."""
    app.command("ci")(score_ci)
    app.command("templates")(score_templates)
    from creval.cli.score.ppl import score_ppl

    app.command("ppl")(score_ppl)
    app.command("judge")(score_judge)
    app.command("sns")(score_sns)
    app.command("lziv")(score_lziv)
