#!/usr/bin/env python
"""Count remote <script>/<link> tags in the built book; a self-contained book has 0.

    python tools/check_offline.py [_build/html]

A tag counts when its src/href starts with http://, https:// or // (a CDN).
Plain links (<a href>) to the web are fine: they are navigation, not assets.
"""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path


class _AssetTags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.remote = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        url = attrs.get("src") if tag == "script" else attrs.get("href") if tag == "link" else None
        if tag == "link" and attrs.get("rel") in ("canonical",):
            return
        if url and url.strip().lower().startswith(("http://", "https://", "//")):
            self.remote.append((tag, url))


def remote_assets(html_dir):
    """[(file, tag, url)] for every remote script/link tag under ``html_dir``."""
    found = []
    for page in sorted(Path(html_dir).rglob("*.html")):
        parser = _AssetTags()
        parser.feed(page.read_text(encoding="utf-8", errors="replace"))
        found += [(str(page.relative_to(html_dir)), tag, url) for tag, url in parser.remote]
    return found


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    html_dir = Path(argv[0] if argv else "_build/html")
    if not html_dir.is_dir():
        print(f"{html_dir} does not exist: build the book first (make book)")
        return 2
    found = remote_assets(html_dir)
    for page, tag, url in found[:20]:
        print(f"remote <{tag}> in {page}: {url}")
    print(f"remote <script>/<link> tags in {html_dir}: {len(found)}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
