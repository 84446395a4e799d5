"""The step-cost setting every digit model is built with (`TUTORIAL_STEP_COST`; see `workload.__doc__`)."""

from __future__ import annotations

import math
import os

STEP_COST_ENV = "TUTORIAL_STEP_COST"


def step_cost_factor() -> float:
    """Return the TUTORIAL_STEP_COST factor (1 when unset); refuse a value that is not a positive number."""
    raw = os.environ.get(STEP_COST_ENV, "").strip()
    if not raw:
        return 1.0
    try:
        factor = float(raw)
    except ValueError:
        factor = float("nan")
    if not (factor > 0 and math.isfinite(factor)):
        raise ValueError(f"{STEP_COST_ENV}={raw!r}: set it to a positive number (4 = a model step four times "
                         "slower, 0.25 = four times cheaper) or unset it")
    return factor


def scaled_units(hidden_units: int) -> int:
    """Return the hidden units a digit model really gets: `hidden_units` times the square root of the factor."""
    return max(1, round(hidden_units * math.sqrt(step_cost_factor())))
