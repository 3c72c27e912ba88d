"""Chapter 6 widget: true C, sample size, length scale -> data, evidence curves and their maxima.

``evidence_state`` is the compute part (no ipywidgets). The scan holds C K0 at its true value
(K0_true = CK0 / C_true), so the normaliser depends only on (n, l): it is computed once per
(n, l) and cached -- the starting (n, l) when the explorer is built, any other pair the first time
the n or l slider visits it (a chained Monte Carlo run, ~1 s; every later visit is cached). A new
C_true or seed costs only data generation and the evidence curve (~15 ms) plus the drawing.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..evidence import evidence_curve, normaliser_curve
from ..kernels import RBF
from ..plotting.evidence import draw_evidence_state
from ..probabilistic import GridPrior, class_probability, generate_data, unit_grid
from ._base import Explorer, slider

__all__ = ["evidence_state", "evidence_explorer", "C_GRID", "CK0", "LATENCY_CASES"]

CK0 = 10.0
C_GRID = np.logspace(-0.5, np.log10(20.0), 25)
DATA_GRID = unit_grid(200)
NORM_GRID = unit_grid(100)


@lru_cache(maxsize=32)
def _normaliser(n, l):
    return normaliser_curve(RBF(l=l), NORM_GRID, n, C_GRID, CK0=CK0, random_state=0)


@lru_cache(maxsize=8)
def _prior(l):
    return GridPrior(RBF(l=l), DATA_GRID)


def evidence_state(C_true=2.0, n=50, l=0.05, seed=0):
    """Data of size ``n`` from the model (RBF length ``l``, C = ``C_true``, K0 = CK0 / C_true) and
    its naive and full evidence along ``C_GRID`` at C K0 = CK0; plug-in vs true P(y=+1|x)."""
    n, l, C_true = int(n), float(l), float(C_true)
    K0 = CK0 / C_true
    data = generate_data(_prior(l), n, C_true, scale=K0, n_anneal=20, n_steps=30, random_state=int(seed))
    curve = evidence_curve(data.X, data.y, RBF(l=l), C_GRID, CK0=CK0, normaliser=_normaliser(n, l))
    K_cross = CK0 * RBF(l=l)(DATA_GRID, data.X)
    theta_svm = K_cross @ (curve.alpha_over_C * data.y)
    return {
        "grid": DATA_GRID[:, 0], "theta_true": data.theta, "theta_svm": theta_svm,
        "X": data.X[:, 0], "y": data.y, "C": C_GRID, "log_full": curve.log_evidence,
        "log_naive": curve.log_naive, "C_true": C_true, "C_best": curve.C_best,
        "C_best_naive": curve.C_best_naive, "p_true": data.true_probability(),
        "p_svm": class_probability(theta_svm, curve.C_best), "n_positive": int((data.y > 0).sum()),
    }


def evidence_explorer(**defaults):
    """Sliders for the true C, the sample size n, the length scale l and the data seed."""
    v = {"C_true": 2.0, "n": 50, "l": 0.05, "seed": 0, **defaults}
    controls = {
        "C_true": slider(v["C_true"], -0.3, 0.9, 0.05, "true C", log=True),
        "n": slider(v["n"], 20, 100, 10, "n"),
        "l": slider(v["l"], 0.03, 0.15, 0.01, "length scale l"),
        "seed": slider(v["seed"], 0, 20, 1, "data seed"),
    }
    return Explorer(evidence_state, draw_evidence_state, controls,
                    figsize=(11, 3.6),
                    caption=lambda s: (f"full-evidence maximum C = {s['C_best']:.2f}, naive {s['C_best_naive']:.2f} "
                                       f"(true {s['C_true']:.2f}); {s['n_positive']} of {len(s['y'])} labels +1"))


# n and l: the first visit of a new (n, l) runs the normaliser chain (~1 s, see the module
# docstring); the benchmark repeats each value, so its median is the cached event and its max the first.
LATENCY_CASES = [
    (evidence_explorer, "C_true", [1.0, 4.0]),
    (evidence_explorer, "seed", [1, 2, 3]),
    (evidence_explorer, "n", [30, 50]),
]
