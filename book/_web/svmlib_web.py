"""Sphinx extension for the web pages of the book (loaded through ``_config.yml``'s ``local_extensions``).

* ``svmlib-web.css``: pages do not scroll sideways on a phone (390 px): explorer figures, widget rows
  and display math scale or wrap to the column width.
* ``svmlib-search.js``: search-result snippets show ``…`` where a page has math, not raw TeX
  (Sphinx builds snippets from the page's HTML, whose math is TeX source until MathJax runs).
* Every ``<script>`` is emitted once: sphinx-thebe's configuration script was added twice per page
  (``Identifier 'THEBE_JS_URL' has already been declared``).
* ``svmlib-mathjax-hub.js``: the widget manager typesets widget labels through MathJax 2's
  ``MathJax.Hub.Queue``; the book runs MathJax 3, so every page with a widget logged a TypeError.
  The script gives MathJax 3 a ``Hub.Queue`` that calls ``typesetPromise``.
* MathJax 4 (``MATHJAX_CONFIG``): display equations wider than the column are broken into lines, the
  font is the vendored copy.
* ``svmlib-math-fit.js`` + CSS: the reading column is the theme's full 60em from 1200 to 1599 px (the page's
  table of contents goes behind the header's "Contents" button there); a display equation wider than
  its column scrolls in its own box with its number beside it; an inline formula wider than its line
  scrolls inside itself (MathJax 3 cannot break one).
* Alt text for figures (``_alt_texts``: the caption, or the first comment of the cell that drew it) and
  ``svmlib-a11y.js`` (slider names, explorer frame alt text, toggles' names; WCAG 2 AA).
* The theme's default colour mode is set ("light", the mode the figures and widgets are drawn
  for; the reader's toggle still works): with none, every page logged "Got invalid theme mode".
* The widget manager (``embed-amd.js``) loads its icon fonts from
  ``<page folder>/@jupyter-widgets/html-manager/dist/``; the vendored font files are copied there
  for every folder holding a page with widgets (six 404s per page otherwise).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
FONT_SUFFIXES = (".woff2", ".woff", ".ttf", ".eot", ".svg")
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
FONT_FOLDER = Path("@jupyter-widgets") / "html-manager" / "dist"


def _add_static_path(app):
    static = str(HERE / "static")
    if static not in app.config.html_static_path:
        app.config.html_static_path.append(static)


_INLINE_SCRIPT = re.compile(r"[ \t]*<script>[^<]*</script>\n?")


def _dedupe_inline_scripts(html):
    """Drop every repeat of an identical inline ``<script>`` in the head (sphinx-thebe's config is emitted twice)."""
    seen = set()

    def keep_first(match):
        body = match.group(0).strip()
        if body in seen:
            return ""
        seen.add(body)
        return match.group(0)

    head, sep, body = html.partition("</head>")
    return _INLINE_SCRIPT.sub(keep_first, head) + sep + body if sep else html


_FIGURE_IMG = re.compile(r'<img alt="(?P<alt>[^"]*\.(?:png|svg|jpe?g|gif))" (?P<rest>[^>]*)>')
_TAGS = re.compile(r"<[^>]+>")


def _plain(fragment):
    """Text of an HTML fragment for an alt attribute: tags, permalinks and TeX delimiters dropped."""
    from html import escape, unescape
    text = unescape(_TAGS.sub(" ", re.sub(r'<a class="headerlink".*?</a>', "", fragment, flags=re.S)))
    text = re.sub(r"\\[()\[\]]", "", text)
    return escape(re.sub(r"\s+", " ", text).strip(), quote=True)


def _alt_texts(html):
    """Alt text for every figure image whose alt is its file name: the figure's caption ("Fig. 7.1 ...");
    an output figure without a caption is described by the first comment of the code cell that drew it."""
    out, last = [], 0
    for m in _FIGURE_IMG.finditer(html):
        before = html[:m.start()]
        alt = ""
        if before.rfind("<figure") > before.rfind("</figure>"):
            end = html.find("</figure>", m.end())
            cap = re.search(r"<figcaption>(.*?)</figcaption>", html[m.end():end], re.S) if end > 0 else None
            alt = _plain(cap.group(1)) if cap else ""
        if not alt:
            cell = before.rfind('<div class="cell_input')
            source = re.search(r"<pre>(.*?)</pre>", html[cell:m.start()], re.S) if cell >= 0 else None
            comment = re.search(r"^\s*#\s*(.+)$", _TAGS.sub("", source.group(1)), re.M) if source else None
            from html import unescape, escape
            alt = ("Figure drawn by the code cell above" +
                   (f": {escape(unescape(comment.group(1)).strip(), quote=True)}" if comment else ""))
        out.append(html[last:m.start()] + f'<img alt="{alt}" {m.group("rest")}>')
        last = m.end()
    return "".join(out) + html[last:]


def _finish_pages(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.builder.outdir)
    vendor = Path(app.srcdir) / "book" / "_vendor"
    fonts = [f for f in vendor.glob("*") if f.suffix in FONT_SUFFIXES]
    folders = set()
    for page in outdir.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        fixed = _alt_texts(_dedupe_inline_scripts(html))
        if fixed != html:
            page.write_text(fixed, encoding="utf-8")
        if WIDGET_STATE in html:
            folders.add(page.parent)
    for folder in folders:
        target = folder / FONT_FOLDER
        target.mkdir(parents=True, exist_ok=True)
        for font in fonts:
            shutil.copy2(font, target / font.name)


# MathJax 4 (vendored by tools/vendor_assets.py): its font from the vendored copy (no CDN), a display
# wider than its column broken into lines, long inline formulas broken too. Merged into the
# configuration Jupyter Book sets (processHtmlClass), which Sphinx writes as ``window.MathJax``.
MATHJAX_CONFIG = {
    "loader": {"paths": {"mathjax-newcm": "[mathjax]/newcm"}},
    "output": {"font": "mathjax-newcm", "displayOverflow": "linebreak", "linebreaks": {"inline": True}},
}


def _mathjax_config(app, config):
    merged = dict(config.mathjax3_config or {})
    for key, value in MATHJAX_CONFIG.items():
        merged[key] = {**merged.get(key, {}), **value}
    config.mathjax3_config = merged


def _default_colour_mode(app, config):
    context = dict(config.html_context or {})  # pydata-sphinx-theme reads default_mode from the context
    context.setdefault("default_mode", "light")
    config.html_context = context


def setup(app):
    app.connect("builder-inited", _add_static_path)
    app.connect("config-inited", _default_colour_mode)
    app.connect("config-inited", _mathjax_config)
    app.add_js_file("svmlib-mathjax-hub.js", priority=100)  # before the widget manager and MathJax
    app.add_css_file("svmlib-web.css")
    app.add_js_file("svmlib-search.js")
    app.add_js_file("svmlib-math-fit.js")
    app.add_js_file("svmlib-a11y.js")
    app.connect("build-finished", _finish_pages)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
