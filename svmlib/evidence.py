r"""Evidence for the SVM's hyperparameters (:ref:`Chapter 7 <ch-evidence>`), after :cite:`sollich2002bayesian`.

The evidence of the normalised model of :mod:`svmlib.probabilistic` is

.. math:: Q(D) = \frac{Q_\text{naive}(D)}{\langle N(\theta)^n \rangle_\text{GP}}
          \prod_i Q(x_i), \qquad
          Q_\text{naive}(D) = \int d\theta\, N(\theta \mid 0, K) \prod_i \kappa(C) e^{-C l(y_i \theta_i)}

(eq. :eq:`(7.2) <ev-full>`). This module gives

* :func:`laplace_log_naive_evidence` -- the Laplace-type estimate with :math:`\det(I + L_m K_m)`
  (eq. :eq:`(7.5) <ev-laplace>`);
* :func:`exact_log_naive_evidence` -- the exact value for ``n <= 3`` (closed form for
  ``n = 1``, numerical integration with the last coordinate done analytically for 2 and 3);
* :func:`log_normaliser_mc` and :func:`log_normaliser_ais` -- :math:`\ln\langle N^n\rangle`
  by plain Monte Carlo and by annealed importance sampling :cite:`neal2001annealed`, both with an
  effective sample size and a :class:`LowESSWarning` when it is poor;
* :func:`evidence_curve` -- naive and full evidence along :math:`C` at fixed :math:`C K_0`,
  where the SVM is solved once.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import integrate, linalg
from scipy.special import log_ndtr, logsumexp

from ._threads import blas_single_thread
from ._validation import (
    check_C,
    check_inputs,
    check_kernel_matrix,
    check_positive,
    check_positive_int,
    check_random_state,
)
from .kernels import make_kernel
from .probabilistic import (
    GridPrior,
    _ess_step,
    _log_N,
    _log_kappa,
    hinge,
    log_N,
    solve_no_bias_dual,
)

__all__ = [
    "LowESSWarning",
    "laplace_log_naive_evidence",
    "log_naive_evidence",
    "exact_log_naive_evidence",
    "NormaliserEstimate",
    "NormaliserCurve",
    "normaliser_curve",
    "log_normaliser_mc",
    "log_normaliser_ais",
    "EvidenceCurve",
    "evidence_curve",
]


class LowESSWarning(UserWarning):
    """A Monte Carlo estimate rests on too few effective samples to be trusted.

    Raised about the estimates of eq. :eq:`(7.11) <ev-normaliser>`.

    Examples
    --------
    >>> import warnings
    >>> from svmlib.evidence import LowESSWarning
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter('always')
    ...     warnings.warn('few effective samples', LowESSWarning)
    >>> print(w[0].category.__name__)
    LowESSWarning
    """


def _check_labels(y):
    y = np.asarray(y, dtype=float).ravel()
    if y.size == 0 or not np.all(np.isin(y, (-1.0, 1.0))):
        raise ValueError("y must be a non-empty vector of labels -1/+1 (see svmlib._validation.check_binary_labels).")
    return y


def _check_gram(K, n, *, psd=True):
    """A finite, symmetric ``(n, n)`` kernel matrix; with ``psd`` also positive semi-definite.

    The naive evidence integrates against the Gaussian prior ``N(theta | 0, K)``: a K that is not
    PSD is no covariance. The test is a Cholesky factorisation of ``K + 1e-10 max(diag K) I``
    (cheaper than eigenvalues; accepts a PSD K that is singular, e.g. duplicated inputs).
    """
    try:
        K = np.asarray(K, dtype=float)
    except (TypeError, ValueError):
        raise TypeError("K must be a numeric (n, n) kernel matrix.") from None
    if K.shape != (n, n) or not np.all(np.isfinite(K)):
        raise ValueError(f"K must be the finite ({n}, {n}) kernel matrix of the {n} training inputs; got shape {K.shape}.")
    check_kernel_matrix(K, n, symmetric=True)
    if psd:
        scale = float(np.max(np.abs(np.diag(K)), initial=0.0))
        try:
            linalg.cholesky(K + (1e-10 * scale + 1e-300) * np.eye(n), lower=True, check_finite=False)
        except linalg.LinAlgError:
            raise ValueError("K is not positive semi-definite: it is no covariance of a Gaussian prior. "
                             "Use a valid kernel (svmlib.kernels).") from None
    return K


# --------------------------------------------------------------------------
# Naive evidence: Laplace-type estimate and exact reference
# --------------------------------------------------------------------------

def laplace_log_naive_evidence(K, y, alpha, C):
    r"""Laplace-type estimate of :math:`\ln Q_\text{naive}(D)` (eq. :eq:`(7.5) <ev-laplace>`).

    Implements eq. :eq:`(7.5) <ev-laplace>`.

    .. math:: \ln Q_\text{naive} \approx -\tfrac12 \sum_i y_i \alpha_i \theta^*_i
              - C \sum_i l(y_i \theta^*_i) + n \ln \kappa(C) - \tfrac12 \ln\det(I + L_m K_m),

    :math:`L_m = \operatorname{diag}(2\pi [\alpha_i (C - \alpha_i)/C]^2)` over the marginal inputs
    (:math:`0 < \alpha_i < C`). Inputs at a bound have :math:`L_i = 0` and drop out of the
    determinant by themselves, so no threshold decides who is marginal and the estimate is
    continuous in the hyperparameters. The ``I +`` is essential: without it the determinant
    diverges as any :math:`\alpha_i \to 0` or :math:`C`, or when marginal inputs are close.

    Parameters
    ----------
    K : array_like of shape (n, n)
        Kernel matrix, the bias variance included.
    y : array_like of shape (n,)
        Labels in {-1, +1}.
    alpha : array_like of shape (n,)
        The MAP dual coefficients (from :func:`svmlib.probabilistic.solve_no_bias_dual`).
    C : float
        Finite, positive likelihood parameter.

    Returns
    -------
    float
        The Laplace estimate of :math:`\ln Q_\text{naive}(D)`.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.kernels import RBF
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(10, 1))
    >>> y = np.where(X[:, 0] > 0.5, 1.0, -1.0)
    >>> K = RBF(l=0.3, B2=1.0)(X)
    >>> from svmlib.probabilistic import solve_no_bias_dual
    >>> from svmlib.evidence import laplace_log_naive_evidence
    >>> alpha = solve_no_bias_dual(K, y, 2.0).alpha
    >>> print(f'{laplace_log_naive_evidence(K, y, alpha, 2.0):.3f}')
    -3.128
    """
    y = _check_labels(y)
    n = y.size
    K = _check_gram(K, n)
    C = check_C(C, allow_inf=False)
    alpha = np.asarray(alpha, dtype=float)
    if alpha.shape != (n,) or np.any(alpha < -1e-12 * C) or np.any(alpha > C * (1 + 1e-12)):
        raise ValueError(f"alpha must hold {n} dual coefficients in [0, C]; solve the dual first.")
    alpha = np.clip(alpha, 0.0, C)
    theta = K @ (alpha * y)
    lam = 2.0 * np.pi * (alpha * (C - alpha) / C) ** 2
    m = lam > 0
    logdet = 0.0
    if m.any():
        r = np.sqrt(lam[m])
        # symmetric form I + L^1/2 K L^1/2 has the same determinant and is positive definite
        # (small matrices: no BLAS-thread context here, callers in hot loops set one up once)
        chol = linalg.cholesky(np.eye(m.sum()) + r[:, None] * K[np.ix_(m, m)] * r[None, :], lower=True)
        logdet = 2.0 * np.sum(np.log(np.diag(chol)))
    return float(-0.5 * np.sum(y * alpha * theta) - C * np.sum(hinge(y * theta)) + n * _log_kappa(C) - 0.5 * logdet)


def log_naive_evidence(K, y, C):
    r"""Solve the no-bias dual for ``(K, y, C)`` and return the Laplace estimate of ln Q_naive.

    Implements eq. :eq:`(7.5) <ev-laplace>` at the MAP of eq. :eq:`(6.12) <gp-map-dual>`.

    Parameters
    ----------
    K : array_like of shape (n, n)
        Kernel matrix, the bias variance included.
    y : array_like of shape (n,)
        Labels in {-1, +1}.
    C : float
        Finite, positive likelihood parameter.

    Returns
    -------
    float
        The Laplace estimate of :math:`\ln Q_\text{naive}(D)`.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.kernels import RBF
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(10, 1))
    >>> y = np.where(X[:, 0] > 0.5, 1.0, -1.0)
    >>> K = RBF(l=0.3, B2=1.0)(X)
    >>> from svmlib.evidence import log_naive_evidence
    >>> print(f'{log_naive_evidence(K, y, 2.0):.3f}')
    -3.128
    """
    y = _check_labels(y)
    K = _check_gram(K, y.size)
    sol = solve_no_bias_dual(K, y, C)
    return laplace_log_naive_evidence(K, y, sol.alpha, C)


def _log_inner(mu, s2, C):
    r""":math:`\ln \int dt\, N(t \mid \mu, s^2)\, \kappa e^{-C l(t)}` in closed form (vectorised in mu)."""
    s = np.sqrt(s2)
    above = log_ndtr((mu - 1.0) / s)                       # P(t > 1): no loss
    below = -C * (1.0 - mu) + 0.5 * C**2 * s2 + log_ndtr((1.0 - mu - C * s2) / s)
    return _log_kappa(C) + np.logaddexp(above, below)


def exact_log_naive_evidence(K, y, C, *, epsrel=1e-7):
    r"""Exact :math:`\ln Q_\text{naive}(D)` for ``n <= 3`` inputs (the tests' and the chapter's reference).

    Implements eq. :eq:`(7.10) <ev-n1>` (and eq. :eq:`(7.2) <ev-full>`'s integral for n = 2, 3).

    ``n = 1``: :math:`Q = \kappa[\Phi(-1/\sqrt{K}) + e^{-C + C^2 K/2}\Phi((1 - CK)/\sqrt{K})]`
    (eq. :eq:`(7.10) <ev-n1>`). For ``n = 2, 3`` the last latent value is Gaussian given the others and is
    integrated in the same closed form; the remaining one or two are integrated numerically
    (``scipy.integrate.quad``/``nquad``) with break points at the hinges :math:`\theta_i = y_i`,
    over :math:`\pm 12` prior standard deviations (the tails beyond are below 1e-30).

    Parameters
    ----------
    K : array_like of shape (n, n), n <= 3
        Kernel matrix, the bias variance included.
    y : array_like of shape (n,)
        Labels in {-1, +1}.
    C : float
        Finite, positive likelihood parameter.
    epsrel : float, default 1e-7
        Relative tolerance of the numerical quadrature.

    Returns
    -------
    float
        :math:`\ln Q_\text{naive}(D)`.

    Examples
    --------
    >>> from svmlib.evidence import exact_log_naive_evidence
    >>> print(f'{exact_log_naive_evidence([[1.0]], [1.0], C=2.0):.4f}')
    -1.1660
    """
    y = _check_labels(y)
    n = y.size
    if n > 3:
        raise ValueError(f"exact_log_naive_evidence integrates numerically only up to n = 3 inputs (got {n}); "
                         "use laplace_log_naive_evidence, or check with a subset.")
    K = _check_gram(K, n)
    C = check_C(C, allow_inf=False)
    epsrel = check_positive(epsrel, "epsrel")
    if not 1e-13 <= epsrel < 1:   # quad's own limit is 50 machine epsilons
        raise ValueError(f"epsrel must lie in [1e-13, 1), got {epsrel}.")
    if n == 1:
        return float(_log_inner(0.0, K[0, 0], C))
    a, last = slice(0, n - 1), n - 1
    Kaa = K[a, a]
    singular = ValueError("K is (numerically) singular (duplicated inputs, or a kernel of too small "
                          "scale): the exact integral needs a positive definite K.")
    try:
        chol = linalg.cholesky(Kaa, lower=True)
        w = linalg.cho_solve((chol, True), K[a, last])      # E[theta_n | theta_a] = w . theta_a
    except linalg.LinAlgError:
        raise singular from None
    s2 = K[last, last] - K[last, a] @ w
    if not s2 > 1e-12 * K[last, last] or np.min(np.diag(chol)) <= 1e-8 * np.sqrt(np.max(np.diag(Kaa))):
        raise singular
    log_norm_a = -0.5 * (n - 1) * np.log(2 * np.pi) - np.sum(np.log(np.diag(chol)))
    # the (n-1) x (n-1) prior precision, for cheap scalar evaluations inside nquad
    P = linalg.cho_solve((chol, True), np.eye(n - 1))
    ref = log_naive_evidence(K, y, C)   # rescale the integrand so that its integral is O(1)
    lk = float(_log_kappa(C))
    ya, yl = y[a], float(y[last])
    sd_last = float(np.sqrt(s2))

    def f(*theta_a):
        t = np.array(theta_a)
        log_prior = log_norm_a - 0.5 * (t @ P @ t)
        log_lik = (n - 1) * lk - C * np.sum(np.maximum(0.0, 1.0 - ya * t))
        mu = yl * (w @ t)
        inner = np.logaddexp(log_ndtr((mu - 1.0) / sd_last),
                             -C * (1.0 - mu) + 0.5 * C * C * s2 + log_ndtr((1.0 - mu - C * s2) / sd_last))
        return np.exp(log_prior + log_lik + lk + inner - ref)

    sd = np.sqrt(np.diag(Kaa))
    ranges = [(-12 * s, 12 * s) for s in sd]
    # break points only inside the range (quad refuses points=None)
    opts = [{"epsrel": epsrel, "epsabs": 0.0, "limit": 200, **({"points": [y[i]]} if abs(y[i]) < 12 * sd[i] else {})}
            for i in range(n - 1)]
    with np.errstate(over="ignore", under="ignore"):
        val, _ = integrate.nquad(f, ranges, opts=opts)
    if not (val > 0 and np.isfinite(val)):
        raise ValueError("The numerical integral vanished; C or K are too extreme for the reference integration.")
    return float(np.log(val) + ref)


# --------------------------------------------------------------------------
# The normaliser <N^n>
# --------------------------------------------------------------------------

@dataclass
class NormaliserEstimate:
    r"""An estimate of :math:`\ln\langle N(\theta)^n\rangle_\text{GP}` (eq. :eq:`(7.11) <ev-normaliser>`).

    Attributes
    ----------
    log_value : float
    std_error : float
        Delta-method standard error of ``log_value``: :math:`\sqrt{(S/\text{ESS} - 1)/S}`. It is
        itself a Monte Carlo estimate and is optimistic when rare draws were never seen.
    ess : float
        Effective sample size :math:`(\sum w)^2 / \sum w^2` of the importance weights.
    n_samples : int
    method : str

    Parameters
    ----------
    log_value, std_error, ess, n_samples, method
        The fields below (a record returned by :func:`log_normaliser_mc` and
        :func:`log_normaliser_ais`).

    Examples
    --------
    >>> from svmlib.evidence import NormaliserEstimate
    >>> e = NormaliserEstimate(log_value=-1.6, std_error=0.1, ess=75.0, n_samples=200, method='plain Monte Carlo')
    >>> print(e.method)
    plain Monte Carlo
    """

    log_value: float
    std_error: float
    ess: float
    n_samples: int
    method: str


def _summarise(log_w, method, min_ess, stacklevel=3):
    S = log_w.size
    lse = logsumexp(log_w)
    ess = float(np.exp(2 * lse - logsumexp(2 * log_w)))
    se = float(np.sqrt(max(S / ess - 1.0, 0.0) / S))
    if ess < min_ess:
        warnings.warn(
            f"{method}: effective sample size {ess:.1f} of {S} is below {min_ess:g}; the estimate of "
            "ln<N^n> is dominated by a few draws and probably too LOW (rare draws were missed). "
            "Use log_normaliser_ais, more samples, or a smaller C K0 / n.",
            LowESSWarning, stacklevel=stacklevel)
    return NormaliserEstimate(float(lse - np.log(S)), se, ess, S, method)


def log_normaliser_mc(prior, n, C, *, n_draws=2000, scale=1.0, random_state=None, min_ess=None):
    r"""Plain Monte Carlo :math:`\ln\langle N^n\rangle` from GP prior draws on ``prior``'s points.

    Implements eq. :eq:`(7.11) <ev-normaliser>` by plain Monte Carlo.

    With a grid and uniform weights this is the data-independent normaliser for uniform
    :math:`Q(x)`; with the training inputs it is Sollich's empirical proxy. Warns
    (:class:`LowESSWarning`) when the effective sample size is below ``min_ess``
    (default: ``max(50, n_draws / 100)``).

    Parameters
    ----------
    prior : GridPrior
        The points and their weights.
    n : int
        Data set size.
    C : float
        Finite, positive likelihood parameter.
    n_draws : int, default 2000
        Prior draws.
    scale : float, default 1.0
        Amplitude factor of the prior draws.
    random_state : int, Generator or None
    min_ess : float, optional
        Effective sample size below which a :class:`LowESSWarning` fires.

    Returns
    -------
    NormaliserEstimate
        :math:`\ln\langle N^n\rangle` with its standard error and effective sample size.

    Examples
    --------
    >>> from svmlib.probabilistic import GridPrior, unit_grid
    >>> from svmlib.kernels import RBF
    >>> prior = GridPrior(RBF(l=0.3), unit_grid(20))
    >>> from svmlib.evidence import log_normaliser_mc
    >>> e = log_normaliser_mc(prior, n=5, C=2.0, n_draws=200, random_state=0)
    >>> print(f'{e.log_value:.2f}', e.n_samples)
    -1.61 200
    """
    if not isinstance(prior, GridPrior):
        raise TypeError("prior must be a svmlib.probabilistic.GridPrior on a grid or on the training inputs.")
    n = check_positive_int(n, "n")
    C = check_C(C, allow_inf=False)
    n_draws = check_positive_int(n_draws, "n_draws")
    theta = prior.sample(n_draws, check_random_state(random_state), scale)
    log_w = n * log_N(theta, C, prior.weights)
    return _summarise(log_w, "plain Monte Carlo", max(50.0, n_draws / 100) if min_ess is None else min_ess)


def _ais_log_weights(prior, n, C_values, scales, n_chains, betas, rng):
    """AIS log weights, shape ``(len(C_values), n_chains)``, for several (C, scale) pairs at once.

    All pairs share the same white noise (common random numbers: a smooth curve in C) and are
    advanced together, so one vectorised elliptical slice step serves every C.
    """
    m, G, L, w = len(C_values), prior.n_points, prior.L, prior.weights
    root = np.repeat(np.sqrt(scales), n_chains)[:, None]          # (m S, 1)
    C_rows = np.repeat(np.asarray(C_values, dtype=float), n_chains)[:, None]

    def unit_draws():
        return np.tile(rng.standard_normal((n_chains, G)) @ L.T, (m, 1))

    with blas_single_thread():
        theta = root * unit_draws()
        lN = _log_N(theta, C_rows, w)
        log_w = np.zeros(theta.shape[0])
        for k in range(1, betas.size):
            log_w += (betas[k] - betas[k - 1]) * n * lN
            beta = betas[k]

            def target(t, rows, b=beta):
                return b * n * _log_N(t, C_rows[rows], w)

            theta, ll, _ = _ess_step(theta, beta * n * lN, root * unit_draws(), target, rng)
            lN = ll / (beta * n)
    return log_w.reshape(m, n_chains)


def _ais_schedule(n_temps, power=4.0):
    # beta = (k/T)^4: most temperatures near beta = 0, where N^(beta n) changes fastest
    return np.linspace(0.0, 1.0, n_temps + 1) ** power


def log_normaliser_ais(prior, n, C, *, n_chains=100, n_temps=50, scale=1.0, random_state=None,
                       min_ess=None):
    r"""Annealed importance sampling :cite:`neal2001annealed` of :math:`\ln\langle N^n\rangle`.

    Implements eq. :eq:`(7.11) <ev-normaliser>` by annealed importance sampling (eq.
    :eq:`(A.26) <tk-ais-weight>` of the toolkit appendix).

    Chains start from GP prior draws and move through :math:`Q(\theta) N(\theta)^{\beta n}`,
    :math:`\beta = (k/T)^4`, by one elliptical slice step per temperature; the importance weight
    accumulates :math:`(\beta_k - \beta_{k-1})\, n \ln N(\theta)`. This is the "Monte Carlo
    chaining" of Sollich (2002): it finds the rare draws with large :math:`N` that dominate
    :math:`\langle N^n\rangle` at large ``C`` or ``n`` and that plain Monte Carlo misses.
    Warns (:class:`LowESSWarning`) when the weights' ESS is below ``min_ess`` (default ``n_chains / 10``).

    Parameters
    ----------
    prior : GridPrior
        The points and their weights.
    n : int
        Data set size.
    C : float
        Finite, positive likelihood parameter.
    n_chains : int, default 100
        Independent annealing chains.
    n_temps : int, default 50
        Temperatures per chain.
    scale : float, default 1.0
        Amplitude factor of the prior draws.
    random_state : int, Generator or None
    min_ess : float, optional
        Effective sample size below which a :class:`LowESSWarning` fires.

    Returns
    -------
    NormaliserEstimate
        :math:`\ln\langle N^n\rangle` with its standard error and effective sample size.

    Examples
    --------
    >>> from svmlib.probabilistic import GridPrior, unit_grid
    >>> from svmlib.kernels import RBF
    >>> prior = GridPrior(RBF(l=0.3), unit_grid(20))
    >>> from svmlib.evidence import log_normaliser_ais
    >>> e = log_normaliser_ais(prior, n=5, C=2.0, n_chains=20, n_temps=10, random_state=0)
    >>> print(f'{e.log_value:.2f}', e.n_samples)
    -1.62 20
    """
    if not isinstance(prior, GridPrior):
        raise TypeError("prior must be a svmlib.probabilistic.GridPrior.")
    n = check_positive_int(n, "n")
    C = check_C(C, allow_inf=False)
    n_chains = check_positive_int(n_chains, "n_chains")
    n_temps = check_positive_int(n_temps, "n_temps")
    scale = check_positive(scale, "scale")
    rng = check_random_state(random_state)
    log_w = _ais_log_weights(prior, n, [C], [scale], n_chains, _ais_schedule(n_temps), rng)[0]
    return _summarise(log_w, "annealed importance sampling", n_chains / 10 if min_ess is None else min_ess)


def _systematic_resample(log_w, rng):
    w = np.exp(log_w - logsumexp(log_w))
    S = w.size
    positions = (rng.uniform() + np.arange(S)) / S
    return np.minimum(np.searchsorted(np.cumsum(w), positions), S - 1)


def _smc_along_path(prior, n, C_path, scale_path, n_chains, n_beta, n_moves, rng):
    """One sequential Monte Carlo run: anneal beta at the first path point, then follow the path.

    Works in unit-amplitude coordinates f (theta = sqrt(scale) f), so moving along the path only
    changes the likelihood factor N(sqrt(scale) f)^n; resamples when the ESS drops below half.
    Returns ln<N^n> at every path point.
    """
    L, w, G = prior.L, prior.weights, prior.n_points
    S = n_chains

    def lN(f, C, s):
        return _log_N(np.sqrt(s) * f, C, w)

    def move(f, cur, C, s, factor):
        for _ in range(n_moves):
            draw = rng.standard_normal((S, G)) @ L.T
            f, ll, _ = _ess_step(f, factor * cur, draw, lambda t, rows: factor * lN(t, C, s), rng)
            cur = ll / factor
        return f, cur

    f = rng.standard_normal((S, G)) @ L.T
    cur = lN(f, C_path[0], scale_path[0])
    log_w, log_z = np.zeros(S), 0.0

    def reweight(log_w, log_z, f, cur):
        if np.exp(2 * logsumexp(log_w) - logsumexp(2 * log_w)) < S / 2:
            log_z += logsumexp(log_w) - np.log(S)
            idx = _systematic_resample(log_w, rng)
            return np.zeros(S), log_z, f[idx], cur[idx]
        return log_w, log_z, f, cur

    betas = _ais_schedule(n_beta)
    for k in range(1, betas.size):
        log_w = log_w + (betas[k] - betas[k - 1]) * n * cur
        log_w, log_z, f, cur = reweight(log_w, log_z, f, cur)
        f, cur = move(f, cur, C_path[0], scale_path[0], betas[k] * n)
    out = np.empty(len(C_path))
    out[0] = log_z + logsumexp(log_w) - np.log(S)
    for j in range(1, len(C_path)):
        new = lN(f, C_path[j], scale_path[j])
        log_w = log_w + n * (new - cur)
        cur = new
        out[j] = log_z + logsumexp(log_w) - np.log(S)
        log_w, log_z, f, cur = reweight(log_w, log_z, f, cur)
        f, cur = move(f, cur, C_path[j], scale_path[j], n)
    return out


@dataclass
class NormaliserCurve:
    r""":math:`\ln\langle N^n\rangle` along ``C`` at fixed :math:`C K_0` (data independent).

    Eq. :eq:`(7.11) <ev-normaliser>` along a path of C.

    Attributes
    ----------
    C, log_value, std_error : ndarray
        Estimates and their standard errors, from the spread of ``n_replicas`` independent
        sequential Monte Carlo runs.
    n : int, CK0 : float

    Parameters
    ----------
    C, log_value, std_error, n, CK0
        The fields below (a record returned by :func:`normaliser_curve`).

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.evidence import NormaliserCurve
    >>> c = NormaliserCurve(C=np.array([1.0, 2.0]), log_value=np.array([-0.8, -1.7]),
    ...                  std_error=np.array([0.0, 0.05]), n=5, CK0=2.0)
    >>> print(c.n, c.CK0)
    5 2.0
    """

    C: np.ndarray
    log_value: np.ndarray
    std_error: np.ndarray
    n: int
    CK0: float


def normaliser_curve(kernel, grid, n, C_values, *, CK0, n_chains=50, n_beta=30, n_between=8, n_moves=1,
                     n_replicas=4, random_state=0, max_se=0.5):
    r""":math:`\ln\langle N^n\rangle` for every C of ``C_values`` at fixed :math:`C K_0` by chained sampling.

    Implements eq. :eq:`(7.11) <ev-normaliser>`.

    The "Monte Carlo chaining" of Sollich (2002) as a sequential Monte Carlo sampler
    (annealed importance sampling with resampling, :cite:`neal2001annealed`): particles start at the
    GP prior, are annealed in :math:`\beta` at the smallest C (where :math:`N \approx 1` and this is
    easy), then follow C upwards through ``n_between`` intermediate values per step, each
    reweighted by the change of :math:`N^n` and moved by elliptical slice sampling. One run gives
    the whole curve; ``n_replicas`` independent runs give the error bar, and a
    :class:`LowESSWarning` fires where it exceeds ``max_se`` nats.

    ``kernel``'s Gram matrix on ``grid`` is rescaled as a whole to amplitude :math:`K_0 = C K_0 / C`.

    Parameters
    ----------
    kernel : Kernel, name or callable
        Its shape; the amplitude is set to :math:`C K_0 / C` for each C.
    grid : array_like of shape (n_grid, n_features)
        Points of the uniform input density :math:`Q(x)`.
    n : int
        Data set size (the exponent of :math:`N`).
    C_values : array_like
        Strictly increasing values of C.
    CK0 : float
        The fixed product :math:`C K_0`.
    n_chains : int, default 50
        Particles per run.
    n_beta : int, default 30
        Annealing steps at the smallest C.
    n_between : int, default 8
        Intermediate values of C per step.
    n_moves : int, default 1
        Elliptical slice moves per intermediate value.
    n_replicas : int, default 4
        Independent runs (their spread is the error bar).
    random_state : int, Generator or None, default 0
    max_se : float, default 0.5
        Standard error (nats) above which a :class:`LowESSWarning` fires.

    Returns
    -------
    NormaliserCurve
        :math:`\ln\langle N^n\rangle` and its standard error at each C.

    Examples
    --------
    >>> from svmlib.evidence import normaliser_curve
    >>> from svmlib.probabilistic import unit_grid
    >>> from svmlib.kernels import RBF
    >>> c = normaliser_curve(RBF(l=0.3), unit_grid(20), 5, [1.0, 2.0], CK0=2.0,
    ...                  n_chains=20, n_beta=5, n_between=2, n_replicas=2)
    >>> print(c.log_value.shape, bool(c.log_value[1] < c.log_value[0] < 0))
    (2,) True
    """
    kern = make_kernel(kernel)
    n = check_positive_int(n, "n")
    CK0 = check_positive(CK0, "CK0")
    C_values = _check_C_values(C_values)
    n_between = check_positive_int(n_between, "n_between")
    n_replicas = check_positive_int(n_replicas, "n_replicas", minimum=2)
    n_chains = check_positive_int(n_chains, "n_chains", minimum=2)
    n_beta = check_positive_int(n_beta, "n_beta")
    n_moves = check_positive_int(n_moves, "n_moves")
    prior = grid if isinstance(grid, GridPrior) else GridPrior(kern, grid)
    base_K0 = float(prior.kernel.K0)
    # fine path: n_between geometric steps between consecutive requested C values
    logC = np.log(C_values)
    path = np.exp(np.concatenate([np.linspace(a, b, n_between, endpoint=False) for a, b in zip(logC[:-1], logC[1:])]
                                 + [logC[-1:]]))
    keep = np.r_[np.arange(0, n_between * (C_values.size - 1), n_between), path.size - 1]
    scales = CK0 / path / base_K0
    rng = check_random_state(random_state)
    with blas_single_thread():
        runs = np.array([_smc_along_path(prior, n, path, scales, n_chains, n_beta, n_moves, rng)[keep]
                         for _ in range(n_replicas)])
    # combine replicas as an average of unbiased estimates of <N^n> (not of its log)
    log_value = logsumexp(runs, axis=0) - np.log(n_replicas)
    se = runs.std(axis=0, ddof=1) / np.sqrt(n_replicas)
    bad = se > max_se
    if bad.any():
        warnings.warn(f"normaliser_curve: replica spread above {max_se} nats at C = "
                      f"{np.array2string(C_values[bad], precision=3)}; use more chains or steps.",
                      LowESSWarning, stacklevel=2)
    return NormaliserCurve(C_values, log_value, se, n, CK0)


def _check_C_values(C_values):
    C_values = np.asarray(C_values, dtype=float)
    if C_values.ndim != 1 or C_values.size == 0 or not np.all(np.isfinite(C_values)) or np.any(C_values <= 0):
        raise ValueError("C_values must be a non-empty 1-D array of positive, finite numbers.")
    if np.any(np.diff(C_values) <= 0):
        raise ValueError("C_values must be strictly increasing (the normaliser is chained along C).")
    return C_values


# --------------------------------------------------------------------------
# Evidence along C at fixed C K0
# --------------------------------------------------------------------------

@dataclass
class EvidenceCurve:
    r"""Naive and full log evidence along ``C`` with :math:`C K_0` fixed.

    Eq. :eq:`(7.2) <ev-full>` along a path of C.

    Attributes
    ----------
    C, K0 : ndarray
    log_naive : ndarray, Laplace estimate of :math:`\ln Q_\text{naive}`
    log_normaliser, normaliser_se, normaliser_ess : ndarray, :math:`\ln\langle N^n\rangle` and its quality
    log_evidence : ndarray, ``log_naive - log_normaliser`` (up to :math:`\sum\ln Q(x_i)`)
    theta_train : the SVM's :math:`\theta^*` at the training inputs (the same for every C)
    alpha_over_C : :math:`\alpha / C`, also the same for every C

    Parameters
    ----------
    C, K0, log_naive, log_normaliser, normaliser_se, normaliser_ess, log_evidence, theta_train, alpha_over_C
        The fields below (a record returned by :func:`evidence_curve`).

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.kernels import RBF
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(10, 1))
    >>> y = np.where(X[:, 0] > 0.5, 1.0, -1.0)
    >>> K = RBF(l=0.3, B2=1.0)(X)
    >>> from svmlib.evidence import evidence_curve
    >>> ec = evidence_curve(X, y, RBF(l=0.3, B2=1.0), [1.0, 2.0], CK0=2.0, normaliser='mc', n_draws=200)
    >>> print(type(ec).__name__, ec.log_evidence.shape)
    EvidenceCurve (2,)
    """

    C: np.ndarray
    K0: np.ndarray
    log_naive: np.ndarray
    log_normaliser: np.ndarray
    normaliser_se: np.ndarray
    normaliser_ess: np.ndarray
    log_evidence: np.ndarray
    theta_train: np.ndarray
    alpha_over_C: np.ndarray

    @property
    def C_best(self):
        """The C of the full-evidence maximum."""
        return float(self.C[np.argmax(self.log_evidence)])

    @property
    def C_best_naive(self):
        """The C of the naive-evidence maximum."""
        return float(self.C[np.argmax(self.log_naive)])


def evidence_curve(X, y, kernel, C_values, *, CK0, grid=None, normaliser="chain", n_draws=2000,
                   random_state=0, **chain_options):
    r"""Naive and full evidence along ``C_values`` at fixed :math:`C K_0` (eq. :eq:`(7.2) <ev-full>`).

    The kernel's Gram matrix is rescaled as a whole, :math:`K(C) = (C K_0 / C)\,
    K_\text{kernel} / K_{0,\text{kernel}}` (so ``B2 / K0`` is held fixed), which leaves the SVM
    solution :math:`\theta^*` unchanged: the dual is solved ONCE and :math:`\alpha = C a` rescales.

    Data sets with a single label are accepted (not ``svmlib._validation.check_data``, which
    demands two classes): the model generates them, the no-bias dual has no equality constraint
    to need both classes, and :ref:`Chapter 7 <ch-evidence>` shows that their evidence cannot determine C.

    Parameters
    ----------
    X : array_like of shape (n, d)
        Training inputs.
    y : array_like of shape (n,)
        Labels in {-1, +1}.
    kernel : Kernel, name or callable
        Its shape; its amplitude is replaced.
    C_values : array_like
        Strictly increasing 1-D array of C.
    CK0 : float
        The fixed product :math:`C K_0`.
    grid : array_like of shape (n_grid, d), optional
        Points for the normaliser (uniform :math:`Q(x)` on them); the training inputs if None
        (Sollich's proxy).
    normaliser : {'chain', 'mc'}, NormaliserCurve or None, default 'chain'
        'chain': :func:`normaliser_curve`; 'mc': plain Monte Carlo with one set of draws rescaled
        for every C; a precomputed :class:`NormaliserCurve` (it is data independent: compute it
        once for many data sets of the same size); None: no normaliser.
    n_draws : int, default 2000
        Plain Monte Carlo draws.
    random_state : int or Generator, default 0
    **chain_options
        Passed to :func:`normaliser_curve`.

    Returns
    -------
    EvidenceCurve
        Naive, normaliser and full log evidence at each C.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.kernels import RBF
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(10, 1))
    >>> y = np.where(X[:, 0] > 0.5, 1.0, -1.0)
    >>> K = RBF(l=0.3, B2=1.0)(X)
    >>> from svmlib.evidence import evidence_curve
    >>> ec = evidence_curve(X, y, RBF(l=0.3, B2=1.0), [1.0, 2.0], CK0=2.0, normaliser='mc', n_draws=200)
    >>> print(np.round(ec.log_evidence, 2))
    [-1.55 -1.66]
    """
    X = check_inputs(X)
    y = _check_labels(y)
    if y.size != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.size} labels; give one label -1/+1 per row.")
    kern = make_kernel(kernel)
    C_values = _check_C_values(C_values)
    CK0 = check_positive(CK0, "CK0")
    n = y.size
    base_K0 = float(kern.K0)
    K_unit = kern(X) / base_K0                      # kernel at K0 = 1 (B2 scaled with it)
    # Solve once at C = 1, K0 = CK0: alpha(C) = C a, theta* unchanged along the curve.
    with blas_single_thread():
        sol = solve_no_bias_dual(CK0 * K_unit, y, 1.0)
        a = sol.alpha
        theta = CK0 * K_unit @ (a * y)
        K0s = CK0 / C_values
        log_naive = np.array([laplace_log_naive_evidence(K0 * K_unit, y, C * a, C)
                              for C, K0 in zip(C_values, K0s)])

    m = C_values.size
    log_norm, se, ess = np.zeros(m), np.zeros(m), np.full(m, np.nan)
    points = X if grid is None else grid
    if isinstance(normaliser, NormaliserCurve):
        if normaliser.n != n or not np.allclose(normaliser.C, C_values) or not np.isclose(normaliser.CK0, CK0):
            raise ValueError("The precomputed NormaliserCurve was made for another n, C grid or C K0; "
                             f"it needs n = {n}, CK0 = {CK0} and the same C_values.")
        log_norm, se = normaliser.log_value, normaliser.std_error
    elif normaliser == "chain":
        curve = normaliser_curve(kern, points, n, C_values, CK0=CK0, random_state=random_state, **chain_options)
        log_norm, se = curve.log_value, curve.std_error
    elif normaliser == "mc":
        rng = check_random_state(random_state)
        prior = GridPrior(kern, points)
        base = prior.sample(n_draws, rng)
        for j, C in enumerate(C_values):
            s = K0s[j] / base_K0
            est = _summarise(n * _log_N(np.sqrt(s) * base, C, prior.weights), f"plain Monte Carlo at C = {C:.3g}",
                             max(50.0, n_draws / 100))
            log_norm[j], se[j], ess[j] = est.log_value, est.std_error, est.ess
    elif normaliser is not None:
        raise ValueError(f"normaliser must be 'chain', 'mc', a NormaliserCurve or None, got {normaliser!r}.")
    return EvidenceCurve(C_values, K0s, log_naive, log_norm, se, ess, log_naive - log_norm, theta, a)
