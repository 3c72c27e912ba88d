"""The stored-vs-re-run output check (tools/output_compare.py) is tolerant of round-off, strict about meaning.

Unit tests of the comparison rules, then both users of it end to end on a small executed notebook:
``tools/run_notebooks.py --check`` and nbval with the ``tools.nbval_tolerant`` plugin (the Makefile's
flags). Each fails on a stored number off by 1e-4 relative, a changed word, a changed figure and a
changed integer count, and passes when only the last bits of the stored numbers differ.
"""

from __future__ import annotations

import base64
import importlib.util
import io
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


oc = _load("output_compare")


# --- the rules -------------------------------------------------------------------------------------

@pytest.mark.parametrize("stored, fresh", [
    ("W = 0.20445576854978692", "W = 0.20445576854978673"),      # last bits of a repr (measured, ch 2)
    ("88.3831144849502", "88.38311447776833"),                    # 8e-11 relative (measured, ch 6)
    ("1.12552173920194", "1.1255242110852937"),                   # 2.2e-6: a 1 % gain of two RMS (ch 7, Haswell)
    ("min eigenvalue -8.5e-14 (round-off)", "min eigenvalue -1.6e-13 (round-off)"),  # below ATOL
    ("sum(alpha) = 2.8e-17", "sum(alpha) = 0.0e+00"),
    ("x = 0.12345", "x = 0.12346"),                               # true values 0.123455 +- 1e-12 round either way
    ("[ 1.0e-17  2.0]", "[-1.0e-17  2.0]"),                       # sign of a round-off zero; numpy re-pads
    ("steps 24, W = 5.7979", "steps 24, W = 5.7979"),
])
def test_round_off_passes(stored, fresh):
    assert oc.compare_text(stored, fresh) is None


@pytest.mark.parametrize("stored, fresh, what", [
    ("W = 1.353312", "W = 1.353447", "number"),                   # 1e-4 relative
    ("log Z = -57.93171", "log Z = -57.92592", "number"),          # 1e-4 relative
    ("0.20445576854978692", "0.20447621412664190", "number"),      # 1e-4 relative of a glued repr
    ("steps 24 in all", "steps 25 in all", "integer"),
    ("the SVM converged", "the SVM diverged", "text"),
    ("PSD: True", "PSD: False", "text"),
    ("a b c 1.0", "a b c 1.0 2.0", "text"),
    ("max |f - g| = 4.0e-03", "max |f - g| = 2.5e-03", "number"),
])
def test_real_change_fails(stored, fresh, what):
    problem = oc.compare_text(stored, fresh)
    assert problem is not None and problem.startswith(what), problem


def test_a_cell_may_declare_ranges():
    loose = oc.Options({"output_compare": {"int_atol": 2, "rtol": 0.5}})
    assert oc.compare_text("24 steps, error 2.5e-02", "25 steps, error 3.0e-02", loose) is None
    assert oc.compare_text("24 steps", "27 steps", loose).startswith("integer")
    with pytest.raises(ValueError, match="unknown keys"):
        oc.Options({"output_compare": {"tolerance": 1}})


def _png(shift=0.0, box=False, dots=0):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from PIL import Image

    fig, ax = plt.subplots(figsize=(4, 3), dpi=72)
    t = np.linspace(0, 1, 50)
    ax.plot(t, np.sin(6 * t) + shift)
    ax.set_title("margin")
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    image = np.array(Image.open(io.BytesIO(buf.getvalue())).convert("RGB"))
    if box:
        image[100:120, 100:120] = 0
    for k in range(dots):  # anti-aliasing flips at a few edge pixels
        image[50 + k, 60] = np.clip(image[50 + k, 60].astype(int) - 3, 0, 255)
    out = io.BytesIO()
    Image.fromarray(image).save(out, format="PNG")
    return base64.b64encode(out.getvalue()).decode()


def test_figures_compare_by_pixels():
    base = _png()
    assert oc.compare_text(base, _png(shift=1e-12)) is None          # round-off moves no pixel
    assert oc.compare_text(base, _png(dots=5)) is None               # a few edge pixels a few levels
    assert oc.compare_text(base, _png(box=True)).startswith("figure differs")
    assert oc.compare_text(base, _png(shift=0.1)).startswith("figure differs")


