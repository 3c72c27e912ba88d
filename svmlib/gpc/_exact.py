r"""Ground truth: exact evidences for tiny problems and elliptical slice sampling.

The evidence of the step likelihood is an orthant probability,
``Z = P(y_i a_i > 0 for all i)`` with ``a ~ N(0, K)`` (eq. :eq:`(8.4) <gpc-evidence>`):

* ``n = 1``: ``Z = 1/2``;
* ``n = 2``: ``Z = 1/4 + arcsin(rho) / (2 pi)``, ``rho = y_1 y_2 K_12 / sqrt(K_11 K_22)``
  (Sheppard's formula);
* small ``n``: scipy's multivariate normal CDF (Genz's algorithm).

The posterior (a Gaussian restricted to an orthant) is sampled exactly in the
limit by elliptical slice sampling (Murray, Adams & MacKay 2010): its
likelihood is an indicator, so a proposal on the ellipse is accepted iff it
lies in the orthant.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg, stats

from .._threads import blas_single_thread
from .._validation import check_positive, check_positive_int, check_random_state
from ._meanfield import _check_problem, _cholesky

__all__ = [
    "as_generator",
    "log_evidence_exact",
    "alpha_exact_n2",
    "alpha_exact",
    "PosteriorSamples",
    "sample_posterior",
    "log_evidence_importance",
]


def as_generator(random_state):
    """A ``np.random.Generator`` from an int, None, a Generator or a RandomState.

    A helper (no equation of its own).

    Parameters
    ----------
    random_state : int, None, numpy.random.Generator or numpy.random.RandomState
        The seed or generator.

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> from svmlib.gpc import as_generator
    >>> print(type(as_generator(0)).__name__)
    Generator
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(2**32 - 1))
    return np.random.default_rng(check_random_state(random_state).randint(2**32 - 1))


def _check_rel_tol(rel_tol):
    rel_tol = check_positive(rel_tol, "rel_tol")
    if rel_tol >= 1:
        raise ValueError(f"rel_tol is a relative tolerance below 1, got {rel_tol}.")
    return rel_tol


def log_evidence_exact(K, y, *, rel_tol=1e-6):
    r"""``ln Z`` of the step likelihood: closed form for ``n <= 3``, Genz's CDF for ``n <= 20``.

    Implements eq. :eq:`(8.4) <gpc-evidence>`.

    Parameters
    ----------
    K : array_like of shape (n, n), n <= 20
        Training kernel (noise included).
    y : array_like of shape (n,)
        Labels in {-1, +1}.
    rel_tol : float, default 1e-6
        Relative tolerance of the CDF for ``n > 3``.

    Returns
    -------
    float
        :math:`\ln Z`.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import make_demo_problem, training_kernel
    >>> X, y = make_demo_problem(20, random_state=0)
    >>> K = training_kernel(X[:3], 1.0, 1.0)
    >>> y3 = y[:3]
    >>> from svmlib.gpc import log_evidence_exact
    >>> print(f'{log_evidence_exact(K, y3):.4f}')
    -2.0774
    """
    K, y = _check_problem(K, y)
    rel_tol = _check_rel_tol(rel_tol)
    n = K.shape[0]
    if n <= 20:  # a covariance: PSD up to round-off (else arcsin or the CDF see a correlation > 1)
        lam = np.linalg.eigvalsh(K)
        if lam[0] < -1e-10 * lam[-1]:
            raise ValueError(f"K is not positive semi-definite (smallest eigenvalue {lam[0]:.3g}); "
                             "the step likelihood's evidence needs a covariance matrix.")
    if n == 1:
        return -np.log(2.0)
    if n in (2, 3):
        C = K * np.outer(y, y)
        d = np.sqrt(np.diag(C))
        r = np.clip(C / np.outer(d, d), -1.0, 1.0)   # correlations; |r| > 1 only by round-off
        if n == 2:
            p = 0.25 + np.arcsin(r[0, 1]) / (2 * np.pi)
        else:
            p = 0.125 + (np.arcsin(r[0, 1]) + np.arcsin(r[0, 2]) + np.arcsin(r[1, 2])) / (4 * np.pi)
        if not p > 0:
            raise ValueError("The labels have probability 0 under this K (e.g. duplicated inputs with "
                             "different labels and no noise); add noise to the diagonal of K.")
        return float(np.log(p))
    if n > 20:
        raise ValueError(f"The exact orthant probability is only computed for n <= 20 (got n = {n}); "
                         "use log_evidence_importance or sample_posterior instead.")
    C = K * np.outer(y, y)
    # P(Y a > 0) = P(-Y a < 0): the CDF of N(0, Y K Y) at the origin.
    try:
        p = stats.multivariate_normal.cdf(np.zeros(n), mean=np.zeros(n), cov=C, abseps=1e-12,
                                          releps=rel_tol, maxpts=200000 * n)
    except (ValueError, np.linalg.LinAlgError) as err:
        raise ValueError(f"The orthant probability failed on this K ({err}); duplicate inputs without "
                         "noise make K singular -- add noise_var to its diagonal.") from None
    if not p > 0:
        raise ValueError("The orthant probability underflowed to 0: the labels are (numerically) "
                         "impossible under this K; add noise to its diagonal.")
    return float(np.log(p))


