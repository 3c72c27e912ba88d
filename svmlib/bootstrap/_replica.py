r"""The replica / adaptive-TAP theory of the bootstrapped hard-margin SVM.

Malzahn & Opper (2004) average over bootstrap samples with the replica trick and
treat the resulting model with the adaptive TAP (cavity) approximation. In the
limits n -> 0 (replicas) and beta -> infinity (SVM) every training point i gets
three *site* parameters (dl_i, g_i, l_i) -- the book's
:math:`(\Delta\lambda_i, \gamma_i, \lambda_i)` -- fixed by requiring that two
descriptions of the field f_i agree:

* the Gaussian part (eq. boot-gauss): with D = diag(dl) and
  :math:`G = (K^{-1} + D)^{-1}`: chi_i = G_ii, m = G g, V_i = -(G diag(l) G)_ii;
* the site part (eq. boot-site-moments): the cavity field h ~ N(m_c, V_c) is left
  alone when the point is out of the sample (probability 1 - p, p = 1 - e^{-S/N})
  and clamped to the margin, f = y, when it is in and y h < 1.

The cavity (eq. boot-cavity) removes site i from the Gaussian. The equations are
those of the spec re-derived for the book (the seed's appendix is damaged); the
numerically stable forms are the ones listed in its "Numerics" section, each one
cures an observed failure:

1. new site parameters in closed form, with 1 - q = Phi(-Delta) + e^{-S/N} Phi(Delta);
2. cavities through B = I + D^1/2 K D^1/2 = L L^T, without the cancelling 1/chi - dl;
3. V_c clipped at a tiny positive value (isolated points under narrow kernels);
4. undamped updates first, then damping 0.5, then 0.2 -- here with Anderson
   acceleration of the fixed point, which cuts the number of O(N^3) iterations.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy.linalg import LinAlgError, cholesky, eigvalsh, solve_triangular
from scipy.linalg.blas import dsyrk
from scipy.optimize import brentq
from scipy.special import ndtr
from sklearn.exceptions import ConvergenceWarning

from .._threads import blas_single_thread, single_threaded
from .._validation import check_positive, check_positive_int
from ._hardmargin import check_gram

__all__ = [
    "MAX_S_OVER_N",
    "ReplicaSolution",
    "site_moments",
    "site_parameters",
    "initial_sites",
    "gaussian_cavities",
    "solve_replica",
    "replica_learning_curve",
    "field_at_new_inputs",
]

#: Above this S/N, 1 - p = e^{-S/N} < 1e-12 and the clamped sites' dl ~ 1/(1-p) make
#: B ill-conditioned (S/N = 32 overflowed in the prototype). The S -> infinity limit of the
#: theory is the Opper-Winther leave-one-out error (:func:`opper_winther_loo`).
MAX_S_OVER_N = 24.0

# Isolated points (all off-diagonal kernel entries ~ 0) have cavity variance 0: clip it here,
# relative to the largest prior variance, and keep updating (freezing such sites stalls).
V_FLOOR = 1e-14

# Residual below which Anderson acceleration starts (plain steps contract reliably before).
ANDERSON_START = 0.05

_SQRT_2PI = np.sqrt(2.0 * np.pi)


# --------------------------------------------------------------------------- site side
def site_moments(y, m_c, V_c, chi_c, S_over_N):
    r"""Moments of the field at one site given its cavity Gaussian (eq. boot-site-moments).

    The cavity field is :math:`h = m_c + \sqrt{V_c}\, u`. With probability
    :math:`1 - p` the point is out of the sample (f = h); with probability p it is
    in, and then f = h if y h >= 1, else f = y (clamped to the margin).

    Returns
    -------
    m, V, chi : ndarrays
        Mean and variance of f and the response :math:`\chi = \chi_c\, \partial m / \partial m_c`.
    """
    q, one_minus_q, shift, _ = _site_terms(y, m_c, V_c, S_over_N)
    m = m_c * one_minus_q + y * shift
    V = V_c * one_minus_q + (1 - y * m) * (y * m - y * m_c)
    return m, V, chi_c * one_minus_q


def _site_terms(y, m_c, V_c, S_over_N):
    """q = p Phi(Delta), 1 - q without cancellation, the mean shift p (Phi + sqrt(V_c) phi), Delta."""
    p = -np.expm1(-S_over_N)
    sv = np.sqrt(V_c)
    delta = (1 - y * m_c) / sv
    Phi = ndtr(delta)
    phi = np.exp(-0.5 * delta**2) / _SQRT_2PI
    q = p * Phi
    one_minus_q = ndtr(-delta) + np.exp(-S_over_N) * Phi  # = 1 - p Phi, without cancellation
    shift = p * (Phi + sv * phi)
    return q, one_minus_q, shift, delta


def site_parameters(y, m_c, V_c, chi_c, S_over_N):
    """New site parameters (dl, g, l) and the site moments (m, V, chi), in closed form.

    Solving dl = 1/chi - 1/chi_c, g = m/chi - m_c/chi_c, l = -V/chi^2 + V_c/chi_c^2
    for the site side gives (Numerics 1) dl = q/chi, g = y shift/chi and
    l = -[V_c q (1 - q) + (1 - y m)(y m - y m_c)]/chi^2: no cancelling differences.
    """
    q, one_minus_q, shift, _ = _site_terms(y, m_c, V_c, S_over_N)
    chi = chi_c * one_minus_q
    m = m_c * one_minus_q + y * shift
    excess = (1 - y * m) * (y * m - y * m_c)
    V = V_c * one_minus_q + excess
    dl = q / chi
    g = y * shift / chi
    lam = -(V_c * q * one_minus_q + excess) / chi**2
    return (dl, g, lam), (m, V, chi)


def initial_sites(K, y, S_over_N):
    """Equal sites dl = d0, l = -d0, g = y d0 with the chi self-consistency of equal sites.

    d0 solves (1/N) sum_k w_k d / (1 + w_k d) = p Phi(-1/2), w_k the eigenvalues of K.
    """
    w = np.clip(eigvalsh(K), 0, None)
    target = -np.expm1(-S_over_N) * ndtr(-0.5)

    def excess(log_d):
        d = np.exp(log_d)
        return np.mean(w * d / (1 + w * d)) - target

    lo, hi = -40.0, 40.0
    d0 = np.exp(brentq(excess, lo, hi)) if excess(lo) < 0 < excess(hi) else 1.0
    n = y.size
    return np.full(n, d0), y * d0, np.full(n, -d0)


# --------------------------------------------------------------------------- Gaussian side
@dataclass
class _Gaussian:
    """Moments of the Gaussian part and the cavities it implies (eqs. boot-gauss, boot-cavity)."""

    chi: np.ndarray
    m: np.ndarray
    V: np.ndarray
    chi_c: np.ndarray
    m_c: np.ndarray
    V_c: np.ndarray


def gaussian_cavities(K, dl, g, lam, *, v_floor=V_FLOOR):
    """Gaussian marginals and cavities for site parameters (dl, g, l) (Numerics 2).

    With D = diag(dl), B = I + D^1/2 K D^1/2 = L L^T and A = L^-1 D^1/2 K:
    G = (K^-1 + D)^-1 = K - A^T A (one Cholesky factor, one triangular solve and
    one symmetric rank-k product per call; no explicit inverse). The cavity
    denominators (B^-1)_ii = 1 - dl_i G_ii cancel when dl_i G_ii -> 1 (points
    clamped at large S/N); for those they are computed as |L^-1 e_i|^2 instead.
    """
    n = dl.size
    sd = np.sqrt(dl)
    B = sd[:, None] * K * sd[None, :]
    B[np.diag_indices(n)] += 1.0
    L = cholesky(B, lower=True, check_finite=False)
    A = solve_triangular(L, sd[:, None] * K, lower=True, check_finite=False)
    G = K - _gram_upper(A)
    chi = np.diag(G).copy()
    b_ii = 1.0 - dl * chi
    clamped = np.flatnonzero(b_ii < 0.5)
    if clamped.size:
        E = np.zeros((n, clamped.size))
        E[clamped, np.arange(clamped.size)] = 1.0
        Z = solve_triangular(L, E, lower=True, check_finite=False)
        b_ii[clamped] = np.einsum("ij,ij->j", Z, Z)
        # K - A^T A also cancels in the rows/columns of clamped sites (their G_ij are tiny while
        # their g_j are huge). There G = K D^1/2 B^-1 D^-1/2 is a product, not a difference.
        W = solve_triangular(L, Z, lower=True, trans="T", check_finite=False)  # B^-1 e_j
        cols = (K @ (sd[:, None] * W)) / sd[clamped]
        G[:, clamped] = cols
        G[clamped, :] = cols.T
        chi = np.diag(G).copy()
    m = G @ g
    G2l = (G * G) @ lam
    V = -G2l
    chi_c = chi / b_ii
    m_c = (m - chi * g) / b_ii  # sum_{j != i} G_ij g_j / (B^-1)_ii
    V_c = -(G2l - chi**2 * lam) / b_ii**2  # -sum_{j != i} G_ij^2 l_j / (B^-1)_ii^2
    V_c = np.maximum(V_c, v_floor * float(np.max(np.diag(K))))
    return _Gaussian(chi, m, V, chi_c, m_c, V_c), L


def _gram_upper(A):
    """A^T A through BLAS syrk (half the flops of a general product), symmetrised."""
    C = dsyrk(1.0, A, trans=1, lower=0)
    return np.triu(C) + np.triu(C, 1).T


def _residual(gauss, site_m, site_V, site_chi):
    """max |m - m_s|, |V - V_s|, |chi - chi_s| / chi: Gaussian and tilted marginals must agree."""
    return float(max(np.max(np.abs(gauss.m - site_m)), np.max(np.abs(gauss.V - site_V)),
                     np.max(np.abs(gauss.chi - site_chi) / gauss.chi)))


# --------------------------------------------------------------------------- the fixed point
@dataclass
class ReplicaSolution:
    r"""Result of the replica/ADATAP fixed point at one sample size.

    Attributes
    ----------
    S_over_N : float
    dl, g, lam : ndarrays of shape (n,)
        Site parameters :math:`(\Delta\lambda_i, \gamma_i, \lambda_i)`.
    m_c, V_c, chi_c : ndarrays of shape (n,)
        Cavity mean, variance and response at each training point: the bootstrap
        distribution of the field at x_i over samples that leave i out is N(m_c, V_c)
        (eq. boot-field-train).
    error : float
        Bootstrapped test error (eq. boot-error), ``mean(Phi(-y m_c / sqrt(V_c)))``.
    n_iter : int
        Fixed-point iterations used (over all damping attempts).
    converged : bool
    residual : float
        Final max disagreement of Gaussian and site marginals.
    damping : float
        The damping of the attempt that produced the solution.
    history : list of float
        Residual per iteration (of the returned attempt).
    """

    S_over_N: float
    dl: np.ndarray
    g: np.ndarray
    lam: np.ndarray
    m_c: np.ndarray
    V_c: np.ndarray
    chi_c: np.ndarray
    error: float
    n_iter: int
    converged: bool
    residual: float
    damping: float
    history: list = field(default_factory=list)

    @property
    def sites(self):
        return self.dl, self.g, self.lam

    def point_errors(self, y):
        """Per training point: the predicted probability of an error when it is left out."""
        return ndtr(-y * self.m_c / np.sqrt(self.V_c))


def _check_S(S_over_N):
    S_over_N = float(check_positive(S_over_N, "S_over_N"))
    if S_over_N > MAX_S_OVER_N:
        raise ValueError(
            f"S_over_N = {S_over_N:g} is too large for double precision (1 - p = e^-S/N underflows "
            f"relative to 1; the limit is {MAX_S_OVER_N:g}). For S -> infinity the theory gives the "
            "Opper-Winther leave-one-out error: use svmlib.bootstrap.opper_winther_loo."
        )
    return S_over_N


class _Anderson:
    """Anderson acceleration (type II) of x -> x + F(x) - x with a short memory."""

    def __init__(self, depth):
        self.depth = depth
        self.dx, self.df = [], []
        self.x_prev = self.f_prev = None

    def reset(self):
        self.dx, self.df = [], []
        self.x_prev = self.f_prev = None

    def step(self, x, fx, beta):
        """Next iterate from the current x and the residual fx = F(x) - x."""
        if self.x_prev is not None:
            self.dx.append(x - self.x_prev)
            self.df.append(fx - self.f_prev)
            if len(self.dx) > self.depth:
                self.dx.pop(0)
                self.df.pop(0)
        self.x_prev, self.f_prev = x, fx
        if not self.dx:
            return x + beta * fx
        dX = np.column_stack(self.dx)
        dF = np.column_stack(self.df)
        gamma, *_ = np.linalg.lstsq(dF, fx, rcond=1e-10)
        return x + beta * fx - (dX + beta * dF) @ gamma


def _cavity_vector(gauss):
    """The iteration's state: cavity means and log-variances/log-responses (always admissible)."""
    return np.concatenate([gauss.m_c, np.log(gauss.V_c), np.log(gauss.chi_c)])


