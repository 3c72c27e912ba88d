"""Tabulate the Monte Carlo side of :ref:`Chapter 9 <ch-replica>` (the bootstrap without resampling).

    .venv/bin/python tools/tabulate_replica_chapter.py

Writes svmlib/_tables/replica_chapter.json and svmlib/_tables/replica_held_out.npz: every Monte
Carlo bootstrap the chapter compares the theory with (seeded), the exact leave-one-out errors, and
the width scan of the 0.632 estimate on biopsy (theory path, L-BFGS-B minimum, Monte Carlo at four
widths). The chapter then runs in seconds: it recomputes the theory (cheap) and reads the
resampling (hundreds of SVM fits per point). Deterministic: the same code gives the same files
(floats written with repr). tests/test_tables_replica.py recomputes sampled entries.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

from svmlib.bootstrap import (MonteCarloBootstrap, exact_loo, length_scale_path, minimise_632_estimate,
                              monte_carlo_bootstrap, opper_winther_loo, replica_learning_curve)
from svmlib.datasets import load_biopsy, load_crabs, load_pima, standardize
from svmlib.kernels import RBF

OUT = Path(__file__).resolve().parent.parent / "svmlib" / "_tables"
SEED = 0
S_MC = [0.25, 0.5, 1.0, 2.0, 4.0]  # S/N of the Monte Carlo symbols of the learning curves
S_THEORY = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0]  # S/N of the theory lines (warm-started along the curve)
# (label, data set, width w of l = w sqrt(d), Monte Carlo samples at S <= N; more at larger S, where
# only a fraction e^{-S/N} of the points is left out of a sample: see n_mc_samples)
CASES = [("crabs, broad", "crabs", 1.0, 300), ("crabs, narrow", "crabs", 0.25, 300),
         ("biopsy, broad", "biopsy", 1.0, 200), ("Pima, broad", "pima", 1.0, 100)]
WIDTH_GRID = np.geomspace(0.1, 4.0, 17)  # l / sqrt(d) of the biopsy width scan
HELD_OUT_SAMPLES = 300


def data(name):
    """(X, y) of the chapter's data sets, standardised (Pima: Pima.tr and Pima.te together)."""
    if name == "crabs":
        ds = load_crabs("species")
        return ds.X, ds.y
    if name == "biopsy":
        ds = load_biopsy()
        return ds.X, ds.y
    if name == "pima":
        p = load_pima(standardize_inputs=False)
        return standardize(np.vstack([p.X, p.X_test]))[0], np.r_[p.y, p.y_test]
    raise ValueError(name)


def n_mc_samples(n_samples, S_over_N):
    """Samples per Monte Carlo symbol: doubled at S = 2N and quadrupled at S = 4N (few test points there)."""
    return int(n_samples * max(1.0, S_over_N))


def gram(name, width):
    X, y = data(name)
    return RBF(l=width * np.sqrt(X.shape[1]))(X), y


def curve_mc(name, width, S_over_N, n_samples):
    """One Monte Carlo symbol: (error, standard error, mean fraction of points left out)."""
    K, y = gram(name, width)
    mc = monte_carlo_bootstrap(K, y, S_over_N, n_samples, random_state=SEED)
    return float(mc.error), float(mc.error_se), float(mc.out_of_sample.mean())


def held_out_samples(n_samples=HELD_OUT_SAMPLES):
    """Crabs species, every 4th crab held out: the fields of n_samples bootstrap SVMs at S = N."""
    ds = load_crabs("species")
    test = np.arange(0, ds.n, 4)
    train = np.setdiff1d(np.arange(ds.n), test)
    mc = MonteCarloBootstrap(RBF(l=np.sqrt(ds.X.shape[1])), n_samples=n_samples, random_state=SEED)
    return mc.fit(ds.X[train], ds.y[train]).field_samples(ds.X[test])


def width_scan():
    X, y = data("biopsy")
    root_d = np.sqrt(X.shape[1])
    path = length_scale_path(X, y, WIDTH_GRID * root_d)
    choice = minimise_632_estimate(X, y, (0.1 * root_d, 4.0 * root_d), l0=root_d)
    w_best = choice.length_scale / root_d
    w_mc = [0.15, w_best, 1.0, 3.0]
    mc = [curve_mc("biopsy", w, 1.0, 200)[:2] for w in tqdm(w_mc, desc="width scan MC")]
    return dict(widths=WIDTH_GRID.tolist(), error_632=path.error_632.tolist(), slope_632=path.slope_632.tolist(),
                w_best=float(w_best), best_error_632=float(choice.error_632), best_slope_632=float(choice.slope_632),
                n_solves=int(choice.n_solves), converged=bool(choice.converged),
                w_mc=[float(w) for w in w_mc], mc_error=[e for e, _ in mc], mc_se=[s for _, s in mc], mc_samples=200)


def write_npz(path, **arrays):
    """np.savez_compressed with fixed time stamps, so the file is byte-identical on every run."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for key, value in arrays.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.asarray(value), allow_pickle=False)
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            archive.writestr(info, buffer.getvalue(), compress_type=zipfile.ZIP_DEFLATED)


def main():
    table = {"source": "tools/tabulate_replica_chapter.py", "seed": SEED, "S_mc": S_MC, "curves": {}}
    with threadpool_limits(1, "blas"):
        for label, name, width, n_samples in CASES:
            rows = [curve_mc(name, width, s, n_mc_samples(n_samples, s)) for s in tqdm(S_MC, desc=label)]
            K, y = gram(name, width)
            theory = replica_learning_curve(K, y, S_THEORY)
            table["curves"][label] = dict(data=name, width=width, S_theory=S_THEORY,
                                          eps_theory=[float(s.error) for s in theory],
                                          opper_winther=float(opper_winther_loo(K, y)[0]),
                                          n_samples=[n_mc_samples(n_samples, s) for s in S_MC],
                                          error=[r[0] for r in rows], se=[r[1] for r in rows],
                                          left_out=[r[2] for r in rows], exact_loo=exact_loo(K, y)[0])
        table["width_scan"] = width_scan()
        samples = held_out_samples()
    (OUT / "replica_chapter.json").write_text(json.dumps(table, indent=1) + "\n")
    write_npz(OUT / "replica_held_out.npz", samples=samples)
    print(f"wrote {OUT / 'replica_chapter.json'} and replica_held_out.npz {samples.shape}")


if __name__ == "__main__":
    main()
