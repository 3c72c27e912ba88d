"""The project's scripts: student copies, the notebook runner's normalisation, the offline check."""

import importlib.util
import json
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def chapter():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("```{exercise} Margin\n:label: ex-t-1\nCompute it.\n```"),
        nbformat.v4.new_markdown_cell("```{solution-start} ex-t-1\n:class: dropdown\n```",
                                      metadata={"tags": ["solution"]}),
        nbformat.v4.new_code_cell("answer = 2 / 3\nprint(answer)", metadata={"tags": ["solution"]},
                                  execution_count=3,
                                  outputs=[nbformat.v4.new_output("stream", name="stdout", text="0.666\n")]),
        nbformat.v4.new_markdown_cell("```{solution-end}\n```", metadata={"tags": ["solution"]}),
        nbformat.v4.new_code_cell("assert True", metadata={"tags": ["remove-cell"]}, execution_count=4),
        nbformat.v4.new_code_cell("x = 1", execution_count=5,
                                  outputs=[nbformat.v4.new_output("execute_result", data={"text/plain": "1"},
                                                                  execution_count=5)]),
    ]
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    return nb


def test_student_copy_blanks_solutions_and_clears_outputs(chapter, tmp_path):
    tool = _load("make_student_notebooks")
    path = tmp_path / "01_chapter.ipynb"
    nbformat.write(chapter, path)
    [target] = tool.write_student_copies([path], tmp_path / "student")
    student = nbformat.read(target, as_version=4)
    sources = [c.source for c in student.cells]
    assert "Compute it." in sources[0]  # the exercise text stays
    assert "answer = 2 / 3" not in "".join(sources)  # the solution code is gone
    assert "{solution-start}" not in "".join(sources)  # so is the solution's markdown
    assert student.cells[2].source == tool.CODE_PLACEHOLDER
    assert all(c.outputs == [] and c.execution_count is None for c in student.cells if c.cell_type == "code")
    assert student.cells[4].source == "assert True"  # self-checks kept
    assert "widgets" not in student.metadata
    # the teacher's copy is untouched
    assert "answer = 2 / 3" in nbformat.read(path, as_version=4).cells[2].source


def test_student_copies_of_the_real_chapters(tmp_path):
    tool = _load("make_student_notebooks")
    chapters = sorted((ROOT / "book").glob("*.ipynb"))
    written = tool.write_student_copies(chapters, tmp_path)
    assert len(written) == len(chapters)
    for original, copy in zip(chapters, written):
        teacher = nbformat.read(original, as_version=4)
        student = nbformat.read(copy, as_version=4)
        n_solution = sum("solution" in c.metadata.get("tags", []) for c in teacher.cells)
        n_blank = sum("student-answer" in c.metadata.get("tags", []) for c in student.cells)
        assert n_blank == n_solution
        assert not any(c.get("outputs") for c in student.cells if c.cell_type == "code")


def test_runner_normalisation_is_deterministic(chapter):
    runner = _load("run_notebooks")
    a, b = nbformat.from_dict(json.loads(json.dumps(chapter))), nbformat.from_dict(json.loads(json.dumps(chapter)))
    # Same widget state under two different random model ids -> the same normalised file.
    for nb, model in ((a, "a" * 32), (b, "b" * 32)):
        nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"] = {model: {"model_name": "X"}}
        nb.cells[5].outputs.append(nbformat.v4.new_output(
            "display_data", data={"application/vnd.jupyter.widget-view+json": {"model_id": model}}))
        nb.cells[5].outputs += [nbformat.v4.new_output("stream", name="stdout", text="x"),
                                nbformat.v4.new_output("stream", name="stdout", text="y\n")]
        nb.cells[5].metadata["execution"] = {"iopub.execute_input": "2026-01-01T00:00:00"}
    na, nb_ = runner.normalise(a), runner.normalise(b)
    assert nbformat.writes(na) == nbformat.writes(nb_)
    assert na.cells[5].outputs[-1]["text"] == "xy\n"  # consecutive stream chunks merged
    assert "execution" not in na.cells[5].metadata


def test_offline_check_counts_remote_assets(tmp_path):
    checker = _load("check_offline")
    (tmp_path / "a.html").write_text(
        '<script src="https://cdn.example/x.js"></script><link rel="stylesheet" href="//cdn/y.css">'
        '<script src="_static/local.js"></script><a href="https://example.org">a link is fine</a>')
    assert len(checker.remote_assets(tmp_path)) == 2
    assert checker.main([str(tmp_path)]) == 1
    (tmp_path / "a.html").write_text('<script src="_static/local.js"></script>')
    assert checker.main([str(tmp_path)]) == 0


