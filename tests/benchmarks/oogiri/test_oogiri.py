"""The oogiri benchmark: loading and splitting, mTn and ranking construction by hand, strict
parsing, scoring, and whole runs against a scripted OpenAI-compatible server on loopback."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from tests_paths import shared_data_path

from creval.benchmarks.oogiri.data import Prompt, Response, load_prompts
from creval.benchmarks.oogiri.questions import (
    build_choice,
    build_ranking,
    parse_choice,
    parse_ranking,
    pick_unrelated,
)
from creval.benchmarks.oogiri.scoring import score_oogiri
from creval.errors import CrevalError
from creval.records import Scores
from creval.runner.store import Record
from tests._cli import Done, creval
from tests._servers import ChatServer
from tests.benchmarks.scores_contract import assert_per_item_means

PROMPT = Prompt(
    "p1", "T2T", "Name a bad superpower.", None,
    (Response("Super speed, only in queues", 9), Response("Flight, but only downwards", 5),
     Response("Telepathy with pigeons", 3), Response("x-ray vision for fridges", 2),
     Response("Invisibility", 0)),
    literal="Flying.", rewrite="Super speed.",
)
OTHER = Prompt("p2", "T2T", "Why is the cat late?", None, (Response("Traffic of mice", 4),),
               literal="It overslept.")


def rows(*items: dict[str, Any]) -> str:
    return "\n".join(json.dumps(i) for i in items) + "\n"


def test_starter_set_has_thirty_t2t_prompts_with_five_rated_responses() -> None:
    loaded = load_prompts(None, "en")
    assert len(loaded.prompts) == 30
    for p in loaded.prompts:
        stars = [r.star or 0.0 for r in p.responses]
        assert p.type == "T2T" and len(p.rated()) == 5 and p.literal and p.rewrite
        assert stars == sorted(stars, reverse=True)  # most liked first


def test_oogiri_go_rows_are_grouped_and_split_reproducibly(tmp_path: Path) -> None:
    example = shared_data_path("oogiri", "schema_example.jsonl").read_text()
    lines = [example.strip()]
    for i in range(99):  # 100 prompts: 1 image prompt + 99 text prompts with 2 rows each
        for j in range(2):
            lines.append(json.dumps({"type": "T2T", "question": f"Prompt {i}?", "image": None,
                                     "text": f"answer {j}", "star": j}))
    lines.append(json.dumps({"type": "T2T", "question": None, "image": None, "text": "x", "star": 1}))
    (tmp_path / "en.jsonl").write_text("\n".join(lines) + "\n")
    a = load_prompts(str(tmp_path), "en", seed=1)
    b = load_prompts(str(tmp_path), "en", seed=1)
    c = load_prompts(str(tmp_path), "en", seed=2)
    assert a.split["prompts"] == 100 and a.split["test"] == 5 and a.split["train"] == 95
    assert [p.id for p in a.prompts] == [p.id for p in b.prompts] == a.split["test_ids"]
    assert [p.id for p in a.prompts] != [p.id for p in c.prompts]
    assert a.excluded == {"row without question or image": 1}
    text_prompts = [p for p in a.prompts if p.image is None]
    assert all([r.text for r in p.responses] == ["answer 1", "answer 0"] for p in text_prompts)
    whole = load_prompts(str(tmp_path), "en", seed=1, test_share=0.5)
    assert whole.split["test"] == 50


def test_bad_files_get_clear_messages(tmp_path: Path) -> None:
    with pytest.raises(CrevalError, match="does not exist"):
        load_prompts(str(tmp_path), "en")
    (tmp_path / "en.jsonl").write_text('{"type": "X2T", "text": "a"}\n')
    with pytest.raises(CrevalError, match=r"en.jsonl:1: field 'type'"):
        load_prompts(str(tmp_path), "en")
    with pytest.raises(CrevalError, match="no starter set in 'ja'"):
        load_prompts(None, "ja")


def test_mtn_questions_by_hand() -> None:
    unrelated = pick_unrelated(PROMPT, [PROMPT, OTHER], seed=0)
    assert unrelated == "It overslept."  # the only other prompt's literal answer
    q2 = build_choice(PROMPT, "2T1", literal="Flying.", rewrite="Super speed.", unrelated=unrelated, seed=0)
    q5 = build_choice(PROMPT, "5T2", literal="Flying.", rewrite="Super speed.", unrelated=unrelated, seed=0)
    assert not isinstance(q2, str) and not isinstance(q5, str)
    assert sorted(o.text for o in q2.options) == ["Flying.", "Super speed, only in queues"]
    assert sorted(o.role for o in q5.options) == ["human", "human2", "literal", "rewrite", "unrelated"]
    letters = "ABCDE"
    expected = sorted(letters[i] for i, o in enumerate(q5.options)
                      if o.text in {"Super speed, only in queues", "Flight, but only downwards"})
    assert q5.correct == expected and q5.n == 2
    again = build_choice(PROMPT, "5T2", literal="Flying.", rewrite="Super speed.", unrelated=unrelated, seed=0)
    assert again == q5  # the same seed shuffles the same way
    orders = {tuple(o.role for o in build_choice(  # type: ignore[union-attr]
        PROMPT, "5T2", literal="Flying.", rewrite="Super speed.", unrelated=unrelated, seed=s).options)
        for s in range(20)}
    assert len(orders) > 5  # the seed does shuffle
    solo = Prompt("p3", "T2T", "Q?", None, (Response("only one", 1),))
    assert build_choice(solo, "5T2", literal="a", rewrite="b", unrelated="c", seed=0) == "only one human response"


def test_ranking_question_by_hand() -> None:
    q = build_ranking(PROMPT, seed=0)
    assert not isinstance(q, str)
    assert sorted(q.likes, reverse=True) == [9, 5, 3, 2, 0]
    assert dict(zip(q.texts, q.likes, strict=True)) == {r.text: r.star for r in PROMPT.responses}
    assert build_ranking(OTHER, seed=0) == "fewer than 5 responses with likes"


def test_parsers_are_strict() -> None:
    assert parse_choice("Answer: A, C", m=5, n=2) == frozenset("AC")
    assert parse_choice("Answer: A, A", m=5, n=2) is None  # not two distinct letters
    assert parse_choice("Answer: E", m=4, n=1) is None  # no option E in 4T1
    assert parse_choice("I think the first one.", m=2, n=1) is None
    assert parse_ranking("E > D > C > B > A") == [4, 3, 2, 1, 0]
    assert parse_ranking("Ranking: A > B > C > D > A") is None


def record(key: str, questions: list[dict[str, Any]], ranking: dict[str, Any] | None) -> Record:
    return Record(key=key, status="ok", unit={"id": key, "type": "T2T"},
                  output={"questions": questions, "ranking": ranking, "generated": {}})


def test_scoring_hand_calculation() -> None:
    records = [
        record("a", [{"qtype": "2T1", "correct": ["A"], "raw": "Answer: A"},
                     {"qtype": "5T2", "correct": ["B", "E"], "raw": "Answer: E, B"}],
               {"likes": [10, 0, 5, 3, 1], "raw": "Ranking: A > C > D > E > B"}),
        record("b", [{"qtype": "2T1", "correct": ["B"], "raw": "Answer: A"},
                     {"qtype": "5T2", "correct": ["A", "B"], "raw": "gibberish"}],
               {"likes": [1, 2, 3, 4, 5], "raw": "Ranking: A > B > C > D > E"}),
        record("c", [{"qtype": "3T1", "skipped": "no literal answer"}], {"skipped": "fewer than 5 responses with likes"}),
    ]
    scores = score_oogiri(records, relevance="grade", loaded={"source": "test"})
    h = scores.headline
    assert h["acc_2T1"] == 0.5 and h["acc_5T2"] == 0.5 and h["acc_3T1"] is None
    assert h["unparsed"] == 1
    # ranking a: the human order exactly (grades 4, 0, 3, 2, 1) -> NDCG 1, top-1 hit, rho 1.
    # ranking b: reversed. Grades by item 0, 1, 2, 3, 4, 0; ranked 0..4 gives
    # DCG = 0 + 1/log2(3) + 2/2 + 3/log2(5) + 4/log2(6), IDCG = 4 + 3/log2(3) + 2/2 + 1/log2(5).
    dcg_b = 1 / math.log2(3) + 1 + 3 / math.log2(5) + 4 / math.log2(6)
    idcg = 4 + 3 / math.log2(3) + 1 + 1 / math.log2(5)
    assert h["ndcg"] == pytest.approx((1 + dcg_b / idcg) / 2)
    assert h["top1"] == 0.5 and h["spearman"] == pytest.approx(0.0)  # (1 + -1) / 2
    rows = {(r["qtype"]): r for r in scores.sections[0]["rows"]}
    assert rows["5T2"]["random"] == pytest.approx(0.1) and rows["5T2"]["unparsed"] == 1
    assert (rows["2T1"]["picked"], rows["2T1"]["human_at"]) == ("A 2", "A 1, B 1")
    reasons = {r["reason"] for r in scores.sections[2]["rows"]}
    assert reasons == {"3T1: no literal answer", "rank: fewer than 5 responses with likes"}
    # the items behind each mean: one per question, in record order (the unparsed 5T2 is a 0)
    assert scores.per_item["acc_2T1"] == [1.0, 0.0] and scores.per_item["acc_5T2"] == [1.0, 0.0]
    assert "acc_3T1" not in scores.per_item
    assert h["acc"] == 0.5 and scores.per_item["acc"] == [1.0, 0.0, 1.0, 0.0]
    assert scores.per_item["top1"] == [1.0, 0.0]
    assert scores.per_item["ndcg"] == [pytest.approx(1.0), pytest.approx(dcg_b / idcg)]
    assert scores.per_item["spearman"] == [pytest.approx(1.0), pytest.approx(-1.0)]
    assert_per_item_means(scores)


def test_unparsed_rankings_are_top1_misses_and_none_in_ndcg_items() -> None:
    records = [record("a", [], {"likes": [10, 0, 5, 3, 1], "raw": "Ranking: A > C > D > E > B"}),
               record("b", [], {"likes": [1, 2, 3, 4, 5], "raw": "no idea"})]
    scores = score_oogiri(records, relevance="grade", loaded={"source": "test"})
    assert scores.per_item["top1"] == [1.0, 0.0]
    assert scores.per_item["ndcg"] == [pytest.approx(1.0), None]
    assert scores.headline["acc"] is None and "acc" not in scores.per_item
    assert_per_item_means(scores)


def scripted(body: dict[str, Any]) -> tuple[int, str]:
    """Rewriter answers, the first option for choices, the presented order for rankings."""
    content = body["messages"][-1]["content"]
    text = content if isinstance(content, str) else " ".join(
        p.get("text", "") for p in content if p.get("type") == "text")
    if "plain, literal answer" in text:
        return 200, "A literal answer."
    if "loses the joke" in text:
        return 200, "Answer: A rewritten answer."
    if "Rank all five" in text:
        return 200, "Ranking: A > B > C > D > E"
    which = re.search(r"Which (\d) of", text)
    if which is None:  # not an oogiri question (a backend's own probe)
        return 200, "Hello."
    return 200, "Answer: A" if which.group(1) == "1" else "Answer: A, B"


def run(*args: str, server: ChatServer) -> Done:
    return creval("run", "oogiri", "--model", "openai:scripted", "--base-url",
                           server.url, "--api-key", "x", "--no-progress", *args)


def test_run_end_to_end_on_the_starter_set(tmp_path: Path) -> None:
    server = ChatServer(reply=scripted)
    try:
        done = run("--limit", "3", "--out", str(tmp_path / "run"), server=server)
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    out = tmp_path / "run"
    scores = json.loads((out / "scores.json").read_text())
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    asked = [b for b in server.bodies if "This is an Oogiri game" in str(b["messages"])]
    assert len(records) == 3 and len(asked) == 15  # 4 choice + 1 ranking each; no rewriter
    assert not any("comedy game" in str(b["messages"]) for b in server.bodies)
    first_is_right = {q: [] for q in ("2T1", "3T1", "4T1", "5T2")}  # type: dict[str, list[bool]]
    for r in records:
        for q in r["output"]["questions"]:
            first_is_right[q["qtype"]].append(q["correct"] == (["A"] if q["n"] == 1 else ["A", "B"]))
    for qtype, hits in first_is_right.items():
        assert scores["headline"][f"acc_{qtype}"] == pytest.approx(sum(hits) / 3)
    assert scores["headline"]["unparsed"] == 0
    assert (out / "split.json").is_file() and "oogiri" in (out / "report.md").read_text()
    pooled = [h for hits in first_is_right.values() for h in hits]
    assert scores["headline"]["acc"] == pytest.approx(sum(pooled) / len(pooled))
    assert {k: len(v) for k, v in scores["per_item"].items()} == {
        "acc_2T1": 3, "acc_3T1": 3, "acc_4T1": 3, "acc_5T2": 3, "acc": 12,
        "top1": 3, "ndcg": 3, "spearman": 3}
    assert_per_item_means(Scores.model_validate(scores))


def test_oogiri_go_rows_use_the_rewriter_and_skip_images_for_text_only_models(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "images").mkdir(parents=True)
    (data / "images" / "7.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 16)
    lines = [{"type": "T2T", "question": "Why is the moon round?", "image": None,
              "text": f"joke {j}", "star": 10 - j} for j in range(5)]
    lines += [{"type": "I2T", "question": None, "image": "7", "text": f"caption joke {j}", "star": j}
              for j in range(2)]
    lines += [{"type": "I2T", "question": None, "image": "8", "text": "lost image", "star": 1}]
    (data / "en.jsonl").write_text(rows(*lines))
    server = ChatServer(reply=scripted)
    try:  # test share 0.9 of 3 prompts -> all 3 in the test split
        done = run("--source", str(data), "--test-share", "0.9", "--out", str(tmp_path / "run"),
                   "--judge", "openai:scripted-rewriter", server=server)
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    records = {json.loads(x)["unit"]["id"]: json.loads(x)
               for x in (tmp_path / "run" / "records.jsonl").read_text().splitlines()}
    text = next(r for k, r in records.items() if k.startswith("q-"))
    assert text["output"]["generated"]["literal"]["text"] == "A literal answer."
    assert text["output"]["generated"]["rewrite"]["text"] == "A rewritten answer."
    assert {c["role"] for c in text["calls"]} == {"target", "rewriter"}
    # the openai backend reads images: the image goes to the model as image content
    image = records["img-7"]
    sent = [c for c in image["calls"] if c["role"] == "target"][0]["request"]["messages"][0]["content"]
    assert sent[0]["type"] == "image_url" and sent[0]["url"].startswith("data:image/png;base64,")
    assert "image file not found" in records["img-8"]["output"]["skipped"]
    # a text-only model gets no image prompt, and the report counts them
    done = creval("run", "oogiri", "--model", "local", "--source", str(data),
                           "--test-share", "0.9", "--types", "I2T", "--no-progress",
                           "--out", str(tmp_path / "local"))
    assert done.returncode == 0, done.stderr
    scores = json.loads((tmp_path / "local" / "scores.json").read_text())
    assert scores["headline"]["prompts_skipped"] == 2 and scores["headline"]["prompts_answered"] == 0
    assert "text-only" in (tmp_path / "local" / "report.md").read_text()


def test_chinese_and_japanese_questions_are_asked_in_their_language() -> None:
    import asyncio

    from creval.benchmarks.base import get_benchmark
    from creval.benchmarks.oogiri.protocol import Settings, run_prompt
    from creval.models.base import Completion, GenerateRequest

    asked: list[str] = []

    async def model(request: GenerateRequest) -> list[Completion]:
        asked.append(request.messages[-1].text())
        return [Completion(text="Answer: A")]

    bench = get_benchmark("oogiri")
    for lang, label, word in (("zh", "题目：", "回答："), ("ja", "お題：", "回答:")):
        asked.clear()
        templates = bench._templates(bench.parse_options({"lang": lang}))  # type: ignore[attr-defined]
        settings = Settings(lang=lang, questions=("2T1", "rank"), seed=0, temperature=0.0,
                            max_tokens=8, rewriter_max_tokens=8, images_dir=None)
        out = asyncio.run(run_prompt(PROMPT, None, settings, templates, model, model,
                                     target_images=False, rewriter_images=False))
        assert len(asked) == 2 and all(label in a and word in a for a in asked)
        assert '"Answer: <letter>"' in asked[0] and "Ranking: <letter> > " in asked[1]
        assert out["questions"][0]["raw"] == "Answer: A"


def test_constrained_answers_carry_a_schema_and_are_scored_strictly() -> None:
    import asyncio

    from creval.benchmarks.base import get_benchmark
    from creval.benchmarks.oogiri.protocol import Settings, run_prompt
    from creval.models.base import Completion, GenerateRequest

    sent: list[GenerateRequest] = []

    async def model(request: GenerateRequest) -> list[Completion]:
        sent.append(request)
        schema = request.response_schema or {}
        if "ranking" in schema.get("properties", {}):
            return [Completion(text='{"ranking": ["A", "B", "C", "D", "E"]}')]
        n = schema["properties"]["answer"]["minItems"] if schema else 1
        return [Completion(text='{"answer": ["A"]}' if n == 1 else '{"answer": ["A", "A"]}')]

    bench = get_benchmark("oogiri")
    templates = bench._templates(bench.parse_options({}))  # type: ignore[attr-defined]
    settings = Settings(lang="en", questions=("2T1", "5T2", "rank"), seed=0, temperature=0.0,
                        max_tokens=8, rewriter_max_tokens=8, images_dir=None, constrain=True)
    out = asyncio.run(run_prompt(PROMPT, "It overslept.", settings, templates, model, model,
                                 target_images=False, rewriter_images=False, target_structured=True))
    assert out["constrained"] is True
    assert [r.response_schema["properties"][k]["maxItems"]  # type: ignore[index]
            for r, k in zip(sent, ("answer", "answer", "ranking"), strict=True)] == [1, 2, 5]
    rec = Record(key="p1", status="ok", unit={"id": "p1", "type": "T2T"}, output=out)
    scores = score_oogiri([rec], relevance="grade", loaded={"source": "t"}, constrain_requested=True)
    h = scores.headline
    # 2T1: "A" is right iff the human joke was shown as A; 5T2: "A, A" is not two letters
    assert h["acc_2T1"] == (1.0 if out["questions"][0]["correct"] == ["A"] else 0.0)
    assert h["acc_5T2"] == 0.0 and h["unparsed"] == 1 and h["ndcg"] is not None
    assert any("constrained to JSON letters" in n for n in scores.notes)
    # a backend that cannot constrain decoding answers freely, and the report says so
    sent.clear()
    free = asyncio.run(run_prompt(PROMPT, "It overslept.", settings, templates, model, model,
                                  target_images=False, rewriter_images=False, target_structured=False))
    assert free["constrained"] is False and all(r.response_schema is None for r in sent)
    rec = Record(key="p1", status="ok", unit={"id": "p1", "type": "T2T"}, output=free)
    notes = score_oogiri([rec], relevance="grade", loaded={"source": "t"}, constrain_requested=True).notes
    assert any("answered freely" in n for n in notes)
