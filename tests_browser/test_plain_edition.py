"""The plain-notebook edition (book/_ext/plain_edition.py) as Colab, GitHub or plain Jupyter shows it.

Run after ``make book`` (``SVMLIB_BOOK_HTML`` points at another build). Each edition notebook
``<html>/notebooks/book/*.ipynb`` is rendered with plain nbconvert (no MyST anywhere) and opened in headless
Chromium (no network but 127.0.0.1). nbconvert's template loads MathJax 2 from a CDN; the test serves the
book's vendored MathJax 3 instead, configured as Colab and JupyterLab read markdown math (``$``/``$$``).
For every chapter and appendix:

* no MyST artefact is in the visible text: no ``{role}`` ``, no ```` ```{directive} ```` fence, no ``(label)=``
  line, no numbering front matter, no ``:label:`` / ``:class:`` option line;
* every formula is typeset (no ``$`` or TeX command left in the text outside code);
* the equation numbers, in order, are the web page's (each ``\\tag{7.3}`` that MathJax typeset as a label);
* no solution text is shown: no sentence of any solution of the web page appears; each solution is a link;
* every figure the notebook stores is shown (explorers: their stored default figure);
* the page's Colab button and ".ipynb" download point at the edition, and the target exists in the built tree.

Screenshots go to ``_build/screenshots/plain_<chapter>.png``.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

pytest.importorskip("selenium")
nbformat = pytest.importorskip("nbformat")
from bs4 import BeautifulSoup  # noqa: E402
from nbconvert import HTMLExporter  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from labsession import chrome, wait_for  # noqa: E402
from test_layout import serve  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
HTML = Path(os.environ.get("SVMLIB_BOOK_HTML", ROOT / "_build" / "html"))
EDITION = HTML / "notebooks" / "book"
SHOTS = ROOT / "_build" / "screenshots"
NOTEBOOKS = sorted(p.stem for p in (ROOT / "book").glob("*.ipynb"))
EDITION_BRANCH = "notebooks"

MYST = [
    (re.compile(r"\{(?:eq|cite|cite:[pt]|numref|ref|doc|glue|glue:text|glue:any|abbr|index|math|term|prf:ref|"
                r"download|sub-ref|dropdown)\}`"), "role"),
    (re.compile(r"```\s*\{"), "directive fence"),
    (re.compile(r"^:::", re.M), "colon fence"),
    (re.compile(r"^\([\w:.-]+\)=\s*$", re.M), "(label)= target"),
    (re.compile(r"numbering:|enumerator:"), "numbering front matter"),
    (re.compile(r"^\s*:(?:label|class|nonumber|numbered|width|align|name):", re.M), "directive option line"),
]
RAW_TEX = re.compile(r"\$|\\(?:frac|sum|mathbb|mathcal|operatorname|tilde|alpha|theta|sigma|langle|begin|left)\b")

MATHJAX_CONFIG = """<script>window.MathJax = {tex: {inlineMath: [['$', '$'], ['\\\\(', '\\\\)']],
  displayMath: [['$$', '$$'], ['\\\\[', '\\\\]']], processEscapes: true},
  loader: {paths: {'mathjax-newcm': '[mathjax]/newcm'}}};</script>"""


def _export(notebook):
    html, _ = HTMLExporter(template_name="lab").from_filename(str(notebook))
    # nbconvert's MathJax 2 (CDN) -> the book's vendored MathJax 3, configured for Jupyter markdown math
    html = re.sub(r'<script src="https://cdnjs\.cloudflare\.com/ajax/libs/mathjax/[^"]*">\s*</script>',
                  lambda m: MATHJAX_CONFIG + '<script src="/_static/mathjax/tex-chtml.js"></script>', html)
    return html


@pytest.fixture(scope="module")
def site():
    if not EDITION.exists():
        pytest.fail(f"{EDITION} does not exist: run `make book` (book/_ext/plain_edition.py writes it).")
    httpd, url = serve(HTML)
    yield url
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = chrome(tmp_path_factory.mktemp("chromium"), width=1100, height=1400)
    yield driver
    driver.quit()


def _web_numbers(page):
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    article = soup.find("article")
    numbers = []
    for eqno in article.select("div.math span.eqno"):
        if eqno.find_parent(class_="solution") is not None:
            continue  # solutions are not in the edition
        numbers.append(re.sub(r"#$", "", eqno.get_text().strip()))
    solutions = []
    for sol in article.select("div.solution"):
        for p in sol.select(":scope section p:not(.admonition-title)"):
            text = re.sub(r"\s+", " ", "".join(t for t in p.find_all(string=True)
                                                 if not t.find_parent(class_="math"))).strip()
            words = [w for w in re.split(r"[^A-Za-z]+", text) if len(w) > 3]
            if len(words) >= 8:
                solutions.append(text)
    return numbers, solutions


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_plain_edition_renders_without_myst(site, browser, tmp_path, name):
    notebook = EDITION / f"{name}.ipynb"
    page = HTML / "book" / f"{name}.html"
    assert notebook.exists(), f"{notebook} missing: the edition has no {name}"
    nb = nbformat.read(notebook, as_version=4)
    assert nb.cells[0].cell_type == "code" and nb.cells[0].source.startswith("# svmlib-setup-cell"), \
        f"{name}: the set-up cell is not first"
    out = HTML / "notebooks" / "_rendered" / f"{name}.html"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(_export(notebook), encoding="utf-8")
    try:
        browser.get(f"{site}/notebooks/_rendered/{name}.html")
        wait_for(lambda: browser.execute_script("return document.readyState") == "complete", 30, what="load")
        wait_for(lambda: browser.execute_script(
            "return window.MathJax && MathJax.startup && MathJax.startup.promise && true"), 30, what="MathJax")
        browser.execute_async_script("const done = arguments[0]; MathJax.startup.promise.then(() => done(1));")
        result = browser.execute_script("""
            const md = [...document.querySelectorAll('.jp-MarkdownCell .jp-RenderedMarkdown, .jp-MarkdownOutput')];
            const clone = md.map(e => { const c = e.cloneNode(true);
              c.querySelectorAll('mjx-container, code, pre').forEach(x => x.remove()); return c.innerText; });
            // each display MathJax typeset with an equation label (mjx-labels / mjx-mlabeledtr), with the
            // number its TeX asked for (MathJax 4 has no assistive MathML to read the label back from)
            const tags = Array.from(MathJax.startup.document.math).filter(m => m.display && m.typesetRoot &&
                m.typesetRoot.querySelector('mjx-labels, mjx-mlabeledtr'))
              .map(m => { const t = /\\\\tag\\{([^}]*)\\}/.exec(m.math); return t ? '(' + t[1] + ')' : '?'; });
            const imgs = [...document.querySelectorAll('img')];
            return {text: clone.join('\\n'), tags: tags, images: imgs.length,
                    broken: imgs.filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src.slice(0, 80)),
                    merror: document.querySelectorAll('mjx-merror').length};
        """)
        SHOTS.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(SHOTS / f"plain_{name}.png"))
    finally:
        out.unlink(missing_ok=True)
        if not any(out.parent.iterdir()):
            out.parent.rmdir()
    text = result["text"]
    for pattern, what in MYST:
        found = pattern.findall(text)
        assert not found, f"{name}: {len(found)} MyST artefacts ({what}) shown, e.g. {found[:3]}"
    raw = RAW_TEX.findall(text)
    assert not raw, f"{name}: raw TeX in the rendered text: {raw[:5]} (a formula MathJax did not typeset)"
    assert result["merror"] == 0, f"{name}: {result['merror']} formulas with a TeX error"
    web_numbers, solutions = _web_numbers(page)
    assert result["tags"] == web_numbers, f"{name}: equation numbers {result['tags'][:12]} != web {web_numbers[:12]}"
    flat = re.sub(r"\s+", " ", text)
    shown = [s for s in solutions if s[:60] in flat]
    assert not shown, f"{name}: {len(shown)} solution paragraphs visible, e.g. {shown[0][:80]!r}"
    stored = sum(1 for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
                 if any(k.startswith("image/") for k in o.get("data", {})))
    # the web book's outputs with a figure, except solution cells (dropped), all stored in the edition
    assert result["images"] >= stored, f"{name}: {result['images']} images shown, {stored} stored"
    offline = [s for s in result["broken"] if not s.startswith("https://")]  # web-book images need the network
    assert not offline, f"{name}: images that do not load: {offline[:3]}"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_buttons_open_the_edition(name):
    page = HTML / "book" / f"{name}.html"
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    colab = [a["href"] for a in soup.find_all("a", href=True) if "colab.research.google.com" in a["href"]]
    assert colab, f"{name}: no Colab button"
    for href in colab:
        m = re.search(rf"/blob/{EDITION_BRANCH}/(.+)$", href)
        assert m, f"{name}: Colab opens {href}, not the edition's branch '{EDITION_BRANCH}'"
        assert (HTML / "notebooks" / m.group(1)).exists(), f"{name}: Colab target {m.group(1)} not in the built edition"
    downloads = [a["href"] for a in soup.find_all("a", href=True) if a["href"].endswith(".ipynb")
                 and not a["href"].startswith("http")]
    assert downloads, f"{name}: no .ipynb download button"
    for href in downloads:
        assert "/notebooks/" in href, f"{name}: the download button gives {href}, not the edition"
        assert (page.parent / href).resolve().exists(), f"{name}: download target {href} missing"
