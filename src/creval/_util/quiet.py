"""Keep third-party progress bars out of creval's console output.

transformers (>= 4.5x) draws a "Loading weights" progress bar each time it loads a
checkpoint, and huggingface_hub draws download bars; in ``creval run`` and ``creval score``
they interleave with creval's own progress and results. Call :func:`quiet_hf` before loading
a transformers or sentence-transformers model. It changes nothing else of their logging.
"""

from __future__ import annotations

import contextlib
import os


def quiet_hf() -> None:
    """Turn off transformers' and huggingface_hub's progress bars (idempotent, cheap)."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    with contextlib.suppress(ImportError):
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()
    with contextlib.suppress(ImportError):
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()
