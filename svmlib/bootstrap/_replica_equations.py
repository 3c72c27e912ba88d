r"""The replica / adaptive-TAP equations of :ref:`Chapter 9 <ch-replica>`, as the book writes them: read this module.

Each training point i carries three site parameters (dl_i, g_i, l_i), the book's
:math:`(\Delta\Lambda_i, \Gamma_i, \Lambda_i)` (Malzahn and Opper's :math:`\Delta\lambda_i, \gamma_i, \lambda_i`),
and a cavity Gaussian N(m_c, V_c) with response chi_c. One step of the fixed-point map F goes round the
chapter's equations:

    cavities (m_c, V_c, chi_c) --eq. (9.15)--> site parameters (dl, g, l)
    --eq. (9.16)--> Gaussian marginals (chi, m, V) --eq. (9.17)--> new cavities

(:eq:`(9.15) <boot-site-moments>`, :eq:`(9.16) <boot-gauss>`, :eq:`(9.17) <boot-cavity>`).
The state is the cavity vector u = (m_c, log V_c, log chi_c) (the chapter's :math:`\mathbf u`; the code's
argument is called ``x``), always admissible. At the fixed point the Gaussian and the site marginals agree;
:func:`iterate_replica` runs the plain damped iteration u <- u + damping (F(u) - u) there. The equations are
written in the numerically stable forms of :ref:`Chapter 9 <ch-replica>` (each cures an observed failure):

1. 1 - p Phi(Delta) = Phi(-Delta) + e^{-S/N} Phi(Delta), and site parameters in closed form;
2. G through one Cholesky factor of B = I + D^1/2 K D^1/2, cavities without 1/chi - dl;
3. a floor on V_c (isolated points under narrow kernels);
4. undamped steps first, then damping 0.5, then 0.2;
5. the convergence test compares means and variances relative to the field's spread where
   that exceeds the margin (V > 1), in absolute terms otherwise.

:func:`solve_replica` iterates the same map F to the same fixed point, faster: BLAS and
rough (low-rank or single-precision) evaluations of the map in ``_replica_fast_map``,
Newton-Krylov steps and Anderson mixing in ``_replica_acceleration``.
"""

from __future__ import annotations

import warnings
from collections import namedtuple

import numpy as np
from scipy.linalg import LinAlgError, cholesky, solve_triangular
from scipy.special import ndtr
from sklearn.exceptions import ConvergenceWarning

from ._replica_solution import (ReplicaSolution, check_gaussian_inputs, check_iteration_inputs, check_map_inputs,
                                check_sites)

__all__ = ["site_moments", "site_parameters", "gaussian_cavities", "replica_map", "iterate_replica"]

V_FLOOR = 1e-14  # floor on V_c, relative to max K_ii: isolated points have V_c = 0 (Numerics 3)
CLAMPED_B = 0.05  # below this (B^-1)_ii = 1 - dl_i G_ii cancels: computed as a product (large S/N)
COLD_START = (1.0, 0.1, 0.1)  # start: m_c = y (on the margin), V_c = chi_c = 0.1 K_ii


# ------------------------------------------------------------ site side, eq. :eq:`(9.15) <boot-site-moments>`
def _site_terms(y, m_c, V_c, S_over_N):
    """q = p Phi(Delta), 1 - q without cancellation, the mean shift p (Phi + sqrt(V_c) phi), Delta."""
    p = -np.expm1(-S_over_N)  # p = 1 - e^{-S/N}: the probability that the point is in the sample
    delta = (1 - y * m_c) / np.sqrt(V_c)
    Phi, phi = ndtr(delta), np.exp(-0.5 * delta**2) / np.sqrt(2 * np.pi)
    one_minus_q = ndtr(-delta) + np.exp(-S_over_N) * Phi  # = 1 - p Phi(Delta)   (Numerics 1)
    return p * Phi, one_minus_q, p * (Phi + np.sqrt(V_c) * phi), delta


