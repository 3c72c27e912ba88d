"""Wall time and peak memory of svmlib's SMO against scikit-learn's SVC / SVR (libsvm).

For each N, every fit runs in a fresh Python subprocess (so that one fit's memory cannot
hide in another's), which reports

* the wall time of ``fit`` (median of ``--repeats`` fits for N <= 4000, one fit above);
* the peak resident set size of the process (``ru_maxrss``: imports, data and fit
  together -- measured with the operating system, so it counts every allocation, numpy's
  and libsvm's alike), and the RSS just before the fit, so the fit's own share shows.

Cases, all single-threaded BLAS (``svmlib._threads.blas_single_thread``), RBF kernel
``l = 1`` (scikit-learn's ``gamma = 0.5``), ``C = 1``, ``tol = 1e-3`` (libsvm's meaning),
200 MB kernel cache on both sides:

* ``api``: the normal API, ``DualSVC(kernel=RBF(l=1)).fit(X, y)`` (kernel rows on demand,
  :class:`svmlib.dual.KernelRowCache`) against ``SVC(gamma=0.5).fit(X, y)``; and libsvm
  without shrinking, the evidence for leaving shrinking out of svmlib;
* ``pre``: a precomputed Gram matrix for both (built before the timer starts; it is part
  of both peaks: 8 N^2 bytes, 2 GB at N = 16,000);
* ``svr``: epsilon-SVR (``epsilon = 0.1``) through the normal API, ``DualSVR`` against ``SVR``.

Both dual objectives are printed, so the times compare equally good solutions.

    .venv/bin/python benchmarks/smo_vs_libsvm.py [--sizes 1000 2000 4000 8000 16000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np


def make_problem(n, seed=0):
    """Seeded 5-D inputs; labels from a noisy nonlinear rule (so many points are support vectors)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    score = X[:, 0] + 0.5 * X[:, 1] ** 2 - 0.5 + 0.5 * rng.normal(size=n)
    return X, np.where(score > 0, 1.0, -1.0)


