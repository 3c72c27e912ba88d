"""Auto-checked exercises of the chapter "SVMs in practice" (epsilon-SVR).

* :func:`check_epsilon_loss`: the student's epsilon-insensitive loss ``loss(r, epsilon)`` (eq. :eq:`(5.1) <svr-loss>`);
* :func:`check_svr_dual_objective`: the student's SVR dual objective
  ``W(alpha, alpha_star, K, y, epsilon)`` (eq. :eq:`(5.6) <svr-dual>`), compared with :mod:`svmlib.svr`'s value
  at the solutions of :func:`svmlib.svr.solve_svr_dual` and at random feasible points.
"""

from __future__ import annotations

import numpy as np

from . import Feedback, close_enough

__all__ = ["check_epsilon_loss", "check_svr_dual_objective"]


def _call(func, *args):
    """Call the student's function; return (value, None) or (None, Feedback explaining the failure)."""
    try:
        out = func(*args)
    except Exception as err:  # noqa: BLE001 - any error of the student's code is feedback, not a crash
        return None, Feedback(False, f"Your function raised {type(err).__name__}: {err}")
    return out, None


def check_epsilon_loss(loss):
    """Check ``loss(r, epsilon)``: the epsilon-insensitive loss ``max(0, |r| - epsilon)``, elementwise.

    ``r`` is an array of residuals ``y - f(x)``; the function must return an array of the same shape.
    """
    if not callable(loss):
        return Feedback(False, "Pass your function itself, e.g. check_epsilon_loss(loss), not its result.")
    r = np.array([-1.0, -0.3, -0.1, -0.05, 0.0, 0.05, 0.1, 0.3, 2.0])
    for eps in (0.1, 0.0, 0.5):
        out, fail = _call(loss, r.copy(), eps)
        if fail is not None:
            return fail
        expected = np.maximum(0.0, np.abs(r) - eps)
        if close_enough(out, expected, rtol=1e-9, atol=1e-12):
            continue
        try:
            got = np.asarray(out, dtype=float)
        except (TypeError, ValueError):
            return Feedback(False, "Return an array of numbers, one loss per residual.")
        if got.shape != r.shape:
            return Feedback(False, f"For {r.size} residuals return {r.size} losses (elementwise), got shape {got.shape}.")
        if close_enough(got, np.maximum(0.0, r - eps), atol=1e-12):
            return Feedback(False, f"epsilon = {eps}: negative residuals cost nothing in your loss. The tube is "
                                   "two-sided: use |r|, points below f(x) - epsilon pay too.")
        if close_enough(got, np.abs(r) - eps, atol=1e-12):
            return Feedback(False, f"epsilon = {eps}: your loss is negative inside the tube (e.g. {got[4]:g} at "
                                   "r = 0). Inside the tube the loss is zero: take max(0, ...).")
        if close_enough(got, np.maximum(0.0, np.abs(r) - eps) ** 2, atol=1e-12):
            return Feedback(False, f"epsilon = {eps}: your loss is squared. Vapnik's loss grows linearly outside the "
                                   "tube (that is what makes the dual a box-constrained QP).")
        bad = int(np.argmax(np.abs(got - expected)))
        return Feedback(False, f"epsilon = {eps}, r = {r[bad]:g}: your loss is {got[bad]:.4g}, expected "
                               f"max(0, |r| - epsilon) = {expected[bad]:.4g}.")
    return Feedback(True, "max(0, |r| - epsilon): zero inside the tube, linear outside, on both sides "
                          "(checked at epsilon = 0.1, 0 and 0.5).")


def _svr_cases():
    """Seeded (name, K, y, epsilon, alpha, alpha_star) cases: SVR optima and random feasible points."""
    from ..kernels import RBF, Linear
    from ..svr import solve_svr_dual

    rng = np.random.default_rng(17)
    cases = []
    for name, kernel, C, eps in [("RBF l = 0.5, C = 10, epsilon = 0.1", RBF(l=0.5), 10.0, 0.1),
                                 ("linear, C = 1, epsilon = 0.3", Linear(), 1.0, 0.3)]:
        x = np.sort(rng.uniform(-3, 3, 25))[:, None]
        y = np.sinc(x[:, 0]) + 0.1 * rng.normal(size=25)
        K = kernel(x, x)
        sol = solve_svr_dual(K, y, C, eps, tol=1e-8)
        cases.append((f"{name} (at the optimum)", K, y, eps, sol.alpha, sol.alpha_star))
        a, a_star = rng.uniform(0, C, 25), rng.uniform(0, C, 25)  # both nonzero: tells alpha + alpha* apart
        cases.append((f"{name} (a random point in the box)", K, y, eps, a, a_star))
    return cases


def _reference(K, y, eps, a, a_star):
    c = a - a_star
    return float(y @ c - eps * np.sum(a + a_star) - 0.5 * c @ K @ c)


def check_svr_dual_objective(dual_objective):
    """Check ``dual_objective(alpha, alpha_star, K, y, epsilon) -> float``, eq. :eq:`(5.6) <svr-dual>`:

    ``W = sum_i y_i (alpha_i - alpha*_i) - epsilon sum_i (alpha_i + alpha*_i)
    - 1/2 sum_ij (alpha_i - alpha*_i)(alpha_j - alpha*_j) K_ij``.
    """
    if not callable(dual_objective):
        return Feedback(False, "Pass your function itself, e.g. check_svr_dual_objective(W), not its result.")
    for name, K, y, eps, a, a_star in _svr_cases():
        out, fail = _call(dual_objective, a.copy(), a_star.copy(), K.copy(), y.copy(), eps)
        if fail is not None:
            return fail
        try:
            got = float(np.asarray(out, dtype=float).reshape(()))
        except (TypeError, ValueError):
            return Feedback(False, "Return one number, the value of W.")
        want = _reference(K, y, eps, a, a_star)
        if abs(got - want) <= 1e-8 * max(1.0, abs(want)):
            continue
        c, s = a - a_star, a + a_star
        diagnoses = [
            (y @ c + eps * s.sum() - 0.5 * c @ K @ c, "the epsilon term has the wrong sign: the tube's width "
             "is subtracted, -epsilon sum_i (alpha_i + alpha*_i) (it comes from -xi_i - epsilon in the constraints)"),
            (y @ c - eps * np.abs(c).sum() - 0.5 * c @ K @ c, "you wrote epsilon sum_i |alpha_i - alpha*_i|; that "
             "equals epsilon sum_i (alpha_i + alpha*_i) only at the optimum (where alpha_i alpha*_i = 0), not at "
             "every feasible point"),
            (y @ c - eps * s.sum() - c @ K @ c, "the quadratic term needs the factor 1/2"),
            (y @ c - eps * s.sum() - 0.5 * s @ K @ s, "the quadratic term is in alpha - alpha*, not alpha + alpha*"),
            (y @ s - eps * s.sum() - 0.5 * c @ K @ c, "the linear term in y is sum_i y_i (alpha_i - alpha*_i)"),
            (-(y @ c - eps * s.sum() - 0.5 * c @ K @ c), "your value has the opposite sign: W is the function "
             "the dual MAXIMISES (libsvm minimises -W)"),
        ]
        for value, why in diagnoses:
            if abs(got - value) <= 1e-8 * max(1.0, abs(value)):
                return Feedback(False, f"Case {name}: {why}.")
        return Feedback(False, f"Case {name}: your W = {got:.6g}, expected {want:.6g}.")
    return Feedback(True, "W matches svmlib on four cases (two optima of solve_svr_dual, two random points of "
                          "the box, where alpha_i and alpha*_i are both non-zero).")