def site_moments(y, m_c, V_c, chi_c, S_over_N):
    r"""Moments of the field at one site given its cavity Gaussian (eq. :eq:`(9.15) <boot-site-moments>`).

    The cavity field is :math:`h = m_c + \sqrt{V_c}\, u`. With probability :math:`1 - p`
    the point is out of the sample (f = h); with probability p it is in, and then f = h if
    y h >= 1, else f = y (clamped to the margin).

    Parameters
    ----------
    y : float or ndarray
        Labels in {-1, +1}.
    m_c, V_c, chi_c : float or ndarray
        Cavity mean, variance (> 0) and response (> 0) at each site.
    S_over_N : float
        Mean bootstrap sample size over N: the point is in the sample with probability p = 1 - e^{-S/N}.

    Returns
    -------
    m, V, chi : ndarrays
        Mean and variance of f and the response :math:`\chi = \chi_c\, \partial m / \partial m_c`.

    Examples
    --------
    >>> m, V, chi = site_moments(1.0, 0.0, 1.0, 1.0, 1.0)  # a point on the wrong side of its margin
    >>> print(f"{m:.4f} {V:.4f} {chi:.4f}")
    0.6848 0.6840 0.4682
    """
    (_, _, _), moments = site_parameters(y, m_c, V_c, chi_c, S_over_N)
    return moments


def site_parameters(y, m_c, V_c, chi_c, S_over_N):
    """New site parameters (dl, g, l) and the site moments (m, V, chi), in closed form.

    Eq. :eq:`(9.17) <boot-cavity>` solved for the site side, dl = 1/chi - 1/chi_c, g = m/chi - m_c/chi_c,
    l = -V/chi^2 + V_c/chi_c^2, gives (Numerics 1) dl = q/chi, g = y shift/chi and
    l = -[V_c q (1 - q) + (1 - y m)(y m - y m_c)]/chi^2: no cancelling differences.

    Parameters
    ----------
    y : float or ndarray
        Labels in {-1, +1}.
    m_c, V_c, chi_c : float or ndarray
        Cavity mean, variance (> 0) and response (> 0) at each site.
    S_over_N : float
        Mean bootstrap sample size over N: the point is in the sample with probability p = 1 - e^{-S/N}.

    Returns
    -------
    (dl, g, lam), (m, V, chi) : tuples of ndarrays
        Site parameters (dl >= 0, lam <= 0) and the moments of eq. :eq:`(9.15) <boot-site-moments>`.

    Examples
    --------
    >>> (dl, g, lam), (m, V, chi) = site_parameters(1.0, 0.0, 1.0, 1.0, 1.0)
    >>> print(f"{dl:.4f} {g:.4f} {lam:.4f}")
    1.1360 1.4627 -2.1208
    >>> bool(abs(1 / chi - (1 / 1.0 + dl)) < 1e-12)  # eq. :eq:`(9.17) <boot-cavity>`: 1/chi = 1/chi_c + dl
    True
    """
    return _site_parameters(*check_sites(y, m_c, V_c, chi_c, S_over_N))


def _site_parameters(y, m_c, V_c, chi_c, S_over_N):
    """:func:`site_parameters` without the input checks (the iteration's inputs are valid)."""
    q, one_minus_q, shift, _ = _site_terms(y, m_c, V_c, S_over_N)
    chi = chi_c * one_minus_q
    m = m_c * one_minus_q + y * shift
    excess = (1 - y * m) * (y * m - y * m_c)
    V = V_c * one_minus_q + excess
    return (q / chi, y * shift / chi, -(V_c * q * one_minus_q + excess) / chi**2), (m, V, chi)


# ------------------------------------------------------------ Gaussian side, eqs. :eq:`(9.16) <boot-gauss>`, :eq:`(9.17) <boot-cavity>`
# Gaussian marginals (chi, m, V) of eq. :eq:`(9.16) <boot-gauss>` and cavities (chi_c, m_c, V_c) of eq. :eq:`(9.17) <boot-cavity>`
_Gaussian = namedtuple("_Gaussian", "chi m V chi_c m_c V_c")


