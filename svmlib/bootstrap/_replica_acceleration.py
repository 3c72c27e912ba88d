r"""Accelerators of the replica fixed point: Newton-Krylov steps, Anderson mixing, rough plain steps.

They iterate the map F of :mod:`._replica_equations` (evaluated by :mod:`._replica_fast_map`)
to its fixed point, and test convergence as the plain iteration does; only the path there changes.
Plain iterations converge linearly (~30 at S = N); here they bring the iterate near the fixed
point, and inexact Newton steps finish (about four, instead of ~20 plain ones): the Jacobian of
the iteration is applied matrix-free with the G of the current iteration, the Newton system
solved by GMRES. Warm starts along a learning curve start from the previous cavities. A cold
start on a kernel of very low numerical rank first solves the fixed point on a low-rank surrogate
of K (:func:`_presolve`; issue 16: one positive among 999 points, 18 s -> 0.5 s). Each
accelerator is tested to reach the fixed point of :func:`iterate_replica`.

GMRES. The Newton systems and the implicit derivative are solved by scipy's
``scipy.sparse.linalg.gmres`` (no restart, matrix-free). A hand-written GMRES (Arnoldi with Givens
rotations on Python floats) saved scipy's ~0.1 ms of Python per Krylov vector and was removed in
issue 26: the readable module matters more than milliseconds. Measured before the removal by
benchmarks/replica_vs_mc.py (CPU time at S = N, median of 21 solves, one BLAS thread, load ~8 on
2 cores; benchmarks/results/replica_vs_mc.txt): scipy's costs crabs 10.6 -> 12.5 ms (+18 %),
biopsy 63 -> 65 ms (+3 %), Pima 105 -> 110 ms (+4 %); same iteration counts, same fixed points.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
from scipy.linalg import LinAlgError
from scipy.sparse.linalg import LinearOperator, gmres
from scipy.special import ndtr
from sklearn.exceptions import ConvergenceWarning

from .._threads import single_threaded
from ._replica_equations import COLD_START, _cavity_vector, _Gaussian, _site_parameters
from ._replica_fast_map import _evaluate, _g_diag_l_g, _gaussian_part, _rough_map, _scaled_step, _surrogate_map
from ._replica_solution import ReplicaSolution


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
# for the next damping (a cycling undamped iteration otherwise runs to max_iter). An improvement
# counts only if it at least halves (STALL_PROGRESS) the residual of the last one that counted: the
# undamped attempt of a pre-solve (1 positive among 999, second seed) ran 274 iterations in a 2-cycle
# whose low point crept down by ~1e-4 per lap; with this rule the whole pre-solve takes 77. The
# 24-case sweep of the book's data sets (three sets, two widths, S/N = 0.5-4) is unchanged.
STALL_ITER = 40
STALL_PROGRESS = 0.5
# Forcing term floor of the last Newton step: a linear residual FINAL_FORCING * tol / res suffices
# for the next residual to fall below tol; solving tighter cost up to 3x the Krylov vectors.
FINAL_FORCING = 0.01
# A Newton attempt that stalls with its best residual below ROUNDOFF_STALL * tol has reached
# the fixed point to within the round-off floor of the map: the damping only shapes the plain steps
# far from there, so the other dampings are not tried (they stall at the same floor). Measured: 1
# positive label among 999 (RBF, S = N) stalled at residual 3e-8 .. 2e-7 > tol = 1e-8 in absolute
# units (fields ~200); the three attempts took 235 iterations, 33 s, for the same answer. With the
# residual relative to the field's spread (_replica_equations._residual) that case converges; 5
# positives among 995 (site precisions 4e7, amplification 7e7) still stall at 5e-8.
ROUNDOFF_STALL = 100.0
# ... and an attempt whose residual has been below ROUNDOFF_STALL * tol for this many iterations
# without reaching tol stops (Newton takes 1-2 steps from there when no floor is in the way; at a
# floor the best residual keeps improving by chance, so STALL_ITER alone ran 129 iterations).
ROUNDOFF_PATIENCE = 10

# A cold start on a kernel of very low numerical rank first solves the fixed point on the tight
# low-rank surrogate of _replica_fast_map._surrogate_map (O(N r^2) per iteration) to this residual,
# then finishes on the exact map from there (see _presolve). The surrogate's own fixed point is
# ~1e-3 (cavity s.d.s / log units) from the exact one. Exact iterations after the pre-solve on 1, 1, 3
# positives among 999 and 1 among 499 (S = N): 3, 3, 5, 3 at 1e-3; 2, 2, 3, 2 at 1e-4 and at 1e-6.
PRESOLVE_TOL = 1e-4

# A plain step is taken with the rough map (_replica_fast_map) when its expected error
# error * amplification < SINGLE_SHARE * (previous step). With SINGLE_SHARE from 0.2 to 3 every
# case of a 24-case sweep took the same number of iterations (the double-precision steps near the
# fixed point remove what the rough ones leave); 1 lets crabs (S = N, broad kernel) take all its
# plain steps in single precision, 0.2 took two of eight in double.
SINGLE_SHARE = 1.0

# A Newton operator is reused at a later iterate x when |x - x_op| * res < REUSE_OPERATOR * tol
# (|.| as _scaled_step): the stale Jacobian adds an error ~ c |x - x_op| |step| to the next step.
# Measured c ~ 0.1 (biopsy, last step: |x - x_op| = 4e-3, step 3e-6, next step 1.2e-9 against
# 1.1e-8 for c = 1), so the next residual still falls below tol. In practice this is the last
# Newton step, which then saves building the operator (0.4 ms at N = 200, 2 ms at N = 449). Over
# the 24-case sweep REUSE_OPERATOR from 0.1 to 30 gave the same iteration counts; 1e3 added 7.
REUSE_OPERATOR = 10.0


# --------------------------------------------------------------------------- Anderson mixing
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



# --------------------------------------------------------------------------- Newton-Krylov
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
        shifted, _ = _site_parameters(y, points[:, :, 0], np.exp(points[:, :, 1]), chi_c, S_over_N)
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
    if M is None and G is None and part.W is not None:  # low-rank map: G = W W^T, M = W (W^T diag(l) W) W^T
        Wd = part.W.astype(dtype, copy=False)
        M = (Wd @ ((Wd * lam.astype(dtype)[:, None]).T @ Wd)) @ Wd.T
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
    """Solve A u = b (A given by ``matvec``) from u0 = 0 to a relative residual ``rtol`` by scipy's GMRES.

    At most ``max_dim`` Krylov vectors, no restart; returns the last iterate if ``rtol`` was not
    reached (an inexact Newton step only needs a direction).
    """
    n = b.size
    A = LinearOperator((n, n), matvec=matvec, dtype=np.float64)
    u, _ = gmres(A, b, rtol=rtol, atol=0.0, restart=min(max_dim, n), maxiter=1)
    return u


# --------------------------------------------------------------------------- the accelerated iteration
class _Best(NamedTuple):
    """The best iterate of an attempt: its residual, sites, Gaussian part and where it came from."""

    res: float
    sites: tuple
    gauss: _Gaussian
    it: int  # iteration number
    rough: bool  # evaluated with a rough map
    x: np.ndarray  # the cavity vector it was evaluated at
    index: int  # its entry in the history


def _attempt(K, y, S_over_N, x0, damping, tol, max_iter, anderson, newton, rough=None, surrogate=False):
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
    a rough evaluation never counts as converged. With ``surrogate`` every step, Newton's
    included, uses the ``rough`` map and converges on it: the fixed point of the surrogate
    (:func:`_presolve`).
    """
    x = x0
    acc = _Anderson(anderson) if (anderson and not newton) else None
    best, history = None, []
    prev, from_newton = None, False
    operator = None  # (the iterate it was built at, the Newton operator)
    use_rough = rough is not None
    n_rough = 0
    floor_it = None  # first iteration with best residual below ROUNDOFF_STALL * tol
    progress_res, progress_it = np.inf, 0  # the last improvement that counted (STALL_PROGRESS)
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
        if ev.res < tol and (surrogate or not ev.part.rough):
            return best, history, it, True, n_rough
        if best.res < STALL_PROGRESS * progress_res:
            progress_res, progress_it = best.res, it
        if it - progress_it > STALL_ITER:
            break
        if newton and best.res < ROUNDOFF_STALL * tol:  # Newton near the fixed point: a floor above tol
            floor_it = it if floor_it is None else floor_it
            if it - floor_it >= ROUNDOFF_PATIENCE:
                break
        if from_newton and ev.step > prev.step:  # Newton made things worse: plain step from before
            x, from_newton = prev.x + damping * prev.r, False
            continue
        prev = ev
        d = None
        near = ev.step < NEWTON_START or ev.res < NEWTON_START_RESIDUAL
        if near and not surrogate:  # from here on the exact map: the rough map's error (~1e-3) would stall it
            rough = None
        # The next plain step with the rough map only if its expected error is below the step's size.
        use_rough = rough is not None and (surrogate or rough.error * ev.part.amplification < SINGLE_SHARE * ev.step)
        if newton and near:
            # forcing term ~ step^2: quadratic convergence (Dembo et al.); over 18 cases 174 iterations
            # in total against 183 with min(0.1, step)
            stale = operator[1] if _operator_still_good(operator, ev, tol) else None
            d, matvec = _newton_direction(y, S_over_N, ev, max(min(0.1, ev.step**2), FINAL_FORCING * tol / ev.res),
                                          stale)
            if stale is None and (surrogate or not ev.part.rough):  # an operator from a rough G is not kept
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
        return _cavity_vector(_gaussian_part(K, *init).gauss)
    except (LinAlgError, ValueError):
        raise ValueError("The replica fixed point failed at the first step (the starting sites do not give a "
                         "valid Gaussian): check that K is a valid Gram matrix of distinct inputs.") from None


