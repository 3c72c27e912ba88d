"""Auto-checked exercises of :ref:`Chapter 2 <ch-soft-margin>` (soft margin and the primal).

Call a checker with your answer; it returns a :class:`~svmlib.exercises.Feedback`.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import lsq_linear

from . import Feedback, as_numbers, close_enough

__all__ = ["SLACK_POINTS", "SLACK_LABELS", "SLACK_W", "SLACK_B", "SLACK_C", "check_slacks", "check_subgradient",
           "check_pegasos"]

#: Data of exercises ex-soft-1/ex-soft-2: five points, the line w.x + b = 0 with w = (1, 0), b = 0.
SLACK_POINTS = np.array([[2.0, 0.0], [1.0, 1.0], [0.5, -1.0], [-0.5, 0.0], [-3.0, 2.0]])
SLACK_LABELS = np.array([1.0, 1.0, 1.0, 1.0, -1.0])
SLACK_W = np.array([1.0, 0.0])
SLACK_B = 0.0
SLACK_C = 1.0


def _margins():
    return SLACK_LABELS * (SLACK_POINTS @ SLACK_W + SLACK_B)


def _slack_story(t):
    """Where each point lies, from its functional margin t = y f(x)."""
    groups = [("outside the margin (t > 1, xi = 0)", t > 1 + 1e-12),
              ("exactly on the margin (t = 1, xi = 0)", np.abs(t - 1) <= 1e-12),
              ("inside the band on the right side (0 < t < 1, 0 < xi < 1)", (t > 1e-12) & (t < 1 - 1e-12)),
              ("misclassified (t < 0, xi > 1)", t < -1e-12)]
    parts = []
    for text, mask in groups:
        idx = np.flatnonzero(mask).tolist()
        if idx:
            who = f"point {idx[0]} is" if len(idx) == 1 else "points " + " and ".join(map(str, idx)) + " are"
            parts.append(f"{who} {text}")
    return "; ".join(parts)


def check_slacks(xi):
    """Check the optimal slacks xi_i = max(0, 1 - y_i (w.x_i + b)) (eq. :eq:`(2.2) <soft-hinge>`) of the five points."""
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
        return Feedback(True, f"xi = ({', '.join(f'{v:g}' for v in expected)}) from t = y (w.x + b) = "
                              f"({', '.join(f'{v:g}' for v in _margins())}): {_slack_story(_margins())}.")
    wrong = np.flatnonzero(~np.isclose(xi, expected, atol=1e-6)).tolist()
    return Feedback(False, f"Check point(s) {wrong}: compute t = y (w.x + b) first; then xi = max(0, 1 - t).")


def check_subgradient(g, C=SLACK_C):
    r"""Check a subgradient ``g = (g_w1, g_w2, g_b)`` of the primal objective (eq. :eq:`(2.3) <primal-objective>`)
    at ``w = SLACK_W``, ``b = SLACK_B`` on the five points.

    Point 1 sits exactly on the margin (t = 1), where the hinge has a kink: every vector
    :math:`(w, 0) - C \sum_{t_i<1} y_i (x_i, 1) - C \omega y_1 (x_1, 1)`, :math:`\omega \in [0, 1]`,
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
        return Feedback(True, f"A valid subgradient (omega = {theta} for the point on the margin). At the kink "
                              "any omega in [0, 1] works; gradient descent's 'gradient' is just one choice.")
    if close_enough(g, np.r_[SLACK_W, 0.0], atol=1e-6):
        return Feedback(False, "That is only the regulariser's gradient (w, 0); points with y (w.x + b) < 1 "
                               "add -C y_i (x_i, 1) each.")
    return Feedback(False, "Not a subgradient. Sum -C y_i (x_i, 1) over the points with y (w.x + b) < 1, add "
                           "(w, 0) from the regulariser, and remember the point with t = 1 exactly (a kink).")


