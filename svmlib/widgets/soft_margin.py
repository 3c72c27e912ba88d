""":ref:`Chapter 2 <ch-soft-margin>` widget: C, step rule, batch and epochs -> subgradient-descent boundary and objective trace.

:class:`SoftMarginModel.trace` runs :func:`svmlib.primal.primal_trace` for all ``MAX_EPOCHS``
epochs once per (C, step rule, batch) and caches it; an event of the epochs slider only indexes
that trace. The exact solution it is compared with is cached per ``C``.
"""

from __future__ import annotations

import functools

import numpy as np
from sklearn.svm import SVC

from ..datasets import make_blobs2d
from ..plotting.soft_margin import draw_soft_margin
from ..primal import primal_objective, primal_trace
from ._base import Explorer, dropdown, slider

__all__ = ["chapter_data", "SoftMarginModel", "soft_margin_explorer",
           "LATENCY_CASES", "MAX_EPOCHS", "BATCHES"]

MAX_EPOCHS = 150
#: Batch options of the widget: label -> batch_size of PrimalSVC.
BATCHES = {"full batch": None, "mini-batch of 6": 6}


def chapter_data():
    """The chapter's data: 60 points in two overlapping Gaussian blobs (seed 1), not separable."""
    return make_blobs2d(60, separation=2.5, spread=1.0, random_state=1)


class SoftMarginModel:
    """Data, exact solutions per C (cached) and the subgradient-descent run of one setting."""

    def __init__(self, X=None, y=None, *, eta0=1.0, random_state=0):
        if X is None:
            X, y = chapter_data()
        self.X = np.asarray(X, dtype=float)
        self.y = np.asarray(y, dtype=float)
        self.eta0 = eta0
        self.random_state = random_state

    @functools.lru_cache(maxsize=64)
    def reference(self, C):
        """Exact minimiser of eq. :eq:`(2.3) <primal-objective>` by libsvm (tolerance 1e-8) and its objective."""
        ref = SVC(kernel="linear", C=C, tol=1e-8).fit(self.X, self.y)
        w, b = ref.coef_[0].copy(), float(ref.intercept_[0])
        return w, b, primal_objective(w, b, self.X, self.y, C)

    @functools.lru_cache(maxsize=64)
    def trace(self, C, step, batch):
        """All ``MAX_EPOCHS + 1`` iterates of subgradient descent for one setting
        (:class:`svmlib.primal.PrimalTrace`; 2-40 ms, once per setting)."""
        return primal_trace(self.X, self.y, n_epochs=MAX_EPOCHS, C=C, step=step, eta0=self.eta0,
                            batch_size=BATCHES[batch], random_state=self.random_state)

    def compute(self, C=1.0, step="pegasos", batch="full batch", epochs=50):
        """The iterate after ``epochs`` epochs of subgradient descent, and the state to draw."""
        if batch not in BATCHES:
            raise ValueError(f"batch must be one of {list(BATCHES)}, got {batch!r}.")
        epochs = int(epochs)
        if not 0 <= epochs <= MAX_EPOCHS:
            raise ValueError(f"epochs must lie in [0, {MAX_EPOCHS}], got {epochs}.")
        C = float(C)
        trace = self.trace(C, step, batch)
        w, b = trace.coefs[epochs].copy(), float(trace.intercepts[epochs])
        w_ref, b_ref, J_ref = self.reference(C)
        t = self.y * (self.X @ w + b)
        return {
            "X": self.X, "y": self.y, "C": C, "step": step, "batch_label": batch,
            "epochs": epochs, "max_epochs": MAX_EPOCHS,
            "w": w, "b": b,
            "objectives": trace.objectives[: epochs + 1],
            "violators": np.flatnonzero(t < 1.0),
            "w_ref": w_ref, "b_ref": b_ref, "J_ref": J_ref,
        }


def soft_margin_explorer(X=None, y=None):
    """Sliders for C (log scale), the step rule, full or mini-batch, and the number of epochs."""
    model = SoftMarginModel(X, y)
    controls = {
        "C": slider(1.0, -2, 2, 0.25, "C", log=True),
        "step": dropdown(["pegasos", "invsqrt", "constant"], "pegasos", "step rule"),
        "batch": dropdown(list(BATCHES), "full batch", "batch"),
        "epochs": slider(50, 0, MAX_EPOCHS, 1, "epochs"),
    }
    grid = {"epochs": [0, 1, 2, 3, 5, 8, 12, 20, 30, 50, 80, 150]}  # static form
    return Explorer(model.compute, draw_soft_margin, controls, figsize=(9, 4), grid=grid)


LATENCY_CASES = [
    (soft_margin_explorer, "epochs", [10, 80, 150]),
    (soft_margin_explorer, "C", [0.1, 10.0, 100.0]),
    (soft_margin_explorer, "batch", ["mini-batch of 6", "full batch"]),
]
