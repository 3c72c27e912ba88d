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
4. undamped updates first, then damping 0.5, then 0.2.

Speed. Each iteration costs one Cholesky factor, one triangular solve and one
symmetric product of N x N matrices. Plain iterations converge linearly (~30 at
S = N); here they only bring the iterate near the fixed point, and inexact Newton
steps finish (about four, instead of ~20 plain ones): the Jacobian of the iteration
is applied matrix-free with the G of the current iteration, the Newton system solved
by GMRES. Warm starts along a learning curve start from the previous cavities. The
fixed point, and the convergence test on it, are those of the plain iteration.
Far from the fixed point the plain steps of a cold start use a cheaper, rough map, as
long as its expected error (bounded through the cancellation in G = K - A^T A) is below
the step: a low-rank surrogate K ~ Phi Phi^T (pivoted Cholesky) when K has a low numerical
rank (broad kernels on small data sets: O(N r^2) per step instead of O(N^3)), otherwise
single precision (~1.7x faster). Newton steps are evaluated, and the convergence test is
made, with the exact map in double precision.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from scipy.linalg import LinAlgError, cholesky, eigvalsh, solve_triangular
from scipy.linalg.blas import dsymv, dsyrk, dtrsm, get_blas_funcs, ssymv, ssyrk, strsm
from scipy.linalg.lapack import dpotrf, spotrf, spstrf
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
    "error_gradient",
]

#: Above this S/N, 1 - p = e^{-S/N} < 1e-12 and the clamped sites' dl ~ 1/(1-p) make
#: B ill-conditioned (S/N = 32 overflowed in the prototype). The S -> infinity limit of the
#: theory is the Opper-Winther leave-one-out error (:func:`opper_winther_loo`).
MAX_S_OVER_N = 24.0

# Isolated points (all off-diagonal kernel entries ~ 0) have cavity variance 0: clip it here,
# relative to the largest prior variance, and keep updating (freezing such sites stalls).
V_FLOOR = 1e-14

# Sites with (B^-1)_ii = 1 - dl_i G_ii below this are "clamped": 1 - dl_i G_ii and K - A^T A
# lose ~eps / (B^-1)_ii of relative accuracy there (1e-14 at 0.05), so below it both are computed
# without the difference. Only large S/N (1 - p = e^-S/N < 0.05, S/N > 3) needs it.
CLAMPED_B = 0.05

# Residual below which Anderson acceleration starts (plain steps contract reliably before).
ANDERSON_START = 0.05

# Plain-step size (cavity means in cavity s.d.s, log-variances, log-responses) below which
# Newton steps are taken. Tried on the three data sets: from 1 Newton converges in ~4 steps;
# from 2-5 its steps were often rejected (the plain map is still far from linear there).
NEWTON_START = 1.0
# ... or once the residual is below this: undamped plain steps can cycle with a few sites' steps
# stuck above NEWTON_START (crabs, narrow kernel, S/N = 4: a 4-cycle at residual 0.05-0.09).
NEWTON_START_RESIDUAL = 0.1
# An attempt that has not improved its best residual for this many iterations is abandoned
# for the next damping (a cycling undamped iteration otherwise runs to max_iter).
STALL_ITER = 40
# Forcing term floor of the last Newton step: a linear residual FINAL_FORCING * tol / res suffices
# for the next residual to fall below tol; solving tighter cost up to 3x the Krylov vectors.
FINAL_FORCING = 0.01

# Plain steps far from the fixed point may run in single precision (~1.7x faster). Its error in
# the map, in the units of the step size (_scaled_step), was at most 7e-5 times the amplification
# max K_ii/chi_i over 24 cold-start trajectories (three data sets, two kernels, S/N = 0.5-4; against
# double precision at the same points); a step is taken in single precision when
# SINGLE_ERROR * amplification < SINGLE_SHARE * (previous step). With SINGLE_SHARE from 0.2 to 3 every
# case of that sweep took the same number of iterations (the double-precision steps near the fixed
# point remove what the rough ones leave); 1 lets crabs (S = N, broad kernel) take all its plain steps
# in single precision, 0.2 took two of eight in double.
SINGLE_ERROR = 1e-4
SINGLE_SHARE = 1.0

