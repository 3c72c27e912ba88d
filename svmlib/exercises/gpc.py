"""Auto-checked exercises of :ref:`Chapter 8 <ch-mean-field-gpc>` (mean-field Gaussian-process classification).

Call a checker with your answer; it returns a :class:`~svmlib.exercises.Feedback`.
"""

from __future__ import annotations

import numpy as np

from . import Feedback, as_number, close_enough

__all__ = [
    "TWO_POINT_K",
    "TWO_POINT_Y",
    "check_two_point_evidence",
    "check_single_alpha",
    "check_error_bar",
    "check_naive_update",
    "check_adf_step",
    "gpc_cases",
]

#: Exercise ex-gpc-1: the training kernel of two examples with opposite labels.
TWO_POINT_K = np.array([[1.0, 0.5], [0.5, 1.0]])
#: Their labels.
TWO_POINT_Y = np.array([1.0, -1.0])


def check_two_point_evidence(Z):
    """Check the evidence ``Z = P(y_1 a_1 > 0, y_2 a_2 > 0)`` for :data:`TWO_POINT_K`, :data:`TWO_POINT_Y`."""
    Z = as_number(Z)
    if Z is None:
        return Feedback(False, "Give Z as one finite number (a probability).")
    rho = TWO_POINT_Y[0] * TWO_POINT_Y[1] * TWO_POINT_K[0, 1]
    exact = 0.25 + np.arcsin(rho) / (2 * np.pi)  # = 1/6
    if close_enough(Z, exact, rtol=1e-4):
        return Feedback(True, "Z = 1/4 + arcsin(-1/2)/(2 pi) = 1/6: opposite labels on positively "
                              "correlated inputs are less likely than two independent coin flips (1/4).")
    if close_enough(Z, 0.25 + np.arcsin(-rho) / (2 * np.pi), rtol=1e-4):
        return Feedback(False, "That is the evidence for equal labels (1/3). The orthant is {y_i a_i > 0}: "
                               "the correlation that matters is y_1 y_2 K_12 / sqrt(K_11 K_22) = -1/2.")
    if close_enough(Z, np.log(exact), rtol=1e-4):
        return Feedback(False, "That is ln Z; give Z itself.")
    if close_enough(Z, 0.25, rtol=1e-4):
        return Feedback(False, "1/4 ignores the correlation of a_1 and a_2; use Sheppard's formula "
                               "Z = 1/4 + arcsin(rho)/(2 pi).")
    return Feedback(False, "Not the orthant probability. Hint: Z = 1/4 + arcsin(rho) / (2 pi) with "
                           "rho = y_1 y_2 K_12 / sqrt(K_11 K_22).")


def check_single_alpha(alpha, prior_var=1.0, noise_var=0.5):
    """Check ``alpha`` for ONE training example with ``K(x, x) = prior_var`` and probit noise ``noise_var``."""
    alpha = as_number(alpha)
    if alpha is None:
        return Feedback(False, "Give alpha as one finite number.")
    K = prior_var + noise_var
    exact = np.sqrt(2 / (np.pi * K))
    if close_enough(alpha, exact, rtol=1e-4):
        return Feedback(True, f"alpha = D(0)/sqrt(K + sigma^2) = sqrt(2/(pi {K:g})) = {exact:.5f}; every "
                              "method (naive, ensemble, EP, online) gives this, since one example has no cavity.")
    if close_enough(alpha, np.sqrt(2 / (np.pi * prior_var)), rtol=1e-4):
        return Feedback(False, "You left out the noise: it is folded into the training kernel, K + sigma^2.")
    if close_enough(alpha, np.sqrt(2 * K / np.pi), rtol=1e-4):
        return Feedback(False, "That is the posterior mean <a> = K alpha of the half-normal; alpha is <a> / K.")
    return Feedback(False, "Hint: the posterior of a is a half-normal; <a> = K y alpha with K = K(x, x) + sigma^2.")