def test_lists_of_separate_values_are_not_joined():
    # two glued values are two outputs: joined, '-14.27792860853304' + '3.45e-09' would read as other numbers
    assert oc.compare_json(["-14.27792860853304", "3.455513541972266e-09"],
                           ["-14.277928608533037", "3.4555140970837783e-09"]) == []
    assert oc.compare_json(["a 1.0\n", "b 2.0"], ["a 1.0\n", "b 2.5"])          # multi-line text: still compared
    assert oc.compare_json(["24", "7"], ["24", "8"])


def test_json_numbers_and_structure():
    assert oc.compare_json({"max": 35, "v": 0.1 + 0.2}, {"max": 35, "v": 0.3}) == []
    assert oc.compare_json({"max": 35}, {"max": 38})[0].startswith("/max: integer")
    assert oc.compare_json({"a": True}, {"a": False})
    assert oc.compare_json({"a": [1, 2]}, {"a": [1, 2, 3]})
    assert oc.compare_json({"a": 1}, {"b": 1})


# --- end to end: run_notebooks --check and nbval ----------------------------------------------------

SOURCE = [
    "import numpy as np\nx = np.float64(0.123456789012)\nprint(f'W = {x!r}, mean = {np.pi:.6f}')",
    "print(f'SMO took {24} steps; the solver converged')\n"
    "from IPython.display import display\ndisplay(-14.27792860853304); display(3.455513541972266e-09)",
    "import matplotlib.pyplot as plt\nfig, ax = plt.subplots(figsize=(3, 2), dpi=60)\n"
    "ax.plot([0, 1, 2], [0, 1, 0])\nplt.show()",
]


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    runner = _load("run_notebooks")
    folder = tmp_path_factory.mktemp("nb")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in SOURCE]
    path = folder / "base.ipynb"
    nbformat.write(nb, path)
    saved = dict(os.environ)
    try:
        fresh = runner.execute(str(path))
    finally:
        os.environ.clear()
        os.environ.update(saved)
    nbformat.write(fresh, path)
    return runner, path


def _edit_stdout(nb, cell, old, new):
    out = nb.cells[cell].outputs[0]
    assert old in out.text, out.text
    out.text = out.text.replace(old, new)


def _edit_png(nb, cell):
    from PIL import Image

    out = [o for o in nb.cells[cell].outputs if "image/png" in o.get("data", {})][0]
    image = np.array(Image.open(io.BytesIO(base64.b64decode(out.data["image/png"]))).convert("RGB"))
    image[40:60, 60:80] = 0  # a black square on the curve
    buf = io.BytesIO()
    Image.fromarray(image).save(buf, format="PNG")
    out.data["image/png"] = base64.b64encode(buf.getvalue()).decode()


VARIANTS = {
    "last bits": (lambda nb: _edit_stdout(nb, 0, "0.123456789012", "0.12345678901200003"), True),
    "1e-4 relative": (lambda nb: _edit_stdout(nb, 0, "0.123456789012", "0.123469134691"), False),
    "word": (lambda nb: _edit_stdout(nb, 1, "converged", "diverged"), False),
    "count": (lambda nb: _edit_stdout(nb, 1, "24 steps", "25 steps"), False),
    "figure": (lambda nb: _edit_png(nb, 2), False),
}


def _variant(executed, tmp_path, name):
    runner, base = executed
    nb = nbformat.read(base, as_version=4)
    VARIANTS[name][0](nb)
    path = tmp_path / f"{name.replace(' ', '_')}.ipynb"
    nbformat.write(runner.normalise(nb), path)
    return runner, path


@pytest.mark.parametrize("name", list(VARIANTS))
def test_run_notebooks_check(executed, tmp_path, name):
    runner, path = _variant(executed, tmp_path, name)
    before = path.read_bytes()
    saved = dict(os.environ)
    try:
        _, ok, message, _ = runner.process(str(path), check=True, timeout=120)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    assert ok == VARIANTS[name][1], message
    assert path.read_bytes() == before  # --check never writes


@pytest.mark.parametrize("name", list(VARIANTS))
def test_nbval_with_the_plugin(executed, tmp_path, name):
    _, path = _variant(executed, tmp_path, name)
    flags = [line for line in (ROOT / "Makefile").read_text().splitlines() if line.startswith("NBVAL ")][0]
    args = flags.split(":=", 1)[1].split()
    args = [str(ROOT / a) if a.endswith(".cfg") else a for a in args]
    done = subprocess.run([sys.executable, "-m", "pytest", *args, "-q", str(path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "TQDM_DISABLE": "1", "PYTHONHASHSEED": "0"})
    assert "tools.nbval_tolerant" in args
    assert (done.returncode == 0) == VARIANTS[name][1], done.stdout[-3000:]
