"""Compare a notebook's stored outputs with a re-run's: tolerant of round-off, strict about meaning.

Used by ``tools/run_notebooks.py --check`` (whole notebooks, including the embedded widget state)
and by nbval through the pytest plugin ``tools/nbval_tolerant.py`` (one cell's outputs), so both
checks accept and reject the same changes.

Rules (``compare_text`` / ``compare_json``)
-------------------------------------------
* **Text** (``text/plain``, streams, ``text/html``, ``text/latex``, glued values, any string in the
  widget state) is split into number tokens and the text between them. The text must be equal
  (runs of spaces and tabs are ignored: numpy and pandas pad columns to the width of the widest
  number, which a changed last digit or sign can change). The number of number tokens must be equal.
* **Integers** (a token without ``.`` or exponent: counts, sizes, step numbers) compare exactly,
  unless the cell declares a range (``metadata.output_compare.int_atol``).
* **Floating-point numbers** ``a`` (stored) and ``b`` (re-run) agree if
  ``|a - b| <= RTOL * max(|a|, |b|) + ATOL + (u_a + u_b) / 2``, where ``u`` is one unit in the
  last printed digit (both were rounded to the printed digits, each by at most ``u / 2``; a true
  difference below ``RTOL`` can flip the last printed digit).
  - ``RTOL = 1e-5``. Two runs execute the same operations in another order (BLAS kernels block sums
    differently, numpy's SIMD loops pair terms differently): each result moves by a few ulps
    (2.2e-16) times the condition number of what it computes. The worst conditioned printed results
    are (i) Gaussian-process prior draws through a Cholesky factor with relative jitter 1e-10
    (condition ~1e10: forward error up to cond * eps ~ 2e-6 relative) and (ii) small differences of
    larger numbers (a 1 % gain of one RMS error over another amplifies the relative round-off ~100x).
    Measured across OpenBLAS's SkylakeX, Haswell and Sandybridge kernels and numpy's baseline dispatch:
    <= 2e-10 relative for most values above ATOL, 2.2e-6 at most (:ref:`Chapter 7 <ch-evidence>`'s glued ``rms_gain``,
    case ii). 1e-5 leaves a factor ~5 over that and is 10 times below 1e-4, the smallest real change
    the check must catch (tests/test_output_check.py).
  - ``ATOL = 1e-10``: an absolute floor for values that are themselves round-off (residuals,
    ``|x - y|`` of two ways to compute the same quantity, eigenvalues that are zero in exact
    arithmetic): a value of size ``s`` computed by ``n`` operations carries an absolute error of
    ~``n * eps * s``; the chapters' quantities have ``s <= ~100`` and the iterative solvers stop at
    relative tolerances >= 1e-10, so differences below 1e-10 carry no meaning in this book.
    (Measured: such values change by up to 4e-11, e.g. a Newton solver's 4.0e-11 vs 0.0.)
  A cell may declare looser bounds for values that *measure* round-off (an error that grows as
  cond^2 * eps, say): ``metadata.output_compare = {"rtol": 0.5}`` (or ``"atol"``, ``"int_atol"``).
* **Figures** (``image/png`` outputs and the PNG frames in the widget state) are decoded and compared
  with ``matplotlib.testing.compare.compare_images`` at ``IMAGE_TOL`` (RMS of the pixel difference,
  0-255 scale): a line moved by round-off (< 1e-8 of the axis range) moves no pixel, but anti-aliasing
  at a pixel boundary can change a few edge pixels by a few levels (RMS << 1); a changed curve,
  label or word changes whole strokes. Measured on an explorer frame of :ref:`Chapter 9 <ch-replica>` (648 x 252 px) between
  OpenBLAS's SkylakeX and Haswell kernels: text re-positioned by round-off in the layout, RMS 0.03; the same
  frame with one digit of its title changed (a solver's "8 iterations" -> "7 iterations"), RMS 2.0.
  Different image sizes never agree.
* Everything else (keys, types, booleans, ``None``, output types) compares exactly.
"""

from __future__ import annotations

import base64
import math
import re
import tempfile
from pathlib import Path

RTOL = 1e-5
ATOL = 1e-10
IMAGE_TOL = 1.0
PNG_PREFIX = "iVBORw0KGgo"  # base64 of the PNG signature

# numbers: optional sign, digits with an optional fraction (or a leading '.'), optional exponent;
# not glued to a preceding letter or digit (so 'x2', 'IPY_MODEL_00..05' and hex ids stay text)
NUMBER = re.compile(r"(?<![A-Za-z0-9_.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![A-Za-z0-9_])")
SPACE = re.compile(r"[ \t]+")


class Options(dict):
    """Tolerances for one cell: defaults, updated from ``metadata.output_compare``."""

    def __init__(self, metadata=None):
        super().__init__(rtol=RTOL, atol=ATOL, int_atol=0, image_tol=IMAGE_TOL)
        declared = (metadata or {}).get("output_compare", {})
        unknown = set(declared) - set(self)
        if unknown:
            raise ValueError(f"metadata.output_compare: unknown keys {sorted(unknown)}; allowed {sorted(self)}")
        self.update(declared)


def _is_int(token):
    return not any(c in token for c in ".eE")


def _unit(token):
    """One unit in the last printed digit of a float token."""
    mantissa, _, exponent = token.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (int(exponent or 0) - decimals)


