"""Auto-checked exercises of :ref:`Chapter 10 <ch-lssvr>` (LS-SVR as a Bayesian RBF network).

Call a checker with your answer; it returns a :class:`~svmlib.exercises.Feedback`.
"""

from __future__ import annotations

import numpy as np

from .._book_numbers import eq
from ..lssvr import BayesianLSSVR, kkt_matrix, make_sinc, posterior_factor, prior_precision, rbf_from_c, solve_lssvr
from . import Feedback, as_number, as_numbers, close_enough

__all__ = [
    "TINY_X",
    "TINY_Y",
    "TINY_GAMMA",
    "check_lssvr_parameters",
    "check_far_field_variances",
    "check_prior_smallest_eigenvalue",
    "check_eps_lssvr_solve",
    "SOLVE_CASES",
]

#: Exercise ex-lssvr-1: three points on a line, the preprint's RBF with c = 1, gamma = 2.
TINY_X = np.array([[0.0], [1.0], [2.0]])
#: Their targets.
TINY_Y = np.array([1.0, 3.0, 2.0])
#: The regulariser of exercise ex-lssvr-1.
TINY_GAMMA = 2.0


def _tiny_solution():
    K = rbf_from_c(1.0)(TINY_X)
    return solve_lssvr(K, TINY_Y, TINY_GAMMA), solve_lssvr(K, TINY_Y, TINY_GAMMA, fit_intercept=False)


def check_lssvr_parameters(b, alpha):
    """Check the LS-SVR bias ``b`` and coefficients ``alpha`` of :data:`TINY_X`, :data:`TINY_Y`
    (kernel ``exp(-|x - x'|^2)``, ``gamma = TINY_GAMMA``), found from the KKT system eq. :eq:`(10.4) <lssvr-kkt>`."""
    b_value, alpha = as_number(b), as_numbers(alpha, 3)
    if b_value is None and not isinstance(b, (int, float, np.number)):
        return Feedback(False, "Give b as one number and alpha as three numbers, e.g. check(0.5, [1, -2, 1]).")
    if alpha is None or b_value is None:
        return Feedback(False, "alpha must hold three finite numbers (one per training point) and b one.")
    b = b_value
    (b_true, a_true), (_, a_krr) = _tiny_solution()
    if close_enough(b, b_true, rtol=1e-6, atol=1e-8) and close_enough(alpha, a_true, rtol=1e-6, atol=1e-8):
        return Feedback(True, f"b = {b_true:.6f}, alpha = {np.round(a_true, 6).tolist()}: the alphas sum to 0 "
                              "(the KKT condition from the bias) and alpha_i = gamma e_i.")
    if abs(b) < 1e-12 and close_enough(alpha, a_krr, rtol=1e-6, atol=1e-8):
        return Feedback(False, "This is kernel ridge regression (b = 0): the LS-SVR also has the bias, so the "
                               "first row of the KKT system, sum(alpha) = 0, must hold.")
    if abs(alpha.sum()) > 1e-6:
        return Feedback(False, f"Your alphas sum to {alpha.sum():.4g}, but the condition dL/db = 0 forces "
                               "sum(alpha) = 0. Solve the full (N+1) x (N+1) system.")
    return Feedback(False, "sum(alpha) = 0 holds, but the other rows do not: check Omega + I/gamma "
                           "(gamma = 2, so the diagonal is 1 + 1/2) and the kernel exp(-c^2 |x - x'|^2) with c = 1.")


