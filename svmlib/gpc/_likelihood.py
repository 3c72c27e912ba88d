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
    """``ln Phi(z)``, accurate for very negative ``z`` (scipy's ``log_ndtr``)."""
    return log_ndtr(z)


def D(z):
    """``D(z) = phi(z) / Phi(z)``, the derivative of ``ln Phi``.

    Computed as ``exp(ln phi - ln Phi)``: the ratio of two tiny numbers for
    ``z << 0`` (where ``D(z) ~ -z``) never becomes ``0/0``.
    """
    z = np.asarray(z, dtype=float)
    # Beyond |z| ~ 1e6 use the asymptotics (D = -z - 1/z below, D = 0 above): the
    # exponent's z^2 would overflow for a diverging iteration.
    zc = np.clip(z, -_Z_FAR, 40.0)
    inner = np.exp(-0.5 * zc * zc - _LOG_SQRT_2PI - log_ndtr(zc))
    return np.where(z < -_Z_FAR, -z - 1.0 / np.where(z < -_Z_FAR, z, -1.0), np.where(z > 40.0, 0.0, inner))


def dD(z, Dz=None):
    """``D'(z) = -D(z) (z + D(z))``, which lies in (-1, 0)."""
    z = np.asarray(z, dtype=float)
    Dz = D(z) if Dz is None else Dz
    # Round-off in z + D(z) for z << 0 can push the value an ulp outside (-1, 0).
    return np.clip(-Dz * (z + Dz), -1.0 + 1e-15, 0.0)
