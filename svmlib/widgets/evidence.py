""":ref:`Chapter 7 <ch-evidence>` widget: true C, sample size, length scale -> data, evidence curves and their maxima.

``evidence_state`` is the compute part (no ipywidgets). The scan holds C K0 at its true value
(K0_true = CK0 / C_true), so the normaliser depends only on (n, l). A chained Monte Carlo run
costs ~1 s per (n, l), too slow for a slider event, so the normalisers of every slider position
are tabulated in ``evidence_normalisers.json`` by ``tools/tabulate_evidence_normalisers.py`` (the
same seeded computation; a test recomputes entries of the table). Any other (n, l) is computed
on first use and cached. An event then costs data generation and the evidence curve (~15 ms)
plus the drawing.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..evidence import NormaliserCurve, evidence_curve, normaliser_curve
from ..kernels import RBF
from ..plotting.evidence import draw_evidence_state
from ..probabilistic import GridPrior, class_probability, generate_data, unit_grid
from ._base import Explorer, slider

__all__ = ["evidence_state", "evidence_explorer", "compute_normaliser", "C_GRID", "CK0", "N_SLIDER", "L_SLIDER",
           "NORMALISER_TABLE", "LATENCY_CASES", "slider_positions"]

CK0 = 10.0
C_GRID = np.logspace(-0.5, np.log10(20.0), 25)
DATA_GRID = unit_grid(200)
NORM_GRID = unit_grid(100)
N_SLIDER = (20, 100, 10)  # min, max, step of the sample-size slider
L_SLIDER = (0.03, 0.15, 0.01)  # ... and of the length-scale slider
NORMALISER_TABLE = Path(__file__).with_name("evidence_normalisers.json")
# normaliser_curve's LowESSWarning threshold: above it the caption says the normaliser is uncertain
NORMALISER_SE_WARN = 0.5


def slider_positions():
    """Every (n, l) the explorer's n and l sliders can take (the table's keys)."""
    ns = range(N_SLIDER[0], N_SLIDER[1] + 1, N_SLIDER[2])
    ls = np.round(np.arange(L_SLIDER[0], L_SLIDER[1] + L_SLIDER[2] / 2, L_SLIDER[2]), 2)
    return [(int(n), float(l)) for n in ns for l in ls]


def compute_normaliser(n, l):
    """ln <N^n> along C_GRID for sample size n and length scale l (chained Monte Carlo, ~1 s)."""
    return normaliser_curve(RBF(l=l), NORM_GRID, n, C_GRID, CK0=CK0, random_state=0)


@lru_cache(maxsize=1)
def _table():
    """{(n, l): (log_value, std_error)} from the tabulated file, if it matches this module's grids."""
    try:
        data = json.loads(NORMALISER_TABLE.read_text())
    except FileNotFoundError:
        return {}
    if not (np.array_equal(data["C"], C_GRID) and data["CK0"] == CK0 and data["norm_grid_size"] == NORM_GRID.shape[0]):
        return {}  # the grids changed since the table was made: compute instead
    return {(e["n"], round(e["l"], 6)): (np.array(e["log_value"]), np.array(e["std_error"])) for e in data["entries"]}


@lru_cache(maxsize=32)
def _normaliser(n, l):
    hit = _table().get((int(n), round(float(l), 6)))
    if hit is None:
        return compute_normaliser(n, l)
    return NormaliserCurve(C_GRID.copy(), hit[0].copy(), hit[1].copy(), int(n), CK0)


@lru_cache(maxsize=8)
def _prior(l):
    return GridPrior(RBF(l=l), DATA_GRID)


def evidence_state(C_true=2.0, n=50, l=0.05, seed=0):
    """Data of size ``n`` from the model (RBF length ``l``, C = ``C_true``, K0 = CK0 / C_true) and
    its naive and full evidence along ``C_GRID`` at C K0 = CK0; plug-in vs true P(y=+1|x)."""
    n, l, C_true = int(n), float(l), float(C_true)
    K0 = CK0 / C_true
    data = generate_data(_prior(l), n, C_true, scale=K0, n_anneal=20, n_steps=30, random_state=int(seed))
    normaliser = _normaliser(n, l)
    curve = evidence_curve(data.X, data.y, RBF(l=l), C_GRID, CK0=CK0, normaliser=normaliser)
    K_cross = CK0 * RBF(l=l)(DATA_GRID, data.X)
    theta_svm = K_cross @ (curve.alpha_over_C * data.y)
    return {
        "grid": DATA_GRID[:, 0], "theta_true": data.theta, "theta_svm": theta_svm,
        "X": data.X[:, 0], "y": data.y, "C": C_GRID, "log_full": curve.log_evidence,
        "log_naive": curve.log_naive, "C_true": C_true, "C_best": curve.C_best,
        "C_best_naive": curve.C_best_naive, "p_true": data.true_probability(),
        "p_svm": class_probability(theta_svm, curve.C_best), "n_positive": int((data.y > 0).sum()),
        "normaliser_se": float(np.max(normaliser.std_error)),
    }


def _caption(s):
    text = (f"full-evidence maximum C = {s['C_best']:.2f}, naive {s['C_best_naive']:.2f} "
            f"(true {s['C_true']:.2f}); {s['n_positive']} of {len(s['y'])} labels +1")
    if s["normaliser_se"] > NORMALISER_SE_WARN:  # say so when the chained Monte Carlo is uncertain
        text += f"; normaliser uncertain by up to {s['normaliser_se']:.1f} nats"
    return text


def evidence_explorer(**defaults):
    """Sliders for the true C, the sample size n, the length scale l and the data seed."""
    v = {"C_true": 2.0, "n": 50, "l": 0.05, "seed": 0, **defaults}
    controls = {
        "C_true": slider(v["C_true"], -0.3, 0.9, 0.05, "true C", log=True),
        "n": slider(v["n"], *N_SLIDER, "n"),
        "l": slider(v["l"], *L_SLIDER, "length scale l"),
        "seed": slider(v["seed"], 0, 20, 1, "data seed"),
    }
    return Explorer(evidence_state, draw_evidence_state, controls,
                    figsize=(11, 3.6), caption=_caption, grid={"C_true": [1.0, 2.0, 4.0], "n": [20, 50, 100]})


LATENCY_CASES = [
    (evidence_explorer, "C_true", [1.0, 4.0]),
    (evidence_explorer, "seed", [1, 2, 3]),
    (evidence_explorer, "n", [30, 50, 90]),
    (evidence_explorer, "l", [0.08, 0.12]),
]