def alpha_exact_n2(K, y):
    r"""Exact ``alpha`` for two examples (integration by parts).

    Implements the :math:`\alpha_j` of eq. :eq:`(8.5) <gpc-svm-form>` for n = 2.

    ``alpha_j = p(a_j = 0) P(y_k a_k > 0 | a_j = 0) / Z``; the conditional of ``a_k``
    given ``a_j = 0`` has mean 0, so the second factor is 1/2:
    ``alpha_j = 1 / (2 sqrt(2 pi K_jj) Z)``.

    Parameters
    ----------
    K : array_like of shape (2, 2)
        Training kernel (noise included).
    y : array_like of shape (2,)
        Labels in {-1, +1}.

    Returns
    -------
    ndarray of shape (2,)
        The exact :math:`\alpha`.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import make_demo_problem, training_kernel
    >>> X, y = make_demo_problem(20, random_state=0)
    >>> K = training_kernel(X[:3], 1.0, 1.0)
    >>> y3 = y[:3]
    >>> from svmlib.gpc import alpha_exact_n2, alpha_exact
    >>> print(np.allclose(alpha_exact_n2(K[:2, :2], y3[:2]), alpha_exact(K[:2, :2], y3[:2]), rtol=1e-5))
    True
    """
    K, y = _check_problem(K, y)
    if K.shape[0] != 2:
        raise ValueError("alpha_exact_n2 is the closed form for exactly two examples.")
    Z = np.exp(log_evidence_exact(K, y))
    return 1.0 / (2.0 * np.sqrt(2 * np.pi * np.diag(K)) * Z)


def alpha_exact(K, y, *, rel_tol=1e-6):
    r"""Exact ``alpha`` for small ``n`` (<= 12) by integration by parts.

    Implements the :math:`\alpha_j` of eq. :eq:`(8.5) <gpc-svm-form>`.

    ``<a> = K (y * alpha)`` with ``alpha_j = N(0; 0, K_jj) P(y_k a_k > 0, k != j | a_j = 0) / Z``:
    an ``(n-1)``-dimensional orthant probability of the conditional Gaussian, given
    ``a_j = 0`` (mean 0, covariance ``K_{-j,-j} - K_{-j,j} K_{j,-j} / K_jj``).

    Parameters
    ----------
    K : array_like of shape (n, n), n <= 12
        Training kernel (noise included).
    y : array_like of shape (n,)
        Labels in {-1, +1}.
    rel_tol : float, default 1e-6
        Relative tolerance of the orthant probabilities.

    Returns
    -------
    ndarray of shape (n,)
        The exact :math:`\alpha \ge 0`.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import make_demo_problem, training_kernel
    >>> X, y = make_demo_problem(20, random_state=0)
    >>> K = training_kernel(X[:3], 1.0, 1.0)
    >>> y3 = y[:3]
    >>> from svmlib.gpc import alpha_exact
    >>> print(np.round(alpha_exact(K, y3), 3))
    [0.563 0.558 0.569]
    """
    K, y = _check_problem(K, y)
    rel_tol = _check_rel_tol(rel_tol)
    n = K.shape[0]
    if n > 12:
        raise ValueError(f"alpha_exact integrates orthants numerically; use n <= 12 (got {n}).")
    log_Z = log_evidence_exact(K, y, rel_tol=rel_tol)
    alpha = np.empty(n)
    for j in range(n):
        rest = np.delete(np.arange(n), j)
        cond = K[np.ix_(rest, rest)] - np.outer(K[rest, j], K[j, rest]) / K[j, j]
        log_p = log_evidence_exact(cond, y[rest], rel_tol=rel_tol) if n > 1 else 0.0
        alpha[j] = np.exp(log_p - log_Z) / np.sqrt(2 * np.pi * K[j, j])
    return alpha