# Or, when K has a low numerical rank, they use K ~ Phi Phi^T from a pivoted Cholesky factor stopped
# where the largest residual diagonal entry is below LOW_RANK_TOL * max_i K_ii, if its rank is at
# most LOW_RANK_SHARE * N (then a step costs O(N r^2), not O(N^3)). Its error in the map, in step
# units, was at most 4e-5 times the amplification on crabs (broad kernel, S/N = 0.5-4, rank 57 of
# 200; the same in single precision), so it takes part in the rule above with LOW_RANK_ERROR in
# place of SINGLE_ERROR. With LOW_RANK_TOL = 3e-4 to 1e-3 crabs (S = N) needed one or two more
# iterations; biopsy and Pima have ranks above N/3 (321 of 449, 436 of 532) and run in single precision.
LOW_RANK_TOL = 1e-4
LOW_RANK_SHARE = 1 / 3
LOW_RANK_ERROR = 1e-4

# A Newton operator is reused at a later iterate x when |x - x_op| * res < REUSE_OPERATOR * tol
# (|.| as _scaled_step): the stale Jacobian adds an error ~ c |x - x_op| |step| to the next step.
# Measured c ~ 0.1 (biopsy, last step: |x - x_op| = 4e-3, step 3e-6, next step 1.2e-9 against
# 1.1e-8 for c = 1), so the next residual still falls below tol. In practice this is the last
# Newton step, which then saves building the operator (0.4 ms at N = 200, 2 ms at N = 449). Over
# the 24-case sweep REUSE_OPERATOR from 0.1 to 30 gave the same iteration counts; 1e3 added 7.
REUSE_OPERATOR = 10.0

# Cold start in cavity space, no O(N^3) work: every point on its margin (m_c = y), cavity variance
# and response a tenth of the prior variance K(x_i, x_i). See _start.
COLD_START = (1.0, 0.1, 0.1)

# Points used to estimate the spectrum of K for the equal-sites start (initial_sites).
SPECTRUM_SUBSET = 100

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
    For N > SPECTRUM_SUBSET they are estimated from SPECTRUM_SUBSET evenly spaced points
    (the eigenvalues of that block times N / SPECTRUM_SUBSET, the others zero): a full
    eigendecomposition costs about one fixed-point iteration, and the iteration forgets its
    start within a few steps (d0 scaled by 1/100 to 3 changed the iteration count by <= 1).
    """
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

    Returns
    -------
    gauss : the marginals (chi, m, V) and cavities (chi_c, m_c, V_c)
    L : the lower Cholesky factor of B
    """
    part = _gaussian_part(K, dl, g, lam, v_floor=v_floor)
    return part.gauss, np.tril(part.L)


@dataclass
class _GaussianPart:
    """Everything one evaluation of the Gaussian side leaves behind (Newton re-uses G)."""

    gauss: _Gaussian
    L: np.ndarray | None
    G_off: np.ndarray | None  # G with a zero diagonal; only its upper triangle is set (the lower one is K's)
    b_ii: np.ndarray  # (B^-1)_ii = 1 - dl_i G_ii
    clipped: np.ndarray  # where V_c hit the floor
    rough: bool = False  # computed with a rough map (single precision or a low-rank K)
    # max_i K_ii / chi_i: G = K - A^T A loses this factor of relative accuracy to cancellation
    amplification: float = 1.0
    W: np.ndarray | None = None  # low-rank map: G = W W^T (then G_off and L are None)

    def full_G(self, dtype=np.float64):
        """G as a full symmetric matrix (the Newton step and the gradient need all of it)."""
        if self.W is not None:
            Wd = self.W.astype(dtype, copy=False)
            return Wd @ Wd.T
        n = self.b_ii.size
        G = np.where(_strict_lower(n), self.G_off.T, self.G_off).astype(dtype, copy=False)
        G[np.diag_indices(n)] = self.gauss.chi
        return G


_LOWER_MASKS = {}


def _strict_lower(n):
    """The (cached) boolean mask of the strict lower triangle of an n x n matrix."""
    if n not in _LOWER_MASKS:
        _LOWER_MASKS[n] = np.tri(n, k=-1, dtype=bool)
    return _LOWER_MASKS[n]


# LAPACK/BLAS directly: scipy's wrappers cost ~0.1 ms of checks and copies per call at N = 200.
_FACTOR_ROUTINES = {np.dtype(np.float64): (dpotrf, dtrsm, dsyrk, dsymv),
                    np.dtype(np.float32): (spotrf, strsm, ssyrk, ssymv)}


class _RoughMap(NamedTuple):
    """A cheap approximation of the map for plain steps far from the fixed point (see _rough_map)."""

    kind: str  # "single": K in float32; "low rank": K ~ Phi Phi^T
    K: np.ndarray  # float32 K in Fortran order, or Phi of shape (n, r)
    error: float  # expected error of the map in step units, per unit of amplification


