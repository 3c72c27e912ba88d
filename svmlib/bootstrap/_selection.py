"""Choosing the RBF length scale by the theory's bootstrap error and its gradient (:ref:`Chapter 9 <ch-replica>`).

The replica theory gives Efron's 0.632 estimate without retraining, and implicit
differentiation of its fixed point (:func:`error_gradient`, eq. :eq:`(9.22) <boot-implicit>`) gives the
derivative in the length scale for about a third of the cost of the solve. Both together
make gradient-based model selection without resampling.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

from .._threads import single_threaded
from .._validation import check_data, check_positive
from ..kernels import RBF
from ._estimators import distinct_inputs, efron_632
from ._replica import error_gradient, solve_replica

__all__ = ["LengthScalePath", "length_scale_path", "LengthScaleChoice", "minimise_632_estimate"]


@dataclass
class LengthScalePath:
    """The theory along a sequence of RBF length scales (S/N fixed).

    Attributes
    ----------
    length_scales, error, slope : ndarrays of shape (m,)
        l, the bootstrapped error eq. :eq:`(9.19) <boot-error>` and its derivative d error / d ln l.
    error_632, slope_632 : ndarrays of shape (m,)
        Efron's 0.632 estimate and its derivative (meaningful at S/N = 1).
    solutions : list of ReplicaSolution

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.bootstrap import length_scale_path
    >>> from svmlib.datasets import load_crabs
    >>> crabs = load_crabs("sex")
    >>> path = length_scale_path(crabs.X, crabs.y, np.sqrt(5) * np.array([0.5, 1.0, 2.0]))
    >>> bool(np.allclose(path.error_632, 0.632 * path.error)), path.slope.shape
    (True, (3,))
    """

    length_scales: np.ndarray
    error: np.ndarray
    slope: np.ndarray
    solutions: list

    @property
    def error_632(self):
        return np.array([efron_632(e) for e in self.error])

    @property
    def slope_632(self):
        return 0.632 * self.slope


def _solve_with_gradient(X, y, l, S_over_N, init, options):
    kernel = RBF(l=l)
    K = kernel(X)
    sol = solve_replica(K, y, S_over_N, init=init, **options)
    return sol, error_gradient(K, y, sol, kernel.grad_log_l(X)[0])


def _prepare(X, y):
    X, y, _ = check_data(X, y)
    X, y, _ = distinct_inputs(X, y, deduplicate=False)
    return X, y


@single_threaded
def length_scale_path(X, y, length_scales, *, S_over_N=1.0, **solver_options):
    """Theory's bootstrap error and its slope in ln l along RBF length scales, warm-started.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Distinct training inputs (standardised: the length scales are in their units).
    y : ndarray of shape (n,)
    length_scales : sequence of positive floats
        Solved in increasing order, each warm-started from the previous solution.
    S_over_N : float
    **solver_options
        Passed to :func:`solve_replica` (tol, max_iter, ...).

    Returns
    -------
    LengthScalePath

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.bootstrap import length_scale_path
    >>> from svmlib.datasets import load_crabs
    >>> crabs = load_crabs("sex")
    >>> path = length_scale_path(crabs.X, crabs.y, np.sqrt(5) * np.array([0.5, 1.0, 2.0]))
    >>> [round(float(e), 4) for e in path.error_632]
    [0.0285, 0.0247, 0.0268]
    """
    X, y = _prepare(X, y)
    ls = np.asarray(check_positive(np.asarray(length_scales, dtype=float), "length_scales", allow_array=True))
    if ls.ndim != 1 or ls.size == 0:
        raise ValueError("length_scales must be a non-empty 1-D sequence of positive numbers.")
    order = np.argsort(ls)
    error, slope, solutions = np.empty(ls.size), np.empty(ls.size), [None] * ls.size
    previous = None
    for k in order:
        previous, slope[k] = _solve_with_gradient(X, y, ls[k], S_over_N, previous, solver_options)
        error[k], solutions[k] = previous.error, previous
    return LengthScalePath(ls, error, slope, solutions)


@dataclass
class LengthScaleChoice:
    """Result of :func:`minimise_632_estimate`.

    Attributes
    ----------
    length_scale : float
    error_632 : float
        Efron's 0.632 estimate (the theory's) at ``length_scale``.
    slope_632 : float
        Its derivative in ln l there (~0 at an interior minimum).
    n_solves : int
        Fixed-point solves (each with one gradient) the search needed.
    converged : bool
        Whether L-BFGS-B reported success.
    solution : ReplicaSolution

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.bootstrap import minimise_632_estimate
    >>> from svmlib.datasets import load_crabs
    >>> crabs = load_crabs("sex")
    >>> choice = minimise_632_estimate(crabs.X, crabs.y, (0.3 * np.sqrt(5), 2.0 * np.sqrt(5)))
    >>> choice.converged, bool(abs(choice.slope_632) < 1e-4), choice.solution.S_over_N
    (True, True, 1.0)
    """

    length_scale: float
    error_632: float
    slope_632: float
    n_solves: int
    converged: bool
    solution: object


@single_threaded
def minimise_632_estimate(X, y, bounds, *, l0=None, **solver_options):
    """Length scale of an RBF kernel minimising the theory's 0.632 estimate (S = N), by L-BFGS-B.

    The objective and its gradient in ln l come from one warm-started fixed-point solve and
    :func:`error_gradient`; no bootstrap sample is drawn.

    Parameters
    ----------
    X, y : training data (distinct, standardised inputs)
    bounds : (l_min, l_max)
        Search interval for the length scale.
    l0 : float, optional
        Starting length scale (default: the geometric mean of the bounds).
    **solver_options
        Passed to :func:`solve_replica`.

    Returns
    -------
    LengthScaleChoice

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.bootstrap import minimise_632_estimate
    >>> from svmlib.datasets import load_crabs
    >>> crabs = load_crabs("sex")
    >>> choice = minimise_632_estimate(crabs.X, crabs.y, (0.3 * np.sqrt(5), 2.0 * np.sqrt(5)))
    >>> print(f"l = {choice.length_scale:.2f}, 0.632 estimate {choice.error_632:.4f}")
    l = 1.58, 0.632 estimate 0.0246
    """
    X, y = _prepare(X, y)
    lo, hi = (float(check_positive(b, "bounds")) for b in bounds)
    if not lo < hi:
        raise ValueError(f"bounds must be (l_min, l_max) with l_min < l_max, got {bounds!r}.")
    l0 = np.sqrt(lo * hi) if l0 is None else float(check_positive(l0, "l0"))
    evaluated = {}  # ln l -> (solution, slope); the last one warm-starts the next solve

    def objective(log_l):
        previous = next(reversed(evaluated.values()))[0] if evaluated else None
        sol, slope = _solve_with_gradient(X, y, float(np.exp(log_l[0])), 1.0, previous, solver_options)
        evaluated[float(log_l[0])] = (sol, slope)
        return efron_632(sol.error), np.array([0.632 * slope])

    result = minimize(objective, x0=[np.log(np.clip(l0, lo, hi))], jac=True, method="L-BFGS-B",
                      bounds=[(np.log(lo), np.log(hi))])
    best = float(result.x[0])
    if best not in evaluated:  # pragma: no cover - L-BFGS-B returns an evaluated point
        objective([best])
    sol, slope = evaluated[best]
    return LengthScaleChoice(float(np.exp(best)), efron_632(sol.error), 0.632 * slope, len(evaluated),
                             bool(result.success), sol)
