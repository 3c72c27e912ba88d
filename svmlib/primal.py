r"""The linear soft-margin SVM in the primal, by subgradient descent.

The primal problem of chapter "primal" (eq. :eq:`(2.3) <primal-objective>`) is

.. math::

    J(w, b) = \tfrac12 \|w\|^2 + C \sum_{i=1}^n \max\{0,\, 1 - y_i (w \cdot x_i + b)\} .

The hinge loss has a kink at margin ``y f(x) = 1``, so ``J`` has no gradient
there; subgradient descent steps along minus *any* subgradient instead. This
module writes that algorithm out in full because the algorithm is the lesson:

* :func:`primal_objective` and :func:`hinge_subgradient` are the two formulas;
* :class:`PrimalSVC` runs the descent: full batch or stochastic mini-batches;
  step sizes ``'constant'``, ``'invsqrt'`` (``eta0 / sqrt(t)``),
  ``'pegasos'`` (``1 / (lambda k)``, Shalev-Shwartz et al. 2011) and
  ``'bottou'`` (``eta0 / (1 + eta0 lambda k)``: Pegasos' tail from a first step
  ``eta0`` instead of ``1 / lambda = C n``, Bottou 2012) with the
  optional projection onto the ball that holds the optimum; the bias either
  separate and unregularised (the textbook SVM, the same problem as the dual)
  or inside ``w`` as an extra constant feature (then it is regularised too);
* :meth:`PrimalSVC.iter_fit` yields every iterate, and :func:`primal_trace`
  returns them as arrays, so a figure can draw the trace.

Convergence is certified, not guessed: along the run the margin violators are
accumulated into dual multipliers whose dual objective (weak duality) is a
lower bound on ``min J``; the run stops when the relative gap between the best
objective and that bound is below ``tol`` (see :class:`PrimalSVC`, Notes).

Steps are taken on the per-sample objective (as in Pegasos)

.. math:: F(w, b) = J(w, b) / (C n) = \tfrac{\lambda}{2} \|w\|^2 + \tfrac1n \sum_i
          \max\{0, 1 - y_i f(x_i)\}, \qquad \lambda = \frac{1}{C n},

which has the same minimiser as ``J`` but makes a step size mean the same for
any ``C`` and ``n``. All reported objectives are ``J``.

Subgradient descent is **not** a descent method: a step along minus a
subgradient can increase ``J``. The estimator therefore keeps the best iterate
seen (``coef_``, ``intercept_``, ``objective_``) and reports the last one
separately.
"""

from __future__ import annotations

import numbers
import warnings
from typing import NamedTuple

import numpy as np
import scipy.linalg
import scipy.sparse.linalg
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning

from ._threads import blas_single_thread
from ._validation import (
    check_C,
    check_data,
    check_inputs,
    check_positive,
    check_positive_int,
    check_predict_inputs,
    check_random_state,
    set_feature_info,
)

__all__ = ["primal_objective", "hinge_subgradient", "huber_hinge", "PrimalIterate", "PrimalSVC", "PrimalTrace", "primal_trace"]

STEP_RULES = ("bottou", "constant", "invsqrt", "pegasos")
BIAS_MODES = ("separate", "augmented")
_CERTIFICATE_EVERY = 10  # epochs between duality-gap checks (each costs a few objective evaluations)
_MAX_FREE = 300  # largest on-margin set for which the dual guess is polished by least squares


# ---------------------------------------------------------------------------
# The two formulas
# ---------------------------------------------------------------------------
def _check_point(w, b, X, y, C):
    """Validate ``(w, b, X, y, C)`` for the objective and its subgradient."""
    X = check_inputs(X)
    try:
        w = np.asarray(w, dtype=float).reshape(-1)
        y = np.asarray(y, dtype=float).reshape(-1)
        b = float(b)
    except (TypeError, ValueError) as err:
        raise TypeError(f"w, b and y must be numbers or arrays of numbers: {err}") from None
    if w.shape != (X.shape[1],):
        raise ValueError(f"w must have one entry per feature ({X.shape[1]}), got {w.size}.")
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have one label per row of X ({X.shape[0]}), got {y.size}.")
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise ValueError("y must hold labels -1/+1 here; PrimalSVC maps any two labels for you.")
    if not (np.all(np.isfinite(w)) and np.isfinite(b)):
        raise ValueError("w and b must be finite.")
    return w, b, X, y, check_C(C)


def primal_objective(w, b, X, y, C, *, regularize_bias=False):
    r"""The primal soft-margin objective (eq. :eq:`(2.3) <primal-objective>`)

    .. math:: J(w, b) = \tfrac12 \|w\|^2 + C \sum_i \max\{0, 1 - y_i (w \cdot x_i + b)\} .

    Parameters
    ----------
    w : array of shape (n_features,)
    b : float
    X : array of shape (n_samples, n_features)
    y : array of shape (n_samples,), labels in {-1, +1}
    C : float > 0, may be ``inf`` (hard margin: ``J`` is ``inf`` unless every
        margin ``y_i f(x_i)`` is at least 1, and then it is ``|w|^2 / 2``).
    regularize_bias : bool, default=False
        Add ``b^2 / 2`` (the bias treated as one more weight on a constant feature).

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.primal import primal_objective
    >>> X = np.array([[1.0, 0.0], [-1.0, 0.0]])
    >>> y = np.array([1.0, -1.0])
    >>> print(primal_objective([1.0, 0.0], 0.0, X, y, C=1.0), primal_objective([0.5, 0.0], 0.0, X, y, C=1.0))
    0.5 1.125
    """
    w, b, X, y, C = _check_point(w, b, X, y, C)
    hinge_sum = np.maximum(0.0, 1.0 - y * (X @ w + b)).sum()
    regulariser = 0.5 * (w @ w + (b * b if regularize_bias else 0.0))
    if np.isinf(C):  # 0 * inf would be NaN: no violation means no penalty
        return regulariser if hinge_sum == 0 else np.inf
    return float(regulariser + C * hinge_sum)


