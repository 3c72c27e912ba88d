"""Every chapter as opened in JupyterLab reads cleanly: citations, cross-references and math.

jupyterlab-myst sees one notebook at a time and no bibliography, so the chapters store citations and
references to other chapters, figures and equations in a form it renders as text (book/_ext/
lab_references.py). This test opens each stored chapter, unrun, in a real JupyterLab on 127.0.0.1 and
asserts what a reader sees: no warning marker (jupyterlab-myst's yellow "Citation Not Found", "Cross
Reference Not Found" or a math error), no "Chapter %s", no MyST role as raw text, glued numbers shown
as numbers (not their names), every figure's caption, and citations whose full reference appears when
the pointer rests on them.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import pytest

pytest.importorskip("selenium")

from labsession import LabServer, chrome, notebook_text, open_notebook, shut_down_kernels  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "_build" / "screenshots"
CHAPTERS = sorted((ROOT / "book").glob("*.ipynb"))
PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    root = tmp_path_factory.mktemp("lab-chapters")
    home = tmp_path_factory.mktemp("lab-home")
    for chapter in CHAPTERS:
        shutil.copy(chapter, root / chapter.name)
    server = LabServer(root, home)
    driver = chrome(home / "profile", 1280, 1000)
    yield server, driver
    driver.quit()
    server.stop()


@pytest.mark.parametrize("chapter", [c.name for c in CHAPTERS], ids=[c.stem for c in CHAPTERS])
def test_chapter_reads_cleanly_in_jupyterlab(lab, chapter):
    server, driver = lab
    open_notebook(driver, server, chapter)
    time.sleep(1.0)  # math and abbreviations render after the text settles
    warnings = driver.execute_script(
        f"return [...document.querySelectorAll('{PANEL} .text-yellow-600')]"
        ".map(e => e.textContent.trim() + ' (' + (e.title || '') + ')');")
    assert not warnings, f"{chapter}: jupyterlab-myst marks {len(warnings)} element(s): {warnings[:8]}"
    text = notebook_text(driver)
    for raw in ("%s", "{cite", "{numref}", "{eq}", "{doc}", "{ref}", "{abbr}"):
        assert raw not in text, f"{chapter}: {raw!r} shows as raw text"
    citations = driver.execute_script(
        f"return [...document.querySelectorAll('{PANEL} abbr.hover-text')]"
        ".map(e => [e.textContent, e.getAttribute('aria-label') || '']);")
    if chapter.startswith(("0", "appendix")) and chapter != "00_preface.ipynb":
        assert citations, f"{chapter}: no citation rendered"
    notebook = json.loads((ROOT / "book" / chapter).read_text(encoding="utf-8"))
    prose = driver.execute_script(  # rendered markdown only (code cells name the glued variables)
        f"return [...document.querySelectorAll('{PANEL} .jp-MarkdownCell .myst')]"
        ".map(e => e.textContent).join(' ');")
    assert len(prose) > 1000, f"{chapter}: no rendered markdown found"
    shown_keys = [k for k in _glue_keys(notebook) if re.search(rf"(?<![\w.]){re.escape(k)}(?![\w(])", prose)]
    assert not shown_keys, f"{chapter}: glue names shown instead of their values: {shown_keys[:5]}"
    plain = text.replace("\u2019", "'").replace("\u201c", '"').replace("\u201d", '"')  # MyST's typographic quotes
    book_page = ROOT / "_build" / "html" / "book" / chapter.replace(".ipynb", ".html")
    assert book_page.exists(), "build the book first (make book): the equation numbers are compared with it"
    # JupyterLab numbers equations as the book does (frontmatter enumerator, every equation labelled)
    book_numbers = re.findall(r'<span class="eqno">(\([^<]*\))', book_page.read_text(encoding="utf-8"))
    # the numbers jupyterlab-myst puts to the right of each visible display equation (read from the DOM:
    # in the text a display's own tokens, such as the "(D)" of Q(D), can stand on a line of their own)
    lab_numbers = driver.execute_script(
        f"return [...document.querySelectorAll('{PANEL} .myst div.flex > div.select-none')]"
        ".filter(e => e.offsetParent !== null).map(e => e.textContent.trim());")
    # equations inside collapsed solutions are not on screen: JupyterLab's visible numbers must be the
    # book's in order, with at most those missing (an unlabelled equation would shift them)
    shown = [n for n in book_numbers if n in lab_numbers]
    assert shown == lab_numbers and len(book_numbers) - len(shown) <= max(2, len(book_numbers) // 5), \
        f"{chapter}: equation numbers JupyterLab {lab_numbers}, book {book_numbers}"
    for caption in _captions(ROOT / "book" / chapter):  # figure captions (JupyterLab forms) are shown
        assert caption in plain, f"{chapter}: figure caption {caption!r} not shown"
    for short, full in citations:
        assert len(full) > len(short) + 10, f"{chapter}: citation {short!r} has no full reference ({full!r})"
    if chapter == "06_gp_prior.ipynb":  # the full reference shows on hover
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.by import By

        first = driver.find_elements(By.CSS_SELECTOR, f"{PANEL} abbr.hover-text")[0]
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", first)
        ActionChains(driver).move_to_element(first).perform()
        time.sleep(1.5)
        SHOTS.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(SHOTS / "lab_citations.png"))
        assert citations[0][1].split(".")[0] in notebook_text(driver) + driver.find_element(By.TAG_NAME, "body").text
    if chapter == "07_evidence.ipynb":  # a figure with its caption under it
        driver.execute_script(
            f"[...document.querySelectorAll('{PANEL} .jp-MarkdownCell')].find(c => c.textContent.includes('Fig. 7.1'))"
            ".scrollIntoView({block: 'end'})")
        time.sleep(0.5)
        SHOTS.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(SHOTS / "lab_figure_caption.png"))
    shut_down_kernels(server)  # twelve idle kernels would slow the machine down


def _glue_keys(notebook):
    return {o["metadata"]["scrapbook"]["name"] for c in notebook["cells"] if c["cell_type"] == "code"
            for o in c.get("outputs", []) if o.get("metadata", {}).get("scrapbook")}


def _captions(path):
    """The first words of each figure's caption as stored for JupyterLab (plain text, before any math)."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    words = []
    for cell in notebook["cells"]:
        if cell["metadata"].get("svmlib", {}).get("lab_caption"):
            source = re.sub(r'<a id="[^"]*"></a>', "", "".join(cell["source"]))  # the figure links' anchor
            words.append(source.split("** ", 1)[1].split("$")[0].split("{")[0].split("[")[0].strip()[:40])
    return [w for w in words if len(w) > 8]