def _rough_map(K):
    """A low-rank surrogate of K if its numerical rank is small (LOW_RANK_*), else K in float32.

    Both in single precision: the surrogate's truncation (LOW_RANK_TOL) is far above its rounding.
    The pivoted Cholesky factor costs ~1 % of a solve where it turns out not to be low rank.
    """
    n = K.shape[0]
    K32 = np.asfortranarray(K, dtype=np.float32)
    factor, piv, rank, _ = spstrf(K32, tol=LOW_RANK_TOL * float(np.max(np.diag(K))), lower=1)
    if rank <= LOW_RANK_SHARE * n:
        Phi = np.empty((n, rank), dtype=np.float32, order="F")
        Phi[piv - 1] = np.tril(factor[:, :rank])  # P^T K P ~ L L^T: row i of L belongs to point piv_i
        return _RoughMap("low rank", Phi, LOW_RANK_ERROR)
    return _RoughMap("single", K32, SINGLE_ERROR)


def _gaussian_part(K, dl, g, lam, *, v_floor=V_FLOOR, rough=None):
    """The work of :func:`gaussian_cavities`; also returns G for the Newton step.

    With a ``rough`` map (:func:`_rough_map`) the work is cheaper and less accurate:
    a low-rank surrogate of K (:func:`_gaussian_part_low_rank`), or single precision, in
    which the O(n^3) products run about 1.7x faster. G = K - A^T A then loses a factor
    ``amplification`` = max_i K_ii / chi_i of relative accuracy; the iteration uses it only
    where that error is below the step (SINGLE_ERROR). Clamped sites need the exact
    double-precision forms: there, or if the factorisation fails, it falls back to double.
    """
    if rough is not None and rough.kind == "low rank":
        part = _gaussian_part_low_rank(rough.K, np.diag(K), dl, g, lam, v_floor)
        return part if part is not None else _gaussian_part(K, dl, g, lam, v_floor=v_floor)
    n = dl.size
    K_single = None if rough is None else rough.K
    Kw = K if K_single is None else K_single
    if not Kw.flags.f_contiguous:  # K is symmetric: its transpose is K in BLAS's (Fortran) order, no copy
        Kw = Kw.T
    potrf, trsm, syrk, symv = _FACTOR_ROUTINES[Kw.dtype]
    sd = np.sqrt(dl)
    sdw = sd.astype(Kw.dtype, copy=False)
    KD = np.multiply(Kw, sdw[None, :], order="F")  # K D^1/2, Fortran order for BLAS (no copies)
    B = sdw[:, None] * KD
    B[np.diag_indices(n)] += 1.0
    # The strict upper triangle of L keeps B's entries (clean=0); only the lower one is read.
    L, info = potrf(B, lower=1, clean=0, overwrite_a=1)
    if info != 0:
        if K_single is not None:
            return _gaussian_part(K, dl, g, lam, v_floor=v_floor)
        raise LinAlgError("I + D^1/2 K D^1/2 is not positive definite")
    # A^T = K D^1/2 L^-T: the right-sided solve is 10-35 % faster than L^-1 D^1/2 K in OpenBLAS.
    AT = trsm(1.0, L, KD, side=1, lower=1, trans_a=1, overwrite_b=1)
    # G = K - A^T A in one syrk on a copy of K, upper triangle only (the strict lower one keeps K):
    # the symmetric products below (symv) read no more, and mirroring it would cost a transposed
    # pass as long as the rest of this O(n^2) work together.
    G = syrk(-1.0, AT, beta=1.0, c=Kw.copy(order="F"), trans=0, lower=0, overwrite_c=1)
    chi = np.diag(G).astype(float)
    b_ii = 1.0 - dl * chi
    clamped = np.flatnonzero(b_ii < CLAMPED_B)
    if clamped.size and K_single is not None:
        return _gaussian_part(K, dl, g, lam, v_floor=v_floor)
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
    # Cavity sums run over j != i: zero the diagonal instead of subtracting the i-th term.
    G_off = G
    G_off[np.diag_indices(n)] = 0.0
    m_rest = symv(1.0, G_off, g.astype(G.dtype, copy=False)).astype(float, copy=False)  # sum_{j != i} G_ij g_j
    V_rest = -symv(1.0, G_off * G_off, lam.astype(G.dtype, copy=False)).astype(float, copy=False)  # -sum G_ij^2 l_j
    gauss, clipped, amplification = _marginals_and_cavities(np.diag(K), chi, b_ii, g, lam, m_rest, V_rest, v_floor)
    return _GaussianPart(gauss, L, G_off, b_ii, clipped, K_single is not None, amplification)


