"""Seed 001 analyses on hand-built runs: each pins a number to a calculation done by hand.

A hand-built run is what ``creval run macgyver`` leaves (manifest, records, scores with its
Steps section), written here with chosen values so that the expected numbers follow on paper.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from _cli import creval

from creval.analyses.openended import (
    convergent_frame,
    diversity_frame,
    judge_accuracy_frame,
    naive_entropy_frame,
    temperature_frame,
)

pytestmark = pytest.mark.unverified_runs("hand-made MacGyver runs: records and scores written by the tests")

LN2, LN3, LN4 = math.log(2), math.log(3), math.log(4)


def candidate(text: str, logprob_mean: float = -1.0) -> dict[str, Any]:
    return {"raw": text, "text": text, "finished": False, "valid": True,
            "logprob_mean": logprob_mean, "logprob_sum": 2 * logprob_mean, "n_tokens": 2}


def make_run(root: Path, solutions: list[dict[str, Any]], *, temperature: float = 1.0,
             model: str = "m", **options: Any) -> Path:
    """``solutions``: dicts with ``id``, ``steps`` (each ``texts`` and ``se``, optional
    ``clusters`` and diversity values) and optional ``verdicts`` (criterion -> bool | None, the
    one-shot judge's) or ``judges`` (judge -> such verdicts)."""
    root.mkdir(parents=True)
    (root / "manifest.json").write_text(json.dumps(
        {"benchmark": "macgyver", "model_spec": model, "options": {"temperature": temperature, **options}}))
    records, table, steps = [], [], []
    for sol in solutions:
        trace = []
        for number, step in enumerate(sol["steps"], start=1):
            trace.append({"step": number, "chosen": step["texts"][0],
                          "candidates": [candidate(t) for t in step["texts"]]})
            steps.append({"id": sol["id"], "step": number, "valid": len(step["texts"]),
                          "clusters": step.get("clusters", 1), "discrete": step["se"],
                          "length_normalised": step["se"], "probability_weighted": step["se"],
                          **{k: step[k] for k in ("cosine_similarity", "self_bleu", "distinct_1", "distinct_2")
                             if k in step}})
        judges = sol.get("judges", {"oneshot": sol["verdicts"]} if "verdicts" in sol else {})
        verdicts = {name: {"verdicts": v} for name, v in judges.items()}
        records.append({"key": f"macgyver-{sol['id']}", "status": "ok", "unit": {"id": sol["id"]},
                        "output": {"steps": trace, "verdicts": verdicts}})
        mean = sum(s["se"] for s in sol["steps"]) / len(sol["steps"])
        table.append({"id": sol["id"], "se_length_normalised": sol.get("se", mean)})
    (root / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (root / "scores.json").write_text(json.dumps(
        {"benchmark": "macgyver", "headline": {}, "table": table,
         "sections": [{"title": "Steps", "rows": steps}]}))
    return root


def test_naive_entropy_ablation_matches_a_hand_calculation(tmp_path: Path) -> None:
    # one step each; every candidate has mean log-probability -1, so class shares are counts
    run = make_run(tmp_path / "run", [
        {"id": "s1", "steps": [{"texts": ["a", "a", "a", "b"], "se": 0.0}]},    # naive: 3/4, 1/4
        {"id": "s2", "steps": [{"texts": ["a", "b", "c", "d"], "se": LN2}]},    # naive: ln 4
        {"id": "s3", "steps": [{"texts": ["a", "a", "b", "b"], "se": 1.0397}]},  # naive: ln 2
    ])
    (tmp_path / "novelty.csv").write_text("id,rank,annotator\ns1,3,x\ns2,1,x\ns3,1,y\ns3,3,z\n")
    table, points = naive_entropy_frame([run], tmp_path / "novelty.csv")
    naive = dict(zip(points["id"], points["naive_entropy"], strict=True))
    assert naive["s1"] == pytest.approx(-(0.75 * math.log(0.75) + 0.25 * math.log(0.25)))  # 0.5623
    assert naive["s2"] == pytest.approx(LN4)
    # novelty ranks s1 3, s2 1, s3 mean(1, 3) = 2. Naive ranks s1 1, s3 2, s2 3: exactly reversed.
    # Semantic ranks s1 1, s2 2, s3 3 vs 3, 1, 2: d = -2, 1, 1, rho = 1 - 6 * 6 / (3 * 8) = -0.5
    (row,) = table.to_dict("records")
    assert row["rho_naive"] == pytest.approx(-1.0)
    assert row["rho_semantic"] == pytest.approx(-0.5)
    assert row["solutions"] == 3
    # the same ranks as `creval novelty --mode pool --out` writes them: each run's order
    (tmp_path / "novelty.json").write_text(json.dumps(
        {"mode": "pool", "models": [{"run": str(run), "order": ["s2", "s3", "s1"]}]}))
    again, _ = naive_entropy_frame([run], tmp_path / "novelty.json")
    assert again.loc[0, "rho_semantic"] == pytest.approx(-0.5)


def test_diversity_correlation_matches_a_hand_calculation(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run", [
        {"id": "s1", "steps": [{"texts": ["a", "b"], "se": 0.0, "self_bleu": 0.9},
                               {"texts": ["a", "b"], "se": 0.69, "self_bleu": 0.8}]},
        {"id": "s2", "steps": [{"texts": ["a", "b"], "se": 1.04, "self_bleu": 0.85},
                               {"texts": ["a", "b"], "se": 1.39, "self_bleu": 0.1}]},
    ])
    frame = diversity_frame([run])
    (row,) = frame[frame.metric == "self_bleu"].to_dict("records")
    # ranks of SE 1, 2, 3, 4; of Self-BLEU 4, 2, 3, 1: d = -3, 0, 0, 3, rho = 1 - 6 * 18 / 60
    assert row["rho"] == pytest.approx(-0.8) and row["steps"] == 4
    assert frame[frame.metric == "distinct_1"]["rho"].isna().all()  # no values, no correlation


def test_convergent_correlation_and_bins_match_a_hand_calculation(tmp_path: Path) -> None:
    solutions = [{"id": f"s{i}", "se": se, "steps": [{"texts": ["a"], "se": se}],
                  "verdicts": {"Feasibility": v, "safety": True}}
                 for i, (se, v) in enumerate([(0.1, False), (0.2, False), (0.3, True), (0.4, True), (0.5, None)])]
    frame, bins = convergent_frame([make_run(tmp_path / "run", solutions)], bin_size=2)
    feas = frame[frame.criterion == "feasibility"].iloc[0]
    # ranks x 1..4, y 1.5, 1.5, 3.5, 3.5: sum dx dy = 4, sum dx^2 = 5, sum dy^2 = 4 -> 4 / sqrt(20)
    assert feas["rho"] == pytest.approx(4 / math.sqrt(20)) and feas["solutions"] == 4  # None left out
    assert frame[frame.criterion == "safety"]["rho"].isna().all()  # constant verdicts
    points = bins[bins.criterion == "feasibility"][["median_entropy", "mean_verdict", "points"]].values.tolist()
    assert points == [pytest.approx([0.15, 0.0, 2]), pytest.approx([0.35, 1.0, 2])]


def test_temperature_and_clusters_match_a_hand_calculation(tmp_path: Path) -> None:
    cold = make_run(tmp_path / "cold", [{"id": "s1", "steps": [
        {"texts": ["a"], "se": 0.0, "clusters": 1}, {"texts": ["a", "b"], "se": LN2, "clusters": 2},
        {"texts": ["a", "b"], "se": LN2, "clusters": 2}]}], temperature=0.5)
    hot = make_run(tmp_path / "hot", [{"id": "s1", "steps": [
        {"texts": ["a", "b"], "se": LN2, "clusters": 2}, {"texts": ["a", "b", "c"], "se": LN3, "clusters": 3},
        {"texts": ["a", "b", "c", "d"], "se": LN4, "clusters": 4}]}], temperature=1.0)
    frame, per_cluster = temperature_frame([hot, cold])
    assert list(frame["temperature"]) == [0.5, 1.0]  # sorted by temperature
    assert frame.iloc[1]["mean_step_entropy"] == pytest.approx(math.log(24) / 3)  # (ln 2 + ln 3 + ln 4) / 3
    assert frame.iloc[1]["rho_clusters"] == pytest.approx(1.0)
    cold_two = per_cluster[(per_cluster.model == "m T=0.5") & (per_cluster.clusters == 2)].iloc[0]
    assert cold_two["mean_step_entropy"] == pytest.approx(LN2) and cold_two["steps"] == 2


def test_judge_accuracy_matches_a_hand_calculation(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run", [
        {"id": "s1", "steps": [{"texts": ["a"], "se": 0.0}], "verdicts": {"feasibility": True, "safety": True}},
        {"id": "s2", "steps": [{"texts": ["a"], "se": 0.0}], "verdicts": {"feasibility": None, "safety": False}},
    ])
    labels = tmp_path / "labels.csv"
    labels.write_text("id,criterion,annotator_1,annotator_2,annotator_3\n"
                      "s1,feasibility,yes,yes,no\n"   # gold yes; judge yes
                      "s1,safety,yes,no,no\n"         # gold no; judge yes (wrong)
                      "s2,feasibility,yes,yes,yes\n"  # gold yes; judge undecided
                      "s2,safety,yes,no,\n")          # tie: no gold, left out
    frame = judge_accuracy_frame([run], labels).set_index("rater")
    judge = frame.loc["oneshot @ m"]
    assert judge["accuracy"] == 0.5 and judge["items"] == 2 and judge["undecided"] == 1
    assert judge["feasibility"] == 1.0 and judge["safety"] == 0.0
    # annotator_1 says yes, yes, yes against gold yes, no, yes
    assert frame.loc["annotator_1", "accuracy"] == pytest.approx(2 / 3)


