"""Auto-checked exercises of :ref:`Chapter 6 <ch-gp-prior>` (the SVM as a GP model)."""

from __future__ import annotations

import numpy as np

from ..probabilistic import dont_know, kappa, likelihood, nu
from . import Feedback, close_enough

__all__ = ["check_dont_know_at_zero", "check_normalised_likelihood"]


def check_dont_know_at_zero(C, answer):
    """Exercise 6.1 (``ex-gp-prior-1``) of :ref:`Chapter 6 <ch-gp-prior>`: the "don't know" probability
    1 - nu(0) at theta = 0 for a given C."""
    expected = float(dont_know(0.0, C))
    if close_enough(answer, expected, rtol=1e-3):
        return Feedback(True, f"1 - nu(0) = 1 - 1/cosh({C:g}) = {expected:.4f}: at theta = 0 the model is "
                              "most unsure, and the gap grows with C.")
    if close_enough(answer, 1 - expected, rtol=1e-3):
        return Feedback(False, "That is nu(0), the probability of a DEFINITE answer; subtract it from 1.")
    return Feedback(False, f"Not {answer!r}. Use nu(theta) = cosh(C theta)/cosh(C) for |theta| <= 1 at theta = 0.")


#: the cases of check_normalised_likelihood: theta inside the gap, on the margins, outside, far out
LIKELIHOOD_THETA = np.array([-4.0, -1.5, -1.0, -0.4, 0.0, 0.3, 1.0, 2.5, 6.0])
LIKELIHOOD_C = (0.5, 2.0, 10.0)


def check_normalised_likelihood(normalised_likelihood):
    """Implementation exercise of :ref:`Chapter 6 <ch-gp-prior>`: the normalised likelihood (eqs. :eq:`(6.3) <gp-likelihood>`, :eq:`(6.4) <gp-nu>`).

    ``normalised_likelihood(theta, C)`` gets an array of latent values and C and returns three
    arrays ``(q_plus, q_minus, nu)``: Q(+1 | theta), Q(-1 | theta) and their sum. Compared with
    :func:`svmlib.probabilistic.likelihood` and :func:`~svmlib.probabilistic.nu` at nine values of
    theta (inside the gap, on the margins |theta| = 1, outside) and three C, to 1e-10 relative
    (closed forms: only round-off separates two correct implementations).
    """
    if not callable(normalised_likelihood):
        return Feedback(False, "Pass your function itself: check_normalised_likelihood(normalised_likelihood).")
    theta = LIKELIHOOD_THETA
    for C in LIKELIHOOD_C:
        try:
            out = normalised_likelihood(theta.copy(), C)
            q_plus, q_minus, total = (np.asarray(v, dtype=float) for v in out)
        except Exception as exc:  # the student's code: explain, never crash
            return Feedback(False, f"At C = {C:g} your function failed or did not return three arrays "
                                   f"(q_plus, q_minus, nu): {type(exc).__name__}: {exc}.")
        want_p, want_m, want_nu = likelihood(1.0, theta, C), likelihood(-1.0, theta, C), nu(theta, C)
        for got, want, name in ((q_plus, want_p, "Q(+1|theta)"), (q_minus, want_m, "Q(-1|theta)"), (total, want_nu, "nu")):
            if got.shape != theta.shape:
                return Feedback(False, f"{name} has shape {got.shape}; return one value per theta, shape {theta.shape}.")
            if close_enough(got, want, rtol=1e-10, atol=1e-14):
                continue
            bad = int(np.argmax(np.abs(got - want)))
            where = f"at C = {C:g}, theta = {theta[bad]:g}: your {name} = {got[bad]:.6g}, expected {want[bad]:.6g}"
            if name != "nu" and close_enough(got, want / kappa(C), rtol=1e-8):
                return Feedback(False, f"{where}. The factor kappa(C) = 1/(1 + exp(-2C)) is missing.")
            if name == "Q(+1|theta)" and close_enough(got, want_m, rtol=1e-8):
                return Feedback(False, f"{where}. Q(+1|theta) uses l(+theta) = max(0, 1 - theta); you used l(-theta).")
            if name == "nu" and close_enough(got, np.ones_like(theta), rtol=1e-8):
                return Feedback(False, f"{where}. nu is not 1: it is Q(+1) + Q(-1), below 1 except at |theta| = 1.")
            return Feedback(False, f"{where}. Check the hinge l(z) = max(0, 1 - z) and exp(-C l(y theta)).")
    return Feedback(True, "Q(+1), Q(-1) and nu agree with svmlib at all 27 cases; note nu = 1 exactly at |theta| = 1.")