def _marginals_and_cavities(K_diag, chi, b_ii, g, lam, m_rest, V_rest, v_floor):
    """Marginals and cavities from chi, b_ii and the cavity sums m_rest, V_rest (sums over j != i)."""
    m = m_rest + chi * g
    V = V_rest - chi**2 * lam
    chi_c = chi / b_ii
    m_c = m_rest / b_ii
    V_c = V_rest / b_ii**2
    floor = v_floor * float(np.max(K_diag))
    clipped = V_c < floor
    V_c = np.maximum(V_c, floor)
    amplification = float(np.max(K_diag / chi))
    return _Gaussian(chi, m, V, chi_c, m_c, V_c), clipped, amplification


def _gaussian_part_low_rank(Phi, K_diag, dl, g, lam, v_floor):
    """The Gaussian part for the surrogate K ~ Phi Phi^T (rank r), in O(n r^2); None where it must not be used.

    G = Phi (I + Phi^T D Phi)^-1 Phi^T = W W^T with W = Phi L^-T, L L^T = I + Phi^T D Phi
    (Woodbury; a sum of positive terms, no cancellation). The cavity sums need no n x n matrix:
    sum_j G_ij g_j = (W W^T g)_i and sum_j G_ij^2 l_j = w_i^T (W^T diag(l) W) w_i, each minus its
    j = i term. The products run in Phi's precision. Returns None for clamped sites
    (1 - dl_i chi_i would cancel) or a failed factor.
    """
    r = Phi.shape[1]
    dt = Phi.dtype
    potrf, trsm, syrk, _ = _FACTOR_ROUTINES[dt]
    P = Phi * np.sqrt(dl).astype(dt)[:, None]
    C = syrk(1.0, P, trans=1, lower=1)  # lower triangle of Phi^T D Phi
    C[np.diag_indices(r)] += 1.0
    L, info = potrf(C, lower=1, clean=1, overwrite_a=1)
    if info != 0:
        return None
    W = trsm(1.0, L, Phi, side=1, lower=1, trans_a=1)  # Phi L^-T
    chi = np.einsum("ij,ij->i", W, W).astype(float)
    b_ii = 1.0 - dl * chi
    if np.any(b_ii < CLAMPED_B):
        return None
    m_rest = (W @ (W.T @ g.astype(dt))).astype(float) - chi * g
    Q = (W * lam.astype(dt)[:, None]).T @ W  # W^T diag(l) W
    V_rest = chi**2 * lam - np.einsum("ij,ij->i", W @ Q, W).astype(float)
    gauss, clipped, amplification = _marginals_and_cavities(K_diag, chi, b_ii, g, lam, m_rest, V_rest, v_floor)
    return _GaussianPart(gauss, None, None, b_ii, clipped, True, amplification, W)


def _gram_upper(A):
    """A^T A through BLAS syrk (half the flops of a general product), symmetrised."""
    syrk = get_blas_funcs("syrk", (A,))  # dsyrk or ssyrk
    C = syrk(1.0, A, trans=1, lower=0)  # upper triangle; the strict lower one is zero
    S = C + C.T
    S[np.diag_indices_from(S)] *= 0.5
    return S


def _g_diag_l_g(G, lam):
    """M = G diag(l) G for l <= 0: -(G |l|^1/2)(G |l|^1/2)^T, one symmetric rank-n product."""
    W = G * np.sqrt(-np.minimum(lam, 0.0)).astype(G.dtype)[None, :]
    return -_gram_upper(W.T)


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
    n_rough : int
        Iterations (over all attempts) whose Gaussian part used a rough map (single
        precision or a low-rank surrogate of K; see ``rough_steps`` of :func:`solve_replica`).
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
    n_rough: int = 0

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


def _scaled_step(x, r):
    """Size of the plain step r = F(x) - x: cavity means in cavity s.d.s, log-variances, log-responses."""
    n = x.size // 3
    return float(max(np.max(np.abs(r[:n]) * np.exp(-0.5 * x[n:2 * n])), np.max(np.abs(r[n:]))))


@dataclass
class _Evaluation:
    """One step of the map x -> F(x): sites, their moments, the Gaussian part and the residuals."""

    x: np.ndarray
    sites: tuple
    site_moments: tuple
    part: _GaussianPart
    res: float  # the convergence measure (marginals of both sides agree)
    r: np.ndarray  # F(x) - x
    step: float  # _scaled_step(x, r)


