"""Slop score's inputs: our starter prompts, and upstream's prompts, word lists, released
outputs and published metrics read in place from a copy of ``sam-paech/slop-score`` (MIT) at
run time (nothing of upstream is copied into creval); texts to score from a file."""

from __future__ import annotations

import gzip
import json
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from creval.benchmarks.common import parse_jsonl
from creval.errors import CrevalError
from creval.records.references import DataSource

UPSTREAM_REPO = "sam-paech/slop-score"
UPSTREAM_COMMIT = "289264ab2a0df1358ef81ced3c259610ea709514"
UPSTREAM_BASE_URL = f"https://raw.githubusercontent.com/{UPSTREAM_REPO}/{UPSTREAM_COMMIT}"
#: local path -> (path in the upstream repository, first 16 hex digits of its SHA-256)
UPSTREAM_FILES: dict[str, tuple[str, str]] = {
    "LICENSE": ("LICENSE", "2d0e89bfb33f3317"),
    "data/prompts.json": ("data/prompts.json", "6d5d02c003ed8aa1"),
    "data/slop_list.json": ("data/slop_list.json", "fd3bc1e6019ca635"),
    "data/slop_list_bigrams.json": ("data/slop_list_bigrams.json", "738dcf0bca80187d"),
    "data/slop_list_trigrams.json": ("data/slop_list_trigrams.json", "1532f37edddc4b19"),
    "data/leaderboard_results.json": ("data/leaderboard_results.json", "16925b79d955a1ca"),
}
#: Upstream's prompts.json: the first 150 are creative writing prompts, the rest essays.
CREATIVE_PROMPTS = 150
_FETCH = "`creval data fetch slop --dest FOLDER`"


class SlopPrompt(BaseModel):
    model_config = ConfigDict(coerce_numbers_to_str=True, extra="ignore")

    id: str
    prompt: str
    #: creative or essay
    kind: str = "creative"


def starter_prompts() -> list[SlopPrompt]:
    """Our offline starter set: four story prompts and four essay prompts, our wording."""
    text = (resources.files("creval") / "data" / "slop" / "starter.jsonl").read_text(encoding="utf-8")
    return parse_jsonl(text.splitlines(), SlopPrompt, "the slop starter set",
                       example='{"id": "...", "prompt": "...", "kind": "creative"}')


def data_folder(data: str | Path) -> Path:
    """The folder holding upstream's ``prompts.json`` and lists: ``data`` itself (upstream's
    ``data/`` folder) or its ``data/`` (a copy of the repository)."""
    root = Path(data)
    if not root.exists():
        raise CrevalError(f"--data {root} does not exist. Point it at a copy of {UPSTREAM_REPO} "
                          f"({_FETCH}) or its data/ folder.")
    for folder in (root / "data", root):
        if (folder / "prompts.json").is_file():
            return folder
    raise CrevalError(f"--data {root} holds no prompts.json (nor data/prompts.json). Point it at "
                      f"a copy of {UPSTREAM_REPO} ({_FETCH}) or its data/ folder.")


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CrevalError(f"{path} could not be read as JSON ({exc}). Fetch it again ({_FETCH}).") from None


def upstream_prompts(data: str | Path) -> list[SlopPrompt]:
    """Upstream's 300 prompts, ``upstream-0`` .. ``upstream-299`` (the index upstream's
    results call ``prompt_index``), the first 150 creative, the rest essays."""
    path = data_folder(data) / "prompts.json"
    raw = _json(path)
    if not isinstance(raw, list) or not all(isinstance(p, str) for p in raw):
        raise CrevalError(f"{path} must be a JSON list of prompt strings (upstream's format).")
    return [SlopPrompt(id=f"upstream-{i}", prompt=p,
                       kind="creative" if i < CREATIVE_PROMPTS else "essay")
            for i, p in enumerate(raw)]


def slop_lists(data: str | Path) -> tuple[set[str], set[str]]:
    """Upstream's slop words and slop trigrams (``slop_list.json``,
    ``slop_list_trigrams.json``), reduced as upstream's ``loadSlopSets``."""
    from creval.metrics.slop import slop_phrases

    folder = data_folder(data)
    out = []
    for name in ("slop_list.json", "slop_list_trigrams.json"):
        path = folder / name
        if not path.is_file():
            raise CrevalError(f"{folder} holds no {name}. Fetch upstream's data ({_FETCH}).")
        raw = _json(path)
        if not isinstance(raw, list):
            raise CrevalError(f"{path} must be a JSON list of [phrase] entries (upstream's format).")
        out.append(slop_phrases(raw))
    return out[0], out[1]


def human_profile(path: str | Path) -> tuple[dict[str, float], dict[str, float]]:
    """Upstream's human n-gram profile (``human_writing_profile.json``, not released with the
    outputs) as ``loadHumanProfile`` reads it: each n-gram's share of its list's total."""
    import re

    raw = _json(Path(path))
    hp = raw.get("human-authored") or raw.get("human") or raw if isinstance(raw, dict) else {}
    out: list[dict[str, float]] = []
    for keys in (("top_bigrams", "bigrams"), ("top_trigrams", "trigrams")):
        items: Any = next((hp[k] for k in keys if hp.get(k)), [])
        table: dict[str, float] = {}
        if isinstance(items, list):
            total = sum(float(it.get("frequency") or 0) for it in items)
            if total > 0:
                for it in items:
                    toks = re.findall(r"[a-z]+", str(it.get("ngram") or "").lower())
                    if len(toks) >= 2:
                        table[" ".join(toks)] = float(it.get("frequency") or 0) / total
        out.append(table)
    return out[0], out[1]


