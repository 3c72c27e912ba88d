"""A chapter as a reader meets it in JupyterLab: opened (untrusted and trusted), run, and as a student copy.

A real JupyterLab server (with the project's jupyterlab-myst) runs on 127.0.0.1 for this module
and is stopped afterwards; headless Chromium drives it through Selenium (Debian's chromium and
chromium-driver). Screenshots go to ``_build/screenshots/lab_*.png``.

The chapter is ``book/03_duality_smo.ipynb`` (a step explorer and gated code solutions); set
``SVMLIB_LAB_NOTEBOOK`` to test another stored notebook.
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import time
from pathlib import Path

import nbformat
import pytest

pytest.importorskip("selenium")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

from labsession import LabServer, chrome, notebook_text, open_notebook, wait_for  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "_build" / "screenshots"
NOTEBOOK = Path(os.environ.get("SVMLIB_LAB_NOTEBOOK", ROOT / "book" / "03_duality_smo.ipynb"))
VIEW = "application/vnd.jupyter.widget-view+json"
EXERCISE = re.compile(r"```\{exercise\}\s*(.+)")


def _solution_phrases(nb):
    """Text a reader must not see before opening a solution: code lines and prose of solution cells."""
    phrases, elsewhere = [], []
    inside = False  # code cells between {solution-start} and {solution-end} belong to the solution
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            inside = ("{solution-start}" in cell.source or inside) and "{solution-end}" not in cell.source
        if "solution" not in cell.metadata.get("tags", []) and not (inside and cell.cell_type == "code"):
            elsewhere.append(cell.source)
            continue
        if cell.cell_type == "code":
            phrases += [line.strip() for line in cell.source.splitlines()[1:] if len(line.strip()) > 12]
        else:
            body = "\n".join(line for line in cell.source.splitlines() if not line.startswith(("```", ":", "%")))
            phrases += [m.strip() for m in re.findall(r"[A-Za-z ,;']{25,}", body)][:3]
    rest = "\n".join(elsewhere)  # a line the chapter also shows outside the solution gives nothing away
    return [p for p in phrases if p not in rest]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    root = tmp_path_factory.mktemp("lab-root")
    home = tmp_path_factory.mktemp("lab-home")
    shutil.copy(NOTEBOOK, root / NOTEBOOK.name)
    trusted = root / f"trusted_{NOTEBOOK.name}"
    # `jupyter trust` records the notebook's content digest, not its path: the trusted copy must differ,
    # or the untrusted one would be trusted too
    copy = nbformat.read(NOTEBOOK, as_version=4)
    copy.metadata["svmlib_test_copy"] = "trusted"
    nbformat.write(copy, trusted)
    import importlib.util

    spec = importlib.util.spec_from_file_location("student", ROOT / "tools" / "make_student_notebooks.py")
    student = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(student)
    student.write_student_copies([NOTEBOOK], root / "student")
    server = LabServer(root, home, trusted=[trusted])
    driver = chrome(home / "profile")
    yield server, driver, root
    driver.quit()
    server.stop()


def _shot(driver, name, cell_index=None):
    SHOTS.mkdir(parents=True, exist_ok=True)
    if cell_index is not None:
        driver.execute_script("document.querySelectorAll('.jp-Notebook .jp-Cell')[arguments[0]].scrollIntoView()",
                              cell_index)
        time.sleep(1.0)
    driver.save_screenshot(str(SHOTS / f"lab_{name}.png"))


def _explorer_cells(nb):
    return [i for i, c in enumerate(nb.cells) if c.cell_type == "code"
            and any(VIEW in o.get("data", {}) for o in c.get("outputs", []))]


def _visible_images(driver, cell_index):
    return driver.execute_script(
        "const c = document.querySelectorAll('.jp-Notebook .jp-Cell')[arguments[0]];"
        "return [...c.querySelectorAll('.jp-OutputArea img')].filter(i => i.offsetParent !== null)"
        ".map(i => i.src);", cell_index)


def _check_as_opened(driver, nb, label):
    text = notebook_text(driver)
    assert "VBox(" not in text and "HBox(" not in text, f"{label}: a widget shows as its text repr"
    titles = [m.group(1).strip() for c in nb.cells if c.cell_type == "markdown" for m in EXERCISE.finditer(c.source)]
    assert titles, "the chapter has no exercises to check"
    missing = [t for t in titles if t not in text]
    if missing:  # jupyterlab-myst renders asynchronously; on a loaded machine give it time
        text = wait_for(lambda: (lambda t: t if all(x in t for x in titles) else None)(notebook_text(driver)), 180,
                        what=f"{label}: exercise titles {missing} to render")
    assert "{exercise}" not in text and "{solution" not in text, f"{label}: raw MyST directive shown"
    for phrase in _solution_phrases(nb):
        assert phrase not in text, f"{label}: solution text visible without opening it: {phrase!r}"


def test_untrusted_chapter_shows_figures_and_no_solutions(lab):
    server, driver, _ = lab
    nb = nbformat.read(NOTEBOOK, as_version=4)
    open_notebook(driver, server, NOTEBOOK.name)
    _check_as_opened(driver, nb, "untrusted chapter")
    cells = _explorer_cells(nb)
    assert cells, "no stored explorer output in the chapter"
    for index in cells:  # JupyterLab does not render widgets of untrusted notebooks: the PNG fallback shows
        wait_for(lambda: _visible_images(driver, index), 30,
                 what=f"cell {index}: the explorer's figure in an untrusted notebook")
    # the fallback is an animated PNG (plays with no JavaScript at all)
    index = cells[0]
    assert len(wait_for(lambda: _visible_images(driver, index), 30, what="the fallback figure")) == 1
    stored = next(o["data"]["image/png"] for o in nb.cells[index].outputs if "image/png" in o.get("data", {}))
    assert b"acTL" in base64.b64decode(stored), "the explorer's stored fallback is not an animated PNG"
    # (that it plays was seen once -- a screenshot showed frame "step 1 of 24", not the stored default -- but
    # headless Chromium's screenshots do not advance image animations reliably, so it is not asserted here)
    _shot(driver, "untrusted_explorer", cells[0])
    _shot(driver, "untrusted_exercises", len(nb.cells) - 3)


def _selection_handle(driver, cell_index):
    return driver.execute_script(
        "const c = document.querySelectorAll('.jp-Notebook .jp-Cell')[arguments[0]];"
        "return c.querySelector('.jp-OutputArea .noUi-handle');", cell_index)


def _move(driver, handle, presses=2):
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].focus();", handle)
    for _ in range(presses):
        handle.send_keys(Keys.ARROW_RIGHT)
        time.sleep(0.3)


def test_trusted_chapter_static_slider_moves_the_figure_without_a_kernel(lab):
    server, driver, _ = lab
    nb = nbformat.read(NOTEBOOK, as_version=4)
    open_notebook(driver, server, f"trusted_{NOTEBOOK.name}")
    _check_as_opened(driver, nb, "trusted chapter")
    index = _explorer_cells(nb)[0]
    try:  # a first Lab start on a fresh clone is slow
        handle = wait_for(lambda: _selection_handle(driver, index), 150, what="the restored static slider")
    except TimeoutError as err:  # say what the reader sees instead, so a failure can be understood
        seen = driver.execute_script(
            "const c = document.querySelectorAll('.jp-Notebook .jp-Cell')[arguments[0]];"
            "const trust = document.querySelector('.jp-StatusItem-trust, [title*=\"trusted\" i]');"
            "const kernel = document.querySelector('.jp-Notebook-ExecutionIndicator');"
            "return {output: c ? c.querySelector('.jp-OutputArea').innerText.slice(0, 300) : null,"
            "        images: c ? c.querySelectorAll('.jp-OutputArea img').length : null,"
            "        trust: trust ? (trust.title || trust.textContent) : null,"
            "        kernel: kernel ? kernel.textContent : null};", index)
        raise AssertionError(f"{err}; the explorer cell shows {seen}") from err
    before = _visible_images(driver, index)
    assert len(before) == 1, f"static explorer should show one frame, shows {len(before)}"
    _move(driver, handle)
    after = wait_for(lambda: (lambda a: a if a != before else None)(_visible_images(driver, index)), 10,
                     what="the frame to change")
    assert len(after) == 1
    _shot(driver, "trusted_static_explorer", index)


def test_run_all_then_the_live_slider_recomputes(lab):
    server, driver, _ = lab
    nb = nbformat.read(NOTEBOOK, as_version=4)
    open_notebook(driver, server, NOTEBOOK.name)
    wait_for(lambda: driver.execute_script(
        "const w = [...window.jupyterapp.shell.widgets('main')].find(x => x.sessionContext);"  # the open notebook (shell.currentWidget can be null when the page has no focus)
        "return w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel"
        " && w.sessionContext.session.kernel.status === 'idle';"), 120, what="an idle kernel")
    start = time.time()
    driver.execute_script("window.jupyterapp.commands.execute('notebook:run-all-cells');")

    def finished():
        return driver.execute_script(
            "const w = [...window.jupyterapp.shell.widgets('main')].find(x => x.sessionContext);"  # the open notebook (shell.currentWidget can be null when the page has no focus)
            "const code = w.content.widgets.filter(c => c.model.type === 'code');"
            "return w.sessionContext.session.kernel.status === 'idle'"
            " && code.every(c => c.model.executionCount !== null && c.model.executionCount > 0)"
            " && !code.some(c => c.promptNode && c.promptNode.textContent.includes('*'));")

    wait_for(finished, 240, interval=0.5, what="Run All to finish")
    seconds = time.time() - start
    errors = driver.find_elements(By.CSS_SELECTOR, ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    assert not [e for e in errors if "Traceback" in e.text], "a cell raised during Run All"
    index = _explorer_cells(nb)[0]
    handle = wait_for(lambda: _selection_handle(driver, index), 60, what="the live slider")
    before = wait_for(lambda: _visible_images(driver, index), 30, what="the live figure")
    _move(driver, handle)
    after = wait_for(lambda: (lambda a: a if a and a != before else None)(_visible_images(driver, index)), 30,
                     what="the kernel to redraw the figure")
    assert after != before
    _shot(driver, "after_run_all_explorer", index)
    print(f"Run All in JupyterLab: {seconds:.1f} s")


def test_student_copy_as_opened(lab):
    server, driver, _ = lab
    teacher = nbformat.read(NOTEBOOK, as_version=4)
    # a student copy has empty answer cells, which Lab leaves unrendered (in edit mode); the cells below them are
    # rendered as they are scrolled to, so this test waits for the visible text only
    open_notebook(driver, server, f"student/{NOTEBOOK.name}", every_cell=False)
    text = notebook_text(driver)
    assert "VBox(" not in text
    for phrase in _solution_phrases(teacher):
        assert phrase not in text, f"student copy shows solution text {phrase!r}"
    titles = [m.group(1).strip() for c in teacher.cells if c.cell_type == "markdown" for m in EXERCISE.finditer(c.source)]
    wait_for(lambda: all(t in notebook_text(driver) for t in titles), 60, what="student copy: exercise titles")
    _shot(driver, "student_exercises", len(teacher.cells) - 3)
