"""ReplicaBootstrap on extreme class imbalance (issue 16): time, iterations and, optionally, Monte Carlo.

    .venv/bin/python benchmarks/replica_imbalance.py [--mc]

n Gaussian 2-D inputs (seed 1), the first k labelled +1, the rest -1; ReplicaBootstrap with default
parameters (broad RBF l = sqrt(2), S = N). Prints the wall and CPU time of ``fit`` (median of 3), the
iterations (all evaluations of the map) and how many of them ran on the low-rank surrogate (``rough``),
whether it converged and its error. With ``--mc`` also a seeded 500-sample Monte Carlo bootstrap of
the same set (its error and standard error): the theory's approximation error on such sets is far
larger than the sampling error (see ReplicaBootstrap's Notes). Output committed as
benchmarks/results/replica_imbalance.txt (with the previous commit's run for comparison):

    .venv/bin/python benchmarks/replica_imbalance.py --mc
"""

import platform
import sys
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from svmlib.bootstrap import MonteCarloBootstrap, ReplicaBootstrap

CASES = [(200, 1), (300, 3), (1000, 1), (1000, 3)]


def one_against_many(n, k, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = -np.ones(n)
    y[:k] = 1.0
    return X, y


def main(with_mc=False):
    print(f"ReplicaBootstrap() on k positives among n 2-D Gaussian inputs (seed 1), S = N; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, Python {platform.python_version()}; "
          "times in s, medians of 3 fits")
    print(f"{'set':>10s} {'wall':>6s} {'cpu':>6s} {'iter':>5s} {'rough':>5s} {'conv':>5s} {'warn':>4s} {'error':>8s}"
          + (f" {'MC error':>8s} {'SE':>7s} {'MC s':>5s}" if with_mc else ""))
    for n, k in CASES:
        X, y = one_against_many(n, k)
        wall, cpu = [], []
        for _ in range(3):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                w0, c0 = time.perf_counter(), time.process_time()
                est = ReplicaBootstrap().fit(X, y)
                wall.append(time.perf_counter() - w0)
                cpu.append(time.process_time() - c0)
        sol = est.solution_
        line = (f"{k:>4d} v {n - k:<3d} {np.median(wall):6.2f} {np.median(cpu):6.2f} {sol.n_iter:5d} {sol.n_rough:5d} "
                f"{sol.converged!s:>5s} {len(caught):4d} {est.error_:8.5f}")
        if with_mc:
            w0 = time.perf_counter()
            mc = MonteCarloBootstrap(n_samples=500, random_state=0).fit(X, y)
            line += f" {mc.error_:8.5f} {mc.error_se_:7.5f} {time.perf_counter() - w0:5.1f}"
        print(line, flush=True)


if __name__ == "__main__":
    main(with_mc="--mc" in sys.argv[1:])
