"""Validation shared by the metric functions: plain numbers in, or a ``ValueError`` that names
the argument and the index of the bad value."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


def finite_numbers(values: Any, name: str) -> list[float]:
    """``values`` as floats, each finite; a string, a non-sequence, a bool or a NaN is refused.

    >>> finite_numbers([1, 2.5], "a")
    [1.0, 2.5]
    >>> finite_numbers([1, float("nan")], "b")
    Traceback (most recent call last):
    ...
    ValueError: b[1] must be a finite number, got nan.
    """
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise ValueError(f"{name} must be a sequence of numbers, got {type(values).__name__}.")
    out = []
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f"{name}[{i}] must be a finite number, got {v!r}.")
        out.append(float(v))
    return out
