"""WCAG 2 AA on every page of the built book: axe-core in headless Chromium, no serious or critical violation.

Run after ``make book`` (``SVMLIB_BOOK_HTML`` points at another build). axe-core (the npm package, pinned in
``tools/vendor_assets.py``'s ``TEST_PACKAGES``; ``python tools/vendor_assets.py --tests`` fetches it once into
``_build/test_vendor``) is injected into each page by Selenium after MathJax and the widgets have rendered,
and run with the WCAG 2.0/2.1 A and AA rules. Every figure image must also carry alt text that is not a
file name (book/_web/svmlib_web.py writes it from the figure's caption at build time).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("selenium")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from labsession import chrome  # noqa: E402
from test_layout import load, serve  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
HTML = Path(os.environ.get("SVMLIB_BOOK_HTML", ROOT / "_build" / "html"))
AXE = ROOT / "_build" / "test_vendor" / "axe.min.js"
PAGES = sorted(p.relative_to(HTML).as_posix() for p in (HTML / "book").glob("*.html")) if HTML.exists() else []
BLOCKING = ("serious", "critical")

RUN_AXE = """
const done = arguments[arguments.length - 1];
axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']},
                   resultTypes: ['violations']})
  .then(r => done(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                                          nodes: v.nodes.length,
                                          targets: v.nodes.slice(0, 3).map(n => n.target.join(' '))}))))
  .catch(e => done([{id: 'axe-error', impact: 'critical', help: String(e), nodes: 0, targets: []}]));
"""

ALT_TEXT = """
return [...document.querySelectorAll('article.bd-article img')].filter(i => i.offsetParent !== null)
  .map(i => i.getAttribute('alt') || '')
  .filter(a => !a.trim() || /\\.(png|svg|jpe?g|gif)$/i.test(a.trim()) || a.startsWith('data:'));
"""


@pytest.fixture(scope="module")
def axe_source():
    if not AXE.exists():
        subprocess.run([sys.executable, str(ROOT / "tools" / "vendor_assets.py"), "--tests"], check=True)
    return AXE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def site():
    if not PAGES:
        pytest.fail(f"{HTML} has no book pages: run `make book` first (or set SVMLIB_BOOK_HTML).")
    httpd, url = serve(HTML)
    yield url
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = chrome(tmp_path_factory.mktemp("chromium"), width=1280, height=900)
    driver.set_script_timeout(180)
    yield driver
    driver.quit()


@pytest.mark.parametrize("page", PAGES or ["<no pages built>"])
def test_wcag_aa_and_alt_text(site, browser, axe_source, page):
    load(browser, f"{site}/{page}", 1280)
    browser.execute_script(axe_source)
    violations = browser.execute_async_script(RUN_AXE)
    blocking = [v for v in violations if v["impact"] in BLOCKING]
    assert not blocking, f"{page}: {len(blocking)} serious/critical WCAG violations: " + "; ".join(
        f"{v['id']} ({v['impact']}, {v['nodes']} nodes: {v['help']}; e.g. {v['targets'][:2]})" for v in blocking)
    missing = browser.execute_script(ALT_TEXT)
    assert not missing, f"{page}: {len(missing)} figures without alt text saying what they show, e.g. {missing[:3]}"
