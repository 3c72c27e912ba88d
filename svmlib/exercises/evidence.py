"""Auto-checked exercises of chapter 6 (evidence and error bars)."""

from __future__ import annotations

import numpy as np

from ..evidence import exact_log_naive_evidence
from . import Feedback, close_enough

__all__ = ["check_n1_log_evidence"]


def check_n1_log_evidence(K, C, answer):
    """Exercise ex-evidence-1: ln Q_naive for one training point with prior variance K and penalty C."""
    expected = exact_log_naive_evidence(np.array([[float(K)]]), np.array([1.0]), C)
    if close_enough(answer, expected, rtol=1e-4, atol=1e-6):
        return Feedback(True, f"ln Q_naive = {expected:.5f}: the two pieces are P(theta > 1) and the "
                              "tilted Gaussian integral below the hinge.")
    if close_enough(np.exp(answer) if np.isscalar(answer) else np.nan, expected, rtol=1e-4):
        return Feedback(False, "You returned ln(ln Q)? Give the LOGARITHM of Q_naive, once.")
    if close_enough(answer, np.exp(expected), rtol=1e-4):
        return Feedback(False, "That is Q_naive itself; the exercise asks for its logarithm.")
    return Feedback(False, f"Not {answer!r}. Split the integral at theta = 1 and complete the square below it.")
