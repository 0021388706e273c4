"""NoveltyBench's prompts: the starter set we wrote, or the paper's curated and WildChat sets
read from the user's copy of ``novelty-bench/novelty-bench`` (MIT) at run time."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from creval.benchmarks.common import parse_jsonl
from creval.errors import CrevalError

#: The paper's files, by subset (``data/`` of the code repository).
SUBSET_FILES = {"curated": "curated.jsonl", "wildchat": "wildchat-1k.jsonl"}
SUBSETS = ("starter", "curated", "wildchat", "both")


class NoveltyPrompt(BaseModel):
    model_config = ConfigDict(coerce_numbers_to_str=True, extra="ignore")

    id: str
    prompt: str
    category: str = ""
    prompt_paraphrases: list[str] = Field(default_factory=list)
    #: Which set the prompt came from: starter, curated, wildchat or custom (a user's file).
    subset: str = "custom"


def parse_prompts(lines: list[str], source: str, subset: str) -> list[NoveltyPrompt]:
    """JSONL lines as prompts; errors name the line and what to fix.

    >>> parse_prompts(['{"id": "a", "prompt": "Name a colour."}'], "x.jsonl", "custom")[0].prompt
    'Name a colour.'
    """
    items = parse_jsonl(
        lines, NoveltyPrompt, source,
        example='{"id": "...", "prompt": "..."} (category, prompt_paraphrases optional)',
        check=lambda p: None if p.prompt.strip() else "the prompt is empty.",
    )
    default_category = "WildChat" if subset == "wildchat" else ""
    return [p.model_copy(update={"subset": subset, "category": p.category or default_category})
            for p in items]


def _file(path: Path, subset: str) -> list[NoveltyPrompt]:
    return parse_prompts(path.read_text(encoding="utf-8").splitlines(), str(path), subset)


def subset_files(data: Path, subset: str) -> dict[str, Path]:
    """The paper's prompt files of ``subset`` in the folder ``data`` (the code repository, its
    ``data/`` folder, or a folder holding the two files), by subset name."""
    wanted = ("curated", "wildchat") if subset == "both" else (subset,)
    out: dict[str, Path] = {}
    for name in wanted:
        candidates = [data / SUBSET_FILES[name], data / "data" / SUBSET_FILES[name]]
        found = next((c for c in candidates if c.is_file()), None)
        if found is None:
            raise CrevalError(
                f"{data} holds no {SUBSET_FILES[name]} (nor data/{SUBSET_FILES[name]}) for "
                f"--subset {subset}. Point --data at a copy of novelty-bench/novelty-bench "
                "(`creval data fetch noveltybench`) or its data/ folder.")
        out[name] = found
    return out


def load_prompts(data: str | None, subset: str | None) -> list[NoveltyPrompt]:
    """The prompts of a run: the starter set (no ``data``), a JSONL file of the user's, or
    the paper's ``subset`` in the folder ``data`` (None: both subsets)."""
    subset = subset or ("both" if data else "starter")
    if subset not in SUBSETS:
        raise CrevalError(f"--subset must be one of {', '.join(SUBSETS)}, got {subset!r}.")
    if not data:
        if subset != "starter":
            raise CrevalError(
                f"--subset {subset} needs the paper's prompts: pass --data with a copy of "
                "novelty-bench/novelty-bench (`creval data fetch noveltybench`), or use "
                "--subset starter for the small offline set.")
        starter = resources.files("creval") / "data" / "noveltybench" / "starter.jsonl"
        return parse_prompts(starter.read_text(encoding="utf-8").splitlines(), "starter set",
                             "starter")
    path = Path(data)
    if path.is_file():
        return _file(path, "custom" if subset == "starter" else subset)
    if not path.is_dir():
        raise CrevalError(f"--data {path} does not exist. Pass the NoveltyBench data folder "
                          "or a JSONL file of prompts.")
    if subset == "starter":
        raise CrevalError("--subset starter reads no --data; pass --subset curated, wildchat "
                          "or both with the NoveltyBench data folder.")
    return [p for name, file in subset_files(path, subset).items() for p in _file(file, name)]


#: ``novelty-bench/novelty-bench`` (MIT) and its site (no licence stated: fetched for the
#: user, never shipped), at the commits ``../shared/data/noveltybench`` was staged from.
CODE_COMMIT = "5b22b53dedd4ec37e1d30a5dbeb2ea6beaa752ca"
SITE_COMMIT = "37ebedcfc5229590a2224126e70eece78445a151"
#: local path -> the first 16 hex digits of its SHA-256 at those commits.
FETCHED_SHA256 = {
    "data/curated.jsonl": "ca9b6f470e5d7f7e",
    "data/wildchat-1k.jsonl": "8534288089508df3",
    **{f"site/eval/03-27-2025/curated/{model}/scores.jsonl": sha for model, sha in {
        "anthropic/claude-3-5-haiku@20241022": "1177ee602ee5e46e",
        "cohere/command-r7b-12-2024": "073feda264abf0ea",
        "gemini/gemini-1.5-pro": "3449323c4a03721e",
        "google/gemma-2-9b-it": "c65431f0dad54473",
        "meta-llama/Llama-3.1-8B-Instruct": "fa77ba4093ebc868",
        "meta-llama/Llama-3.2-1B-Instruct": "3cdd7adfa47e7592",
        "openai/gpt-4o-2024-11-20": "adc58f4b232ba6b6",
        "openai/gpt-4o-mini-2024-07-18": "e45daad6c0df8678",
    }.items()},
}


def fetch_noveltybench(dest: str | Path, *, timeout: float = 60.0) -> Path:
    """``creval data fetch noveltybench``: the prompts (``data/``) and eight models' published
    per-prompt scores (``site/``) into ``dest``, each checked against its pinned digest. Pass
    ``dest`` to ``creval run noveltybench --data``; ``compare --published`` finds ``site/``
    beside it."""
    from creval._util.download import download_pinned

    code = f"https://raw.githubusercontent.com/novelty-bench/novelty-bench/{CODE_COMMIT}/"
    site = f"https://raw.githubusercontent.com/novelty-bench/novelty-bench.github.io/{SITE_COMMIT}/"
    files = {local: ((code + local) if local.startswith("data/") else site + local[5:], sha)
             for local, sha in FETCHED_SHA256.items()}
    return download_pinned(files, Path(dest), timeout=timeout)
