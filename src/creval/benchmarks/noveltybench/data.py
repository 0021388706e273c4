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
