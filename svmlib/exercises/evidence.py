"""Auto-checked exercises of :ref:`Chapter 7 <ch-evidence>` (evidence and error bars)."""

from __future__ import annotations

import numpy as np

from .._book_numbers import eq
from ..evidence import exact_log_naive_evidence, laplace_log_naive_evidence
from ..kernels import RBF
from ..probabilistic import kappa, solve_no_bias_dual
from . import Feedback, as_number, close_enough

__all__ = ["check_n1_log_evidence", "check_laplace_evidence", "laplace_cases"]


def check_n1_log_evidence(K, C, answer):
    """Exercise 7.1 (``ex-evidence-1``) of :ref:`Chapter 7 <ch-evidence>`: ln Q_naive for one training
    point with prior variance K and penalty C."""
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


def laplace_cases():
    """The seeded problems :func:`check_laplace_evidence` uses: a list of ``(name, K, y, alpha, C)``.

    Each has marginal inputs (``0 < alpha_i < C``) as well as inputs at both bounds, so every
    term of eq. :eq:`(7.5) <ev-laplace>` matters.
    """
    cases = []
    for name, n, l, K0, C, seed in (("n = 12, RBF l = 0.2, K0 = 3, C = 1", 12, 0.2, 3.0, 1.0, 0),
                                    ("n = 30, RBF l = 0.1, K0 = 5, C = 2", 30, 0.1, 5.0, 2.0, 1),
                                    ("n = 20, RBF l = 0.3, K0 = 0.5, C = 8", 20, 0.3, 0.5, 8.0, 2)):
        rng = np.random.default_rng(seed)
        X = rng.uniform(size=(n, 1))
        y = np.where(np.sin(6 * X[:, 0]) + 0.6 * rng.standard_normal(n) > 0, 1.0, -1.0)
        K = RBF(l=l, K0=K0)(X)
        alpha = solve_no_bias_dual(K, y, C).alpha
        cases.append((name, K, y, alpha, C))
    return cases


def _variants(K, y, alpha, C):
    """Common slips, each as (value, explanation)."""
    theta = K @ (alpha * y)
    fit = -0.5 * np.sum(y * alpha * theta) - C * np.sum(np.maximum(0.0, 1.0 - y * theta))
    logk = len(y) * np.log(kappa(C))
    r = alpha * (C - alpha) / C
    m = (alpha > 1e-12 * C) & (alpha < C * (1 - 1e-12))
    Km = K[np.ix_(m, m)]

    def logdet(L, plus_identity=True):
        A = L[:, None] * Km
        return np.linalg.slogdet((np.eye(m.sum()) if plus_identity else 0) + A)[1]

    return [
        (fit + logk - 0.5 * logdet(2 * np.pi * r[m] ** 2, plus_identity=False),
         f"you used det(L_m K_m) without the identity: the heuristic det(I + L_m K_m) is part of eq. {eq('ev-laplace')}"),
        (fit + logk - 0.5 * logdet(r[m] ** 2), "the 2 pi is missing from L_m = diag(2 pi [alpha (C - alpha)/C]^2)"),
        (fit + logk - 0.5 * logdet(2 * np.pi * r[m]), "L_m holds the SQUARE of alpha (C - alpha)/C"),
        (fit - 0.5 * logdet(2 * np.pi * r[m] ** 2), "the term n ln kappa(C) of the normalised likelihood is missing"),
        (fit + logk + 0.5 * logdet(2 * np.pi * r[m] ** 2), "the determinant enters with -1/2, not +1/2"),
        (fit - 0.5 * np.sum(y * alpha * theta) + logk - 0.5 * logdet(2 * np.pi * r[m] ** 2),
         "the prior term is -1/2 theta*^T K^-1 theta* = -1/2 sum_i y_i alpha_i theta*_i (check its factor 1/2)"),
    ]


def check_laplace_evidence(laplace_evidence):
    """Implementation exercise of :ref:`Chapter 7 <ch-evidence>`: the Laplace-type estimate of ln Q_naive (eq. :eq:`(7.5) <ev-laplace>`).

    ``laplace_evidence(K, y, alpha, C)`` gets the kernel matrix (bias variance included), the labels
    in {-1, +1}, the MAP dual coefficients and C, and returns one float. It is compared with
    :func:`svmlib.evidence.laplace_log_naive_evidence` on the three problems of :func:`laplace_cases`
    to 1e-8 nats (both are a few sums and a log-determinant of a matrix of size <= 30: round-off is
    ~1e-12); a miss is matched against the common slips so the message says what went wrong.
    """
    if not callable(laplace_evidence):
        return Feedback(False, "Pass your function itself: check_laplace_evidence(laplace_evidence).")
    for name, K, y, alpha, C in laplace_cases():
        expected = laplace_log_naive_evidence(K, y, alpha, C)
        try:
            got = laplace_evidence(K.copy(), y.copy(), alpha.copy(), C)
        except Exception as exc:  # the student's code: report, never crash the checker
            return Feedback(False, f"On the case {name} your function raised {type(exc).__name__}: {exc}.")
        value = as_number(got)
        if value is None:
            return Feedback(False, f"On the case {name} your function returned {got!r}; return one finite float.")
        if abs(value - expected) <= 1e-8 * max(1.0, abs(expected)):
            continue
        for slip_value, why in _variants(K, y, alpha, C):
            if abs(value - slip_value) <= 1e-6 * max(1.0, abs(slip_value)):
                return Feedback(False, f"On the case {name} you return {value:.6f}, expected {expected:.6f}: {why}.")
        return Feedback(False, f"On the case {name} you return {value:.6f}, expected {expected:.6f} "
                               f"(off by {value - expected:+.4g} nats). Check each of the four terms of eq. "
                               f"{eq('ev-laplace')} separately; only the marginal inputs (0 < alpha_i < C) enter L_m.")
    return Feedback(True, "All three cases agree with svmlib.evidence.laplace_log_naive_evidence to 1e-8 nats.")