def compare_numbers(a, b, opts=None, printed=True):
    """None if the numbers ``a`` (stored) and ``b`` (re-run), as text, agree, else a message.

    ``printed``: the texts were rounded to their digits (allow a unit in the last digit); False for
    JSON numbers, which are exact."""
    opts = opts or Options()
    if _is_int(a) and _is_int(b):
        if abs(int(a) - int(b)) <= opts["int_atol"]:
            return None
        return f"integer {a} -> {b}" + (f" (allowed +-{opts['int_atol']})" if opts["int_atol"] else "")
    x, y = float(a), float(b)
    if not (math.isfinite(x) and math.isfinite(y)):
        return None if (x == y or (math.isnan(x) and math.isnan(y))) else f"number {a} -> {b}"
    allowed = opts["rtol"] * max(abs(x), abs(y)) + opts["atol"] + (0.5 * (_unit(a) + _unit(b)) if printed else 0.0)
    if abs(x - y) <= allowed:
        return None
    return f"number {a} -> {b} (|diff| {abs(x - y):.3g} > allowed {allowed:.3g})"


def _split(text):
    numbers = NUMBER.findall(text)
    words = [SPACE.sub("", part) for part in NUMBER.split(text)]
    return numbers, words


def compare_text(stored, fresh, opts=None):
    """None if the texts agree up to number tolerances, else a message naming the first difference."""
    if stored == fresh:
        return None
    if stored.startswith(PNG_PREFIX) and fresh.startswith(PNG_PREFIX):
        return compare_png(stored, fresh, opts)
    opts = opts or Options()
    n1, w1 = _split(stored)
    n2, w2 = _split(fresh)
    if w1 != w2 or len(n1) != len(n2):
        for i, (s, f) in enumerate(zip(stored.splitlines(), fresh.splitlines())):
            if _split(s)[1] != _split(f)[1] or len(_split(s)[0]) != len(_split(f)[0]):
                return f"text differs (line {i + 1}): {s[:150]!r} -> {f[:150]!r}"
        return f"text differs: {stored[-150:]!r} -> {fresh[-150:]!r}"
    for a, b in zip(n1, n2):
        problem = compare_numbers(a, b, opts)
        if problem:
            return problem
    return None


def compare_png(stored, fresh, opts=None):
    """Compare two base64 PNGs by RMS pixel difference (matplotlib's compare_images)."""
    from matplotlib.testing.compare import compare_images

    opts = opts or Options()
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, data in (("stored.png", stored), ("fresh.png", fresh)):
            path = Path(tmp) / name
            path.write_bytes(base64.b64decode(data))
            paths.append(str(path))
        try:
            result = compare_images(paths[0], paths[1], tol=opts["image_tol"], in_decorator=True)
        except Exception as err:  # ImageComparisonFailure: the sizes differ
            return f"figure differs: {err}"
    if result is None:
        return None
    return f"figure differs: RMS {result['rms']:.3g} > {opts['image_tol']} (pixel difference, 0-255)"


def _multiline(value):
    """A list of strings that is one text split into lines (every item but the last ends with a newline)."""
    return (bool(value) and all(isinstance(x, str) for x in value)
            and all(x.endswith("\n") for x in value[:-1]))


def compare_json(stored, fresh, opts=None, path="", image_keys=("image/png",)):
    """Walk two JSON values; return a list of ``"path: message"`` for every disagreement (first few)."""
    opts = opts or Options()
    problems = []

    def walk(a, b, where):
        if len(problems) >= 10:
            return
        if isinstance(a, dict) and isinstance(b, dict):
            if set(a) != set(b):
                problems.append(f"{where}: keys {sorted(set(a) ^ set(b))} only on one side")
                return
            for key in a:
                walk(a[key], b[key], f"{where}/{key}")
        elif isinstance(a, list) and isinstance(b, list):
            if _multiline(a) and _multiline(b):  # nbformat stores multi-line text as a list of lines
                walk("".join(a), "".join(b), where)
            elif len(a) != len(b):
                problems.append(f"{where}: {len(a)} items -> {len(b)}")
            else:
                for i, (x, y) in enumerate(zip(a, b)):
                    walk(x, y, f"{where}/{i}")
        elif isinstance(a, str) and isinstance(b, str):
            if where.rsplit("/", 1)[-1] in image_keys:
                problem = None if a == b else compare_png(a, b, opts)
            else:
                problem = compare_text(a, b, opts)
            if problem:
                problems.append(f"{where}: {problem}")
        elif isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
            if a != b or type(a) is not type(b):
                problems.append(f"{where}: {a!r} -> {b!r}")
        elif isinstance(a, (int, float)) and isinstance(b, (int, float)):
            problem = compare_numbers(repr(a), repr(b), opts, printed=False)
            if problem:
                problems.append(f"{where}: {problem}")
        elif a != b:
            problems.append(f"{where}: {str(a)[:100]!r} -> {str(b)[:100]!r}")

    walk(stored, fresh, path)
    return problems


def compare_notebooks(stored, fresh):
    """Differences between two notebooks (dicts), each cell with its own declared tolerances."""
    problems = compare_json(stored.get("metadata", {}), fresh.get("metadata", {}), path="metadata")
    cells_a, cells_b = stored.get("cells", []), fresh.get("cells", [])
    if len(cells_a) != len(cells_b):
        return problems + [f"cells: {len(cells_a)} -> {len(cells_b)}"]
    for i, (a, b) in enumerate(zip(cells_a, cells_b)):
        try:
            opts = Options(a.get("metadata"))
        except ValueError as err:
            problems.append(f"cell {i}: {err}")
            continue
        problems += compare_json(a, b, opts, path=f"cell {i} ({a.get('cell_type')}, id {a.get('id')})")
    return problems