def test_judge_accuracy_per_judge_and_confidence_threshold(tmp_path: Path) -> None:
    from creval.analyses.openended import judge_accuracy_analysis

    labels = tmp_path / "labels.csv"
    labels.write_text("id,criterion,annotator_1\ns1,feasibility,yes\ns2,feasibility,no\n")
    runs = [make_run(tmp_path / f"t{t}", [
        {"id": "s1", "steps": [{"texts": ["a"], "se": 0.0}],
         "judges": {"multiagent": {"feasibility": True}, "oneshot": {"feasibility": False}}},
        {"id": "s2", "steps": [{"texts": ["a"], "se": 0.0}],
         "judges": {"multiagent": {"feasibility": t == 0.5}, "oneshot": {"feasibility": False}}},
    ], judge_threshold=t) for t in (0.3, 0.5)]
    result = judge_accuracy_analysis(runs, labels)
    judges = result.frame[result.frame.kind == "judge"].set_index(["judge", "threshold"], drop=False)
    # at 0.3 the multi-agent judge gets both right, at 0.5 it calls s2 feasible: 1 of 2
    assert judges.loc[("multiagent", 0.3), "accuracy"] == 1.0
    assert judges.loc[("multiagent", 0.5), "accuracy"] == 0.5
    assert list(result.frame[result.frame.judge == "oneshot"]["accuracy"]) == [0.5, 0.5]
    (figure8,) = [p for p in result.plots if "Figure 8" in p["title"]]
    assert figure8["data"] == {"x": [0.3, 0.5], "series": {"multiagent": [1.0, 0.5]}}


