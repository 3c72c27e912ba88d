"""Monte Carlo bootstrap of the hard-margin SVM without bias.

Each bootstrap sample is a vector of occupation numbers s (how often each
training point is drawn). A hard margin ignores multiplicities, so the SVM is
trained on the points with s_i > 0 only, re-using rows of one precomputed Gram
matrix. The test error counts the points left out (s_i = 0).

Randomness: one ``numpy.random.SeedSequence`` spawns one child seed per sample,
so sample k is the same whichever worker draws it: serial and ``n_jobs`` runs
(any joblib backend, e.g. Dask on a cluster) give identical results.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from joblib import Parallel, delayed

from .._threads import blas_single_thread
from .._validation import check_bool, check_n_jobs, check_positive, check_positive_int
from ._hardmargin import JITTER, check_gram, fit_hard_margin

__all__ = ["MonteCarloResult", "monte_carlo_bootstrap", "seed_sequence", "draw_occupations"]

SAMPLINGS = ("poisson", "multinomial")


@dataclass
class MonteCarloResult:
    """Monte Carlo bootstrap samples of the SVM and the error estimate.

    Attributes
    ----------
    occupations : ndarray of int, shape (n_samples, n)
        How often each training point is in each sample.
    coef : ndarray, shape (n_samples, n)
        ``y * alpha`` of each sample's SVM (zero off the sample), so the field of
        sample k at any input x is ``K(x, X) @ coef[k]``.
    fields : ndarray, shape (n_samples, n)
        Fields at the training inputs, ``coef @ K``.
    fields_new : ndarray of shape (n_samples, n_new) or None
        Fields at the new inputs, if ``K_new`` was given.
    error, error_se : float
        Bootstrapped test error (eq. :eq:`(9.3) <boot-mc-error>`) and its delta-method standard error.
    S_over_N : float
    sampling : str

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.datasets import make_blobs2d
    >>> from svmlib.kernels import RBF
    >>> X, y = make_blobs2d(40, separation=3.0, random_state=0)
    >>> K = RBF(l=1.0)(X)
    >>> from svmlib.bootstrap import monte_carlo_bootstrap
    >>> mc = monte_carlo_bootstrap(K, y, 1.0, 50, random_state=0)
    >>> mc.occupations.shape, mc.out_of_sample.shape
    ((50, 40), (50, 40))
    >>> bool(abs(mc.out_of_sample.mean() - np.exp(-1)) < 0.05)  # a point is left out with probability e^-S/N
    True
    """

    occupations: np.ndarray
    coef: np.ndarray
    fields: np.ndarray
    fields_new: np.ndarray | None
    error: float
    error_se: float
    S_over_N: float
    sampling: str

    @property
    def out_of_sample(self):
        """Boolean mask (n_samples, n): point i was not drawn in sample k."""
        return self.occupations == 0

    def point_errors(self, y):
        """Per training point: the fraction of samples leaving it out that misclassify it."""
        out = self.out_of_sample
        wrong = out & (y[None, :] * self.fields < 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(out.sum(0) > 0, wrong.sum(0) / np.maximum(out.sum(0), 1), np.nan)


def seed_sequence(random_state):
    """A SeedSequence from an int, None (fresh entropy) or a numpy Generator.

    No equation: the seeding behind the Monte Carlo bootstrap (eq. :eq:`(9.3) <boot-mc-error>`). Each
    bootstrap sample gets one ``spawn``-ed child of this sequence, so its draws do not depend
    on which worker runs it.

    Parameters
    ----------
    random_state : int, None, numpy Generator or numpy SeedSequence
        A non-negative int (reproducible), None (fresh entropy from the operating system),
        a Generator (one integer is drawn from it, advancing its state) or a SeedSequence
        (returned as is).

    Returns
    -------
    numpy.random.SeedSequence

    Raises
    ------
    ValueError
        A negative int.
    TypeError
        Any other type (a bool, a float, a legacy ``RandomState``, ...).

    Examples
    --------
    >>> from svmlib.bootstrap import seed_sequence
    >>> a, b = seed_sequence(0), seed_sequence(0)
    >>> [s.generate_state(1)[0] for s in a.spawn(2)] == [s.generate_state(1)[0] for s in b.spawn(2)]
    True
    """
    if isinstance(random_state, np.random.SeedSequence):
        return random_state
    if isinstance(random_state, np.random.Generator):
        return np.random.SeedSequence(int(random_state.integers(0, 2**63)))
    if random_state is None or (isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool)):
        if random_state is not None and random_state < 0:
            raise ValueError(f"random_state must be a non-negative integer, got {random_state}.")
        return np.random.SeedSequence(random_state)
    raise TypeError(f"random_state must be None, a non-negative int or a numpy Generator, got {random_state!r}.")


def draw_occupations(rng, n, S_over_N, sampling="poisson"):
    r"""Occupation numbers of one bootstrap sample (eq. :eq:`(9.1) <boot-poisson>` or the multinomial bootstrap).

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of randomness (``np.random.default_rng(seed)``).
    n : int
        Number of training points :math:`N`, positive.
    S_over_N : float
        Mean sample size over :math:`N`, positive.
    sampling : {'poisson', 'multinomial'}, default 'poisson'
        ``'poisson'``: independent :math:`s_i \sim \mathrm{Poisson}(S/N)` (eq. :eq:`(9.1) <boot-poisson>`);
        ``'multinomial'``: exactly ``round(S_over_N * n)`` draws with replacement, each point
        with probability :math:`1/N`.

    Returns
    -------
    ndarray of int, shape (n,)
        How often each training point is in the sample (0: left out).

    Raises
    ------
    TypeError
        ``rng`` is not a numpy Generator.
    ValueError
        A non-positive ``n`` or ``S_over_N``, or an unknown ``sampling``.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.bootstrap import draw_occupations
    >>> s = draw_occupations(np.random.default_rng(0), 10_000, 1.0)  # Poisson(S/N) per point, eq. :eq:`(9.1) <boot-poisson>`
    >>> bool(abs(s.mean() - 1.0) < 0.05 and abs((s == 0).mean() - np.exp(-1)) < 0.02)
    True
    >>> int(draw_occupations(np.random.default_rng(0), 10, 1.0, "multinomial").sum())  # exactly S = N points
    10
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator (np.random.default_rng(seed)), got {type(rng).__name__}.")
    n = check_positive_int(n, "n")
    S_over_N = check_positive(S_over_N, "S_over_N")
    if sampling not in SAMPLINGS:
        raise ValueError(f"sampling must be one of {SAMPLINGS}, got {sampling!r}.")
    return _draw_occupations(rng, n, S_over_N, sampling)