def gaussian_cavities(K, dl, g, lam, *, v_floor=V_FLOOR):
    r"""Gaussian marginals (eq. :eq:`(9.16) <boot-gauss>`) and cavities (eq. :eq:`(9.17) <boot-cavity>`) for sites (dl, g, l).

    With D = diag(dl), :math:`B = I + D^{1/2} K D^{1/2} = L L^\top` and
    :math:`A = L^{-1} D^{1/2} K`: :math:`G = (K^{-1} + D)^{-1} = K - A^\top A` (Numerics 2,
    no inverse of K). The cavity of eq. :eq:`(9.17) <boot-cavity>`, rewritten without the cancelling
    1/chi_i - dl_i, divides sums over j != i by :math:`b_i = (B^{-1})_{ii} = 1 - dl_i G_{ii}`.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Gram matrix.
    dl, g, lam : ndarrays of shape (n,)
        Site parameters, dl >= 0 and lam <= 0 (as :func:`site_parameters` gives them).
    v_floor : float
        Floor on V_c relative to max_i K_ii (Numerics 3).

    Returns
    -------
    gauss : the marginals (chi, m, V) and cavities (chi_c, m_c, V_c), attributes of one object
    L : ndarray of shape (n, n), the lower Cholesky factor of B

    Examples
    --------
    >>> import numpy as np
    >>> K = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> gauss, L = gaussian_cavities(K, np.array([1.0, 2.0]), np.array([1.0, -1.0]), np.array([-1.0, -1.0]))
    >>> G = np.linalg.inv(np.linalg.inv(K) + np.diag([1.0, 2.0]))
    >>> bool(np.allclose(gauss.chi, np.diag(G)) and np.allclose(gauss.m, G @ [1.0, -1.0]))
    True
    >>> bool(np.allclose(gauss.chi_c, 1 / (1 / np.diag(G) - [1.0, 2.0])))  # chi_c = 1 / dl_c
    True
    """
    K, dl, g, lam = check_gaussian_inputs(K, dl, g, lam)
    try:
        return _gaussian_cavities(K, dl, g, lam, v_floor)
    except LinAlgError:
        raise ValueError("I + D^1/2 K D^1/2 is not positive definite: K must be a positive semidefinite "
                         "Gram matrix.") from None


def _gaussian_cavities(K, dl, g, lam, v_floor=V_FLOOR):
    """:func:`gaussian_cavities` without the input checks."""
    n = dl.size
    sd = np.sqrt(dl)
    L = cholesky(np.eye(n) + sd[:, None] * K * sd[None, :], lower=True, check_finite=False)  # B = L L^T
    A = solve_triangular(L, sd[:, None] * K, lower=True, check_finite=False)  # A = L^-1 D^1/2 K
    G = K - A.T @ A  # = (K^-1 + D)^-1
    b = 1.0 - dl * np.diag(G)  # (B^-1)_ii
    clamped = np.flatnonzero(b < CLAMPED_B)
    if clamped.size:  # dl_i G_ii -> 1 (large S/N): b_i and G's row i as products, not differences
        Z = solve_triangular(L, np.eye(n)[:, clamped], lower=True, check_finite=False)  # L^-1 e_i
        b[clamped] = np.sum(Z**2, axis=0)  # (B^-1)_ii = |L^-1 e_i|^2
        W = solve_triangular(L, Z, lower=True, trans="T", check_finite=False)  # B^-1 e_i
        G[:, clamped] = K @ (sd[:, None] * W) / sd[clamped]  # G = K D^1/2 B^-1 D^-1/2
        G[clamped, :] = G[:, clamped].T
    chi = np.diag(G).copy()
    m = G @ g  # eq. :eq:`(9.16) <boot-gauss>`
    V = -np.einsum("ij,j,ij->i", G, lam, G)  # -(G diag(l) G)_ii
    G_off = G - np.diag(chi)  # cavity sums run over j != i
    chi_c = chi / b  # = 1 / dl_c                       eq. :eq:`(9.17) <boot-cavity>`
    m_c = (G_off @ g) / b  # = (m - chi g) / b = g_c / dl_c
    V_c = -((G_off**2) @ lam) / b**2  # = (V + chi^2 l) / b^2 = -l_c / dl_c^2
    V_c = np.maximum(V_c, v_floor * np.max(np.diag(K)))  # Numerics 3
    return _Gaussian(chi, m, V, chi_c, m_c, V_c), L