def check_far_field_variances(eq16, full, gp):
    """Check the limits, far from the data, of the three variances of ``f(x)`` for the model
    ``BayesianLSSVR(gamma=1, eps=1e-4, kernel=rbf_from_c(1))`` fitted to ``make_sinc(300, random_state=1)``:
    the preprint's eq. 16 (eq. :eq:`(10.12) <lssvr-var16>`), the full variance with the bias row, and the GP with
    noise variance 1."""
    try:
        values = np.array([eq16, full, gp], dtype=float)
    except (TypeError, ValueError):
        return Feedback(False, "Give three numbers: the limits of the eq.-16, full and GP variances.")
    if not np.all(np.isfinite(values)):
        return Feedback(False, "All three limits are finite numbers.")
    X, y = make_sinc(300, random_state=1)
    model = BayesianLSSVR(gamma=1.0, eps=1e-4, kernel=rbf_from_c(1.0)).fit(X, y)
    bias_var = model.posterior_covariance()[0, 0]
    ok = [abs(values[0]) < 1e-6, close_enough(values[1], bias_var, rtol=1e-3, atol=1e-8),
          close_enough(values[2], 1.0, rtol=1e-3)]
    if all(ok):
        return Feedback(True, f"0, Sigma*_00 = {bias_var:.4g} and 1: the preprint's eq. 16 (eq. {eq('lssvr-var16')}) "
                              "only sees the vanishing RBF features, the full variance keeps the bias's posterior "
                              "variance, and the GP returns to its prior variance k(x, x) = 1.")
    hints = []
    if not ok[0]:
        hints.append(f"the preprint's eq. 16 sums k(x, x_i) k(x, x_j) Sigma*_ij (eq. {eq('lssvr-var16')}) over the alpha "
                     "block only: what happens to k(x, x_i) far from every x_i?")
    if not ok[1]:
        hints.append("the full variance phi(x)^T Sigma* phi(x) with phi(x) -> [1, 0, ..., 0] tends to one entry "
                     "of Sigma* (model.posterior_covariance()).")
    if not ok[2]:
        hints.append("the GP variance is k(x, x) - k(x)^T (K + I/gamma)^{-1} k(x): with k(x) -> 0 it returns to "
                     "the prior variance.")
    return Feedback(False, " ".join(hints))


def check_prior_smallest_eigenvalue(answer, eps=1e-3):
    """Check the smallest eigenvalue of the preprint's prior precision (eq. :eq:`(10.9) <lssvr-prior-precision>`) for
    ``make_sinc(40, random_state=0)``, ``c = gamma = 1`` and the given ``eps``."""
    answer = as_number(answer)
    if answer is None:
        return Feedback(False, "Give one number: the smallest eigenvalue.")
    X, _ = make_sinc(40, random_state=0)
    lam = float(np.linalg.eigvalsh(prior_precision(rbf_from_c(1.0)(X), 1.0, eps))[0])
    if close_enough(answer, lam, rtol=1e-4, atol=1e-8):
        verdict = "negative: the 'prior' is not a probability distribution" if lam < 0 else "positive"
        return Feedback(True, f"lambda_min = {lam:.5f}, {verdict}.")
    if close_enough(answer, -lam, rtol=1e-4, atol=1e-8):
        return Feedback(False, "Check the sign: eigvalsh returns eigenvalues in ascending order; take the first.")
    return Feedback(False, "Build Sigma^{-1} = [[eps, 1^T/gamma], [1/gamma, 1 1^T + 2 Omega/gamma + I/gamma^2]] "
                           "(svmlib.lssvr.prior_precision) and take np.linalg.eigvalsh(...)[0].")


#: Seeded problems of :func:`check_eps_lssvr_solve`: (N sinc points, seed, kernel c, regulariser C, eps).
#: The last two have an ill-conditioned KKT matrix (cond(Psi) ~ 2e5 and ~ 3e7): there the normal
#: equations Psi^T Psi lose about cond(Psi)^2 * 1e-16 of relative accuracy (1e-6 and 3e-2, measured),
#: the QR factorisation of the stacked matrix only cond(Psi) * 1e-16.
SOLVE_CASES = [(30, 0, 1.0, 1.0, 1.0), (50, 1, 1.0, 0.5, 1e-2), (20, 2, 0.7, 10.0, 0.3),
               (40, 0, 0.3, 1e4, 1e-2), (40, 0, 0.2, 1e6, 1e-6)]


