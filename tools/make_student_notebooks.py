#!/usr/bin/env python
"""Write student copies of the chapters: solutions blanked, outputs cleared.

    python tools/make_student_notebooks.py [--out student] [NOTEBOOK ...]

The book's notebooks are the teacher's source (solutions included, as in
ThinkBayes2). In a student copy

* every cell tagged ``solution`` is blanked: a code cell becomes
  ``# Your solution here`` and a markdown cell a short placeholder -- the
  exercise text itself stays;
* cells tagged ``remove-cell`` (hidden assertions of the book's numbers) are
  kept, since they make the notebook check itself as the student runs it -- except
  inside a gated solution (``{solution-start}`` ... ``{solution-end}``), where they
  check the teacher's answer (and would give it away): those are dropped;
* every output and execution count is cleared and the widget state dropped.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
SOLUTION_TAG = "solution"
CODE_PLACEHOLDER = "# Your solution here\n"
MARKDOWN_PLACEHOLDER = "*Solution: your answer here.*"


def studentise(nb):
    """Return a student copy of the notebook ``nb`` (a new object)."""
    nb = nbformat.from_dict(nb)  # deep copy
    nb.metadata.pop("widgets", None)
    nb.metadata.pop("book", None)  # text_constants list numbers of the solutions (tests/test_prose_numbers.py)
    kept, inside = [], False
    for cell in nb.cells:  # a code cell inside a gated solution checks the teacher's answer: drop it
        if cell.cell_type == "markdown":
            inside = ("{solution-start}" in cell.source or inside) and "{solution-end}" not in cell.source
        elif inside and SOLUTION_TAG not in cell.metadata.get("tags", []):
            continue
        kept.append(cell)
    nb.cells = kept
    gated = False  # inside a {solution-start} ... {solution-end} block whose placeholder is already written
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if SOLUTION_TAG in tags:
            cell.metadata.pop("jupyter", None)  # the book collapses solutions; the student's answer cell is open
            if cell.cell_type == "code":
                cell.source = CODE_PLACEHOLDER
            else:
                starts, ends = "{solution-start}" in cell.source, "{solution-end}" in cell.source
                # one placeholder per solution: the prose between and after a gated solution's code cells
                # (and its closing cell) become empty cells rather than a second and third placeholder
                cell.source = "" if gated and not starts else MARKDOWN_PLACEHOLDER
                gated = (starts or gated) and not ends
            cell.metadata["tags"] = [t for t in tags if t != SOLUTION_TAG] + ["student-answer"]
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    return nb


def write_student_copies(paths, out_dir):
    """Write a student copy of each notebook in ``paths`` to ``out_dir``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for path in paths:
        path = Path(path)
        nb = nbformat.read(path, as_version=4)
        target = out_dir / path.name
        nbformat.write(studentise(nb), target)
        written.append(target)
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--out", type=Path, default=ROOT / "student")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted((ROOT / "book").glob("*.ipynb"))
    for target in write_student_copies(paths, args.out):
        print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