# ------------------------------------------------------------ the fixed-point map and its iteration
def _cavity_vector(gauss):
    """The iteration's state x = (m_c, log V_c, log chi_c)."""
    return np.concatenate([gauss.m_c, np.log(gauss.V_c), np.log(gauss.chi_c)])


def _split_cavity(x):
    """(m_c, V_c, chi_c) from the state x."""
    m_c, log_V_c, log_chi_c = np.split(x, 3)
    return m_c, np.exp(log_V_c), np.exp(log_chi_c)


def _residual(gauss, m, V, chi):
    """How far Gaussian and site marginals disagree: |m - m_s|, |V - V_s| and |chi - chi_s| / chi.

    Means and variances are compared in units of the margin (1), or of the field's spread where
    that is larger (V > 1): |m - m_s| / sqrt(V) and |V - V_s| / V there. Fields of a few hundred
    (one example of a class among a thousand) are computed with round-off errors far above 1e-8 in
    absolute terms, and this test would then never pass (Numerics 5).
    """
    scale = np.maximum(gauss.V, 1.0)
    return float(max(np.max(np.abs(gauss.m - m) / np.sqrt(scale)), np.max(np.abs(gauss.V - V) / scale),
                     np.max(np.abs(gauss.chi - chi) / gauss.chi)))


def _bootstrap_error(y, gauss):
    """eq. :eq:`(9.19) <boot-error>`: the mean probability that a left-out point's field has the wrong sign."""
    return float(np.mean(ndtr(-y * gauss.m_c / np.sqrt(gauss.V_c))))


def replica_map(K, y, S_over_N, x):
    """One step of the map: x = (m_c, log V_c, log chi_c) -> F(x), and how far from the fixed point.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Gram matrix.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    S_over_N : float
        Mean bootstrap sample size over N.
    x : ndarray of shape (3 n,)
        The cavity vector (m_c, log V_c, log chi_c).

    Returns
    -------
    F_x : ndarray of shape (3 n,)
        The new cavity vector.
    residual : float
        max |m - m_s|, |V - V_s|, |chi - chi_s| / chi (the first two over sqrt(V) and V where
        V > 1): zero at the fixed point.
    sites : tuple (dl, g, lam)
    gauss : the Gaussian marginals and cavities, see :func:`gaussian_cavities`

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.bootstrap import solve_replica
    >>> K, y = np.array([[1.0, 0.3], [0.3, 1.0]]), np.array([-1.0, 1.0])
    >>> sol = solve_replica(K, y, 1.0)
    >>> x = np.concatenate([sol.m_c, np.log(sol.V_c), np.log(sol.chi_c)])
    >>> F_x, residual, sites, gauss = replica_map(K, y, 1.0, x)
    >>> bool(np.abs(F_x - x).max() < 1e-6 and residual < 1e-8)  # a fixed point
    True
    """
    K, y, S_over_N, x = check_map_inputs(K, y, S_over_N, x)
    try:
        with np.errstate(all="ignore"):  # overflow shows up as a non-finite result, reported below
            out = _replica_map(K, y, S_over_N, x)
    except LinAlgError:
        raise ValueError("I + D^1/2 K D^1/2 is not positive definite: K must be a positive semidefinite Gram "
                         "matrix of distinct inputs.") from None
    if not (np.all(np.isfinite(out[0])) and np.isfinite(out[1])):
        raise ValueError("The map is not finite at this x (overflow): check that K is a valid Gram matrix and "
                         "that x is a cavity vector (m_c, log V_c, log chi_c) of moderate size.")
    return out


