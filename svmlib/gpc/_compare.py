"""Side-by-side comparisons used by the chapter and its widgets (plain functions, no drawing)."""

from __future__ import annotations

import numpy as np

from .._threads import blas_single_thread
from ..kernels import RBF
from ._exact import sample_posterior
from ._meanfield import METHODS, free_energy, solve_mean_field
from ._online import online_sweep

__all__ = ["make_demo_problem", "compare_posterior_means", "fit_slope"]


def make_demo_problem(n=40, *, random_state=0):
    """A seeded 2-D problem: inputs uniform in [-2, 2]^2, labels from a curved boundary with 10 % flips.

    Data for :ref:`Chapter 8 <ch-mean-field-gpc>` (no equation of its own).

    Parameters
    ----------
    n : int, default 40
        Number of points.
    random_state : int, None or Generator, default 0

    Returns
    -------
    X : ndarray of shape (n, 2)
        Inputs.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.

    Examples
    --------
    >>> from svmlib.gpc import make_demo_problem
    >>> X, y = make_demo_problem(40)
    >>> print(X.shape, sorted(set(y.tolist())))
    (40, 2) [-1.0, 1.0]
    """
    rng = np.random.default_rng(random_state)
    X = rng.uniform(-2, 2, size=(n, 2))
    y = np.where(X[:, 1] > 0.5 * X[:, 0] ** 2 - 1.0, 1.0, -1.0)
    flip = rng.random(n) < 0.1
    y[flip] = -y[flip]
    return X, y


def fit_slope(reference, estimate):
    r"""Least-squares slope through the origin of ``estimate`` against ``reference``.

    A summary statistic of :ref:`Chapter 8 <ch-mean-field-gpc>` (no equation of its own).

    A slope > 1 means the estimate is too large in magnitude (over-confident), < 1 too small.

    Parameters
    ----------
    reference : array_like
        Reference values (e.g. MCMC posterior means).
    estimate : array_like
        Estimates of the same quantities.

    Returns
    -------
    float
        :math:`\sum_i r_i e_i / \sum_i r_i^2`.

    Examples
    --------
    >>> from svmlib.gpc import fit_slope
    >>> print(f'{fit_slope([1.0, 2.0], [2.0, 4.0]):.2f}')
    2.00
    """
    reference, estimate = np.asarray(reference), np.asarray(estimate)
    return float(reference @ estimate / (reference @ reference))


def compare_posterior_means(X, y, noise_var, length_scale, *, n_samples=400, n_chains=64, burn_in=1000,
                            random_state=0, include_online=True):
    """Posterior means ``<a_i>`` at the training inputs by every method, against MCMC.

    Compares the solutions of eq. :eq:`(8.7) <gpc-fixed-point>` with MCMC.

    The chains start at ``y |prior draw|``, far out in the orthant: keep ``burn_in``
    near 1000 (with 200 the chain means were still biased by several standard errors).

    Returns a dict with ``mcmc`` (mean), ``mcmc_se``, one entry per method in
    ``('naive', 'ensemble', 'ep', 'online')``, the relative errors
    ``rel_error[method] = |m - m_mcmc| / |m_mcmc|`` (Euclidean norms), the slopes of
    each method against MCMC, the free energies, and the problem itself.

    Parameters
    ----------
    X : array_like of shape (n, d)
        Training inputs.
    y : array_like of shape (n,)
        Labels in {-1, +1}.
    noise_var : float
        Probit noise variance.
    length_scale : float
        RBF length scale.
    n_samples, n_chains, burn_in : int
        Settings of :func:`sample_posterior`.
    random_state : int, None or Generator, default 0
    include_online : bool, default True
        Also run :func:`online_sweep`.

    Returns
    -------
    dict
        The entries described above.

    Examples
    --------
    >>> from svmlib.gpc import make_demo_problem, compare_posterior_means
    >>> X, y = make_demo_problem(12)
    >>> r = compare_posterior_means(X, y, 1.0, 1.0, n_samples=50, n_chains=8, burn_in=50)
    >>> print(sorted(r['rel_error']))
    ['ensemble', 'ep', 'naive', 'online']
    """
    with blas_single_thread():
        K = RBF(l=length_scale)(X)
        K[np.diag_indices_from(K)] += noise_var
        post = sample_posterior(K, y, n_samples, n_chains=n_chains, burn_in=burn_in, random_state=random_state)
        out = {"X": X, "y": y, "noise_var": noise_var, "length_scale": length_scale,
               "mcmc": post.mean, "mcmc_se": post.se, "means": {}, "free_energies": {}, "n_iter": {}}
        for method in METHODS:
            sol = solve_mean_field(K, y, method)
            out["means"][method] = sol.m
            out["free_energies"][method] = free_energy(K, y, sol)
            out["n_iter"][method] = sol.n_iter
        if include_online:
            state = online_sweep(K, y)
            out["means"]["online"] = K[:, state.basis] @ state.alpha
    ref = np.linalg.norm(post.mean)
    out["rel_error"] = {m: float(np.linalg.norm(v - post.mean) / ref) for m, v in out["means"].items()}
    out["slope"] = {m: fit_slope(post.mean, v) for m, v in out["means"].items()}
    out["mcmc_rel_se"] = float(np.linalg.norm(post.se) / ref)
    return out