def hinge_subgradient(w, b, X, y, C, *, regularize_bias=False):
    r"""One subgradient ``(g_w, g_b)`` of :func:`primal_objective` at ``(w, b)``.

    Implements eq. :eq:`(2.4) <soft-subgradient-def>` for the objective of eq.
    :eq:`(2.3) <primal-objective>`.

    .. math::

        g_w = w - C \sum_{i:\, y_i f(x_i) < 1} y_i x_i , \qquad
        g_b = [b] - C \sum_{i:\, y_i f(x_i) < 1} y_i ,

    (``[b]`` only with ``regularize_bias``). At a kink (margin exactly 1) any
    multiple in [0, 1] of the point's term is a valid subgradient; this
    function takes 0, i.e. points exactly on the margin count as satisfied.

    Returns
    -------
    g_w : ndarray of shape (n_features,)
    g_b : float

    Parameters
    ----------
    w : array_like of shape (n_features,)
        Weights.
    b : float
        Bias.
    X : array_like of shape (n_samples, n_features)
        Inputs.
    y : array_like of shape (n_samples,)
        Labels in {-1, +1}.
    C : float
        Finite penalty :math:`C > 0`.
    regularize_bias : bool, default False
        Include the :math:`b^2/2` term's derivative.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.primal import hinge_subgradient
    >>> X = np.array([[1.0, 0.0], [-1.0, 0.0]])
    >>> y = np.array([1.0, -1.0])
    >>> g_w, g_b = hinge_subgradient([0.5, 0.0], 0.0, X, y, C=1.0)
    >>> print(g_w, g_b)
    [-1.5  0. ] 0.0
    """
    w, b, X, y, C = _check_point(w, b, X, y, C)
    if np.isinf(C):
        raise ValueError("The subgradient needs a finite C; give a large finite C for a hard margin.")
    violated = y * (X @ w + b) < 1.0
    g_w = w - C * (y[violated] @ X[violated])
    g_b = (b if regularize_bias else 0.0) - C * y[violated].sum()
    return g_w, float(g_b)


# ---------------------------------------------------------------------------
# The iterates
# ---------------------------------------------------------------------------
class PrimalIterate(NamedTuple):
    r"""The state after ``epoch`` passes over the data (``epoch = 0``: the start, w = 0, b = 0).

    An iterate of eq. :eq:`(2.6) <soft-sgd-update>`.

    Parameters
    ----------
    epoch, step, coef, intercept, objective, dual_bound
        The fields below.

    Attributes
    ----------
    epoch : int
        Passes over the data so far.
    step : int
        Subgradient steps so far (equal to ``epoch`` for full batch).
    coef : ndarray of shape (n_features,)
        :math:`w`.
    intercept : float
        :math:`b`.
    objective : float
        :math:`J(w, b)` on the whole training set (eq. :eq:`(2.3) <primal-objective>`).
    dual_bound : float
        A lower bound on :math:`\min J` (``-inf`` if not computed).

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.primal import PrimalIterate
    >>> it = PrimalIterate(epoch=0, step=0, coef=np.zeros(2), intercept=0.0, objective=20.0, dual_bound=-np.inf)
    >>> print(it.epoch, it.objective)
    0 20.0
    """

    epoch: int
    step: int  # number of subgradient steps taken so far (= epoch for full batch)
    coef: np.ndarray  # w, shape (n_features,)
    intercept: float  # b
    objective: float  # J(w, b) on the whole training set
    dual_bound: float  # a lower bound on min J (see PrimalSVC, "Convergence"); -inf if not computed


def _per_sample_subgradient(w, b, Xb, yb, lam, regularize_bias):
    """Subgradient of F = J / (C n) estimated on the mini-batch ``(Xb, yb)``.

    Unbiased: its mean over random batches is the full-batch subgradient of F,
    i.e. :func:`hinge_subgradient` divided by ``C n``. Also returns the mask of
    the batch's margin violators (they feed the dual certificate).
    """
    violated = yb * (Xb @ w + b) < 1.0
    scale = 1.0 / yb.shape[0]
    g_w = lam * w - scale * (yb[violated] @ Xb[violated])
    g_b = (lam * b if regularize_bias else 0.0) - scale * yb[violated].sum()
    return g_w, g_b, violated


def _objective(w, b, X, y, C, regularize_bias):
    """J(w, b) and the margins ``y_i f(x_i)``, without re-validating (the solver's inner loop)."""
    margins = y * (X @ w + b)
    hinge = np.maximum(0.0, 1.0 - margins)
    return 0.5 * (w @ w + (b * b if regularize_bias else 0.0)) + C * hinge.sum(), margins


def _dual_value(a, X, y, C, regularize_bias):
    r"""Dual objective at multipliers ``a``, made feasible first.

    Weak duality: for any ``a`` with ``0 <= a_i <= C`` (and ``sum_i a_i y_i = 0``
    when the bias is separate), ``min J >= sum_i a_i - |sum_i a_i y_i x_i|^2 / 2``
    (minus ``(sum_i a_i y_i)^2 / 2`` when the bias is augmented: its feature is 1).
    ``a`` is clipped to the box and the equality constraint is met by shrinking
    the multipliers of the class with the larger total (which stays in the box).
    """
    a = np.clip(a, 0.0, C)
    if not regularize_bias:
        pos, neg = a[y > 0].sum(), a[y < 0].sum()
        if pos > neg:
            a = np.where(y > 0, a * (neg / pos), a)
        elif neg > pos:
            a = np.where(y < 0, a * (pos / neg), a)
    v = X.T @ (a * y)
    value = a.sum() - 0.5 * (v @ v)
    if regularize_bias:
        value -= 0.5 * (a @ y) ** 2
    return float(value)


