"""Auto-checked exercises of chapter 4 (kernels)."""

from __future__ import annotations

import numpy as np

from . import Feedback

__all__ = ["check_feature_map", "check_selection_bias_answer"]


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
