#!/usr/bin/env python
"""Timings for :ref:`Chapter 10 <ch-lssvr>` (LS-SVR), in one run, one BLAS thread, Agg backend.

    .venv/bin/python benchmarks/lssvr.py [--repeats 3]

1. The seed's Fig. 4 with N = 1200 (target <= 2 s): ``sinc_bands`` (kernel, QR of the
   1202 x 1202 stacked system, eq.-16/full/GP bands on 400 points) plus drawing and Agg rendering.
2. The LS-SVR against scikit-learn's KernelRidge (b = 0) and the GP against
   GaussianProcessRegressor with fixed hyperparameters, same data: ratio of fit + predict times.
Widget events are timed for every chapter by ``benchmarks/widget_latency.py``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from sklearn.gaussian_process import GaussianProcessRegressor  # noqa: E402
from sklearn.gaussian_process.kernels import RBF as SkRBF  # noqa: E402
from sklearn.kernel_ridge import KernelRidge  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from svmlib import lssvr  # noqa: E402
from svmlib.plotting import BOOK_STYLE  # noqa: E402
from svmlib.plotting.lssvr import draw_sinc_bands  # noqa: E402


def timed(func, repeats):
    walls, cpus = [], []
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        func()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus)


def sinc_figure():
    state = lssvr.sinc_bands(c=1.0, gamma=1.0, eps=1e-4, n=1200, n_grid=400)
    fig = Figure(figsize=(11, 4.8), layout="constrained")
    FigureCanvasAgg(fig)
    draw_sinc_bands(fig, state)
    fig.canvas.draw()


def compare_with_sklearn(repeats):
    X, y = lssvr.make_sinc(1200, noise=0.05, random_state=0)
    Xt = np.linspace(-3 * np.pi, 3 * np.pi, 400)[:, None]
    c = 1.0
    l = 1.0 / (np.sqrt(2) * c)
    ours_krr = timed(lambda: lssvr.LSSVR(gamma=1.0, kernel=lssvr.rbf_from_c(c), fit_intercept=False)
                     .fit(X, y).predict(Xt), repeats)
    sk_krr = timed(lambda: KernelRidge(alpha=1.0, kernel="rbf", gamma=c**2).fit(X, y).predict(Xt), repeats)
    ours_ls = timed(lambda: lssvr.LSSVR(gamma=1.0, kernel=lssvr.rbf_from_c(c)).fit(X, y).predict(Xt), repeats)
    ours_gp = timed(lambda: lssvr.GPRegression(kernel=lssvr.rbf_from_c(c), noise_variance=1.0)
                    .fit(X, y).predict(Xt, return_std=True), repeats)
    sk_gp = timed(lambda: GaussianProcessRegressor(SkRBF(l, "fixed"), alpha=1.0, optimizer=None)
                  .fit(X, y).predict(Xt, return_std=True), repeats)
    ours_bayes = timed(lambda: lssvr.BayesianLSSVR(gamma=1.0, eps=1e-4, kernel=lssvr.rbf_from_c(c))
                       .fit(X, y).predict(Xt, return_std=True), repeats)
    return {"LSSVR(b=0) / KernelRidge": (ours_krr, sk_krr), "LSSVR with bias / KernelRidge": (ours_ls, sk_krr),
            "GPRegression / sklearn GPR": (ours_gp, sk_gp), "BayesianLSSVR (QR) / sklearn GPR": (ours_bayes, sk_gp)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    plt.style.use(BOOK_STYLE)
    with threadpool_limits(1, "blas"):
        sinc_figure()  # warm-up (imports, font cache)
        wall, cpu = timed(sinc_figure, args.repeats)
        print(f"Fig. 4, N = 1200, compute + draw + render: wall {wall:.2f} s, cpu {cpu:.2f} s   (target <= 2 s)")
        print("\nfit + predict on 1200 sinc points, 400 test points (median wall s; ratio ours/sklearn):")
        for name, ((ow, _), (sw, _)) in compare_with_sklearn(args.repeats).items():
            print(f"  {name:34s} {ow:6.3f} vs {sw:6.3f}   ratio {ow / sw:5.2f}")


if __name__ == "__main__":
    main()
