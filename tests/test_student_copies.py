"""The student copies (issue 15): every exercise keeps its statement, loses its solution, and its checker works.

``tools/make_student_notebooks.py`` writes the copies into a temporary folder. For every exercise of every
notebook in ``book/`` (an ``{exercise}`` fence with a ``:label:``), the tests check that

* its statement cells are not tagged ``solution`` and reach the student copy unchanged;
* it has a solution, every cell of the solution is tagged ``solution``, and no text of the solution is left
  in the student copy (a solution cell that is not tagged would leak);
* the student copy shows one placeholder per solution (not one per cell of a prose + code + prose solution);
* its checker, if the exercise calls one (a ``check_*`` function of ``svmlib.exercises``), says *Correct*
  for the book's own answer (a solution may also show a deliberately wrong call; at least one call must be
  accepted) and *Not yet* for a perturbed version of every accepted answer. The right answers are the arguments the
  teacher copy's solution cells pass to the checker: the notebook is executed with every checker wrapped
  to record its calls; then each recorded call is repeated, and repeated with every number, array, string
  choice and returned value of a student function perturbed.

A known failure caused by a chapter or by the student tool is marked ``xfail`` with its reason in
``KNOWN`` (empty today); it turns into XPASS once fixed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"

EXERCISE = re.compile(r"^(?:`{3,}|:{3,})\s*\{exercise(?:-start)?\}", re.M)
EXERCISE_END = re.compile(r"^(?:`{3,}|:{3,})\s*\{exercise-end\}", re.M)
LABEL = re.compile(r"^\s*:label:\s*(\S+)", re.M)
SOLUTION = re.compile(r"^(?:`{3,}|:{3,})\s*\{solution\}\s*(\S+)", re.M)
SOLUTION_START = re.compile(r"^(?:`{3,}|:{3,})\s*\{solution-start\}\s*(\S+)", re.M)
SOLUTION_END = re.compile(r"^(?:`{3,}|:{3,})\s*\{solution-end\}", re.M)
CHECKER_CALL = re.compile(r"\b(check_\w+)\s*\(")
# a checker call written in a markdown solution, e.g. `ex.check_single_alpha(np.sqrt(2 / (np.pi * 1.5)))`
CALL_SPAN = re.compile(r"`([^`\n]*\bcheck_\w+\s*\([^`\n]*\))`")

# (test, notebook stem) -> why it is expected to fail, with the reason written here (none today).
KNOWN: dict[tuple[str, str], str] = {}



def _tags(cell):
    return cell.get("metadata", {}).get("tags", [])


def notebooks_with_exercises():
    paths = []
    for path in sorted(BOOK.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        if any(c.cell_type == "markdown" and EXERCISE.search(c.source) for c in nb.cells):
            paths.append(path)
    return paths


def parse_exercises(nb):
    """{label: {"statement": [cell indices], "solution": [cell indices]}} in the order of the notebook."""
    exercises, open_exercise, open_solution = {}, None, None
    for i, cell in enumerate(nb.cells):
        src = cell.source if cell.cell_type == "markdown" else ""
        if open_exercise is not None:
            exercises[open_exercise]["statement"].append(i)
            if EXERCISE_END.search(src):
                open_exercise = None
            continue
        if open_solution is not None:
            exercises.setdefault(open_solution, {"statement": [], "solution": []})["solution"].append(i)
            if SOLUTION_END.search(src):
                open_solution = None
            continue
        if src and EXERCISE.search(src):
            match = LABEL.search(src[EXERCISE.search(src).end():])
            label = match.group(1) if match else f"<unlabelled exercise in cell {i}>"
            exercises.setdefault(label, {"statement": [], "solution": []})["statement"].append(i)
            if "{exercise-start}" in src:
                open_exercise = label
        if src and (m := SOLUTION_START.search(src)):
            exercises.setdefault(m.group(1), {"statement": [], "solution": []})["solution"].append(i)
            open_solution = m.group(1)
        elif src and (m := SOLUTION.search(src)):
            exercises.setdefault(m.group(1), {"statement": [], "solution": []})["solution"].append(i)
    return exercises


NOTEBOOKS = notebooks_with_exercises()
IDS = [p.stem for p in NOTEBOOKS]


def params(test):
    out = []
    for path in NOTEBOOKS:
        reason = KNOWN.get((test, path.stem))
        marks = [pytest.mark.xfail(reason=reason, strict=False)] if reason else []
        out.append(pytest.param(path, marks=marks, id=path.stem))
    return out


@pytest.fixture(scope="module")
def student_dir(tmp_path_factory):
    spec = importlib.util.spec_from_file_location("make_student_notebooks", ROOT / "tools" / "make_student_notebooks.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    out = tmp_path_factory.mktemp("student")
    tool.write_student_copies(NOTEBOOKS, out)
    return out


def _student(student_dir, path):
    return nbformat.read(student_dir / path.name, as_version=4)


def test_every_chapter_with_exercises_is_found():
    stems = {p.stem for p in NOTEBOOKS}
    assert len([s for s in stems if s[0].isdigit()]) >= 9, stems


# ---------------------------------------------------------------------------------------------
# Statements survive, solutions are gone
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", params("statements"))
def test_every_statement_survives(path, student_dir):
    teacher, student = nbformat.read(path, as_version=4), _student(student_dir, path)
    student_sources = {c.source for c in student.cells}
    problems = []
    for label, ex in parse_exercises(teacher).items():
        if not ex["statement"]:
            problems.append(f"{label}: a solution with no exercise statement")
        for i in ex["statement"]:
            cell = teacher.cells[i]
            if "solution" in _tags(cell):
                problems.append(f"{label}: statement cell {i} is tagged 'solution', so the student copy loses the question")
            elif cell.source not in student_sources:
                problems.append(f"{label}: statement cell {i} is not in the student copy unchanged")
    assert not problems, f"{path.name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("path", params("solutions"))
def test_every_solution_is_gone(path, student_dir):
    teacher, student = nbformat.read(path, as_version=4), _student(student_dir, path)
    student_text = "\n".join(c.source for c in student.cells)
    # text the teacher copy also shows outside solutions (a template in the statement, the chapter's own code)
    # may stay; only text that exists nowhere but in a solution must be gone
    public_text = "\n".join(c.source for c in teacher.cells if "solution" not in _tags(c))
    problems = []
    for label, ex in parse_exercises(teacher).items():
        if not ex["solution"]:
            problems.append(f"{label}: no solution")
        for i in ex["solution"]:
            cell = teacher.cells[i]
            if "solution" not in _tags(cell):
                problems.append(f"{label}: solution cell {i} is not tagged 'solution'")
            # every substantial line of the solution must be gone (fence lines aside)
            for line in cell.source.splitlines():
                line = line.strip()
                if (len(line) >= 25 and not line.startswith(("```", ":::", ":class:", ":label:")) and line in student_text
                        and line not in public_text):
                    problems.append(f"{label}: solution text left in the student copy: {line[:60]!r}")
                    break
    for cell in student.cells:
        if SOLUTION.search(cell.source) or SOLUTION_START.search(cell.source):
            problems.append(f"a solution directive is left in the student copy: {cell.source.splitlines()[0][:60]!r}")
    assert not problems, f"{path.name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("path", params("placeholders"))
def test_one_placeholder_per_solution(path, student_dir):
    teacher, student = nbformat.read(path, as_version=4), _student(student_dir, path)
    if len(student.cells) != len(teacher.cells):
        pytest.skip("the student copy changes the number of cells; placeholders are counted by position")
    problems = []
    for label, ex in parse_exercises(teacher).items():
        shown = [i for i in ex["solution"] if student.cells[i].cell_type == "markdown" and student.cells[i].source.strip()]
        if len(shown) > 1:
            problems.append(f"{label}: {len(shown)} markdown placeholders (cells {shown}) for one solution")
    assert not problems, f"{path.name}:\n  " + "\n  ".join(problems)


# ---------------------------------------------------------------------------------------------
# Checkers: right answer accepted, wrong answer rejected
# ---------------------------------------------------------------------------------------------
RECORDER = r'''
# --- injected by tests/test_student_copies.py: record every call of a checker ---
import copy as _sc_copy, functools as _sc_functools, importlib as _sc_importlib, pkgutil as _sc_pkgutil
import svmlib.exercises as _sc_pkg
_SC_CALLS, _SC_CELL = [], [None]

def _sc_wrap(module, name, fn):
    @_sc_functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            saved = (_sc_copy.deepcopy(args), _sc_copy.deepcopy(kwargs))
        except Exception:
            saved = (args, kwargs)
        result = fn(*args, **kwargs)
        _SC_CALLS.append({"checker": f"{module}.{name}", "fn": fn, "args": saved[0], "kwargs": saved[1],
                          "cell": _SC_CELL[0], "correct": bool(result)})
        return result
    return wrapper

for _sc_info in _sc_pkgutil.iter_modules(_sc_pkg.__path__):
    _sc_mod = _sc_importlib.import_module(f"svmlib.exercises.{_sc_info.name}")
    for _sc_name in dir(_sc_mod):
        _sc_obj = getattr(_sc_mod, _sc_name)
        if _sc_name.startswith("check_") and callable(_sc_obj) and getattr(_sc_obj, "__module__", "") == _sc_mod.__name__:
            setattr(_sc_mod, _sc_name, _sc_wrap(_sc_info.name, _sc_name, _sc_obj))
'''

EVALUATOR = r'''
# --- injected by tests/test_student_copies.py: repeat each solution's checker call, right and perturbed ---
import json as _sc_json, numbers as _sc_numbers, string as _sc_string
import numpy as _sc_np

def _sc_perturb(x):
    if isinstance(x, (bool, _sc_np.bool_)):
        return not x
    if isinstance(x, _sc_numbers.Number):
        return x * 1.5 + 1.0
    if isinstance(x, _sc_np.ndarray) and x.dtype.kind in "fiu":
        return x * 1.5 + 1.0
    if isinstance(x, str):
        if len(x) == 1 and x.lower() in _sc_string.ascii_lowercase:  # a multiple-choice letter
            return "b" if x.lower() == "a" else "a"
        return x + " (perturbed)"
    if isinstance(x, (list, tuple)):
        return type(x)(_sc_perturb(v) for v in x)
    if isinstance(x, dict):
        return {k: _sc_perturb(v) for k, v in x.items()}
    if callable(x):
        def wrong(*a, _f=x, **k):
            return _sc_perturb(_f(*a, **k))
        return wrong
    return x

for _sc_cell, _sc_expr in _SC_EXPRESSIONS:  # checker calls written in markdown solutions
    _SC_CELL[0] = _sc_cell
    try:
        eval(_sc_expr, globals())
    except Exception as _sc_exc:
        _SC_CALLS.append({"checker": _sc_expr[:60], "fn": None, "args": (), "kwargs": {}, "cell": _sc_cell,
                          "correct": False, "error": f"raised {type(_sc_exc).__name__}: {_sc_exc}"[:200]})

_sc_report = []
for _sc_call in _SC_CALLS:
    if _sc_call["cell"] not in _SC_SOLUTION_CELLS:
        continue
    _sc_row = {"checker": _sc_call["checker"], "cell": _sc_call["cell"], "in_notebook": _sc_call["correct"]}
    if _sc_call["fn"] is None:
        _sc_report.append(dict(_sc_row, right=None, right_message=_sc_call["error"], wrong=None, wrong_message=""))
        continue
    for _sc_kind, (_sc_a, _sc_k) in {"right": (_sc_call["args"], _sc_call["kwargs"]),
                                      "wrong": (_sc_perturb(_sc_call["args"]), _sc_perturb(_sc_call["kwargs"]))}.items():
        try:
            _sc_fb = _sc_call["fn"](*_sc_a, **_sc_k)
            _sc_row[_sc_kind] = bool(_sc_fb)
            _sc_row[_sc_kind + "_message"] = str(getattr(_sc_fb, "message", _sc_fb))[:200]
        except Exception as _sc_exc:
            _sc_row[_sc_kind] = None
            _sc_row[_sc_kind + "_message"] = f"raised {type(_sc_exc).__name__}: {_sc_exc}"[:200]
    _sc_report.append(_sc_row)
print("SC-REPORT " + _sc_json.dumps(_sc_report))
'''


def run_recorded(path, solution_cells, expressions=(), timeout=600):
    """Execute ``path`` with recording checkers; return the evaluator's report (a list of dicts).

    ``expressions`` are (cell index, checker call) pairs from markdown solutions, evaluated at the end.
    """
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    last = max(solution_cells)
    cells = []
    for i, cell in enumerate(nb.cells[: last + 1]):
        if cell.cell_type != "code":
            continue
        cell = nbformat.from_dict(cell)
        if cells and not cell.source.lstrip().startswith("%%"):  # the set-up cell runs before the recorder
            cell.source = f"_SC_CELL[0] = {i}\n" + cell.source
        cell.outputs = []
        cells.append(cell)
    recorder = nbformat.v4.new_code_cell(RECORDER)
    evaluator = nbformat.v4.new_code_cell(f"_SC_SOLUTION_CELLS = {sorted(solution_cells)!r}\n"
                                          f"_SC_EXPRESSIONS = {list(expressions)!r}\n" + EVALUATOR)
    nb.cells = cells[:1] + [recorder] + cells[1:] + [evaluator]
    env = {"TQDM_DISABLE": "1", "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg"}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        NotebookClient(nb, timeout=timeout, kernel_name="python3",
                       resources={"metadata": {"path": str(path.parent)}}).execute()
    except CellExecutionError as exc:
        pytest.fail(f"{path.name}: the teacher copy does not run to its last solution cell: "
                    f"{str(exc).strip().splitlines()[-1][:300]}")
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.get("output_type") == "stream")
    match = re.search(r"SC-REPORT (.*)", text)
    assert match, f"{path.name}: the evaluator printed no report: {text[-500:]!r}"
    return json.loads(match.group(1))


def checker_exercises(nb):
    """{label: (checker names called in its cells, its solution cells, [(cell, call) from markdown solutions])}
    for the exercises that call a checker."""
    out = {}
    for label, ex in parse_exercises(nb).items():
        names = set()
        for i in ex["statement"] + ex["solution"]:
            names |= set(CHECKER_CALL.findall(nb.cells[i].source))
        if names:
            spans = [(i, span) for i in ex["solution"] if nb.cells[i].cell_type == "markdown"
                     for span in CALL_SPAN.findall(nb.cells[i].source)]
            cells = [i for i in ex["solution"] if nb.cells[i].cell_type == "code"] + sorted({i for i, _ in spans})
            out[label] = (names, cells, spans)
    return out


@pytest.mark.parametrize("path", params("checkers"))
def test_checkers_accept_the_solution_and_reject_a_wrong_answer(path):
    nb = nbformat.read(path, as_version=4)
    exercises = checker_exercises(nb)
    if not exercises:
        pytest.skip(f"{path.name}: no exercise calls a checker")
    solution_cells = sorted({i for _, cells, _ in exercises.values() for i in cells})
    expressions = [pair for _, _, spans in exercises.values() for pair in spans]
    problems = []
    if not solution_cells:
        problems.append("exercises call checkers but have no solution code cells to take the right answer from")
        assert not problems
    report = run_recorded(path, solution_cells, expressions)
    for label, (names, cells, _) in exercises.items():
        calls = [r for r in report if r["cell"] in cells]
        if not calls:
            problems.append(f"{label}: calls {sorted(names)} in its cells, but its solution makes no checker call "
                            "(no right answer to test the checker with)")
        accepted = [r for r in calls if r["right"] is True]
        if calls and not accepted:  # a solution may also show a deliberately wrong call; one must be right
            r = calls[0]
            problems.append(f"{label}: {r['checker']} (solution cell {r['cell']}) rejects every answer of the "
                            f"book's solution: {r['right_message']}")
        for r in accepted:
            where = f"{label}: {r['checker']} (solution cell {r['cell']})"
            if r["wrong"] is not False:
                problems.append(f"{where} does not say 'Not yet' for a perturbed answer "
                                f"({'accepted it' if r['wrong'] else r['wrong_message']})")
    assert not problems, f"{path.name}:\n  " + "\n  ".join(problems)


# ---------------------------------------------------------------------------------------------
# The parser and the perturbation can fail (tests of the test)
# ---------------------------------------------------------------------------------------------
def _nb(*cells):
    nb = nbformat.v4.new_notebook()
    for kind, src, tags in cells:
        c = nbformat.v4.new_markdown_cell(src) if kind == "md" else nbformat.v4.new_code_cell(src)
        c.metadata["tags"] = tags
        nb.cells.append(c)
    return nb


def test_parser_finds_statements_and_gated_solutions():
    nb = _nb(("md", "```{exercise} ★ One (5 min)\n:label: ex-a-1\nText.\n```", []),
             ("md", "```{solution-start} ex-a-1\n:class: dropdown\n```", ["solution"]),
             ("code", "print(check_x(1))", ["solution"]),
             ("md", "```{solution-end}\n```", ["solution"]),
             ("md", "````{exercise} Two\n:label: ex-a-2\n```python\nx\n```\n````", []),
             ("md", "```{solution} ex-a-2\n:class: dropdown\nBecause.\n```", ["solution"]))
    ex = parse_exercises(nb)
    assert ex == {"ex-a-1": {"statement": [0], "solution": [1, 2, 3]}, "ex-a-2": {"statement": [4], "solution": [5]}}
    assert checker_exercises(nb) == {"ex-a-1": ({"check_x"}, [2], [])}
    nb.cells[5].source = "```{solution} ex-a-2\nBecause; `ex.check_y(0.5)` confirms.\n```"
    assert checker_exercises(nb)["ex-a-2"] == ({"check_y"}, [5], [(5, "ex.check_y(0.5)")])


def test_perturbation_changes_every_kind_of_answer():
    ns = {}
    exec(EVALUATOR.split("for _sc_cell, _sc_expr")[0], ns)
    perturb = ns["_sc_perturb"]
    import numpy as np

    assert perturb(2.0) != 2.0 and perturb(True) is False and perturb("b") == "a" and perturb("a") == "b"
    assert not np.allclose(perturb(np.array([1.0, 2.0])), [1.0, 2.0])
    assert perturb((1.0, [2.0])) == (2.5, [4.0])
    assert perturb(lambda x: 2 * x)(1.0) == 4.0