def _solve_case(case):
    n, seed, c, C, eps = case
    X, y = make_sinc(n, random_state=seed)
    K = rbf_from_c(c)(X)
    return K, y, C, eps, posterior_factor(K, y, C, eps)[1]


def check_eps_lssvr_solve(eps_lssvr_map):
    r"""Check a student's epsilon-LS-SVR solve: ``eps_lssvr_map(K, y, C, eps)`` returns the MAP
    :math:`\beta^* = [b, \alpha]` (length N + 1) of eq. :eq:`(10.10) <lssvr-post-precision>` with noise variance 1.

    Called on the seeded problems :data:`SOLVE_CASES` and compared with
    :func:`svmlib.lssvr.posterior_factor` (the library's QR solve). Tolerance: relative
    ``1e-12 * cond(Psi)`` -- a backward-stable solve (QR of the stacked matrix) reaches about
    ``1e-16 * cond(Psi)``; a solve through the normal equations ``Psi^T Psi`` loses
    ``1e-16 * cond(Psi)^2`` and fails the ill-conditioned cases, with a message that says why.
    """
    if not callable(eps_lssvr_map):
        return Feedback(False, "Pass your function itself: check_eps_lssvr_solve(eps_lssvr_map).")
    for k, case in enumerate(SOLVE_CASES):
        K, y, C, eps, expected = _solve_case(case)
        cond = float(np.linalg.cond(kkt_matrix(K, C)))
        name = f"case {k} (N = {case[0]}, c = {case[2]:g}, C = {C:g}, eps = {eps:g}, cond(Psi) = {cond:.1e})"
        try:
            got = np.asarray(eps_lssvr_map(K.copy(), y.copy(), C, eps), dtype=float)
        except Exception as err:  # the student's code: report, do not crash
            return Feedback(False, f"{name}: your function raised {type(err).__name__}: {err}.")
        if got.shape != expected.shape:
            hint = " -- the bias b comes first, then alpha." if got.size == expected.size - 1 else "."
            return Feedback(False, f"{name}: expected beta = [b, alpha] of shape {expected.shape}, got shape "
                                   f"{got.shape}{hint}")
        error = float(np.linalg.norm(got - expected) / np.linalg.norm(expected))
        if error <= 1e-12 * cond:
            continue
        b_ls, alpha_ls = solve_lssvr(K, y, C)
        beta_ls = np.concatenate([[b_ls], alpha_ls])
        if np.linalg.norm(got - beta_ls) <= 1e-9 * np.linalg.norm(beta_ls) * max(cond, 1.0):
            return Feedback(False, f"{name}: you returned the LS-SVR solution Psi^-1 [0, y]. The eps-LS-SVR adds "
                                   "eps b^2 / 2 to the least-squares objective: the posterior precision is "
                                   f"Psi^T Psi + eps s1 s1^T (eq. {eq('lssvr-post-precision')}).")
        if cond > 1e4 and error < 1e-1:
            return Feedback(False, f"{name}: relative error {error:.1e}, but a stable solve reaches "
                                   f"~{1e-16 * cond:.0e}. Forming Psi^T Psi squares the condition number "
                                   f"({cond:.0e} -> {cond ** 2:.0e}); factor the stacked matrix "
                                   "[Psi; sqrt(eps) s1^T] by QR instead (R^T R = Psi^T Psi + eps s1 s1^T) and solve "
                                   "R beta = Q^T [0, y, 0].")
        return Feedback(False, f"{name}: relative error {error:.1e}; b = {got[0]:.6f}, expected {expected[0]:.6f}. "
                               "Check Psi = [[0, 1^T], [1, K + I/C]], the right-hand side [0, y] and the eps term "
                               "on the bias only.")
    return Feedback(True, f"All {len(SOLVE_CASES)} seeded cases agree with svmlib's solve, the ill-conditioned ones "
                          "included: your solve never squares the condition number of Psi.")
