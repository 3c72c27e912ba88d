"""The step likelihood and its derivatives, computed without overflow.

With the noise-free step likelihood ``P(y|a) = Theta(y a)`` and a Gaussian
cavity ``N(h, lambda)``, the normaliser is ``Phi(z)`` with ``z = y h / sqrt(lambda)``.
Everything the mean-field equations need is ``ln Phi``, its derivative
``D(z) = phi(z) / Phi(z)`` and ``D'(z) = -D(z) (z + D(z))``.
"""

from __future__ import annotations

import numpy as np
from scipy.special import log_ndtr

__all__ = ["log_Phi", "D", "dD"]

_LOG_SQRT_2PI = 0.5 * np.log(2 * np.pi)
_Z_FAR = 1e6


def log_Phi(z):
    r"""``ln Phi(z)``, accurate for very negative ``z`` (scipy's ``log_ndtr``).

    The :math:`\ln\Phi(z_i)` terms of eq. :eq:`(8.14) <gpc-free-naive>`.

    Parameters
    ----------
    z : array_like
        Arguments.

    Returns
    -------
    ndarray
        :math:`\ln\Phi(z)`, same shape as ``z``.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import log_Phi
    >>> print(np.round(log_Phi([-40.0, 0.0]), 4))
    [-8.046084e+02 -6.931000e-01]
    """
    return log_ndtr(z)


def D(z):
    r"""``D(z) = phi(z) / Phi(z)``, the derivative of ``ln Phi``.

    The function :math:`D` of eqs. :eq:`(8.6) <gpc-tilted>` and :eq:`(8.7) <gpc-fixed-point>`.

    Computed as ``exp(ln phi - ln Phi)``: the ratio of two tiny numbers for
    ``z << 0`` (where ``D(z) ~ -z``) never becomes ``0/0``.

    Parameters
    ----------
    z : array_like
        Arguments.

    Returns
    -------
    ndarray
        :math:`D(z) = \phi(z)/\Phi(z) > 0`, same shape as ``z``.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import D
    >>> print(np.round(D([-30.0, 0.0, 3.0]), 4))
    [3.00333e+01 7.97900e-01 4.40000e-03]
    """
    z = np.asarray(z, dtype=float)
    # Beyond |z| ~ 1e6 use the asymptotics (D = -z - 1/z below, D = 0 above): the
    # exponent's z^2 would overflow for a diverging iteration.
    zc = np.clip(z, -_Z_FAR, 40.0)
    inner = np.exp(-0.5 * zc * zc - _LOG_SQRT_2PI - log_ndtr(zc))
    return np.where(z < -_Z_FAR, -z - 1.0 / np.where(z < -_Z_FAR, z, -1.0), np.where(z > 40.0, 0.0, inner))


def dD(z, Dz=None):
    """``D'(z) = -D(z) (z + D(z))``, which lies in (-1, 0).

    The derivative :math:`D'` of eqs. :eq:`(8.10) <gpc-ep-sites>` and :eq:`(8.12) <gpc-newton>`.

    Parameters
    ----------
    z : array_like
        Arguments.
    Dz : array_like, optional
        :math:`D(z)` if already computed.

    Returns
    -------
    ndarray
        :math:`D'(z)`, in (-1, 0), same shape as ``z``.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import dD
    >>> print(np.round(dD([-30.0, 0.0, 3.0]), 4))
    [-0.9989 -0.6366 -0.0133]
    """
    z = np.asarray(z, dtype=float)
    Dz = D(z) if Dz is None else Dz
    # Round-off in z + D(z) for z << 0 can push the value an ulp outside (-1, 0).
    return np.clip(-Dz * (z + Dz), -1.0 + 1e-15, 0.0)
