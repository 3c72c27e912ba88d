"""Wall time of svmlib's SMO against scikit-learn's SVC (libsvm) on the same problem.

Same precomputed RBF Gram matrix, same C and stopping tolerance (svmlib's ``tol`` has
libsvm's meaning: maximal violating pair below ``tol``), single-threaded BLAS,
median of ``--repeats`` runs per size. The ratio is svmlib / libsvm (lower is better;
the target is <= 2 at N = 2000). Both dual objectives are printed so the comparison
is between equally good solutions.

    .venv/bin/python benchmarks/smo_vs_libsvm.py [--repeats 7] [--sizes 250 500 1000 2000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from svmlib.dual import solve_dual
from svmlib.kernels import RBF


def make_problem(n, seed=0):
    """Seeded 5-D inputs; labels from a noisy nonlinear rule (so many points are support vectors)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    score = X[:, 0] + 0.5 * X[:, 1] ** 2 - 0.5 + 0.5 * rng.normal(size=n)
    return X, np.where(score > 0, 1.0, -1.0)


def dual_objective(alpha, y, K):
    ya = y * alpha
    return alpha.sum() - 0.5 * ya @ K @ ya


def time_median(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), out


def run(sizes, repeats, C=1.0, tol=1e-3, l=1.0):
    rows = []
    for n in sizes:
        X, y = make_problem(n)
        K = RBF(l=l)(X)
        t_ours, sol = time_median(lambda: solve_dual(K, y, C, tol=tol), repeats)
        t_ref, clf = time_median(lambda: SVC(kernel="precomputed", C=C, tol=tol).fit(K, y), repeats)
        alpha_ref = np.zeros(n)
        alpha_ref[clf.support_] = np.abs(clf.dual_coef_[0])
        rows.append((n, t_ours, t_ref, sol.objective, dual_objective(alpha_ref, y, K), sol.n_iter, int(clf.n_iter_[0])))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--sizes", type=int, nargs="+", default=[250, 500, 1000, 2000])
    args = parser.parse_args()
    with threadpool_limits(limits=1, user_api="blas"):
        solve_dual(np.eye(2), np.array([1.0, -1.0]))  # warm-up (imports, first calls)
        rows = run(args.sizes, args.repeats)
    print(f"RBF (l = 1) precomputed, C = 1, tol = 1e-3, median of {args.repeats} runs, single-threaded BLAS")
    print(f"{'N':>6} {'svmlib ms':>10} {'libsvm ms':>10} {'ratio':>6} {'W svmlib':>14} {'W libsvm':>14} {'it svmlib':>9} {'it libsvm':>9}")
    for n, t1, t2, w1, w2, i1, i2 in rows:
        print(f"{n:>6} {1e3 * t1:>10.1f} {1e3 * t2:>10.1f} {t1 / t2:>6.2f} {w1:>14.6f} {w2:>14.6f} {i1:>9} {i2:>9}")


if __name__ == "__main__":
    main()
