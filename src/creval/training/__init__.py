"""DAT as a training signal (seed 004, section 5): a reward for TRL's GRPO trainer
(:class:`creval.training.reward.DATReward`) and SFT/DPO/GRPO data from DAT runs
(:mod:`creval.training.data`). TRL itself (the ``train`` extra) is needed only to train."""
