#!/usr/bin/env python
"""Fail if a stored chapter holds an error output or a never-executed code cell.

The book renders the outputs stored in the notebooks (written by
tools/run_notebooks.py); `make test` proves they are what re-running gives.
This quick guard makes `make book` fail when a stored notebook shows a failed
or skipped cell.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent


def problems(path):
    nb = nbformat.read(path, as_version=4)
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        if cell.get("execution_count") is None:
            found.append(f"cell {index} was never executed")
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                found.append(f"cell {index} failed: {out.get('ename')}: {out.get('evalue')}")
    return found


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    paths = [Path(p) for p in argv] or sorted((ROOT / "book").glob("*.ipynb"))
    bad = 0
    for path in paths:
        for problem in problems(path):
            print(f"{path}: {problem} -- run tools/run_notebooks.py {path}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
