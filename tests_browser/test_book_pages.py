"""Headless Chromium renders every page of the built book with no network.

Run after ``make book`` (``make browser-check``; ``.ci/run`` does both). The
book is served from ``_build/html`` on localhost; Chromium is started with every
background-network feature off and all host names mapped to nothing, so a page
that still needs a CDN shows raw TeX or no widgets -- and fails here.

For each page we check the DOM after scripts ran (``--dump-dom``), not only the
PNG: MathJax typeset every math element, every image file exists, no Sphinx
error box or notebook traceback is shown, and pages with embedded widget state
rendered widgets.
"""

from __future__ import annotations

import functools
import os
import http.server
import shutil
import subprocess
import tempfile
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

ROOT = Path(__file__).resolve().parent.parent
HTML = Path(os.environ.get("SVMLIB_BOOK_HTML", ROOT / "_build" / "html"))  # another build: --path-output X -> X/_build/html
SHOTS = ROOT / "_build" / "screenshots"
PAGES = sorted(p.relative_to(HTML).as_posix() for p in (HTML / "book").glob("*.html")) if HTML.exists() else []
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions",
    # No network but loopback: a remote asset cannot load, so it cannot hide.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    "--virtual-time-budget=10000", "--window-size=1280,2000",
]


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.fail("Chromium is not installed: apt-get install chromium (the CI script does this).")


@pytest.fixture(scope="module")
def server():
    if not HTML.exists():
        pytest.fail("_build/html does not exist: run `make book` first.")
    handler = functools.partial(_QuietHandler, directory=str(HTML))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _run(args):
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run([_chromium(), *FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=120)
    return done.stdout


class _Dom(HTMLParser):
    """Collects what the checks need from the rendered DOM."""

    def __init__(self):
        super().__init__()
        self.stack = []
        self.math = []  # [has_mathjax_output] per math element
        self.images = []
        self.errors = []
        self.widget_state = False
        self.widget_views = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if tag == "mjx-container":
            for entry in self.stack:
                if entry is not None:
                    self.math[entry] = True
        index = None
        if "math" in classes and tag in ("span", "div"):
            self.math.append(False)
            index = len(self.math) - 1
        self.stack.append(index)
        if tag == "img" and attrs.get("src"):
            self.images.append(attrs["src"])
        if {"system-message", "problematic"} & set(classes) or ("output" in classes and "error" in classes):
            self.errors.append(" ".join(classes))
        if tag == "script" and attrs.get("type") == "application/vnd.jupyter.widget-state+json":
            self.widget_state = True
        if any(c.startswith("jupyter-widgets") or c.startswith("widget-") for c in classes):
            self.widget_views += 1

    def handle_endtag(self, tag):
        if self.stack:
            self.stack.pop()


@pytest.mark.parametrize("page", PAGES or ["<no pages built>"])
def test_page_renders_offline(server, page):
    if not PAGES:
        pytest.fail("no chapter pages in _build/html/book: run `make book` first.")
    url = f"{server}/{page}"
    dom = _Dom()
    dom.feed(_run(["--dump-dom", url]))
    if 'class="math' in (HTML / page).read_text(encoding="utf-8"):  # pages with math (not the index, bibliography)
        assert dom.math, f"{page}: no math found at all -- the DOM dump is not a rendered chapter"
    raw = dom.math.count(False)
    assert raw == 0, f"{page}: {raw} of {len(dom.math)} math elements show raw TeX (MathJax did not run offline)"
    for src in dom.images:
        parsed = urlparse(src)
        if parsed.scheme in ("data", "blob"):  # inline images, and widget images made in the page
            continue
        assert not parsed.scheme or parsed.netloc.startswith("127.0.0.1"), f"{page}: remote image {src}"
        target = (HTML / page).parent / unquote(parsed.path) if not parsed.scheme else HTML / unquote(parsed.path).lstrip("/")
        assert target.resolve().exists(), f"{page}: missing image {src}"
    assert not dom.errors, f"{page}: Sphinx error box or notebook traceback shown: {dom.errors[:3]}"
    if dom.widget_state:
        assert dom.widget_views > 0, f"{page}: widget state embedded but no widget rendered (widget JS offline?)"
    SHOTS.mkdir(parents=True, exist_ok=True)
    shot = SHOTS / (page.replace("/", "_") + ".png")
    _run([f"--screenshot={shot}", url])
    assert shot.exists() and shot.stat().st_size > 20_000, f"{page}: screenshot missing or blank"
