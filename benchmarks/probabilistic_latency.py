"""Widget latency of :ref:`Chapter 6 <ch-gp-prior>` and :ref:`Chapter 7 <ch-evidence>` (Agg, book style, incl. drawing) and evidence-curve timings.

    .venv/bin/python benchmarks/probabilistic_latency.py

The machine is shared: every time is reported as wall clock AND process CPU time
(``time.process_time``); CPU time is what this code controls, wall time adds the load.
The evidence explorer reads its normalisers from a table (svmlib/widgets/evidence_normalisers.json), so
its ``n`` and ``l`` events cost the same on first and later visits.
"""
import statistics
import time
import warnings
from pathlib import Path

import matplotlib
from svmlib.plotting import BOOK_STYLE

matplotlib.use("Agg")
import matplotlib.style  # noqa: E402
import numpy as np  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from svmlib import evidence as ev, probabilistic as pr  # noqa: E402
from svmlib.kernels import RBF  # noqa: E402
from svmlib.widgets import evidence as wev, probabilistic as wpr  # noqa: E402

matplotlib.style.use(BOOK_STYLE)


def clocks():
    return time.perf_counter(), time.process_time()


with threadpool_limits(1, "blas"):
    for module in (wpr, wev):
        for factory, name, values in module.LATENCY_CASES:
            w0, c0 = clocks()
            explorer = factory()
            w1, c1 = clocks()
            wall, cpu = [], []
            for _ in range(3):
                for v in values:
                    a, b = clocks()
                    explorer.controls[name].value = v
                    e, f = clocks()
                    wall.append(1e3 * (e - a))
                    cpu.append(1e3 * (f - b))
            print(f"{module.__name__.split('.')[-1]:14s} {name:8s} build {w1 - w0:5.2f} s wall {c1 - c0:5.2f} s cpu | "
                  f"events median {statistics.median(wall):5.0f} ms wall {statistics.median(cpu):5.0f} ms cpu, "
                  f"max {max(wall):5.0f} ms wall {max(cpu):5.0f} ms cpu")

    Cs = np.logspace(-0.5, np.log10(20.0), 25)
    data = pr.generate_data(pr.GridPrior(RBF(l=0.05, K0=5.0), pr.unit_grid(400)), 50, 2.0, n_anneal=100, n_steps=200,
                            random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ev.LowESSWarning)
        for label, kwargs in (("chained normaliser (default)", {}), ("plain MC normaliser", {"normaliser": "mc"}),
                              ("naive only", {"normaliser": None})):
            w0, c0 = clocks()
            curve = ev.evidence_curve(data.X, data.y, RBF(l=0.05), Cs, CK0=10.0, grid=pr.unit_grid(100), **kwargs)
            w1, c1 = clocks()
            print(f"evidence curve, 25 C values, n = 50, {label:30s}: {w1 - w0:6.2f} s wall {c1 - c0:6.2f} s cpu  "
                  f"(max at C = {curve.C_best:.2f})")
