"""Auto-checked exercises of chapter 8 (the bootstrap without resampling)."""

from __future__ import annotations

import numpy as np

from . import Feedback, close_enough

__all__ = ["check_left_out_fraction", "check_632", "check_replica_warmup", "check_width_gradient"]


def check_left_out_fraction(S_over_N, answer):
    """Probability that a given point is NOT in a Poisson bootstrap sample of mean size S."""
    expected = float(np.exp(-S_over_N))
    if close_enough(answer, expected, rtol=1e-3):
        return Feedback(True, f"P(s_i = 0) = e^(-S/N) = {expected:.4f}: about {expected:.1%} of the points are test points.")
    if close_enough(answer, 1 - expected, rtol=1e-3):
        return Feedback(False, "That is the probability that the point IS in the sample (p = 1 - e^(-S/N)).")
    return Feedback(False, "s_i ~ Poisson(S/N); evaluate P(s_i = 0) of that distribution.")


def check_632(bootstrap_error, training_error, answer):
    """Efron's 0.632 estimate from a bootstrap (left-out) error and the training error."""
    expected = 0.368 * training_error + 0.632 * bootstrap_error
    if close_enough(answer, expected, rtol=1e-3, atol=1e-6):
        return Feedback(True, f"0.368 x {training_error:g} + 0.632 x {bootstrap_error:g} = {expected:.4f}.")
    if close_enough(answer, 0.632 * training_error + 0.368 * bootstrap_error, rtol=1e-3, atol=1e-6):
        return Feedback(False, "The weights are swapped: 0.632 = 1 - 1/e goes with the left-out (bootstrap) error.")
    return Feedback(False, "Combine 0.368 x training error + 0.632 x bootstrap error.")


def check_replica_warmup(a, b, answer):
    """E[log Z] for Z = a + b u^2 ... here: the n -> 0 limit (E[Z^n] - 1)/n for Z ~ Uniform(a, b)."""
    # E[log Z] for Z uniform on (a, b): (b log b - a log a)/(b - a) - 1
    expected = (b * np.log(b) - a * np.log(a)) / (b - a) - 1.0
    if close_enough(answer, expected, rtol=1e-3, atol=1e-6):
        return Feedback(True, f"lim (E[Z^n] - 1)/n = E[log Z] = {expected:.4f}: the replica limit gives the quenched average.")
    if close_enough(answer, np.log((a + b) / 2), rtol=1e-3):
        return Feedback(False, "That is log E[Z] (the annealed average); the n -> 0 limit gives E[log Z], which is smaller (Jensen).")
    return Feedback(False, "Compute E[Z^n] = (b^(n+1) - a^(n+1)) / ((n+1)(b-a)) and take (E[Z^n] - 1)/n as n -> 0.")


def _crabs_sex_632_slope(width=0.5):
    """d(0.632 eps)/d ln l of the theory on crabs (sex) at S = N for l = width * sqrt(d)."""
    from ..bootstrap import ReplicaBootstrap
    from ..datasets import load_crabs
    from ..kernels import RBF

    crabs = load_crabs("sex")
    fit = ReplicaBootstrap(RBF(l=width * np.sqrt(crabs.X.shape[1]))).fit(crabs.X, crabs.y)
    return 0.632 * float(fit.error_gradient()[0])


def check_width_gradient(answer, width=0.5):
    """The slope of the theory's 0.632 estimate in ln l on crabs (sex), l = width * sqrt(d).

    Accepts the implicit gradient and a difference quotient with h <= 0.01 (2 % tolerance).
    """
    expected = _crabs_sex_632_slope(width)
    if close_enough(answer, expected, rtol=0.02, atol=1e-7):
        direction = "wider" if expected < 0 else "narrower"
        return Feedback(True, f"d(0.632 eps)/d ln l = {expected:.5f}: a {direction} kernel lowers the estimate.")
    if close_enough(answer, expected / 0.632, rtol=0.02, atol=1e-7):
        return Feedback(False, "That is the slope of eps(S=N) itself; the 0.632 estimate is 0.632 times it.")
    if close_enough(answer, -expected, rtol=0.02, atol=1e-7):
        return Feedback(False, "The sign is flipped: the derivative is with respect to ln l (positive = wider).")
    return Feedback(False, "Fit ReplicaBootstrap(RBF(l=...)) and call error_gradient() (d eps / d ln l), "
                           "then multiply by 0.632; or difference two solves at l e^(+-h).")
