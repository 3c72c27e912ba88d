"""The built book's general index is a subject index: the book's concepts, none of svmlib's API objects
(those are listed by the API reference pages and the Python module index). Run after ``make book``."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HTML = Path(os.environ.get("SVMLIB_BOOK_HTML", ROOT / "_build" / "html"))


def test_general_index_lists_concepts_not_api_objects():
    page_path = HTML / "genindex.html"
    if not page_path.exists():
        pytest.fail("build the book first (make book): _build/html/genindex.html is missing")
    page = page_path.read_text(encoding="utf-8")
    links = re.findall(r'<a href="([^"]+)"', page)
    api = [href for href in links if "book/reference/" in href]
    assert not api, f"{len(api)} index entries point into the API reference, e.g. {api[:3]}"
    assert "(class in svmlib" not in page and "(in module svmlib" not in page
    chapters = [href for href in links if re.search(r"book/\d\d_", href)]
    assert len(chapters) >= 50, f"only {len(chapters)} subject entries point into the chapters"
    # the API objects are still cross-reference targets: the module index lists them
    assert "svmlib.dual" in (HTML / "py-modindex.html").read_text(encoding="utf-8")
