#!/usr/bin/env python
"""Timings for chapter 9 (LS-SVR), in one run, one BLAS thread, Agg backend.

    .venv/bin/python benchmarks/lssvr.py [--repeats 3]

1. The seed's Fig. 4 with N = 1200 (target <= 2 s): ``sinc_bands`` (kernel, QR of the
   1202 x 1202 stacked system, eq.-16/full/GP bands on 400 points) plus drawing and Agg rendering.
2. The LS-SVR against scikit-learn's KernelRidge (b = 0) and the GP against
   GaussianProcessRegressor with fixed hyperparameters, same data: ratio of fit + predict times.
3. Widget events (compute + draw + Agg rendering of the figure; target <= 150 ms), for every
   case in ``svmlib.widgets.lssvr.LATENCY_CASES``. Wall time and process CPU time are both given:
   on a shared, loaded machine CPU time is the better estimate of an unloaded wall time.
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


def empty_figure_baseline(repeats):
    """Render time of an empty 1 x 2 figure: calibrates how loaded/slow the machine is right now."""
    def render():
        fig = Figure(figsize=(10, 3.8))
        FigureCanvasAgg(fig)
        fig.subplots(1, 2)
        fig.canvas.draw()
    render()
    return timed(render, 5 * repeats)


def widget_events(repeats):
    import svmlib.widgets._base as base
    from svmlib.widgets import lssvr as w

    base.display = lambda *a, **k: None  # outside a kernel, display() would only print a repr
    out = []
    for factory, control, values in w.LATENCY_CASES:
        explorer = factory()
        FigureCanvasAgg(explorer.fig)  # a real Agg canvas: Figure() alone has a no-op draw()
        walls, cpus = [], []
        for _ in range(repeats):
            for v in values:
                t, c = time.perf_counter(), time.process_time()
                explorer.controls[control].value = v
                explorer.fig.canvas.draw()
                walls.append(time.perf_counter() - t)
                cpus.append(time.process_time() - c)
        out.append((f"{factory.__name__}.{control}", statistics.median(walls), max(walls), statistics.median(cpus)))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    plt.style.use("book/book.mplstyle")
    with threadpool_limits(1, "blas"):
        sinc_figure()  # warm-up (imports, font cache)
        wall, cpu = timed(sinc_figure, args.repeats)
        print(f"Fig. 4, N = 1200, compute + draw + render: wall {wall:.2f} s, cpu {cpu:.2f} s   (target <= 2 s)")
        print("\nfit + predict on 1200 sinc points, 400 test points (median wall s; ratio ours/sklearn):")
        for name, ((ow, _), (sw, _)) in compare_with_sklearn(args.repeats).items():
            print(f"  {name:34s} {ow:6.3f} vs {sw:6.3f}   ratio {ow / sw:5.2f}")
        wall, cpu = empty_figure_baseline(args.repeats)
        print(f"\nbaseline: render an EMPTY 1 x 2 figure: wall {1000 * wall:.0f} ms, cpu {1000 * cpu:.0f} ms")
        print("widget events incl. Agg rendering (ms):")
        for name, med, worst, cpu in widget_events(args.repeats):
            flag = "ok" if cpu * 1000 <= 150 else "> 150 ms"
            print(f"  {name:24s} median wall {1000 * med:6.0f}  max wall {1000 * worst:6.0f}  median cpu {1000 * cpu:6.0f}  {flag}")


if __name__ == "__main__":
    main()