def test_stored_notebook_guard(chapter, tmp_path):
    guard = _load("check_notebooks_executed")
    path = tmp_path / "c.ipynb"
    chapter.cells[5].execution_count = None
    chapter.cells[2].outputs.append(nbformat.v4.new_output("error", ename="ValueError", evalue="bad", traceback=[]))
    nbformat.write(chapter, path)
    found = guard.problems(path)
    assert any("never executed" in p for p in found) and any("ValueError" in p for p in found)


def test_runner_collapses_solution_code_and_student_copy_opens_it(chapter):
    runner = _load("run_notebooks")
    nb = runner.normalise(nbformat.from_dict(json.loads(json.dumps(chapter))))
    code = nb.cells[2]
    assert code.metadata["jupyter"] == {"source_hidden": True, "outputs_hidden": True}
    # JupyterLab previews a collapsed cell's first line: it must not be the answer
    assert code.source.splitlines()[0].startswith("#") and "answer = 2 / 3" in code.source
    assert "jupyter" not in nb.cells[5].metadata  # ordinary cells untouched
    assert nb.cells[4].metadata["jupyter"] == {"source_hidden": True, "outputs_hidden": True}  # remove-cell
    assert nb.cells[4].source == "assert True"  # collapsed, not rewritten
    assert "jupyter" not in nb.cells[1].metadata  # markdown: jupyterlab-myst collapses the dropdown
    # a code cell inside the gated solution but not tagged (a hidden check of the solution's numbers)
    gated = nbformat.from_dict(json.loads(json.dumps(chapter)))
    gated.cells.insert(3, nbformat.v4.new_code_cell("assert answer == 2 / 3", metadata={"tags": ["remove-cell"]}))
    gated = runner.normalise(gated)
    assert gated.cells[3].metadata["jupyter"]["source_hidden"] and gated.cells[3].source.startswith("#")
    assert "jupyter" not in gated.cells[6].metadata  # after {solution-end}: not collapsed
    # prose of a gated solution outside its start cell is collapsed, its first line a MyST comment
    prose = nbformat.from_dict(json.loads(json.dumps(chapter)))
    prose.cells[3].source = "A typical mistake is x.\n\n```{solution-end}\n```"
    prose = runner.normalise(prose)
    assert prose.cells[3].metadata["jupyter"] == {"source_hidden": True}
    assert prose.cells[3].source.startswith("% ") and "A typical mistake" in prose.cells[3].source
    assert "jupyter" not in prose.cells[1].metadata  # the start cell: jupyterlab-myst's closed dropdown
    assert runner.normalise(prose).cells[3].source == prose.cells[3].source  # idempotent
    again = runner.normalise(nbformat.from_dict(json.loads(json.dumps(nb))))
    assert nbformat.writes(again) == nbformat.writes(nb)  # idempotent: --check stays clean
    student = _load("make_student_notebooks").studentise(nb)
    assert "jupyter" not in student.cells[2].metadata and student.cells[2].source.startswith("# Your solution")
    student = _load("make_student_notebooks").studentise(gated)
    assert not any("assert answer" in c.source for c in student.cells)  # the check of the answer is gone
    assert any(c.source == "assert True" for c in student.cells)  # hidden checks outside solutions stay


def test_runner_sets_the_book_build_switch():
    runner = _load("run_notebooks")
    assert runner.ENV["SVMLIB_BOOK_BUILD"] == "1"  # explorers store their static form


def test_runner_output_does_not_depend_on_the_python_patch_version(chapter):
    # make test under Python 3.12 failed on every chapter only because the metadata named 3.11.7
    runner = _load("run_notebooks")
    nb = nbformat.from_dict(json.loads(json.dumps(chapter)))
    nb.metadata["language_info"] = {"name": "python", "version": "3.12.1", "pygments_lexer": "ipython3"}
    assert runner.normalise(nb).metadata["language_info"] == {"name": "python", "pygments_lexer": "ipython3"}
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        stored = json.loads(path.read_text(encoding="utf-8"))
        assert "version" not in stored["metadata"].get("language_info", {}), path.name
