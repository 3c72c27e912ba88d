"""Auto-checked exercises of chapter 3 (duality and SMO)."""

from __future__ import annotations

import numpy as np

from . import Feedback, as_numbers, close_enough

__all__ = ["check_lagrange_maximum", "check_two_point_dual"]


def check_lagrange_maximum(x, y):
    """Check the maximiser of f(x, y) = 3x + 4y on the unit circle x^2 + y^2 = 1 (eq. smo-lagrange-tangency)."""
    try:
        p = np.array([float(x), float(y)])
    except (TypeError, ValueError):
        return Feedback(False, "Give x and y as two numbers.")
    if not np.all(np.isfinite(p)):
        return Feedback(False, "x and y must be finite numbers.")
    if abs(p @ p - 1.0) > 1e-3:
        return Feedback(False, f"(x, y) is not on the circle: x^2 + y^2 = {p @ p:.4g}, not 1. The constraint "
                               "fixes the length; the tangency condition fixes the direction.")
    if close_enough(p, [0.6, 0.8], atol=1e-3):
        return Feedback(True, "grad f = (3, 4) = lambda (2x, 2y) gives (x, y) parallel to (3, 4); on the circle "
                              "(3/5, 4/5), with f = 5 and lambda = 5/2.")
    if close_enough(p, [-0.6, -0.8], atol=1e-3):
        return Feedback(False, "That point also satisfies grad f = lambda grad g, but it is the minimum (f = -5, "
                               "lambda < 0). Compare f at both candidates.")
    return Feedback(False, f"f = {3 * p[0] + 4 * p[1]:.4g} here. Where grad f = (3, 4) is parallel to grad g = "
                           "(2x, 2y), the level line of f touches the circle.")


def check_two_point_dual(alpha):
    """Check the hard-margin dual solution for x_1 = (1, 0), y_1 = +1 and x_2 = (-1, 0), y_2 = -1."""
    a = as_numbers(alpha, 2)
    if a is None:
        return Feedback(False, "Give alpha as two finite numbers (alpha_1, alpha_2).")
    if np.any(a < 0):
        return Feedback(False, "Multipliers of inequality constraints are never negative (alpha_i >= 0).")
    if abs(a[0] - a[1]) > 1e-6:
        return Feedback(False, "The constraint sum_i y_i alpha_i = 0 (from dL/db = 0) forces alpha_1 = alpha_2 here.")
    if close_enough(a, [0.5, 0.5], atol=1e-6):
        return Feedback(True, "W(a, a) = 2a - 2a^2 is maximal at a = 1/2; then w = sum alpha_i y_i x_i = (1, 0), "
                              "b = 0, margin 1/||w|| = 1: half the distance of the two points, as chapter 1 predicts.")
    return Feedback(False, f"W(alpha) = 2a - a^2 |x_1 - x_2|^2 / 2 = {2 * a[0] - 2 * a[0] ** 2:.4g} at your a; "
                           "maximise it over a (set its derivative to zero).")
