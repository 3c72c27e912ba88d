r"""The replica / adaptive-TAP theory of the bootstrapped hard-margin SVM: the public solver.

Malzahn & Opper (2004) average over bootstrap samples with the replica trick and
treat the resulting model with the adaptive TAP (cavity) approximation. In the
limits n -> 0 (replicas) and beta -> infinity (SVM) every training point i gets
three *site* parameters (dl_i, g_i, l_i) -- the book's
:math:`(\Delta\lambda_i, \gamma_i, \lambda_i)` -- fixed by requiring that the
Gaussian and the site descriptions of the field f_i agree.

The package is split so that the book's equations can be read apart from the speed-ups:

* ``_replica_equations`` -- the equations of :ref:`Chapter 9 <ch-replica>` (site moments, Gaussian part,
  cavities), the plain fixed-point map and :func:`iterate_replica`, its damped iteration;
* ``_replica_fast_map`` -- the same map through BLAS calls, and rough (low-rank or
  single-precision) versions of it for the first steps of a cold start;
* ``_replica_acceleration`` -- Newton-Krylov steps, Anderson mixing, the accelerated iteration;
* this module -- :func:`solve_replica` (same fixed point as :func:`iterate_replica`, about
  2-3x fewer O(N^3) iterations), learning curves, fields at new inputs and the implicit
  derivative :func:`error_gradient`.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.linalg import LinAlgError, cholesky, eigvalsh, solve_triangular
from scipy.optimize import brentq
from scipy.special import ndtr
from sklearn.exceptions import ConvergenceWarning

from .._threads import blas_single_thread
from .._validation import check_kernel_matrix, check_positive, check_positive_int
from ._hardmargin import check_gram
from ._replica_acceleration import _gmres, _linearised_map, _solve
from ._replica_equations import (V_FLOOR, _cavity_vector, gaussian_cavities, iterate_replica, replica_map,
                                 site_moments, site_parameters)
from ._replica_fast_map import _evaluate, _g_diag_l_g, _rough_map  # noqa: F401  (_rough_map: :ref:`Chapter 9 <ch-replica>`)
from ._replica_solution import MAX_S_OVER_N, ReplicaSolution, check_S_over_N

__all__ = [
    "MAX_S_OVER_N",
    "ReplicaSolution",
    "site_moments",
    "site_parameters",
    "initial_sites",
    "gaussian_cavities",
    "replica_map",
    "iterate_replica",
    "solve_replica",
    "replica_learning_curve",
    "field_at_new_inputs",
    "error_gradient",
]

_SQRT_2PI = np.sqrt(2.0 * np.pi)

# Points used to estimate the spectrum of K for the equal-sites start (initial_sites).
SPECTRUM_SUBSET = 100


def initial_sites(K, y, S_over_N):
    """Equal sites dl = d0, l = -d0, g = y d0 with the chi self-consistency of equal sites.

    d0 solves (1/N) sum_k w_k d / (1 + w_k d) = p Phi(-1/2), w_k the eigenvalues of K.
    For N > SPECTRUM_SUBSET they are estimated from SPECTRUM_SUBSET evenly spaced points
    (the eigenvalues of that block times N / SPECTRUM_SUBSET, the others zero): a full
    eigendecomposition costs about one fixed-point iteration, and the iteration forgets its
    start within a few steps (d0 scaled by 1/100 to 3 changed the iteration count by <= 1).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Gram matrix.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    S_over_N : float
        Mean bootstrap sample size over N.

    Returns
    -------
    dl, g, lam : ndarrays of shape (n,)
        Site parameters, a start for :func:`solve_replica` (``init``).

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.datasets import make_blobs2d
    >>> from svmlib.kernels import RBF
    >>> X, y = make_blobs2d(40, separation=3.0, random_state=0)
    >>> K = RBF(l=1.0)(X)
    >>> from svmlib.bootstrap import initial_sites, solve_replica
    >>> dl, g, lam = initial_sites(K, y, 1.0)
    >>> bool(np.all(dl == dl[0]) and np.all(g == y * dl[0]) and np.all(lam == -dl[0]))
    True
    >>> solve_replica(K, y, 1.0, init=(dl, g, lam)).converged  # the spec's start instead of the cold one
    True
    """
    K, y = check_gram(K, y)
    S_over_N = check_S_over_N(S_over_N)
    n = y.size
    if n > SPECTRUM_SUBSET:
        pick = np.linspace(0, n - 1, SPECTRUM_SUBSET).astype(int)
        w = np.zeros(n)
        w[:SPECTRUM_SUBSET] = np.clip(eigvalsh(K[np.ix_(pick, pick)]), 0, None) * (n / SPECTRUM_SUBSET)
    else:
        w = np.clip(eigvalsh(K), 0, None)
    target = -np.expm1(-S_over_N) * ndtr(-0.5)

    def excess(log_d):
        d = np.exp(log_d)
        return np.mean(w * d / (1 + w * d)) - target

    lo, hi = -40.0, 40.0
    d0 = np.exp(brentq(excess, lo, hi)) if excess(lo) < 0 < excess(hi) else 1.0
    return np.full(n, d0), y * d0, np.full(n, -d0)




def solve_replica(K, y, S_over_N=1.0, *, init=None, tol=1e-8, max_iter=500, dampings=(1.0, 0.5, 0.2),
                  anderson=5, newton=True, rough_steps=True):
    r"""Solve the replica/ADATAP equations for the bootstrap of a hard-margin SVM.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Gram matrix of distinct training inputs.
    y : ndarray of shape (n,)
        Labels (two classes).
    S_over_N : float
        Mean bootstrap sample size over N (Poisson occupations, p = 1 - e^{-S/N}),
        at most :data:`MAX_S_OVER_N`.
    init : tuple (dl, g, lam) or ReplicaSolution, optional
        Warm start, e.g. the solution at a nearby S/N (its cavities are used directly), or
        site parameters such as the spec's equal sites :func:`initial_sites`. By default
        a cold start in cavity space (every point on its margin).
    tol : float
        Convergence threshold on the disagreement of Gaussian and site marginals.
    max_iter : int
        Iterations per damping attempt.
    dampings : sequence of float in (0, 1]
        Tried in order until one converges (Numerics 4).
    anderson : int
        Memory of the Anderson acceleration of the plain steps, used when ``newton``
        is False (0 = plain damped iteration).
    newton : bool
        Finish with inexact Newton steps once the plain step is small (the default:
        ~2-3x fewer O(N^3) iterations at S = N; the fixed point is the same).
    rough_steps : bool
        Let the first plain steps of a cold start use a cheap approximation of the map where
        its expected error is below the step (the default): a low-rank surrogate of K when K
        has a low numerical rank, otherwise single precision. 1.1-1.4x faster at S = N on the
        book's data sets. Where K's numerical rank is very low (at most N/3 at 1e-8 max K_ii, as
        for a broad kernel on many points in few dimensions) a cold start first solves the whole
        fixed point on a low-rank surrogate of K, at O(N r^2) per iteration, and finishes on the
        exact map from there (one positive label among 999 2-D points: 0.5 s instead of 18 s
        ending in a warning). The fixed point and the convergence test always use the exact map
        in double precision.

    Returns
    -------
    ReplicaSolution
        ``error`` is eq. :eq:`(9.19) <boot-error>`; a ConvergenceWarning is issued (and
        ``converged`` is False) when no attempt reached ``tol``: the best iterate is returned.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.datasets import make_blobs2d
    >>> from svmlib.kernels import RBF
    >>> X, y = make_blobs2d(40, separation=3.0, random_state=0)
    >>> K = RBF(l=1.0)(X)
    >>> from svmlib.bootstrap import solve_replica
    >>> sol = solve_replica(K, y, 1.0)  # S = N
    >>> sol.converged, sol.residual < 1e-8
    (True, True)
    >>> print(f"bootstrapped test error {sol.error:.4f}, 0.632 estimate {0.632 * sol.error:.4f}")
    bootstrapped test error 0.2361, 0.632 estimate 0.1492
    """
    K, y = check_gram(K, y)
    S_over_N = check_S_over_N(S_over_N)
    tol = float(check_positive(tol, "tol"))
    max_iter = check_positive_int(max_iter, "max_iter")
    anderson = check_positive_int(anderson, "anderson", minimum=0)
    dampings = tuple(float(d) for d in np.atleast_1d(dampings))
    if not dampings or any(not (0 < d <= 1) for d in dampings):
        raise ValueError(f"dampings must be numbers in (0, 1], got {dampings!r}.")
    if isinstance(init, ReplicaSolution):
        if init.m_c is None or init.m_c.shape != y.shape:
            raise ValueError("init must be a ReplicaSolution of the same n training points.")
    elif init is not None:
        init = tuple(np.asarray(a, dtype=float).copy() for a in init)
        if len(init) != 3 or any(a.shape != y.shape or not np.all(np.isfinite(a)) for a in init):
            raise ValueError("init must be (dl, g, lam), three finite arrays of length n, or a ReplicaSolution.")
    return _solve(K, y, S_over_N, init, tol, max_iter, dampings, anderson, bool(newton), bool(rough_steps))


def replica_learning_curve(K, y, S_over_N_values, **options):
    """Solve at increasing S/N, each warm-started from the previous solution.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Gram matrix of distinct training inputs.
    y : ndarray of shape (n,)
        Labels (two classes).
    S_over_N_values : sequence of float
        Sample sizes over N, in any order (solved in increasing order).
    **options
        Passed to :func:`solve_replica`.

    Returns
    -------
    list of ReplicaSolution
        In the order of ``S_over_N_values``.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.datasets import make_blobs2d
    >>> from svmlib.kernels import RBF
    >>> X, y = make_blobs2d(40, separation=3.0, random_state=0)
    >>> K = RBF(l=1.0)(X)
    >>> from svmlib.bootstrap import replica_learning_curve
    >>> curve = replica_learning_curve(K, y, [0.5, 1.0, 2.0, 4.0])
    >>> [round(s.error, 3) for s in curve]
    [0.201, 0.236, 0.246, 0.232]
    """
    values = np.asarray(S_over_N_values, dtype=float)
    order = np.argsort(values)
    solutions = [None] * values.size
    previous = None
    for k in order:
        previous = solve_replica(K, y, values[k], init=previous, **options)
        solutions[k] = previous
    return solutions


def field_at_new_inputs(K, solution, K_new, K_new_diag):
    r"""Bootstrap distribution of the field at new inputs x (eq. :eq:`(9.20) <boot-field-new>`).

    T(x) = (I + K D)^-1 k(x) (computed as k - K D^1/2 B^-1 D^1/2 k);
    chi(x) = K(x, x) - sum_i k_i(x) dl_i T_i(x); mean(x) = T(x)^T g; V(x) = -sum_i T_i(x)^2 l_i.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Gram matrix of the training inputs.
    solution : ReplicaSolution
        The fixed point for K (its site parameters are used).
    K_new : ndarray of shape (n_new, n)
        Kernel between the new and the training inputs.
    K_new_diag : ndarray of shape (n_new,)
        K(x, x) at the new inputs.

    Returns
    -------
    mean, var, chi : ndarrays of shape (n_new,)

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.datasets import make_blobs2d
    >>> from svmlib.kernels import RBF
    >>> X, y = make_blobs2d(40, separation=3.0, random_state=0)
    >>> K = RBF(l=1.0)(X)
    >>> from svmlib.bootstrap import field_at_new_inputs, solve_replica
    >>> sol = solve_replica(K, y, 1.0)
    >>> X_new = np.array([[-2.0, -1.0], [0.0, 0.0], [2.0, 1.0]])
    >>> mean, var, chi = field_at_new_inputs(K, sol, RBF(l=1.0)(X_new, X), RBF(l=1.0).diag(X_new))
    >>> np.sign(mean).tolist(), bool(np.all(var > 0))
    ([-1.0, -1.0, 1.0], True)
    """
    if not isinstance(solution, ReplicaSolution):
        raise TypeError(f"solution must be a ReplicaSolution (from solve_replica), got {type(solution).__name__}.")
    dl, g, lam = solution.sites
    n = dl.size
    K = check_kernel_matrix(K, n, name="K", symmetric=True)
    if np.ndim(K_new) != 2:
        raise ValueError(f"K_new must be a matrix of shape (n_new, {n}), got shape {np.shape(K_new)}.")
    kx = check_kernel_matrix(K_new, np.shape(K_new)[0], n, name="K_new").T  # (n, n_new)
    K_new_diag = np.asarray(K_new_diag, dtype=float)
    if K_new_diag.shape != (kx.shape[1],) or not np.all(np.isfinite(K_new_diag)):
        raise ValueError(f"K_new_diag must be {kx.shape[1]} finite values K(x, x), one per new input.")
    with blas_single_thread():
        sd = np.sqrt(dl)
        B = sd[:, None] * K * sd[None, :]
        B[np.diag_indices(n)] += 1.0
        try:
            L = cholesky(B, lower=True, check_finite=False)
        except LinAlgError:
            raise ValueError("I + D^1/2 K D^1/2 is not positive definite: K must be the positive semidefinite "
                             "Gram matrix the solution was computed for.") from None
        z = solve_triangular(L, sd[:, None] * kx, lower=True, check_finite=False)
        z = solve_triangular(L, z, lower=True, trans="T", check_finite=False)
        T = kx - K @ (sd[:, None] * z)
        chi = K_new_diag - np.einsum("in,i,in->n", kx, dl, T)
        mean = T.T @ g
        var = -np.einsum("in,i->n", T**2, lam)
    var = np.maximum(var, V_FLOOR * float(np.max(np.diag(K))))
    return mean, var, chi


def error_gradient(K, y, solution, dK, *, rtol=1e-10):
    r"""Derivatives of the bootstrapped error (eq. :eq:`(9.19) <boot-error>`) with respect to kernel parameters.

    The error depends on a kernel parameter :math:`\psi` through the fixed point
    :math:`u^* = F(u^*; K(\psi))` of the cavity vector :math:`u = (m_c, \log V_c, \log\chi_c)` (the chapter's
    letters). Differentiating it (implicit function theorem, :eq:`(A.28) <tk-implicit>`) gives

    .. math:: \frac{du^*}{d\psi} = (I - F_u)^{-1} \frac{\partial F}{\partial \psi},
              \qquad \frac{d\epsilon}{d\psi} = \nabla_u \epsilon \cdot \frac{du^*}{d\psi},

    with :math:`\partial F/\partial\psi` at fixed sites from
    :math:`dG = (I - G D)\, dK\, (I - D G)` (no inverse of K), and the linear system solved
    by GMRES with the Newton step's operator in double precision. It costs one evaluation of
    the map and, per parameter, two N x N products and a GMRES solve: a fraction of a
    cold-start solve at S = N (0.3 to 0.6 of it over the chapter's widths; ``benchmarks/replica_vs_mc.py``).
    Efron's 0.632 estimate at S = N has 0.632 times this gradient.

    Parameters
    ----------
    K : ndarray of shape (n, n)
    y : ndarray of shape (n,)
    solution : ReplicaSolution
        A converged solution for (K, y).
    dK : ndarray of shape (n, n) or (p, n, n)
        Derivatives of K with respect to p parameters, e.g. ``RBF(l).grad_log_l(X)``.
    rtol : float
        Relative residual of the linear solve.

    Returns
    -------
    float or ndarray of shape (p,)

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.datasets import make_blobs2d
    >>> from svmlib.kernels import RBF
    >>> X, y = make_blobs2d(40, separation=3.0, random_state=0)
    >>> K = RBF(l=1.0)(X)
    >>> from svmlib.bootstrap import error_gradient, solve_replica
    >>> kernel = RBF(l=1.0)
    >>> sol = solve_replica(K, y, 1.0, tol=1e-10)
    >>> slope = error_gradient(K, y, sol, kernel.grad_log_l(X)[0])  # d eps / d ln l
    >>> h = 1e-3  # against a difference quotient of two solves
    >>> up, down = (solve_replica(RBF(l=np.exp(s))(X), y, 1.0, init=sol, tol=1e-10).error for s in (h, -h))
    >>> bool(abs(slope - (up - down) / (2 * h)) < 1e-5)
    True
    """
    K, y = check_gram(K, y)
    n = y.size
    if not isinstance(solution, ReplicaSolution) or solution.m_c.shape != (n,):
        raise ValueError("solution must be the ReplicaSolution of these n training points (solve_replica(K, y)).")
    if not solution.converged:
        raise ValueError("solution has not converged: the derivative of the fixed point needs the fixed point "
                         f"(residual {solution.residual:.2g}). Solve with a larger max_iter first.")
    dK = np.asarray(dK, dtype=float)
    single = dK.ndim == 2
    dK = dK[None] if single else dK
    if dK.ndim != 3 or dK.shape[1:] != (n, n):
        raise ValueError(f"dK must have shape (n, n) or (p, n, n) with n = {n}, got {np.shape(dK)}.")
    if not np.all(np.isfinite(dK)):
        raise ValueError("dK contains NaN or infinite values.")
    x = _cavity_vector(solution)
    with blas_single_thread():
        ev = _evaluate(K, y, solution.S_over_N, x)
        if ev is None:  # pragma: no cover - a converged solution evaluates
            raise ValueError("The solution does not give a valid Gaussian part for K.")
        G = ev.part.full_G()
        M = _g_diag_l_g(G, ev.sites[2])  # shared by the Newton operator and the kernel response
        matvec = _linearised_map(y, solution.S_over_N, ev, np.float64, G, M)
        grad_x = _error_gradient_in_x(y, ev.part.gauss.m_c, ev.part.gauss.V_c, ev.part.clipped)
        response = _cavity_response_to_kernel(ev, G, M)
        out = np.empty(dK.shape[0])
        for k, dKk in enumerate(dK):
            rhs = response(dKk)
            u = _gmres(matvec, rhs, rtol, max_dim=min(3 * n, 300))
            achieved = np.linalg.norm(matvec(u) - rhs) / max(np.linalg.norm(rhs), 1e-300)
            if achieved > 1e3 * rtol:
                warnings.warn(f"error_gradient: the linear solve reached a relative residual of {achieved:.1g} "
                              f"(asked {rtol:g}); the derivative is accurate to about that.", ConvergenceWarning,
                              stacklevel=2)
            out[k] = grad_x @ u
    return float(out[0]) if single else out


def _error_gradient_in_x(y, m_c, V_c, clipped):
    """d eps / d(m_c, log V_c, log chi_c) for eps = mean Phi(z), z = -y m_c / sqrt(V_c)."""
    z = -y * m_c / np.sqrt(V_c)
    phi = np.exp(-0.5 * z**2) / _SQRT_2PI / y.size
    d_logV = np.where(clipped, 0.0, -0.5 * z * phi)  # a clipped V_c does not move
    return np.concatenate([-phi * y / np.sqrt(V_c), d_logV, np.zeros_like(m_c)])


def _cavity_response_to_kernel(ev, G, M):
    """dF/dtheta at fixed sites, as a function of dK: the cavity vector's response to K -> K + dK.

    dG = (I - G D) dK (I - D G) = U T^T with T = I - G D and U = T dK: one n x n product per dK.
    What the cavities need of dG are row-wise dot products of U: diag(dG) with T, dG g = U (T^T g),
    and diag(dG diag(l) G) with Q = G diag(l) T = G diag(l) - M D (M = G diag(l) G, shared by all dK).
    G and M are the full matrices at the evaluation ``ev``.
    """
    part, (dl, g, lam) = ev.part, ev.sites
    gauss, b = part.gauss, part.b_ii
    T = -G * dl[None, :]
    T[np.diag_indices_from(T)] += 1.0
    Tt_g = T.T @ g
    Q = G * lam[None, :] - M * dl[None, :]

    def response(dK):
        U = T @ dK
        dchi = np.einsum("ij,ij->i", U, T)
        dm = U @ Tt_g
        dV = -2.0 * np.einsum("ij,ij->i", U, Q)  # V = -diag(G diag(l) G)
        db = -dl * dchi  # b = 1 - dl chi
        dm_c = (dm - g * dchi - gauss.m_c * db) / b  # m_c = (m - chi g) / b
        dV_c = (dV + 2 * gauss.chi * dchi * lam - 2 * gauss.V_c * b * db) / b**2  # V_c = (V + chi^2 l) / b^2
        dlog_V = np.where(part.clipped, 0.0, dV_c / gauss.V_c)
        dlog_chi = dchi / gauss.chi - db / b  # chi_c = chi / b
        return np.concatenate([dm_c, dlog_V, dlog_chi])

    return response