def _split_cavity(x):
    n = x.size // 3
    return x[:n], np.exp(x[n:2 * n]), np.exp(x[2 * n:])


def _attempt(K, y, S_over_N, sites, damping, tol, max_iter, anderson):
    """One run of the fixed point at a fixed damping; returns the best iterate seen.

    The state is the cavity vector x = (m_c, log V_c, log chi_c). One step maps x to
    site parameters (closed form, always admissible: dl >= 0, l <= 0), then to the
    Gaussian part and its cavities F(x). Anderson mixing of these steps keeps V_c and
    chi_c positive because it extrapolates their logarithms.
    """
    try:
        gauss, _ = gaussian_cavities(K, *sites)
    except (LinAlgError, ValueError):
        return None, [], 0, False
    x = _cavity_vector(gauss)
    acc = _Anderson(anderson) if anderson else None
    best, history = None, []
    for it in range(1, max_iter + 1):
        m_c, V_c, chi_c = _split_cavity(x)
        new_sites, (m_s, V_s, chi_s) = site_parameters(y, m_c, V_c, chi_c, S_over_N)
        try:
            gauss, _ = gaussian_cavities(K, *new_sites)
        except (LinAlgError, ValueError):
            break
        with np.errstate(invalid="ignore"):
            res = _residual(gauss, m_s, V_s, chi_s)
        if not np.isfinite(res):
            break
        history.append(res)
        if best is None or res < best[0]:
            best = (res, new_sites, gauss, it)
        if res < tol:
            return best, history, it, True
        fx = _cavity_vector(gauss) - x
        # Far from the fixed point Anderson extrapolation is erratic; switch it on near it.
        use_acc = acc is not None and res < ANDERSON_START
        x_next = acc.step(x, fx, damping) if use_acc else x + damping * fx
        if use_acc and (res > 1e3 * best[0] or not np.all(np.isfinite(x_next))):
            acc.reset()
            x_next = x + damping * fx
        x = x_next
    return best, history, len(history), False


