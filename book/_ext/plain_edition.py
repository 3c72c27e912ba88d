"""The plain-notebook edition: every chapter as a notebook that Colab, GitHub, VS Code and any Jupyter render.

The chapters are MyST notebooks: roles (``{eq}``, ``{cite:t}``, ``{glue:text}``), directive fences (exercises,
solutions, theorems), ``(label)=`` targets and numbering front matter, which only Jupyter Book and JupyterLab with
jupyterlab-myst understand. Everywhere else the reader sees the source. This extension writes, after the HTML
build, ``<html>/notebooks/book/<chapter>.ipynb`` -- generated from the **resolved** book (the HTML Sphinx wrote,
in which every equation, figure, exercise and citation is already numbered and formatted), not from regexes over
the source:

* markdown cells are plain CommonMark + ``$``/``$$`` math: display equations carry their web number as
  ``\\tag{7.3}``; citations read "Sollich (2002)" and link to the web book's bibliography; cross-references
  ("(3.5)", "Fig. 9.1", "Chapter 3", "Exercise 7.2") link to the web book; glued numbers are plain text;
* exercises are headings with their stars and minutes; theorems and proofs are labelled paragraphs;
* solutions (written and code) are not in the edition: each is replaced by a link to it in the web book, so
  nothing is given away when the notebook opens (renderers differ on ``<details>``: GitHub and nbconvert show
  markdown inside it unrendered or expanded);
* code cells are the chapter's own, in order, with their stored outputs; the set-up cell (it installs svmlib on
  Colab) comes first; cells the web book hides (imports, glue, checks) are kept -- later cells need them -- with
  their source and outputs collapsed (``jupyter.source_hidden``); an explorer keeps its stored figure
  (``image/png``) and loses its widget view, which needs the web page's embedded state;
* figure captions ("Fig. 7.1 ...") follow their figure.

Each page's "open in Colab" button is pointed at the edition (the ``notebooks`` branch, which the Pages workflow
writes from ``<html>/notebooks``), and its ".ipynb" download at the edition's file in the built site.

Run by Sphinx (``build-finished``) or by hand: ``python book/_ext/plain_edition.py _build/html``.
"""

from __future__ import annotations

import copy
import json
import re
import sys
from pathlib import Path
from urllib.parse import urljoin

import nbformat
from bs4 import BeautifulSoup, NavigableString, Tag

EDITION_DIR = "notebooks"  # <html>/notebooks/book/<chapter>.ipynb, published to the branch of the same name
EDITION_BRANCH = "notebooks"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
HIDDEN_TAGS = {"remove-cell", "remove_cell", "hide-cell"}
SOLUTION_TAGS = {"solution"}
_CITE = re.compile(r"^(?P<who>.+?),\s*(?P<year>(?:\d{4}[a-z]?|n\.d\.))$")


def web_base(repository_url):
    """GitHub Pages address of the book for ``https://github.com/<owner>/<name>``."""
    m = re.match(r"https?://github\.com/([^/]+)/([^/]+?)/?$", repository_url or "")
    if not m:
        return ""
    return f"https://{m.group(1).lower()}.github.io/{m.group(2)}/"


def colab_url(repository_url, path):
    m = re.match(r"https?://github\.com/([^/]+)/([^/]+?)/?$", repository_url or "")
    return f"https://colab.research.google.com/github/{m.group(1)}/{m.group(2)}/blob/{EDITION_BRANCH}/{path}"