def make_regression(n, seed=0):
    """Seeded 5-D inputs; a smooth nonlinear target plus noise of standard deviation 0.3."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    return X, np.sin(X[:, 0]) + 0.5 * X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=n)


def _rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")  # pragma: no cover - not Linux


CASES = ("svmlib_api", "libsvm_api", "libsvm_api_noshrink", "svmlib_pre", "libsvm_pre", "svmlib_svr", "libsvm_svr")


def worker(case, n, repeats):
    """One case in this (fresh) process; prints a JSON line."""
    from sklearn.svm import SVC, SVR

    from svmlib._threads import blas_single_thread
    from svmlib.dual import DualSVC
    from svmlib.kernels import RBF
    from svmlib.svr import DualSVR

    C, tol, gamma = 1.0, 1e-3, 0.5
    with blas_single_thread():
        if case.endswith("svr"):
            X, y = make_regression(n)
        else:
            X, y = make_problem(n)
        if case.endswith("pre"):
            X = RBF(l=1.0)(X)
        make = {
            "svmlib_api": lambda: DualSVC(C=C, kernel=RBF(l=1.0), tol=tol, cache_size=200),
            "libsvm_api": lambda: SVC(C=C, gamma=gamma, tol=tol, cache_size=200),
            "libsvm_api_noshrink": lambda: SVC(C=C, gamma=gamma, tol=tol, cache_size=200, shrinking=False),
            "svmlib_pre": lambda: DualSVC(C=C, kernel="precomputed", tol=tol),
            "libsvm_pre": lambda: SVC(C=C, kernel="precomputed", tol=tol),
            "svmlib_svr": lambda: DualSVR(C=C, epsilon=0.1, kernel=RBF(l=1.0), tol=tol, cache_size=200),
            "libsvm_svr": lambda: SVR(C=C, epsilon=0.1, gamma=gamma, tol=tol, cache_size=200),
        }[case]
        make().fit(X[:50, :50] if case.endswith("pre") else X[:50], y[:50])  # warm-up: first calls, lazy imports
        rss_before = _rss_mb()
        times = []
        for _ in range(repeats if n <= 4000 else 1):
            model = make()
            t0 = time.perf_counter()
            model.fit(X, y)
            times.append(time.perf_counter() - t0)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB -> MB (Linux)
        objective, n_iter = _objective(model, X, y, case)
    print(json.dumps(dict(case=case, n=n, time=float(np.median(times)), peak_mb=peak, rss_before_mb=rss_before,
                          objective=objective, n_iter=n_iter, n_sv=int(model.support_.size))))


def _objective(model, X, y, case):
    """Dual objective of a fitted model (after the peak was read: this needs K on the SVs)."""
    from svmlib.kernels import RBF

    if hasattr(model, "objective_"):
        return float(model.objective_), int(model.n_iter_)
    sv, c = model.support_, model.dual_coef_[0]
    K_sv = X[np.ix_(sv, sv)] if case.endswith("pre") else RBF(l=1.0)(X[sv])
    if case.endswith("svr"):  # sum y c - eps sum |c| - c K c / 2
        W = float(y[sv] @ c - 0.1 * np.abs(c).sum() - 0.5 * c @ K_sv @ c)
    else:  # sum alpha - c K c / 2 with alpha = |c|
        W = float(np.abs(c).sum() - 0.5 * c @ K_sv @ c)
    return W, int(np.sum(model.n_iter_))


def run_case(case, n, repeats):
    out = subprocess.run([sys.executable, __file__, "--worker", case, str(n), "--repeats", str(repeats)],
                         capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"case {case} at N = {n} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 4000, 8000, 16000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--worker", nargs=2, metavar=("CASE", "N"))
    args = parser.parse_args()
    if args.worker:
        worker(args.worker[0], int(args.worker[1]), args.repeats)
        return
    res = {}
    for n in args.sizes:
        for case in CASES:
            res[case, n] = run_case(case, n, args.repeats)
            print(f"  done {case} N={n}: {res[case, n]['time']:.2f} s, peak {res[case, n]['peak_mb']:.0f} MB",
                  file=sys.stderr, flush=True)
    print("svmlib SMO vs libsvm (scikit-learn): RBF l = 1 (gamma = 0.5), C = 1, tol = 1e-3, cache 200 MB,")
    print("single-threaded BLAS; each fit in a fresh process; time = wall time of fit (median of "
          f"{args.repeats} for N <= 4000, one fit above);")
    print("peak = peak RSS of the process (ru_maxrss: imports + data + fit); fit = peak minus RSS before fit.")
    print("ratio = svmlib / libsvm (time; peak RSS).\n")
    head = (f"{'N':>6} | {'svmlib s':>8} {'libsvm s':>8} {'ratio':>5} {'noshrk s':>8} | {'svmlib MB':>9} {'(fit)':>6} "
            f"{'libsvm MB':>9} {'(fit)':>6} {'ratio':>5} | {'W svmlib':>11} {'W libsvm':>11} {'it svmlib':>9} {'it libsvm':>9}")

    def row(n, ours, ref, extra=""):
        a, b = res[ours, n], res[ref, n]
        return (f"{n:>6} | {a['time']:>8.2f} {b['time']:>8.2f} {a['time'] / b['time']:>5.2f} {extra:>8} | "
                f"{a['peak_mb']:>9.0f} {a['peak_mb'] - a['rss_before_mb']:>6.0f} {b['peak_mb']:>9.0f} "
                f"{b['peak_mb'] - b['rss_before_mb']:>6.0f} {a['peak_mb'] / b['peak_mb']:>5.2f} | "
                f"{a['objective']:>11.4f} {b['objective']:>11.4f} {a['n_iter']:>9} {b['n_iter']:>9}")

    print("Normal API: DualSVC(kernel=RBF(l=1)) vs SVC(gamma=0.5); noshrk = SVC(shrinking=False) time")
    print(head)
    for n in args.sizes:
        print(row(n, "svmlib_api", "libsvm_api", f"{res['libsvm_api_noshrink', n]['time']:.2f}"))
    print("\nPrecomputed Gram matrix (built before the timer; in both peaks): DualSVC vs SVC(kernel='precomputed')")
    print(head)
    for n in args.sizes:
        print(row(n, "svmlib_pre", "libsvm_pre"))
    print("\nepsilon-SVR, normal API, epsilon = 0.1: DualSVR(kernel=RBF(l=1)) vs SVR(gamma=0.5)")
    print(head)
    for n in args.sizes:
        print(row(n, "svmlib_svr", "libsvm_svr"))


if __name__ == "__main__":
    main()