@single_threaded
def _solve(K, y, S_over_N, init, tol, max_iter, dampings, anderson):
    if init is None:
        init = initial_sites(K, y, S_over_N)
    best_overall = None
    n_total = 0
    for damping in dampings:
        best, history, n_iter, ok = _attempt(K, y, S_over_N, init, damping, tol, max_iter, anderson)
        n_total += n_iter
        if best is not None and (best_overall is None or best[0] < best_overall[0][0]):
            best_overall = (best, history, damping)
        if ok:
            break
    if best_overall is None:
        raise ValueError("The replica fixed point failed at the first step (non-finite values): check that "
                         "K is a valid Gram matrix of distinct inputs.")
    (res, sites, gauss, _), history, damping = best_overall
    converged = res < tol
    if not converged:
        warnings.warn(
            f"Replica fixed point at S/N = {S_over_N:g} did not converge (residual {res:.2g} > tol {tol:g} "
            f"after {n_total} iterations with dampings {tuple(dampings)}); returning the best iterate. "
            "Try a larger max_iter, a warm start from a nearby S/N, or smaller damping.",
            ConvergenceWarning, stacklevel=3)
    error = float(np.mean(ndtr(-y * gauss.m_c / np.sqrt(gauss.V_c))))
    return ReplicaSolution(S_over_N, *sites, gauss.m_c, gauss.V_c, gauss.chi_c, error, n_total,
                           bool(converged), float(res), float(damping), history)