class _Converter:
    """HTML of one chapter's article -> a list of ("md", text) and ("code", cell) blocks."""

    def __init__(self, page, base, code_cells):
        self.page = page            # e.g. "book/07_evidence.html"
        self.base = base            # web book address, ending in "/"
        self.cells = code_cells     # the notebook's code cells, in order, not yet placed
        self.blocks = []

    # -- output --------------------------------------------------------------------------------------
    def md(self, text):
        text = text.strip("\n")
        if not text.strip():
            return
        if self.blocks and self.blocks[-1][0] == "md":
            self.blocks[-1] = ("md", self.blocks[-1][1] + "\n\n" + text)
        else:
            self.blocks.append(("md", text))

    def url(self, href):
        if not href:
            return ""
        if re.match(r"^[a-z]+:", href):
            return href
        return urljoin(urljoin(self.base, self.page), href)

    # -- code cells ----------------------------------------------------------------------------------
    def _next_shown_cell(self, drop):
        """Place the notebook's code cells up to the next one the web page shows (that one too)."""
        while self.cells:
            cell = self.cells.pop(0)
            tags = set(cell.metadata.get("tags", []))
            if tags & HIDDEN_TAGS:
                self.blocks.append(("code", _hidden(cell)))
                continue
            if not drop:
                self.blocks.append(("code", _shown(cell)))
            return cell
        raise ValueError(f"{self.page}: the page shows more code cells than the notebook has")

    # -- block level ---------------------------------------------------------------------------------
    def blocks_of(self, el, depth=0):
        for child in el.children:
            if isinstance(child, NavigableString):
                if child.strip():
                    self.md(self.inline_text(child))
                continue
            self.block(child, depth)

    def block(self, el, depth=0):
        classes = set(el.get("class", []))
        name = el.name
        if name in ("script", "style", "noscript") or "toggle-details" in classes:
            return
        if name == "section":
            self.blocks_of(el, depth)
            return
        if re.fullmatch(r"h[1-6]", name):
            level = int(name[1])
            section = el.parent.get("id") if el.parent is not None and el.parent.name == "section" else None
            self.md(("#" * level) + " " + self.inline(el) + (f' <a id="{section}"></a>' if section else ""))
            return
        if "cell" in classes and name == "div":
            self.code_cell(el, drop=bool(classes & {"tag_solution"}))
            return
        if "solution" in classes:
            self.solution(el)
            return
        if "exercise" in classes or "proof" in classes or "admonition" in classes:
            self.admonition(el, classes, depth)
            return
        if "math" in classes and name == "div":
            self.md(self.display_math(el))
            return
        if name == "figure":
            self.figure(el)
            return
        if name == "p":
            self.md(self.inline(el))
            return
        if name in ("ul", "ol"):
            self.md(self.listing(el, 0))
            return
        if name == "table":
            self.md(self.table(el))
            return
        if name == "blockquote":
            inner = _Converter(self.page, self.base, self.cells)
            inner.blocks_of(el)
            self.md("\n".join("> " + line if line else ">" for line in _join(inner.blocks).splitlines()))
            return
        if name == "dl":
            parts = []
            for item in el.children:
                if isinstance(item, Tag) and item.name == "dt":
                    parts.append("**" + self.inline(item) + "**")
                elif isinstance(item, Tag) and item.name == "dd":
                    parts.append(": " + " ".join(self.inline(p) for p in item.find_all("p") or [item]))
            self.md("\n\n".join(parts))
            return
        if name == "pre" or "highlight" in classes:
            pre = el if name == "pre" else el.find("pre")
            if pre is not None:
                self.md("```\n" + pre.get_text().rstrip("\n") + "\n```")
            return
        if name == "img":
            self.md(self.image(el))
            return
        if name in ("span",) and "target" in classes:
            return
        # any other container (div, details, ...): its content
        self.blocks_of(el, depth)

    def code_cell(self, el, drop):
        cell = self._next_shown_cell(drop)
        if drop:
            return
        fig = el.find("figure")
        if fig is not None and fig.find("figcaption") is not None:
            self.md(self.caption(fig))

    def solution(self, el):
        for _ in el.select("div.cell"):
            self._next_shown_cell(drop=True)
        title = el.find(class_="admonition-title")
        label = re.sub(r"\s+", " ", title.get_text(" ")).strip() if title is not None else "Solution"
        label = self.inline_text(label.replace(" ( ", " ("))
        self.md(f"> **{label}**: [read it in the web book]({self.url('#' + el.get('id', ''))}) "
                "(try the exercise first).")

    def admonition(self, el, classes, depth):
        title_el = el.find(class_="admonition-title", recursive=False)
        title = re.sub(r"\s+", " ", self.inline(title_el)).strip() if title_el is not None else ""
        anchor = f'<a id="{el["id"]}"></a>' if el.get("id") else ""
        body = _Converter(self.page, self.base, self.cells)
        for child in el.children:
            if child is title_el:
                continue
            if isinstance(child, Tag):
                body.block(child, depth + 1)
            elif str(child).strip():
                body.md(body.inline_text(child))
        if "exercise" in classes:
            self.md(f"### {title} {anchor}".rstrip())
            self.blocks.extend(_merge(body.blocks))
            return
        if "proof" in classes:  # theorems, lemmas, proofs: a bold title, the content as it is
            head = f"**{title}**" if title else "**Proof.**"
            blocks = _merge(body.blocks)
            if blocks and blocks[0][0] == "md":
                self.md(f"{anchor}{head} " + blocks[0][1])
                self.blocks.extend(blocks[1:])
            else:
                self.md(anchor + head)
                self.blocks.extend(blocks)
            return
        # note, tip, warning, dropdown ...: a quoted block under its title
        blocks = _merge(body.blocks)
        text = "\n\n".join(b[1] for b in blocks if b[0] == "md")
        quoted = f"**{title}**\n\n{text}" if title else text
        self.md(anchor + "\n".join("> " + line if line else ">" for line in quoted.splitlines()))
        self.blocks.extend(b for b in blocks if b[0] == "code")

    def figure(self, el):
        img = el.find("img")
        out = [self.image(img)] if img is not None else []
        if el.find("figcaption") is not None:
            out.append(self.caption(el))
        self.md("\n\n".join(out))

    def caption(self, fig):
        cap = fig.find("figcaption")
        anchor = f'<a id="{fig["id"]}"></a>' if fig.get("id") else ""
        text = self.inline(cap)
        text = re.sub(r"^(Fig\. [\dA-Z.]+)\s*", r"**\1** ", text.strip())
        return anchor + text

    def image(self, img):
        alt = (img.get("alt") or "").strip()
        if alt.endswith((".png", ".svg", ".jpg")):
            alt = "figure"
        return f"![{alt}]({self.url(img.get('src'))})"

    def display_math(self, el):
        el = copy.copy(el)
        number = ""
        eqno = el.find("span", class_="eqno")
        if eqno is not None:
            for a in eqno.find_all("a"):
                a.decompose()
            number = eqno.get_text().strip().strip("()")
            eqno.decompose()
        tex = el.get_text().strip()
        tex = tex.removeprefix("\\[").removesuffix("\\]").strip()
        if number and "\\tag" not in tex:
            tex = f"{tex} \\tag{{{number}}}"
        anchor = f'<a id="{el["id"]}"></a>\n\n' if el.get("id") else ""
        return f"{anchor}$$\n{tex}\n$$"

    def listing(self, el, indent):
        lines = []
        ordered = el.name == "ol"
        for i, li in enumerate([c for c in el.children if isinstance(c, Tag) and c.name == "li"], 1):
            marker = f"{i}. " if ordered else "- "
            pad = " " * (indent + len(marker))
            parts = []
            for child in li.children:
                if isinstance(child, Tag) and child.name in ("ul", "ol"):
                    parts.append(self.listing(child, indent + len(marker)))
                elif isinstance(child, Tag) and child.name == "div" and "math" in child.get("class", []):
                    parts.append("\n".join(pad + line for line in self.display_math(child).splitlines()))
                elif isinstance(child, Tag) and child.name == "p":
                    parts.append(pad + self.inline(child))
                elif isinstance(child, Tag) or str(child).strip():
                    parts.append(pad + self.inline(child) if isinstance(child, Tag) else pad + self.inline_text(child))
            text = "\n".join(p for p in parts if p.strip())
            lines.append(" " * indent + marker + text.lstrip())
        return "\n".join(lines)

    def table(self, el):
        rows = []
        for tr in el.find_all("tr"):
            cells = [self.inline(td).replace("|", "\\|").replace("\n", " ") for td in tr.find_all(["th", "td"])]
            rows.append(cells)
        if not rows:
            return ""
        width = max(len(r) for r in rows)
        rows = [r + [""] * (width - len(r)) for r in rows]
        out = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
        out += ["| " + " | ".join(r) + " |" for r in rows[1:]]
        caption = el.find("caption")
        if caption is not None:
            out.insert(0, self.inline(caption) + "\n")
        return "\n".join(out)

    # -- inline level --------------------------------------------------------------------------------
    def inline_text(self, s):
        text = re.sub(r"\s+", " ", str(s))
        return re.sub(r"([*_`\[\]<>\\])", r"\\\1", text)

    def inline(self, el):
        return self._inner(el).strip()

    def _inner(self, el):
        if isinstance(el, NavigableString):
            return self.inline_text(el)
        return "".join(self._inline_one(child) for child in el.children)

    def _inline_one(self, child):
        if isinstance(child, NavigableString):
            return self.inline_text(child)
        classes = set(child.get("class", []))
        name = child.name
        if name in ("script", "style"):
            return ""
        if "headerlink" in classes or ("target" in classes and name == "span"):
            return ""
        if "math" in classes:
            tex = child.get_text().strip()
            tex = tex.removeprefix("\\(").removesuffix("\\)").strip()
            return f"${tex}$"
        if "bibtex-citation" in classes:
            return self.citation(child)
        if name == "a":
            text = self.inline(child)
            href = child.get("href", "")
            if not text:
                return ""
            return f"[{text}]({self.url(href)})"
        if name in ("em", "i"):
            inner = self.inline(child)
            return f"*{inner}*" if inner else ""
        if name in ("strong", "b"):
            inner = self.inline(child)
            return f"**{inner}**" if inner else ""
        if name == "code":
            text = re.sub(r"\s+", " ", child.get_text())
            tick = "``" if "`" in text else "`"
            return f"{tick}{text}{tick}"
        if name == "br":
            return "<br>"
        if name == "img":
            return self.image(child)
        if name == "p":
            return self.inline(child) + " "
        if name == "div" and "math" in classes:
            return "\n\n" + self.display_math(child) + "\n\n"
        return self._inner(child) if name != "sup" else "<sup>" + self.inline(child) + "</sup>"

    def citation(self, span):
        """Author-year citations, each linked to the web book's bibliography.

        Textual ``Sollich [2002]`` -> "[Sollich (2002)](...)", ``Opper and Winther [1999, 2000]`` ->
        "Opper and Winther ([1999](...); [2000](...))"; parenthetical ``[Sollich, 2002; Neal, 2001]`` ->
        "([Sollich, 2002](...); [Neal, 2001](...))".
        """
        links = span.find_all("a")
        full = re.sub(r"\s+", " ", span.get_text()).strip()
        if not links:
            return self.inline_text(full)
        texts = [re.sub(r"\s+", " ", a.get_text()).strip() for a in links]
        hrefs = [self.url(a.get("href", "")) for a in links]
        if full.startswith("["):
            return "(" + "; ".join(f"[{self.inline_text(t)}]({h})" for t, h in zip(texts, hrefs)) + ")"
        who = self.inline_text(full[:full.index("[")].strip()) if "[" in full else ""
        if len(links) == 1:
            return f"[{who} ({self.inline_text(texts[0])})]({hrefs[0]})"
        return f"{who} (" + "; ".join(f"[{self.inline_text(t)}]({h})" for t, h in zip(texts, hrefs)) + ")"


