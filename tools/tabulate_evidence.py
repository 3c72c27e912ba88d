#!/usr/bin/env python
"""Tabulate the seeded computations of :ref:`Chapter 7 <ch-evidence>` that do not depend on the reader's choices.

    .venv/bin/python tools/tabulate_evidence.py      # writes svmlib/_tables/evidence_toy.json

The chapter reads the table instead of recomputing (Run All <= 10 s); tests/test_exercises_ch6_8.py
recomputes sampled entries and compares. Contents (all for the seed's Fig. 2 toy: x uniform on
[0, 1], RBF l = 0.05, C_true = 2, K0_true = 5, n = 50, C K0 = 10 along the C grid):

* ``log_norm_chain``, ``se_chain``: ln <N^50> by the chained sampler (``normaliser_curve``, seed 0);
* ``log_norm_mc``, ``ess_mc``: ln <N^50> by plain Monte Carlo, 2000 draws at every C (seed 0);
* ``exact_n3``: the exact ln Q_naive of the chapter's three-point example (numerical integration, ~3 s);
* ``sets``: for data seeds 0..N_SETS-1 (``generate_data`` with 100 annealing and 200 sampling steps on
  a 400-point grid, as the chapter's featured set, which is seed 2): the maxima of the full evidence
  (chained normaliser), of the naive evidence and of the full evidence with the plain-MC normaliser,
  and the number of labels +1;
* ``n_positive_l01``: the number of labels +1 in 20 data sets drawn the same way but with l = 0.1
  (seeds 0..19), to show how often a longer length scale gives a single label.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np

from svmlib import evidence as ev
from svmlib import probabilistic as pr
from svmlib.kernels import RBF

OUT = Path(__file__).resolve().parent.parent / "svmlib" / "_tables" / "evidence_toy.json"
C_GRID = np.logspace(-0.5, np.log10(20.0), 25)
CK0, N, L, C_TRUE, K0_TRUE = 10.0, 50, 0.05, 2.0, 5.0
N_SETS = 100


def chained_normaliser():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ev.LowESSWarning)
        return ev.normaliser_curve(RBF(l=L), pr.GridPrior(RBF(l=L), pr.unit_grid(100)), N, C_GRID, CK0=CK0,
                                   random_state=0)


def plain_mc_normaliser():
    prior = pr.GridPrior(RBF(l=L), pr.unit_grid(100))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ev.LowESSWarning)
        return [ev.log_normaliser_mc(prior, N, C, n_draws=2000, scale=CK0 / C, random_state=0) for C in C_GRID]


def three_point_example():
    rng = np.random.default_rng(2)
    X3 = rng.uniform(size=(3, 1))
    y3 = np.array([1.0, -1.0, 1.0])
    return X3, y3, RBF(l=0.3, K0=5.0)(X3)


def exact_n3():
    _, y3, K3 = three_point_example()
    return float(ev.exact_log_naive_evidence(K3, y3, 2.0))


def toy_set(seed, norm_chain, log_norm_mc):
    data = pr.generate_data(pr.GridPrior(RBF(l=L, K0=K0_TRUE), pr.unit_grid(400)), N, C_TRUE, n_anneal=100,
                            n_steps=200, random_state=seed)
    curve = ev.evidence_curve(data.X, data.y, RBF(l=L), C_GRID, CK0=CK0, normaliser=norm_chain)
    full_mc = curve.log_naive - np.asarray(log_norm_mc)
    return {"seed": seed, "C_best": curve.C_best, "C_best_naive": curve.C_best_naive,
            "C_best_mc": float(C_GRID[np.argmax(full_mc)]), "n_positive": int((data.y > 0).sum())}


def positives_l01(seed):
    data = pr.generate_data(pr.GridPrior(RBF(l=0.1, K0=K0_TRUE), pr.unit_grid(400)), N, C_TRUE, n_anneal=100,
                            n_steps=200, random_state=seed)
    return int((data.y > 0).sum())


def main():
    norm = chained_normaliser()
    mc = plain_mc_normaliser()
    log_mc = [m.log_value for m in mc]
    table = {
        "C": C_GRID.tolist(), "CK0": CK0, "n": N, "l": L, "C_true": C_TRUE,
        "log_norm_chain": norm.log_value.tolist(), "se_chain": norm.std_error.tolist(),
        "log_norm_mc": log_mc, "ess_mc": [m.ess for m in mc],
        "exact_n3": exact_n3(),
        "sets": [toy_set(seed, norm, log_mc) for seed in range(N_SETS)],
        "n_positive_l01": [positives_l01(seed) for seed in range(20)],
    }
    OUT.write_text(json.dumps(table, indent=1) + "\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