def _presolve(K, y, S_over_N, x0, surrogate, max_iter, dampings, anderson, newton):
    """Solve the fixed point for the low-rank surrogate of K: (cavity vector, converged, iterations, rough ones).

    Why (issue 16). Where K has a very low numerical rank the cold start (every point on its
    margin, V_c = chi_c = K_ii / 10) can be far from the fixed point, and the way there long. With
    one positive label among 999 (2-D Gaussian inputs, RBF l = sqrt(2)) the fixed point has ~5
    sites with q_i > 0.1 (the cold start puts all 1000 on their margins, sum q = 316 against 5 at the
    fixed point), site precisions up to 1e5 and cavity variances up to 7e3 (the hard-margin alphas
    reach 4e5): the undamped steps overshoot to precisions of 1e7 and cycle, the damped ones climb
    ~11 units of log V_c, and the rough map's error bound (amplification max K_ii / chi_i ~ 1e6)
    sends every step to the exact O(N^3) map -- 90 exact iterations. The same path on the
    surrogate costs O(N r^2) per step (r ~ 100), and its fixed point lies within a Newton step or
    two of the exact one.

    The surrogate's residual is that of the surrogate's own marginals. If no damping reaches
    PRESOLVE_TOL, the best iterate of all attempts (None if no evaluation was finite).
    """
    n_iter = n_rough = 0
    overall = None
    for damping in dampings:
        best, _, it, ok, rough_it = _attempt(K, y, S_over_N, x0, damping, PRESOLVE_TOL, max_iter, anderson, newton,
                                             surrogate, surrogate=True)
        n_iter += it
        n_rough += rough_it
        if ok:
            return _cavity_vector(best.gauss), True, n_iter, n_rough
        if best is not None and (overall is None or best.res < overall.res):
            overall = best
    return (None if overall is None else _cavity_vector(overall.gauss)), False, n_iter, n_rough