def _merge(blocks):
    out = []
    for kind, value in blocks:
        if kind == "md" and out and out[-1][0] == "md":
            out[-1] = ("md", out[-1][1] + "\n\n" + value)
        else:
            out.append((kind, value))
    return out


def _join(blocks):
    return "\n\n".join(v for k, v in blocks if k == "md")


def _clean_outputs(outputs):
    kept = []
    for out in outputs:
        out = copy.deepcopy(out)
        data = out.get("data")
        if data is not None and WIDGET_VIEW in data:
            del data[WIDGET_VIEW]
            if not any(k.startswith("image/") for k in data):
                continue  # a widget with no stored figure: nothing a plain renderer can show
            data.pop("text/plain", None)  # "VBox(children=...)" under the figure
        kept.append(out)
    return kept


def _shown(cell):
    new = nbformat.v4.new_code_cell(cell.source)
    new.outputs = _clean_outputs(cell.get("outputs", []))
    new.execution_count = cell.get("execution_count")
    tags = [t for t in cell.metadata.get("tags", []) if not t.startswith(("hide-", "remove-", "nbval"))]
    if tags:
        new.metadata["tags"] = tags
    if {"hide-input"} & set(cell.metadata.get("tags", [])):
        new.metadata["jupyter"] = {"source_hidden": True}
    return new


