"""Auto-checked exercises of :ref:`Chapter 4 <ch-kernels>` (kernels)."""

from __future__ import annotations

import numpy as np

from . import Feedback

__all__ = ["check_feature_map", "check_selection_bias_answer", "check_rbf_gram"]


def check_feature_map(phi, *, degree=2, random_state=0):
    """Check a feature map ``phi`` with ``phi(x) . phi(z) = (1 + x . z)^degree`` for 2-D inputs.

    ``phi`` takes an array of shape (n, 2) and returns shape (n, m). Any valid map is accepted
    (the order and signs of the features are not unique); the check compares the Gram matrix
    of 20 random points with the kernel's.
    """
    if not callable(phi):
        return Feedback(False, "Pass a function phi(X) that maps an (n, 2) array to an (n, m) array.")
    X = np.random.default_rng(random_state).normal(size=(20, 2))
    try:
        F = np.asarray(phi(X), dtype=float)
    except Exception as err:  # the student's code: report, do not crash
        return Feedback(False, f"Calling phi on a (20, 2) array failed: {type(err).__name__}: {err}")
    if F.ndim != 2 or F.shape[0] != 20:
        return Feedback(False, f"phi must return one row per input point, shape (20, m); got {F.shape}.")
    K = (1.0 + X @ X.T) ** degree
    G = F @ F.T
    err = np.abs(G - K).max() / np.abs(K).max()
    if err < 1e-10:
        return Feedback(True, f"phi(x).phi(z) = (1 + x.z)^{degree} on 20 random points (relative error {err:.1e}); "
                              f"{F.shape[1]} features.")
    if np.allclose(np.diag(G), np.diag(K), rtol=1e-8):
        return Feedback(False, "The squared lengths are right but the cross terms are not: check the sqrt(2) "
                               "factors of the mixed terms.")
    return Feedback(False, f"phi(x).phi(z) differs from (1 + x.z)^{degree} (relative error {err:.2g}). Expand "
                           "(1 + x1 z1 + x2 z2)^2 and read off one feature per product of an x-part and a z-part.")


_CHOICES = {
    "a": (False, "The best cross-validation score of the grid was used to pick the winner, so it is biased "
                 "upwards: with many candidates one of them looks good by luck (on pure noise it beats 50%)."),
    "b": (True, "Nested cross-validation: the outer test folds never influence the choice of kernel and C, so "
                "their average estimates the error of the whole procedure (tuning included)."),
    "c": (False, "The training accuracy of the selected model is the most optimistic number of all: an RBF "
                 "kernel with small l can fit any labels."),
}


def check_selection_bias_answer(choice):
    """Multiple choice: which number estimates the test accuracy of 'grid search, then refit'?

    a) the best mean CV score of the grid search; b) the mean score of nested cross-validation;
    c) the training accuracy of the refitted best model.
    """
    key = str(choice).strip().lower()[:1]
    if key not in _CHOICES:
        return Feedback(False, "Answer with 'a', 'b' or 'c'.")
    return Feedback(*_CHOICES[key])


# ----------------------------------------------------------------------------- write the RBF Gram matrix
def _rbf_cases():
    """Seeded (name, X, Y, l) cases for :func:`check_rbf_gram`."""
    rng = np.random.default_rng(4)
    X2, Y2 = rng.normal(size=(5, 2)), rng.normal(size=(7, 2))
    X3 = rng.normal(size=(9, 3))
    x1 = np.linspace(-1.0, 1.0, 6)[:, None]
    # far from the origin and close together: |x|^2 + |y|^2 - 2 x.y cancels to round-off (~1.5e-8 at |x|^2 = 1e8)
    # while the true d^2 is ~1e-9. On a line each product x y is one correctly rounded multiplication, so the
    # careless expansion goes negative at the same entries on every CPU and BLAS kernel (in 2-D the dot
    # products' summation order and FMA use differ between kernels, and on some it stayed >= 0).
    far = 1e4 + 3e-5 * rng.normal(size=(6, 1))
    return [("X (5, 2) against Y (7, 2), l = 0.7", X2, Y2, 0.7),
            ("X (9, 3) against itself, l = 2", X3, X3, 2.0),
            ("1-D inputs (6, 1), l = 0.3", x1, x1, 0.3),
            ("points near 1e4 on a line, l = 1", far, far, 1.0)]


