"""Time and peak memory of the normal SMO API against libsvm at N = 8,000 (issue 26), fresh processes.

``DualSVC(kernel=RBF(l)).fit(X, y)`` against ``SVC(gamma=1 / (2 l^2)).fit(X, y)`` on seeded 20-D
inputs (labels from a noisy nonlinear rule), ``C = 1``, ``tol = 1e-3``, ``cache_size = 200`` MB on both
sides, one BLAS thread. Each fit runs in its own Python process, which reports the wall and CPU time of
``fit``, the peak resident set size (``ru_maxrss``: imports + data + fit) and the RSS just before the
fit; with ``--tracemalloc`` also the peak of numpy's allocations during svmlib's fit (by allocation site).
Targets of issue 26: time ratio <= 1.2, peak-memory ratio <= 1.3. Prints the machine's load.

    .venv/bin/python benchmarks/smo_memory.py [--n 8000] [--repeats 3] [--tracemalloc]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np


def make_problem(n, d=20, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    f = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=n)
    return X, np.where(f > 0, 1, -1)


def _rss_mb():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def worker(case, n, trace):
    from threadpoolctl import threadpool_limits
    from sklearn.svm import SVC

    from svmlib.dual import DualSVC
    from svmlib.kernels import RBF

    X, y = make_problem(n)
    l = np.sqrt(X.shape[1])
    model = (DualSVC(C=1.0, kernel=RBF(l=l), tol=1e-3, cache_size=200) if case == "svmlib"
             else SVC(C=1.0, gamma=1 / (2 * l * l), tol=1e-3, cache_size=200))
    if trace:
        import tracemalloc
        tracemalloc.start(5)
    before = _rss_mb()
    with threadpool_limits(1, "blas"):
        c0, w0 = time.process_time(), time.perf_counter()
        model.fit(X, y)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    out = {"wall": wall, "cpu": cpu, "before_mb": before,
           "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
           "n_iter": int(np.ravel(model.n_iter_)[0]), "n_sv": int(model.support_.size)}
    if trace:
        snap = tracemalloc.take_snapshot()
        out["traced_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
        out["top"] = [str(s) for s in snap.statistics("lineno")[:5]]
    print(json.dumps(out))


def run(case, n, trace=False):
    cmd = [sys.executable, __file__, "--worker", case, str(n)] + (["--tracemalloc"] if trace else [])
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=8000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tracemalloc", action="store_true")
    parser.add_argument("--worker", nargs=2)
    args = parser.parse_args()
    if args.worker:
        return worker(args.worker[0], int(args.worker[1]), args.tracemalloc)
    print(f"N = {args.n}, 20-D, RBF l = sqrt(20), C = 1, tol = 1e-3, cache 200 MB, 1 BLAS thread, fresh "
          f"processes, {args.repeats} alternating repeats; load average {os.getloadavg()}")
    res = {"svmlib": [], "libsvm": []}
    for _ in range(args.repeats):
        for case in ("svmlib", "libsvm"):
            res[case].append(run(case, args.n))
    for case, rows in res.items():
        med = {k: float(np.median([r[k] for r in rows])) for k in ("wall", "cpu", "peak_mb", "before_mb")}
        print(f"{case:7s} wall {med['wall']:6.2f} s  cpu {med['cpu']:6.2f} s  peak {med['peak_mb']:6.0f} MB "
              f"(before fit {med['before_mb']:.0f} MB)  steps {rows[0]['n_iter']}  SVs {rows[0]['n_sv']}")
        res[case] = med
    print(f"ratios svmlib / libsvm: wall {res['svmlib']['wall'] / res['libsvm']['wall']:.2f}, "
          f"cpu {res['svmlib']['cpu'] / res['libsvm']['cpu']:.2f}, "
          f"peak memory {res['svmlib']['peak_mb'] / res['libsvm']['peak_mb']:.2f} "
          f"(fit's own share: {res['svmlib']['peak_mb'] - res['svmlib']['before_mb']:.0f} vs "
          f"{res['libsvm']['peak_mb'] - res['libsvm']['before_mb']:.0f} MB); load average {os.getloadavg()}")
    if args.tracemalloc:
        print("svmlib fit under tracemalloc:", json.dumps(run("svmlib", args.n, trace=True), indent=1))


if __name__ == "__main__":
    main()