def _hidden(cell):
    """A cell the web book hides (imports, glue, checks): kept, since later cells need it; collapsed."""
    new = nbformat.v4.new_code_cell(cell.source)
    new.metadata["jupyter"] = {"source_hidden": True, "outputs_hidden": True}
    if cell.source.startswith("# svmlib-setup-cell"):
        new.metadata["jupyter"] = {"source_hidden": False}
    return new


def convert_page(html_file, page, notebook, base):
    """The plain edition of ``notebook`` from its built page ``html_file`` (``page``: its path in the site)."""
    soup = BeautifulSoup(Path(html_file).read_text(encoding="utf-8"), "html.parser")
    article = soup.find("article", class_="bd-article")
    if article is None:
        raise ValueError(f"{html_file}: no article element (not a Jupyter Book page?)")
    nb = nbformat.read(notebook, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    conv = _Converter(page, base, list(code))
    conv.blocks_of(article)
    for cell in conv.cells:  # hidden cells after the last shown one
        if not set(cell.metadata.get("tags", [])) & HIDDEN_TAGS:
            raise ValueError(f"{page}: code cell {cell.source[:60]!r} is in the notebook but not on the page")
        conv.blocks.append(("code", _hidden(cell)))
    cells = []
    for kind, value in _merge(conv.blocks):
        if kind == "md":
            cells.append(nbformat.v4.new_markdown_cell(_tidy(value)))
        else:
            cells.append(value)
    setup = [c for c in cells if c.cell_type == "code" and c.source.startswith("# svmlib-setup-cell")]
    if setup:  # the set-up cell first (it installs svmlib on Colab)
        cells.remove(setup[0])
        cells.insert(0, setup[0])
    web = urljoin(base, page)
    cells.insert(1 if setup else 0, nbformat.v4.new_markdown_cell(
        f"*This is the plain-notebook edition of a chapter of [{_title(soup)}]({base}), generated from the "
        f"[web book]({web}) for Colab, GitHub and any Jupyter. Run the first cell to install svmlib. "
        f"Solutions to the exercises are in the web book.*"))
    out = nbformat.v4.new_notebook()
    out.cells = cells
    out.metadata = {k: v for k, v in nb.metadata.items() if k in ("kernelspec", "language_info")}
    return out


def _title(soup):
    title = soup.find("title")
    text = title.get_text() if title is not None else ""
    return text.split(" — ")[-1].strip() or "the book"


def _tidy(text):
    text = re.sub(r"[ \t]+\n", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip()


def build_edition(html_dir, src_dir, repository_url, log=print):
    """Write ``<html_dir>/notebooks/book/*.ipynb`` and point every page's Colab and download buttons at them."""
    html_dir, src_dir = Path(html_dir), Path(src_dir)
    base = web_base(repository_url)
    written = []
    for page_file in sorted((html_dir / "book").glob("*.html")):
        rel = page_file.relative_to(html_dir).as_posix()
        notebook = src_dir / "book" / (page_file.stem + ".ipynb")
        if not notebook.exists():
            continue
        edition = convert_page(page_file, rel, notebook, base)
        target = html_dir / EDITION_DIR / "book" / notebook.name
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(edition, target)
        written.append(target)
        _point_buttons(page_file, notebook.name, repository_url)
    log(f"plain-notebook edition: {len(written)} notebooks in {html_dir / EDITION_DIR}")
    return written


def _point_buttons(page_file, name, repository_url):
    html = page_file.read_text(encoding="utf-8")
    new = re.sub(r'href="https://colab\.research\.google\.com/github/[^"]*"',
                 f'href="{colab_url(repository_url, "book/" + name)}"', html)
    new = new.replace(f'href="../_sources/book/{name}"', f'href="../{EDITION_DIR}/book/{name}"')
    if new != html:
        page_file.write_text(new, encoding="utf-8")


def _build_finished(app, exception):
    if exception is not None or app.builder.name not in ("html", "dirhtml"):
        return
    from sphinx.util import logging
    logger = logging.getLogger(__name__)
    repo = (app.config.html_theme_options or {}).get("repository_url", "")
    try:
        build_edition(app.outdir, app.srcdir, repo, log=logger.info)
    except ValueError as err:  # a page and its notebook disagree: the edition would be wrong, say so
        logger.warning(f"plain-notebook edition not written: {err}")


def setup(app):
    app.connect("build-finished", _build_finished)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":
    root = Path(__file__).resolve().parents[2]
    html = Path(sys.argv[1]) if len(sys.argv) > 1 else root / "_build" / "html"
    import yaml
    config = yaml.safe_load((root / "_config.yml").read_text())
    build_edition(html, root, config["repository"]["url"])