def _draw_occupations(rng, n, S_over_N, sampling):
    """draw_occupations without the checks (called once per bootstrap sample)."""
    if sampling == "poisson":
        return rng.poisson(S_over_N, size=n)
    return rng.multinomial(int(round(S_over_N * n)), np.full(n, 1.0 / n))


def _fit_chunk(K, y, seeds, S_over_N, sampling, jitter):
    """Occupations and ``y * alpha`` for the samples with these child seeds."""
    n = y.shape[0]
    occ = np.empty((len(seeds), n), dtype=np.int32)
    coef = np.zeros((len(seeds), n))
    with blas_single_thread():
        for k, seed in enumerate(seeds):
            s = _draw_occupations(np.random.default_rng(seed), n, S_over_N, sampling)
            occ[k] = s
            idx = np.flatnonzero(s)
            if idx.size:  # an empty sample has f = 0 everywhere (the prior mean)
                alpha = fit_hard_margin(K[np.ix_(idx, idx)], y[idx], jitter=jitter, check=False)
                coef[k, idx] = y[idx] * alpha
    return occ, coef


def ratio_error(occupations, fields, y):
    r"""Error over out-of-sample points pooled over samples, and its delta-method SE.

    Implements eq. :eq:`(9.3) <boot-mc-error>`:
    :math:`\varepsilon = \sum_k E_k / \sum_k n_k` with :math:`E_k` the misclassified
    (:math:`y_i f_k(x_i) < 0`) and :math:`n_k` the left-out points of sample :math:`k`.
    For :math:`M` i.i.d. samples,
    :math:`\mathrm{Var}(\varepsilon) \approx \mathrm{Var}(E - \varepsilon n) / (M \bar n^2)`,
    with the sample variance (divisor :math:`M - 1`).

    Parameters
    ----------
    occupations : ndarray of int, shape (n_samples, n)
        Occupation numbers of each sample; point ``i`` is out of sample ``k`` when
        ``occupations[k, i] == 0``.
    fields : ndarray, shape (n_samples, n)
        Field :math:`f_k(x_i)` of sample ``k``'s SVM at each training input.
    y : ndarray, shape (n,)
        Labels in {-1, +1}.

    Returns
    -------
    error : float
        The pooled out-of-sample error :math:`\varepsilon`.
    error_se : float
        Its delta-method standard error (``inf`` for a single sample).

    Raises
    ------
    ValueError
        No point was left out of any sample (``S_over_N`` too large for the number of samples).

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.bootstrap import ratio_error
    >>> y = np.array([1.0, -1.0, 1.0])
    >>> occupations = np.array([[0, 1, 2], [1, 0, 0]])  # sample 1 leaves out point 0, sample 2 points 1 and 2
    >>> fields = np.array([[-0.5, -1.0, 1.0], [1.0, 0.3, 2.0]])  # errors: point 0 in sample 1, point 1 in sample 2
    >>> eps, se = ratio_error(occupations, fields, y)
    >>> print(f"{eps:.4f}")  # 2 errors among 3 left-out points
    0.6667
    """
    out = occupations == 0
    E = (out & (y[None, :] * fields < 0)).sum(axis=1).astype(float)
    n_out = out.sum(axis=1).astype(float)
    if n_out.sum() == 0:
        raise ValueError("No point was ever left out of a bootstrap sample; use a smaller S_over_N.")
    eps = E.sum() / n_out.sum()
    M = E.size
    se = np.sqrt(np.sum((E - eps * n_out) ** 2) / (M * (M - 1))) / n_out.mean() if M > 1 else np.inf
    return float(eps), float(se)


