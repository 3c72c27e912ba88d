"""Auto-checked exercises of chapter 2 (soft margin and the primal).

Call a checker with your answer; it returns a :class:`~svmlib.exercises.Feedback`.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import lsq_linear

from . import Feedback, as_numbers, close_enough

__all__ = ["SLACK_POINTS", "SLACK_LABELS", "SLACK_W", "SLACK_B", "SLACK_C", "check_slacks", "check_subgradient"]

#: Data of exercises ex-soft-1/ex-soft-2: five points, the line w.x + b = 0 with w = (1, 0), b = 0.
SLACK_POINTS = np.array([[2.0, 0.0], [1.0, 1.0], [0.5, -1.0], [-0.5, 0.0], [-3.0, 2.0]])
SLACK_LABELS = np.array([1.0, 1.0, 1.0, 1.0, -1.0])
SLACK_W = np.array([1.0, 0.0])
SLACK_B = 0.0
SLACK_C = 1.0


def _margins():
    return SLACK_LABELS * (SLACK_POINTS @ SLACK_W + SLACK_B)


def check_slacks(xi):
    """Check the optimal slacks xi_i = max(0, 1 - y_i (w.x_i + b)) (eq. soft-hinge) of the five points."""
    expected = np.maximum(0.0, 1.0 - _margins())
    try:
        xi = np.asarray(xi, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        return Feedback(False, "Give five numbers, one slack per point.")
    if xi.shape != (5,):
        return Feedback(False, f"Give one slack per point: 5 numbers, not {xi.size}.")
    if np.any(xi < 0):
        return Feedback(False, "Slacks are never negative: a point beyond its margin has slack 0, not a bonus.")
    if close_enough(xi, expected, atol=1e-6):
        return Feedback(True, "xi = (0, 0, 0.5, 1.5, 0): point 0 and 1 meet the margin, point 2 is inside it, "
                              "point 3 is misclassified (xi > 1), point 4 is far on its own side.")
    wrong = np.flatnonzero(~np.isclose(xi, expected, atol=1e-6)).tolist()
    return Feedback(False, f"Check point(s) {wrong}: compute t = y (w.x + b) first; then xi = max(0, 1 - t).")


def check_subgradient(g, C=SLACK_C):
    r"""Check a subgradient ``g = (g_w1, g_w2, g_b)`` of the primal objective (eq. soft-primal-hinge)
    at ``w = SLACK_W``, ``b = SLACK_B`` on the five points.

    Point 1 sits exactly on the margin (t = 1), where the hinge has a kink: every vector
    :math:`(w, 0) - C \sum_{t_i<1} y_i (x_i, 1) - C \theta y_1 (x_1, 1)`, :math:`\theta \in [0, 1]`,
    is a subgradient, and the checker accepts all of them.
    """
    g = as_numbers(g, 3)
    if g is None:
        return Feedback(False, "Give g as three finite numbers (d/dw1, d/dw2, d/db).")
    t = _margins()
    Xa = np.hstack([SLACK_POINTS, np.ones((5, 1))])
    base = np.r_[SLACK_W, 0.0] - C * (SLACK_LABELS[t < 1 - 1e-12, None] * Xa[t < 1 - 1e-12]).sum(axis=0)
    kinks = np.flatnonzero(np.abs(t - 1) <= 1e-12)
    directions = -C * SLACK_LABELS[kinks, None] * Xa[kinks]  # (n_kinks, 3)
    # is g - base in { directions^T theta : theta in [0, 1]^k } ?  bounded least squares
    fit = lsq_linear(directions.T, g - base, bounds=(0.0, 1.0))
    if np.linalg.norm(directions.T @ fit.x - (g - base)) < 1e-6 * max(1.0, np.linalg.norm(g)):
        theta = ", ".join(f"{v:.3g}" for v in fit.x)
        return Feedback(True, f"A valid subgradient (theta = {theta} for the point on the margin). At the kink "
                              "any theta in [0, 1] works; gradient descent's 'gradient' is just one choice.")
    if close_enough(g, np.r_[SLACK_W, 0.0], atol=1e-6):
        return Feedback(False, "That is only the regulariser's gradient (w, 0); points with y (w.x + b) < 1 "
                               "add -C y_i (x_i, 1) each.")
    return Feedback(False, "Not a subgradient. Sum -C y_i (x_i, 1) over the points with y (w.x + b) < 1, add "
                           "(w, 0) from the regulariser, and remember the point with t = 1 exactly (a kink).")