def solve_replica(K, y, S_over_N=1.0, *, init=None, tol=1e-8, max_iter=500, dampings=(1.0, 0.5, 0.2),
                  anderson=5):
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
        Warm start, e.g. the solution at a nearby S/N.
    tol : float
        Convergence threshold on the disagreement of Gaussian and site marginals.
    max_iter : int
        Iterations per damping attempt.
    dampings : sequence of float in (0, 1]
        Tried in order until one converges (Numerics 4).
    anderson : int
        Memory of the Anderson acceleration (0 = plain damped iteration).

    Returns
    -------
    ReplicaSolution
        ``error`` is eq. (boot-error); a ConvergenceWarning is issued (and
        ``converged`` is False) when no attempt reached ``tol``: the best iterate is returned.
    """
    K, y = check_gram(K, y)
    S_over_N = _check_S(S_over_N)
    tol = float(check_positive(tol, "tol"))
    max_iter = check_positive_int(max_iter, "max_iter")
    anderson = check_positive_int(anderson, "anderson", minimum=0)
    dampings = tuple(float(d) for d in np.atleast_1d(dampings))
    if not dampings or any(not (0 < d <= 1) for d in dampings):
        raise ValueError(f"dampings must be numbers in (0, 1], got {dampings!r}.")
    if isinstance(init, ReplicaSolution):
        init = init.sites
    if init is not None:
        init = tuple(np.asarray(a, dtype=float).copy() for a in init)
        if len(init) != 3 or any(a.shape != y.shape or not np.all(np.isfinite(a)) for a in init):
            raise ValueError("init must be (dl, g, lam), three finite arrays of length n, or a ReplicaSolution.")
    return _solve(K, y, S_over_N, init, tol, max_iter, dampings, anderson)


def replica_learning_curve(K, y, S_over_N_values, **options):
    """Solve at increasing S/N, each warm-started from the previous solution.

    Returns a list of :class:`ReplicaSolution` in the order of ``S_over_N_values``.
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
    r"""Bootstrap distribution of the field at new inputs x (eq. boot-field-new).

    T(x) = (I + K D)^-1 k(x) (computed as k - K D^1/2 B^-1 D^1/2 k);
    chi(x) = K(x, x) - sum_i k_i(x) dl_i T_i(x); mean(x) = T(x)^T g; V(x) = -sum_i T_i(x)^2 l_i.

    Returns
    -------
    mean, var, chi : ndarrays of shape (n_new,)
    """
    dl, g, lam = solution.sites
    n = dl.size
    kx = np.asarray(K_new, dtype=float).T  # (n, n_new)
    with blas_single_thread():
        sd = np.sqrt(dl)
        B = sd[:, None] * K * sd[None, :]
        B[np.diag_indices(n)] += 1.0
        L = cholesky(B, lower=True, check_finite=False)
        z = solve_triangular(L, sd[:, None] * kx, lower=True, check_finite=False)
        z = solve_triangular(L, z, lower=True, trans="T", check_finite=False)
        T = kx - K @ (sd[:, None] * z)
        chi = np.asarray(K_new_diag, dtype=float) - np.einsum("in,i,in->n", kx, dl, T)
        mean = T.T @ g
        var = -np.einsum("in,i->n", T**2, lam)
    var = np.maximum(var, V_FLOOR * float(np.max(np.diag(K))))
    return mean, var, chi
