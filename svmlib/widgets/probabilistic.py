""":ref:`Chapter 6 <ch-gp-prior>` widget: a GP prior sample and its class-probability map, with the gap share.

``prior_sample_state`` is the compute part (no ipywidgets): the white noise and the unit-amplitude
draw of each (kernel, length scale) are cached, so moving K0 or C only rescales -- an event costs a
rescale and the drawing. Building the explorer precomputes the draw of every kernel at the starting
length scale (a 900 x 900 Cholesky factor each, ~20 ms), so switching the kernel is as cheap; a new
length scale costs one factorisation the first time it is visited.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..kernels import RBF, OrnsteinUhlenbeck, Polynomial
from ..plotting.probabilistic import draw_prior_sample
from ..probabilistic import GridPrior, gap_share, unit_grid
from ._base import Explorer, dropdown, slider

__all__ = ["prior_sample_state", "prior_explorer", "LATENCY_CASES"]

KERNELS = {"RBF": RBF, "Ornstein-Uhlenbeck": OrnsteinUhlenbeck, "polynomial": Polynomial}


@lru_cache(maxsize=16)
def _unit_draw(kernel, l, m, seed):
    grid = unit_grid(m, dim=2)
    k = Polynomial(p=2, c0=1.0) if kernel == "polynomial" else KERNELS[kernel](l=l)
    prior = GridPrior(k, grid)
    white = np.random.default_rng(seed).standard_normal((1, grid.shape[0]))  # same noise for every kernel
    return prior.draw(white)[0]


def prior_sample_state(kernel="RBF", l=0.1, K0=1.0, C=2.0, m=30, seed=0):
    """One prior sample on an ``m x m`` grid of the unit square at amplitude ``K0``.

    Returns a dict with ``theta`` (m*m,), ``C``, ``m``, ``gap_share`` (share with |theta| < 1).
    The polynomial kernel is (1 + x.x')^2 and ignores ``l``.
    """
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {sorted(KERNELS)}, got {kernel!r}.")
    theta = np.sqrt(float(K0)) * _unit_draw(kernel, float(l), int(m), int(seed))
    return {"theta": theta, "C": float(C), "m": int(m), "gap_share": float(gap_share(theta)),
            "kernel": kernel, "l": float(l), "K0": float(K0)}


def prior_explorer(**defaults):
    """Kernel, length scale, amplitude K0 and C -> a prior sample and its P(y = +1 | x) map."""
    v = {"kernel": "RBF", "l": 0.1, "K0": 1.0, "C": 2.0, **defaults}
    controls = {
        "kernel": dropdown(list(KERNELS), v["kernel"], "kernel"),
        "l": slider(v["l"], 0.03, 0.5, 0.01, "length scale l"),
        "K0": slider(v["K0"], -1, 1.5, 0.1, "amplitude K0", log=True),
        "C": slider(v["C"], 0.2, 10.0, 0.1, "C"),
    }
    for kernel in KERNELS:  # precompute: a kernel switch then only rescales and draws
        _unit_draw(kernel, float(v["l"]), 30, 0)
    return Explorer(prior_sample_state, draw_prior_sample, controls,
                    figsize=(9, 4), grid={"K0": [0.3, 1.0, 3.0, 10.0], "l": [0.05, 0.1, 0.2, 0.4]},
                    caption=lambda s: f"share of the square in the uncertainty gap |theta| < 1: {s['gap_share']:.2f}")


LATENCY_CASES = [
    (prior_explorer, "K0", [0.3, 3.0, 10.0]),
    (prior_explorer, "C", [1.0, 5.0]),
    (prior_explorer, "l", [0.2, 0.05]),
    (prior_explorer, "kernel", ["Ornstein-Uhlenbeck", "polynomial"]),
]