def test_bad_label_files_say_what_to_fix(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run", [{"id": "s1", "steps": [{"texts": ["a"], "se": 0.0}],
                                        "verdicts": {"feasibility": True}}])
    bad = tmp_path / "bad.csv"
    bad.write_text("id,criterion,rater\ns1,feasibility,yes\n")
    done = creval("analyze", "judge-accuracy", str(run), "--labels", str(bad))
    assert done.returncode == 2 and "annotator_1" in done.stderr
    bad.write_text("id,criterion,annotator_1\ns1,feasibility,maybe\n")
    done = creval("analyze", "judge-accuracy", str(run), "--labels", str(bad))
    assert done.returncode == 2 and "'maybe' is not a yes/no label" in done.stderr
    bad.write_text("id,criterion,annotator_1\nother,feasibility,yes\n")
    done = creval("analyze", "judge-accuracy", str(run), "--labels", str(bad))
    assert done.returncode == 2 and "problem ids" in done.stderr
    done = creval("analyze", "naive-entropy", str(run), "--novelty", str(bad))
    assert done.returncode == 2 and "rank" in done.stderr


PAIRS = ("id,text_a,text_b,annotator_1,annotator_2,annotator_3\n"
         "p1,Tie the rope to the hook.,Tie the rope to the hook.,yes,yes,no\n"   # gold yes
         "p2,Tie the rope to the hook.,Melt the ice with salt.,no,no,no\n"       # gold no
         "p3,Use the spoon as a lever.,Use the spoon as a lever.,no,no,yes\n"   # gold no
         "p4,Heat the pan on the stove.,Sing a song to the cat.,no,yes,no\n")   # gold no


