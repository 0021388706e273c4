"""The DAT score as a reward for TRL's ``GRPOTrainer`` (seed 004, section 5.1.3).

The paper's reward is 10 times the DAT score (the mean pairwise cosine distance of the
words); a response that does not follow the format or has an invalid word (not a noun, not
Japanese, a symbol) earns 0, and so does a response identical to an earlier one. Here the
validity check and the distance are those of ``creval run dat`` with the same options
(:class:`creval.benchmarks.dat.scoring.DATScorer`): the all-valid variant is the paper's; with
the Olson variant (English default, scores x 100) the reward is 10 x the unscaled distance
too. "Identical" is read as the same word list in the same order (numbering, spacing and
case aside), remembered for the reward's lifetime (the training run).

A :class:`DATReward` is a callable with TRL's reward-function signature
``(prompts, completions, **kwargs) -> list[float]``; completions may be strings or
conversational (lists of messages, the last one's ``content`` is scored)::

    from trl import GRPOConfig, GRPOTrainer
    reward = DATReward.from_options(lang="ja")
    GRPOTrainer(model=..., reward_funcs=reward, args=GRPOConfig(...), train_dataset=...)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval.errors import CrevalError

if TYPE_CHECKING:
    from creval.benchmarks.dat.scoring import DATScorer

#: The paper's factor: reward = 10 x DAT score.
PAPER_SCALE = 10.0


def completion_text(completion: Any) -> str:
    """The text of one completion: a string, or the last message of a conversational one.

    >>> completion_text([{"role": "assistant", "content": "1. cat"}])
    '1. cat'
    """
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and completion and isinstance(completion[-1], dict):
        return str(completion[-1].get("content", ""))
    raise CrevalError(f"A completion must be a string or a list of messages, got {type(completion).__name__}.")


def dat_options(run_dir: Path | str) -> dict[str, Any]:
    """The DAT options a run was made with (from its manifest)."""
    from creval.reader import read_run

    run = read_run(run_dir)
    if run.benchmark != "dat":
        raise CrevalError(f"{run.path} is a {run.benchmark} run; DAT training data comes from DAT runs (creval run dat).")
    return dict(run.manifest.options)


class DATReward:
    """``scale`` x the DAT distance of each completion; 0 when invalid or already seen."""

    #: The name TRL logs the reward under (``rewards/dat_reward/mean``).
    __name__ = "dat_reward"

    def __init__(self, scorer: DATScorer, *, scale: float = PAPER_SCALE, zero_repeats: bool = True) -> None:
        self.scorer = scorer
        self.scale = scale
        self.zero_repeats = zero_repeats
        #: The word lists rewarded so far (normalised), for zeroing repeats.
        self.seen: set[tuple[str, ...]] = set()

    @classmethod
    def from_options(cls, *, scale: float = PAPER_SCALE, zero_repeats: bool = True, **options: Any) -> DATReward:
        """The reward scored as ``creval run dat`` with these options (``lang``, ``variant``,
        ``vectors``, ``embedder``, ...)."""
        from creval.benchmarks.dat import DATOptions
        from creval.benchmarks.dat.scoring import DATScorer

        return cls(DATScorer.from_options(DATOptions(**options)), scale=scale, zero_repeats=zero_repeats)

    @classmethod
    def from_run(cls, run_dir: Path | str, **kwargs: Any) -> DATReward:
        """The reward scored with the options of an earlier ``creval run dat``."""
        return cls.from_options(**dat_options(run_dir), **kwargs)

    def distance(self, text: str) -> float | None:
        """The DAT mean cosine distance of one answer (unscaled), or None when invalid."""
        from creval.benchmarks.dat.lists import parse_word_list

        result = self.scorer.score_words(parse_word_list(text, expected=self.scorer.words))
        if result.score is None:
            return None
        return float(result.score) / 100 if self.scorer.variant == "olson" else float(result.score)

    def reward(self, text: str) -> float:
        """The reward of one answer (and remember it, for zeroing repeats)."""
        from creval.benchmarks.dat.lists import parse_word_list

        key = tuple(w.strip().lower() for w in parse_word_list(text, expected=self.scorer.words))
        if self.zero_repeats and key in self.seen:
            return 0.0
        self.seen.add(key)
        distance = self.distance(text)
        return 0.0 if distance is None else self.scale * distance

    def __call__(self, prompts: Sequence[Any] | None = None, completions: Sequence[Any] | None = None,
                 **kwargs: Any) -> list[float]:
        """TRL's reward signature: one reward per completion."""
        if completions is None:
            raise CrevalError("DATReward needs completions=[...] (TRL passes them by keyword).")
        rewards = [self.reward(completion_text(c)) for c in completions]
        log_metric: Callable[[str, float], None] | None = kwargs.get("log_metric")
        if callable(log_metric) and rewards:
            log_metric("dat_valid_share", sum(r > 0 for r in rewards) / len(rewards))
        return rewards