def _evaluate(K, y, S_over_N, x, rough=None):
    """F at the cavity vector x, or None if the Gaussian part fails or is not finite."""
    with np.errstate(all="ignore"):  # a wild Newton step may overflow: caught as non-finite below
        m_c, V_c, chi_c = _split_cavity(x)
        sites, moments = site_parameters(y, m_c, V_c, chi_c, S_over_N)
        try:
            part = _gaussian_part(K, *sites, rough=rough)
        except (LinAlgError, ValueError):
            return None
        res = _residual(part.gauss, *moments)
        r = _cavity_vector(part.gauss) - x
        step = _scaled_step(x, r)
    if not (np.isfinite(res) and np.isfinite(step)):
        return None
    return _Evaluation(x, sites, moments, part, res, r, step)


def _site_jacobian(y, x, S_over_N, sites):
    """d(dl, g, l)/d(m_c, log V_c, log chi_c), site by site: shape (3, 3, n).

    The site parameters depend on chi_c only through the factors 1/chi_c (dl, g) and 1/chi_c^2 (l),
    so their log chi_c derivatives are exactly (-dl, -g, -2 l) (``sites``: their values at x).
    The map is elementwise and closed-form, so central differences in m_c and log V_c
    cost one broadcast evaluation at four shifted points; their relative error (~1e-10) only
    makes the Newton step inexact, never the fixed point (F itself is exact).
    """
    n = y.size
    coords = x.reshape(3, n)  # m_c, log V_c, log chi_c
    V_c, chi_c = np.exp(coords[1]), np.exp(coords[2])
    steps = np.stack([1e-6 * np.sqrt(V_c), np.full(n, 1e-6)])
    # points[0, k] (points[1, k]): m_c and log V_c, with coordinate k moved up (down) by its step
    points = np.broadcast_to(coords[:2], (2, 2, 2, n)).copy()
    for k in range(2):
        points[0, k, k] += steps[k]
        points[1, k, k] -= steps[k]
    with np.errstate(all="ignore"):
        shifted, _ = site_parameters(y, points[:, :, 0], np.exp(points[:, :, 1]), chi_c, S_over_N)
    shifted = np.stack(shifted)  # (site parameter j, sign, moved coordinate k, n)
    J = np.empty((3, 3, n))
    J[:, :2] = (shifted[:, 0] - shifted[:, 1]) / (2 * steps)
    J[:, 2] = -np.stack(sites) * np.array([1.0, 1.0, 2.0])[:, None]
    return J


def _newton_direction(y, S_over_N, ev, rtol, matvec=None):
    """Inexact Newton step d solving (I - F'(x)) d = F(x) - x by GMRES; also returns the operator.

    F' is applied matrix-free from the factorisation already paid for
    (:func:`_linearised_map`), with products in single precision: the Jacobian only
    steers the step, the residual that decides convergence is evaluated in double precision.
    ``matvec`` may pass in the operator of an earlier, nearby iterate (see REUSE_OPERATOR).
    """
    if matvec is None:
        matvec = _linearised_map(y, S_over_N, ev, np.float32)
    with np.errstate(all="ignore"):
        d = _gmres(matvec, ev.r, rtol)
    return (d if d is not None and np.all(np.isfinite(d)) else None), matvec


def _operator_still_good(operator, ev, tol):
    """Whether the Newton operator (x_op, matvec) built at x_op may serve at ev.x (REUSE_OPERATOR)."""
    if operator is None:
        return False
    x_op = operator[0]
    return _scaled_step(x_op, ev.x - x_op) * ev.res < REUSE_OPERATOR * tol


def _linearised_map(y, S_over_N, ev, dtype, G=None, M=None):
    """The operator v -> (I - F'(x)) v at the evaluation ``ev``, n x n products in ``dtype``.

    With dG = -G dD G, the Gaussian part's response to site changes (ddl, dg, dl) is
    dchi = -(G*G) ddl, dm = G (dg - m*ddl), dV = 2 (G*M) ddl - (G*G) dl with
    M = G diag(l) G (one symmetric rank-n product, the only O(n^3) work added);
    the site and cavity maps are local (3 x 3 per site). The full G and M may be passed in when
    the caller has them already (:func:`error_gradient`).

    The cavity changes are linear in seven per-site quantities (:func:`_cavity_coefficients`):
    the three products above and the site changes. One product takes their per-site
    coefficients, instead of ~30 small vector operations per application.
    """
    part = ev.part
    dl, g, lam = ev.sites
    n = y.size
    Gw = part.full_G(dtype) if G is None else G.astype(dtype, copy=False)
    M = _g_diag_l_g(Gw, lam) if M is None else M.astype(dtype, copy=False)
    G2w, GMw = Gw * Gw, Gw * M
    Gb = Gw / part.b_ii.astype(dtype)[:, None]  # rows of G over b: the cavity mean divides by b
    m = part.gauss.m
    Js = _site_jacobian(y, ev.x, S_over_N, ev.sites)
    C = _cavity_coefficients(part, ev.sites)
    responses = np.empty((7, n))
    pair = np.empty((n, 2), dtype=dtype)  # (ddl, dl) as columns: one pass over G*G for both

    def matvec(v):
        v = v.reshape(3, n)
        site_change = np.einsum("jkn,kn->jn", Js, v)  # ddl, dg, dl
        ddl = site_change[0]
        pair[:, 0], pair[:, 1] = ddl, site_change[2]
        responses[0] = Gb @ (site_change[1] - m * ddl).astype(dtype)
        responses[1:3] = (G2w @ pair).T
        responses[3] = GMw @ pair[:, 0]
        responses[4:] = site_change
        return (v - np.einsum("jkn,kn->jn", C, responses)).ravel()

    return matvec