def check_rbf_gram(rbf_gram):
    r"""Check a student's ``rbf_gram(X, Y, l)``: the matrix :math:`k(x_i, y_j) = \exp(-\lVert x_i - y_j\rVert^2/(2l^2))`
    of shape ``(len(X), len(Y))`` (eq. :eq:`(4.7) <kernel-list>`), compared with :class:`svmlib.kernels.RBF` on seeded inputs
    (rectangular, square, 1-D, and points far from the origin where a careless expansion of the squared
    distance goes negative). The feedback names the case and the likely mistake.
    """
    from ..kernels import RBF, OrnsteinUhlenbeck

    if not callable(rbf_gram):
        return Feedback(False, "Pass your function itself, e.g. check_rbf_gram(rbf_gram), not its result.")
    for name, X, Y, l in _rbf_cases():
        want = RBF(l)(X, Y)
        try:
            got = np.asarray(rbf_gram(X.copy(), Y.copy(), l), dtype=float)
        except Exception as exc:  # noqa: BLE001 - the student's code may raise anything; report it
            return Feedback(False, f"Case '{name}': your function raised {type(exc).__name__}: {exc}")
        if got.shape != want.shape:
            hint = " (transposed?)" if got.shape == want.shape[::-1] else ""
            return Feedback(False, f"Case '{name}': shape {got.shape}, expected {want.shape} = (len(X), len(Y))"
                                   f"{hint}.")
        if not np.all(np.isfinite(got)):
            return Feedback(False, f"Case '{name}': the matrix has NaN or infinite entries.")
        if got.max() > 1 + 1e-12:
            return Feedback(False, f"Case '{name}': entries above 1 (largest 1 + {got.max() - 1:.1e}). A kernel value "
                                   "exp(-d^2 / (2 l^2)) never exceeds 1: your squared distances went negative. "
                                   "Far from the origin |x|^2 + |y|^2 - 2 x.y cancels; clip at 0 "
                                   "(np.maximum(d2, 0)) or subtract a centre first.")
        # Entries lie in (0, 1]. The expanded form |x|^2 + |y|^2 - 2 x.y is a legitimate way to compute d2; near
        # |x| ~ 1.4e4 its round-off is ~ eps |x|^2 ~ 1e-7 in d2, hence in the entry: allow 1e-6 (a wrong formula
        # is off by far more).
        if np.allclose(got, want, rtol=0, atol=1e-6):
            continue
        d2 = -2.0 * l ** 2 * np.log(np.maximum(want, 1e-300))
        variants = [(np.exp(-d2 / l ** 2), "exp(-d^2 / l^2): the factor 2 in 2 l^2 is missing"),
                    (np.exp(-d2 / (2 * l)), "exp(-d^2 / (2 l)): l must be squared"),
                    (OrnsteinUhlenbeck(l)(X, Y), "exp(-d / l): that is the Ornstein-Uhlenbeck kernel; square the distance"),
                    (np.exp(-np.sqrt(d2) / (2 * l ** 2)), "exp(-d / (2 l^2)): square the distance")]
        for alt, text in variants:
            if np.allclose(got, alt, rtol=1e-9, atol=1e-12):
                return Feedback(False, f"Case '{name}': you computed {text}.")
        worst = np.unravel_index(np.argmax(np.abs(got - want)), want.shape)
        return Feedback(False, f"Case '{name}': entry {tuple(int(i) for i in worst)} is {got[worst]:.6g}, expected "
                               f"{want[worst]:.6g}. Compute the squared distances |x_i - y_j|^2 for every pair "
                               "(broadcasting X[:, None, :] - Y[None, :, :]), then exp(-d2 / (2 l^2)).")
    return Feedback(True, "your Gram matrices equal svmlib.kernels.RBF on every case (rectangular, square, 1-D, "
                          "and far from the origin).")
