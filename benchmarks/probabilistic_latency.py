"""Widget latency of chapters 5 and 6 (Agg, incl. drawing) and evidence-curve timings.

    .venv/bin/python benchmarks/probabilistic_latency.py
"""
import time
import warnings

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402

from svmlib import evidence as ev, probabilistic as pr  # noqa: E402
from svmlib.kernels import RBF  # noqa: E402
from svmlib.widgets import evidence as wev, probabilistic as wpr  # noqa: E402

for module in (wpr, wev):
    for factory, name, values in module.LATENCY_CASES:
        t = time.perf_counter()
        explorer = factory()
        build = time.perf_counter() - t
        times = []
        for v in values:
            explorer.controls[name].value = v
            times.append(explorer.last_seconds)
        print(f"{module.__name__.split('.')[-1]:14s} {name:8s} build {build:6.2f}s  events max {1e3 * max(times):6.0f} ms")

Cs = np.logspace(-0.5, np.log10(20.0), 25)
data = pr.generate_data(pr.GridPrior(RBF(l=0.05, K0=5.0), pr.unit_grid(400)), 50, 2.0, n_anneal=100, n_steps=200,
                        random_state=1)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ev.LowESSWarning)
    for label, kwargs in (("chained normaliser (default)", {}), ("plain MC normaliser", {"normaliser": "mc"}),
                          ("naive only", {"normaliser": None})):
        t = time.perf_counter()
        curve = ev.evidence_curve(data.X, data.y, RBF(l=0.05), Cs, CK0=10.0, grid=pr.unit_grid(100), **kwargs)
        print(f"evidence curve, 25 C values, n = 50, {label:30s}: {time.perf_counter() - t:6.2f} s  "
              f"(max at C = {curve.C_best:.2f})")
