#!/usr/bin/env python
"""Check the PDF edition after `make pdf`.

    python tools/check_pdf.py [_build/latex] [--min-pages 150]

Fails (exit 1) when

* the PDF is missing, or has fewer than ``--min-pages`` pages (``pdfinfo``, from poppler-utils);
* the LaTeX log reports an undefined reference or citation, or a multiply defined label
  ("Reference `...' on page N undefined", "There were undefined references", ...);
* the typeset text shows "??" (an unresolved reference as the reader would see it; read with
  ``pdftotext``) -- Python's and the text's own "??" do not occur in this book.

* the log reports an overfull box over ``--max-overfull-pt`` (5 pt; issue 24): an equation, table or box
  that runs into the margin or off the page;
* a patch of the LaTeX preamble in ``_config.yml`` (``latex_elements``) did not apply
  ("Package svm-textbook Warning: could not patch ...").

Prints the page count, the PDF size and the number of overfull boxes.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = "svm-textbook"

UNDEFINED = [
    re.compile(r"LaTeX Warning: Reference `[^']*' on page \d+ undefined"),
    re.compile(r"LaTeX Warning: Citation `[^']*' on page \d+ undefined"),
    re.compile(r"LaTeX Warning: There were undefined references"),
    re.compile(r"LaTeX Warning: Label `[^']*' multiply defined"),
    re.compile(r"Package natbib Warning: Citation"),
    # _config.yml's LaTeX preamble patches framed.sty and Sphinx's admonition title row (overfull boxes, issue 24);
    # it warns under this name when a TeX Live or Sphinx update changed the code it patches
    re.compile(r"Package svm-textbook Warning: [^\n]*"),
]


def page_count(pdf):
    out = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"^Pages:\s+(\d+)", out, re.M).group(1))


def problems_in_log(log_text):
    found = []
    for pattern in UNDEFINED:
        found += [m.group(0) for m in pattern.finditer(log_text)]
    return found


_OVERFULL = re.compile(r"^Overfull \\([hv])box \(([\d.]+)pt too (?:wide|high)\)(.*)$", re.M)


def overfull_boxes(log_text):
    """[(kind "h"/"v", points, where)] for every overfull box the LaTeX log reports."""
    return [(m.group(1), float(m.group(2)), m.group(3).strip()) for m in _OVERFULL.finditer(log_text)]


def question_marks_in_text(pdf):
    if shutil.which("pdftotext") is None:
        return None
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    hits = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if "??" in line:
            hits.append(f"line {lineno}: {line.strip()[:100]}")
    return hits


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", nargs="?", type=Path, default=ROOT / "_build" / "latex")
    parser.add_argument("--min-pages", type=int, default=150)
    parser.add_argument("--max-overfull-pt", type=float, default=5.0,
                        help="fail on an overfull box wider/higher than this (issue 24: 5 pt; a few pt is invisible)")
    args = parser.parse_args(argv)
    pdf, log = args.folder / f"{TARGET}.pdf", args.folder / f"{TARGET}.log"
    errors = []
    if not pdf.exists():
        print(f"FAIL: {pdf} does not exist (run `make pdf`)")
        return 1
    pages = page_count(pdf)
    if pages < args.min_pages:
        errors.append(f"{pages} pages, fewer than the expected {args.min_pages}: is a part of the book missing?")
    if log.exists():
        log_text = log.read_text(errors="replace")
        errors += [f"LaTeX log: {p}" for p in problems_in_log(log_text)]
        boxes = overfull_boxes(log_text)
        overfull = len(boxes)
        errors += [f"overfull \\{kind}box {pt:.1f} pt (over {args.max_overfull_pt:g} pt) {where}"
                   for kind, pt, where in boxes if pt > args.max_overfull_pt]
    else:
        errors.append(f"{log} does not exist")
        overfull = 0
    hits = question_marks_in_text(pdf)
    if hits:
        errors += [f'"??" in the PDF text, {h}' for h in hits]
    print(f"{pdf}: {pages} pages, {pdf.stat().st_size / 1e6:.1f} MB, {overfull} overfull box(es)"
          + ("" if hits is not None else " (pdftotext missing: ?? not checked in the text)"))
    for e in errors:
        print("FAIL:", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
