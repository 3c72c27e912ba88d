#!/usr/bin/env python
"""Tabulate the seeded computations of :ref:`Chapter 8 <ch-mean-field-gpc>` that do not depend on the reader's choices.

    .venv/bin/python tools/tabulate_gpc.py      # writes svmlib/_tables/gpc_pima.json

:ref:`Chapter 8 <ch-mean-field-gpc>` reads the table instead of recomputing (Run All <= 10 s); tests/test_exercises_ch6_8.py
recomputes sampled entries and compares. Contents:

* ``fits``: the Pima hyperparameter fits of the three free energies (``gpc.fit_hyperparameters``:
  L-BFGS from l_d = sqrt 7, sigma^2 = 1; deterministic) -- length scales, noise variance, free
  energy at the optimum, number of updates, and the history (free energy, length scales, noise) of
  every update;
* ``errors``: test errors (of 332) of every (free energy, inference method) pair, and of the naive
  fit's history (the seed's Fig. 1, right);
* ``means_by_noise``: the slopes and relative errors against MCMC of every method on the 2-D demo
  problem at the three noise levels of ``svmlib.widgets.gpc.NOISE_GRID`` (l = 1), from
  ``widgets.gpc.means_state`` (seeded MCMC, about a second each);
* ``exact_8``: the exact -ln Z of the chapter's eight-point problem at three noise levels (Genz's
  orthant integration, a few seconds; randomised quasi-Monte Carlo, reproducible to ~1e-6).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from svmlib import gpc
from svmlib.datasets import load_pima
from svmlib.kernels import RBF

OUT = Path(__file__).resolve().parent.parent / "svmlib" / "_tables" / "gpc_pima.json"
METHODS = ("naive", "ensemble", "ep")
INFERENCE = ("naive", "ensemble", "ep", "online")
NOISE_8 = (1.0, 0.1, 0.01)


def fit(objective, pima=None):
    pima = load_pima() if pima is None else pima
    return gpc.fit_hyperparameters(pima.X, pima.y, objective)


def test_errors(pima, length_scales, noise_var, method):
    if method == "online":
        clf = gpc.SequentialGPC(RBF(l=length_scales), noise_var=noise_var, shuffle=False)
    else:
        clf = gpc.MeanFieldGPC(RBF(l=length_scales), noise_var=noise_var, method=method)
    return int(np.sum(clf.fit(pima.X, pima.y).predict(pima.X_test) != pima.y_test))


def exact_8(noise_var):
    X8, y8 = gpc.make_demo_problem(8, random_state=1)
    return float(-gpc.log_evidence_exact(RBF(l=1.0)(X8) + noise_var * np.eye(8), y8))


def means_summary(noise_var):
    from svmlib.widgets import gpc as wgpc

    st = wgpc.means_state(noise_var, 1.0)
    return {"slope": {k: float(v) for k, v in st["slope"].items()},
            "rel_error": {k: float(v) for k, v in st["rel_error"].items()}, "mcmc_rel_se": float(st["mcmc_rel_se"])}


def main():
    pima = load_pima()
    fits, errors = {}, {}
    for obj in METHODS:
        f = fit(obj, pima)
        fits[obj] = {"length_scales": f.length_scales.tolist(), "noise_var": float(f.noise_var),
                     "free_energy": float(f.free_energy), "n_iter": int(f.n_iter),
                     "history": [{"free_energy": float(h["free_energy"]), "length_scales": np.asarray(h["length_scales"]).tolist(),
                                  "noise_var": float(h["noise_var"])} for h in f.history]}
        errors[obj] = {m: test_errors(pima, f.length_scales, f.noise_var, m) for m in INFERENCE}
    history_errors = [test_errors(pima, np.array(h["length_scales"]), h["noise_var"], "naive")
                      for h in fits["naive"]["history"]]
    table = {"fits": fits, "errors": errors, "history_errors": history_errors,
             "exact_8": {str(nv): exact_8(nv) for nv in NOISE_8},
             "means_by_noise": {str(nv): means_summary(nv) for nv in NOISE_8}}
    OUT.write_text(json.dumps(table, indent=1) + "\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
