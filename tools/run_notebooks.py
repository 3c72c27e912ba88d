#!/usr/bin/env python
"""Execute the book's notebooks and store deterministic outputs.

    python tools/run_notebooks.py [NOTEBOOK ...]          # re-execute, write outputs
    python tools/run_notebooks.py --check [NOTEBOOK ...]  # fail if re-running would change a file
    python tools/run_notebooks.py --run-only NOTEBOOK ... # execute (Run All) only: no comparison, no writing

Without arguments every ``book/*.ipynb`` is processed. Notebooks are committed
WITH outputs so that nbval (strict mode) compares every cell. To make a
re-run give byte-identical files this script

* executes with nbclient in the notebook's folder, with ``TQDM_DISABLE=1``
  (progress bars print timings) and ``PYTHONHASHSEED=0``;
* drops per-cell execution timings and renames the random widget model ids
  (uuid4) to ids numbered in order of first appearance, so the embedded widget
  state (which the built book renders offline) is reproducible;
* merges consecutive stream outputs (how the kernel chunks stdout is timing-dependent);
* writes each glued number into the markdown that shows it (JupyterLab cannot read glue roles;
  book/_ext/lab_references.py turns the form back into the role for the book);
* writes with nbformat (sorted keys).

It also sets ``SVMLIB_BOOK_BUILD=1``, so every displayed ``svmlib.widgets.Explorer``
stores its kernel-free static form (a slider ``jslink``-ed to precomputed images, plus an
animated-PNG fallback for untrusted notebooks); the widget state goes into the notebook
metadata. Code cells tagged ``solution`` get ``metadata.jupyter.source_hidden`` and
``outputs_hidden``: JupyterLab shows them collapsed (jupyterlab-myst collapses only the
``{solution-start}`` cell's own text), so opening a chapter does not show the answers. Cells the
book hides (``remove-cell`` set-up and assertion cells, ``hide-input``, ...) are collapsed likewise.

Cells tagged ``nbval-ignore-output`` (live widgets, wall-clock timing tables)
keep their outputs in the file but are excluded from the ``--check``
comparison, exactly as nbval ignores them.

``--check`` executes into memory (it never writes) and compares with ``tools/output_compare.py``,
the comparison nbval uses too (``tools/nbval_tolerant.py``): numbers agree to round-off
(relative 1e-5, absolute 1e-10, one unit in the last printed digit), integers and words exactly,
figures (also the widget state's frames) to an RMS pixel difference of 1. Stored outputs that a
different CPU, BLAS kernel or SIMD level would print in other last digits therefore passes; a
changed number, word, count or figure fails. The stored file must still be exactly what the runner
writes from its own outputs (normalised).
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "book" / "_ext"))
from lab_references import GLUE, refresh_glue_values  # noqa: E402  (glued numbers readable in JupyterLab)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from output_compare import compare_notebooks  # noqa: E402  (round-off-tolerant, meaning-strict comparison)
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
MODEL_ID = re.compile(r"[0-9a-f]{32}")
IGNORE_TAG = "nbval-ignore-output"
ENV = {"TQDM_DISABLE": "1", "PYTHONHASHSEED": "0", "MPLBACKEND": "module://matplotlib_inline.backend_inline",
       "SVMLIB_BOOK_BUILD": "1"}
SOLUTION_TAG = "solution"
HIDDEN = {"source_hidden": True, "outputs_hidden": True}


BOOK_HIDDEN = {"remove-cell", "remove-input", "remove-output", "hide-cell", "hide-input", "hide-output"}
SOLUTION_FIRST_LINE = "# Solution (collapsed when the notebook is opened)"
SOLUTION_PROSE_FIRST_LINE = "% Solution, continued (collapsed when the notebook is opened)"


def hide_solutions(nb):
    """Collapse the code cells of solutions in JupyterLab (cell metadata ``jupyter``).

    A code cell is a solution's if it is tagged ``solution`` or sits inside a gated solution
    (e.g. a hidden assertion of the solution's numbers, tagged ``remove-cell``).

    A collapsed cell still shows its first line in JupyterLab 4, so a solution whose first
    line is code (``check(0.6, 0.8)``) would give the answer away: it gets a comment line first.
    """
    inside = False  # between a gated solution's {solution-start} and {solution-end} cells
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            if "{solution-start}" in cell.source:
                inside = True  # jupyterlab-myst shows this cell's own text in a closed dropdown
                continue
            # prose of the solution after its start cell (also text before the {solution-end} fence)
            # is rendered openly by jupyterlab-myst: collapse the cell
            ending = "{solution-end}" in cell.source
            prose = re.sub(r"```\{solution-end\}\s*```", "", cell.source).strip()
            if inside and prose:
                cell.metadata["jupyter"] = {"source_hidden": True}
                if not cell.source.startswith("%"):  # Lab previews the first line; a MyST comment renders nowhere
                    cell.source = SOLUTION_PROSE_FIRST_LINE + "\n" + cell.source
            if ending:
                inside = False
            continue
        tags = set(cell.metadata.get("tags", []))
        if inside or SOLUTION_TAG in tags:
            cell.metadata["jupyter"] = dict(HIDDEN)
            if not cell.source.lstrip().startswith("#"):
                cell.source = SOLUTION_FIRST_LINE + "\n" + cell.source
        elif tags & BOOK_HIDDEN:  # what the book hides, JupyterLab shows collapsed (one click opens it)
            cell.metadata["jupyter"] = {"source_hidden": bool(tags & {"remove-cell", "remove-input", "hide-input",
                                                                      "hide-cell"}),
                                        "outputs_hidden": bool(tags & {"remove-cell", "remove-output", "hide-output",
                                                                       "hide-cell"})}
    return nb


def _merge_streams(outputs):
    merged = []
    for out in outputs:
        if (out.get("output_type") == "stream" and merged and merged[-1].get("output_type") == "stream"
                and merged[-1]["name"] == out["name"]):
            merged[-1]["text"] += out["text"]
        else:
            merged.append(out)
    return merged


def _canonical_widget_ids(nb):
    """Rename widget model ids (random uuid4 hex) to ids numbered by first appearance."""
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state")
    if not state:
        nb.metadata.pop("widgets", None)
        return nb
    text = json.dumps(nb, sort_keys=False)
    mapping = {}
    for old in list(state) + MODEL_ID.findall(text):
        if old in state and old not in mapping:
            mapping[old] = f"{len(mapping) + 1:032x}"
    text = MODEL_ID.sub(lambda m: mapping.get(m.group(0), m.group(0)), text)
    return nbformat.from_dict(json.loads(text))


def normalise(nb):
    """Strip everything that changes between runs without changing meaning."""
    # the kernel's Python patch version (3.11.7 here, 3.12.1 or 3.13.0 elsewhere) is the reader's, not the chapter's
    nb.metadata.get("language_info", {}).pop("version", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        cell.metadata.pop("collapsed", None)
        if cell.cell_type != "code":
            cell.pop("outputs", None)
            cell.pop("execution_count", None)
            continue
        for out in cell.outputs:
            out.get("metadata", {}).pop("execution", None)
        cell.outputs = _merge_streams(cell.outputs)
    refresh_glue_values(nb)  # the glued numbers, written into the markdown for JupyterLab
    return _canonical_widget_ids(hide_solutions(nb))


def execute(path, timeout=600, normalised=True):
    """Execute ``path`` in its folder and return the notebook, normalised unless told otherwise (--run-only
    needs only the run: normalising writes glued values with myst-nb, not in a reader's environment)."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:  # a fresh run: no stale outputs survive a failure
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    os.environ.update(ENV)
    client = NotebookClient(
        nb, timeout=timeout, kernel_name="python3", allow_errors=False,
        record_timing=False, resources={"metadata": {"path": str(Path(path).parent)}},
    )
    client.execute()
    nb.metadata.kernelspec = {"display_name": "Python 3", "language": "python", "name": "python3"}
    return normalise(nb) if normalised else nb


def _comparable(nb):
    """The notebook as a plain dict, outputs of ignore-tagged cells removed.

    The glued numbers written into the markdown are compared through the outputs that glue them (a
    wall-clock timing is glued by an ignore-tagged cell and changes on every run)."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if cell.cell_type == "code" and IGNORE_TAG in cell.metadata.get("tags", []):
            cell.outputs = []
        if cell.cell_type == "markdown":
            cell.source = GLUE.sub(lambda m: "{glued %s}" % m.group("key"), cell.source)
    return json.loads(nbformat.writes(nb))


def _as_file_text(nb):
    """Exactly what ``nbformat.write`` puts in a file."""
    text = nbformat.writes(nb)
    return text if text.endswith("\n") else text + "\n"


def process(path, check, timeout, run_only=False):
    """Run one notebook. Returns (path, ok, message, seconds)."""
    start = time.perf_counter()
    try:
        fresh = execute(path, timeout, normalised=not run_only)
    except CellExecutionError as err:
        return path, False, f"a cell failed:\n{str(err)[-2000:]}", time.perf_counter() - start
    seconds = time.perf_counter() - start
    if run_only:  # e.g. under other package versions (make test-min), whose printed digits differ
        return path, True, "ran (outputs neither compared nor written)", seconds
    if check:
        text = Path(path).read_text()
        try:
            stored = normalise(nbformat.reads(text, as_version=4))
        except Exception as err:  # e.g. a glue role the stored outputs do not glue: the file is stale
            return path, False, f"the stored notebook cannot be normalised ({err}): re-run it", seconds
        problems = compare_notebooks(_comparable(stored), _comparable(fresh))
        if problems:
            return path, False, "re-running changes the stored outputs beyond round-off:\n  " + "\n  ".join(
                p[:400] for p in problems), seconds
        if text != _as_file_text(stored):
            return path, False, "the stored file is not normalised: run tools/run_notebooks.py on it", seconds
        return path, True, "unchanged", seconds
    nbformat.write(fresh, path)
    return path, True, "written", seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--check", action="store_true", help="fail if re-running would change a notebook")
    parser.add_argument("--run-only", action="store_true", help="execute only: neither compare nor write")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="notebooks run in parallel (default 2)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    args = parser.parse_args(argv)
    paths = [str(p) for p in (args.notebooks or sorted((ROOT / "book").glob("*.ipynb")))]
    if not paths:
        print("no notebooks found")
        return 0
    failures = 0
    with ProcessPoolExecutor(max_workers=max(1, min(args.jobs, len(paths)))) as pool:
        futures = [pool.submit(process, p, args.check, args.timeout, args.run_only) for p in paths]
        for fut in futures:
            path, ok, message, seconds = fut.result()
            rel = os.path.relpath(path, ROOT)
            print(f"{'ok  ' if ok else 'FAIL'} {rel} ({seconds:.1f} s): {message}", flush=True)
            failures += not ok
    if failures:
        print(f"{failures} notebook(s) failed" + (" the check; re-run tools/run_notebooks.py and commit" if args.check else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