def _cavity_coefficients(part, sites):
    """Per-site coefficients of the cavity changes in (u, P0, P1, q, ddl, dg, dl): shape (3, 7, n).

    u = G (dg - m ddl) / b, P0 = (G*G) ddl, P1 = (G*G) dl, q = (G*M) ddl. From chi_c = chi / b,
    m_c = (m - chi g) / b, V_c = (V + chi^2 l) / b^2 with b = 1 - dl chi, dchi = -P0,
    dm = b u, dV = 2 q - P1 and db = -chi ddl + dl P0:
      d log chi_c = -(1/chi + dl/b) P0 + (chi/b) ddl,
      d m_c = u + (g - m_c dl)/b P0 + (m_c chi/b) ddl - (chi/b) dg,
      d log V_c = [(2 q - P1)/b^2 - (2 chi l/b^2 + 2 V_c dl/b) P0 + (2 V_c chi/b) ddl + (chi^2/b^2) dl] / V_c
    (zero where V_c sits on its floor). Rows: m_c, log V_c, log chi_c (the order of the state).
    """
    gauss, b = part.gauss, part.b_ii
    dl, g, lam = sites
    chi, m_c, V_c = gauss.chi, gauss.m_c, gauss.V_c
    w = np.where(part.clipped, 0.0, 1.0 / V_c)
    U, P0, P1, Q, DDL, DG, DLAM = range(7)
    C = np.zeros((3, 7, chi.size))
    C[0, U] = 1.0
    C[0, P0] = (g - m_c * dl) / b
    C[0, DDL] = m_c * chi / b
    C[0, DG] = -chi / b
    C[1, Q] = 2 * w / b**2
    C[1, P1] = -w / b**2
    C[1, P0] = -w * (2 * chi * lam / b**2 + 2 * V_c * dl / b)
    C[1, DDL] = w * 2 * V_c * chi / b
    C[1, DLAM] = w * chi**2 / b**2
    C[2, P0] = -(1 / chi + dl / b)
    C[2, DDL] = chi / b
    return C


def _gmres(matvec, b, rtol, max_dim=60):
    """Minimal GMRES from x0 = 0: Arnoldi (Gram-Schmidt applied twice) and Givens rotations.

    scipy's gmres costs ~0.1 ms of Python per iteration, as much as the matrix-vector
    product itself at N = 200; the Newton systems here need 5-30 Krylov vectors. The
    rotations work on Python floats (indexing numpy scalars costs several times more).
    """
    beta = float(np.linalg.norm(b))
    if beta == 0:
        return np.zeros_like(b)
    V = np.empty((max_dim + 1, b.size))
    R = np.zeros((max_dim, max_dim))  # the rotated Hessenberg matrix (upper triangular)
    cs, sn, rhs = [], [], []  # rotations; the rotated right-hand side beta e_1 (its settled entries)
    last = beta  # its last entry: the norm of the current residual
    V[0] = b / beta
    for j in range(max_dim):
        w = matvec(V[j])
        basis = V[:j + 1]
        c1 = basis @ w
        w -= c1 @ basis
        c2 = basis @ w  # twice is enough (Kahan); once loses orthogonality near convergence
        w -= c2 @ basis
        h = (c1 + c2).tolist()
        h_next = float(np.linalg.norm(w))
        for i in range(j):  # previous rotations
            h[i], h[i + 1] = cs[i] * h[i] + sn[i] * h[i + 1], -sn[i] * h[i] + cs[i] * h[i + 1]
        r = math.hypot(h[j], h_next)
        c, s = (h[j] / r, h_next / r) if r > 0 else (1.0, 0.0)
        cs.append(c)
        sn.append(s)
        h[j] = r
        R[:j + 1, j] = h
        rhs.append(c * last)
        last = -s * last
        if abs(last) <= rtol * beta or h_next <= 1e-14 * beta:
            break
        V[j + 1] = w / h_next
    k = len(rhs)
    coef = solve_triangular(R[:k, :k], np.array(rhs), check_finite=False)
    return coef @ V[:k]


