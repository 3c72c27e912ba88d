"""Auto-checked exercises of chapter 7 (mean-field Gaussian-process classification).

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
