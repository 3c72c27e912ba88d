"""Auto-checked exercises of :ref:`Chapter 9 <ch-replica>` (the bootstrap without resampling)."""

from __future__ import annotations

import numpy as np

from .._book_numbers import eq
from . import Feedback, close_enough

__all__ = ["check_left_out_fraction", "check_632", "check_replica_warmup", "check_width_gradient",
           "check_field_at_new_inputs", "FIELD_CASES"]


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


#: Seeded problems of :func:`check_field_at_new_inputs`: (n training points, blob separation,
#: RBF length scale, S/N, n new inputs, seed).
FIELD_CASES = [(30, 3.0, 1.0, 1.0, 5, 0), (40, 2.0, 0.5, 0.5, 7, 1), (25, 2.5, 2.0, 2.0, 4, 2)]


def _field_case(case):
    """Training Gram matrix, new-input kernel, the fixed point and the library's answer for one case."""
    from ..bootstrap import field_at_new_inputs, solve_replica
    from ..datasets import make_blobs2d
    from ..kernels import RBF

    n, separation, length, S_over_N, n_new, seed = case
    X, y = make_blobs2d(n + n_new, separation=separation, random_state=seed)
    kernel = RBF(l=length)
    X_train, y_train, X_new = X[n_new:], y[n_new:], X[:n_new]
    K = kernel(X_train)
    solution = solve_replica(K, y_train, S_over_N, tol=1e-9)  # the map's round-off floor here is ~1e-10; the checker only needs a fixed point
    K_new, k_diag = kernel(X_new, X_train), kernel.diag(X_new)
    mean, var, _ = field_at_new_inputs(K, solution, K_new, k_diag)
    return K, K_new, k_diag, solution, mean, var


def check_field_at_new_inputs(field_at_new):
    r"""Check a student's eq. :eq:`(9.20) <boot-field-new>`: the bootstrap mean and variance of the field at new inputs.

    ``field_at_new(K, K_new, k_new_diag, dLam, Gam, Lam)`` must return ``(mean, var)``, arrays of
    shape (n_new,), where K is the (n, n) training Gram matrix, K_new the (n_new, n) kernel
    between new and training inputs, k_new_diag the k(x, x) of the new inputs and (dLam, Gam, Lam)
    the site parameters of the fixed point. It is called on the seeded problems FIELD_CASES and
    compared with :func:`svmlib.bootstrap.field_at_new_inputs` (relative tolerance 1e-6: both
    are exact linear algebra on well-conditioned (I + K D), so they agree to ~1e-12).
    """
    if not callable(field_at_new):
        return Feedback(False, "Pass your function itself: check_field_at_new_inputs(field_at_new).")
    for k, case in enumerate(FIELD_CASES):
        K, K_new, k_diag, sol, mean, var = _field_case(case)
        name = f"case {k} (N = {case[0]}, S/N = {case[3]:g}, {case[4]} new inputs)"
        try:
            answer = field_at_new(K.copy(), K_new.copy(), k_diag.copy(), sol.dl.copy(), sol.g.copy(), sol.lam.copy())
            got_mean, got_var = (np.asarray(a, dtype=float) for a in answer)
        except Exception as err:  # the student's code: report, do not crash
            return Feedback(False, f"{name}: your function raised {type(err).__name__}: {err}. It must return "
                                   "(mean, var), two arrays with one entry per new input.")
        if got_mean.shape != mean.shape or got_var.shape != var.shape:
            return Feedback(False, f"{name}: expected two arrays of shape {mean.shape}, got {got_mean.shape} "
                                   f"and {got_var.shape}. Use K_new of shape (n_new, n): one row per new input.")
        mean_ok = close_enough(got_mean, mean, rtol=1e-6, atol=1e-9)
        var_ok = close_enough(got_var, var, rtol=1e-6, atol=1e-9)
        if mean_ok and var_ok:
            continue
        if not mean_ok and close_enough(got_mean, K_new @ sol.g, rtol=1e-6, atol=1e-9):
            return Feedback(False, f"{name}: your mean is k(x)^T Gamma. The sites also pull on the training fields: "
                                   "use T(x) = (I + K diag(dLam))^-1 k(x), then mean = T(x)^T Gamma.")
        if not var_ok and np.all(got_var <= 0) and close_enough(-got_var, var, rtol=1e-6, atol=1e-9):
            return Feedback(False, f"{name}: your variance has the wrong sign. Lambda_i <= 0 (it couples the "
                                   "replicas), so V(x) = -sum_i T_i(x)^2 Lambda_i is positive.")
        which = [w for w, ok in (("mean", mean_ok), ("variance", var_ok)) if not ok]
        j = int(np.argmax(np.abs(got_mean - mean))) if not mean_ok else int(np.argmax(np.abs(got_var - var)))
        return Feedback(False, f"{name}: the {' and the '.join(which)} differ; at new input {j} expected mean "
                               f"{mean[j]:.6f}, variance {var[j]:.6f}, got {got_mean[j]:.6f}, {got_var[j]:.6f}. "
                               f"Check T(x) = (I + K diag(dLam))^-1 k(x) (solve, do not invert K) and eq. {eq('boot-field-new')}.")
    return Feedback(True, f"All {len(FIELD_CASES)} seeded cases agree with svmlib.bootstrap.field_at_new_inputs "
                          "(relative 1e-6): your T(x) carries the sites' pull, and the variance the replicas' coupling.")
