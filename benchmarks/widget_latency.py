#!/usr/bin/env python
"""Median time per slider event for every widget in the book (Agg backend, one BLAS thread).

    .venv/bin/python benchmarks/widget_latency.py [--repeats 3]

Each module in svmlib/widgets/ lists ``LATENCY_CASES = [(factory, control, values), ...]``.
For every case the Explorer is built once (precomputation is not an event), then
the control is set to each value in turn, ``--repeats`` times; an event is the
time from setting the value to the redrawn figure (compute + draw + canvas.draw).
Target: <= 150 ms per event (wall). On a loaded machine the CPU-time column is
the better estimate of what a reader's idle laptop sees.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import statistics
import sys
import time

from pathlib import Path

import matplotlib
from svmlib.plotting import BOOK_STYLE
import matplotlib.style

matplotlib.use("Agg")
# Readers run the chapters with the book's style, which changes layout work and timings.
matplotlib.style.use(BOOK_STYLE)

from threadpoolctl import threadpool_limits  # noqa: E402

import svmlib.widgets  # noqa: E402

TARGET_MS = 150.0


def cases():
    for info in pkgutil.iter_modules(svmlib.widgets.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"svmlib.widgets.{info.name}")
        for factory, control, values in getattr(module, "LATENCY_CASES", []):
            yield info.name, factory, control, values


def measure(factory, control, values, repeats):
    explorer = factory()
    times, cpu = [], []
    for _ in range(repeats):
        for value in values:
            start, start_cpu = time.perf_counter(), time.process_time()
            explorer.controls[control].value = value
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
    return 1000 * statistics.median(times), 1000 * statistics.median(cpu), 1000 * max(times), len(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    rows = []
    with threadpool_limits(1, "blas"):
        for module, factory, control, values in cases():
            median, median_cpu, worst, n = measure(factory, control, values, args.repeats)
            rows.append((f"{module}.{factory.__name__}", control, median, median_cpu, worst, n))
    print(f"{'widget':44s} {'control':14s} {'median ms':>10s} {'cpu ms':>7s} {'max ms':>8s} {'events':>7s}")
    for name, control, median, median_cpu, worst, n in rows:
        flag = "" if median <= TARGET_MS else "  > target"
        print(f"{name:44s} {control:14s} {median:10.1f} {median_cpu:7.1f} {worst:8.1f} {n:7d}{flag}")
    slow = [r for r in rows if r[2] > TARGET_MS]
    print(f"{len(rows)} widget controls timed; {len(slow)} above the {TARGET_MS:.0f} ms target")
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