def test_entailment_models_match_a_hand_calculation_with_the_offline_fallback(tmp_path: Path) -> None:
    from creval.analyses.openended import entailment_frame

    labels = tmp_path / "pairs.csv"
    labels.write_text(PAIRS)
    frames = entailment_frame(labels, ["embedding:0.85"], thresholds=[0.9, 2.0])
    # identical texts (cosine 1) entail both ways, unrelated ones do not: yes, no, yes, no
    # against gold yes, no, no, no: 3 of 4; p_e = 1/2 * 1/4 + 1/2 * 3/4 = 1/2, kappa = 1/2
    (row,) = frames["models"].to_dict("records")
    assert row["accuracy"] == 0.75 and row["kappa"] == pytest.approx(0.5) and row["false_positive"] == 1
    sweep = frames["sweep"].set_index("threshold")["accuracy"]
    assert sweep[0.9] == 0.75 and sweep[2.0] == 0.75  # above every cosine: all no, 3 of 4 right
    agreement = frames["agreement"].set_index("annotator")
    # annotators 1 and 2: yes no no no / yes no no yes: p_o 3/4, p_e 1/4*2/4 + 3/4*2/4 = 1/2
    assert agreement.loc["annotator_1", "annotator_2"] == pytest.approx(0.5)
    assert list(frames["labels"]["pairs"]) == [1, 3, 0]


def _tiny_nli_model(folder: Path) -> Path:
    """A randomly initialised BERT NLI classifier built from a config, with a word vocabulary."""
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    folder.mkdir()
    words = sorted({w.strip(".").lower() for line in PAIRS.splitlines()[1:] for w in line.split(",")[1].split()
                    + line.split(",")[2].split()})
    (folder / "vocab.txt").write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", *words]) + "\n")
    BertTokenizer(str(folder / "vocab.txt")).save_pretrained(folder)
    config = BertConfig(vocab_size=6 + len(words), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=64, num_labels=3,
                        id2label={0: "entailment", 1: "neutral", 2: "contradiction"},
                        label2id={"entailment": 0, "neutral": 1, "contradiction": 2})
    BertForSequenceClassification(config).save_pretrained(folder)
    return folder


def test_an_nli_model_from_a_config_is_swept_on_its_entailment_probability(tmp_path: Path) -> None:
    from creval.analyses.openended import entailment_frame

    pytest.importorskip("transformers")
    model = _tiny_nli_model(tmp_path / "nli")
    labels = tmp_path / "pairs.csv"
    labels.write_text(PAIRS)
    frames = entailment_frame(labels, [f"hf:{model}"], direction="forward", thresholds=[0.0, 1.01])
    # whatever the random weights say: at 0 every pair is entailment (1 of 4 right), above 1 none (3 of 4)
    sweep = frames["sweep"].set_index("threshold")["accuracy"]
    assert sweep[0.0] == 0.25 and sweep[1.01] == 0.75
    (row,) = frames["models"].to_dict("records")
    assert row["approximate"] is False and row["pairs"] == 4
