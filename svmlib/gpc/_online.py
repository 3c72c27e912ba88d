r"""The sequential single-sweep algorithm (online ADF; Csato et al. 2000, Csato & Opper 2002).

After ``t`` examples the approximate posterior is a Gaussian process with
(eqs. :eq:`(8.16) <gpc-online-posterior>` and :eq:`(8.17) <gpc-online-update>`)

    <f>(x) = sum_i alpha_i K(x, x_i),   K_t(x, x') = K(x, x') + sum_ij K(x, x_i) C_ij K(x_j, x').

A new example ``(x, y)`` multiplies in ``Theta(y a)``; projecting back to a
Gaussian (matching mean and variance) gives the rank-one update
(eq. :eq:`(8.17) <gpc-online-update>`)::

    k = K(x, x_i)_i;  mean = k^T alpha;  s2 = K(x, x) + k^T C k;  z = y mean / sqrt(s2)
    q = y D(z) / sqrt(s2);  r = D'(z) / s2;  s = (C k ; 1)
    alpha <- (alpha ; 0) + q s;   C <- (C 0 ; 0 0) + r s s^T

No matrix is inverted and nothing is optimised. ``ln Z_ADF = sum_t ln Phi(z_t)``
(pre-update ``z_t``) approximates the evidence. Reusing an example already in
the basis uses ``s = C k + e_i`` (no new row): a heuristic (the examples are no
longer independent) that lowers training error and makes the mean over-confident.

An example whose kernel function is (to round-off) a combination of the basis
functions already held, i.e. whose *novelty* ``gamma = K(x, x) - k^T K_B^{-1} k``
is below ``1e-8 K(x, x)`` (a duplicate input without noise, constant or nearly
collinear inputs, a very long length scale), adds no new direction: a new row
would only make ``alpha`` and ``C`` the ill-conditioned representation of the
same function (entries of 1e7 whose cancellations carry round-off into the
predictions, differently on every CPU). Csato & Opper's sparse update projects
it onto the basis instead: ``s = C k + K_B^{-1} k`` and no new row. ``K_B`` is
kept as a Cholesky factor, grown by one row per basis example. The projection
needs ``K_B^{-1} k`` accurately, so it is used only while the factor's diagonal
spans less than a factor 100 (``cond(K_B)`` about 1e4 or less: the degenerate
inputs above, where the basis stays at one or a few examples) and the basis
holds at most 64 examples (its upkeep would otherwise double a sweep's time); once ``K_B`` is
ill-conditioned (e.g. a polynomial kernel whose basis has reached the kernel's
finite rank) every example adds a row as in the plain update, which inverts
nothing and stays accurate.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.linalg

from .._threads import single_threaded
from .._validation import check_kernel_matrix, check_pm_labels, check_positive_int
from ._likelihood import D, dD, log_Phi

__all__ = ["OnlineState", "online_sweep"]

#: An example whose predictive variance is below this fraction of its scale is skipped
#: (round-off level: the variance is a difference of terms of size K_ii). 1e-10 let examples
#: whose variance was round-off through: on X * 1e-8, constant X or RBF(l=1e6) the updates
#: q ~ 1 / sqrt(s2) then grew the decision values to 1e146 (issue 26); at 1e-8 they stay O(1).
_RELATIVE_VARIANCE_FLOOR = 1e-8
#: An example whose novelty K(x, x) - k^T K_B^{-1} k is below this fraction of K(x, x) is projected
#: onto the basis (Csato & Opper's sparse update) instead of adding a row: 1e-8 keeps the basis
#: Gram matrix's condition number below ~1e8 t, so alpha and C carry no more than ~1e-8 round-off.
_RELATIVE_NOVELTY_FLOOR = 1e-8
#: Projection only while max/min of the Cholesky diagonal of K_B is below this (cond(K_B) ~ its square).
_PROJECTION_MAX_DIAGONAL_RATIO = 100.0
#: ... and while the basis holds at most this many examples: the degenerate inputs keep it at one or a few,
#: and beyond it the factor's upkeep (a triangular solve per new example) would double an ordinary sweep's time.
_PROJECTION_MAX_BASIS = 64
#: Rows of ``C`` updated per block by :func:`_rank_one_update` (its work buffer holds this many rows).
_UPDATE_BLOCK = 256


def _rank_one_update(C, t, r, s, work):
    """``C[:t, :t] += r * outer(s, s)`` in place, without a ``t x t`` temporary.

    ``np.outer`` allocated a fresh ``t x t`` array at every presentation (8 MB at t = 1000, so
    the kernel zeroed new pages each step); here the product is formed block-row by block-row in
    the small buffer ``work`` (``_UPDATE_BLOCK * n`` numbers) and added in place. Each entry is
    computed as before, ``(s_i * s_j) * r`` then added, so the result is bit-identical.
    """
    for j0 in range(0, t, _UPDATE_BLOCK):
        j1 = min(j0 + _UPDATE_BLOCK, t)
        block = work[:(j1 - j0) * t].reshape(j1 - j0, t)
        np.multiply(s[j0:j1, None], s[None, :], out=block)
        block *= r
        C[j0:j1, :t] += block


@dataclass
class OnlineState:
    """State of the online algorithm.

    The posterior of eq. :eq:`(8.16) <gpc-online-posterior>` after t updates.

    Attributes
    ----------
    basis : ndarray (t,)
        training indices in order of first presentation
    alpha : ndarray (t,)
        mean coefficients (signed: ``<f>(x) = sum alpha_i K(x, x_basis_i)``)
    C : ndarray (t, t)
        covariance correction
    log_evidence : float
        ``ln Z_ADF`` of the first sweep (each example counted once)
    n_presented : int
        examples presented, counting reuse
    n_skipped : int
        presentations skipped because the predictive variance at the
        example was at round-off level (its value already fixed)
    n_projected : int
        presentations projected onto the basis (Csato & Opper's sparse update)
        because the example's novelty was at round-off level
    train_errors, test_errors : list of int
        Errors after each presentation (only if ``track=True`` was asked for).

    Parameters
    ----------
    basis, alpha, C, log_evidence, n_presented, train_errors, test_errors, z, snapshots, n_skipped, n_projected
        The fields below (a record returned by :func:`online_sweep`).

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import make_demo_problem, training_kernel
    >>> X, y = make_demo_problem(20, random_state=0)
    >>> K = training_kernel(X, 1.0, 1.0)
    >>> from svmlib.gpc import online_sweep
    >>> state = online_sweep(K, y)
    >>> print(state.n_presented, state.C.shape)
    20 (20, 20)
    """

    basis: np.ndarray
    alpha: np.ndarray
    C: np.ndarray
    log_evidence: float
    n_presented: int
    train_errors: list = field(default_factory=list)
    test_errors: list = field(default_factory=list)
    z: list = field(default_factory=list)
    snapshots: dict = field(default_factory=dict)
    n_skipped: int = 0
    n_projected: int = 0


@single_threaded  # a t x t matrix-vector product per example: 2-threaded BLAS made it 3-4x slower here
def online_sweep(K_train, y, *, n_sweeps=1, order=None, K_eval=None, y_eval=None, K_test=None,
                 y_test=None, track=False, snapshots=None):
    """Run the online algorithm over the training set ``n_sweeps`` times.

    Implements eqs. :eq:`(8.16) <gpc-online-posterior>` and :eq:`(8.17) <gpc-online-update>`.

    Parameters
    ----------
    K_train : ndarray (n, n)
        Training kernel (probit noise on the diagonal).
    y : ndarray (n,)
        labels -1/+1
    n_sweeps : int
        1 is the algorithm; more sweeps reuse the data (heuristic).
    order : ndarray (n,), optional
        Presentation order in each sweep (default 0..n-1).
    K_eval : ndarray (n, n), optional
        Noise-free ``K(X, X)`` for counting training errors (default ``K_train``).
    K_test, y_test : optional
        ``K(X_test, X)`` and test labels for counting test errors.
    track : bool
        Count training (and test) errors after every presentation (a prediction of
        exactly 0, e.g. before any example, counts as an error).
    snapshots : iterable of int, optional
        Presentation counts at which to store ``(basis, alpha)`` copies in ``state.snapshots``.

    Returns
    -------
    OnlineState

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import make_demo_problem, training_kernel
    >>> X, y = make_demo_problem(20, random_state=0)
    >>> K = training_kernel(X, 1.0, 1.0)
    >>> from svmlib.gpc import online_sweep
    >>> state = online_sweep(K, y, track=True)
    >>> print(len(state.basis), f'{state.log_evidence:.3f}', state.train_errors[-1])
    20 -11.937 0
    """
    y = check_pm_labels(y)
    n = y.size
    K_train = check_kernel_matrix(K_train, n, name="K_train", symmetric=True)
    if np.any(np.diag(K_train) <= 0):
        raise ValueError("The kernel diagonal K(x, x) must be > 0 for every training input; add noise.")
    n_sweeps = check_positive_int(n_sweeps, "n_sweeps")
    if order is None:
        order = np.arange(n)
    else:
        order = np.asarray(order)
        if order.ndim != 1 or order.dtype.kind not in "iu" or np.any((order < 0) | (order >= n)):
            raise ValueError(f"order must be a 1-D array of training indices in [0, {n}).")
    K_eval = K_train if K_eval is None else check_kernel_matrix(K_eval, n, name="K_eval")
    if K_test is not None:
        K_test = check_kernel_matrix(K_test, np.shape(K_test)[0], n, name="K_test")
    want = set() if snapshots is None else set(int(s) for s in snapshots)

    alpha = np.zeros(n)
    C = np.zeros((n, n))
    chol = np.zeros((min(n, _PROJECTION_MAX_BASIS),) * 2)  # lower Cholesky factor of K_B, grown row by row
    chol_ok = True  # False once K_B is too ill-conditioned to factor or to project onto
    work = np.empty(min(n, _UPDATE_BLOCK) * n)  # buffer of _rank_one_update
    basis = np.empty(n, dtype=int)
    position = -np.ones(n, dtype=int)  # position of a training index in the basis
    seen = np.zeros(n, dtype=bool)
    t = 0
    log_Z = 0.0
    state = OnlineState(basis, alpha, C, 0.0, 0)
    if 0 in want:
        state.snapshots[0] = (basis[:0].copy(), alpha[:0].copy())
    for sweep in range(n_sweeps):
        for i in order:
            new = position[i] < 0  # not in the basis (never presented, skipped or projected)
            first = not seen[i]  # ln Z_ADF counts each example once (the first sweep)
            seen[i] = True
            k = K_train[i, basis[:t]]
            Ck = C[:t, :t] @ k
            mean = k @ alpha[:t]
            s2 = K_train[i, i] + k @ Ck
            # The predictive variance K_t(x_i, x_i) >= 0 in exact arithmetic, but it is a difference
            # of O(K_ii) terms: when the inputs seen so far already fix f(x_i) (a duplicate without
            # noise, constant or near-collinear inputs) round-off leaves it at ~eps K_ii or below 0.
            # Such an example carries no information the update can use in double precision;
            # it is skipped (counted in n_skipped) instead of producing NaN.
            floor = _RELATIVE_VARIANCE_FLOOR * (K_train[i, i] + abs(k @ Ck))
            if not s2 > floor:
                # the example stays out of the basis (its row would only add round-off); its
                # evidence factor Phi(z) uses the floor variance: ~1 if f(x_i) already has the
                # right sign, tiny if the data contradict each other
                z = y[i] * mean / np.sqrt(floor)
                if first:
                    log_Z += float(log_Phi(z))
                state.n_skipped += 1
                state.n_presented += 1
                state.z.append(float(z))
                if track:
                    f_train = K_eval[:, basis[:t]] @ alpha[:t]
                    state.train_errors.append(int(np.sum(np.sign(f_train) != y)))
                    if K_test is not None:
                        f_test = K_test[:, basis[:t]] @ alpha[:t]
                        state.test_errors.append(int(np.sum(np.sign(f_test) != y_test)))
                if state.n_presented in want:
                    state.snapshots[state.n_presented] = (basis[:t].copy(), alpha[:t].copy())
                continue
            z = y[i] * mean / np.sqrt(s2)
            Dz = D(z)
            q = y[i] * Dz / np.sqrt(s2)
            r = dD(z, Dz) / s2
            if first:
                log_Z += float(log_Phi(z))
            if new:
                project, v, novelty = False, k, K_train[i, i]
                if chol_ok and t:
                    # novelty of x_i: the part of K(., x_i) outside the span of the basis functions
                    v = scipy.linalg.solve_triangular(chol[:t, :t], k, lower=True, check_finite=False)
                    novelty = K_train[i, i] - v @ v
                    project = novelty <= _RELATIVE_NOVELTY_FLOOR * K_train[i, i]
                if project:  # projected onto the basis: s = C k + K_B^{-1} k, no new row
                    s = Ck + scipy.linalg.solve_triangular(chol[:t, :t], v, lower=True, trans="T",
                                                           check_finite=False)
                    state.n_projected += 1
                else:
                    s = np.r_[Ck, 1.0]
                    chol_ok = chol_ok and t < len(chol)
                    if chol_ok:
                        chol[t, :t], chol[t, t] = v, np.sqrt(max(novelty, 0.0))
                        diagonal = np.diag(chol)[:t + 1]
                        chol_ok = diagonal.min() * _PROJECTION_MAX_DIAGONAL_RATIO > diagonal.max()
                    basis[t], position[i] = i, t
                    t += 1
            else:
                s = Ck
                s[position[i]] += 1.0
            alpha[:t] += q * s
            _rank_one_update(C, t, r, s, work)  # C[:t, :t] += r s s^T, in place
            state.z.append(float(z))
            state.n_presented += 1
            if track:
                f_train = K_eval[:, basis[:t]] @ alpha[:t]
                state.train_errors.append(int(np.sum(np.sign(f_train) != y)))
                if K_test is not None:
                    f_test = K_test[:, basis[:t]] @ alpha[:t]
                    state.test_errors.append(int(np.sum(np.sign(f_test) != y_test)))
            if state.n_presented in want:
                state.snapshots[state.n_presented] = (basis[:t].copy(), alpha[:t].copy())
    state.basis, state.alpha, state.C = basis[:t].copy(), alpha[:t].copy(), C[:t, :t].copy()
    state.log_evidence = log_Z
    return state
