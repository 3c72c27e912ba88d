"""Auto-checked exercises of :ref:`Chapter 3 <ch-duality>` (duality and SMO)."""

from __future__ import annotations

import numpy as np

from .._book_numbers import chapter, eq
from . import Feedback, as_numbers, close_enough

__all__ = ["check_lagrange_maximum", "check_two_point_dual", "check_smo_step"]


def check_lagrange_maximum(x, y):
    """Check the maximiser of f(x, y) = 3x + 4y on the unit circle x^2 + y^2 = 1 (eq. :eq:`(3.1) <smo-lagrange-tangency>`)."""
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
        return Feedback(True, "grad f = (3, 4) = mu (2x, 2y) gives (x, y) parallel to (3, 4); on the circle "
                              "(3/5, 4/5), with f = 5 and mu = 5/2.")
    if close_enough(p, [-0.6, -0.8], atol=1e-3):
        return Feedback(False, "That point also satisfies grad f = mu grad g, but it is the minimum (f = -5, "
                               "mu < 0). Compare f at both candidates.")
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
                              f"b = 0, margin 1/||w|| = 1: half the distance of the two points, as Chapter {chapter('ch-margin')} "
                              "predicts.")
    return Feedback(False, f"W(alpha) = 2a - a^2 |x_1 - x_2|^2 / 2 = {2 * a[0] - 2 * a[0] ** 2:.4g} at your a; "
                           "maximise it over a (set its derivative to zero).")


# ----------------------------------------------------------------------------- write one SMO step
def _smo_step_cases():
    """Seeded (name, K, y, C, alpha before, alpha after) pairs of consecutive svmlib SMO states."""
    from ..datasets import make_blobs2d
    from ..dual import smo_steps
    from ..kernels import RBF

    X, y = make_blobs2d(30, separation=1.5, random_state=3)
    cases = []
    for kernel_name, K, C, steps in [("linear", X @ X.T, 1.0, (0, 3, 9)),
                                      ("linear", X @ X.T, 0.05, (0, 5)),   # the box clips the Newton step
                                      ("RBF l = 1", RBF(1.0)(X, X), 10.0, (0, 6, 15))]:
        states = [s.alpha for s in smo_steps(K, y, C=C, tol=1e-6)]
        for k in steps:
            if k + 1 < len(states):
                cases.append((f"{kernel_name}, C = {C:g}, from step {k}", K, y, C, states[k], states[k + 1]))
    return cases


def _pair_of(alpha_old, alpha_new, tol):
    return tuple(int(t) for t in np.flatnonzero(np.abs(alpha_new - alpha_old) > tol))


def check_smo_step(smo_step):
    """Check a student's ``smo_step(K, y, C, alpha) -> new alpha``: one SMO step with second-order
    working-set selection (eqs. :eq:`(3.12) <smo-kkt-violation>` and :eq:`(3.14) <smo-wss2>`), the Newton step clipped to the box.

    The function is called on seeded problems (a linear and an RBF kernel, several values of C,
    states taken from :func:`svmlib.dual.smo_steps`) and its result is compared with svmlib's next state.
    """
    if not callable(smo_step):
        return Feedback(False, "Pass your function itself, e.g. check_smo_step(smo_step), not its result.")
    for name, K, y, C, before, after in _smo_step_cases():
        atol = 1e-8 * max(C, 1.0)
        try:
            got = smo_step(K.copy(), y.copy(), C, before.copy())
        except Exception as exc:  # noqa: BLE001 - the student's code may raise anything; report it
            return Feedback(False, f"Case '{name}': your function raised {type(exc).__name__}: {exc}")
        got = as_numbers(got, len(y))
        if got is None:
            return Feedback(False, f"Case '{name}': return the new alpha as an array of {len(y)} finite numbers.")
        if close_enough(got, after, rtol=0, atol=atol):
            continue
        if abs(got @ y - before @ y) > 1e-8 * max(C, 1.0):
            return Feedback(False, f"Case '{name}': sum_i y_i alpha_i changed by {got @ y - before @ y:.3g}. "
                                   "Move the pair in opposite y-directions: alpha_i += y_i s, alpha_j -= y_j s.")
        if got.min() < -atol or got.max() > C + atol:
            return Feedback(False, f"Case '{name}': alpha left the box [0, C] (min {got.min():.3g}, max "
                                   f"{got.max():.3g}, C = {C:g}). Clip s to how far each of the pair may move.")
        want, have = _pair_of(before, after, atol), _pair_of(before, got, atol)
        if set(have) != set(want):
            return Feedback(False, f"Case '{name}': you changed the multipliers {list(have)}, svmlib changes "
                                   f"{list(want)}. i maximises v_t over I_up; j maximises (v_i - v_t)^2 / a_it over "
                                   f"t in I_low with v_t < v_i (eq. {eq('smo-wss2')}), not simply the smallest v_t.")
        i = want[0]
        return Feedback(False, f"Case '{name}': right pair {list(want)}, wrong step: alpha_{i} became "
                               f"{got[i]:.6g}, expected {after[i]:.6g}. The Newton step is s = (v_i - v_j) / a_ij, "
                               "then clipped so that both multipliers stay in [0, C].")
    return Feedback(True, "your step equals svmlib's on every case (linear and RBF kernels, with and without "
                          "clipping at the box).")
