"""Time of the replica theory vs a 500-sample Monte Carlo bootstrap at S = N (broad RBF kernel).

    .venv/bin/python benchmarks/replica_vs_mc.py [n_samples]

One run, single-threaded BLAS, serial Monte Carlo (scipy's compiled Lawson-Hanson NNLS per
sample on the sample's unique points, rows of one precomputed Gram matrix). Both sides get the
same Gram matrix. Prints eps_theory, eps_MC +- SE, the theory's iterations and the speed-up in
CPU time (process time: robust when other jobs share the machine) and in wall time. The theory
takes 10-100 ms, so its time is the median of 21 solves (a median of 5 moved by +-10 % between
runs on crabs); the Monte Carlo runs once (0.3-8 s). 'grad cpu' is the CPU time of the
theory's gradient in ln l (error_gradient, eq. :eq:`(9.22) <boot-implicit>`); the last two columns are the
iterations and CPU time of the readable plain iteration (iterate_replica, median of 3), which
reaches the same fixed point (asserted).

The Newton steps use scipy.sparse.linalg.gmres (issue 26 removed the hand-written GMRES; the
last run that timed both is the first block of the results file). The output is committed as
benchmarks/results/replica_vs_mc.txt:

    .venv/bin/python benchmarks/replica_vs_mc.py | tee benchmarks/results/replica_vs_mc.txt
"""

import platform
import sys
import time

import numpy as np
from threadpoolctl import threadpool_limits

from svmlib.bootstrap import error_gradient, iterate_replica, monte_carlo_bootstrap, solve_replica
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


def timed(func, repeat=1):
    """(result, median CPU seconds, median wall seconds) over ``repeat`` calls."""
    cpu, wall = [], []
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        out = func()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return out, float(np.median(cpu)), float(np.median(wall))


def main(n_samples=500):
    print(f"replica theory vs {n_samples}-sample Monte Carlo at S = N, RBF l = sqrt(d); "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, Python {platform.python_version()}, "
          "1 BLAS thread; times in s, medians of 21 solves (theory), one run (MC)")
    print(f"{'data':14s} {'N':>4s} {'iter':>4s} {'theory cpu':>10s} {'MC cpu':>7s} {'ratio':>6s} "
          f"{'theory wall':>11s} {'MC wall':>7s} {'ratio':>6s} {'eps_theory':>10s} {'eps_MC':>7s} {'SE':>6s} "
          f"{'grad cpu':>8s} {'plain iter':>10s} {'plain cpu':>9s}")
    with threadpool_limits(1, "blas"):
        for name, X, y in datasets():
            kernel = RBF(l=np.sqrt(X.shape[1]))
            K, dK = kernel(X), kernel.grad_log_l(X)[0]
            sol, t_cpu, t_wall = timed(lambda: solve_replica(K, y, 1.0), repeat=21)
            _, g_cpu, _ = timed(lambda: error_gradient(K, y, sol, dK), repeat=21)
            # the readable plain iteration (iterate_replica) reaches the same fixed point
            plain, p_cpu, _ = timed(lambda: iterate_replica(K, y, 1.0), repeat=3)
            assert abs(plain.error - sol.error) < 1e-9
            mc, m_cpu, m_wall = timed(lambda: monte_carlo_bootstrap(K, y, 1.0, n_samples, random_state=0))
            print(f"{name:14s} {y.size:4d} {sol.n_iter:4d} {t_cpu:10.4f} {m_cpu:7.2f} {m_cpu / t_cpu:6.1f} "
                  f"{t_wall:11.4f} {m_wall:7.2f} {m_wall / t_wall:6.1f} {sol.error:10.4f} {mc.error:7.4f} "
                  f"{mc.error_se:6.4f} {g_cpu:8.4f} "
                  f"{plain.n_iter:10d} {p_cpu:9.4f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 500)
