"""``macgyver-judges``: how well each convergent judge agrees with human correctness labels.

Every human-labelled (problem, solution) pair of MacGyver's ``benchmark_results.json`` is
judged by each chosen judge with the same judge model; a judge calls a solution correct
when its verdict on every criterion is yes (``--rule all``; ``effectiveness`` uses that
criterion alone). Reported per judge: accuracy and Cohen's kappa against the human label,
the confusion counts, and tokens per role, so the cost of the multi-agent judge can be
read against ChatEval's on the same items (seed 001, appendix D.3).

Offline it uses ten labelled solutions to our MacGyver starter problems (labels by us).
"""

from __future__ import annotations

from importlib import resources
from typing import Any, ClassVar, Literal

from creval.benchmarks.base import Benchmark, BenchmarkOptions, option, register_benchmark
from creval.errors import CrevalError
from creval.models.base import Completion, GenerateRequest
from creval.records import Scores
from creval.runner.engine import Unit, UnitContext
from creval.runner.store import Record


class JudgeAgreementOptions(BenchmarkOptions):
    labels: str | None = option(
        None, "MacGyver's benchmark_results.json (needs --problems); default: our labelled "
        "starter solutions.", kind="scale",
    )
    problems: str | None = option(None, "The MacGyver sheet (.xlsx/.csv) with the problem texts.", kind="scale")
    judges: str = option("multiagent,chateval,oneshot", "Comma-separated judges to compare.")
    judge_embedder: str = option("minilm", "Embedder of the multi-agent judge's fragment store.")
    judge_max_tokens: int = option(512, "Maximum tokens of a judge's answer.", ge=16)
    rule: Literal["all", "effectiveness"] = option(
        "all", "Correct = every criterion yes (all), or the effectiveness verdict alone.", kind="scoring"
    )
    structured_judges: bool = option(
        True, "Ask the judges for their answers' JSON shape when the judge backend can constrain "
        "decoding (parsing stays strict; recorded per verdict and in the notes).")


def _labels(options: JudgeAgreementOptions) -> list[Any]:
    from creval.benchmarks.openended.data import load_macgyver_table, load_problems
    from creval.benchmarks.openended.human_labels import load_human_labels

    if options.labels is None:
        path = str(resources.files("creval") / "data" / "openended" / "macgyver_labels.json")
        problems = load_problems("macgyver")
    else:
        if options.problems is None:
            raise CrevalError("--labels needs --problems: the MacGyver sheet holding the problem texts.")
        path, problems = options.labels, load_macgyver_table(options.problems, solvable_only=False)
    labels = load_human_labels(path, problems=problems).labels
    return labels[: options.limit] if options.limit else labels


@register_benchmark
class MacGyverJudges(Benchmark[JudgeAgreementOptions]):
    name = "macgyver-judges"
    description = "Convergent judges vs MacGyver's human correctness labels: accuracy, kappa, tokens."
    seed_paper = "001"
    Options = JudgeAgreementOptions
    roles = ("target", "judge")
    renamed_options: ClassVar[dict[str, str]] = {
        "max_tokens": "use --judge-max-tokens for the judge's answer.",
    }

    def units(self, options: JudgeAgreementOptions) -> list[Unit]:
        from creval.benchmarks.openended.benchmark import parse_judges
        from creval.benchmarks.openended.judging import judge_solution

        judges = parse_judges(options.judges)
        if not judges:
            raise CrevalError("--judges: name at least one judge.")
        units = []
        for label in _labels(options):

            async def run(ctx: UnitContext, label: Any = label) -> dict[str, Any]:
                async def judge_model(request: GenerateRequest) -> list[Completion]:
                    return await ctx.generate(request, role="judge")

                structured = options.structured_judges and ctx.capabilities("judge").structured_output
                verdicts = await judge_solution(
                    judges, judge_model, problem=label.problem or "", solution=label.solution,
                    domain="macgyver", embedder=options.judge_embedder, max_tokens=options.judge_max_tokens,
                    structured=structured,
                )
                return {"verdicts": verdicts}

            meta = {"key": label.key, "problem_id": label.problem_id, "source": label.source,
                    "annotation": label.annotation, "correct": label.correct}
            units.append(Unit(key=f"label-{label.key}", run=run, meta=meta))
        return units

    def score(self, records: list[Record], options: JudgeAgreementOptions) -> Scores:
        from creval.benchmarks.openended.benchmark import constrained_judges_note
        from creval.metrics.agreement import cohen_kappa

        ok = [r for r in records if r.status == "ok"]
        names = sorted({n for r in ok for n in r.output.get("verdicts", {})})
        rows, headline = [], {}
        for name in names:
            pairs, undecided, tokens = [], 0, 0
            for r in ok:
                verdict = r.output["verdicts"].get(name)
                if verdict is None:
                    continue
                usage = verdict.get("total_usage", {})
                tokens += int(usage.get("input_tokens", 0)) + int(usage.get("output_tokens", 0))
                judged = _correct(verdict["verdicts"], options.rule)
                if judged is None:
                    undecided += 1
                else:
                    pairs.append((bool(r.unit["correct"]), judged))
            row: dict[str, Any] = {"judge": name, "items": len(pairs), "undecided": undecided,
                                   "tokens": tokens}
            if pairs:
                human, judged_all = [h for h, _ in pairs], [j for _, j in pairs]
                row["accuracy"] = sum(h == j for h, j in pairs) / len(pairs)
                row["kappa"] = cohen_kappa(human, judged_all).kappa
                row["true_positive"] = sum(h and j for h, j in pairs)
                row["false_positive"] = sum(j and not h for h, j in pairs)
                row["false_negative"] = sum(h and not j for h, j in pairs)
            headline[f"{name}_accuracy"] = row.get("accuracy")
            headline[f"{name}_tokens"] = tokens
            rows.append(row)
        chateval, multiagent = headline.get("chateval_tokens"), headline.get("multiagent_tokens")
        if chateval and multiagent is not None:
            headline["multiagent_tokens_vs_chateval"] = multiagent / chateval
        return Scores(
            headline=headline,
            table=rows,
            notes=[
                f"A judge calls a solution correct when {'every criterion verdict is yes' if options.rule == 'all' else 'its effectiveness verdict is yes'}; "
                "a verdict that did not parse makes the item undecided (left out of accuracy).",
                "Human labels: correct_* = correct, wrong_* = incorrect (MacGyver's annotation).",
                constrained_judges_note(records),
            ],
        )


def _correct(verdicts: dict[str, bool | None], rule: str) -> bool | None:
    """The binary correctness a judge's criterion verdicts imply, or None if undecided.

    >>> _correct({"feasibility": True, "safety": True, "effectiveness": False}, "all")
    False
    >>> _correct({"feasibility": None, "effectiveness": True}, "effectiveness")
    True
    >>> _correct({"feasibility": None, "effectiveness": True}, "all") is None
    True
    """
    if rule == "effectiveness":
        return verdicts.get("effectiveness")
    values = list(verdicts.values())
    if any(v is False for v in values):
        return False
    return None if any(v is None for v in values) or not values else True