def _polished_multipliers(margins, X, y, C, regularize_bias, delta):
    """Dual multipliers guessed from the margins of an iterate (complementary slackness).

    Points with margin < 1 - delta get ``C``, points with margin > 1 + delta get
    0, and the few on the margin solve the dual restricted to them (a small
    equality-constrained least-squares problem). Near the optimum this is the
    dual solution itself, so the bound becomes as tight as the primal iterate.
    """
    a = np.where(margins < 1.0 - delta, C, 0.0)
    free = np.flatnonzero(np.abs(margins - 1.0) <= delta)
    if free.size == 0 or free.size > _MAX_FREE:
        return a
    Xa = np.column_stack([X, np.ones(len(y))]) if regularize_bias else X
    Z = Xa[free] * y[free, None]
    v0 = Xa.T @ (a * y)
    # maximise sum(a_F) - |v0 + Z^T a_F|^2 / 2 (s.t. y_F . a_F = -y . a when the bias is separate)
    if regularize_bias:
        lhs, rhs = Z @ Z.T, 1.0 - Z @ v0
    else:
        k = free.size
        lhs = np.zeros((k + 1, k + 1))
        lhs[:k, :k], lhs[:k, k], lhs[k, :k] = Z @ Z.T, y[free], y[free]
        rhs = np.r_[1.0 - Z @ v0, -(a @ y)]
    if not (np.all(np.isfinite(lhs)) and np.all(np.isfinite(rhs))):
        return a  # inputs so large that Z Z' overflows: no polishing (the bound stays valid)
    try:
        a[free] = np.linalg.lstsq(lhs, rhs, rcond=None)[0][: free.size]
    except np.linalg.LinAlgError:  # the SVD did not converge (badly scaled inputs)
        pass
    return a


def _dual_bound(alpha, margins, X, y, C, regularize_bias):
    """Best weak-duality lower bound on ``min J`` from a few dual candidates.

    Candidates: the multipliers accumulated along the run (converge like 1/t,
    so on their own the bound is loose) and the multipliers read off the
    current iterate's margins for a few thresholds. Every candidate is made
    feasible, so the maximum is a valid lower bound whatever the guesses.
    """
    best = _dual_value(C * alpha, X, y, C, regularize_bias)
    for delta in (1e-1, 1e-2, 1e-3):
        guess = _polished_multipliers(margins, X, y, C, regularize_bias, delta)
        best = max(best, _dual_value(guess, X, y, C, regularize_bias))
    return best


# ---------------------------------------------------------------------------
# The primal Newton solver (Chapelle 2007): the hinge through a Huber smoothing
# ---------------------------------------------------------------------------
SOLVERS = ("auto", "subgradient", "newton")
#: ``solver="auto"`` runs Newton from this many training points on (subgradient below:
#: the chapter's lesson, and on a few hundred points it is fast enough).
AUTO_NEWTON_MIN_SAMPLES = 5000
_H_START = 2.0  # first smoothing width: every margin of w = 0 lies in the quadratic zone
_H_SHRINK = 0.1  # the width is divided by 10 until the certified gap is below tol
_H_MIN = 1e-10
_MAX_NEWTON_STEPS = 50  # Newton steps per smoothing width (it takes 2-10)


def huber_hinge(z, h):
    r"""The Huber-smoothed hinge ``L_h(z)`` and its derivative (Chapelle 2007, eq. 19).

    Implements eq. :eq:`(2.10) <soft-huber>`.

    .. math::

        L_h(z) = \begin{cases} 0 & z > 1 + h \\ (1 + h - z)^2 / (4h) & |1 - z| \le h \\
        1 - z & z < 1 - h \end{cases}

    It equals the hinge outside ``|1 - z| <= h`` and lies above it by at most ``h / 4``.

    Parameters
    ----------
    z : ndarray
        Margins ``y_i f(x_i)``.
    h : float > 0
        Half-width of the quadratic zone.

    Returns
    -------
    loss, dloss : ndarray
        ``L_h(z)`` and ``L_h'(z)`` (in ``[-1, 0]``).

    Examples
    --------
    >>> import numpy as np
    >>> loss, dloss = huber_hinge(np.array([-1.0, 1.0, 3.0]), 0.5)
    >>> loss.tolist(), dloss.tolist()
    ([2.0, 0.125, 0.0], [-1.0, -0.5, 0.0])
    """
    z = np.asarray(z, dtype=float)
    u = np.clip(1.0 + h - z, 0.0, 2.0 * h)  # 0 right of the zone, 2h left of it
    loss = np.where(z < 1.0 - h, 1.0 - z, u * u / (4.0 * h))
    dloss = u / (-2.0 * h) + 0.0  # (+ 0.0: no negative zeros)
    return loss, dloss


def _huber_objective(theta, Xa, y, C, reg, h):
    """J_h(theta) = theta' R theta / 2 + C sum L_h(y Xa theta), its gradient and the margins."""
    z = y * (Xa @ theta)
    loss, dloss = huber_hinge(z, h)
    value = 0.5 * float(theta @ (reg * theta)) + C * float(loss.sum())
    grad = reg * theta + C * (Xa.T @ (y * dloss))
    return value, grad, z