def _replica_map(K, y, S_over_N, x):
    """:func:`replica_map` without the input checks: the chapter's three steps."""
    m_c, V_c, chi_c = _split_cavity(x)
    sites, marginals = _site_parameters(y, m_c, V_c, chi_c, S_over_N)  # eq. :eq:`(9.15) <boot-site-moments>`
    gauss, _ = _gaussian_cavities(K, *sites)  # eqs. :eq:`(9.16) <boot-gauss>`, :eq:`(9.17) <boot-cavity>`
    return _cavity_vector(gauss), _residual(gauss, *marginals), sites, gauss


def iterate_replica(K, y, S_over_N=1.0, *, tol=1e-8, max_iter=500, dampings=(1.0, 0.5, 0.2)):
    """The plain fixed-point iteration of :ref:`Chapter 9 <ch-replica>`: x <- x + damping (F(x) - x) until the two sides agree.

    Slower than :func:`solve_replica` (linear convergence, ~40 iterations on crabs at S = N), which reaches
    the same fixed point with Newton steps.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Gram matrix of distinct training inputs.
    y : ndarray of shape (n,)
        Labels (two classes).
    S_over_N : float
        Mean bootstrap sample size over N.
    tol : float
        Convergence threshold on the residual of :func:`replica_map`.
    max_iter : int
        Iterations per damping.
    dampings : sequence of float in (0, 1]
        Tried in order until one converges (Numerics 4).

    Returns
    -------
    ReplicaSolution
        With ``n_iter`` (over all dampings) and ``converged``; a ConvergenceWarning when no damping
        reached ``tol`` (the best iterate is returned).

    Examples
    --------
    >>> from svmlib.bootstrap import solve_replica
    >>> from svmlib.datasets import make_blobs2d
    >>> from svmlib.kernels import RBF
    >>> X, y = make_blobs2d(40, separation=3.0, random_state=0)
    >>> K = RBF(l=1.0)(X)
    >>> plain, fast = iterate_replica(K, y, 1.0), solve_replica(K, y, 1.0)
    >>> plain.converged, plain.n_iter > fast.n_iter, abs(plain.error - fast.error) < 1e-9
    (True, True, True)
    """
    K, y, S_over_N, tol, max_iter, dampings = check_iteration_inputs(K, y, S_over_N, tol, max_iter, dampings)
    mean, var, response = COLD_START
    x0 = np.concatenate([mean * y, np.log(var * np.diag(K)), np.log(response * np.diag(K))])
    best, n_iter = None, 0
    for damping in dampings:
        x, history = x0, []
        for _ in range(max_iter):
            try:
                F_x, res, sites, gauss = _replica_map(K, y, S_over_N, x)
            except LinAlgError:  # B not positive definite
                res = np.nan
            if not np.isfinite(res):
                raise ValueError("The replica iteration failed (non-finite values or B not positive definite): "
                                 "check that K is a valid Gram matrix of distinct inputs.")
            n_iter += 1
            history.append(res)
            if best is None or res < best[0]:
                best = (res, sites, gauss, damping, history)
            if res < tol:
                break
            x = x + damping * (F_x - x)
        if best[0] < tol:
            break
    res, sites, gauss, damping, history = best
    if res >= tol:
        warnings.warn(f"Plain replica iteration at S/N = {S_over_N:g} did not converge (residual {res:.2g} > "
                      f"tol {tol:g} after {n_iter} iterations); returning the best iterate. Try a larger "
                      "max_iter or smaller dampings.", ConvergenceWarning, stacklevel=2)
    return ReplicaSolution(S_over_N, *sites, gauss.m_c, gauss.V_c, gauss.chi_c, _bootstrap_error(y, gauss),
                           n_iter, bool(res < tol), res, damping, history)