def _attempts(K, y, S_over_N, x0, tol, max_iter, dampings, anderson, newton, rough):
    """The dampings in turn from x0 until one converges: (best, history, damping) or None, iterations, rough
    ones, and whether a Newton attempt stalled at the round-off floor (ROUNDOFF_STALL)."""
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
        if newton and best is not None and best.res < ROUNDOFF_STALL * tol:  # a floor: other dampings stall there too
            return best_overall, n_total, n_total_rough, True
    return best_overall, n_total, n_total_rough, False


@single_threaded
def _solve(K, y, S_over_N, init, tol, max_iter, dampings, anderson, newton, rough_steps):
    x0 = _start(K, y, S_over_N, init)
    # A cold start's plain steps may use a rough map (see _gaussian_part); a warm start is
    # already near the fixed point, where the exact map is needed.
    rough = _rough_map(K) if (rough_steps and init is None) else None
    n_total = n_total_rough = 0
    best_overall = None
    surrogate = _surrogate_map(K) if (rough is not None and rough.kind == "low rank") else None
    if surrogate is not None:  # very low rank: the fixed point of the surrogate first, then the exact map from there
        x_pre, pre_ok, n_total, n_total_rough = _presolve(K, y, S_over_N, x0, surrogate, max_iter, dampings,
                                                          anderson, newton)
        if x_pre is not None:
            # On the exact map from the surrogate's fixed point or, if no damping converged there, from its best
            # iterate. 1 positive among 999 at S/N = 0.25, where the surrogate iteration does not converge: from
            # its best iterate the exact one converges (199 iterations, 2.2 s; 16.6 s and no convergence with
            # rough steps), from the cold start it did not (358 iterations, 6.8 s).
            best_overall, n_iter, n_rough, stalled_at_roundoff = _attempts(
                K, y, S_over_N, x_pre, tol, max_iter, dampings, anderson, newton, None)
            n_total += n_iter
            n_total_rough += n_rough
    if best_overall is None:  # the cold start (or the surrogate's best iterate gave no finite exact step)
        best_overall, n_iter, n_rough, stalled_at_roundoff = _attempts(K, y, S_over_N, x0, tol, max_iter, dampings,
                                                                       anderson, newton, rough)
        n_total += n_iter
        n_total_rough += n_rough
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
    if not converged and stalled_at_roundoff:
        warnings.warn(
            f"Replica fixed point at S/N = {S_over_N:g}: the residual stalled at {res:.2g}, below "
            f"{ROUNDOFF_STALL:g} x tol (tol = {tol:g}) but above tol, after {n_total} iterations (the round-off floor of the map "
            "for this N and data; other dampings would stall there too); returning the best iterate. "
            f"Pass tol={2 * res:.1g} to accept it without this warning.",
            ConvergenceWarning, stacklevel=3)
    elif not converged:
        warnings.warn(
            f"Replica fixed point at S/N = {S_over_N:g} did not converge (residual {res:.2g} > tol {tol:g} "
            f"after {n_total} iterations with dampings {tuple(dampings)}); returning the best iterate. "
            "Try a larger max_iter, a warm start from a nearby S/N, or smaller damping.",
            ConvergenceWarning, stacklevel=3)
    error = float(np.mean(ndtr(-y * gauss.m_c / np.sqrt(gauss.V_c))))
    return ReplicaSolution(S_over_N, *sites, gauss.m_c, gauss.V_c, gauss.chi_c, error, n_total,
                           bool(converged), float(res), float(damping), history, n_total_rough)