@dataclass
class PosteriorSamples:
    """Elliptical-slice-sampling output.

    Samples of the posterior whose normaliser is eq. :eq:`(8.4) <gpc-evidence>`.

    Attributes
    ----------
    samples : ndarray (n_chains, n_samples, n)
        latents a at the training inputs
    mean : ndarray (n,)
        posterior mean ``<a>``
    se : ndarray (n,)
        Monte Carlo standard error of ``mean``
        (from the spread of independent chain means)
    alpha : ndarray (n,)
        ``y * K^-1 <a>``: the exact posterior's alpha
    alpha_se : ndarray (n,)
        its Monte Carlo standard error
    n_proposals : int
        total ellipse proposals (cost)

    Parameters
    ----------
    samples, mean, se, alpha, alpha_se, n_proposals
        The fields below (a record returned by :func:`sample_posterior`).

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import make_demo_problem, training_kernel
    >>> X, y = make_demo_problem(20, random_state=0)
    >>> K = training_kernel(X[:3], 1.0, 1.0)
    >>> y3 = y[:3]
    >>> from svmlib.gpc import sample_posterior
    >>> s = sample_posterior(K, y3, 50, n_chains=4, burn_in=20, random_state=0)
    >>> print(s.samples.shape)
    (4, 50, 3)
    """

    samples: np.ndarray
    mean: np.ndarray
    se: np.ndarray
    alpha: np.ndarray
    alpha_se: np.ndarray
    n_proposals: int

    def test_mean(self, K_train, K_cross):
        """Rao-Blackwellised ``<f*> = k*^T K_train^-1 <a>`` and its standard error."""
        chain_means = self.samples.mean(axis=1)  # (chains, n)
        coef = linalg.cho_solve(_cholesky(K_train), chain_means.T, check_finite=False)  # (n, chains)
        per_chain = K_cross @ coef
        n_chains = per_chain.shape[1]
        return per_chain.mean(axis=1), per_chain.std(axis=1, ddof=1) / np.sqrt(n_chains)


def sample_posterior(K, y, n_samples=1000, *, n_chains=16, burn_in=200, random_state=None):
    r"""Elliptical slice sampling of ``p(a | y) ∝ N(a; 0, K) prod_i Theta(y_i a_i)``.

    Samples the posterior whose normaliser is eq. :eq:`(8.4) <gpc-evidence>`.

    ``n_chains`` independent chains run side by side (vectorised), each started
    at the feasible point ``a = y |prior draw|``. The standard error of the mean
    comes from the spread of the chain means, so it includes autocorrelation.

    Parameters
    ----------
    K : array (n, n)
        training kernel (noise included)
    y : array (n,)
        labels -1/+1
    n_samples : int
        kept samples per chain (after ``burn_in``)
    n_chains : int
        >= 2
    random_state : int, None or Generator

    Returns
    -------
    PosteriorSamples
        The samples, the posterior mean and :math:`\alpha` with their standard errors.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import make_demo_problem, training_kernel
    >>> X, y = make_demo_problem(20, random_state=0)
    >>> K = training_kernel(X[:3], 1.0, 1.0)
    >>> y3 = y[:3]
    >>> from svmlib.gpc import sample_posterior
    >>> s = sample_posterior(K, y3, 100, n_chains=4, burn_in=20, random_state=0)
    >>> print(bool((y3 * s.samples > 0).all()))
    True
    """
    K, y = _check_problem(K, y)
    n_samples = check_positive_int(n_samples, "n_samples")
    n_chains = check_positive_int(n_chains, "n_chains", minimum=2)
    burn_in = check_positive_int(burn_in, "burn_in", minimum=0)
    rng = as_generator(random_state)
    n = K.shape[0]
    with blas_single_thread():
        L = _cholesky(K)[0]
        L = np.tril(L)
        a = y * np.abs(rng.standard_normal((n_chains, n)) @ L.T)
        out = np.empty((n_chains, n_samples, n))
        proposals = 0
        for step in range(burn_in + n_samples):
            nu = rng.standard_normal((n_chains, n)) @ L.T
            theta = rng.uniform(0, 2 * np.pi, n_chains)
            lo, hi = theta - 2 * np.pi, theta.copy()
            pending = np.ones(n_chains, dtype=bool)
            while pending.any():
                idx = np.flatnonzero(pending)
                t = theta[idx]
                prop = a[idx] * np.cos(t)[:, None] + nu[idx] * np.sin(t)[:, None]
                proposals += idx.size
                ok = np.all(y * prop > 0, axis=1)
                a[idx[ok]] = prop[ok]
                pending[idx[ok]] = False
                bad = idx[~ok]
                # Shrink the bracket towards the current point (theta = 0) and redraw.
                neg = theta[bad] < 0
                lo[bad[neg]] = theta[bad[neg]]
                hi[bad[~neg]] = theta[bad[~neg]]
                theta[bad] = rng.uniform(lo[bad], hi[bad])
            if step >= burn_in:
                out[:, step - burn_in] = a
        chain_means = out.mean(axis=1)
        cf = _cholesky(K)
        chain_alpha = y[:, None] * linalg.cho_solve(cf, chain_means.T, check_finite=False)
    sq = np.sqrt(n_chains)
    return PosteriorSamples(
        samples=out,
        mean=chain_means.mean(axis=0),
        se=chain_means.std(axis=0, ddof=1) / sq,
        alpha=chain_alpha.mean(axis=1),
        alpha_se=chain_alpha.std(axis=1, ddof=1) / sq,
        n_proposals=proposals,
    )


