"""Large data sets: approximate kernels feeding a linear solver, against an exact kernel on a subsample.

One run of the chapter "SVMs in practice" table (``book/05_svms_in_practice.ipynb``). The data are
scikit-learn's ``make_classification`` (seeded; nothing is downloaded): ``N_TRAIN = 100,000`` training
and ``N_TEST = 20,000`` test points in 20 dimensions, standardised on the training set. Every fit runs in
a fresh Python subprocess, which reports

* the wall time and the CPU (process) time of ``fit`` (feature map included where there is one);
  the CPU time is the number to compare on a shared machine;
* the peak resident set size of the process (``ru_maxrss``, imports + data + fit) and the RSS just
  before the fit, so the fit's own share (``peak - before``) shows;
* the test accuracy.

Cases (RBF kernel with scikit-learn's ``gamma = 1 / (d Var X) = 0.05`` on standardised inputs, ``C = 1``):

* ``svc_sub``, ``svc_sub_large``: ``SVC`` (libsvm, exact kernel) on random subsamples of
  ``N_SUB = 10,000`` and ``N_SUB_LARGE = 30,000`` points;
* ``linear_raw``: ``LinearSVC`` on the 20 raw features, all 100,000 points (the linear baseline);
* ``nystroem``: ``Nystroem(n_components=500)`` + ``LinearSVC``, all points;
* ``nystroem_sq``: the same features + ``LinearSVC()`` with its default squared hinge (``dual="auto"``);
* ``rff``: ``RBFSampler(n_components=500)`` (random Fourier features) + ``LinearSVC``, all points;
* ``primal_nystroem``: the same Nystroem features + ``svmlib.primal.PrimalSVC`` (Pegasos, mini-batches
  of 256, ``MAX_EPOCHS`` epochs), to show what the book's subgradient solver reaches in that budget.

``LinearSVC`` is liblinear's dual coordinate descent (``loss='hinge', dual=True``: the method the chapter
derives) on the hinge loss of the chapter. Ratios in the table are against scikit-learn's exact
``SVC`` on the subsample (time, memory) and, for ``PrimalSVC``, against ``LinearSVC`` on the same features.

    .venv/bin/python benchmarks/large_scale.py          # ~1 CPU minute; several wall minutes on a loaded machine; writes the two outputs below

Writes ``benchmarks/results/large_scale.txt`` (the table) and ``svmlib/_tables/practice_large_scale.json``
(the numbers the chapter shows; ``tests/test_practice_tables.py`` recomputes the ``linear_raw`` accuracy).
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
N_TRAIN, N_TEST, N_SUB, N_FEATURES, N_COMPONENTS = 100_000, 20_000, 10_000, 20, 500
GAMMA, C, MAX_EPOCHS = 0.05, 1.0, 20
N_SUB_LARGE = 30_000
CASES = ["svc_sub", "svc_sub_large", "linear_raw", "nystroem", "nystroem_sq", "rff", "primal_nystroem"]
LABELS = {
    "svc_sub": f"SVC (exact RBF), subsample N = {N_SUB:,}",
    "svc_sub_large": f"SVC (exact RBF), subsample N = {N_SUB_LARGE:,}",
    "linear_raw": "LinearSVC, raw features",
    "nystroem": f"Nystroem ({N_COMPONENTS}) + LinearSVC",
    "nystroem_sq": f"Nystroem ({N_COMPONENTS}) + LinearSVC (squared hinge)",
    "rff": f"random Fourier ({N_COMPONENTS}) + LinearSVC",
    "primal_nystroem": f"Nystroem ({N_COMPONENTS}) + PrimalSVC ({MAX_EPOCHS} epochs)",
}


def make_data(seed=0):
    """Seeded, standardised ``make_classification`` data: (X_train, y_train, X_test, y_test), labels -1/+1."""
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=N_TRAIN + N_TEST, n_features=N_FEATURES, n_informative=10,
                               n_redundant=4, n_clusters_per_class=4, flip_y=0.02, class_sep=1.0,
                               random_state=seed)
    y = 2.0 * y - 1.0
    X_train, X_test = X[:N_TRAIN], X[N_TRAIN:]
    mean, std = X_train.mean(axis=0), X_train.std(axis=0)
    return (X_train - mean) / std, y[:N_TRAIN], (X_test - mean) / std, y[N_TRAIN:]


def _rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")  # pragma: no cover - not Linux


def fit_case(case, X, y, X_test, y_test):
    """Fit one case; return (seconds, test accuracy, extra info)."""
    from sklearn.kernel_approximation import Nystroem, RBFSampler
    from sklearn.svm import SVC, LinearSVC

    info = {}
    t0, c0 = time.perf_counter(), time.process_time()
    if case in ("svc_sub", "svc_sub_large"):
        n_sub = N_SUB if case == "svc_sub" else N_SUB_LARGE
        idx = np.random.default_rng(1).choice(len(y), n_sub, replace=False)
        model = SVC(C=C, gamma=GAMMA).fit(X[idx], y[idx])
        seconds, info["cpu_seconds"] = time.perf_counter() - t0, time.process_time() - c0
        info["n_support"] = int(model.support_.size)
        return seconds, float(model.score(X_test, y_test)), info
    if case == "linear_raw":
        model = LinearSVC(C=C, loss="hinge", dual=True, max_iter=5000, random_state=0).fit(X, y)
        seconds, info["cpu_seconds"] = time.perf_counter() - t0, time.process_time() - c0
        info["n_iter"] = int(model.n_iter_)
        info["converged"] = info["n_iter"] < 5000  # liblinear stops at max_iter without meeting its rule
        return seconds, float(model.score(X_test, y_test)), info
    mapper = (RBFSampler(gamma=GAMMA, n_components=N_COMPONENTS, random_state=0) if case == "rff"
              else Nystroem(gamma=GAMMA, n_components=N_COMPONENTS, random_state=0))
    Z = mapper.fit_transform(X)
    if case == "primal_nystroem":
        from svmlib.primal import PrimalSVC

        model = PrimalSVC(C=C, batch_size=256, max_epochs=MAX_EPOCHS, tol=None, random_state=0).fit(Z, y)
        info["relative_gap"] = float(model.duality_gap_)
    else:
        loss = "squared_hinge" if case == "nystroem_sq" else "hinge"
        # hinge: liblinear's dual coordinate descent (the chapter's algorithm); squared hinge with dual="auto":
        # scikit-learn picks the primal trust-region Newton method for N > D
        dual = "auto" if case == "nystroem_sq" else True
        model = LinearSVC(C=C, loss=loss, dual=dual, max_iter=5000, random_state=0).fit(Z, y)
        info["n_iter"] = int(model.n_iter_)
        info["converged"] = info["n_iter"] < 5000
    seconds, info["cpu_seconds"] = time.perf_counter() - t0, time.process_time() - c0
    return seconds, float(model.score(mapper.transform(X_test), y_test)), info


def run_one(case):
    """Body of one subprocess: data, then one timed fit; prints one JSON line."""
    import threadpoolctl

    threadpoolctl.threadpool_limits(1)
    X, y, X_test, y_test = make_data()
    before = _rss_mb()
    seconds, accuracy, info = fit_case(case, X, y, X_test, y_test)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(dict(case=case, seconds=seconds, accuracy=accuracy, peak_mb=peak,
                          fit_mb=max(peak - before, 0.0), **info)))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--one", choices=CASES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        run_one(args.one)
        return
    rows = {}
    for case in CASES:
        out = subprocess.run([sys.executable, __file__, "--one", case], capture_output=True, text=True, check=True)
        rows[case] = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{case}: {rows[case]}", file=sys.stderr)
    ref = rows["svc_sub"]
    for r in rows.values():
        r["time_vs_svc_sub"] = r["seconds"] / ref["seconds"]
        r["cpu_vs_svc_sub"] = r["cpu_seconds"] / ref["cpu_seconds"]
        r["peak_vs_svc_sub"] = r["peak_mb"] / ref["peak_mb"]
    rows["primal_nystroem"]["time_vs_linearsvc"] = rows["primal_nystroem"]["seconds"] / rows["nystroem"]["seconds"]
    rows["primal_nystroem"]["cpu_vs_linearsvc"] = (rows["primal_nystroem"]["cpu_seconds"]
                                                   / rows["nystroem"]["cpu_seconds"])
    import sklearn

    meta = dict(n_train=N_TRAIN, n_test=N_TEST, n_sub=N_SUB, n_features=N_FEATURES, n_components=N_COMPONENTS,
                gamma=GAMMA, C=C, max_epochs=MAX_EPOCHS, sklearn=sklearn.__version__, numpy=np.__version__,
                machine=f"{platform.machine()}, {platform.processor() or 'cpu'}, 1 BLAS thread",
                date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                command=".venv/bin/python benchmarks/large_scale.py", load=" ".join(
                    f"{x:.1f}" for x in __import__("os").getloadavg()))
    lines = [f"# {meta['command']}   ({meta['date']}; scikit-learn {meta['sklearn']}, numpy {meta['numpy']}, "
             f"{meta['machine']})",
             f"# make_classification: N = {N_TRAIN:,} train / {N_TEST:,} test, d = {N_FEATURES}, RBF gamma = {GAMMA}, "
             f"C = {C}; each fit in a fresh subprocess",
             f"# load average at start: {meta['load']}; 'CPU s' (process time) is the robust number under load",
             f"{'method':<44} {'test acc':>8} {'wall s':>7} {'CPU s':>7} {'CPU x SVC-10k':>13} {'peak MB':>8} {'fit MB':>7}"]
    for case in CASES:
        r = rows[case]
        lines.append(f"{LABELS[case]:<44} {r['accuracy']:8.4f} {r['seconds']:7.1f} {r['cpu_seconds']:7.1f} "
                     f"{r['cpu_vs_svc_sub']:13.2f} {r['peak_mb']:8.0f} {r['fit_mb']:7.0f}")
    p = rows["primal_nystroem"]
    lines.append(f"# PrimalSVC on the Nystroem features: {p['cpu_vs_linearsvc']:.2f}x LinearSVC's CPU time, relative "
                 f"duality gap {p['relative_gap']:.3g} after {MAX_EPOCHS} epochs; LinearSVC epochs (max 5000): "
                 + ", ".join(f"{c} {rows[c]['n_iter']}" for c in ("linear_raw", "nystroem", "nystroem_sq", "rff")))
    text = "\n".join(lines) + "\n"
    print(text)
    (ROOT / "benchmarks/results").mkdir(exist_ok=True)
    (ROOT / "benchmarks/results/large_scale.txt").write_text(text)
    table = dict(meta=meta, labels=LABELS, cases=CASES, rows=rows)
    (ROOT / "svmlib/_tables/practice_large_scale.json").write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
