"""Auto-checked exercises of chapter 5 (the SVM as a GP model)."""

from __future__ import annotations

import numpy as np

from ..probabilistic import dont_know
from . import Feedback, close_enough

__all__ = ["check_dont_know_at_zero"]


def check_dont_know_at_zero(C, answer):
    """Exercise ex-gp-prior-1: the "don't know" probability 1 - nu(0) at theta = 0 for a given C."""
    expected = float(dont_know(0.0, C))
    if close_enough(answer, expected, rtol=1e-3):
        return Feedback(True, f"1 - nu(0) = 1 - 1/cosh({C:g}) = {expected:.4f}: at theta = 0 the model is "
                              "most unsure, and the gap grows with C.")
    if close_enough(answer, 1 - expected, rtol=1e-3):
        return Feedback(False, "That is nu(0), the probability of a DEFINITE answer; subtract it from 1.")
    return Feedback(False, f"Not {answer!r}. Use nu(theta) = cosh(C theta)/cosh(C) for |theta| <= 1 at theta = 0.")
