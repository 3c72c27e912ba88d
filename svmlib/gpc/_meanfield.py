r"""One fixed-point form, three cavity variances; free energies and hypergradients.

All methods of the chapter solve the same equations for ``alpha >= 0``
(eq. :eq:`(8.7) <gpc-fixed-point>`)::

    m   = K (y * alpha)                  posterior mean of the latent a at the training inputs
    h_i = m_i - lambda_i y_i alpha_i     cavity mean (the field at i without example i)
    z_i = y_i h_i / sqrt(lambda_i),      alpha_i = D(z_i) / sqrt(lambda_i)

and differ only in the cavity variance ``lambda_i``:

* naive mean field (Csato et al. 2000): ``lambda_i = K_ii``;
* ensemble / variational mean field: ``lambda_i = 1 / [K^-1]_ii``;
* EP = adaptive TAP (the reference): ``lambda_i = (1/Sigma_ii - tau_i)^-1``, self-consistent.

``K`` is always the *training* kernel, with the probit noise folded in
(``K(X, X) + sigma^2 I``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import linalg
from sklearn.exceptions import ConvergenceWarning

from .._threads import blas_single_thread
from .._validation import check_kernel_matrix, check_positive, check_positive_int, check_tol
from ._likelihood import D, dD, log_Phi

__all__ = [
    "METHODS",
    "MeanFieldSolution",
    "cavity_variances",
    "solve_fixed_point",
    "solve_mean_field",
    "free_energy",
    "free_energy_naive",
    "free_energy_ensemble",
    "ensemble_bound",
    "neg_log_evidence_ep",
    "free_energy_gradient",
    "site_precisions",
]

METHODS = ("naive", "ensemble", "ep")


@dataclass
class MeanFieldSolution:
    """The solution of the fixed-point equations for one method.

    The solution of eq. :eq:`(8.7) <gpc-fixed-point>`.

    Attributes
    ----------
    method : str
    alpha : ndarray (n,)
        the SVM-like coefficients, ``alpha >= 0``
    lam : ndarray (n,)
        cavity variances
    m : ndarray (n,)
        posterior means of the latents, ``K (y * alpha)``
    h : ndarray (n,)
        cavity means
    z : ndarray (n,)
        ``y h / sqrt(lam)``
    n_iter : int
        Newton steps of the inner solver (summed over EP's outer loop)
    n_outer : int
        EP's outer iterations (0 for the mean-field methods)
    converged : bool
    residual : float
        ``max |alpha - D(z)/sqrt(lam)|`` at the end

    Parameters
    ----------
    method, alpha, lam, m, h, z, n_iter, n_outer, converged, residual
        The fields below (a record returned by :func:`solve_mean_field`).

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import make_demo_problem, training_kernel
    >>> X, y = make_demo_problem(20, random_state=0)
    >>> K = training_kernel(X, 1.0, 1.0)
    >>> from svmlib.gpc import solve_mean_field
    >>> sol = solve_mean_field(K, y, 'naive')
    >>> print(sol.method, sol.converged, bool((sol.alpha >= 0).all()))
    naive True True
    """

    method: str
    alpha: np.ndarray
    lam: np.ndarray
    m: np.ndarray
    h: np.ndarray
    z: np.ndarray
    n_iter: int
    n_outer: int
    converged: bool
    residual: float


# --------------------------------------------------------------------------- checks
def _check_method(method):
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}.")
    return method


def _cholesky(K):
    try:
        return linalg.cho_factor(K, lower=True, check_finite=False)
    except linalg.LinAlgError:
        raise ValueError(
            "The training kernel matrix is not positive definite (duplicate inputs or no noise?); "
            "give noise_var > 0, which adds sigma^2 to its diagonal."
        ) from None


def _check_problem(K, y):
    K = np.asarray(K, dtype=float)
    y = np.asarray(y, dtype=float)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be a square training kernel matrix, got shape {K.shape}.")
    if y.shape != (K.shape[0],):
        raise ValueError(f"y must have one label per row of K ({K.shape[0]}), got shape {y.shape}.")
    if not np.all(np.isfinite(y)):
        raise ValueError("y must be finite: labels -1/+1.")
    if not np.all(np.isfinite(K)):
        raise ValueError("The kernel matrix K has inf or NaN entries: the inputs or the kernel parameters are too "
                         "large for double precision (an overflow). Standardise X "
                         "(sklearn.preprocessing.StandardScaler) or check the kernel parameters.")
    if not np.all(np.abs(y) == 1):
        raise ValueError("y must hold labels -1/+1 (svmlib._validation.check_data maps any two labels).")
    if K.shape[0] == 0:
        raise ValueError("K is empty: give at least one training example.")
    # an asymmetric K is no covariance; EP on one ran for many seconds into a FloatingPointError
    check_kernel_matrix(K, K.shape[0], symmetric=True)
    if np.any(np.diag(K) <= 0):
        raise ValueError("The kernel diagonal K(x, x) must be > 0 for every training input.")
    return K, y


def _check_solution(K, y, sol):
    """The problem and a MeanFieldSolution of the same size (for the free energies)."""
    K, y = _check_problem(K, y)
    if not isinstance(sol, MeanFieldSolution):
        raise TypeError("sol must be a MeanFieldSolution (from solve_mean_field).")
    if sol.alpha.shape != y.shape:
        raise ValueError(f"sol has {sol.alpha.size} coefficients but K has {y.size} rows; "
                         "solve_mean_field on this K first.")
    return K, y


# --------------------------------------------------------------------------- cavity variances
def _inverse_diagonal(K):
    """``diag(K^-1)`` from a Cholesky factor, without forming the inverse."""
    c, lower = _cholesky(K)
    Linv = linalg.solve_triangular(c, np.eye(K.shape[0]), lower=lower, check_finite=False)
    return np.einsum("ij,ij->j", Linv, Linv)


def cavity_variances(K, method):
    r"""Cavity variances ``lambda`` of the naive or ensemble method (EP's are self-consistent).

    The cavity variances :math:`\lambda_i` in eq. :eq:`(8.7) <gpc-fixed-point>`.

    Parameters
    ----------
    K : array_like of shape (n, n)
        Training kernel (noise included).
    method : {'naive', 'ensemble'}
        ``'naive'``: :math:`\lambda_i = K_{ii}`; ``'ensemble'``: :math:`\lambda_i = 1/[K^{-1}]_{ii}`.

    Returns
    -------
    ndarray of shape (n,)
        The cavity variances.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import make_demo_problem, training_kernel
    >>> X, y = make_demo_problem(20, random_state=0)
    >>> K = training_kernel(X, 1.0, 1.0)
    >>> from svmlib.gpc import cavity_variances
    >>> print(bool((cavity_variances(K, 'ensemble') <= cavity_variances(K, 'naive')).all()))
    True
    """
    _check_method(method)
    K = check_kernel_matrix(K, np.shape(K)[0] if np.ndim(K) == 2 else -1, symmetric=True)
    if method == "naive":
        return np.diag(K).copy()
    if method == "ensemble":
        return 1.0 / _inverse_diagonal(K)
    raise ValueError("EP's cavity variances come out of solve_mean_field(K, y, 'ep').")


# --------------------------------------------------------------------------- the inner solver
def _fields(G, alpha, sqrt_lam):
    return (G @ alpha) / sqrt_lam


def solve_fixed_point(K, y, lam, *, alpha0=None, solver="newton", damping=1.0, tol=1e-10,
                      max_iter=100):
    r"""Solve ``alpha = D(z) / sqrt(lam)`` for fixed cavity variances (eq. :eq:`(8.7) <gpc-fixed-point>`).

    Implements eqs. :eq:`(8.7) <gpc-fixed-point>` and :eq:`(8.12) <gpc-newton>`.

    With ``G = Y (K - diag lam) Y`` the fields are ``z = G alpha / sqrt(lam)``.

    Parameters
    ----------
    K : ndarray (n, n)
        training kernel (noise included)
    y : ndarray (n,)
        labels -1/+1
    lam : ndarray (n,)
        cavity variances
    alpha0 : ndarray, optional
        warm start (default ``D(0)/sqrt(lam)``)
    solver : {'newton', 'iterate'}
        ``'newton'``: Newton's method on ``R(alpha) = alpha - D(z)/sqrt(lam)`` with
        Jacobian ``I - diag(D'(z)/lam) G`` and backtracking on ``|R|^2``.
        ``'iterate'``: the plain (optionally damped) parallel iteration
        ``alpha <- (1-damping) alpha + damping D(z)/sqrt(lam)``, kept to show why it is not used:
        it oscillates at small noise.
    tol : float
        stop when ``max |R| <= tol * max(1, max |alpha|)``.

    Returns
    -------
    alpha, n_iter, converged, residual

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import make_demo_problem, training_kernel
    >>> X, y = make_demo_problem(20, random_state=0)
    >>> K = training_kernel(X, 1.0, 1.0)
    >>> from svmlib.gpc import solve_fixed_point
    >>> alpha, n_iter, converged, residual = solve_fixed_point(K, y, np.diag(K).copy())
    >>> print(converged, residual < 1e-8)
    True True
    """
    K, y = _check_problem(K, y)
    n = K.shape[0]
    lam = check_positive(lam, "lam (the cavity variances)", allow_array=True)
    if np.shape(lam) != (n,):
        raise ValueError(f"lam must hold {n} cavity variances, one per row of K.")
    if solver not in ("newton", "iterate"):
        raise ValueError(f"solver must be 'newton' or 'iterate', got {solver!r}.")
    damping = check_positive(damping, "damping")
    tol = check_tol(tol)
    max_iter = check_positive_int(max_iter, "max_iter")
    sqrt_lam = np.sqrt(lam)
    G = (K - np.diag(lam)) * np.outer(y, y)
    alpha = D(np.zeros(n)) / sqrt_lam if alpha0 is None else np.array(alpha0, dtype=float)

    def residual(a):
        return a - D(_fields(G, a, sqrt_lam)) / sqrt_lam

    R = residual(alpha)
    for it in range(1, max_iter + 1):
        if np.max(np.abs(R)) <= tol * max(1.0, np.max(np.abs(alpha))):
            return alpha, it - 1, True, float(np.max(np.abs(R)))
        if solver == "iterate":
            trial = alpha - damping * R
            with np.errstate(over="ignore", invalid="ignore"):  # a blow-up is caught just below
                R_trial = residual(trial)
            if not np.all(np.isfinite(R_trial)):
                # The iteration blew up (fields overflowed): stop at the last finite iterate.
                return alpha, it, False, float("inf")
            alpha, R = trial, R_trial
            continue
        z = _fields(G, alpha, sqrt_lam)
        J = np.eye(n) - (dD(z) / lam)[:, None] * G
        try:
            step = -linalg.solve(J, R, check_finite=False)
        except (linalg.LinAlgError, ValueError):
            step = -R  # a singular Jacobian: fall back to one plain iteration step
        # Backtracking (Armijo on |R|^2): the full Newton step can overshoot far from the solution.
        norm0 = R @ R
        t = 1.0
        for _ in range(40):
            trial = alpha + t * step
            R_trial = residual(trial)
            if R_trial @ R_trial <= (1 - 1e-4 * t) * norm0:
                break
            t *= 0.5
        alpha, R = trial, R_trial
    res = float(np.max(np.abs(R)))
    return alpha, max_iter, res <= tol * max(1.0, np.max(np.abs(alpha))), res


def _state(method, K, y, lam, alpha, n_iter, n_outer, converged, residual):
    m = K @ (y * alpha)
    h = m - lam * y * alpha
    z = y * h / np.sqrt(lam)
    return MeanFieldSolution(method, alpha, lam, m, h, z, n_iter, n_outer, converged, residual)


def site_precisions(sol):
    r"""Gaussian site precisions ``tau_i`` matching each tilted marginal's variance.

    Implements the precisions :math:`\tau_i` of eq. :eq:`(8.10) <gpc-ep-sites>`.

    The tilted marginal ``N(h, lam) Theta(y a)`` has variance ``lam (1 + D'(z))``;
    ``tau = 1/(lam (1 + D')) - 1/lam = -D' / (lam (1 + D'))`` (>= 0).

    Parameters
    ----------
    sol : MeanFieldSolution
        A solution with cavity variances ``lam`` and fields ``z``.

    Returns
    -------
    ndarray of shape (n,)
        The site precisions :math:`\tau_i \ge 0`.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import make_demo_problem, training_kernel
    >>> X, y = make_demo_problem(20, random_state=0)
    >>> K = training_kernel(X, 1.0, 1.0)
    >>> from svmlib.gpc import solve_mean_field, site_precisions
    >>> print(bool((site_precisions(solve_mean_field(K, y, 'ep')) >= 0).all()))
    True
    """
    d = dD(sol.z)
    return -d / (sol.lam * (1.0 + d))


def _ep_posterior_diag(K, tau):
    """``diag Sigma`` for ``Sigma = (K^-1 + diag tau)^-1`` via ``B = I + S K S``, ``S = sqrt(tau)``."""
    s = np.sqrt(tau)
    B = np.eye(K.shape[0]) + s[:, None] * K * s[None, :]
    L = linalg.cholesky(B, lower=True, check_finite=False)
    V = linalg.solve_triangular(L, s[:, None] * K, lower=True, check_finite=False)
    return np.diag(K) - np.einsum("ij,ij->j", V, V)


def solve_mean_field(K, y, method="naive", *, alpha0=None, lam0=None, solver="newton", damping=1.0,
                     tol=1e-10, max_iter=100, max_outer=200, outer_tol=1e-8, warn=True):
    """Solve the mean-field equations of ``method`` for the training kernel ``K``.

    Implements eq. :eq:`(8.7) <gpc-fixed-point>` (EP's cavities: eqs. :eq:`(8.9) <gpc-ep-cavity>` and
    :eq:`(8.10) <gpc-ep-sites>`).

    Parameters
    ----------
    K : array (n, n)
        Training kernel with the probit noise on its diagonal, ``K(X, X) + sigma^2 I``.
    y : array (n,)
        Labels -1/+1.
    method : {'naive', 'ensemble', 'ep'}
    alpha0, lam0 : arrays, optional
        Warm starts (e.g. from the previous hyperparameter step). ``lam0`` only for EP.
    solver, damping, tol, max_iter
        Passed to :func:`solve_fixed_point`.
    max_outer, outer_tol
        EP only: the outer loop ``lambda <- (1/Sigma_ii - tau_i)^-1`` stops when the
        relative change of ``lambda`` is below ``outer_tol``.

    Returns
    -------
    MeanFieldSolution

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import make_demo_problem, training_kernel
    >>> X, y = make_demo_problem(20, random_state=0)
    >>> K = training_kernel(X, 1.0, 1.0)
    >>> from svmlib.gpc import solve_mean_field
    >>> for method in ('naive', 'ensemble', 'ep'):
    ...     sol = solve_mean_field(K, y, method)
    ...     print(method, sol.converged, f'{sol.alpha.sum():.2f}')
    naive True 10.42
    ensemble True 9.92
    ep True 10.06
    """
    _check_method(method)
    K, y = _check_problem(K, y)
    with blas_single_thread():
        if method != "ep":
            lam = cavity_variances(K, method)
            alpha, n_iter, ok, res = solve_fixed_point(K, y, lam, alpha0=alpha0, solver=solver,
                                                       damping=damping, tol=tol, max_iter=max_iter)
            sol = _state(method, K, y, lam, alpha, n_iter, 0, ok, res)
        else:
            sol = _solve_ep(K, y, alpha0, lam0, solver, damping, tol, max_iter, max_outer, outer_tol)
    if not np.all(np.isfinite(sol.alpha)):
        raise FloatingPointError(
            f"The {method} mean-field solver produced non-finite values; use solver='newton' "
            "or a larger noise_var."
        )
    if warn and not sol.converged:
        warnings.warn(
            f"{method} mean-field equations did not converge (residual {sol.residual:.2e} after "
            f"{sol.n_iter} steps); raise max_iter, use solver='newton', or increase noise_var.",
            ConvergenceWarning, stacklevel=2,
        )
    return sol


def _solve_ep(K, y, alpha0, lam0, solver, damping, tol, max_iter, max_outer, outer_tol):
    """EP as a double loop: inner Newton for alpha at fixed lambda, outer lambda update."""
    lam = np.diag(K).copy() if lam0 is None else np.array(lam0, dtype=float)
    alpha, total, ok = alpha0, 0, False
    for outer in range(1, max_outer + 1):
        alpha, n_iter, ok_inner, res = solve_fixed_point(K, y, lam, alpha0=alpha, solver=solver,
                                                         damping=damping, tol=tol, max_iter=max_iter)
        total += n_iter
        sol = _state("ep", K, y, lam, alpha, total, outer, ok_inner, res)
        tau = site_precisions(sol)
        new_lam = 1.0 / (1.0 / _ep_posterior_diag(K, tau) - tau)
        change = np.max(np.abs(new_lam - lam) / lam)
        lam = new_lam
        if change <= outer_tol and ok_inner:
            ok = True
            break
    alpha, n_iter, ok_inner, res = solve_fixed_point(K, y, lam, alpha0=alpha, solver=solver,
                                                     damping=damping, tol=tol, max_iter=max_iter)
    return _state("ep", K, y, lam, alpha, total + n_iter, outer, ok and ok_inner, res)


# --------------------------------------------------------------------------- free energies
def free_energy_naive(K, y, sol):
    r"""Naive mean-field free energy (eq. :eq:`(8.14) <gpc-free-naive>`), a saddle-point value, not a bound:

    Implements eq. :eq:`(8.14) <gpc-free-naive>`.

    ``F_naive = -sum_i ln Phi(z_i) + 1/2 sum_{i != j} c_i K_ij c_j``, ``c = y * alpha``.

    Parameters
    ----------
    K : array_like of shape (n, n)
        Training kernel :math:`K_\sigma = K + \sigma^2 I` (noise included).
    y : array_like of shape (n,)
        Labels in {-1, +1}.
    sol : MeanFieldSolution
        A solution from :func:`solve_mean_field` for this ``K`` and ``y``.

    Returns
    -------
    float
        :math:`F_\text{naive}`.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import make_demo_problem, training_kernel
    >>> X, y = make_demo_problem(20, random_state=0)
    >>> K = training_kernel(X, 1.0, 1.0)
    >>> from svmlib.gpc import solve_mean_field, free_energy_naive
    >>> print(f"{free_energy_naive(K, y, solve_mean_field(K, y, 'naive')):.3f}")
    12.737
    """
    K, y = _check_solution(K, y, sol)
    c = y * sol.alpha
    return float(-np.sum(log_Phi(sol.z)) + 0.5 * (c @ K @ c - np.sum(np.diag(K) * c * c)))


def ensemble_bound(K, y, h):
    r"""The variational free energy of the product distribution with cavity means ``h``.

    ``q_i(a_i) ∝ N(a_i; h_i, v_i) Theta(y_i a_i)`` with ``v_i = 1/[K^-1]_ii``; its mean
    is ``m_i = h_i + y_i sqrt(v_i) D(z_i)``. Then (eq. :eq:`(8.13) <gpc-free-ensemble>`)

    ``F = sum_i [-ln Phi(z_i) - (m_i - h_i)^2 / (2 v_i) - 1/2 ln v_i] + 1/2 m^T K^-1 m + 1/2 ln det K``

    is ``-ln Z + KL(q || posterior) >= -ln Z`` for *any* ``h``; the mean-field solution minimises it.

    Parameters
    ----------
    K : array_like of shape (n, n)
        Training kernel (noise included).
    y : array_like of shape (n,)
        Labels in {-1, +1}.
    h : array_like of shape (n,)
        Cavity means.

    Returns
    -------
    float
        The variational free energy, an upper bound on :math:`-\ln Z`.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import make_demo_problem, training_kernel
    >>> X, y = make_demo_problem(20, random_state=0)
    >>> K = training_kernel(X[:3], 1.0, 1.0)
    >>> y3 = y[:3]
    >>> from svmlib.gpc import ensemble_bound, log_evidence_exact
    >>> F = ensemble_bound(K, y3, np.zeros(3))
    >>> print(bool(F >= -log_evidence_exact(K, y3)))
    True
    """
    K, y = _check_problem(K, y)
    try:
        h = np.asarray(h, dtype=float)
    except (TypeError, ValueError):
        raise TypeError("h must be an array of cavity means, one per row of K.") from None
    if h.shape != y.shape or not np.all(np.isfinite(h)):
        raise ValueError(f"h must hold {y.size} finite cavity means, one per row of K.")
    with blas_single_thread():
        cf = _cholesky(K)
        v = 1.0 / _inverse_diagonal(K)
        z = y * h / np.sqrt(v)
        m = h + y * np.sqrt(v) * D(z)
        Kinv_m = linalg.cho_solve(cf, m, check_finite=False)
        logdet = 2 * np.sum(np.log(np.diag(cf[0])))
    return float(np.sum(-log_Phi(z) - (m - h) ** 2 / (2 * v) - 0.5 * np.log(v))
                 + 0.5 * m @ Kinv_m + 0.5 * logdet)


def free_energy_ensemble(K, y, sol):
    r"""Ensemble (variational) free energy at the mean-field solution: an upper bound on ``-ln Z``.

    Implements eq. :eq:`(8.13) <gpc-free-ensemble>`.

    Parameters
    ----------
    K : array_like of shape (n, n)
        Training kernel :math:`K_\sigma = K + \sigma^2 I` (noise included).
    y : array_like of shape (n,)
        Labels in {-1, +1}.
    sol : MeanFieldSolution
        A solution from :func:`solve_mean_field` for this ``K`` and ``y``.

    Returns
    -------
    float
        :math:`F_\text{ens} \ge -\ln Z`.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import make_demo_problem, training_kernel
    >>> X, y = make_demo_problem(20, random_state=0)
    >>> K = training_kernel(X, 1.0, 1.0)
    >>> from svmlib.gpc import solve_mean_field, free_energy_ensemble
    >>> print(f"{free_energy_ensemble(K, y, solve_mean_field(K, y, 'ensemble')):.3f}")
    12.171
    """
    K, y = _check_solution(K, y, sol)
    return ensemble_bound(K, y, sol.h)


def _ep_sites(sol):
    """EP site parameters ``tau, nu`` and the cavity ``(h, lam)`` from the fixed point."""
    d = dD(sol.z)
    var = sol.lam * (1.0 + d)  # tilted (= posterior marginal) variance
    tau = 1.0 / var - 1.0 / sol.lam
    nu = sol.m / var - sol.h / sol.lam
    return tau, nu


def neg_log_evidence_ep(K, y, sol):
    r"""``-ln Z_EP``, the EP approximation of minus the log evidence.

    Implements eq. :eq:`(8.11) <gpc-ep-evidence>`.

    Rasmussen & Williams (2006), Algorithm 3.5 / eq. (3.65), with the step likelihood
    (cavity ``N(h_i, lam_i)``, tilted normaliser ``Phi(z_i)``).

    Parameters
    ----------
    K : array_like of shape (n, n)
        Training kernel :math:`K_\sigma = K + \sigma^2 I` (noise included).
    y : array_like of shape (n,)
        Labels in {-1, +1}.
    sol : MeanFieldSolution
        A solution from :func:`solve_mean_field` for this ``K`` and ``y``.

    Returns
    -------
    float
        :math:`-\ln Z_\text{EP}`.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import make_demo_problem, training_kernel
    >>> X, y = make_demo_problem(20, random_state=0)
    >>> K = training_kernel(X[:3], 1.0, 1.0)
    >>> y3 = y[:3]
    >>> from svmlib.gpc import solve_mean_field, neg_log_evidence_ep, log_evidence_exact
    >>> F = neg_log_evidence_ep(K, y3, solve_mean_field(K, y3, 'ep'))
    >>> print(f'{F:.3f}', f'{-log_evidence_exact(K, y3):.3f}')
    2.077 2.077
    """
    K, y = _check_solution(K, y, sol)
    tau, nu = _ep_sites(sol)
    tau_cav, mu_cav = 1.0 / sol.lam, sol.h
    with blas_single_thread():
        s = np.sqrt(tau)
        B = np.eye(K.shape[0]) + s[:, None] * K * s[None, :]
        try:
            L = linalg.cholesky(B, lower=True, check_finite=False)
        except linalg.LinAlgError:
            raise ValueError("I + T^1/2 K T^1/2 is not positive definite: K is not a covariance "
                             "(not positive semi-definite), or sol was solved on another K.") from None
        V = linalg.solve_triangular(L, s[:, None] * K, lower=True, check_finite=False)
        Sigma = K - V.T @ V
    terms_4_1 = 0.5 * np.sum(np.log1p(tau / tau_cav)) - np.sum(np.log(np.diag(L)))
    terms_5b = 0.5 * nu @ (Sigma @ nu) - 0.5 * np.sum(nu**2 / (tau + tau_cav))
    terms_5a = 0.5 * np.sum(mu_cav * tau_cav / (tau + tau_cav) * (tau * mu_cav - 2 * nu))
    terms_3 = np.sum(log_Phi(sol.z))
    return float(-(terms_4_1 + terms_5b + terms_5a + terms_3))


def free_energy(K, y, sol):
    r"""The free energy of the solution's own method: F_naive, F_ens or -ln Z_EP.

    Dispatches to eqs. :eq:`(8.14) <gpc-free-naive>`, :eq:`(8.13) <gpc-free-ensemble>` and :eq:`(8.11) <gpc-ep-evidence>`.

    Parameters
    ----------
    K : array_like of shape (n, n)
        Training kernel :math:`K_\sigma = K + \sigma^2 I` (noise included).
    y : array_like of shape (n,)
        Labels in {-1, +1}.
    sol : MeanFieldSolution
        A solution from :func:`solve_mean_field` for this ``K`` and ``y``.

    Returns
    -------
    float
        The free energy of ``sol.method``.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import make_demo_problem, training_kernel
    >>> X, y = make_demo_problem(20, random_state=0)
    >>> K = training_kernel(X, 1.0, 1.0)
    >>> from svmlib.gpc import solve_mean_field, free_energy
    >>> print(f"{free_energy(K, y, solve_mean_field(K, y, 'ep')):.3f}")
    11.949
    """
    K, y = _check_solution(K, y, sol)
    return {"naive": free_energy_naive, "ensemble": free_energy_ensemble,
            "ep": neg_log_evidence_ep}[sol.method](K, y, sol)


# --------------------------------------------------------------------------- hypergradients
def _gradient_matrix(K, y, sol):
    """Matrix ``M`` with ``dF/dtheta = 1/2 tr(M dK/dtheta)`` for the solution's free energy.

    At the solution the free energy is stationary in the inner variables, so only
    its explicit dependence on ``K`` counts.
    """
    c = y * sol.alpha
    if sol.method == "naive":
        # d ln P_naive = 1/2 tr(M' dK), M'_ij = c_i c_j (i != j), M'_ii = -D(z_i) z_i / K_ii.
        M = np.outer(c, c)
        np.fill_diagonal(M, -D(sol.z) * sol.z / np.diag(K))
        return -M
    if sol.method == "ensemble":
        # dF_ens = 1/2 tr[(K^-1 - K^-1 S K^-1) dK], S = m m^T + diag(v (1 + D'(z))).
        # At the fixed point K^-1 m = c, so K^-1 S K^-1 = c c^T + K^-1 diag(var) K^-1.
        cf = _cholesky(K)
        Kinv = linalg.cho_solve(cf, np.eye(K.shape[0]), check_finite=False)
        var = sol.lam * (1.0 + dD(sol.z))
        return Kinv - np.outer(c, c) - (Kinv * var[None, :]) @ Kinv
    # EP: d ln Z_EP = 1/2 tr[(b b^T - (K + T^-1)^-1) dK] with b = c (Rasmussen & Williams eq. 5.27).
    tau, _ = _ep_sites(sol)
    s = np.sqrt(tau)
    B = np.eye(K.shape[0]) + s[:, None] * K * s[None, :]
    cfB = linalg.cho_factor(B, lower=True, check_finite=False)
    R = s[:, None] * linalg.cho_solve(cfB, np.diag(s), check_finite=False)
    return R - np.outer(c, c)


def free_energy_gradient(K, y, sol, dK):
    """Gradient of the solution's free energy with respect to hyperparameters.

    Implements eq. :eq:`(8.15) <gpc-hypergradients>`.

    Parameters
    ----------
    dK : ndarray (p, n, n)
        ``dK/dtheta_k`` for each hyperparameter (of the *training* kernel).

    Returns
    -------
    ndarray (p,)

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import make_demo_problem, training_kernel
    >>> X, y = make_demo_problem(20, random_state=0)
    >>> K = training_kernel(X, 1.0, 1.0)
    >>> from svmlib.gpc import solve_mean_field, free_energy_gradient
    >>> K, dK = training_kernel(X, 1.0, 1.0, with_gradient=True)
    >>> g = free_energy_gradient(K, y, solve_mean_field(K, y, 'naive'), dK)
    >>> print(g.shape)
    (2,)
    """
    K, y = _check_solution(K, y, sol)
    try:
        dK = np.asarray(dK, dtype=float)
    except (TypeError, ValueError):
        raise TypeError("dK must be a numeric array of shape (p, n, n).") from None
    n = y.size
    if dK.ndim == 2:
        dK = dK[None]
    if dK.ndim != 3 or dK.shape[1:] != (n, n) or not np.all(np.isfinite(dK)):
        raise ValueError(f"dK must be a finite array of shape (p, {n}, {n}), got shape {dK.shape}.")
    with blas_single_thread():
        M = _gradient_matrix(K, y, sol)
    if not np.all(np.isfinite(M)):
        raise ValueError("The free-energy gradient is not finite here: K is (numerically) singular "
                         "for this method; add noise to its diagonal.")
    return 0.5 * np.einsum("ij,kij->k", M, dK)