def check_error_bar(se, n_errors=63, n_test=332):
    """Check the binomial standard error (in errors) of a count of ``n_errors`` test errors out of ``n_test``."""
    se = as_number(se)
    if se is None:
        return Feedback(False, "Give the standard error as one number (in test errors).")
    p = n_errors / n_test
    exact = np.sqrt(n_test * p * (1 - p))
    if close_enough(se, exact, rtol=0.01):
        return Feedback(True, f"s.e. = sqrt(n p (1-p)) = {exact:.2f} errors: two classifiers whose counts differ by "
                              "a few errors on this test set cannot be told apart (and a paired comparison "
                              "on the same test points is the better test).")
    if close_enough(se, np.sqrt(p * (1 - p) / n_test), rtol=0.01):
        return Feedback(False, "That is the standard error of the error RATE; multiply by n to get it in errors.")
    if close_enough(se, np.sqrt(n_errors), rtol=0.01):
        return Feedback(False, "sqrt(count) is the Poisson approximation; use the binomial sqrt(n p (1-p)).")
    return Feedback(False, "Hint: the count is Binomial(n, p); its standard deviation is sqrt(n p (1 - p)).")


def gpc_cases():
    """The seeded problems of the implementation checkers of :ref:`Chapter 8 <ch-mean-field-gpc>`: ``(name, K_sigma, y)``.

    ``K_sigma = K + sigma^2 I`` on a 2-D demo problem (RBF, l = 1) at three noise levels.
    """
    from ..gpc import make_demo_problem
    from ..kernels import RBF

    cases = []
    for n, noise_var, seed in ((12, 1.0, 0), (25, 0.1, 1), (40, 0.01, 2)):
        X, y = make_demo_problem(n, random_state=seed)
        cases.append((f"n = {n}, sigma^2 = {noise_var:g}", RBF(l=1.0)(X) + noise_var * np.eye(n), y))
    return cases


def _naive_reference(K, y, alpha, V):
    from ..gpc import D

    m = K @ (y * alpha)
    m_cav = m - V * y * alpha
    z = y * m_cav / np.sqrt(V)
    return D(z) / np.sqrt(V)


def check_naive_update(naive_update):
    """Implementation exercise of :ref:`Chapter 8 <ch-mean-field-gpc>`: one parallel update of the naive mean-field equations.

    ``naive_update(K, y, alpha)`` gets the training covariance ``K + sigma^2 I``, the labels and the
    current coefficients and returns the new ``alpha_i = D(z_i) / sqrt(V_i)`` with the naive cavity
    variance ``V_i = K_ii``, cavity mean ``m_i - V_i y_i alpha_i`` and ``z_i = y_i m_cav_i / sqrt(V_i)``
    (eq. :eq:`(8.7) <gpc-fixed-point>`). Compared on the three problems of :func:`gpc_cases`, each at two seeded
    starting points, to 1e-10 relative (a few dot products; round-off is ~1e-14). A miss is matched
    against the common slips.
    """
    from ..gpc import D, cavity_variances

    if not callable(naive_update):
        return Feedback(False, "Pass your function itself: check_naive_update(naive_update).")
    rng = np.random.default_rng(0)
    for name, K, y in gpc_cases():
        V = cavity_variances(K, "naive")
        for start in ("alpha = D(0)/sqrt(V)", "a random alpha >= 0"):
            alpha = D(np.zeros(y.size)) / np.sqrt(V) if start.startswith("alpha = D") else rng.uniform(0, 1, y.size)
            want = _naive_reference(K, y, alpha, V)
            try:
                got = np.asarray(naive_update(K.copy(), y.copy(), alpha.copy()), dtype=float)
            except Exception as exc:  # the student's code: explain, never crash
                return Feedback(False, f"On {name} ({start}) your function raised {type(exc).__name__}: {exc}.")
            if got.shape != want.shape:
                return Feedback(False, f"On {name} you return shape {got.shape}; return one alpha_i per example, {want.shape}.")
            if np.allclose(got, want, rtol=1e-10, atol=1e-12):
                continue
            where = f"On {name}, starting from {start}"
            slips = [
                (_naive_reference(K, y, alpha, 1.0 / np.diag(np.linalg.inv(K))),
                 "you used the ensemble cavity variance 1/[K^-1]_ii; the naive one is K_ii"),
                (D(y * (K @ (y * alpha)) / np.sqrt(V)) / np.sqrt(V),
                 "the cavity mean must leave example i out: m_cav_i = m_i - V_i y_i alpha_i"),
                (D((K @ (y * alpha) - V * y * alpha) / np.sqrt(V)) / np.sqrt(V),
                 "the field is z_i = y_i m_cav_i / sqrt(V_i): the label y_i is missing"),
                (D(y * (K @ (y * alpha) - V * y * alpha) / np.sqrt(V)),
                 "alpha_i = D(z_i) / sqrt(V_i): the division by sqrt(V_i) is missing"),
            ]
            for value, why in slips:
                if np.allclose(got, value, rtol=1e-8, atol=1e-12):
                    return Feedback(False, f"{where}: {why}.")
            bad = int(np.argmax(np.abs(got - want)))
            return Feedback(False, f"{where}: alpha[{bad}] = {got[bad]:.6g}, expected {want[bad]:.6g}. "
                                   "Check m = K (y * alpha), the cavity mean, z and D(z) = phi(z)/Phi(z).")
    return Feedback(True, "Your update matches the naive mean-field equations on all six cases. Iterate it and "
                          "watch it oscillate at sigma^2 = 0.01: that is why the library uses Newton's method.")