class _Best(NamedTuple):
    """The best iterate of an attempt: its residual, sites, Gaussian part and where it came from."""

    res: float
    sites: tuple
    gauss: _Gaussian
    it: int  # iteration number
    rough: bool  # evaluated with a rough map
    x: np.ndarray  # the cavity vector it was evaluated at
    index: int  # its entry in the history


def _attempt(K, y, S_over_N, x0, damping, tol, max_iter, anderson, newton, rough=None):
    """One run of the fixed point at a fixed damping; returns the best iterate seen.

    The state is the cavity vector x = (m_c, log V_c, log chi_c). One step maps x to
    site parameters (closed form, always admissible: dl >= 0, l <= 0), then to the
    Gaussian part and its cavities F(x). Far from the fixed point the plain (damped)
    step x + damping (F(x) - x) is taken; once that step is small (NEWTON_START in
    cavity s.d.s / log units) an inexact Newton step, which converges quadratically
    (about 4 steps from there to 1e-8 instead of ~20 plain ones). A Newton step that
    makes the plain step larger is undone: the next step is the plain one from the
    previous iterate. Without Newton, Anderson mixing accelerates the plain steps.
    With a ``rough`` map (:func:`_rough_map`), plain steps far from the fixed point use it;
    a rough evaluation never counts as converged.
    """
    x = x0
    acc = _Anderson(anderson) if (anderson and not newton) else None
    best, history = None, []
    prev, from_newton = None, False
    operator = None  # (the iterate it was built at, the Newton operator)
    use_rough = rough is not None
    n_rough = 0
    it = 0  # iterations = evaluations of the map, including failed ones
    for it in range(1, max_iter + 1):
        ev = _evaluate(K, y, S_over_N, x, rough if use_rough else None)
        if ev is None:
            if from_newton and prev is not None:  # a failed Newton step: back to the plain step
                x, from_newton = prev.x + damping * prev.r, False
                continue
            break
        history.append(ev.res)
        n_rough += ev.part.rough
        if best is None or ev.res < best.res:
            best = _Best(ev.res, ev.sites, ev.part.gauss, it, ev.part.rough, ev.x, len(history) - 1)
        if ev.res < tol and not ev.part.rough:
            return best, history, it, True, n_rough
        if it - best.it > STALL_ITER:
            break
        if from_newton and ev.step > prev.step:  # Newton made things worse: plain step from before
            x, from_newton = prev.x + damping * prev.r, False
            continue
        prev = ev
        d = None
        near = ev.step < NEWTON_START or ev.res < NEWTON_START_RESIDUAL
        if near:  # from here on the exact map: the rough map's error (~1e-3) would stall the iteration
            rough = None
        # The next plain step with the rough map only if its expected error is below the step's size.
        use_rough = rough is not None and rough.error * ev.part.amplification < SINGLE_SHARE * ev.step
        if newton and near:
            # forcing term ~ step^2: quadratic convergence (Dembo et al.); over 18 cases 174 iterations
            # in total against 183 with min(0.1, step)
            stale = operator[1] if _operator_still_good(operator, ev, tol) else None
            d, matvec = _newton_direction(y, S_over_N, ev, max(min(0.1, ev.step**2), FINAL_FORCING * tol / ev.res),
                                          stale)
            if stale is None and not ev.part.rough:  # an operator from a rough G is not kept
                operator = (ev.x, matvec)
        if d is not None:
            x, from_newton = ev.x + d, True
            continue
        from_newton = False
        use_acc = acc is not None and ev.res < ANDERSON_START
        x_next = acc.step(ev.x, ev.r, damping) if use_acc else ev.x + damping * ev.r
        if use_acc and (ev.res > 1e3 * best.res or not np.all(np.isfinite(x_next))):
            acc.reset()
            x_next = ev.x + damping * ev.r
        x = x_next
    return best, history, it, False, n_rough


