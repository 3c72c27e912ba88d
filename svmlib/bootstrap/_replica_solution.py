"""The result of the replica fixed point and the input checks, shared by the plain iteration and the solver."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.special import ndtr

from .._validation import check_kernel_matrix, check_positive, check_positive_int
from ._hardmargin import check_gram

__all__ = ["MAX_S_OVER_N", "ReplicaSolution", "check_S_over_N", "check_sites", "check_gaussian_inputs",
           "check_map_inputs", "check_iteration_inputs"]

#: Above this S/N, 1 - p = e^{-S/N} < 1e-10 and the clamped sites' dl ~ 1/(1-p) make
#: B ill-conditioned (S/N = 32 overflowed in the prototype). The S -> infinity limit of the
#: theory is the Opper-Winther leave-one-out error (:func:`opper_winther_loo`).
MAX_S_OVER_N = 24.0


@dataclass
class ReplicaSolution:
    r"""Result of the replica/ADATAP fixed point at one sample size.

    Attributes
    ----------
    S_over_N : float
        Mean bootstrap sample size over the number of training points.
    dl, g, lam : ndarrays of shape (n,)
        Site parameters :math:`(\Delta\lambda_i, \gamma_i, \lambda_i)`.
    m_c, V_c, chi_c : ndarrays of shape (n,)
        Cavity mean, variance and response at each training point: the bootstrap
        distribution of the field at x_i over samples that leave i out is N(m_c, V_c)
        (eq. :eq:`(9.18) <boot-field-train>`).
    error : float
        Bootstrapped test error (eq. :eq:`(9.19) <boot-error>`), ``mean(Phi(-y m_c / sqrt(V_c)))``.
    n_iter : int
        Fixed-point iterations used (over all damping attempts).
    converged : bool
        Whether the residual fell below the tolerance.
    residual : float
        Final max disagreement of Gaussian and site marginals (means and variances relative
        to the field's spread where its variance exceeds 1, see ``_replica_equations._residual``).
    damping : float
        The damping of the attempt that produced the solution.
    history : list of float
        Residual per iteration (of the returned attempt).
    n_rough : int
        Iterations (over all attempts) whose Gaussian part used a rough map (single
        precision or a low-rank surrogate of K; see ``rough_steps`` of :func:`solve_replica`).

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.bootstrap import solve_replica
    >>> from svmlib.datasets import make_blobs2d
    >>> from svmlib.kernels import RBF
    >>> X, y = make_blobs2d(40, separation=3.0, random_state=0)
    >>> sol = solve_replica(RBF(l=1.0)(X), y, 1.0)
    >>> sol.converged, sol.residual < 1e-8, sol.m_c.shape
    (True, True, (40,))
    >>> bool(np.isclose(sol.point_errors(y).mean(), sol.error))
    True
    """

    S_over_N: float
    dl: np.ndarray
    g: np.ndarray
    lam: np.ndarray
    m_c: np.ndarray
    V_c: np.ndarray
    chi_c: np.ndarray
    error: float
    n_iter: int
    converged: bool
    residual: float
    damping: float
    history: list = field(default_factory=list)
    n_rough: int = 0

    @property
    def sites(self):
        """The site parameters ``(dl, g, lam)``."""
        return self.dl, self.g, self.lam

    def point_errors(self, y):
        """Per training point: the predicted probability of an error when it is left out.

        Parameters
        ----------
        y : ndarray of shape (n,)
            Labels in {-1, +1} of the training points.

        Returns
        -------
        ndarray of shape (n,)
            ``Phi(-y m_c / sqrt(V_c))``, whose mean is eq. :eq:`(9.19) <boot-error>`.
        """
        return ndtr(-y * self.m_c / np.sqrt(self.V_c))


def check_S_over_N(S_over_N):
    """S/N as a float in (0, MAX_S_OVER_N], or a ValueError that says what to use instead."""
    S_over_N = float(check_positive(S_over_N, "S_over_N"))
    if S_over_N > MAX_S_OVER_N:
        raise ValueError(
            f"S_over_N = {S_over_N:g} is too large for double precision (1 - p = e^-S/N underflows "
            f"relative to 1; the limit is {MAX_S_OVER_N:g}). For S -> infinity the theory gives the "
            "Opper-Winther leave-one-out error: use svmlib.bootstrap.opper_winther_loo."
        )
    return S_over_N


def check_sites(y, m_c, V_c, chi_c, S_over_N):
    """Finite arrays of a common shape, labels -1/+1, V_c > 0 and chi_c > 0; S/N as check_S_over_N."""
    S_over_N = check_S_over_N(S_over_N)
    try:
        arrays = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in (y, m_c, V_c, chi_c)))
    except (TypeError, ValueError) as err:
        raise TypeError(f"y, m_c, V_c and chi_c must be numbers or arrays of one shape: {err}") from None
    y, m_c, V_c, chi_c = arrays
    if not all(np.all(np.isfinite(a)) for a in arrays):
        raise ValueError("y, m_c, V_c and chi_c must be finite (no NaN or infinity).")
    if not np.all(np.abs(y) == 1):
        raise ValueError("y must hold labels -1/+1.")
    if not (np.all(V_c > 0) and np.all(chi_c > 0)):
        raise ValueError("The cavity variance V_c and response chi_c must be > 0.")
    return y, m_c, V_c, chi_c, S_over_N


def check_gaussian_inputs(K, dl, g, lam):
    """K a finite symmetric n x n matrix; dl >= 0, g, lam finite arrays of length n."""
    try:
        dl, g, lam = (np.asarray(a, dtype=float) for a in (dl, g, lam))
    except (TypeError, ValueError) as err:
        raise TypeError(f"dl, g and lam must be numeric arrays: {err}") from None
    if dl.ndim != 1 or g.shape != dl.shape or lam.shape != dl.shape:
        raise ValueError(f"dl, g and lam must be 1-D arrays of one length, got shapes {dl.shape}, {g.shape}, "
                         f"{lam.shape}.")
    if not (np.all(np.isfinite(dl)) and np.all(np.isfinite(g)) and np.all(np.isfinite(lam))):
        raise ValueError("dl, g and lam must be finite (no NaN or infinity).")
    if np.any(dl < 0):
        raise ValueError("The site precisions dl must be >= 0.")
    return check_kernel_matrix(K, dl.size, name="K", symmetric=True), dl, g, lam


def check_map_inputs(K, y, S_over_N, x):
    """K, y as check_gram; S/N as check_S_over_N; x a finite cavity vector of length 3 n."""
    K, y = check_gram(K, y)
    S_over_N = check_S_over_N(S_over_N)
    x = np.asarray(x, dtype=float)
    if x.shape != (3 * y.size,) or not np.all(np.isfinite(x)):
        raise ValueError(f"x must be a finite cavity vector (m_c, log V_c, log chi_c) of length 3 n = {3 * y.size}.")
    return K, y, S_over_N, x


def check_dampings(dampings):
    """A non-empty tuple of floats in (0, 1]."""
    dampings = tuple(float(d) for d in np.atleast_1d(dampings))
    if not dampings or any(not (0 < d <= 1) for d in dampings):
        raise ValueError(f"dampings must be numbers in (0, 1], got {dampings!r}.")
    return dampings


def check_iteration_inputs(K, y, S_over_N, tol, max_iter, dampings):
    """The checked arguments of an iteration: K, y, S/N, tol > 0, max_iter >= 1 and the dampings."""
    K, y = check_gram(K, y)
    return (K, y, check_S_over_N(S_over_N), float(check_positive(tol, "tol")),
            check_positive_int(max_iter, "max_iter"), check_dampings(dampings))
