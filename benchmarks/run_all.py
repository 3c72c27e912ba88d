#!/usr/bin/env python
"""Run All of every chapter as a reader's kernel runs it (live explorers, no static frames).

    .venv/bin/python benchmarks/run_all.py [NOTEBOOK ...] [--out benchmarks/results/run_all.txt]

Each chapter is executed with nbclient in ``book/`` without ``SVMLIB_BOOK_BUILD`` (that variable
makes the runner also draw every static frame, which a reader's kernel never does). "run all" is the
time from the first cell's start to the last cell's reply, what a reader waits for after "Run All"
in an open notebook; "with kernel start" adds starting the kernel. Target: <= 10 s per chapter
(issue 13). Run it on a quiet machine: the load average is printed with the results.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import datetime
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent


def run_all(path):
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=600, kernel_name="python3", record_timing=True,
                            resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    client.execute()
    wall = time.perf_counter() - start
    stamps = [c.metadata.get("execution", {}) for c in nb.cells if c.cell_type == "code"]
    first = min(datetime.fromisoformat(s["iopub.execute_input"].replace("Z", "+00:00"))
                for s in stamps if "iopub.execute_input" in s)
    last = max(datetime.fromisoformat(s["shell.execute_reply"].replace("Z", "+00:00"))
               for s in stamps if "shell.execute_reply" in s)
    return (last - first).total_seconds(), wall


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--out", type=Path, help="append the table to this file")
    args = parser.parse_args(argv)
    os.environ.pop("SVMLIB_BOOK_BUILD", None)
    os.environ["TQDM_DISABLE"] = "1"
    paths = args.notebooks or sorted((ROOT / "book").glob("*.ipynb"))
    lines = [f"# {datetime.now():%Y-%m-%d %H:%M}, load average {os.getloadavg()[0]:.2f} at start",
             f"{'chapter':32s} {'run all (s)':>11s} {'with kernel start (s)':>22s}"]
    print("\n".join(lines), flush=True)
    for path in paths:
        run, wall = run_all(path.resolve())
        lines.append(f"{path.name:32s} {run:11.1f} {wall:22.1f}")
        print(lines[-1], flush=True)
    if args.out:
        with open(args.out, "a") as out:
            out.write("\n".join(lines) + "\n\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