def _start(K, y, S_over_N, init):
    """The starting cavity vector: from a solution's cavities, from site parameters, or COLD_START.

    The iteration forgets its start within a few steps: over 18 cases (three data sets, two
    kernels, S/N = 0.5, 1, 2) the spec's equal-sites start (:func:`initial_sites`, which costs an
    eigendecomposition and one Gaussian step, about two iterations) needed 189 iterations in
    total, the cold start below 183 (per case within +-3 of each other).
    """
    if isinstance(init, ReplicaSolution):  # its cavities are the state: no extra Gaussian step
        return np.concatenate([init.m_c, np.log(init.V_c), np.log(init.chi_c)])
    if init is None:
        mean, var, response = COLD_START
        prior_var = np.diag(K)
        return np.concatenate([mean * y, np.log(var * prior_var), np.log(response * prior_var)])
    try:
        return _cavity_vector(gaussian_cavities(K, *init)[0])
    except (LinAlgError, ValueError):
        raise ValueError("The replica fixed point failed at the first step (the starting sites do not give a "
                         "valid Gaussian): check that K is a valid Gram matrix of distinct inputs.") from None


@single_threaded
def _solve(K, y, S_over_N, init, tol, max_iter, dampings, anderson, newton, rough_steps):
    x0 = _start(K, y, S_over_N, init)
    # A cold start's plain steps may use a rough map (see _gaussian_part); a warm start is
    # already near the fixed point, where the exact map is needed.
    rough = _rough_map(K) if (rough_steps and init is None) else None
    best_overall = None
    n_total = n_total_rough = 0
    for damping in dampings:
        best, history, n_iter, ok, n_rough = _attempt(K, y, S_over_N, x0, damping, tol, max_iter, anderson, newton,
                                                      rough)
        n_total += n_iter
        n_total_rough += n_rough
        if best is not None and (best_overall is None or best.res < best_overall[0].res):
            best_overall = (best, history, damping)
        if ok:
            break
    if best_overall is None:
        raise ValueError("The replica fixed point failed at the first step (non-finite values): check that "
                         "K is a valid Gram matrix of distinct inputs.")
    best, history, damping = best_overall
    res, sites, gauss = best.res, best.sites, best.gauss
    if best.rough:  # the best iterate came from a rough step: evaluate it with the exact map
        ev = _evaluate(K, y, S_over_N, best.x)
        if ev is not None:
            res, sites, gauss = ev.res, ev.sites, ev.part.gauss
            history[best.index] = res
    converged = res < tol
    if not converged:
        warnings.warn(
            f"Replica fixed point at S/N = {S_over_N:g} did not converge (residual {res:.2g} > tol {tol:g} "
            f"after {n_total} iterations with dampings {tuple(dampings)}); returning the best iterate. "
            "Try a larger max_iter, a warm start from a nearby S/N, or smaller damping.",
            ConvergenceWarning, stacklevel=3)
    error = float(np.mean(ndtr(-y * gauss.m_c / np.sqrt(gauss.V_c))))
    return ReplicaSolution(S_over_N, *sites, gauss.m_c, gauss.V_c, gauss.chi_c, error, n_total,
                           bool(converged), float(res), float(damping), history, n_total_rough)


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
        book's data sets. The fixed point and the convergence test always use the exact map
        in double precision.

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
        if init.m_c is None or init.m_c.shape != y.shape:
            raise ValueError("init must be a ReplicaSolution of the same n training points.")
    elif init is not None:
        init = tuple(np.asarray(a, dtype=float).copy() for a in init)
        if len(init) != 3 or any(a.shape != y.shape or not np.all(np.isfinite(a)) for a in init):
            raise ValueError("init must be (dl, g, lam), three finite arrays of length n, or a ReplicaSolution.")
    return _solve(K, y, S_over_N, init, tol, max_iter, dampings, anderson, bool(newton), bool(rough_steps))


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


def error_gradient(K, y, solution, dK, *, rtol=1e-10):
    r"""Derivatives of the bootstrapped error (eq. boot-error) with respect to kernel parameters.

    The error depends on a kernel parameter theta through the fixed point x* = F(x*; K(theta))
    of the cavity vector x = (m_c, log V_c, log chi_c). Differentiating it (implicit function
    theorem) gives

    .. math:: \frac{dx^*}{d\theta} = (I - F_x)^{-1} \frac{\partial F}{\partial \theta},
              \qquad \frac{d\epsilon}{d\theta} = \nabla_x \epsilon \cdot \frac{dx^*}{d\theta},

    with :math:`\partial F/\partial\theta` at fixed sites from
    :math:`dG = (I - G D)\, dK\, (I - D G)` (no inverse of K), and the linear system solved
    by GMRES with the Newton step's operator in double precision. It costs one evaluation of
    the map and, per parameter, two n x n products and a GMRES solve: about a third of a
    cold-start solve at S = N (``benchmarks/replica_vs_mc.py``). Efron's 0.632 estimate at
    S = N has 0.632 times this gradient.

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