def log_evidence_importance(K, y, n_samples=100000, *, random_state=None):
    """``ln Z`` by defensive importance sampling, with its standard error.

    Estimates eq. :eq:`(8.4) <gpc-evidence>` by importance sampling (eq. :eq:`(A.25) <tk-is>` of the toolkit
    appendix).

    Proposal: half the samples from the prior ``N(0, K)``, half from the
    EP Gaussian with its covariance doubled (a heavier-tailed fit of the
    posterior). Mixing in the prior bounds the weights by 2, so the estimator
    has finite variance (Hesterberg's defensive mixture).

    Returns
    -------
    log_Z : float
    se_log_Z : float
        delta-method standard error of ``log_Z``

    Parameters
    ----------
    K : array_like of shape (n, n)
        Training kernel (noise included).
    y : array_like of shape (n,)
        Labels in {-1, +1}.
    n_samples : int, default 100000
        Importance samples.
    random_state : int, None or Generator

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import make_demo_problem, training_kernel
    >>> X, y = make_demo_problem(20, random_state=0)
    >>> K = training_kernel(X[:3], 1.0, 1.0)
    >>> y3 = y[:3]
    >>> from svmlib.gpc import log_evidence_importance, log_evidence_exact
    >>> log_Z, se = log_evidence_importance(K, y3, 4000, random_state=0)
    >>> print(abs(log_Z - log_evidence_exact(K, y3)) < 5 * se + 1e-3)
    True
    """
    from ._meanfield import _ep_sites, solve_mean_field  # EP is only the proposal here

    K, y = _check_problem(K, y)
    n_samples = check_positive_int(n_samples, "n_samples", minimum=100)
    rng = as_generator(random_state)
    n = K.shape[0]
    lam = np.linalg.eigvalsh(K)
    if lam[0] <= 1e-10 * lam[-1]:   # the prior N(0, K) is the proposal: it needs a density
        raise ValueError("K must be positive definite for importance sampling from N(0, K) (duplicated or "
                         "nearly equal inputs make it singular); add noise to its diagonal.")
    sol = solve_mean_field(K, y, "ep")
    tau, _ = _ep_sites(sol)
    with blas_single_thread():
        Sigma = K - K @ np.linalg.solve(K + np.diag(1.0 / np.maximum(tau, 1e-12)), K)
        Sigma = (Sigma + Sigma.T)  # symmetrised and doubled: 2 * Sigma_EP
        prior = stats.multivariate_normal(np.zeros(n), K)
        fit = stats.multivariate_normal(sol.m, Sigma, allow_singular=True)
        half = n_samples // 2
        a = np.vstack([prior.rvs(half, random_state=rng).reshape(half, n),
                       fit.rvs(n_samples - half, random_state=rng).reshape(-1, n)])
        log_p = prior.logpdf(a)
        log_q = np.logaddexp(log_p, fit.logpdf(a)) - np.log(2.0)
    inside = np.all(y * a > 0, axis=1)
    w = np.where(inside, np.exp(log_p - log_q), 0.0)
    Z = w.mean()
    if Z <= 0:
        raise ValueError("No importance sample fell in the orthant; increase n_samples.")
    return float(np.log(Z)), float(w.std(ddof=1) / np.sqrt(n_samples) / Z)
