"""Wall time of the replica theory vs a 500-sample Monte Carlo bootstrap at S = N (broad RBF kernel).

    .venv/bin/python benchmarks/replica_vs_mc.py [n_samples]

One run, single-threaded BLAS, serial Monte Carlo. Prints eps_theory, eps_MC +- SE and the speed-up.
"""

import sys
import time

import numpy as np
from threadpoolctl import threadpool_limits

from svmlib.bootstrap import monte_carlo_bootstrap, solve_replica
from svmlib.datasets import load_biopsy, load_crabs, load_pima, standardize
from svmlib.kernels import RBF


def datasets():
    c = load_crabs("species")
    yield "crabs species", c.X, c.y
    b = load_biopsy()
    yield "biopsy", b.X, b.y
    p = load_pima(standardize_inputs=False)
    X, _ = standardize(np.vstack([p.X, p.X_test]))
    yield "Pima tr+te", X, np.r_[p.y, p.y_test]


def main(n_samples=500):
    print(f"{'data':14s} {'N':>4s} {'theory s':>9s} {'iter':>5s} {'MC s':>7s} {'speed-up':>8s} "
          f"{'eps_theory':>10s} {'eps_MC':>8s} {'SE':>7s}")
    with threadpool_limits(1, "blas"):
        for name, X, y in datasets():
            K = RBF(l=np.sqrt(X.shape[1]))(X)
            t0 = time.perf_counter()
            sol = solve_replica(K, y, 1.0)
            t_theory = time.perf_counter() - t0
            t0 = time.perf_counter()
            mc = monte_carlo_bootstrap(K, y, 1.0, n_samples, random_state=0)
            t_mc = time.perf_counter() - t0
            print(f"{name:14s} {y.size:4d} {t_theory:9.3f} {sol.n_iter:5d} {t_mc:7.2f} {t_mc / t_theory:8.1f} "
                  f"{sol.error:10.4f} {mc.error:8.4f} {mc.error_se:7.4f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 500)
