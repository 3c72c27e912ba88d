"""Hyperparameters by minimising a free energy (the evidence framework, ML-II).

Parameters: one RBF length scale per input and the probit noise variance,
``theta = (ln l_1, ..., ln l_d, ln sigma^2)``. The amplitude is fixed: the step
likelihood ignores the scale of the latent function, so the evidence does not
depend on it. The training kernel is ``K0 exp(-|x - x'|^2_l / 2) + B2 + sigma^2 I``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import optimize

from .._threads import blas_single_thread
from .._validation import check_inputs, check_pm_labels, check_positive, check_positive_int, check_tol
from ..kernels import RBF
from ._meanfield import _check_method, free_energy, free_energy_gradient, solve_mean_field

__all__ = ["training_kernel", "free_energy_and_gradient", "HyperFit", "fit_hyperparameters"]


def training_kernel(X, length_scales, noise_var, *, K0=1.0, B2=0.0, with_gradient=False):
    r"""Training Gram matrix ``K(X, X) + sigma^2 I`` of the ARD RBF kernel.

    Implements eq. :eq:`(8.3) <gpc-k-sigma>`.

    With ``with_gradient=True`` also returns ``dK/dtheta`` of shape ``(d + 1, n, n)``
    for ``theta = (ln l_1, ..., ln l_d, ln sigma^2)`` (one slice per length scale when
    ``length_scales`` is an array, one in all when it is a number).

    Parameters
    ----------
    X : array_like of shape (n, d)
        Training inputs.
    length_scales : float or array_like of shape (d,)
        RBF length scale(s).
    noise_var : float
        Probit noise variance :math:`\sigma^2`.
    K0 : float, default 1.0
        Amplitude.
    B2 : float, default 0.0
        Bias variance (a constant added to the kernel).
    with_gradient : bool, default False
        Also return the derivatives in the log hyperparameters.

    Returns
    -------
    K : ndarray of shape (n, n)
        :math:`K(X, X) + \sigma^2 I`.
    dK : ndarray of shape (p, n, n)
        Only with ``with_gradient=True``.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import make_demo_problem, training_kernel
    >>> X, y = make_demo_problem(20, random_state=0)
    >>> K = training_kernel(X, 1.0, 1.0)
    >>> print(K.shape, f'{K[0, 0]:.1f}')
    (20, 20) 2.0
    """
    noise_var = check_positive(noise_var, "noise_var", allow_zero=True)
    kernel = RBF(l=length_scales, K0=K0, B2=B2)
    K = kernel(X)
    n = K.shape[0]
    K[np.diag_indices(n)] += noise_var
    if not with_gradient:
        return K
    dK = np.concatenate([kernel.grad_log_l(X), (noise_var * np.eye(n))[None]], axis=0)
    return K, dK


def _unpack(theta, d_l):
    return np.exp(theta[:d_l]) if d_l > 1 else float(np.exp(theta[0])), float(np.exp(theta[-1]))


def free_energy_and_gradient(theta, X, y, objective="naive", *, K0=1.0, B2=0.0, alpha0=None, lam0=None,
                             n_length_scales=None):
    r"""Free energy of ``objective`` and its gradient in ``theta = (ln l, ln sigma^2)``.

    Implements eq. :eq:`(8.15) <gpc-hypergradients>`.

    Returns ``(F, grad, solution)``; pass ``solution.alpha`` (and ``solution.lam`` for EP)
    back as warm starts.

    Parameters
    ----------
    theta : array_like
        :math:`(\ln l_1, \dots, \ln l_d, \ln\sigma^2)` (or one shared :math:`\ln l`).
    X : array_like of shape (n, d)
        Training inputs.
    y : array_like of shape (n,)
        Labels in {-1, +1}.
    objective : {'naive', 'ensemble', 'ep'}, default 'naive'
    K0, B2 : float
        Amplitude and bias variance of the RBF kernel.
    alpha0, lam0 : ndarray, optional
        Warm starts.
    n_length_scales : int, optional
        Number of length scales in ``theta`` (default: all but the last entry).

    Returns
    -------
    F : float
        The free energy.
    grad : ndarray
        Its gradient in ``theta``.
    solution : MeanFieldSolution
        The inner solution (for warm starts).

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import make_demo_problem, training_kernel
    >>> X, y = make_demo_problem(20, random_state=0)
    >>> K = training_kernel(X, 1.0, 1.0)
    >>> from svmlib.gpc import free_energy_and_gradient
    >>> F, grad, sol = free_energy_and_gradient(np.zeros(3), X, y, 'naive')
    >>> print(f'{F:.3f}', grad.shape)
    12.737 (3,)
    """
    _check_method(objective)
    X = check_inputs(X)
    y = check_pm_labels(y)
    if y.size != X.shape[0]:
        raise ValueError(f"y has {y.size} labels but X has {X.shape[0]} rows.")
    d_l = X.shape[1] if n_length_scales is None else check_positive_int(n_length_scales, "n_length_scales")
    try:
        theta = np.asarray(theta, dtype=float)
    except (TypeError, ValueError):
        raise TypeError("theta must be the vector (ln l_1, ..., ln l_d, ln sigma^2).") from None
    if theta.shape != (d_l + 1,) or not np.all(np.isfinite(theta)):
        raise ValueError(f"theta must hold {d_l + 1} finite numbers (ln l_1, ..., ln l_{d_l}, ln sigma^2), "
                         f"got shape {theta.shape}.")
    l, noise = _unpack(theta, d_l)
    with blas_single_thread():
        K, dK = training_kernel(X, l, noise, K0=K0, B2=B2, with_gradient=True)
        sol = solve_mean_field(K, y, objective, alpha0=alpha0, lam0=lam0, warn=False)
        return free_energy(K, y, sol), free_energy_gradient(K, y, sol, dK), sol


def _check_log_bounds(bounds):
    """``((lo, hi), (lo, hi))`` in log space, finite with lo < hi, as a tuple of tuples."""
    try:
        b = np.asarray(bounds, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"bounds must be ((lo, hi) for ln l, (lo, hi) for ln sigma^2), got {bounds!r}.") from None
    if b.shape != (2, 2) or not np.all(np.isfinite(b)) or np.any(b[:, 0] >= b[:, 1]):
        raise ValueError(f"bounds must be ((lo, hi) for ln l, (lo, hi) for ln sigma^2) with finite "
                         f"lo < hi, got {bounds!r}.")
    return tuple(map(tuple, b))


@dataclass
class HyperFit:
    """Result of :func:`fit_hyperparameters`.

    The minimum of a free energy (eqs. :eq:`(8.14) <gpc-free-naive>`, :eq:`(8.13) <gpc-free-ensemble>`, :eq:`(8.11) <gpc-ep-evidence>`).

    Attributes
    ----------
    length_scales : ndarray (d,)
    noise_var : float
    free_energy : float
    objective : str
    n_iter : int
        L-BFGS iterations (hyperparameter updates)
    converged : bool
    history : list of dict
        after every update: ``theta``, ``length_scales``, ``noise_var``, ``free_energy``
    solution : MeanFieldSolution at the optimum
    at_bounds : list of str
        the parameters that ended within 1e-3 (in log) of a bound, e.g.
        ``["length_scale[1] (upper bound 403)", "noise_var (lower bound 0.000912)"]``

    Parameters
    ----------
    length_scales, noise_var, free_energy, objective, n_iter, converged, message, solution, history, at_bounds
        The fields below (a record returned by :func:`fit_hyperparameters`).

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import make_demo_problem, training_kernel
    >>> X, y = make_demo_problem(20, random_state=0)
    >>> K = training_kernel(X, 1.0, 1.0)
    >>> from svmlib.gpc import fit_hyperparameters
    >>> fit = fit_hyperparameters(X, y, 'naive', max_iter=3)
    >>> print(type(fit).__name__, fit.length_scales.shape)
    HyperFit (2,)
    """

    length_scales: np.ndarray
    noise_var: float
    free_energy: float
    objective: str
    n_iter: int
    converged: bool
    message: str
    solution: object
    history: list = field(default_factory=list)
    at_bounds: list = field(default_factory=list)


def fit_hyperparameters(X, y, objective="naive", *, length_scale0=None, noise_var0=1.0, K0=1.0, B2=0.0,
                        max_iter=100, bounds=((-4.0, 6.0), (-7.0, 7.0)), gtol=1e-5):
    """Minimise a free energy over ARD length scales and the noise variance with L-BFGS.

    Descends the gradients of eq. :eq:`(8.15) <gpc-hypergradients>`.

    Parameters
    ----------
    X : ndarray (n, d), y : ndarray (n,) in {-1, +1}
    objective : {'naive', 'ensemble', 'ep'}
        ``F_naive``, ``F_ens`` or ``-ln Z_EP``.
    length_scale0 : float or ndarray (d,), default ``sqrt(d)``
        Start: the same length scale for every input (the paper's uniform start).
    noise_var0 : float
    bounds : ((lo, hi) for ln l, (lo, hi) for ln sigma^2)
        Box for L-BFGS-B: keeps a run from drifting to a degenerate kernel.

    Returns
    -------
    HyperFit

    Notes
    -----
    ``F_naive`` is not a bound on ``-ln Z``; at small noise it overestimates ``-ln Z`` badly
    and its landscape is steep there, so start from ``noise_var0 ~ 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import make_demo_problem, training_kernel
    >>> X, y = make_demo_problem(20, random_state=0)
    >>> K = training_kernel(X, 1.0, 1.0)
    >>> from svmlib.gpc import fit_hyperparameters
    >>> fit = fit_hyperparameters(X, y, 'ensemble', max_iter=5)
    >>> print(fit.objective, fit.length_scales.shape, bool(fit.noise_var > 0))
    ensemble (2,) True
    """
    _check_method(objective)
    X = check_inputs(X)
    y = check_pm_labels(y)
    if y.size != X.shape[0]:
        raise ValueError(f"y has {y.size} labels but X has {X.shape[0]} rows.")
    bounds = _check_log_bounds(bounds)
    max_iter = check_positive_int(max_iter, "max_iter")
    gtol = check_tol(gtol, "gtol")
    d = X.shape[1]
    l0 = np.sqrt(d) if length_scale0 is None else length_scale0
    l0 = np.broadcast_to(check_positive(l0, "length_scale0", allow_array=True), (d,)).astype(float)
    noise_var0 = check_positive(noise_var0, "noise_var0")
    theta0 = np.r_[np.log(l0), np.log(noise_var0)]
    warm = {"alpha0": None, "lam0": None}
    history = []

    cache = {}

    def fun(theta):
        key = theta.tobytes()
        if key not in cache:
            F, g, sol = free_energy_and_gradient(theta, X, y, objective, K0=K0, B2=B2, **warm)
            warm["alpha0"] = sol.alpha  # warm start the next inner solve
            if objective == "ep":
                warm["lam0"] = sol.lam
            cache.clear()  # only the latest point is ever asked for again (by the callback)
            cache[key] = (F, g)
        return cache[key]

    def record(theta):
        F, _ = fun(np.asarray(theta, dtype=float))
        history.append({"theta": theta.copy(), "length_scales": np.exp(theta[:d]),
                        "noise_var": float(np.exp(theta[-1])), "free_energy": F})

    full = np.array([bounds[0]] * d + [bounds[1]], dtype=float)
    theta0 = np.clip(theta0, full[:, 0], full[:, 1])  # a start outside the box begins on its edge
    record(theta0)
    # Stage 1 inside a trust box theta0 +- 1.5: L-BFGS-B's first line search can otherwise leap
    # to a corner of the bounds (seen for F_naive started at small noise: all l at the lower
    # bound, sigma^2 at the upper, where K is diagonal and F = n ln 2 is flat). Stage 2 is free.
    box = np.column_stack([np.maximum(full[:, 0], theta0 - 1.5), np.minimum(full[:, 1], theta0 + 1.5)])
    res = optimize.minimize(fun, theta0, jac=True, method="L-BFGS-B", callback=lambda xk: record(xk),
                            bounds=box, options={"maxiter": max_iter, "gtol": gtol})
    nit = res.nit
    res = optimize.minimize(fun, res.x, jac=True, method="L-BFGS-B", callback=lambda xk: record(xk),
                            bounds=full, options={"maxiter": max(max_iter - nit, 1), "gtol": gtol})
    res.nit += nit
    F, _, sol = free_energy_and_gradient(res.x, X, y, objective, K0=K0, B2=B2, **warm)
    names = [f"length_scale[{j}]" for j in range(d)] + ["noise_var"]
    at_bounds = []
    for name, value, (lo, hi) in zip(names, res.x, full):
        if value <= lo + 1e-3:
            at_bounds.append(f"{name} (lower bound {np.exp(lo):.3g})")
        elif value >= hi - 1e-3:
            at_bounds.append(f"{name} (upper bound {np.exp(hi):.3g})")
    return HyperFit(np.exp(res.x[:d]), float(np.exp(res.x[-1])), F, objective, int(res.nit),
                    bool(res.success), str(res.message), sol, history, at_bounds)
