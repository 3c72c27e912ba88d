#!/usr/bin/env python
"""Write the first, hidden set-up cell of every chapter (Colab and Binder need it).

    python tools/notebook_setup.py            # insert or refresh the cell in book/*.ipynb
    python tools/notebook_setup.py --check    # fail if a chapter's cell is missing or stale

On Colab (and anywhere svmlib is not installed) the cell installs svmlib from the book's
repository at ``REF``: ``main``, the branch the book is built and published from, so whatever a
reader opens installs a library that exists and matches the chapter (a release may set ``REF`` to
its tag once the tag is pushed; ``tests/test_environments.py`` fails on a ref that is neither ``main``
nor a tag of the repository). The ``widgets`` extra needs ipywidgets >= 7.7 and the dependencies'
lower bounds are Colab's versions, so pip installs svmlib without upgrading anything Colab ships
(no runtime restart). In the repository, on Binder (which installs ``binder/requirements.txt``)
and under ``make test`` svmlib is importable and the cell does nothing. The cell carries the tag
``remove-cell``, so the built book does not show it.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
REPOSITORY = "https://github.com/svmlib-book/svm-textbook"
#: The git ref the chapters install svmlib from: the branch the book is built from (or an existing release tag).
REF = "main"
MARKER = "# svmlib-setup-cell"

SETUP_SOURCE = f'''{MARKER}: installs svmlib on Colab or any machine where it is missing (does nothing here).
import importlib.util, subprocess, sys
if importlib.util.find_spec("svmlib") is None:
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet",
                           "svmlib[widgets,dask] @ git+{REPOSITORY}@{REF}"])'''


INSTALL = re.compile(r'"(?P<requirement>(?P<name>svmlib)(?:\[[a-z,]+\])? @ git\+(?P<url>[^@"]+)@(?P<ref>[^"]+))"')


def install_target(source):
    """The requirement a set-up cell's source pip-installs, as a match (``requirement``, ``url``, ``ref``), or None."""
    return INSTALL.search(source)


def setup_cell():
    cell = nbformat.v4.new_code_cell(SETUP_SOURCE)
    cell.metadata["tags"] = ["remove-cell"]
    cell.pop("id", None)
    return cell


def has_current_cell(nb):
    first = nb.cells[0] if nb.cells else None
    return first is not None and first.cell_type == "code" and first.source == SETUP_SOURCE


def ensure_setup_cell(nb):
    """Insert the set-up cell first (or refresh a stale one); return True if ``nb`` changed."""
    if has_current_cell(nb):
        return False
    if nb.cells and nb.cells[0].cell_type == "code" and nb.cells[0].source.startswith(MARKER):
        nb.cells[0].source = SETUP_SOURCE
    else:
        cell = setup_cell()
        cell["id"] = "svmlib-setup"
        nb.cells.insert(0, cell)
    return True


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted((ROOT / "book").glob("[0-9]*.ipynb"))
    stale = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        if args.check:
            if not has_current_cell(nb):
                stale.append(path)
        elif ensure_setup_cell(nb):
            nbformat.write(nb, path)
            print(f"set-up cell written: {path}")
    for path in stale:
        print(f"{path}: first cell is not the current set-up cell (run tools/notebook_setup.py)")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
