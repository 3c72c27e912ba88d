"""The result of the replica fixed point, shared by the plain iteration and the accelerated solver."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.special import ndtr

from .._validation import check_positive

__all__ = ["MAX_S_OVER_N", "ReplicaSolution", "check_S_over_N"]

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
        (eq. boot-field-train).
    error : float
        Bootstrapped test error (eq. boot-error), ``mean(Phi(-y m_c / sqrt(V_c)))``.
    n_iter : int
        Fixed-point iterations used (over all damping attempts).
    converged : bool
        Whether the residual fell below the tolerance.
    residual : float
        Final max disagreement of Gaussian and site marginals.
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
            ``Phi(-y m_c / sqrt(V_c))``, whose mean is eq. (boot-error).
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
