r"""Epsilon-insensitive support vector regression (epsilon-SVR), solved in the dual by SMO.

The primal (Vapnik's epsilon-SVR) fits :math:`f(x) = w \cdot \phi(x) + b` with a tube of
half-width :math:`\varepsilon` in which errors cost nothing:

.. math::

    \min_{w, b}\; \tfrac12 \lVert w \rVert^2
    + \sum_i C_i \max\bigl(0,\; \lvert y_i - f(x_i) \rvert - \varepsilon\bigr) .

Its dual has two variables per point, :math:`\alpha_i` for points above the tube and
:math:`\alpha_i^*` for points below it:

.. math::

    \begin{aligned}
    \max_{\alpha, \alpha^*}\; W ={}& \sum_i y_i (\alpha_i - \alpha_i^*)
    - \varepsilon \sum_i (\alpha_i + \alpha_i^*)
    - \tfrac12 \sum_{ij} (\alpha_i - \alpha_i^*)(\alpha_j - \alpha_j^*) K_{ij}\\
    &\text{subject to}\quad 0 \le \alpha_i, \alpha_i^* \le C_i, \qquad \sum_i (\alpha_i - \alpha_i^*) = 0 ,
    \end{aligned}

and :math:`f(x) = \sum_i (\alpha_i - \alpha_i^*) K(x, x_i) + b`. Points strictly inside the
tube have :math:`\alpha_i = \alpha_i^* = 0`: the solution is sparse (unlike LS-SVR,
:mod:`svmlib.lssvr`, which trades sparsity for a linear system).

Stacking :math:`\beta = (\alpha, \alpha^*)` with labels :math:`z = (+1, \dots, -1, \dots)`
turns this into the SVM dual of :mod:`svmlib.dual` on 2n variables (libsvm's
formulation): the same box, the same equality constraint :math:`\sum_t z_t \beta_t = 0`,
the kernel :math:`K_{\bar s \bar t}` (:math:`\bar t = t \bmod n`) and a linear term that
only changes the starting value of SMO's :math:`v_t = -z_t \nabla_t`:
:math:`v = (y - \varepsilon,\; y + \varepsilon)` at :math:`\beta = 0`. The working-set
selection, the step and the row cache are :mod:`svmlib.dual`'s, unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import _check_feature_names

from ._threads import blas_single_thread
from ._validation import check_C, check_inputs, check_positive, check_positive_int, check_regression_data, check_sample_weight
from .dual import (
    KernelRowCache,
    _bias_from_v,
    _check_gram,
    _GramRows,
    _iterate,
    _kernel_expansion,
    _pair_violation,
    _PairSMO,
    _warn_not_converged,
)
from .kernels import make_kernel

__all__ = ["SVRSolution", "solve_svr_dual", "DualSVR"]


@dataclass
class SVRSolution:
    """Result of :func:`solve_svr_dual`.

    Attributes
    ----------
    alpha, alpha_star : ndarray (n,)
        Dual variables of the upper and lower tube boundary, ``0 <= alpha <= C_i``.
    coef : ndarray (n,)
        ``alpha - alpha_star``, the coefficients of ``f(x) = sum_i coef_i K(x, x_i) + b``.
    b : float
        Bias.
    n_iter : int
        SMO steps.
    converged : bool
        Whether the maximal violating pair dropped below ``tol``.
    objective : float
        Dual objective ``W`` (eq. :eq:`(5.6) <svr-dual>`, maximised).
    primal_objective : float
        ``|w|^2 / 2 + sum_i C_i max(0, |y_i - f(x_i)| - epsilon)`` at this ``(alpha, b)``.
    duality_gap : float
        ``primal_objective - objective`` (0 at the optimum).
    kkt_violation : float
        Maximal violating pair ``m - M`` of the 2n-variable dual.
    is_support : ndarray of bool (n,)
        ``coef != 0``: the points on or outside the tube.
    decision : ndarray (n,)
        ``f(x_i)`` on the training points (eq. :eq:`(5.7) <svr-decision>`).

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.svr import solve_svr_dual
    >>> x = np.linspace(0, 1, 5)[:, None]; y = 2 * x[:, 0]
    >>> sol = solve_svr_dual(x @ x.T, y, C=10.0, epsilon=0.1)
    >>> sol.converged, sol.is_support.tolist()  # only the end points touch the tube
    (True, [True, False, False, False, True])
    >>> sol.alpha.round(6).tolist(), sol.alpha_star.round(6).tolist()
    ([0.0, 0.0, 0.0, 0.0, 1.8], [1.8, 0.0, 0.0, 0.0, 0.0])
    >>> bool(np.allclose(sol.coef, sol.alpha - sol.alpha_star)), round(sol.b, 6)  # f(x) = 1.8 x + 0.1
    (True, 0.1)
    >>> round(sol.objective, 6), bool(abs(sol.duality_gap) < 1e-9)
    (1.62, True)
    """

    alpha: np.ndarray
    alpha_star: np.ndarray
    coef: np.ndarray
    b: float
    n_iter: int
    converged: bool
    objective: float
    primal_objective: float
    duality_gap: float
    kkt_violation: float
    is_support: np.ndarray
    decision: np.ndarray


class _TiledRows:
    """Rows of the 2n x 2n kernel ``K[t mod n, s mod n]`` from the rows of ``K``.

    The signs of the 2n-variable dual live in the labels ``z``, so its matrix is ``K``
    repeated in four blocks. A row is the cached row of ``K`` written twice into one of two
    scratch vectors (SMO uses a row before it fetches the next one).
    """

    def __init__(self, base):
        self.base = base
        self.n = 2 * base.n
        self.diag = np.concatenate([base.diag, base.diag])
        self._scratch = (np.empty(self.n), np.empty(self.n))
        self._turn = 0

    def row(self, t):
        half = self.base.n
        r = self.base.row(t % half)
        out = self._scratch[self._turn]
        self._turn ^= 1
        out[:half] = r
        out[half:] = r
        return out


def _check_weights(sample_weight, n):
    if sample_weight is None:
        return np.ones(n)
    try:
        w = np.asarray(sample_weight, dtype=float)
    except (TypeError, ValueError):
        raise TypeError("sample_weight must be an array of non-negative numbers.") from None
    if w.shape != (n,):
        raise ValueError(f"sample_weight must have shape ({n},) (one weight per point), got {w.shape}.")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("sample_weight must be finite and >= 0.")
    if not np.any(w > 0):
        raise ValueError("sample_weight is zero everywhere: give some point a positive weight.")
    return w


def solve_svr_dual(K, y, C=1.0, epsilon=0.1, *, tol=1e-3, max_iter=None, sample_weight=None):
    r"""Solve the epsilon-SVR dual (eq. :eq:`(5.6) <svr-dual>`) by SMO on its 2n variables.

    .. math::

        \begin{aligned}
        \max_{\alpha, \alpha^*}\;& \sum_i y_i (\alpha_i - \alpha_i^*)
        - \varepsilon \sum_i (\alpha_i + \alpha_i^*)
        - \tfrac12 (\alpha - \alpha^*)^\top K (\alpha - \alpha^*)\\
        &\text{subject to}\quad 0 \le \alpha_i, \alpha^*_i \le C_i,\quad \textstyle\sum_i (\alpha_i - \alpha_i^*) = 0 .
        \end{aligned}

    Parameters
    ----------
    K : array (n, n) or svmlib.dual.KernelRowCache
        Training Gram matrix, or a row cache that computes rows on demand.
    y : array (n,)
        Real targets.
    C : float, default 1.0
        Box constraint (finite: a hard tube is not supported).
    epsilon : float, default 0.1
        Half-width of the insensitive tube, ``>= 0``.
    tol : float, default 1e-3
        Stopping tolerance on the maximal violating pair (libsvm's ``eps``).
    max_iter : int or None
        Maximal number of SMO steps; ``None`` means ``max(10**7, 200 n)`` (libsvm's rule
        on 2n variables).
    sample_weight : array (n,), optional
        Per-point box ``C_i = C w_i`` (libsvm's weighted C).

    Returns
    -------
    SVRSolution

    Raises
    ------
    ValueError, TypeError
        Bad inputs (shapes, NaN, asymmetric ``K``, ``C <= 0`` or infinite, ``epsilon < 0``).

    Warns
    -----
    ConvergenceWarning
        When ``max_iter`` steps did not reach ``tol``.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.linspace(0, 1, 5)[:, None]; y = 2 * x[:, 0]
    >>> sol = solve_svr_dual(x @ x.T, y, C=10.0, epsilon=0.1)
    >>> np.round(sol.decision - y, 3).tolist()  # a line fits inside the tube: errors <= epsilon
    [0.1, 0.05, 0.0, -0.05, -0.1]
    """
    solver, max_iter, y, eps = _make_svr_solver(K, y, C, epsilon, tol, max_iter, sample_weight)
    n_iter = 0
    with blas_single_thread():
        for n_iter, _ in enumerate(_iterate(solver, max_iter), start=1):
            pass
        if not solver.converged:
            _warn_not_converged(solver, max_iter)
        return _finish_svr(solver, y, eps, n_iter)


def _make_svr_solver(K, y, C, epsilon, tol, max_iter, sample_weight):
    try:
        y = np.asarray(y, dtype=float)
    except (TypeError, ValueError):
        raise TypeError("y must be a 1-D array of real targets.") from None
    if y.ndim != 1 or y.size == 0:
        raise ValueError(f"y must be a non-empty 1-D array of real targets, got shape {y.shape}.")
    if not np.all(np.isfinite(y)):
        raise ValueError("y contains NaN or infinity; give finite targets.")
    n = y.shape[0]
    if isinstance(K, KernelRowCache):
        if K.n != n:
            raise ValueError(f"The KernelRowCache holds {K.n} points but y has {n} targets.")
        base = K
    else:
        base = _GramRows(np.ascontiguousarray(_check_gram(K, n)))
    C = check_C(C, allow_inf=False)
    eps = check_positive(epsilon, "epsilon", allow_zero=True)
    tol = check_positive(tol, "tol")
    max_iter = max(10_000_000, 200 * n) if max_iter is None else check_positive_int(max_iter, "max_iter", minimum=0)
    Cs = C * _check_weights(sample_weight, n)
    z = np.concatenate([np.ones(n), -np.ones(n)])
    v0 = np.concatenate([y - eps, y + eps])  # v = -z * (linear term) at beta = 0
    solver = _PairSMO(_TiledRows(base), z, np.concatenate([Cs, Cs]), np.zeros(2 * n), tol, v0=v0)
    return solver, max_iter, y, eps


def _finish_svr(solver, y, eps, n_iter):
    n = y.shape[0]
    beta, z, C2, v = solver.alpha.copy(), solver.y, solver.C, solver.v
    alpha, alpha_star = beta[:n], beta[n:]
    coef = alpha - alpha_star
    base = solver.rows.base
    # with a stored K, f is recomputed exactly; with a row cache from the running v (see dual._finish)
    f0 = base.dot(coef) if isinstance(base, _GramRows) else y - eps - v[:n]
    v_exact = np.concatenate([y - eps - f0, y + eps - f0])
    b = _bias_from_v(v_exact, beta, z, C2)
    w2 = float(coef @ f0)
    dual = float(y @ coef) - eps * float(beta.sum()) - 0.5 * w2
    decision = f0 + b
    C = C2[:n]
    primal = 0.5 * w2 + float(C @ np.maximum(0.0, np.abs(y - decision) - eps))
    return SVRSolution(
        alpha=alpha, alpha_star=alpha_star, coef=coef, b=b, n_iter=n_iter, converged=solver.converged,
        objective=dual, primal_objective=primal, duality_gap=primal - dual,
        kkt_violation=_pair_violation(v_exact, beta, z, C2), is_support=coef != 0, decision=decision,
    )


class DualSVR(RegressorMixin, BaseEstimator):
    r"""Epsilon-insensitive support vector regression trained in the dual by SMO.

    Minimises :math:`\tfrac12 \lVert w \rVert^2 + C \sum_i \max(0, |y_i - f(x_i)| - \varepsilon)`
    (eq. :eq:`(5.2) <svr-primal>`) through its 2n-variable dual (eq. :eq:`(5.6) <svr-dual>`, :func:`solve_svr_dual`),
    with the working-set selection and the kernel-row cache of :class:`svmlib.dual.DualSVC`;
    :math:`f(x) = \sum_i (\alpha_i - \alpha_i^*) K(x, x_i) + b`.

    Parameters
    ----------
    C : float, default 1.0
        Cost of a unit of error outside the tube (finite, > 0).
    epsilon : float, default 0.1
        Half-width of the tube, in the units of ``y``.
    kernel : str, Kernel or callable, default "rbf"
        As in :class:`svmlib.dual.DualSVC` (``"precomputed"``: ``fit`` takes
        ``K(X_train, X_train)``, ``predict`` takes ``K(X_test, X_train)``). The default
        ``RBF(l=1)`` is scikit-learn's ``gamma=0.5`` (``gamma = 1 / (2 l^2)``), not ``'scale'``.
    tol : float, default 1e-3
        Stopping tolerance (libsvm's ``eps``).
    max_iter : int or None
        Maximal number of SMO steps.
    cache_size : float, default 200
        MB of kernel rows kept (unless precomputed); the Gram matrix is never formed.

    Attributes
    ----------
    support_ : ndarray of int
        Indices of the support vectors (``alpha_i != alpha_i^*``): the points on or outside the tube.
    support_vectors_ : ndarray (n_SV, n_features)
        The support vectors (``(0, 0)`` for a precomputed kernel).
    dual_coef_ : ndarray (1, n_SV)
        ``alpha_i - alpha_i^*`` (scikit-learn's ``SVR.dual_coef_``).
    intercept_ : ndarray (1,)
        The bias ``b``.
    alpha_, alpha_star_ : ndarray (n_train,)
        The dual variables of all training points.
    n_iter_, converged_, objective_, duality_gap_, kkt_violation_ :
        From :class:`SVRSolution`.
    n_features_in_ : int
        Number of input features.
    feature_names_in_ : ndarray of str
        Column names of a DataFrame ``X`` (then ``predict`` refuses reordered columns).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.linspace(0, 6, 40)[:, None]; y = np.sin(x[:, 0])
    >>> reg = DualSVR(C=10.0, epsilon=0.05).fit(x, y)
    >>> bool(np.abs(reg.predict(x) - y).max() < 0.06), reg.support_.size < 40
    (True, True)
    """

    def __init__(self, C=1.0, epsilon=0.1, kernel="rbf", tol=1e-3, max_iter=None, cache_size=200.0):
        self.C = C
        self.epsilon = epsilon
        self.kernel = kernel
        self.tol = tol
        self.max_iter = max_iter
        self.cache_size = cache_size

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self._precomputed()
        return tags

    def _precomputed(self):
        return isinstance(self.kernel, str) and self.kernel == "precomputed"

    def _kernel(self):
        return make_kernel(self.kernel)

    def fit(self, X, y, sample_weight=None):
        """Fit on inputs ``X`` (n, d) -- or the Gram matrix if precomputed -- and targets ``y``.

        Parameters
        ----------
        X : array (n, d), or (n, n) with ``kernel="precomputed"``
        y : array (n,)
            Real targets.
        sample_weight : array (n,), optional
            Per-point multiplier of ``C``, as ``SVR().fit(X, y, sample_weight)``.

        Returns
        -------
        self
        """
        check_C(self.C, allow_inf=False)
        check_positive(self.epsilon, "epsilon", allow_zero=True)
        cache_size = check_positive(self.cache_size, "cache_size (MB)")
        _check_feature_names(self, X, reset=True)
        X, y = check_regression_data(X, y)
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X)
        if self._precomputed():
            if X.shape[1] != X.shape[0]:
                raise ValueError(f"With kernel='precomputed', X must be the square Gram matrix "
                                 f"K(X_train, X_train); got shape {X.shape}.")
            K = X
        else:
            K = KernelRowCache(self._kernel(), X, cache_size)
        sol = solve_svr_dual(K, y, self.C, self.epsilon, tol=self.tol, max_iter=self.max_iter,
                             sample_weight=sample_weight)
        self.alpha_, self.alpha_star_ = sol.alpha, sol.alpha_star
        self.support_ = np.flatnonzero(sol.is_support)
        self.support_vectors_ = np.empty((0, 0)) if self._precomputed() else X[self.support_]
        self.dual_coef_ = sol.coef[self.support_][None, :]
        self.intercept_ = np.array([sol.b])
        self.n_iter_ = sol.n_iter
        self.converged_ = sol.converged
        self.objective_ = sol.objective
        self.duality_gap_ = sol.duality_gap
        self.kkt_violation_ = sol.kkt_violation
        self.n_features_in_ = X.shape[1]
        self.shape_fit_ = X.shape
        return self

    def predict(self, X):
        """``f(x) = sum_i (alpha_i - alpha_i^*) K(x, x_i) + b``.

        Parameters
        ----------
        X : array (m, d), or ``K(X_test, X_train)`` (m, n) with ``kernel="precomputed"``

        Returns
        -------
        ndarray (m,)
        """
        return _kernel_expansion(self, X)
