"""PrimalSVC(solver="newton") against scikit-learn's LinearSVC(loss="hinge") (liblinear), in one run.

The data of issue 26: ``make_classification`` (seeded), standardised, ``d = 50``, ``C = 1``,
one BLAS thread. For each N both solve the same problem, ``bias="augmented"`` (the bias is
one more weight on a constant feature, as liblinear's ``intercept_scaling=1`` treats it):

    J(w, b) = (|w|^2 + b^2) / 2 + C sum_i max(0, 1 - y_i (w . x_i + b)).

Printed per N: wall time of each fit and their ratio (target: <= 1 at N = 100,000, <= 2 at
N = 10,000), each solution's J and the relative difference (target: ours within 1e-3 of
liblinear's optimum), PrimalSVC's certified relative duality gap, and the machine's load
average (the machine is shared; ratios in one run are what compare). Then the chapter's
subgradient descent, 200 full-batch epochs, with the default step ('bottou') and with
Pegasos' 1/(lambda t): largest J / J(0) (the blow-up of issue 26; 'bottou' stays at 1) and
the best J against liblinear's.

    .venv/bin/python benchmarks/primal_newton.py [--sizes 10000 100000]
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

from svmlib.primal import PrimalSVC, primal_objective


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--d", type=int, default=50)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    for n in args.sizes:
        X, y = make_classification(n, args.d, random_state=0)
        X = StandardScaler().fit_transform(X)
        y_pm = 2.0 * y - 1.0
        with threadpool_limits(1, "blas"):
            t0 = time.perf_counter()
            ours = PrimalSVC(C=1.0, solver="newton", bias="augmented", tol=1e-4).fit(X, y)
            t_ours = time.perf_counter() - t0
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                t0 = time.perf_counter()
                lib = LinearSVC(loss="hinge", C=1.0).fit(X, y)  # defaults: dual CD, tol 1e-4, 1000 epochs
                t_lib = time.perf_counter() - t0
        J_ours = primal_objective(ours.coef_[0], ours.intercept_[0], X, y_pm, 1.0, regularize_bias=True)
        J_lib = primal_objective(lib.coef_[0], lib.intercept_[0], X, y_pm, 1.0, regularize_bias=True)
        print(f"N = {n:7d}, d = {args.d}: PrimalSVC(newton) {t_ours:7.2f} s ({ours.n_iter_} Newton steps, "
              f"certified gap {ours.duality_gap_:.1e}); LinearSVC(hinge) {t_lib:7.2f} s "
              f"({'did not converge' if caught else 'converged'}); time ratio {t_ours / t_lib:.3f}")
        print(f"    J ours {J_ours:.4f}, J liblinear {J_lib:.4f}, (J_ours - J_lib) / J_lib = "
              f"{(J_ours - J_lib) / J_lib:+.2e}; train accuracy {ours.score(X, y):.4f} / {lib.score(X, y):.4f}")
        # the chapter's subgradient descent on the same problem, 200 full-batch epochs: the default step
        # ('bottou') against Pegasos' 1/(lambda t), whose first step C N blew J up (issue 26)
        for step in ("bottou", "pegasos"):
            with threadpool_limits(1, "blas"):
                t0 = time.perf_counter()
                sub = PrimalSVC(C=1.0, solver="subgradient", step=step, bias="augmented", max_epochs=200,
                                tol=None).fit(X, y)
                t_sub = time.perf_counter() - t0
            print(f"    subgradient step={step!r:9s} 200 epochs {t_sub:6.2f} s (time ratio {t_sub / t_lib:.3f}): "
                  f"largest J / J(0) {sub.objective_history_.max() / sub.objective_history_[0]:8.1f}, "
                  f"best J {sub.objective_:.4f}, (J - J_lib) / J_lib = {(sub.objective_ - J_lib) / J_lib:+.2e}")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
