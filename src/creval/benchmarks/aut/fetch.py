"""``creval data fetch ocsai``: people's AUT responses with human originality ratings, and the
published scorers' scores of the test responses, from GitHub ``massivetexts/ocsai``.

The files come from a pinned commit (MIT licence), are checked against SHA-256 digests, and
are laid out as :mod:`creval.benchmarks.aut.data` reads them; afterwards run
``creval run aut --people FOLDER``.
"""

from __future__ import annotations

from pathlib import Path

UPSTREAM_COMMIT = "db5a3ee43c7e19bbcabdc0b0ac0ee8d6e51f9276"
UPSTREAM_BASE_URL = f"https://raw.githubusercontent.com/massivetexts/ocsai/{UPSTREAM_COMMIT}"
_SPLIT = "ocsai1/finetune-gt_main2_prepared_{}.jsonl"
_RESULTS = "logprobs_{}_ocsai1.csv"
#: local path -> (path in the upstream repository, first 16 hex digits of its SHA-256)
UPSTREAM_FILES: dict[str, tuple[str, str]] = {
    "LICENSE": ("LICENSE", "73e1c078412d0b02"),
    **{_SPLIT.format(s): (f"data/{_SPLIT.format(s)}", d) for s, d in (
        ("train", "7b2ed8fb8a1b3c98"), ("val", "a40bc78a5275ad27"), ("test", "bab9bf8fc28c2711"))},
    **{f"results/{_RESULTS.format(m)}": (f"data/results/logprobs/{_RESULTS.format(m)}", d)
       for m, d in (("gpt-4o", "75537feec8aee7c1"), ("gpt-4o-mini", "78508238d790a0f0"),
                    ("ocsai-chatgpt", "d27dbd314cadc185"), ("ocsai-davinci2", "862f708aaf2c531c"))},
}


def fetch_ocsai(dest: str | Path, *, base_url: str = UPSTREAM_BASE_URL, checksums: bool = True,
                timeout: float = 120.0) -> Path:
    """Download the Ocsai files into ``dest`` (created) and return ``dest``; files already
    there with the right digest are kept. ``checksums=False`` skips the digest check."""
    from creval._util.download import download_upstream

    return download_upstream(UPSTREAM_FILES, Path(dest), base_url=base_url, checksums=checksums,
                             timeout=timeout)
