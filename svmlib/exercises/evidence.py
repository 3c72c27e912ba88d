"""Auto-checked exercises of chapter 6 (evidence and error bars)."""

from __future__ import annotations

import numpy as np

from ..evidence import exact_log_naive_evidence
from ..probabilistic import kappa
from . import Feedback, as_number, close_enough

__all__ = ["check_n1_log_evidence"]


def check_n1_log_evidence(K, C, answer):
    """Exercise ex-evidence-1: ln Q_naive for one training point with prior variance K and penalty C."""
    value = as_number(answer)
    if value is None:
        return Feedback(False, f"Give one number, ln Q_naive; got {answer!r}.")
    expected = exact_log_naive_evidence(np.array([[float(K)]]), np.array([1.0]), C)
    if close_enough(value, expected, rtol=1e-4, atol=1e-6):
        return Feedback(True, f"ln Q_naive = {expected:.5f}: the two pieces are P(theta > 1) and the "
                              "tilted Gaussian integral below the hinge.")
    if close_enough(value, expected - np.log(kappa(C)), rtol=1e-4, atol=1e-6):
        return Feedback(False, "You left out the normalising constant: add ln kappa(C) = -ln(1 + exp(-2C)).")
    if close_enough(value, np.exp(expected), rtol=1e-4):
        return Feedback(False, "That is Q_naive itself; the exercise asks for its logarithm.")
    return Feedback(False, f"Not {value:.6g}. Split the integral at theta = 1 and complete the square below it.")
