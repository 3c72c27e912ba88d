#!/usr/bin/env python
"""Timings of :ref:`Chapter 8 <ch-mean-field-gpc>` (mean-field GP classification), one BLAS thread.

    .venv/bin/python benchmarks/gpc_timings.py [--repeats 20]

Prints, in one run on this machine:
- one free-energy evaluation with its hypergradient at n = 200 (Pima.tr), each method;
- a whole hyperparameter fit on Pima (L-BFGS, 8 parameters), each free energy, and the test errors;
- scikit-learn's GaussianProcessClassifier (Laplace, logistic, ARD RBF) on the same data, for scale;
- one online sweep over 80 Crabs (cubic kernel), with and without forming the kernel matrix;
- the mean-field solve alone at n = 200 for sigma^2 = 1 and 0.01 (Newton steps).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process import GaussianProcessClassifier
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel
from threadpoolctl import threadpool_limits

from svmlib import gpc
from svmlib.datasets import load_crabs, load_pima
from svmlib.kernels import RBF, Polynomial


def best_of(func, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times), float(np.median(times))


def main(repeats):
    pima = load_pima()
    theta = np.r_[np.full(7, np.log(np.sqrt(7.0))), 0.0]
    print("free energy + gradient, n = 200 (best / median of %d):" % repeats)
    for obj in gpc.METHODS:
        b, m = best_of(lambda: gpc.free_energy_and_gradient(theta, pima.X, pima.y, obj), repeats)
        print(f"  {obj:9s} {1000 * b:7.2f} ms / {1000 * m:7.2f} ms")
    for noise in (1.0, 0.01):
        K = RBF(l=np.sqrt(7))(pima.X) + noise * np.eye(200)
        b, m = best_of(lambda: gpc.solve_mean_field(K, pima.y, "naive"), repeats)
        n_iter = gpc.solve_mean_field(K, pima.y, "naive").n_iter
        print(f"naive solve alone, sigma^2 = {noise}: {1000 * b:.2f} ms ({n_iter} Newton steps)")
    print("whole Pima fit (L-BFGS from l = sqrt(7), sigma^2 = 1):")
    for obj in gpc.METHODS:
        start = time.perf_counter()
        fit = gpc.fit_hyperparameters(pima.X, pima.y, obj)
        seconds = time.perf_counter() - start
        clf = gpc.MeanFieldGPC(RBF(l=fit.length_scales), noise_var=fit.noise_var, method=obj).fit(pima.X, pima.y)
        errors = int(np.sum(clf.predict(pima.X_test) != pima.y_test))
        print(f"  {obj:9s} {seconds:6.2f} s, {fit.n_iter} updates, sigma^2 = {fit.noise_var:.2f}, "
              f"{errors} test errors of 332")
    sk = GaussianProcessClassifier(ConstantKernel(1.0) * SkRBF(np.full(7, np.sqrt(7.0))), random_state=0)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        sk.fit(pima.X, pima.y)
    print(f"  sklearn GPC (Laplace) {time.perf_counter() - start:6.2f} s, "
          f"{int(np.sum(sk.predict(pima.X_test) != pima.y_test))} test errors")
    crabs = load_crabs("sex")
    tr = np.random.default_rng(0).permutation(200)[:80]
    kernel = Polynomial(p=3, c0=1.0)
    K80 = kernel(crabs.X[tr])
    b, m = best_of(lambda: gpc.online_sweep(K80, crabs.y[tr]), repeats)
    print(f"one online sweep over 80 crabs: {1000 * b:.2f} ms best, {1000 * m:.2f} ms median")
    b, m = best_of(lambda: gpc.online_sweep(kernel(crabs.X[tr]), crabs.y[tr]), repeats)
    print(f"  including the 80 x 80 kernel matrix: {1000 * b:.2f} ms best")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    with threadpool_limits(1, "blas"):
        main(args.repeats)
