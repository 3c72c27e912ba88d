"""The exact hard-margin SVM without bias, and its leave-one-out errors.

The bootstrap chapter retrains one SVM per bootstrap sample, so the solver must
be exact and cheap. Without a bias the hard-margin dual has no equality
constraint,

    min_a 1/2 a^T Q a - 1^T a  subject to  a >= 0,   Q = (y y^T) * K,

and with the Cholesky factor Q = L_Q L_Q^T it is the non-negative least-squares
problem min_a || L_Q^T a - L_Q^{-1} 1 ||^2 (the two objectives differ by a
constant). Since Q = diag(y) K diag(y), L_Q = diag(y) L_K, so one Cholesky
factor of K serves both. scipy's Lawson-Hanson NNLS solves it exactly (an
active-set method: it stops at the true optimum, not at a tolerance).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.linalg import LinAlgError, cholesky, solve_triangular
from scipy.optimize import nnls
from sklearn.exceptions import ConvergenceWarning

from .._validation import check_binary_labels, check_kernel_matrix, check_positive

__all__ = [
    "JITTER",
    "kernel_cholesky",
    "fit_hard_margin",
    "opper_winther_loo",
    "exact_loo",
]

#: Relative jitter added to the kernel diagonal everywhere in this package (Monte Carlo, exact
#: LOO and theory alike): it keeps a Gram matrix with nearly equal inputs numerically positive
#: definite and changes fields by ~1e-10, far below anything the chapter measures.
JITTER = 1e-10

# A margin y_i f_i below 1 - MARGIN_TOL after NNLS means the solver failed (NNLS is exact up to
# round-off; with kernel entries O(1) and alphas up to ~1e4 round-off stays below 1e-8).
MARGIN_TOL = 1e-6


def check_gram(K, y):
    """Validate a square Gram matrix and labels; return float arrays, labels in {-1, +1}."""
    y_pm, _ = check_binary_labels(y)
    K = check_kernel_matrix(K, y_pm.shape[0], name="K", symmetric=True)
    return K, y_pm


def kernel_cholesky(K, *, jitter=JITTER):
    """Lower Cholesky factor of ``K + jitter * mean(diag K) * I``.

    Raises a ValueError that names the usual cause (duplicate inputs) when ``K``
    is not positive definite even with the jitter.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Gram matrix.
    jitter : float
        Relative diagonal jitter (see :data:`JITTER`).

    Returns
    -------
    L : ndarray of shape (n, n)
        Lower triangular, ``L @ L.T = K + jitter * mean(diag K) * I``.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.datasets import make_blobs2d
    >>> from svmlib.kernels import RBF
    >>> X, y = make_blobs2d(40, separation=3.0, random_state=0)
    >>> K = RBF(l=1.0)(X)
    >>> from svmlib.bootstrap import kernel_cholesky
    >>> L = kernel_cholesky(K)
    >>> bool(np.allclose(L @ L.T, K, atol=1e-8)), bool(np.allclose(L, np.tril(L)))
    (True, True)
    """
    K = check_kernel_matrix(K, np.shape(K)[0] if np.ndim(K) == 2 else -1, name="K", symmetric=True)
    jitter = check_positive(jitter, "jitter", allow_zero=True)
    return _kernel_cholesky(K, jitter)


def _kernel_cholesky(K, jitter):
    """kernel_cholesky without the checks (the solvers' inner loops; K validated once)."""
    n = K.shape[0]
    scale = float(np.mean(np.diag(K))) if n else 1.0
    try:
        return cholesky(K + (jitter * scale) * np.eye(n), lower=True, check_finite=False)
    except LinAlgError:
        raise ValueError(
            "The kernel matrix is not positive definite. Duplicate (or nearly equal) inputs make it "
            "singular: remove duplicated rows of X (np.unique(X, axis=0, return_index=True)), or use "
            "a kernel with a longer length scale."
        ) from None


def fit_hard_margin(K, y, *, jitter=JITTER, check=True):
    r"""Exact hard-margin SVM without bias on a Gram matrix: the alphas of :math:`f = K (y \circ \alpha)`.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Gram matrix of the training inputs (positive definite: distinct inputs).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    jitter : float
        Relative diagonal jitter (see :data:`JITTER`).
    check : bool
        Validate the inputs (the Monte Carlo loop skips it for speed: it validated once).

    Returns
    -------
    alpha : ndarray of shape (n,)
        Non-negative dual coefficients; the support vectors are ``alpha > 0``.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.datasets import make_blobs2d
    >>> from svmlib.kernels import RBF
    >>> X, y = make_blobs2d(40, separation=3.0, random_state=0)
    >>> K = RBF(l=1.0)(X)
    >>> from svmlib.bootstrap import fit_hard_margin
    >>> alpha = fit_hard_margin(K, y)
    >>> margins = y * (K @ (y * alpha))  # f = K (y * alpha)
    >>> print(f"smallest margin {margins.min():.4f}, {(alpha > 0).sum()} support vectors")
    smallest margin 1.0000, 11 support vectors
    """
    if check:
        K, y = check_gram(K, y)
    n = y.shape[0]
    if n == 0:
        return np.zeros(0)
    L = _kernel_cholesky(K, jitter)
    rhs = solve_triangular(L, y, lower=True, check_finite=False)  # L_Q^{-1} 1 = L_K^{-1} y
    try:
        alpha, _ = nnls(L.T * y[None, :], rhs, maxiter=50 * n)
    except RuntimeError:  # pragma: no cover - Lawson-Hanson terminates in practice
        raise ValueError("The hard-margin NNLS did not terminate; check K for (near-)duplicate inputs.") from None
    if check:
        # the margins of the problem actually solved: K with its jitter (alpha ~ 1e4 times
        # jitter 1e-10 moves a margin by ~1e-6)
        margins = y * (L @ (L.T @ (y * alpha)))
        if margins.min() < 1 - MARGIN_TOL:
            warnings.warn(f"Hard-margin solution violates a margin constraint (min y f = {margins.min():.6g}); "
                          "the kernel matrix is probably ill-conditioned.", ConvergenceWarning, stacklevel=2)
    return alpha


def opper_winther_loo(K, y, alpha=None, *, jitter=JITTER):
    r"""Opper-Winther approximate leave-one-out error of the hard-margin SVM without bias.

    .. math:: \epsilon_{\rm loo} \approx \frac1N \sum_{i \in SV}
              \Theta\!\left(\frac{\alpha_i}{[K_{SV}^{-1}]_{ii}} - 1\right)

    (eq. :eq:`(9.21) <boot-ow-loo>`). It assumes the set of support vectors does not change when
    a point is left out; the field of a left-out support vector is then
    :math:`y_i f_{-i}(x_i) = 1 - \alpha_i / [K_{SV}^{-1}]_{ii}`. Non-support vectors are
    never errors (removing them changes nothing and their margin is >= 1).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Gram matrix of distinct training inputs.
    y : ndarray of shape (n,)
        Labels (two classes).
    alpha : ndarray of shape (n,), optional
        The SVM on all data (:func:`fit_hard_margin`); computed when not given.
    jitter : float
        Relative diagonal jitter (see :data:`JITTER`).

    Returns
    -------
    error : float
    loo_margins : ndarray of shape (n,)
        The approximate :math:`y_i f_{-i}(x_i)` (the full-data margin for non-SVs).

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.datasets import make_blobs2d
    >>> from svmlib.kernels import RBF
    >>> X, y = make_blobs2d(40, separation=3.0, random_state=0)
    >>> K = RBF(l=1.0)(X)
    >>> from svmlib.bootstrap import exact_loo, opper_winther_loo
    >>> approx, per_point = opper_winther_loo(K, y)
    >>> exact, margins = exact_loo(K, y)
    >>> print(f"Opper-Winther {approx:.3f}, exact leave-one-out {exact:.3f}")
    Opper-Winther 0.225, exact leave-one-out 0.225
    """
    K, y = check_gram(K, y)
    if alpha is None:
        alpha = fit_hard_margin(K, y, jitter=jitter, check=False)
    sv = np.flatnonzero(alpha > 0)
    margins = y * (K @ (y * alpha))
    if sv.size:
        L = _kernel_cholesky(K[np.ix_(sv, sv)], jitter)
        Linv = solve_triangular(L, np.eye(sv.size), lower=True, check_finite=False)
        kinv_diag = np.einsum("ij,ij->j", Linv, Linv)  # diag of K_SV^{-1} = L^-T L^-1
        margins[sv] = 1.0 - alpha[sv] / kinv_diag
    return float(np.mean(margins < 0)), margins


def exact_loo(K, y, alpha=None, *, jitter=JITTER):
    """Exact leave-one-out error: one retraining per support vector.

    Leaving out a non-support vector does not change the solution and that point
    has margin >= 1, so only support vectors need a retraining; the result equals
    the N-retraining definition.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Gram matrix of distinct training inputs.
    y : ndarray of shape (n,)
        Labels (two classes).
    alpha : ndarray of shape (n,), optional
        The SVM on all data (:func:`fit_hard_margin`); computed when not given.
    jitter : float
        Relative diagonal jitter (see :data:`JITTER`).

    Returns
    -------
    error : float
    loo_margins : ndarray of shape (n,)
        :math:`y_i f_{-i}(x_i)` for every training point.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.datasets import make_blobs2d
    >>> from svmlib.kernels import RBF
    >>> X, y = make_blobs2d(40, separation=3.0, random_state=0)
    >>> K = RBF(l=1.0)(X)
    >>> from svmlib.bootstrap import exact_loo, fit_hard_margin
    >>> err, margins = exact_loo(K, y)
    >>> rest = np.arange(1, 40)  # point 0 left out: retrain on the others
    >>> a = fit_hard_margin(K[np.ix_(rest, rest)], y[rest])
    >>> bool(abs(y[0] * K[0, rest] @ (y[rest] * a) - margins[0]) < 1e-8), bool(err == np.mean(margins < 0))
    (True, True)
    """
    K, y = check_gram(K, y)
    if alpha is None:
        alpha = fit_hard_margin(K, y, jitter=jitter, check=False)
    margins = y * (K @ (y * alpha))
    keep = np.ones(y.size, dtype=bool)
    for i in np.flatnonzero(alpha > 0):
        keep[i] = False
        rest = np.flatnonzero(keep)
        a = fit_hard_margin(K[np.ix_(rest, rest)], y[rest], jitter=jitter, check=False)
        margins[i] = y[i] * (K[i, rest] @ (y[rest] * a))
        keep[i] = True
    return float(np.mean(margins < 0)), margins