def check_adf_step(adf_step):
    """Implementation exercise of :ref:`Chapter 8 <ch-mean-field-gpc>`: one step of the online (ADF) algorithm.

    ``adf_step(alpha, R, k, k_star, y)`` gets the current coefficients ``alpha`` (t,), the covariance
    correction ``R`` (t, t), the kernel vector ``k = (K(x, x_i))_i`` of the new input against the t
    inputs seen, its variance ``k_star = K(x, x) + sigma^2`` and its label; it returns the new
    ``(alpha, R)`` of size t + 1 (eq. :eq:`(8.17) <gpc-online-update>`). Compared with
    :func:`svmlib.gpc.online_sweep` after t and t + 1 examples on the problems of :func:`gpc_cases`,
    at t = 0, 5 and 11, to 1e-10 (the same arithmetic in another order: round-off ~1e-13).
    """
    from ..gpc import online_sweep

    if not callable(adf_step):
        return Feedback(False, "Pass your function itself: check_adf_step(adf_step).")
    for name, K, y in gpc_cases():
        for t in (0, 5, 11):
            before = online_sweep(K[:t, :t], y[:t]) if t else None
            after = online_sweep(K[: t + 1, : t + 1], y[: t + 1])
            alpha = before.alpha.copy() if t else np.zeros(0)
            R = before.C.copy() if t else np.zeros((0, 0))
            k, k_star = K[t, :t].copy(), float(K[t, t])
            where = f"On {name}, adding example {t} (after {t} examples)"
            try:
                out = adf_step(alpha, R, k, k_star, float(y[t]))
                new_alpha, new_R = (np.asarray(v, dtype=float) for v in out)
            except Exception as exc:  # the student's code: explain, never crash
                return Feedback(False, f"{where} your function failed or did not return (alpha, R): "
                                       f"{type(exc).__name__}: {exc}.")
            if new_alpha.shape != (t + 1,) or new_R.shape != (t + 1, t + 1):
                return Feedback(False, f"{where} you return shapes {new_alpha.shape} and {new_R.shape}; the new "
                                       f"alpha has {t + 1} entries and R is {t + 1} x {t + 1}.")
            ok_a = np.allclose(new_alpha, after.alpha, rtol=1e-10, atol=1e-12)
            ok_R = np.allclose(new_R, after.C, rtol=1e-10, atol=1e-12)
            if ok_a and ok_R:
                continue
            if ok_a:
                if np.allclose(new_R, -after.C + 2 * np.pad(R, ((0, 1), (0, 1))), rtol=1e-8, atol=1e-12):
                    return Feedback(False, f"{where}: alpha is right but R has the wrong sign of the update; "
                                           "D'(z) < 0, so R <- R + (D'(z)/s^2) s s^T shrinks the variance.")
                return Feedback(False, f"{where}: alpha is right, R is not. R <- [[R, 0], [0, 0]] + (D'(z)/s^2) s s^T "
                                       "with s = (R k, 1) and s^2 = k_star + k^T R k.")
            return Feedback(False, f"{where}: alpha = {np.array2string(new_alpha[-3:], precision=4)} (last entries), "
                                   f"expected {np.array2string(after.alpha[-3:], precision=4)}. Check z = y k^T alpha / s "
                                   "with s^2 = k_star + k^T R k, and alpha <- (alpha, 0) + (y D(z)/s) (R k, 1).")
    return Feedback(True, "Your ADF step reproduces svmlib.gpc.online_sweep on all nine cases: no matrix inverted, "
                          "one example at a time.")