def read_utf8(path: Path) -> str:
    """A file's text; a missing, non-UTF-8 or empty file is an error that says what to do."""
    if not path.is_file():
        raise CrevalError(f"{path} does not exist. Give a file of texts (plain text, JSONL, or "
                          "an upstream results file).")
    raw = path.read_bytes()
    if raw.startswith(b"\x1f\x8b"):
        raw = gzip.decompress(raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CrevalError(f"{path} is not UTF-8 (byte {exc.start}). Convert it first, e.g. "
                          f"`iconv -f latin1 -t utf-8 {path} > texts.txt`.") from None
    if not text.strip():
        raise CrevalError(f"{path} is empty. Give it the texts to score: plain text, JSONL "
                          '({"text": ...} per line) or an upstream results file.')
    return text.removeprefix("\ufeff")


_TEXT_FIELDS = ("text", "output", "answer", "response", "completion")


def read_texts(path: Path) -> tuple[list[tuple[str, str]], str]:
    """``([(id, text)], form)`` from a file: upstream's results JSON (``{model: {samples:
    [{prompt_index, output}]}}``, gzipped or not; form ``results``), JSONL with a ``text``
    (or ``output``, ``answer``, ``response``, ``completion``) field per line, or a creval run's
    ``records.jsonl`` (the text of each finished record, by its item id; ``jsonl``), or
    plain text, one text for the whole file (``text``)."""
    text = read_utf8(path)
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            whole = json.loads(text)
        except json.JSONDecodeError:
            whole = None
        if isinstance(whole, dict) and len(whole) == 1:
            (value,) = whole.values()
            if isinstance(value, dict) and isinstance(value.get("samples"), list):
                texts = [(str(s.get("prompt_index", i)), str(s.get("output") or ""))
                         for i, s in enumerate(value["samples"]) if isinstance(s, dict)]
                if not texts:
                    raise CrevalError(f"{path}: the results file holds no samples.")
                return texts, "results"
        from creval.benchmarks.common import jsonl_objects

        rows = jsonl_objects(text.splitlines(), str(path))
        out = []
        records: dict[str, tuple[str, str] | None] = {}  # a run's: the last line per unit counts
        for number, row in rows:
            output, unit = row.get("output"), row.get("unit")
            if isinstance(output, dict) and isinstance(output.get("text"), str):  # a run's record
                ident = unit.get("id") if isinstance(unit, dict) else None
                records[str(row.get("key", number))] = (
                    (str(ident or row.get("key", number)), output["text"])
                    if row.get("status", "ok") == "ok" else None)
                continue
            field = next((f for f in _TEXT_FIELDS if isinstance(row.get(f), str)), None)
            if field is None:
                raise CrevalError(f"{path}:{number}: no text field. Each line needs "
                                  '{"text": "..."} (or output, answer, response, completion).')
            out.append((str(row.get("id", row.get("key", number))), row[field]))
        out += [text for text in records.values() if text is not None]
        return out, "jsonl"
    return [("1", text)], "text"


def released_results(results: str | Path) -> dict[str, Path]:
    """Upstream's released outputs in a folder (``results/<model>.json`` or ``.json.gz``),
    by file stem."""
    folder = Path(results)
    if not folder.is_dir():
        raise CrevalError(f"{folder} is not a folder of upstream results (results/<model>.json[.gz]).")
    out = {p.name.removesuffix(".gz").removesuffix(".json"): p
           for p in sorted(folder.iterdir()) if p.name.endswith((".json", ".json.gz"))}
    if not out:
        raise CrevalError(f"{folder} holds no <model>.json or <model>.json.gz results.")
    return out


def read_released(path: Path) -> tuple[str, list[dict[str, Any]]]:
    """One released results file: ``(model id, samples)``."""
    raw = path.read_bytes()
    data = json.loads(gzip.decompress(raw) if raw.startswith(b"\x1f\x8b") else raw)
    ((model, value),) = data.items()
    return model, list(value["samples"])


def published_metrics(data: str | Path) -> dict[str, dict[str, float]]:
    """Upstream's published metrics (``leaderboard_results.json``) by model id, flat
    (``mattr_500`` and ``type_token_ratio`` out of ``lexical_diversity``), with
    ``sample_count`` and ``total_chars``."""
    path = data_folder(data) / "leaderboard_results.json"
    out = {}
    for row in _json(path)["results"]:
        metrics = dict(row["metrics"])
        lexical = metrics.pop("lexical_diversity")
        metrics.update(mattr_500=lexical["mattr_500"], type_token_ratio=lexical["type_token_ratio"],
                       sample_count=row["sample_count"], total_chars=row["total_chars"])
        out[row["model"]] = metrics
    return out


def fetch_slop(dest: str | Path, *, base_url: str = UPSTREAM_BASE_URL, checksums: bool = True,
               timeout: float = 120.0) -> Path:
    """Download upstream's prompts, lists, published metrics and licence (pinned commit,
    checked digests) into ``dest``; afterwards ``creval run slop --data FOLDER``."""
    from creval._util.download import download_upstream

    return download_upstream(UPSTREAM_FILES, Path(dest), base_url=base_url, checksums=checksums,
                             timeout=timeout)


def data_source() -> DataSource:
    """What ``creval data fetch slop`` writes, pinned file by file."""
    return DataSource(
        "slop", "Slop score's 300 prompts, slop lists and published metrics from GitHub "
        "sam-paech/slop-score (MIT), pinned commit", "creval.benchmarks.slop.data:fetch_slop",
        url=f"https://github.com/{UPSTREAM_REPO}", commit=UPSTREAM_COMMIT,
        digests={local: sha for local, (_, sha) in UPSTREAM_FILES.items()}, licence="MIT")