def _line_search(theta, d, Xa, y, C, reg, h, z):
    """Exact minimiser t of the convex piecewise quadratic J_h(theta + t d), by safeguarded Newton."""
    zd = y * (Xa @ d)
    a0, a1 = float(theta @ (reg * d)), float(d @ (reg * d))

    def slope(t):
        zt = z + t * zd
        u = np.clip(1.0 + h - zt, 0.0, 2.0 * h)
        quad = (u > 0.0) & (u < 2.0 * h)
        return a0 + t * a1 - C / (2.0 * h) * float(u @ zd), a1 + C / (2.0 * h) * float(zd[quad] @ zd[quad])

    s0 = slope(0.0)[0]
    lo, hi, t = 0.0, np.inf, 1.0
    for _ in range(60):
        g, curv = slope(t)
        if abs(g) <= 1e-12 * abs(s0) or hi - lo <= 1e-15 * max(t, 1.0):
            break
        if g > 0:
            hi = t
        else:
            lo = t
        step = t - g / curv if curv > 0 else np.nan
        t = step if lo < step < hi else (2.0 * t if np.isinf(hi) else 0.5 * (lo + hi))
    return t


def _newton_hinge(X, y, C, regularize_bias, tol):
    """Minimise the hinge objective J by Newton's method on Huber smoothings of shrinking width.

    Returns ``(w, b, objective, dual_bound, n_steps, converged)``. The run ends when the
    relative duality gap ``(J(w, b) - D(alpha)) / J(w, b)`` is at most ``tol``, with the dual
    multipliers ``alpha_i = -C L_h'(y_i f(x_i))`` (in ``[0, C]``, made feasible by
    :func:`_dual_value`): a certificate for the hinge problem itself, not for its smoothing.
    """
    from scipy.linalg import LinAlgError, cho_factor, cho_solve

    n, d = X.shape
    Xa = np.column_stack([X, np.ones(n)])
    reg = np.ones(d + 1)
    reg[d] = 1.0 if regularize_bias else 0.0
    theta = np.zeros(d + 1)
    h, steps = _H_START, 0
    best = (np.inf, theta, -np.inf)
    scale = float(np.abs(X).max(initial=0.0))
    if scale > 1e100:
        raise ValueError(f"The inputs are too large for the Newton solver (max |x| = {scale:.3g}: "
                         "X'X overflows double precision). Standardise X "
                         "(sklearn.preprocessing.StandardScaler).")
    while True:
        value, grad, z = _huber_objective(theta, Xa, y, C, reg, h)
        for _ in range(_MAX_NEWTON_STEPS):
            quad = np.abs(1.0 - z) <= h
            Xq = Xa[quad]
            H = (C / (2.0 * h)) * (Xq.T @ Xq)
            H[np.diag_indices_from(H)] += reg + 1e-12 * max(1.0, float(H.diagonal().max(initial=0.0)))
            try:
                direction = -cho_solve(cho_factor(H, check_finite=True), grad)
            except (LinAlgError, ValueError):
                raise ValueError("The Newton system is not finite or not positive definite; the inputs "
                                 "are badly scaled. Standardise X (sklearn.preprocessing.StandardScaler).") from None
            decrement = -float(grad @ direction)
            t = _line_search(theta, direction, Xa, y, C, reg, h, z)
            theta = theta + t * direction
            steps += 1
            new_value, grad, z_new = _huber_objective(theta, Xa, y, C, reg, h)
            same_sets = np.array_equal(np.abs(1.0 - z_new) <= h, quad) and np.array_equal(z_new < 1 - h, z < 1 - h)
            z, value_old, value = z_new, value, new_value
            if decrement <= 1e-12 * max(value, 1e-300) or (same_sets and abs(t - 1.0) < 1e-9) \
                    or value_old - value <= 1e-15 * value:
                break
        # the certificate, on the hinge problem
        margins = z
        primal = 0.5 * float(theta @ (reg * theta)) + C * float(np.maximum(0.0, 1.0 - margins).sum())
        alpha = -C * huber_hinge(margins, h)[1]
        bound = _dual_value(alpha, X, y, C, regularize_bias)
        if primal < best[0]:
            best = (primal, theta.copy(), best[2])
        best = (best[0], best[1], max(best[2], bound))
        if best[0] - best[2] <= tol * best[0] or h <= _H_MIN:
            break
        h *= _H_SHRINK
    primal, theta, bound = best
    converged = primal - bound <= tol * primal
    return theta[:d].copy(), float(theta[d]), primal, bound, steps, converged


