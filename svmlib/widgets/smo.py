""":ref:`Chapter 3 <ch-duality>` widget: step through SMO iterations (working pair, multipliers, boundary, W(alpha)).

:class:`SMOModel` runs :func:`svmlib.dual.smo_steps` once per C (cached) and precomputes the
kernel between a plotting grid and the training points; a slider event only forms
``f = K_grid (y * alpha) + b`` for the chosen step and draws it.
"""

from __future__ import annotations

import functools

import numpy as np

from ..datasets import make_blobs2d
from ..dual import smo_steps
from ..kernels import Linear, make_kernel
from ..plotting.smo import draw_smo_step
from ._base import Explorer, dropdown, slider

__all__ = ["chapter_data", "kkt_violation", "SMOModel", "smo_explorer", "C_VALUES", "LATENCY_CASES"]

C_VALUES = (0.1, 1.0, 10.0)


def chapter_data():
    """24 points in two overlapping blobs (seed 0): small enough to watch every SMO step."""
    return make_blobs2d(24, separation=2.5, spread=1.0, random_state=0)


def kkt_violation(K, y, alpha, C):
    r"""Maximal violating pair :math:`m - M` of the KKT conditions (eq. :eq:`(3.12) <smo-kkt-violation>`).

    With :math:`v = y - K(y \odot \alpha)`, :math:`m = \max_{I_{up}} v`, :math:`M = \min_{I_{low}} v`;
    the optimum has :math:`m \le M`. Written out here from the definition (the solver keeps its own copy).
    """
    v = y - K @ (y * alpha)
    up = ((y > 0) & (alpha < C)) | ((y < 0) & (alpha > 0))
    low = ((y > 0) & (alpha > 0)) | ((y < 0) & (alpha < C))
    return float(v[up].max() - v[low].min())


class SMOModel:
    """The SMO runs of one data set and kernel, one per C, with a grid for the boundary."""

    def __init__(self, X=None, y=None, *, kernel=None, tol=1e-3, grid_size=70):
        if X is None:
            X, y = chapter_data()
        self.X = np.asarray(X, dtype=float)
        self.y = np.asarray(y, dtype=float)
        self.kernel = Linear() if kernel is None else make_kernel(kernel)
        self.tol = tol
        self.K = self.kernel(self.X)
        lo, hi = self.X.min(axis=0) - 0.7, self.X.max(axis=0) + 0.7
        self.grid_x, self.grid_y = np.meshgrid(np.linspace(lo[0], hi[0], grid_size),
                                               np.linspace(lo[1], hi[1], grid_size))
        self.K_grid = self.kernel(np.column_stack([self.grid_x.ravel(), self.grid_y.ravel()]), self.X)

    @functools.lru_cache(maxsize=8)
    def run(self, C):
        """All SMO states for this C: a tuple of :class:`svmlib.dual.SMOState`."""
        return tuple(smo_steps(self.K, self.y, C, tol=self.tol))

    @functools.lru_cache(maxsize=8)
    def violations(self, C):
        """KKT violation of every state, from its alpha (eq. :eq:`(3.12) <smo-kkt-violation>`)."""
        return np.array([kkt_violation(self.K, self.y, s.alpha, C) for s in self.run(C)])

    def n_steps(self, C):
        return len(self.run(float(C))) - 1

    def compute(self, C=1.0, step=0):
        """State after ``step`` SMO steps (clipped to the last one) for box constraint ``C``."""
        states = self.run(float(C))
        k = int(np.clip(int(step), 0, len(states) - 1))
        s = states[k]
        f = self.K_grid @ (self.y * s.alpha) + s.b  # eq. :eq:`(3.7) <smo-decision>`: f(x) = sum_i alpha_i y_i K(x, x_i) + b
        return {
            "X": self.X, "y": self.y, "C": float(C), "iteration": k, "n_steps": len(states) - 1,
            "pair": s.pair, "alpha": s.alpha, "b": s.b, "violation": self.violations(float(C))[k],
            "objectives": np.array([t.objective for t in states]),
            "grid_x": self.grid_x, "grid_y": self.grid_y, "grid_f": f.reshape(self.grid_x.shape),
        }


def smo_explorer(X=None, y=None):
    """A dropdown for C and a slider over the SMO steps (past the last step shows the solution)."""
    model = SMOModel(X, y)
    max_steps = max(model.n_steps(C) for C in C_VALUES)
    controls = {
        "C": dropdown(list(C_VALUES), 1.0, "C"),
        "step": slider(0, 0, max_steps, 1, "SMO step"),
    }
    grid = {"step": list(range(model.n_steps(1.0) + 1))}  # static form: every step at C = 1
    return Explorer(model.compute, draw_smo_step, controls, figsize=(11, 3.8), grid=grid)


LATENCY_CASES = [
    (smo_explorer, "step", [1, 5, 12, 30]),
    (smo_explorer, "C", [10.0, 0.1]),
]
