""":ref:`Chapter 10 <ch-lssvr>` widgets: eps -> the MAP approaching the LS-SVR; c and gamma -> the three sinc bands.

The computations are :func:`svmlib.lssvr.epsilon_convergence` and :func:`svmlib.lssvr.sinc_bands`,
plain functions tested in ``tests/test_lssvr.py``; the live widgets use a subsample of the sinc
data (``N_WIDGET`` points) so that a slider event stays under 150 ms including drawing.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import linalg

from ..lssvr import epsilon_convergence, rbf_from_c, sinc_bands
from ..plotting.lssvr import draw_epsilon_convergence, draw_sinc_bands, sinc_caption
from ._base import Explorer, slider

__all__ = [
    "N_WIDGET",
    "epsilon_explorer",
    "flat_bias_gp",
    "sinc_explorer",
    "LATENCY_CASES",
]

#: Sinc points used by the live band widget (the chapter's static figure uses the preprint's 1200).
N_WIDGET = 200


def epsilon_explorer(eps=1e-1):
    """A log slider for eps (1e-8 ... 1e3): predictions and the gap of the lemma."""
    controls = {"eps": slider(float(eps), -8, 3, 0.25, "ε (bias prior precision)", log=True)}
    return Explorer(epsilon_convergence, functools.partial(draw_epsilon_convergence, fixed_layout=True), controls,
                    figsize=(10, 3.8), grid={"eps": [float(10.0 ** e) for e in range(3, -9, -1)]})


def flat_bias_gp(state):
    r"""Replace the state's GP band by the GP the chapter recommends: a flat prior on the bias.

    With a flat (improper) prior on a constant added to the GP (Rasmussen and Williams, 2006, Sec. 2.7),
    :math:`A = K + I/\gamma`, :math:`\hat b = \mathbf 1^\top A^{-1}y / \mathbf 1^\top A^{-1}\mathbf 1` and
    :math:`r(x) = 1 - \mathbf 1^\top A^{-1}k(x)`, the posterior mean is
    :math:`\hat b + k(x)^\top A^{-1}(y - \hat b\mathbf 1)` (the LS-SVR's prediction) and the variance
    :math:`k(x, x) - k(x)^\top A^{-1}k(x) + r(x)^2/\mathbf 1^\top A^{-1}\mathbf 1`.

    Parameters
    ----------
    state : dict
        A :func:`svmlib.lssvr.sinc_bands` state (its GP has no bias).

    Returns
    -------
    dict
        A copy with ``gp_mean``, ``gp_std`` of the flat-bias GP and ``labels`` naming the band.
    """
    kernel = rbf_from_c(state["c"])
    X, x, y = state["X"][:, None], state["x"][:, None], state["y"]
    chol = linalg.cho_factor(kernel(X) + np.eye(len(X)) / state["gamma"])
    kx = kernel(X, x)
    a_1, a_y, a_k = (linalg.cho_solve(chol, v) for v in (np.ones(len(X)), y, kx))
    b_hat = a_1 @ y / a_1.sum()
    r = 1.0 - a_1 @ kx
    var = kernel.diag(x) - np.sum(kx * a_k, axis=0) + r**2 / a_1.sum()
    return {**state, "gp_mean": b_hat + kx.T @ (a_y - b_hat * a_1), "gp_std": np.sqrt(np.maximum(var, 0.0)),
            "labels": {"gp_std": "GP, flat prior on the bias"}}


@functools.lru_cache(maxsize=256)
def _sinc_compute(c, gamma, n=N_WIDGET):
    # Cached: the sliders move on a grid, so a value seen before costs nothing (a fresh one ~8 ms).
    return flat_bias_gp(sinc_bands(c=c, gamma=gamma, eps=1e-4, n=n, n_grid=240))


def sinc_explorer(c=1.0, gamma=1.0, n=N_WIDGET):
    """Sliders for the RBF width c and the regulariser gamma (eps = 1e-4), three bands side by side."""
    controls = {
        "c": slider(float(c), 0.2, 3.0, 0.1, "c (RBF width⁻¹)"),
        "gamma": slider(float(gamma), -2, 3, 0.25, "C (the papers' γ)", log=True),
    }
    draw = functools.partial(draw_sinc_bands, fixed_layout=True, sd_panel=False)
    grid = {"c": [0.3, 0.5, 1.0, 2.0, 3.0], "gamma": [0.1, 1.0, 10.0]}  # static form (15 frames)
    return Explorer(functools.partial(_sinc_compute, n=n), draw, controls, figsize=(11, 3.4), caption=sinc_caption,
                    grid=grid)


LATENCY_CASES = [
    (epsilon_explorer, "eps", [1e-6, 1e-2, 10.0, 1e2]),
    (sinc_explorer, "c", [0.5, 2.0, 1.3]),
    (sinc_explorer, "gamma", [0.1, 10.0, 100.0]),
]