def _curvature_step(X, lam, batch_size=None):
    r"""The first step ``1 / L`` of the ``'bottou'`` step rule of :class:`PrimalSVC`.

    ``L`` bounds the curvature of the squared-hinge version of the per-sample
    objective ``F`` on one step's data, with ``x~ = (x, 1)`` (the bias moves too):
    ``lambda + eigmax(X~' X~) / n`` for a full batch, ``lambda + max_i |x~_i|^2``
    for a mini-batch of any size (the mean of ``x~ x~'`` over a batch is at most
    its largest term). ``1 / L`` is gradient descent's step on that smooth
    problem.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    lam : float > 0
        ``1 / (C n)``.
    batch_size : int or None, default=None
        ``None`` for full batches.

    Returns
    -------
    float

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    >>> round(_curvature_step(X, 0.25), 6)  # eigmax of X~'X~/4 is 1: 1 / (0.25 + 1)
    0.8
    >>> round(_curvature_step(X, 0.25, batch_size=1), 6)  # |x~_i|^2 = 2: 1 / 2.25
    0.444444
    """
    n, d = X.shape
    with np.errstate(over="ignore", invalid="ignore"):
        if batch_size is not None and batch_size < n:
            curvature = float(np.max(np.einsum("ij,ij->i", X, X))) + 1.0
        else:
            Xa = np.hstack([X, np.ones((n, 1))])
            if not np.all(np.isfinite(Xa @ Xa[0])):
                curvature = np.inf
            elif d + 1 <= 1000:  # the (d+1)-square Gram matrix is small: its top eigenvalue exactly
                curvature = float(scipy.linalg.eigvalsh(Xa.T @ Xa, subset_by_index=[d, d])[0]) / n
            else:  # wide data: the top singular value by Lanczos, without forming X~'X~
                sigma = scipy.sparse.linalg.svds(Xa, k=1, return_singular_vectors=False, v0=np.ones(min(n, d + 1)))[0]
                curvature = float(sigma) ** 2 / n
    if not np.isfinite(curvature):
        raise ValueError("The inputs are too large for double precision (|x|^2 overflows). "
                         "Standardise X (sklearn.preprocessing.StandardScaler).")
    return 1.0 / (lam + curvature)


