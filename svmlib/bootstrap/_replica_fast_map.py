r"""The map of :mod:`._replica_equations`, evaluated fast: BLAS calls and rough (cheap) maps.

:func:`_gaussian_part` computes what :func:`gaussian_cavities` computes (eqs. :eq:`(9.16) <boot-gauss>`,
:eq:`(9.17) <boot-cavity>`) with LAPACK/BLAS called directly and G kept as its upper triangle (scipy's wrappers
cost ~0.1 ms of checks and copies per call at N = 200; the symmetric products read half the
matrix). It also returns G, which the Newton steps of :mod:`._replica_acceleration` re-use.
Tests compare it with the readable form.

Far from the fixed point the plain steps of a cold start may use a rough map (:func:`_rough_map`),
as long as its expected error (bounded through the cancellation in G = K - A^T A) is below the
step: a low-rank surrogate K ~ Phi Phi^T (pivoted Cholesky) when K has a low numerical rank
(broad kernels on small data sets: O(N r^2) per step instead of O(N^3)), otherwise single
precision (~1.7x faster). Newton steps and the convergence test use the exact map in double
precision.

A cold start on a kernel of very low numerical rank (a broad kernel on many points in few
dimensions: rank ~100 of N = 1000 at 1e-8) may instead solve the whole fixed point first on a
tight low-rank surrogate (:func:`_surrogate_map`, double precision, O(N r^2) per step), see
``_presolve`` in :mod:`._replica_acceleration`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy.linalg import LinAlgError, solve_triangular
from scipy.linalg.blas import dsymv, dsyrk, dtrsm, get_blas_funcs, ssymv, ssyrk, strsm
from scipy.linalg.lapack import dpotrf, dpstrf, spotrf, spstrf

from ._replica_equations import (CLAMPED_B, V_FLOOR, _cavity_vector, _Gaussian, _residual, _split_cavity,
                                 _site_parameters)

# Plain steps far from the fixed point may run in single precision (~1.7x faster). Its error in
# the map, in the units of the step size (_scaled_step), was at most 7e-5 times the amplification
# max K_ii/chi_i over 24 cold-start trajectories (three data sets, two kernels, S/N = 0.5-4; against
# double precision at the same points); see SINGLE_SHARE in _replica_acceleration for the rule.
SINGLE_ERROR = 1e-4

# Or, when K has a low numerical rank, they use K ~ Phi Phi^T from a pivoted Cholesky factor stopped
# where the largest residual diagonal entry is below LOW_RANK_TOL * max_i K_ii, if its rank is at
# most LOW_RANK_SHARE * N (then a step costs O(N r^2), not O(N^3)). Its error in the map, in step
# units, was at most 4e-5 times the amplification on crabs (broad kernel, S/N = 0.5-4, rank 57 of
# 200; the same in single precision), so it takes part in the rule with LOW_RANK_ERROR in
# place of SINGLE_ERROR. With LOW_RANK_TOL = 3e-4 to 1e-3 crabs (S = N) needed one or two more
# iterations; biopsy and Pima have ranks above N/3 (321 of 449, 436 of 532) and run in single precision.
LOW_RANK_TOL = 1e-4
LOW_RANK_SHARE = 1 / 3
LOW_RANK_ERROR = 1e-4

# The surrogate of a pre-solve (_surrogate_map): K ~ Phi Phi^T in double precision, the pivoted Cholesky
# factor stopped at SURROGATE_TOL * max_i K_ii, used if its rank is at most LOW_RANK_SHARE * N. On 200
# Gaussian 2-D points (RBF, l = sqrt(2), one positive label) the surrogate's fixed point was 2.5 cavity
# s.d.s from the exact one at 1e-4 (16 exact iterations to finish), 0.1 at 1e-6 (4) and 1e-3 at 1e-8
# (3). Ranks at 1e-8: ~100 for 1000 such points; 169 of 200 for crabs (broad), so crabs never uses it.
SURROGATE_TOL = 1e-8
# Its Gaussian part computes b_i = 1 - dl_i chi_i as a difference down to this value (double precision:
# relative error ~1e-16 / b_i, ample for a starting point); the exact map switches to products at CLAMPED_B.
# At CLAMPED_B most surrogate steps at S/N = 4 (1 positive among 999) fell back to the exact map: 6.5 s
# against 0.5 s, same fixed point.
SURROGATE_CLAMPED_B = 1e-6


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
    clamped_b: float = CLAMPED_B  # low rank: below this b_i the exact map is used instead


def _rough_map(K):
    """A low-rank surrogate of K if its numerical rank is small (LOW_RANK_*), else K in float32.

    Both in single precision: the surrogate's truncation (LOW_RANK_TOL) is far above its rounding.
    The pivoted Cholesky factor costs ~1 % of a solve where it turns out not to be low rank.
    """
    n = K.shape[0]
    K32 = np.asfortranarray(K, dtype=np.float32)
    factor, piv, rank, _ = spstrf(K32, tol=LOW_RANK_TOL * float(np.max(np.diag(K))), lower=1)
    if 0 < rank <= LOW_RANK_SHARE * n:  # rank 0 (K = 0): no factor; BLAS rejects an empty one (ldc = 0)
        Phi = np.empty((n, rank), dtype=np.float32, order="F")
        Phi[piv - 1] = np.tril(factor[:, :rank])  # P^T K P ~ L L^T: row i of L belongs to point piv_i
        return _RoughMap("low rank", Phi, LOW_RANK_ERROR)
    return _RoughMap("single", K32, SINGLE_ERROR)


def _surrogate_map(K):
    """The tight low-rank surrogate K ~ Phi Phi^T of a pre-solve (SURROGATE_TOL, double precision), or None.

    None unless its rank is at most LOW_RANK_SHARE * N. The pivoted Cholesky factor costs O(N r^2)
    (0.2 ms for crabs, 3 ms for N = 1000 at rank 100).
    """
    n = K.shape[0]
    factor, piv, rank, _ = dpstrf(np.array(K, dtype=float, order="F"), tol=SURROGATE_TOL * float(np.max(np.diag(K))),
                                  lower=1)
    if rank == 0 or rank > LOW_RANK_SHARE * n:  # rank 0 (K = 0): BLAS rejects an empty factor (ldc = 0)
        return None
    Phi = np.empty((n, rank), order="F")
    Phi[piv - 1] = np.tril(factor[:, :rank])
    return _RoughMap("low rank", Phi, 0.0, SURROGATE_CLAMPED_B)


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
        part = _gaussian_part_low_rank(rough.K, np.diag(K), dl, g, lam, v_floor, rough.clamped_b)
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


def _gaussian_part_low_rank(Phi, K_diag, dl, g, lam, v_floor, clamped_b=CLAMPED_B):
    """The Gaussian part for the surrogate K ~ Phi Phi^T (rank r), in O(n r^2); None where it must not be used.

    G = Phi (I + Phi^T D Phi)^-1 Phi^T = W W^T with W = Phi L^-T, L L^T = I + Phi^T D Phi
    (Woodbury; a sum of positive terms, no cancellation). The cavity sums need no n x n matrix:
    sum_j G_ij g_j = (W W^T g)_i and sum_j G_ij^2 l_j = w_i^T (W^T diag(l) W) w_i, each minus its
    j = i term. The products run in Phi's precision. Returns None for clamped sites
    (1 - dl_i chi_i below ``clamped_b`` would cancel) or a failed factor.
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
    if np.any(b_ii < clamped_b):
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


# --------------------------------------------------------------------------- one evaluation of the map
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
        sites, moments = _site_parameters(y, m_c, V_c, chi_c, S_over_N)
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