# ----------------------------------------------------------------------------- write Pegasos
def _pegasos_cases():
    """Seeded (name, X, y, C, steps) problems for :func:`check_pegasos`."""
    from ..datasets import make_blobs2d

    X, y = make_blobs2d(40, separation=1.5, random_state=7)
    X3 = np.random.default_rng(11).normal(size=(25, 3))
    y3 = np.where(X3 @ np.array([1.0, -0.5, 0.25]) + 0.3 * np.random.default_rng(12).normal(size=25) > 0, 1.0, -1.0)
    return [("2-D blobs, C = 1, 5 steps", X, y, 1.0, 5),
            ("2-D blobs, C = 100, 20 steps (the projection is active)", X, y, 100.0, 20),
            ("3-D data, C = 0.1, 50 steps", X3, y3, 0.1, 50)]


def _svmlib_pegasos(X, y, C, steps, **options):
    """svmlib's full-batch Pegasos iterate after ``steps`` steps (one step per epoch with full batches)."""
    import itertools

    from ..primal import PrimalSVC

    clf = PrimalSVC(C=C, step="pegasos", batch_size=None, **options)
    it = next(itertools.islice(clf.iter_fit(X, y), steps, None))
    return np.r_[it.coef, it.intercept]


def check_pegasos(pegasos):
    r"""Check a student's ``pegasos(X, y, C, n_steps) -> (w, b)``: full-batch Pegasos on
    :math:`F = \tfrac\lambda2\lVert w\rVert^2 + \tfrac1N\sum_i \max(0, 1 - y_i(w\cdot x_i + b))`,
    :math:`\lambda = 1/(NC)`, steps :math:`\eta_k = 1/(\lambda k)` (:math:`k = 1, 2, \dots`), the bias unregularised, after each step
    :math:`w` projected onto the ball of radius :math:`1/\sqrt\lambda` (eq. :eq:`(2.8) <soft-pegasos>`).

    The function is called on seeded problems and its last iterate is compared with
    :class:`svmlib.primal.PrimalSVC` (``step='pegasos'``, full batches) after the same number of steps.
    Two typical mistakes (no projection, a regularised bias) are named; otherwise both iterates are printed
    with a reminder of the step size and of the subgradient of F (a mean over the points, not J's C-weighted sum).
    """
    if not callable(pegasos):
        return Feedback(False, "Pass your function itself, e.g. check_pegasos(pegasos), not its result.")
    for name, X, y, C, steps in _pegasos_cases():
        try:
            out = pegasos(X.copy(), y.copy(), C, steps)
            w, b = out
            got = np.r_[np.asarray(w, dtype=float).reshape(-1), float(b)]
        except Exception as exc:  # noqa: BLE001 - the student's code may raise anything; report it
            return Feedback(False, f"Case '{name}': your function raised {type(exc).__name__}: {exc}. "
                                   "Return the pair (w, b), w an array of d numbers, b a number.")
        want = _svmlib_pegasos(X, y, C, steps)
        if got.shape != want.shape or not np.all(np.isfinite(got)):
            return Feedback(False, f"Case '{name}': return w with {X.shape[1]} finite entries and a finite b.")
        # full-batch Pegasos is deterministic; only round-off separates two correct codes (|w| <~ 10 here)
        if close_enough(got, want, rtol=1e-7, atol=1e-9):
            continue
        variants = [("no projection onto the ball of radius 1/sqrt(lambda)", dict(projection=False)),
                    ("a regularised bias (b inside w)", dict(bias="augmented"))]
        for text, options in variants:
            if close_enough(got, _svmlib_pegasos(X, y, C, steps, **options), rtol=1e-7, atol=1e-9):
                return Feedback(False, f"Case '{name}': your iterate is Pegasos with {text}. The chapter's "
                                       "version projects w after every step and leaves b unregularised.")
        return Feedback(False, f"Case '{name}': after {steps} steps svmlib has w = {np.round(want[:-1], 4)}, "
                               f"b = {want[-1]:.4f}; yours w = {np.round(got[:-1], 4)}, b = {got[-1]:.4f}. "
                               "Check the step eta_k = 1/(lambda k) with lambda = 1/(N C), k counted from 1, "
                               "and the subgradient of F (the mean over the points, not C times the sum).")
    return Feedback(True, "your iterates equal svmlib's PrimalSVC(step='pegasos') on every case (2-D and 3-D "
                          "data, C from 0.1 to 100, with the projection active).")