# ---------------------------------------------------------------------------
# The estimator
# ---------------------------------------------------------------------------
class PrimalSVC(ClassifierMixin, BaseEstimator):
    r"""Linear soft-margin SVM trained in the primal by subgradient descent.

    Minimises :func:`primal_objective` ``J(w, b)`` (eq. :eq:`(2.3) <primal-objective>`) with
    the update ``(w, b) <- (w, b) - eta_k g_k`` where ``g_k`` is a subgradient
    of the per-sample objective ``F = J / (C n)`` on the whole set (full batch)
    or on a random mini-batch (stochastic).

    Parameters
    ----------
    C : float > 0, default=1.0
        Penalty on margin violations. Must be finite: subgradient descent has no
        hard-margin mode. On separable data the soft-margin solution *is* the
        hard-margin one as soon as ``C`` exceeds the largest Lagrange multiplier
        of the hard-margin problem, so a large finite ``C`` gives it exactly.
    step : {'bottou', 'pegasos', 'invsqrt', 'constant'}, default='bottou'
        Step size at step ``k = 1, 2, ...``, with ``lambda = 1 / (C n)``:

        * ``'pegasos'``: ``1 / (lambda k)`` (Shalev-Shwartz et al. 2011; ``eta0`` is
          not used). Its first step is ``C n``: on a large data set it throws ``w``
          to the edge of the projection ball and the objective up by orders of
          magnitude before the steps have shrunk, so it needs about ``n``
          full-batch epochs.
        * ``'bottou'``: ``eta0 / (1 + eta0 lambda k)`` (Bottou 2012, "Stochastic
          gradient descent tricks"; scikit-learn's ``SGDClassifier`` uses it):
          the same ``1 / (lambda k)`` tail, from a first step ``eta0``.
        * ``'invsqrt'``: ``eta0 / sqrt(t)``; ``'constant'``: ``eta0``. A constant
          step does not converge to the minimum: it ends in a neighbourhood of
          size proportional to ``eta0``.
    eta0 : float > 0 or None, default=None
        First step size of ``'bottou'``, ``'invsqrt'`` and ``'constant'``.
        ``None``: ``1.0`` for ``'invsqrt'`` and ``'constant'``; for ``'bottou'``
        ``1 / L``, where ``L`` bounds the curvature of the squared-hinge version
        of ``F`` on one step's data (``lambda`` plus the top eigenvalue of
        ``X~' X~ / n`` for full batches, plus ``max_i |x~_i|^2`` for mini-batches;
        ``x~ = (x, 1)``): the step gradient descent would take on that smooth
        problem, which keeps the first steps from overshooting. ``'constant'`` and ``'invsqrt'`` need
        ``eta0 * lambda < 2`` (else the shrinkage ``w <- (1 - eta lambda) w``
        would blow up); ``'bottou'`` is safe for every ``eta0``.
    batch_size : int or None, default=None
        ``None``: full batch, one step per epoch. An integer: stochastic
        mini-batches of that size drawn without replacement from a fresh
        shuffle each epoch (clipped to ``n``).
    max_epochs : int, default=5000
        Passes over the data.
    bias : {'separate', 'augmented'}, default='separate'
        ``'separate'``: ``b`` is its own unregularised parameter (the textbook
        SVM; same solution as the dual). ``'augmented'``: ``x`` gets a constant
        feature 1 and ``b`` is its weight, so ``b^2 / 2`` is regularised too
        (the tutorial's ``w = [b, w_1, ..., w_D]``; a different problem).
    projection : bool, default=True
        After each step project ``w`` (and ``b`` when it is augmented) onto the
        ball of radius ``1 / sqrt(lambda)``, which contains the optimum
        (Pegasos' optional projection step). It never moves the iterate away
        from the optimum and tames the large early Pegasos steps.
    tol : float >= 0 or None, default=1e-4
        Stop when the relative duality gap ``(J(best) - bound) / J(best)`` is at
        most ``tol`` (see Convergence). ``None``: run exactly ``max_epochs``
        epochs (``converged_`` is then False and no warning is given).
    random_state : int, numpy RandomState, numpy Generator or None
        Seeds the mini-batch shuffles (full batch is deterministic).
    solver : {'auto', 'subgradient', 'newton'}, default='auto'
        ``'subgradient'``: the descent above (the chapter's lesson; ``step``, ``eta0``,
        ``batch_size``, ``projection`` and ``max_epochs`` apply to it only).
        ``'newton'``: the primal Newton method of Chapelle (2007) on Huber smoothings
        ``L_h`` of the hinge (:func:`huber_hinge`) whose width ``h`` shrinks tenfold
        (from 2) until the certified relative duality gap of the *hinge* problem is
        below ``tol``; each Newton step solves a ``(d + 1)``-square system (scipy's
        Cholesky) and an exact line search, so a run costs a few dozen passes over
        the data. ``'auto'``: Newton from ``AUTO_NEWTON_MIN_SAMPLES`` (5,000)
        training points on, subgradient descent below.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        The best ``w`` seen (lowest ``J``; not necessarily the last iterate).
    intercept_ : ndarray of shape (1,)
        The ``b`` of the best iterate.
    objective_ : float
        ``J`` at the best iterate.
    best_epoch_ : int
        Epoch of the best iterate.
    last_coef_, last_intercept_ : the final iterate.
    objective_history_ : ndarray of shape (n_iter_ + 1,)
        ``J`` at the start and after each epoch (not monotone!).
    dual_bound_ : float
        The best lower bound on ``min J`` found; ``objective_ - dual_bound_``
        bounds how far ``objective_`` is from the minimum.
    duality_gap_ : float
        ``(objective_ - dual_bound_) / objective_``, the relative gap.
    n_iter_ : int
        Epochs run.
    n_steps_ : int
        Subgradient steps taken (``n_iter_`` times the batches per epoch).
    converged_ : bool
        Whether ``duality_gap_ <= tol`` was reached within ``max_epochs``.
    classes_ : ndarray of shape (2,)
        Original labels; ``classes_[0]`` is the class -1, ``classes_[1]`` is +1.
    n_features_in_ : int

    Notes
    -----
    **Convergence.** A subgradient method has no gradient that vanishes at the
    optimum, and a stalled objective proves nothing. The stopping rule is a
    certificate instead: each step's margin violators are accumulated into
    multipliers ``alpha_i`` with the same decay ``1 - eta_k lambda`` as ``w``
    (for full-batch Pegasos ``alpha_i`` is just the fraction of steps in which
    point ``i`` violated its margin, and then ``w = sum_i C alpha_i y_i x_i``
    exactly). Made feasible for the dual, they give by weak duality a lower
    bound on ``min J``; when the gap to the best objective is below ``tol``
    the best iterate is provably within ``tol`` (relative) of the minimum.

    Examples
    --------
    >>> from svmlib.datasets import make_blobs2d
    >>> X, y = make_blobs2d(40, separation=4.0, random_state=0)
    >>> clf = PrimalSVC(C=1.0).fit(X, y)
    >>> clf.converged_, clf.duality_gap_ <= 1e-4, clf.score(X, y) > 0.9
    (True, True, True)
    """

    def __init__(self, C=1.0, step="bottou", eta0=None, batch_size=None, max_epochs=5000,
                 bias="separate", projection=True, tol=1e-4, random_state=None, solver="auto"):
        self.C = C
        self.step = step
        self.eta0 = eta0
        self.batch_size = batch_size
        self.max_epochs = max_epochs
        self.bias = bias
        self.projection = projection
        self.tol = tol
        self.random_state = random_state
        self.solver = solver

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False  # an SVM separates two classes
        return tags

    # -- parameters ----------------------------------------------------------
    def _checked_params(self, n):
        """Validate the hyperparameters for a training set of ``n`` samples."""
        if isinstance(self.C, numbers.Real) and not isinstance(self.C, bool) and np.isinf(self.C):
            raise ValueError(
                "PrimalSVC needs a finite C: subgradient descent has no hard-margin mode. "
                "On separable data a large finite C (above the largest multiplier) gives the "
                "hard-margin solution; or use svmlib.dual.DualSVC(C=np.inf)."
            )
        C = check_C(self.C, allow_inf=False)
        for name, value, options in (("step", self.step, STEP_RULES), ("bias", self.bias, BIAS_MODES)):
            if not isinstance(value, str) or value not in options:
                raise ValueError(f"{name} must be one of {options}, got {value!r}.")
        lam = 1.0 / (C * n)
        eta0 = None if self.eta0 is None else check_positive(self.eta0, "eta0")
        if self.step in ("constant", "invsqrt") and eta0 is not None and eta0 * lam >= 2.0:
            raise ValueError(
                f"eta0 * lambda = {eta0 * lam:.3g} >= 2 (lambda = 1/(C n) = {lam:.3g}): the "
                f"iterates would diverge. Use eta0 < {2.0 / lam:.3g}, a larger C, or step='bottou'."
            )
        batch = None if self.batch_size is None else min(check_positive_int(self.batch_size, "batch_size"), n)
        max_epochs = check_positive_int(self.max_epochs, "max_epochs")
        tol = None if self.tol is None else check_positive(self.tol, "tol", allow_zero=True)
        if not isinstance(self.projection, (bool, np.bool_)):
            raise TypeError(f"projection must be True or False, got {self.projection!r}.")
        return C, lam, eta0, batch, max_epochs, tol

    def _resolved_solver(self, n):
        if not isinstance(self.solver, str) or self.solver not in SOLVERS:
            raise ValueError(f"solver must be one of {SOLVERS}, got {self.solver!r}.")
        if self.solver == "auto":
            return "newton" if n >= AUTO_NEWTON_MIN_SAMPLES else "subgradient"
        return self.solver

    def _fit_newton(self, X, y_pm, classes, params):
        """Fit with :func:`_newton_hinge`; the attributes mean what they mean for the descent."""
        C, tol = params[0], params[5]
        with blas_single_thread():
            w, b, objective, bound, steps, converged = _newton_hinge(
                X, y_pm, C, self.bias == "augmented", 1e-12 if tol is None else tol)
        self.classes_ = classes
        self.coef_ = self.last_coef_ = w[None, :]
        self.intercept_ = self.last_intercept_ = np.array([b])
        self.objective_ = objective
        self.best_epoch_ = self.n_iter_ = self.n_steps_ = steps  # Newton steps
        self.objective_history_ = np.array([C * X.shape[0], objective])  # J(0) = C n, then the result
        self.dual_bound_ = max(bound, 0.0)
        self.duality_gap_ = (objective - self.dual_bound_) / objective if objective > 0 else 0.0
        self.converged_ = bool(converged) if tol is not None else False
        if tol is not None and not converged:
            warnings.warn(f"PrimalSVC(solver='newton') ended with relative duality gap "
                          f"{self.duality_gap_:.2g} > tol={tol:g}; standardise X or raise tol.",
                          ConvergenceWarning, stacklevel=3)
        return self

    def _rng(self):
        """A RandomState or Generator (both have ``permutation``) for the mini-batch shuffles."""
        if isinstance(self.random_state, np.random.Generator):
            return self.random_state  # used as given: it advances, as a Generator should
        return check_random_state(self.random_state)

    def _step_size(self, t, lam, eta0):
        """eta_k for step ``k = 1, 2, ...``."""
        if self.step == "pegasos":
            return 1.0 / (lam * t)
        if self.step == "bottou":
            return eta0 / (1.0 + eta0 * lam * t)
        if self.step == "invsqrt":
            return eta0 / np.sqrt(t)
        return eta0

    def _prepare(self, X, y):
        X, y_pm, classes = check_data(X, y)
        C, lam, eta0, batch, max_epochs, tol = self._checked_params(X.shape[0])
        if eta0 is None:
            eta0 = _curvature_step(X, lam, batch) if self.step == "bottou" else 1.0
        return X, y_pm, classes, (C, lam, eta0, batch, max_epochs, tol)

    # -- the algorithm -------------------------------------------------------
    def iter_fit(self, X, y):
        """Validate, then return a generator of :class:`PrimalIterate` (one per epoch).

        The generator runs ``max_epochs`` epochs and ignores ``tol``; :meth:`fit`
        consumes it and applies the stopping rule. A figure can draw the trace::

            trace = list(itertools.islice(PrimalSVC(step="constant").iter_fit(X, y), 100))

        Labels may be any two classes; they are mapped to -1/+1 (the smaller -> -1).
        """
        X, y_pm, _, params = self._prepare(X, y)
        return self._iterates(X, y_pm, *params[:5])

    def _iterates(self, X, y, C, lam, eta0, batch, max_epochs):
        n, d = X.shape
        regularize_bias = self.bias == "augmented"
        rng = self._rng()
        radius = 1.0 / np.sqrt(lam)  # |w*| <= 1/sqrt(lambda) (Pegasos, via strong duality)
        step_batch = n if batch is None else batch
        w, b, t = np.zeros(d), 0.0, 0
        alpha = np.zeros(n)  # multipliers in units of C, for the dual certificate
        with np.errstate(over="ignore", invalid="ignore"):
            yield PrimalIterate(0, 0, w.copy(), b, _objective(w, b, X, y, C, regularize_bias)[0], 0.0)
            for epoch in range(1, max_epochs + 1):
                order = np.arange(n) if batch is None else rng.permutation(n)
                for start in range(0, n, step_batch):
                    idx = order[start:start + step_batch]
                    t += 1
                    eta = self._step_size(t, lam, eta0)
                    g_w, g_b, violated = _per_sample_subgradient(w, b, X[idx], y[idx], lam, regularize_bias)
                    w = w - eta * g_w
                    b = b - eta * g_b
                    # w = (1/(lambda n)) sum_i alpha_i y_i x_i is kept by the same update:
                    alpha *= 1.0 - eta * lam
                    alpha[idx[violated]] += eta * lam * n / idx.size
                    if self.projection:
                        norm = np.sqrt(w @ w + (b * b if regularize_bias else 0.0))
                        if norm > radius:
                            shrink = radius / norm
                            w, alpha = w * shrink, alpha * shrink
                            b = b * shrink if regularize_bias else b
                objective, margins = _objective(w, b, X, y, C, regularize_bias)
                if not np.isfinite(objective):
                    raise ValueError(
                        f"The objective overflowed at epoch {epoch}; the inputs are too large "
                        "for double precision. Standardise X (sklearn.preprocessing.StandardScaler)."
                    )
                bound = -np.inf  # not computed at this epoch
                if epoch % _CERTIFICATE_EVERY == 0 or epoch == max_epochs:
                    bound = _dual_bound(alpha, margins, X, y, C, regularize_bias)
                yield PrimalIterate(epoch, t, w.copy(), float(b), float(objective), bound)

    def fit(self, X, y):
        """Run subgradient descent; keep the best iterate. Returns ``self``."""
        X_raw = X
        X, y_pm, classes, params = self._prepare(X, y)
        set_feature_info(self, X_raw)  # n_features_in_, and feature_names_in_ for a DataFrame
        if self._resolved_solver(X.shape[0]) == "newton":
            return self._fit_newton(X, y_pm, classes, params)
        max_epochs, tol = params[4:]
        history, best, last, bound = [], None, None, 0.0  # J >= 0, so 0 is a valid bound
        self.converged_ = False
        for it in self._iterates(X, y_pm, *params[:5]):
            last = it
            history.append(it.objective)
            bound = max(bound, it.dual_bound)
            if best is None or it.objective < best.objective:
                best = it
            if tol is not None and best.objective - bound <= tol * best.objective:
                self.converged_ = True
                break
        self.classes_ = classes
        self.coef_ = best.coef[None, :]
        self.intercept_ = np.array([best.intercept])
        self.objective_ = best.objective
        self.best_epoch_ = best.epoch
        self.last_coef_ = last.coef[None, :]
        self.last_intercept_ = np.array([last.intercept])
        self.objective_history_ = np.array(history)
        self.dual_bound_ = bound
        self.duality_gap_ = (best.objective - bound) / best.objective if best.objective > 0 else 0.0
        self.n_iter_ = last.epoch
        self.n_steps_ = last.step
        if tol is not None and not self.converged_:
            warnings.warn(
                f"PrimalSVC did not converge in max_epochs={max_epochs} epochs: the relative "
                f"duality gap is {self.duality_gap_:.2g} > tol={tol:g}. Standardise X (features on "
                "very different scales stall every step rule), use solver='newton' (a few passes "
                "over the data, certified), or increase max_epochs.",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    # -- prediction ----------------------------------------------------------
    def decision_function(self, X):
        """``f(x) = w . x + b`` for each row of ``X``."""
        X = check_predict_inputs(self, X)  # fitted, finite, same features (names and order) as in fit
        return X @ self.coef_[0] + self.intercept_[0]

    def predict(self, X):
        """Class labels: ``classes_[1]`` where ``f(x) > 0``, else ``classes_[0]``."""
        positive = self.decision_function(X) > 0  # checks fitted-ness first
        return self.classes_[positive.astype(int)]


# ---------------------------------------------------------------------------
# A trace for figures
# ---------------------------------------------------------------------------
class PrimalTrace(NamedTuple):
    r"""The whole run as arrays (row ``k`` = after ``k`` epochs), for drawing.

    The iterates of eqs. :eq:`(2.6) <soft-sgd-update>` / :eq:`(2.8) <soft-pegasos>`, epoch by epoch.

    Parameters
    ----------
    coefs, intercepts, objectives, best_objectives, dual_bounds, best_epoch, classes
        The fields below (a record returned by :func:`primal_trace`).

    Attributes
    ----------
    coefs : ndarray of shape (n_epochs + 1, n_features)
        :math:`w` after each epoch.
    intercepts : ndarray of shape (n_epochs + 1,)
        :math:`b` after each epoch.
    objectives : ndarray of shape (n_epochs + 1,)
        :math:`J` per epoch (not monotone).
    best_objectives : ndarray of shape (n_epochs + 1,)
        Running minimum of :math:`J`.
    dual_bounds : ndarray of shape (n_epochs + 1,)
        Running best lower bound on :math:`\min J`.
    best_epoch : int
        Epoch of the lowest :math:`J`.
    classes : ndarray of shape (2,)
        Original labels.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.datasets import make_blobs2d
    >>> X, y = make_blobs2d(20, separation=4.0, random_state=0)
    >>> from svmlib.primal import primal_trace
    >>> tr = primal_trace(X, y, n_epochs=10, C=1.0)
    >>> print(type(tr).__name__, tr.coefs.shape)
    PrimalTrace (11, 2)
    """

    coefs: np.ndarray  # (n_epochs + 1, n_features)
    intercepts: np.ndarray  # (n_epochs + 1,)
    objectives: np.ndarray  # (n_epochs + 1,), J per epoch (not monotone)
    best_objectives: np.ndarray  # (n_epochs + 1,), running minimum of J
    dual_bounds: np.ndarray  # (n_epochs + 1,), running best lower bound on min J
    best_epoch: int
    classes: np.ndarray


def primal_trace(X, y, *, n_epochs=100, **params):
    """Run :class:`PrimalSVC` for exactly ``n_epochs`` epochs and return every iterate.

    Runs eq. :eq:`(2.8) <soft-pegasos>` (or the other step rules) on eq. :eq:`(2.3) <primal-objective>`.

    A plain function of plain values for the book's widgets: ``params`` are
    PrimalSVC's (``C``, ``step``, ``eta0``, ``batch_size``, ``bias``,
    ``projection``, ``random_state``).

    Returns
    -------
    PrimalTrace

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        Inputs.
    y : array_like of shape (n_samples,)
        Two classes.
    n_epochs : int, default 100
        Epochs to run.
    **params
        Parameters of :class:`PrimalSVC`.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.datasets import make_blobs2d
    >>> X, y = make_blobs2d(20, separation=4.0, random_state=0)
    >>> from svmlib.primal import primal_trace
    >>> tr = primal_trace(X, y, n_epochs=50, C=1.0)
    >>> print(tr.objectives.shape, bool(tr.best_objectives[-1] >= tr.dual_bounds[-1]))
    (51,) True
    """
    if "max_epochs" in params or "tol" in params:
        raise TypeError("primal_trace runs exactly n_epochs epochs; do not pass max_epochs or tol.")
    est = PrimalSVC(max_epochs=n_epochs, tol=None, **params)
    X, y_pm, classes, checked = est._prepare(X, y)
    iterates = list(est._iterates(X, y_pm, *checked[:5]))
    objectives = np.array([it.objective for it in iterates])
    bounds = np.maximum.accumulate(np.maximum([it.dual_bound for it in iterates], 0.0))  # J >= 0
    return PrimalTrace(
        coefs=np.array([it.coef for it in iterates]),
        intercepts=np.array([it.intercept for it in iterates]),
        objectives=objectives,
        best_objectives=np.minimum.accumulate(objectives),
        dual_bounds=bounds,
        best_epoch=int(np.argmin(objectives)),
        classes=classes,
    )
