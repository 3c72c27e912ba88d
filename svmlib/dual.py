r"""The SVM dual by sequential minimal optimisation (SMO).

The soft-margin dual (eq. :eq:`(3.6) <dual-objective>`) is

.. math::

    \max_\alpha\; W(\alpha) = \sum_i \alpha_i - \tfrac12 \alpha^\top Q \alpha ,
    \qquad Q_{ij} = y_i y_j K_{ij}, \qquad 0 \le \alpha_i \le C,
    \qquad \sum_i y_i \alpha_i = 0 ,

and the classifier is :math:`f(x) = \sum_i \alpha_i y_i K(x, x_i) + b`.
``C = np.inf`` is the hard margin. Without a bias (``fit_intercept=False``) the
equality constraint disappears: this is the dual the Gaussian-process and
replica-bootstrap chapters use (a bias can live inside the kernel as ``B^2``).

The algorithm (Platt 1998; Fan, Chen & Lin 2005) -- the lesson of the chapter
-- works on one quantity per training point,

.. math:: v_t = y_t - f_0(x_t), \qquad f_0(x) = \sum_i \alpha_i y_i K(x, x_i),

which is libsvm's :math:`-y_t \nabla_t` (minus the label times the gradient of
the minimised objective :math:`-W`). At the optimum a bias ``b`` exists with
:math:`v_t = b` on free support vectors, :math:`v_t \le b` or :math:`\ge b` on
the others, depending on which way their :math:`\alpha_t` may still move.

* ``I_up`` holds the points whose :math:`y_t \alpha_t` may increase,
  ``I_low`` those whose :math:`y_t \alpha_t` may decrease. The KKT conditions
  say :math:`m = \max_{I_{up}} v \le M = \min_{I_{low}} v`; SMO stops when the
  maximal violation :math:`m - M` is below ``tol`` (libsvm's ``eps``).
* Each step moves one pair, ``alpha_i += y_i t`` and ``alpha_j -= y_j t``, which
  keeps :math:`\sum y \alpha` fixed. ``i`` is the most violating point in
  ``I_up``; ``j`` maximises the second-order gain :math:`(v_i - v_j)^2 / a_{ij}`,
  :math:`a_{ij} = K_{ii} + K_{jj} - 2K_{ij}` (WSS 2 of Fan, Chen & Lin, with
  ``a_ij`` replaced by a tiny ``tau`` if it is not positive).
* The step is the 1-D Newton step :math:`t = (v_i - v_j) / a_{ij}`, clipped to
  the box; afterwards only two kernel rows update ``v``:
  :math:`v \leftarrow v - t (K_i - K_j)`.

Without a bias the pair becomes a single coordinate (greedy choice of the
coordinate with the largest exact decrease of :math:`-W`) and the stopping rule
is the largest projected-gradient component.

Per-sample boxes: with ``sample_weight`` (and ``DualSVC``'s ``class_weight``) the
box becomes :math:`0 \le \alpha_i \le C_i = C\, w_i` (libsvm's weighted C); a point
with :math:`C_i = 0` takes no part.

Kernel rows on demand: the step touches only two rows of ``K``, so the matrix never
has to exist. ``solve_dual`` accepts, instead of ``K``, a :class:`KernelRowCache`
that computes rows ``K(x_i, X)`` when asked and keeps the most recently used ones
within ``cache_size`` MB (libsvm's cache); ``DualSVC`` uses it unless the kernel is
precomputed. The steps are the same; only where a row comes from changes. There is no
shrinking (libsvm's heuristic of setting aside bounded points): in
``benchmarks/smo_vs_libsvm.py`` libsvm itself was not consistently faster with it
(N = 4,000 / 8,000 / 16,000: 0.74 / 2.00 / 7.5 s with, 0.52 / 1.21 / 8.3 s without), and
without it the step loop stays the chapter's.

Sign convention: ``dual_coef_ = y_i alpha_i`` for the label ``classes_[1]``
mapped to ``y = +1``, the same as scikit-learn's public ``SVC.dual_coef_`` for
two classes (libsvm's raw ``sv_coef`` uses the first label it meets as +1, so
its sign may be flipped; scikit-learn flips it back).
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from scipy.linalg import eigh
from scipy.linalg.blas import daxpy
from scipy.optimize import linprog
from scipy.spatial.distance import cdist
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.validation import _check_feature_names, check_is_fitted


from ._threads import blas_single_thread
from ._validation import (
    check_bool,
    check_C,
    check_data,
    check_inputs,
    check_kernel_matrix,
    check_positive,
    check_pm_labels,
    check_positive_int,
    check_sample_weight,
)
from .kernels import RBF, Linear, Polynomial, make_kernel

__all__ = ["DualSolution", "SMOState", "KernelRowCache", "solve_dual", "smo_steps",
           "hard_margin_feasible", "DualSVC", "NotPSDWarning"]

#: libsvm's TAU: the curvature used when a pair's a_ij = K_ii + K_jj - 2 K_ij is not
#: above it (duplicate inputs, or a kernel that is not positive definite). As in libsvm
#: it does not grow with the kernel's scale: a floor of TAU * max K_ii floored most
#: pairs of a polynomial kernel of degree 20 (max K_ii = 3e9) and shrank their steps by
#: up to 1e9. For a kernel of scale below 1 it shrinks with max K_ii (see ``_tau``),
#: so that a kernel of scale 1e-20 is not frozen either.
TAU = 1e-12

#: Relative tolerance within which two candidates of the working-set selection count
#: as tied; ties go to the smaller index. Round-off differs between BLAS builds (FMA or
#: not) by ~1e-16 per step, so exact ties broken by round-off would change the pair,
#: and the step count, with the machine.
TIE_RTOL = 1e-12

#: Default step cap of a hard margin (C = inf): HARD_MAX_ITER + 10 n steps, seconds
#: rather than libsvm's max(10**7, 100 n) (minutes) -- a separable problem needs far fewer.
HARD_MAX_ITER = 100_000

#: A hard margin is declared infeasible once sum(alpha) * max K_ii exceeds this.
#: For separable data sum(alpha) = |w|^2 = 1 / gamma^2 (gamma the geometric margin in
#: feature space) and max K_ii = R^2 (squared radius of the data), so the bound means
#: "the margin is below 1e-6 of the data's radius": not separable in double precision.
HARD_MARGIN_LIMIT = 1e12


@dataclass
class DualSolution:
    """Result of :func:`solve_dual`.

    Attributes
    ----------
    alpha : ndarray (n,)
        Dual variables, ``0 <= alpha <= C``.
    b : float
        Bias (0 when ``fit_intercept=False``).
    n_iter : int
        Number of SMO steps taken.
    converged : bool
        Whether the KKT violation dropped below ``tol`` before ``max_iter``.
    objective : float
        Dual objective ``W = sum(alpha) - alpha^T Q alpha / 2`` (eq. :eq:`(3.6) <dual-objective>`).
    primal_objective : float
        ``|w|^2 / 2 + C sum_i max(0, 1 - y_i f(x_i))`` at ``w = sum alpha_i y_i phi(x_i)``
        and this ``b`` (``|w|^2 / 2`` for a hard margin).
    duality_gap : float
        ``primal_objective - objective`` (>= 0 up to round-off; 0 at the optimum).
    kkt_violation : float
        Maximal violating pair ``m - M`` (with bias) or largest projected-gradient
        component (without), recomputed from ``K`` at the end.
    is_support : ndarray of bool (n,)
        ``alpha > 0``.
    free : ndarray of bool (n,)
        ``0 < alpha < C`` (the points on the margin).
    decision : ndarray (n,)
        ``f(x_i)`` on the training points, bias included (eq. :eq:`(3.7) <smo-decision>`).

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.dual import solve_dual
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]]); y = np.array([-1.0, -1.0, 1.0, 1.0])
    >>> sol = solve_dual(X @ X.T, y, C=10.0)
    >>> sol.converged, sol.is_support.tolist(), sol.free.tolist()
    (True, [False, True, True, False], [False, True, True, False])
    >>> sol.decision.round(6).tolist()  # the two free support vectors sit on the margin, y f = 1
    [-2.0, -1.0, 1.0, 2.0]
    >>> round(sol.objective, 6), bool(abs(sol.duality_gap) < 1e-12)  # W = |w|^2 / 2 with w = 1
    (0.5, True)
    """

    alpha: np.ndarray
    b: float
    n_iter: int
    converged: bool
    objective: float
    primal_objective: float
    duality_gap: float
    kkt_violation: float
    is_support: np.ndarray
    free: np.ndarray
    decision: np.ndarray


@dataclass
class SMOState:
    """One state of the optimisation, as :func:`smo_steps` yields it.

    Attributes
    ----------
    iteration : int
        Number of steps taken.
    pair : tuple or None
        The working pair of the last step.
    alpha : ndarray (n,)
        Copy of the dual variables.
    b : float
        Bias from the running ``v``.
    objective : float
        Dual objective (eq. :eq:`(3.6) <dual-objective>`).
    violation : float
        KKT violation.

    Notes
    -----

    ``pair`` is the working pair ``(i, j)`` of the step that led here (``(t, t)`` for
    a single coordinate without bias, ``None`` for the starting point). ``violation`` is
    the maximal violating pair ``m - M`` (eq. :eq:`(3.12) <smo-kkt-violation>`) with a bias, the largest
    projected-gradient component without.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.dual import smo_steps
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]]); y = np.array([-1.0, -1.0, 1.0, 1.0])
    >>> start, last = list(smo_steps(X @ X.T, y, C=10.0))
    >>> start.iteration, start.pair, start.alpha.tolist(), round(start.violation, 6)
    (0, None, [0.0, 0.0, 0.0, 0.0], 2.0)
    >>> last.iteration, last.pair, last.alpha.round(6).tolist(), round(last.objective, 6), round(last.violation, 6)
    (1, (2, 1), [0.0, 0.5, 0.5, 0.0], 0.5, 0.0)
    """

    iteration: int
    pair: tuple | None
    alpha: np.ndarray
    b: float
    objective: float
    violation: float


# --------------------------------------------------------------------------
# Where the kernel rows come from: a stored Gram matrix, or computed on demand.
# Both offer row(i), diag, dot(c) = K c and full() (the matrix, for rare checks).
# --------------------------------------------------------------------------


class _GramRows:
    """Rows of a stored Gram matrix (``solve_dual(K, ...)``, ``kernel='precomputed'``)."""

    def __init__(self, K):
        self.K = K
        self.n = K.shape[0]
        self.diag = np.ascontiguousarray(K.diagonal())

    def row(self, i):
        return self.K[i]

    def dot(self, c):
        return self.K @ c

    def full(self):
        return self.K


class KernelRowCache:
    """Kernel rows ``K(x_i, X)`` computed when SMO asks, the most recently used kept.

    A Gram matrix of ``n`` points needs ``8 n^2`` bytes (2 GB at n = 16,000); SMO
    reads two rows per step, and mostly the same few hundred. This object computes a
    row when it is first needed and keeps it in a buffer of ``cache_size`` MB; when
    the buffer is full the least recently used row is dropped (LRU, as libsvm).

    Parameters
    ----------
    kernel : Kernel, str or callable
        Anything :func:`svmlib.kernels.make_kernel` accepts.
    X : array (n, d)
        Training inputs.
    cache_size : float, default 200
        Memory for cached rows in MB (libsvm's ``cache_size``); at least two rows
        are always kept (the working pair).

    Attributes
    ----------
    n : int
        Number of points.
    diag : ndarray (n,)
        ``K(x_i, x_i)``.
    hits, misses : int
        Rows served from the cache / computed.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.kernels import RBF
    >>> X = np.random.default_rng(0).normal(size=(50, 2)); y = np.where(X[:, 0] > 0, 1.0, -1.0)
    >>> rows = KernelRowCache(RBF(), X, cache_size=0.01)  # room for a few rows only
    >>> a, b = solve_dual(rows, y).objective, solve_dual(RBF()(X), y).objective
    >>> bool(abs(a - b) < 1e-9 * b)
    True
    """

    def __init__(self, kernel, X, cache_size=200.0):
        self.kernel = make_kernel(kernel)
        self.X = X = check_inputs(X)
        cache_size = check_positive(cache_size, "cache_size (MB)")
        self.n = n = X.shape[0]
        self.diag = check_kernel_matrix(self.kernel.diag(X)[None, :], 1, n,
                                        name="the kernel's diagonal K(x_i, x_i)")[0]
        self._setup_fast_rows()
        self._check_sample()
        slots = min(n, max(2, int(cache_size * 2**20 // (8 * n))))
        # np.empty does not touch the pages: memory is used only as rows are filled
        self.buffer = np.empty((slots, n))
        self.slot_of = OrderedDict()  # point index -> buffer slot, least recently used first
        self.hits = self.misses = 0

    # -- the cache ---------------------------------------------------------
    def row(self, i):
        """Row ``K(x_i, X)`` (a view into the cache: valid until two more rows are fetched)."""
        slot = self.slot_of.get(i)
        if slot is not None:
            self.slot_of.move_to_end(i)
            self.hits += 1
            return self.buffer[slot]
        self.misses += 1
        if len(self.slot_of) < self.buffer.shape[0]:
            slot = len(self.slot_of)
        else:
            _, slot = self.slot_of.popitem(last=False)  # drop the least recently used row
        out = self.buffer[slot]
        self._compute_row(i, out)
        self.slot_of[i] = slot
        return out

    def dot(self, c):
        """``K c`` in blocks of rows (about 32 MB each), using only the non-zero ``c``."""
        nz = np.flatnonzero(c)
        out = np.zeros(self.n)
        if nz.size == 0:
            return out
        step = max(1, 2**22 // nz.size)
        for start in range(0, self.n, step):
            block = np.arange(start, min(start + step, self.n))
            out[block] = self._block(block, nz) @ c[nz]
        return out

    def full(self):
        """The whole Gram matrix (only for the rare exact hard-margin check)."""
        return self._block(np.arange(self.n), np.arange(self.n))

    # -- computing rows ----------------------------------------------------
    def _setup_fast_rows(self):
        """Precompute what the three common kernels need for a row in a few numpy calls."""
        kern, X = self.kernel, self.X
        self.kind = type(kern) if type(kern) in (RBF, Linear, Polynomial) else None
        if self.kind is None:
            return
        self.K0 = check_positive(kern.K0, "K0")
        self.B2 = check_positive(kern.B2, "B2", allow_zero=True)
        if self.kind is RBF:  # the kernel's own arithmetic: the rows equal kernel(X) bit for bit
            self.Z = np.ascontiguousarray(X / check_positive(kern.l, "l (length scale)", allow_array=True))
        else:
            self.Z = np.ascontiguousarray(X)
            if self.kind is Polynomial:
                self.p, self.c0 = kern._params()

    def _compute_row(self, i, out):
        if self.kind is None:
            out[:] = self._block([i], slice(None))[0]
        else:
            if self.kind is RBF:  # exp(-|z_i - z_j|^2 / 2), z = x / l
                d2 = cdist(self.Z[i:i + 1], self.Z, "sqeuclidean")[0]
                d2 *= -0.5
                np.exp(d2, out=out)
            else:
                np.dot(self.Z, self.Z[i], out=out)  # x_j . x_i
                if self.kind is Polynomial:
                    out += self.c0
                    out **= self.p
            if self.K0 != 1.0:
                out *= self.K0
            if self.B2 != 0.0:
                out += self.B2
        if not np.isfinite(out).all():
            raise ValueError("The kernel returned NaN or infinity; check the kernel and its parameters.")

    def _block(self, rows, cols):
        """``K(X[rows], X[cols])``."""
        if self.kind is None:
            return self.kernel(self.X[rows], self.X[cols])
        Zr, Zc = self.Z[rows], self.Z[cols]
        if self.kind is RBF:
            B = np.exp(-0.5 * cdist(Zr, Zc, "sqeuclidean"))
        else:
            B = Zr @ Zc.T
            if self.kind is Polynomial:
                B = (self.c0 + B) ** self.p
        return self.K0 * B + self.B2

    def _check_sample(self):
        """Shape, finiteness and symmetry on a seeded sample of rows (as :func:`solve_dual` checks K)."""
        n = self.n
        rows = np.sort(np.random.default_rng(0).choice(n, size=min(n, 32), replace=False))
        name = "the kernel's Gram matrix K(X, X)"
        A = check_kernel_matrix(self.kernel(self.X[rows], self.X), rows.size, n, name=name)
        B = check_kernel_matrix(self.kernel(self.X, self.X[rows]), n, rows.size, name=name)
        scale = max(1.0, float(np.abs(A).max()))
        if not np.allclose(A, B.T, rtol=1e-10, atol=1e-12 * scale):
            raise ValueError("The kernel must be symmetric, K(x, x') = K(x', x).")
        _warn_if_not_psd(A[:, rows])


# --------------------------------------------------------------------------
# The two step rules. Each keeps alpha and v = y - K (y * alpha) up to date;
# ``select()`` returns the working pair, or None when the KKT conditions hold
# to ``tol``; ``update(i, j)`` takes the step.
# --------------------------------------------------------------------------


class _PairSMO:
    """SMO with the equality constraint sum(y alpha) = 0: pairs, WSS 2.

    ``rows`` gives the kernel rows, ``C`` is the per-point box (array), ``v0`` the
    value of ``v`` at ``alpha = 0`` (``y`` for the SVM; the epsilon-SVR passes its own).
    """

    def __init__(self, rows, y, C, alpha, tol, v0=None):
        self.rows, self.y, self.C, self.tol = rows, y, C, tol
        self.alpha = alpha
        self.v = _initial_v(rows, y, alpha, y if v0 is None else v0)
        self.diag = rows.diag
        self.alpha_sum = float(alpha.sum())
        n = y.shape[0]
        # Membership of I_up / I_low as additive masks (0 inside, -inf/+inf outside):
        # max(v + up_mask) and min(v + low_mask) then need no boolean indexing.
        self.up_mask = np.empty(n)
        self.low_mask = np.empty(n)
        for name in ("v_up", "v_low", "gain", "curv"):
            setattr(self, name, np.empty(n))
        self.zeros, self.taus = np.zeros(n), np.full(n, _tau(self.diag))
        self.ties = np.empty(n, dtype=bool)
        self.positive = (y > 0).tolist()
        self.C_list = C.tolist()
        self._refresh_masks(slice(None))
        self.violation = np.inf
        self.hard_margin = _HardMarginWatch(rows, y, C, fit_intercept=True)

    def _refresh_masks(self, idx):
        a, y = self.alpha[idx], self.y[idx]
        below_C, above_0 = a < self.C[idx], a > 0
        self.up_mask[idx] = np.where(np.where(y > 0, below_C, above_0), 0.0, -np.inf)
        self.low_mask[idx] = np.where(np.where(y > 0, above_0, below_C), 0.0, np.inf)

    def _refresh_point(self, t, a, positive):
        # scalar version of _refresh_masks for one changed entry (no array calls)
        below_C, above_0 = a < self.C_list[t], a > 0
        self.up_mask[t] = 0.0 if (below_C if positive else above_0) else -np.inf
        self.low_mask[t] = 0.0 if (above_0 if positive else below_C) else np.inf

    def select(self):
        """Working pair (i, j) by WSS 2, or None when the KKT conditions hold to tol."""
        # (every array operation writes into a preallocated buffer, and compares with
        # arrays rather than scalars, which numpy broadcasts slowly: ~1 us per call at n = 2000)
        v, v_up, v_low, gain, curv = self.v, self.v_up, self.v_low, self.gain, self.curv
        np.add(v, self.up_mask, out=v_up)
        i = _first_max(v_up, self.ties)  # near-ties (round-off) go to the smaller index
        m = v_up[i]
        np.add(v, self.low_mask, out=v_low)
        self.violation = m - v_low[v_low.argmin()]  # m - M: -inf when a set is empty
        if not self.violation >= self.tol:
            return None
        # Second-order choice of j: largest (v_i - v_t)^2 / a_it over t in I_low with v_t < v_i.
        np.subtract(m, v_low, out=gain)  # -inf outside I_low
        np.maximum(gain, self.zeros, out=gain)
        np.multiply(gain, gain, out=gain)
        np.add(self.diag, self.diag[i], out=curv)
        K_i = self.rows.row(i)
        daxpy(K_i, curv, a=-2.0)  # curv = K_ii + K_tt - 2 K_it
        j = _first_max(np.divide(gain, np.maximum(curv, self.taus, out=curv), out=gain), self.ties)
        if self.hard_margin.active:
            self.hard_margin.check_curvature(self.diag[i] + self.diag[j] - 2 * K_i[j])
        return i, j

    def update(self, i, j):
        """Newton step along alpha_i += y_i t, alpha_j -= y_j t, clipped to the box."""
        # scalars as Python floats (.item): numpy scalar arithmetic is several times slower
        v, alpha, C_i, C_j = self.v, self.alpha, self.C_list[i], self.C_list[j]
        pos_i, pos_j = self.positive[i], self.positive[j]
        a_i, a_j = alpha.item(i), alpha.item(j)
        t = (v.item(i) - v.item(j)) / self.curv.item(j)
        room_i = C_i - a_i if pos_i else a_i  # how far t may go before alpha_i leaves [0, C_i]
        room_j = a_j if pos_j else C_j - a_j
        t = min(t, room_i, room_j)
        # a point that reaches its bound is set to it exactly (no round-off residue)
        if pos_i:
            new_i = C_i if t == room_i else a_i + t
        else:
            new_i = 0.0 if t == room_i else a_i - t
        if pos_j:
            new_j = 0.0 if t == room_j else a_j - t
        else:
            new_j = C_j if t == room_j else a_j + t
        alpha[i], alpha[j] = new_i, new_j
        # f changes by t (K_i - K_j), so v = y - f changes by -t (K_i - K_j)
        daxpy(self.rows.row(i), v, a=-t)
        daxpy(self.rows.row(j), v, a=t)
        self._refresh_point(i, new_i, pos_i)
        self._refresh_point(j, new_j, pos_j)
        if self.hard_margin.active:
            self.alpha_sum += (new_i - a_i) + (new_j - a_j)
            self.hard_margin.after_step(self.alpha_sum)

    def bias(self):
        return _bias_from_v(self.v, self.alpha, self.y, self.C)


class _CoordinateDescent:
    """No equality constraint: one coordinate per step, the one that gains most."""

    def __init__(self, rows, y, C, alpha, tol):
        self.rows, self.y, self.C, self.tol = rows, y, C, tol
        self.alpha = alpha
        self.v = _initial_v(rows, y, alpha, y)
        # tau fix: Q_tt = K_tt > 0
        self.diag = np.maximum(rows.diag, _tau(rows.diag))
        self.half_diag = 0.5 * self.diag
        self.alpha_sum = float(alpha.sum())
        self.violation = np.inf
        self.hard_margin = _HardMarginWatch(rows, y, C, fit_intercept=False)
        n = y.shape[0]
        self.zeros, self.Cs, self.C_list = np.zeros(n), C, C.tolist()
        for name in ("w", "steps", "gain"):
            setattr(self, name, np.empty(n))
        self.ties = np.empty(n, dtype=bool)
        # additive masks, as in _PairSMO: 0 where alpha may still grow (shrink), -inf elsewhere
        self.grow_mask = np.where(alpha < C, 0.0, -np.inf)
        self.shrink_mask = np.where(alpha > 0, 0.0, -np.inf)

    def select(self):
        """The coordinate with the largest exact gain, or None when the KKT conditions hold to tol."""
        a, w, steps, gain = self.alpha, self.w, self.steps, self.gain
        np.multiply(self.y, self.v, out=w)  # w = dW/dalpha: alpha_t wants to grow where w_t > 0
        # largest projected-gradient component: w_t > 0 with room to grow, w_t < 0 with room to shrink
        np.add(w, self.grow_mask, out=gain)
        grow = gain[gain.argmax()]
        np.subtract(self.shrink_mask, w, out=gain)
        self.violation = max(grow, gain[gain.argmax()], 0.0) if not np.isnan(grow) else np.nan
        if not self.violation >= self.tol:
            return None
        # exact maximiser of W along each coordinate, clipped to [0, C]; gain = increase of W
        np.divide(w, self.diag, out=steps)
        steps += a
        np.maximum(steps, self.zeros, out=steps)
        np.minimum(steps, self.Cs, out=steps)
        steps -= a
        np.multiply(self.half_diag, steps, out=gain)
        np.subtract(w, gain, out=gain)
        gain *= steps
        t = _first_max(gain, self.ties)  # near-ties (round-off) go to the smaller index
        return t, t

    def update(self, t, _):
        a, C = self.alpha, self.C_list[t]
        d = self.steps.item(t)
        new = a.item(t) + d
        new = C if new >= C else max(new, 0.0)
        a[t] = new
        daxpy(self.rows.row(t), self.v, a=-self.y.item(t) * d)  # f += y_t d K_t
        self.grow_mask[t] = 0.0 if new < C else -np.inf
        self.shrink_mask[t] = 0.0 if new > 0 else -np.inf
        if self.hard_margin.active:
            self.alpha_sum += d
            self.hard_margin.after_step(self.alpha_sum)

    def bias(self):
        return 0.0


def _tau(diag):
    """libsvm's fixed TAU for kernels of scale max K_ii >= 1; TAU * max K_ii below (tiny kernels)."""
    scale = float(diag.max(initial=0.0))
    return TAU * min(scale, 1.0) if scale > 0 else TAU


def _first_max(a, tie_buf):
    """Index of the largest entry of ``a``, the smallest index among entries within TIE_RTOL of it."""
    k = int(a.argmax())
    top = a.item(k)
    if not np.isfinite(top):
        return k
    np.greater_equal(a, top - TIE_RTOL * abs(top), out=tie_buf)
    return int(tie_buf.argmax())


def _initial_v(rows, y, alpha, v0):
    """v = v0 - K (y alpha); no O(n^2) product for the usual start alpha = 0."""
    return v0.copy() if not alpha.any() else v0 - rows.dot(y * alpha)


def _projected_gradient(w, a, C):
    """Largest KKT violation of the box-constrained dual: w_t > 0 with room to grow, w_t < 0 with room to shrink."""
    grow = w[a < C]
    shrink = w[a > 0]
    return max(float(grow.max(initial=0.0)), float(-shrink.min(initial=0.0)), 0.0)


class _HardMarginWatch:
    """Detects a hard margin (C = inf) on data the kernel cannot separate, or a kernel that is not PSD.

    Then the dual is unbounded and SMO lets the alphas grow without end -- but only
    linearly (each pair step is limited by the pair's curvature), so a bound on the
    alphas alone would take ~1e12 steps to trigger. Three checks:

    * a working pair with negative curvature ``K_ii + K_jj - 2 K_ij < 0`` (beyond
      round-off), or a negative ``K_ii``: the kernel is not positive semi-definite and
      the objective grows without bound along that pair;
    * ``sum(alpha) * max K_ii > HARD_MARGIN_LIMIT`` (the margin is below 1e-6 of the
      data's radius, see HARD_MARGIN_LIMIT);
    * after a suspicious number of steps (20 n + 1000, then 4x as many each time), an
      exact test: a linear program for ``y_i f(x_i) >= 1`` with ``f`` in the span of the
      kernel's (numerically non-zero) eigen-features. A positive-definite ``K`` can
      always interpolate the labels, so the LP only runs for rank-deficient kernels,
      where it is small.
    """

    def __init__(self, rows, y, C, *, fit_intercept):
        # C is the per-point box; the watch matters when some box is unbounded
        self.active = bool(np.isinf(C).any())
        if not self.active:
            return
        self.rows, self.y, self.fit_intercept = rows, y, fit_intercept
        n = y.shape[0]
        radius2 = float(rows.diag.max())
        if rows.diag.min() < -1e-12 * max(abs(radius2), 1e-300):
            _raise_not_psd("a diagonal entry K_ii is negative")
        self.curvature_floor = -1e-10 * max(radius2, 0.0)  # round-off allowance of K_ii + K_jj - 2 K_ij
        # (an all-zero kernel has no scale: leave it to the exact check below)
        self.alpha_limit = HARD_MARGIN_LIMIT / radius2 if radius2 > 1e-200 else np.inf
        self.steps, self.next_check = 0, 20 * n + 1000

    def check_curvature(self, a_ij):
        if a_ij < self.curvature_floor:
            _raise_not_psd(f"a working pair has K_ii + K_jj - 2 K_ij = {a_ij:.3g} < 0")

    def after_step(self, alpha_sum):
        if not self.active:
            return
        if not alpha_sum <= self.alpha_limit:  # (also catches NaN)
            _raise_infeasible()
        self.steps += 1
        if self.steps >= self.next_check:
            self.next_check *= 4
            if not hard_margin_feasible(self.rows.full(), self.y, fit_intercept=self.fit_intercept):
                _raise_infeasible()


def hard_margin_feasible(K, y, *, fit_intercept=True):
    """True when some ``f = sum_j c_j K(., x_j) (+ b)`` has ``y_i f(x_i) >= 1`` for all i.

    Uses ``K = U diag(lam) U^T``: ``f`` on the training points is ``F u (+ b)`` with
    ``F = U sqrt(lam)`` over the numerically non-zero eigenvalues (``lam > n eps lam_max``;
    directions below that carry a margin below ~1e-6 of the data's scale). Full rank
    means the labels can be interpolated: feasible. Otherwise a linear-programming
    feasibility problem (scipy's HiGHS) decides.

    Parameters
    ----------
    K : array (n, n)
        Symmetric, finite Gram matrix.
    y : array (n,)
        Labels in {-1, +1}.
    fit_intercept : bool, default True
        Whether ``f`` has a bias ``b``.

    Returns
    -------
    bool

    Raises
    ------
    ValueError, TypeError
        Labels other than -1/+1, a ``y`` whose length is not ``K``'s, NaN/inf, an
        asymmetric or empty ``K``, a non-boolean ``fit_intercept``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])  # XOR
    >>> hard_margin_feasible(X @ X.T, np.array([1.0, 1.0, -1.0, -1.0]))
    False
    """
    fit_intercept = check_bool(fit_intercept, "fit_intercept")
    y = check_pm_labels(y)
    K = check_kernel_matrix(K, y.shape[0], name="K (the training Gram matrix)", symmetric=True)
    return _feasible(K, y, fit_intercept)


def _feasible(K, y, fit_intercept):
    n = y.shape[0]
    lam, U = eigh(K)
    keep = lam > n * np.finfo(float).eps * max(lam[-1], 0.0)
    if keep.all():
        return True
    F = U[:, keep] * np.sqrt(lam[keep])
    if fit_intercept:
        F = np.column_stack([F, np.ones(n)])
    if F.shape[1] == 0:  # K = 0 and no bias: f = 0 everywhere
        return False
    res = linprog(np.zeros(F.shape[1]), A_ub=-(y[:, None] * F), b_ub=-np.ones(n),
                  bounds=(None, None), method="highs")
    return res.status != 2  # 2 = infeasible; numerical trouble counts as feasible (SMO goes on)


def _raise_infeasible():
    raise ValueError(
        "The hard-margin problem (C = inf) is infeasible: the kernel cannot separate the two "
        "classes (or only with a margin below 1e-6 of the data's scale), or the kernel matrix is "
        "not positive semi-definite; either way the dual objective grows without bound. Use a "
        "finite C (a soft margin), e.g. C=10, or a more flexible (valid) kernel."
    )


def _raise_not_psd(why):
    raise ValueError(
        f"The kernel matrix is not positive semi-definite ({why}), so the hard-margin dual "
        "(C = inf) grows without bound. Use a valid (PSD) kernel -- svmlib.kernels.is_psd(K) "
        "checks one -- or a finite C, e.g. C=10."
    )


def _bias_from_v(v, alpha, y, C):
    """b from the free support vectors (their mean), else the midpoint of the KKT bounds, as libsvm."""
    free = (alpha > 0) & (alpha < C)
    if free.any():
        return float(v[free].mean())
    # only bounded points: b >= v_t on I_up, b <= v_t on I_low (see module docstring);
    # a point with C_t = 0 is in neither set
    up, low = _up_low(alpha, y, C)
    lo = v[up].max(initial=-np.inf)
    hi = v[low].min(initial=np.inf)
    if np.isinf(lo) and np.isinf(hi):  # pragma: no cover - needs n = 0
        return 0.0
    if np.isinf(lo) or np.isinf(hi):
        return float(hi if np.isinf(lo) else lo)
    return 0.5 * float(lo + hi)


def _up_low(alpha, y, C):
    up = np.where(y > 0, alpha < C, alpha > 0)
    low = np.where(y > 0, alpha > 0, alpha < C)
    return up, low


def _pair_violation(v, alpha, y, C):
    up, low = _up_low(alpha, y, C)
    m = v[up].max(initial=-np.inf)
    M = v[low].min(initial=np.inf)
    return max(float(m - M), 0.0)


def _check_labels(y, *, fit_intercept):
    y = np.asarray(y, dtype=float) if _is_numeric(y) else None
    if y is None or y.ndim != 1:
        raise ValueError("y must be a 1-D array of labels in {-1, +1}; map your labels first "
                         "(svmlib._validation.check_binary_labels) or use DualSVC.")
    if y.shape[0] == 0:
        raise ValueError("y is empty: give at least one training point.")
    if not np.all((y == 1) | (y == -1)):
        raise ValueError("y must hold only -1 and +1; map your labels first "
                         "(svmlib._validation.check_binary_labels) or use DualSVC.")
    if fit_intercept and np.unique(y).size < 2:
        raise ValueError("With a bias (fit_intercept=True) both classes must be present in y; "
                         "use fit_intercept=False for one-class data.")
    return y


def _check_box(C, sample_weight, y, fit_intercept):
    """The per-point box C_i = C w_i (libsvm's weighted C) as an array."""
    n = y.shape[0]
    C = check_C(C)
    if sample_weight is None:
        return np.full(n, C)
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
    if fit_intercept and np.unique(y[w > 0]).size < 2:
        raise ValueError("With a bias both classes need a point of positive weight (sample_weight / "
                         "class_weight); all weighted points belong to one class.")
    return np.where(w > 0, C, 0.0) if np.isinf(C) else C * w


def _prepare(K, y, C, fit_intercept, tol, max_iter, alpha0, sample_weight=None):
    fit_intercept = check_bool(fit_intercept, "fit_intercept")
    y = _check_labels(y, fit_intercept=fit_intercept)
    n = y.shape[0]
    if isinstance(K, KernelRowCache):
        if K.n != n:
            raise ValueError(f"The KernelRowCache holds {K.n} points but y has {n} labels.")
        rows = K
    else:
        rows = _GramRows(np.ascontiguousarray(_check_gram(K, n)))
    Cs = _check_box(C, sample_weight, y, fit_intercept)
    tol = check_positive(tol, "tol")
    if max_iter is None:
        hard = np.isinf(Cs).any()
        max_iter = HARD_MAX_ITER + 10 * n if hard else max(10_000_000, 100 * n)
    else:
        max_iter = check_positive_int(max_iter, "max_iter", minimum=0)
    if alpha0 is None:
        alpha = np.zeros(n)
    else:
        alpha = _check_alpha0(alpha0, y, Cs, fit_intercept)
    return rows, y, Cs, tol, max_iter, alpha


def _is_numeric(y):
    try:
        return np.asarray(y).dtype.kind in "biuf"
    except Exception:  # pragma: no cover - exotic objects
        return False


def _check_gram(K, n):
    K = check_kernel_matrix(K, n, name="K (the training Gram matrix)")
    # Symmetry on a seeded sample of rows: a full comparison costs more than a whole
    # SMO run on large problems, and an asymmetric kernel is asymmetric almost everywhere.
    rows = np.random.default_rng(0).choice(n, size=min(n, 32), replace=False)
    scale = max(1.0, float(np.abs(K[rows]).max()))
    if not np.allclose(K[rows], K[:, rows].T, rtol=1e-10, atol=1e-12 * scale):
        raise ValueError("K must be symmetric (the Gram matrix K(X, X) of a kernel); "
                         "symmetrise it with (K + K.T) / 2 if the asymmetry is round-off.")
    _warn_if_not_psd(K[np.ix_(rows, rows)])
    return K


class NotPSDWarning(UserWarning):
    """The kernel matrix has a negative eigenvalue: the SVM dual is then not a convex problem.

    The message names the most negative eigenvalue found (on a principal submatrix of up to 32 sampled
    points): a kernel that is not positive semi-definite is no Mercer kernel, and SMO may stop at a point
    that is not the dual's maximum.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from svmlib.dual import DualSVC, NotPSDWarning
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([0, 0, 1, 1])
    >>> K = -np.exp(-(X - X.T) ** 2)  # a negated RBF Gram matrix
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     _ = DualSVC(kernel="precomputed", C=1.0).fit(K, y)
    >>> any(issubclass(x.category, NotPSDWarning) for x in w)
    True
    """


def _warn_if_not_psd(S):
    """Warn when the principal submatrix ``S`` of K (on up to 32 sampled points) is not PSD.

    A negative eigenvalue of a principal submatrix proves that K is not positive semi-definite;
    beyond round-off means below ``-1e-6`` times the largest eigenvalue's magnitude (a Gram
    matrix of single-precision inputs has round-off eigenvalues of ~-1e-7 relative).
    """
    lam = eigh(0.5 * (S + S.T), eigvals_only=True)
    scale = float(np.abs(lam).max(initial=0.0))
    if scale > 0 and lam[0] < -1e-6 * scale:
        warnings.warn(
            f"The kernel matrix is not positive semi-definite: on a sample of {S.shape[0]} points its "
            f"most negative eigenvalue is {lam[0]:.3g} (largest |eigenvalue| {scale:.3g}). The SVM dual is "
            "then not convex and SMO returns a stationary point, not the optimum. Use a valid kernel "
            "(check it with svmlib.kernels.is_psd / min_eigenvalue), e.g. RBF, or add a multiple of the "
            "identity to K.", NotPSDWarning, stacklevel=4)


def _check_alpha0(alpha0, y, C, fit_intercept):
    n = y.shape[0]
    try:
        alpha = np.array(alpha0, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"alpha0 must be an array of {n} numbers.") from None
    if alpha.shape != (n,):
        raise ValueError(f"alpha0 must have shape ({n},) (one per training point), got {alpha.shape}.")
    if not np.all(np.isfinite(alpha)):
        raise ValueError("alpha0 contains NaN or infinity; give finite starting values.")
    slack = 1e-12 * max(1.0, float(alpha.max(initial=0.0)))
    finite = np.isfinite(C)
    if alpha.min() < -slack or np.any(alpha[finite] > C[finite] + slack * np.maximum(1.0, C[finite])):
        bound = f"[0, {C[0]}]" if np.all(C == C[0]) else "[0, C_i] (C_i = C * sample_weight_i)"
        raise ValueError(f"alpha0 must lie in [0, C] = {bound}; clip it or solve with the C it came from.")
    alpha = np.clip(alpha, 0.0, C)
    if fit_intercept and abs(y @ alpha) > 1e-9 * max(1.0, float(alpha.sum())):
        raise ValueError("alpha0 violates sum(y * alpha0) = 0, which holds with a bias; "
                         "start from a feasible point (e.g. zeros) or use fit_intercept=False.")
    return alpha


def _make_solver(K, y, C, fit_intercept, tol, max_iter, alpha0, sample_weight=None):
    rows, y, C, tol, max_iter, alpha = _prepare(K, y, C, fit_intercept, tol, max_iter, alpha0, sample_weight)
    rule = _PairSMO if fit_intercept else _CoordinateDescent
    return rule(rows, y, C, alpha, tol), max_iter


def _iterate(solver, max_iter):
    """The SMO loop shared by :func:`solve_dual` and :func:`smo_steps`.

    Yields each working pair after its update; sets ``solver.converged`` when the
    KKT conditions hold to ``tol`` (checked once more after the last allowed step).
    """
    solver.converged = False
    for it in range(max_iter + 1):
        pair = solver.select()
        if pair is None:
            if np.isnan(solver.violation):
                _raise_not_finite()
            solver.converged = True
            return
        if it == max_iter:
            return
        solver.update(*pair)
        yield pair


def _raise_not_finite():
    raise ValueError(
        "SMO produced NaN: the dual variables overflowed, which happens when the kernel matrix "
        "is not positive semi-definite (check it with svmlib.kernels.is_psd) and C is huge or "
        "infinite. Use a valid kernel or a finite C."
    )


def _objective_from_v(alpha, y, v):
    # alpha^T Q alpha = sum_t alpha_t y_t f_t and f = y - v, so W = (sum a + sum a y v) / 2
    return 0.5 * (float(alpha.sum()) + float(alpha @ (y * v)))


def _finish(solver, n_iter, converged, fit_intercept):
    """Build the solution; with a stored K, f is recomputed (no accumulated round-off in v).

    With a row cache the recomputation would cost a kernel evaluation per point and
    support vector (more than the whole run); the running ``v`` is used instead (its
    round-off is ~1e-13 after millions of steps).
    """
    rows, y, C, alpha = solver.rows, solver.y, solver.C, solver.alpha.copy()
    f0 = rows.dot(y * alpha) if isinstance(rows, _GramRows) else y - solver.v
    v = y - f0
    if fit_intercept:
        b = _bias_from_v(v, alpha, y, C)
        violation = _pair_violation(v, alpha, y, C)
    else:
        b = 0.0
        violation = _projected_gradient(y * v, alpha, C)
    w2 = float(alpha @ (y * f0))  # |w|^2 = alpha^T Q alpha
    dual = float(alpha.sum()) - 0.5 * w2
    decision = f0 + b
    if not (np.all(np.isfinite(alpha)) and np.isfinite(b) and np.isfinite(w2)):
        _raise_not_finite()
    hinge = np.maximum(0.0, 1.0 - y * decision)
    finite = np.isfinite(C)
    primal = 0.5 * w2 + float(C[finite] @ hinge[finite])  # a hard margin's hinge is 0 at the optimum
    return DualSolution(
        alpha=alpha, b=b, n_iter=n_iter, converged=converged, objective=dual,
        primal_objective=primal, duality_gap=primal - dual, kkt_violation=violation,
        is_support=alpha > 0, free=(alpha > 0) & (alpha < C), decision=decision,
    )


def solve_dual(K, y, C=1.0, *, fit_intercept=True, tol=1e-3, max_iter=None, alpha0=None,
               sample_weight=None):
    """Solve the SVM dual by SMO (eq. :eq:`(3.6) <dual-objective>`).

    Parameters
    ----------
    K : array (n, n) or KernelRowCache
        Training Gram matrix ``K(x_i, x_j)`` (symmetric; PSD for a convex problem), or a
        :class:`KernelRowCache` that computes its rows on demand (same steps, same
        result, memory bounded by its ``cache_size``).
    y : array (n,)
        Labels in {-1, +1}.
    C : float, default 1.0
        Box constraint; ``np.inf`` is the hard margin.
    fit_intercept : bool, default True
        With a bias (equality constraint ``sum y alpha = 0``, pair updates) or without
        (no equality constraint, single-coordinate updates).
    tol : float, default 1e-3
        Stopping tolerance on the KKT violation (libsvm's ``eps``: maximal violating
        pair ``m - M``; without bias the largest projected-gradient component). It is
        measured on ``v = y - f``, whose scale is the labels', so scaling ``K`` scales
        ``alpha`` and changes neither the steps nor the stopping point.
    max_iter : int or None
        Maximal number of steps; ``None`` means ``max(10**7, 100 n)`` as in libsvm,
        and ``100,000 + 10 n`` for a hard margin (seconds, not minutes).
    alpha0 : array (n,), optional
        Warm start, feasible: ``0 <= alpha0 <= C_i`` (and ``sum y alpha0 = 0`` with bias).
    sample_weight : array (n,), optional
        Non-negative weights: point ``i`` gets the box ``0 <= alpha_i <= C_i = C w_i``
        (libsvm's weighted C; a zero weight removes the point).

    Returns
    -------
    DualSolution

    Raises
    ------
    ValueError
        Bad inputs, a hard margin (``C = inf``) on data the kernel cannot separate, or
        a hard margin with a kernel that is not positive semi-definite.
    TypeError
        A non-numeric ``C``, ``alpha0`` or ``sample_weight``, a non-boolean ``fit_intercept``.

    Warns
    -----
    ConvergenceWarning
        When ``max_iter`` steps did not reach ``tol`` (``converged`` is then False).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]]); y = np.array([-1.0, -1.0, 1.0, 1.0])
    >>> sol = solve_dual(X @ X.T, y, C=10.0)
    >>> sol.alpha.round(3).tolist(), round(sol.b, 3)
    ([0.0, 0.5, 0.5, 0.0], -2.0)
    """
    solver, max_iter = _make_solver(K, y, C, fit_intercept, tol, max_iter, alpha0, sample_weight)
    n_iter = 0
    with blas_single_thread():
        for n_iter, _ in enumerate(_iterate(solver, max_iter), start=1):
            pass
        if not solver.converged:
            _warn_not_converged(solver, max_iter)
        return _finish(solver, n_iter, solver.converged, fit_intercept)


def _warn_not_converged(solver, max_iter):
    warnings.warn(
        f"SMO did not reach tol={solver.tol:g} in max_iter={max_iter} steps (KKT violation "
        f"{solver.violation:.3g}); increase max_iter or tol.",
        ConvergenceWarning,
        stacklevel=3,
    )


def smo_steps(K, y, C=1.0, *, fit_intercept=True, tol=1e-3, max_iter=None, sample_weight=None):
    """Yield the state after each SMO step (for animations).

    The first state is the starting point (``iteration=0``, ``pair=None``); the last
    is :func:`solve_dual`'s solution (same code, same arithmetic). Each :class:`SMOState`
    holds a copy of ``alpha``, the bias, the dual objective (eq. :eq:`(3.6) <dual-objective>`) and the
    KKT violation (eq. :eq:`(3.12) <smo-kkt-violation>`) at that state (below ``tol`` at the last one if
    it converged). Each step is the pair update of eq. :eq:`(3.13) <smo-pair-gain>` on the pair chosen
    by eq. :eq:`(3.14) <smo-wss2>`. Unlike :func:`solve_dual` it does not warn when ``max_iter`` steps
    do not converge: the last state's ``violation`` says so.

    Parameters
    ----------
    K : array (n, n) or KernelRowCache
        Training Gram matrix ``K(x_i, x_j)``, or a :class:`KernelRowCache`, as in
        :func:`solve_dual`.
    y : array (n,)
        Labels in {-1, +1}.
    C : float, default 1.0
        Box constraint; ``np.inf`` is the hard margin.
    fit_intercept : bool, default True
        With a bias (pair updates) or without (single-coordinate updates).
    tol : float, default 1e-3
        Stopping tolerance on the KKT violation, as in :func:`solve_dual`.
    max_iter : int or None
        Maximal number of steps (states after the first); ``None`` as in :func:`solve_dual`.
    sample_weight : array (n,), optional
        Non-negative weights: box ``0 <= alpha_i <= C w_i``.

    Yields
    ------
    SMOState

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]]); y = np.array([-1.0, -1.0, 1.0, 1.0])
    >>> [s.pair for s in smo_steps(X @ X.T, y, C=10.0)]
    [None, (2, 1)]
    """
    solver, max_iter = _make_solver(K, y, C, fit_intercept, tol, max_iter, None, sample_weight)
    yield _snapshot(solver, 0, None)
    for it, pair in enumerate(_iterate(solver, max_iter), start=1):
        yield _snapshot(solver, it, pair)


def _snapshot(solver, iteration, pair):
    a, y, v = solver.alpha, solver.y, solver.v
    if isinstance(solver, _PairSMO):
        violation = _pair_violation(v, a, y, solver.C)
    else:
        violation = _projected_gradient(y * v, a, solver.C)
    return SMOState(iteration=iteration, pair=pair, alpha=a.copy(), b=solver.bias(),
                    objective=_objective_from_v(a, y, v), violation=violation)


# --------------------------------------------------------------------------
# The estimator
# --------------------------------------------------------------------------



def _kernel_expansion(estimator, X):
    """``sum_i dual_coef_i K(x, x_i) + b`` of a fitted dual estimator (DualSVC, DualSVR).

    Shared by the classifier's ``decision_function`` and the regressor's ``predict``: the same
    checks (fitted, feature names, shape; a precomputed ``K(X_test, X_train)``) and the same sum
    over the support vectors.
    """
    name = type(estimator).__name__
    check_is_fitted(estimator, "dual_coef_")
    _check_feature_names(estimator, X, reset=False)
    if estimator._precomputed():
        K = check_inputs(X, name="X (the precomputed kernel K(X_test, X_train))")
        n_train = estimator.shape_fit_[0]
        if K.shape[1] != n_train:
            raise ValueError(f"X has {K.shape[1]} features, but {name} is expecting {n_train} features "
                             f"as input: with kernel='precomputed', X must be K(X_test, X_train) with "
                             f"{n_train} columns (one per training point); got shape {K.shape}.")
        K_sv = K[:, estimator.support_]
    else:
        X = check_inputs(X)
        if X.shape[1] != estimator.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {name} is expecting "
                             f"{estimator.n_features_in_} features as input; give inputs of the same dimension.")
        if estimator.support_.size == 0:
            return np.full(X.shape[0], estimator.intercept_[0])
        K_sv = estimator._kernel()(X, estimator.support_vectors_)
    return K_sv @ estimator.dual_coef_[0] + estimator.intercept_[0]


