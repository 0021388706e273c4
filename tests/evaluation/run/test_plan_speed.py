"""``--plan`` runs in seconds: no sentence model is loaded to drive the units (their
retrieval uses stand-in embedders), the prompts are counted piece by piece with the GGUF's
tokenizer (as exactly as whole), and a benchmark that still takes long is named on stderr."""

from __future__ import annotations

import glob
import json
import subprocess
import sys
from pathlib import Path

from tests.tests_paths import REPO

#: Runs ``creval ARGS`` with the slow-plan note at once, then lists the heavy modules loaded.
WRAPPER = """
import atexit, sys
import creval.evaluation.run.cost as cost
cost.SLOW_PLAN = 0.0
atexit.register(lambda: print("HEAVY", sorted(m for m in ("torch", "sentence_transformers")
                                             if m in sys.modules), file=sys.stderr))
sys.argv = ["creval", *sys.argv[1:]]
from creval.cli import main
main()
"""


def test_a_plan_loads_no_sentence_model_and_names_what_it_is_planning(tmp_path: Path) -> None:
    """MacGyver's multi-agent judge retrieves fragments before each judge request: the plan
    loaded all-MiniLM and embedded every stand-in discussion with it (52 s of a minute and a
    half), and still drove only one of its units in its time budget, printing nothing."""
    wrapper = tmp_path / "plan.py"
    wrapper.write_text(WRAPPER)
    out = tmp_path / "profile"
    done = subprocess.run([sys.executable, str(wrapper), "profile", "--only", "macgyver",
                           "--size", "smoke", "--plan", "--out", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "HEAVY []" in done.stderr
    assert "planning macgyver (1 of 1) for local: driving its units" in done.stderr
    rows = json.loads((out / "plan.json").read_text())["rows"]
    assert {(r["role"], r["basis"]) for r in rows} == {("target", "prompts"), ("judge", "prompts")}
    judge = next(r for r in rows if r["role"] == "judge")
    assert judge["requests"] > 0 and judge["input_tokens"] > judge["requests"] * 100
    assert not (out / "macgyver" / "records.jsonl").exists()


def test_prompts_counted_piece_by_piece_count_as_the_whole_text() -> None:
    """Every docs page and packaged data file, with and without special tokens, counted by
    the plan's local counter (words and lines, each distinct one once) and whole."""
    from llama_cpp import Llama

    from creval.evaluation.run.cost import token_counter
    from creval.models.local import default_model_path

    counter = token_counter("local")
    vocab = Llama(model_path=str(default_model_path()), vocab_only=True, n_ctx=64, verbose=False)
    files = sorted(glob.glob(str(REPO / "docs" / "*.md")))[:12]
    files += sorted(glob.glob(str(REPO / "src" / "creval" / "data" / "**" / "*.json*"), recursive=True))[:12]
    assert len(files) > 20
    for name in files:
        text = Path(name).read_text(encoding="utf-8")[:6000]
        whole = len(vocab.tokenize(text.encode(), add_bos=False, special=False))
        assert counter.text(text) == whole, name
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    chat = [("system", "You judge solutions.\nBe brief."),
            ("user", "Problem: a flat tyre.\nSolution: " + "idea, " * 300)]
    template = Jinja2ChatFormatter(template=vocab.metadata["tokenizer.chat_template"],
                                   eos_token="", bos_token="")
    rendered = template(messages=[{"role": r, "content": t} for r, t in chat]).prompt
    whole = len(vocab.tokenize(rendered.encode(), add_bos=False, special=True))
    assert counter.prompt(chat) == whole > counter.text(chat[1][1])
