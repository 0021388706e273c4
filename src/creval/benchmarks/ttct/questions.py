"""TTCT-style questions: the upstream JCQ format (``id``, ``task``, ``question`` per line)."""

from __future__ import annotations

from collections import defaultdict
from importlib import resources
from pathlib import Path

from pydantic import BaseModel

from creval.benchmarks.common import parse_jsonl
from creval.errors import CrevalError

TASKS = (
    "unusual uses",
    "consequences",
    "just suppose",
    "situation",
    "common problem",
    "improvement",
    "imaginative stories",
)
#: The public JCQ questions (Hugging Face dataset nlp-waseda/JCQ, CC BY 4.0), for online users.
JCQ_URL = "https://huggingface.co/datasets/nlp-waseda/JCQ/resolve/main/test.jsonl"


class Question(BaseModel):
    id: int
    task: str
    question: str


def parse_questions(lines: list[str], source: str) -> list[Question]:
    """Parse and check question lines; errors name the line.

    >>> q = parse_questions(['{"id": 1, "task": "situation", "question": "Q?"}'], "x")
    >>> q[0].task
    'situation'
    """
    def known_task(q: Question) -> str | None:
        return None if q.task in TASKS else f"unknown task {q.task!r}; tasks are: {', '.join(TASKS)}."

    return parse_jsonl(
        lines, Question, source, example='{"id": 1, "task": "...", "question": "..."}',
        check=known_task,
    )


def load_questions(source: str | None, starter: tuple[str, str]) -> list[Question]:
    """Questions from a file, ``upstream`` (the public JCQ file), or the starter set."""
    if source is None:
        folder, name = starter
        file = resources.files("creval") / "data" / folder / name
        return parse_questions(file.read_text(encoding="utf-8").splitlines(), f"starter {name}")
    if source in {"upstream", JCQ_URL}:
        return parse_questions(_download(JCQ_URL).splitlines(), JCQ_URL)
    path = Path(source)
    if not path.is_file():
        raise CrevalError(
            f"Questions file {path} does not exist. Pass a JSONL file, or 'upstream' for the "
            "public JCQ questions (needs the internet)."
        )
    return parse_questions(path.read_text(encoding="utf-8").splitlines(), str(path))


def download_path(url: str) -> Path:
    """Where the download of ``url`` is kept in the cache folder."""
    import hashlib

    from creval._util.paths import cache_root

    return cache_root() / "data" / (hashlib.sha256(url.encode()).hexdigest()[:16] + ".jsonl")


def _download(url: str) -> str:
    """Fetch ``url`` once and keep it in the cache folder."""
    import httpx

    cached = download_path(url)
    if cached.is_file():
        return cached.read_text(encoding="utf-8")
    try:
        response = httpx.get(url, follow_redirects=True, timeout=60)
        response.raise_for_status()
    except httpx.HTTPError as exc:
        raise CrevalError(
            f"Could not download {url} ({exc}). Offline, download it elsewhere and pass the "
            "file's path to --questions."
        ) from None
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_text(response.text, encoding="utf-8")
    return response.text


def balanced(questions: list[Question], limit: int | None) -> list[Question]:
    """The first ``limit`` questions taken round-robin across tasks (all when None).

    >>> qs = [Question(id=i, task=TASKS[i // 3], question="q") for i in range(6)]
    >>> [q.id for q in balanced(qs, 3)]
    [0, 3, 1]
    """
    if limit is None or limit >= len(questions):
        return questions
    by_task: dict[str, list[Question]] = defaultdict(list)
    for q in questions:
        by_task[q.task].append(q)
    queues = [by_task[t] for t in TASKS if by_task[t]]
    picked: list[Question] = []
    depth = 0
    while len(picked) < limit:
        for queue in queues:
            if depth < len(queue) and len(picked) < limit:
                picked.append(queue[depth])
        depth += 1
    return picked
