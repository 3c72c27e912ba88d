""":ref:`Chapter 8 <ch-mean-field-gpc>` widgets: (1) noise and length scale -> every method's posterior means against MCMC;
(2) a step through the online (single-sweep) algorithm.

The computations are :func:`svmlib.gpc.compare_posterior_means` and :func:`svmlib.gpc.online_sweep`,
tested in ``tests/test_gpc.py``. MCMC is too slow for a 150 ms event, so the means widget
offers a grid of (noise, length scale) values and runs the sampler once per grid point
(cached for the session; ``precompute=True`` fills the whole grid up front, ~1 s per point).
The online widget precomputes the sweep once; an event only evaluates the stored mean on a grid.
"""

from __future__ import annotations

import functools

import ipywidgets as widgets
import numpy as np

from ..gpc import compare_posterior_means, make_demo_problem, online_sweep
from ..kernels import RBF
from ..plotting.gpc import draw_online_state, draw_posterior_means
from ._base import Explorer, slider

__all__ = [
    "NOISE_GRID",
    "LENGTH_GRID",
    "means_state",
    "means_explorer",
    "OnlineDemo",
    "online_explorer",
    "LATENCY_CASES",
]

#: Noise levels offered by the means widget.
NOISE_GRID = (1.0, 0.1, 0.01)
#: Length scales offered by the means widget.
LENGTH_GRID = (0.5, 1.0, 2.0)
#: The demo problem: 30 seeded 2-D points; MCMC with 32 chains x 300 samples after 500 burn-in
#: (relative Monte Carlo error of the mean vector ~6 %).
DEMO_N, MCMC = 30, dict(n_chains=32, n_samples=300, burn_in=500, random_state=0)

_CACHE = {}


def means_state(noise_var=0.1, length_scale=1.0):
    """Posterior means of all methods and MCMC on the demo problem (cached per grid point)."""
    key = (float(noise_var), float(length_scale))
    if key not in _CACHE:
        X, y = make_demo_problem(DEMO_N)
        _CACHE[key] = compare_posterior_means(X, y, key[0], key[1], **MCMC)
    return _CACHE[key]


def means_explorer(noise_var=0.1, length_scale=1.0, *, precompute=False):
    """Two selection sliders (sigma^2, l) over the grid; the figure compares every method with MCMC."""
    if precompute:
        for nv in NOISE_GRID:
            for ls in LENGTH_GRID:
                means_state(nv, ls)
    style = {"description_width": "initial"}
    controls = {
        "noise_var": widgets.SelectionSlider(options=list(NOISE_GRID), value=noise_var, description="σ² (noise)",
                                             continuous_update=False, style=style),
        "length_scale": widgets.SelectionSlider(options=list(LENGTH_GRID), value=length_scale,
                                                description="l (length scale)", continuous_update=False, style=style),
    }
    return Explorer(means_state, functools.partial(draw_posterior_means, fixed_layout=True), controls,
                    figsize=(10, 4.2), grid={"noise_var": list(NOISE_GRID), "length_scale": list(LENGTH_GRID)})


class OnlineDemo:
    """One precomputed run of the online algorithm on a 2-D problem (two sweeps), ready to step through.

    ``state(t)`` is the figure state after ``t`` presentations: the mean ``<f>`` on a grid,
    the examples seen so far, the one just presented, and the error curves.
    """

    def __init__(self, n_train=60, n_test=300, noise_var=0.1, length_scale=1.0, n_sweeps=2, seed=1):
        self.X, self.y = make_demo_problem(n_train, random_state=seed)
        X_test, y_test = make_demo_problem(n_test, random_state=seed + 100)
        kernel = RBF(l=length_scale)
        K = kernel(self.X)
        self.order = np.random.default_rng(seed).permutation(n_train)
        self.n_total = n_sweeps * n_train
        run = online_sweep(K + noise_var * np.eye(n_train), self.y, n_sweeps=n_sweeps, order=self.order,
                           K_eval=K, K_test=kernel(X_test, self.X), y_test=y_test, track=True,
                           snapshots=range(self.n_total + 1))
        self.run, self.n_test = run, n_test
        xs = np.linspace(-2.2, 2.2, 36)
        self.grid = np.meshgrid(xs, xs)
        self.K_grid = kernel(np.column_stack([self.grid[0].ravel(), self.grid[1].ravel()]), self.X)

    def state(self, t=0):
        t = int(np.clip(t, 0, self.n_total))
        basis, alpha = self.run.snapshots[t]
        f = (self.K_grid[:, basis] @ alpha).reshape(self.grid[0].shape) if t else np.zeros(self.grid[0].shape)
        seen = np.zeros(len(self.y), dtype=bool)
        seen[basis] = True
        current = self.order[(t - 1) % len(self.y)] if t else None
        return {"t": t, "grid": self.grid, "f_grid": f, "X": self.X, "y": self.y, "seen": seen, "current": current,
                "train_errors": self.run.train_errors, "test_errors": self.run.test_errors, "n_test": self.n_test}


def online_explorer(t=10, demo=None):
    """A slider over the number of examples presented (0 ... two sweeps)."""
    demo = OnlineDemo() if demo is None else demo
    controls = {"t": slider(int(t), 0, demo.n_total, 1, "examples presented")}
    grid = {"t": [v for v in (0, 1, 5, 10, 20, 40, 60, 90, 120) if v <= demo.n_total]}  # static form
    return Explorer(demo.state, functools.partial(draw_online_state, fixed_layout=True), controls, figsize=(10, 4.2),
                    grid=grid)


def _means_precomputed():
    return means_explorer(precompute=True)


LATENCY_CASES = [
    (_means_precomputed, "noise_var", [1.0, 0.01, 0.1]),
    (_means_precomputed, "length_scale", [0.5, 2.0, 1.0]),
    (online_explorer, "t", [1, 60, 120, 30]),
]