def monte_carlo_bootstrap(K, y, S_over_N=1.0, n_samples=500, *, K_new=None, sampling="poisson",
                          n_jobs=None, random_state=None, progress=False, jitter=JITTER, backend=None):
    r"""Monte Carlo bootstrap of the hard-margin SVM without bias on a Gram matrix.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Gram matrix of the (distinct) training inputs.
    y : ndarray of shape (n,)
        Labels (two classes; mapped to -1/+1).
    S_over_N : float
        Mean sample size over N. Poisson sampling draws :math:`s_i \sim
        \mathrm{Poisson}(S/N)` independently (eq. :eq:`(9.1) <boot-poisson>`); multinomial
        sampling draws exactly ``round(S)`` points with replacement.
    n_samples : int
        Number of bootstrap samples.
    K_new : ndarray of shape (n_new, n), optional
        Kernel between new inputs and the training inputs: their fields are returned too.
    sampling : {'poisson', 'multinomial'}
    n_jobs : int or None
        Parallel workers through joblib (``None`` = 1). Results do not depend on it.
    random_state : int, None, numpy Generator or SeedSequence
    progress : bool
        Show a ``tqdm`` progress bar.
    jitter : float
        Relative diagonal jitter of each sample's Gram matrix.
    backend : str, optional
        joblib backend (e.g. ``'loky'``, ``'threading'``, or ``'dask'`` inside
        ``joblib.parallel_config``).

    Returns
    -------
    MonteCarloResult

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.bootstrap import monte_carlo_bootstrap, solve_replica
    >>> from svmlib.datasets import load_crabs
    >>> from svmlib.kernels import RBF
    >>> crabs = load_crabs("species")
    >>> K = RBF(l=np.sqrt(5))(crabs.X)
    >>> mc = monte_carlo_bootstrap(K, crabs.y, 1.0, 200, random_state=0)  # eq. :eq:`(9.3) <boot-mc-error>`
    >>> print(f"Monte Carlo {mc.error:.4f} +- {mc.error_se:.4f}, theory {solve_replica(K, crabs.y, 1.0).error:.4f}")
    Monte Carlo 0.0042 +- 0.0005, theory 0.0042
    """
    K, y = check_gram(K, y)
    S_over_N = float(check_positive(S_over_N, "S_over_N"))
    n_samples = check_positive_int(n_samples, "n_samples", minimum=2)
    if sampling not in SAMPLINGS:
        raise ValueError(f"sampling must be one of {SAMPLINGS}, got {sampling!r}.")
    if K_new is not None:
        K_new = np.asarray(K_new, dtype=float)
        if K_new.ndim != 2 or K_new.shape[1] != y.size or not np.all(np.isfinite(K_new)):
            raise ValueError(f"K_new must be a finite (n_new, {y.size}) kernel matrix K(X_new, X).")
    n_jobs = check_n_jobs(n_jobs)
    progress = check_bool(progress, "progress")
    children = seed_sequence(random_state).spawn(n_samples)
    n_workers = 1 if n_jobs in (None, 1) else n_jobs
    n_chunks = min(n_samples, 1 if n_workers == 1 and not progress else max(4 * abs(n_workers), 20))
    bounds = np.linspace(0, n_samples, n_chunks + 1).astype(int)
    chunks = [children[a:b] for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
    jobs = (delayed(_fit_chunk)(K, y, c, S_over_N, sampling, jitter) for c in chunks)
    if n_workers == 1:
        results = (job[0](*job[1], **job[2]) for job in jobs)
    else:
        results = Parallel(n_jobs=n_workers, backend=backend, return_as="generator")(jobs)
    if progress:
        from tqdm.auto import tqdm

        results = tqdm(results, total=len(chunks), desc=f"bootstrap S/N={S_over_N:g}", unit="chunk")
    parts = list(results)
    occ = np.vstack([p[0] for p in parts])
    coef = np.vstack([p[1] for p in parts])
    with blas_single_thread():
        fields = coef @ K
        fields_new = coef @ K_new.T if K_new is not None else None
    error, se = ratio_error(occ, fields, y)
    return MonteCarloResult(occ, coef, fields, fields_new, error, se, S_over_N, sampling)