class DualSVC(ClassifierMixin, BaseEstimator):
    """Support vector classifier trained in the dual by SMO.

    Parameters
    ----------
    C : float, default 1.0
        Box constraint; ``np.inf`` for a hard margin.
    kernel : str, Kernel or callable, default "rbf"
        A :class:`svmlib.kernels.Kernel`, a name (``'linear'``, ``'poly'``, ``'rbf'``,
        ``'ou'``, default parameters), a callable ``k(X, Y)`` or ``"precomputed"``
        (then ``fit`` takes the Gram matrix ``K(X_train, X_train)`` and
        ``predict``/``decision_function`` take ``K(X_test, X_train)``).
    tol : float, default 1e-3
        KKT tolerance (libsvm's ``eps``), see :func:`solve_dual`.
    fit_intercept : bool, default True
        Learn a bias ``b``; without it the bias can live in the kernel (``B2``).
    max_iter : int or None
        Maximal number of SMO steps.
    cache_size : float, default 200
        Memory in MB for kernel rows (libsvm's ``cache_size``): unless the kernel is
        precomputed, rows are computed on demand and the most recently used kept
        (:class:`KernelRowCache`); the Gram matrix is never formed.
    class_weight : dict, "balanced" or None, default None
        Multiplies ``C`` for the points of a class: ``C_i = C class_weight[y_i]``
        (``"balanced"``: ``n / (2 n_class)``), as scikit-learn's ``SVC``.

    Attributes
    ----------
    classes_ : ndarray (2,)
        The labels; ``classes_[1]`` is the class ``y = +1`` (positive decision values).
    alpha_ : ndarray (n_train,)
        Dual variables of all training points.
    support_ : ndarray of int
        Indices of the support vectors (``alpha_ > 0``).
    support_vectors_ : ndarray (n_SV, n_features)
        The support vectors (empty ``(0, 0)`` for a precomputed kernel).
    dual_coef_ : ndarray (1, n_SV)
        ``y_i alpha_i`` -- the same sign convention as scikit-learn's ``SVC.dual_coef_``.
    intercept_ : ndarray (1,)
        The bias ``b``.
    class_weight_ : ndarray (2,)
        The multiplier of ``C`` for ``classes_[0]`` and ``classes_[1]``.
    n_iter_, converged_, objective_, duality_gap_, kkt_violation_ :
        From :class:`DualSolution`.
    n_features_in_ : int
        Number of input features.
    feature_names_in_ : ndarray of str
        Column names of ``X`` when it was a DataFrame with string column names;
        ``predict`` then refuses columns in another order.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]]); y = np.array([0, 0, 1, 1])
    >>> DualSVC(C=10.0, kernel="linear").fit(X, y).predict([[0.5], [3.5]]).tolist()
    [0, 1]
    """

    def __init__(self, C=1.0, kernel="rbf", tol=1e-3, fit_intercept=True, max_iter=None,
                 cache_size=200.0, class_weight=None):
        self.C = C
        self.kernel = kernel
        self.tol = tol
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.cache_size = cache_size
        self.class_weight = class_weight

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self._precomputed()
        tags.classifier_tags.multi_class = False  # an SVM separates two classes
        return tags

    def _precomputed(self):
        return isinstance(self.kernel, str) and self.kernel == "precomputed"

    def _kernel(self):
        return make_kernel(self.kernel)

    def fit(self, X, y, sample_weight=None):
        """Fit on inputs ``X`` (n, d) -- or the Gram matrix (n, n) if precomputed -- and labels ``y``.

        Parameters
        ----------
        X : array (n, d), or (n, n) with ``kernel="precomputed"``
        y : array (n,)
            Two classes, any labels.
        sample_weight : array (n,), optional
            Per-point multiplier of ``C`` (the box ``0 <= alpha_i <= C_i``), as
            ``SVC().fit(X, y, sample_weight)``.

        Returns
        -------
        self
        """
        check_C(self.C)
        check_bool(self.fit_intercept, "fit_intercept")
        cache_size = check_positive(self.cache_size, "cache_size (MB)")
        _check_feature_names(self, X, reset=True)
        X, y_pm, classes = check_data(X, y)
        weights = self._point_weights(X, y_pm, classes, sample_weight)
        if self._precomputed():
            if X.shape[1] != X.shape[0]:
                raise ValueError(f"With kernel='precomputed', X must be the square Gram matrix "
                                 f"K(X_train, X_train); got shape {X.shape}.")
            K = X
        else:
            K = KernelRowCache(self._kernel(), X, cache_size)
        sol = solve_dual(K, y_pm, self.C, fit_intercept=self.fit_intercept, tol=self.tol,
                         max_iter=self.max_iter, sample_weight=weights)
        self.classes_ = classes
        self.alpha_ = sol.alpha
        self.support_ = np.flatnonzero(sol.is_support)
        self.support_vectors_ = np.empty((0, 0)) if self._precomputed() else X[self.support_]
        self.dual_coef_ = (y_pm * sol.alpha)[self.support_][None, :]
        self.intercept_ = np.array([sol.b])
        self.n_support_ = np.array([np.sum(y_pm[self.support_] < 0), np.sum(y_pm[self.support_] > 0)])
        self.n_iter_ = sol.n_iter
        self.converged_ = sol.converged
        self.objective_ = sol.objective
        self.duality_gap_ = sol.duality_gap
        self.kkt_violation_ = sol.kkt_violation
        self.n_features_in_ = X.shape[1]
        self.shape_fit_ = X.shape
        return self

    def _point_weights(self, X, y_pm, classes, sample_weight):
        """Per-point multipliers of C: class weight times sample weight (None when all are 1)."""
        y_orig = classes[(y_pm > 0).astype(int)]
        if self.class_weight is None:
            self.class_weight_ = np.ones(2)
        else:
            if not (isinstance(self.class_weight, dict) or
                    (isinstance(self.class_weight, str) and self.class_weight == "balanced")):
                raise ValueError("class_weight must be None, 'balanced' or a dict {label: weight}, "
                                 f"got {self.class_weight!r}.")
            self.class_weight_ = compute_class_weight(self.class_weight, classes=classes, y=y_orig)
            if not np.all(np.isfinite(self.class_weight_)) or np.any(self.class_weight_ < 0):
                raise ValueError(f"class_weight must be finite and >= 0, got {self.class_weight!r}.")
        if sample_weight is None and np.all(self.class_weight_ == 1):
            return None
        if sample_weight is None:
            w = np.ones(X.shape[0])
        else:
            w = check_sample_weight(sample_weight, X)
        return w * self.class_weight_[(y_pm > 0).astype(int)]

    def decision_function(self, X):
        """``f(x) = sum_i alpha_i y_i K(x, x_i) + b``; positive means ``classes_[1]``.

        Parameters
        ----------
        X : array (m, d), or ``K(X_test, X_train)`` (m, n) with ``kernel="precomputed"``

        Returns
        -------
        ndarray (m,)
        """
        return _kernel_expansion(self, X)

    def predict(self, X):
        """Class labels: ``classes_[1]`` where the decision value is positive, else ``classes_[0]``.

        Parameters
        ----------
        X : array (m, d), or ``K(X_test, X_train)`` with ``kernel="precomputed"``

        Returns
        -------
        ndarray (m,)
        """
        check_is_fitted(self, "dual_coef_")
        return self.classes_[(self.decision_function(X) > 0).astype(int)]
