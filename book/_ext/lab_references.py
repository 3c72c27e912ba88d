"""Citations and cross-references that read in JupyterLab as well as in the book.

jupyterlab-myst renders a chapter's MyST in JupyterLab, but it sees one notebook at a time and no
bibliography: a ``{cite:t}`key``` shows the bare key with a warning icon, a ``{numref}`` to a figure
(a figure here is a code cell's metadata) or to another chapter shows a warning or "Chapter %s", and an
``{eq}`` to an equation of another chapter shows its label. So the chapters store those references in a
**Lab form** that JupyterLab renders as plain, readable text, and this Sphinx extension turns each Lab
form back into the role the book has always used, before myst-nb parses the notebook:

============================================================  ===========================================
Lab form (what the notebook stores; JupyterLab shows)          role the book builds from
============================================================  ===========================================
``{abbr}`Sollich (2002) (Peter Sollich. Bayesian ...)```        ``{cite:t}`sollich2002bayesian```
``({abbr}`Sollich, 2000 (...)`; {abbr}`Sollich, 2002 (...)`)``  ``{cite:p}`sollich1999probabilistic,...```
``[(3.6)](03_duality_smo.ipynb#dual-objective)``               ``{eq}`dual-objective```
``[Chapter 3](03_duality_smo.ipynb#ch-duality)``               ``{numref}`Chapter %s <ch-duality>```
``[Fig. 1.1](#fig-margin-scan)``                               ``{numref}`Fig. %s <fig-margin-scan>```
``[Exercise 6.2](06_gp_prior.ipynb#ex-gp-prior-2)``            ``{numref}`Exercise %s <ex-gp-prior-2>```
``[support vectors](glossary.md#term-support-vector)``         ``{term}`support vectors <support vector>```
============================================================  ===========================================

An ``{abbr}`` shows the short citation in JupyterLab and the full reference (as the book's bibliography
formats it) when the pointer rests on it. References JupyterLab resolves by itself (an equation or a
section of the same notebook, a ``{ref}`` with its own text) stay roles.

The numbers in a Lab form are literal, so the build checks them: after Sphinx has numbered everything,
each Lab form's text must equal what the book prints for that reference, or the build warns (an error
under ``-W``) and names the fix. ``python book/_ext/lab_references.py --fix`` rewrites every chapter into
Lab form (roles too) from ``references.bib`` and the numbers of the last HTML build (``--fix book/07_evidence.ipynb``:
that chapter only); ``--check`` (run by ``make test``) fails if a chapter holds a role JupyterLab cannot render,
a stale Lab form, or a figure link with no caption anchor to go to (see "Figure captions in JupyterLab").
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
BIBFILE = ROOT / "references.bib"
HTML = ROOT / "_build" / "html" / "book"

# ---------------------------------------------------------------------------------------------
# The bibliography: short (author-year) and full forms of each entry
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reference:
    key: str
    narrative: str      # Sollich (2002)
    parenthetical: str  # Sollich, 2002
    full: str           # the bibliography's text of the entry, without round brackets


def _latex_to_text(text):
    from pybtex.richtext import Text

    return Text.from_latex(text).render_as("text")


def _names(entry):
    persons = entry.persons.get("author") or entry.persons.get("editor") or []
    last = [_latex_to_text(" ".join(p.prelast_names + p.last_names)) for p in persons]
    if not last:
        return _latex_to_text(entry.fields.get("title", entry.key))
    if len(last) == 1:
        return last[0]
    if len(last) == 2:
        return f"{last[0]} and {last[1]}"
    return f"{last[0]} et al."


@lru_cache(maxsize=4)
def bibliography(bibfile=BIBFILE):
    """``{key: Reference}`` for every entry of ``bibfile``, formatted as sphinxcontrib-bibtex does."""
    from pybtex.database import parse_file
    from pybtex.plugin import find_plugin

    data = parse_file(str(bibfile))
    style = find_plugin("pybtex.style.formatting", "alpha")()  # sphinxcontrib-bibtex's default style
    full = {e.key: e.text.render_as("text") for e in style.format_entries(data.entries.values())}
    refs = {}
    for key, entry in data.entries.items():
        names, year = _names(entry), entry.fields.get("year", "n.d.")
        # MyST's abbr role ends at the last "(...)": the explanation itself may hold no round brackets
        text = full[key].replace("(", "[").replace(")", "]").replace("`", "'")
        refs[key] = Reference(key, f"{names} ({year})", f"{names}, {year}", text)
    return refs


# ---------------------------------------------------------------------------------------------
# Lab form -> role (the book's side; also used by the checks)
# ---------------------------------------------------------------------------------------------
_ABBR = r"\{abbr\}`(?P<short%s>[^`]*?) \((?P<full%s>[^`()]*)\)`"
CITE_T = re.compile(_ABBR % ("", ""))
CITE_P_GROUP = re.compile(r"\((?P<items>%s(?:; %s)*)\)" % (_ABBR % ("", ""), _ABBR % ("2", "2")))
NUMBERED = ("Chapter", "Fig.", "Figure", "Exercise", "Table", "Section", "Theorem", "Definition", "Lemma",
            "Proposition", "Algorithm", "Example", "Appendix")
LINK = re.compile(r"\[(?P<text>(?:%s) [A-Z0-9][\w.]*|\([A-Z0-9][\w.]*\))\]"
                  r"\((?P<file>[\w.-]*?\.ipynb)?#(?P<label>[A-Za-z][\w-]*)\)" % "|".join(re.escape(p) for p in NUMBERED))


_YEAR = r"(?:\d{4}[a-z]?|n\.d\.)"
SHORT_T = re.compile(r"^.+ \(%s\)$" % _YEAR)   # Sollich (2002): an abbr that reads like this is a citation
SHORT_P = re.compile(r"^.+, %s$" % _YEAR)        # Sollich, 2002


GLUE = re.compile(r"\{abbr\}`(?P<value>[^`()]*?) \(computed in this notebook: (?P<key>[^,()`\s]+)"
                  r"(?:, format (?P<fmt>[^()`\s]+))?\)`")


class LabFormError(ValueError):
    """A Lab form that names no bibliography entry, or a role that has no Lab form."""


# Glossary terms. jupyterlab-myst resolves {term} like a cross-reference, and a notebook opened alone has
# no glossary, so the role shows a warning; the Lab form is a plain link to the term's entry in
# glossary.md, whose anchor is the id Sphinx gives the term (sphinx.util.nodes.make_id: case kept,
# non-ASCII dropped, so "Kullback–Leibler divergence" -> "term-KullbackLeibler-divergence").
GLOSSARY = BOOK / "glossary.md"
TERM_LINK = re.compile(r"\[(?P<text>[^\]\n]+)\]\(glossary\.md#(?P<anchor>term-[\w-]+)\)")


def term_anchor(term):
    """The id Sphinx gives glossary ``term`` (its HTML anchor)."""
    from sphinx.util.nodes import _make_id

    return _make_id("term-" + term)


@lru_cache(maxsize=4)
def glossary_terms(path=GLOSSARY):
    """anchor -> term for every term of the ``{glossary}`` directive in ``path``."""
    text = Path(path).read_text(encoding="utf-8")
    block = re.search(r"^```\{glossary\}\n(?P<body>.*?)^```", text, re.S | re.M)
    if block is None:
        raise LabFormError(f"{path} has no {{glossary}} directive")
    terms = [line.strip() for line in block.group("body").splitlines()
             if line.strip() and not line[0].isspace() and not line.startswith(":")]
    return {term_anchor(term): term for term in terms}


def _key_of(short, full, refs, kind, lenient=False):
    for ref in refs.values():
        if ref.full == full:
            expected = ref.narrative if kind == "t" else ref.parenthetical
            if short != expected and not lenient:
                raise LabFormError(f"citation of {ref.key} reads {short!r}; references.bib gives {expected!r}")
            return ref.key
    if lenient:  # the entry was edited in references.bib: --fix finds it by its short form, if that is unique
        same = [r.key for r in refs.values() if short in (r.narrative, r.parenthetical)]
        if len(same) == 1:
            return same[0]
    raise LabFormError(f"no entry of references.bib is {full!r} (cited as {short!r})")


def to_sphinx(markdown, refs=None, expected=None, errors=None, lenient=False):
    """The book's roles for the Lab forms in ``markdown``.

    ``expected`` (a list), if given, receives ``(label, text, kind)`` for every numbered Lab form, so the
    build can compare each literal number with the book's. A Lab form that names no bibliography entry
    raises :class:`LabFormError`, or, if an ``errors`` list is given, is appended to it and left as it is.
    ``lenient`` (for --fix) also accepts a citation whose full text is stale if its short form names one entry.
    """
    refs = bibliography() if refs is None else refs

    def tolerant(convert):
        def replace(match):
            try:
                return convert(match)
            except LabFormError as err:
                if errors is None:
                    raise
                errors.append(str(err))
                return match.group(0)
        return replace

    @tolerant
    def parenthetical(match):
        items = re.findall(_ABBR % ("", ""), match.group("items"))
        if not all(SHORT_P.match(short) for short, _ in items):
            return match.group(0)  # a parenthesis of plain abbreviations
        return "{cite:p}`%s`" % ",".join(_key_of(short, full, refs, "p", lenient) for short, full in items)

    @tolerant
    def narrative(match):
        if not SHORT_T.match(match.group("short")):
            return match.group(0)  # a plain abbreviation, {abbr}`SMO (sequential minimal optimisation)`
        return "{cite:t}`%s`" % _key_of(match.group("short"), match.group("full"), refs, "t", lenient)

    def link(match):
        text, label = match.group("text"), match.group("label")
        if expected is not None:
            expected.append((label, text, "eq" if text.startswith("(") else "numref"))
        if text.startswith("("):
            return "{eq}`%s`" % label
        return "{numref}`%s %%s <%s>`" % (text.rsplit(" ", 1)[0], label)

    @tolerant
    def term(match):
        text, anchor = match.group("text"), match.group("anchor")
        known = glossary_terms()
        if anchor not in known:
            raise LabFormError(f"no term of {GLOSSARY.name} has the anchor #{anchor} (linked as {text!r})")
        return "{term}`%s`" % text if text == known[anchor] else "{term}`%s <%s>`" % (text, known[anchor])

    markdown = TERM_LINK.sub(term, markdown)
    markdown = GLUE.sub(lambda m: "{glue:text}`%s`" % (m.group("key") + (f":{m.group('fmt')}" if m.group("fmt") else "")),
                        markdown)
    markdown = CITE_P_GROUP.sub(parenthetical, markdown)
    markdown = CITE_T.sub(narrative, markdown)
    return LINK.sub(link, markdown)


# ---------------------------------------------------------------------------------------------
# Role -> Lab form (the fixer)
# ---------------------------------------------------------------------------------------------
ROLE = re.compile(r"\{(?P<role>cite:t|cite:p|cite|numref|eq|ref|doc|glue:text|term)\}`(?P<body>[^`]*)`")
_TITLED = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.S)


def _cell_source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def local_labels(notebook):
    """Labels JupyterLab resolves inside ``notebook``: targets, directive labels and equation labels."""
    labels = set()
    for cell in notebook["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        text = _cell_source(cell)
        labels |= set(re.findall(r"^\(([\w-]+)\)=\s*$", text, re.M))
        labels |= set(re.findall(r"^:label:\s*([\w-]+)", text, re.M))
        labels |= set(re.findall(r"\$\$\s*\(([\w-]+)\)", text))
    return labels


@dataclass
class Numbers:
    """What the book prints for each reference, read from the HTML build."""

    texts: dict   # (fragment, kind) -> set of texts; kind is "numref", "ref" or "eq"
    pages: dict   # fragment -> docname of the page that holds it
    titles: dict  # docname -> title

    def text(self, label, kind, prefix=None):
        fragment = f"equation-{label}" if kind == "eq" else label
        found = sorted(self.texts.get((fragment, kind), ()))
        if prefix:
            found = [t for t in found if t.startswith(prefix + " ")]
        if len(found) != 1:
            raise LabFormError(f"the HTML build has {found or 'no text'} for a {kind} to {label!r}: "
                               "build the book (make book) before --fix")
        return found[0]

    def file_of(self, label, kind, here):
        fragment = f"equation-{label}" if kind == "eq" else label
        page = self.pages.get(fragment)
        if page is None:
            raise LabFormError(f"the HTML build has no target {fragment!r}")
        return "" if page == here else f"{page}.ipynb"


_ANCHOR = re.compile(r'<a class="reference internal" href="(?P<href>[^"]*)"[^>]*>(?P<body>.*?)</a>', re.S)


_FIGURE = re.compile(r'<figure[^>]*\bid="([^"]+)"[^>]*>(?:(?!</figure>).)*?<span class="caption-number">([^<]+)</span>',
                     re.S)


def read_numbers(html_dir=HTML):
    texts, pages, titles = {}, {}, {}
    for page in sorted(Path(html_dir).glob("*.html")):
        source = page.read_text(encoding="utf-8")
        for figure, number in _FIGURE.findall(source):
            texts.setdefault((figure, "numref"), set()).add(number.strip())
        for target in re.findall(r'\bid="([^"]+)"', source):
            pages.setdefault(target, page.stem)
        for match in _ANCHOR.finditer(source):
            href, body = match.group("href"), match.group("body")
            if "#" not in href or "/" in href.split("#")[0]:
                continue
            fragment = href.split("#", 1)[1]
            kind = "numref" if "std-numref" in body else "ref" if "std-ref" in body else (
                "eq" if fragment.startswith("equation-") else None)
            if kind:
                text = html.unescape(re.sub(r"<[^>]+>", "", body)).strip()
                texts.setdefault((fragment, kind), set()).add(re.sub(r"\s+", " ", text))
    for notebook in chapters():  # a {doc} shows the document's first heading
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            heading = re.search(r"^# (.+)$", _cell_source(cell), re.M) if cell["cell_type"] == "markdown" else None
            if heading:
                titles[notebook.stem] = heading.group(1).strip()
                break
    return Numbers(texts, pages, titles)


def glue_values(notebook):
    """``{name: text/plain}`` of every value the notebook glues (myst-nb's scrapbook outputs)."""
    values = {}
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []) if cell["cell_type"] == "code" else []:
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            data = output.get("data", {})
            text = data.get("application/papermill.record/text/plain", data.get("text/plain"))
            if name and text is not None:
                values[name] = "".join(text) if isinstance(text, list) else text
    return values


def glue_lab_form(body, values, here="this notebook"):
    """``{abbr}`value (computed in this notebook: name, format spec)``` for ``{glue:text}`body```."""
    from myst_nb.core.variables import format_plain_text  # the book's own formatting of glued text

    key, _, fmt = body.partition(":")
    if "::" in body or key not in values:
        raise LabFormError(f"{here}: {{glue:text}}`{body}` names no value the notebook glues (run it first)")
    value = format_plain_text(values[key], fmt)
    if re.search(r"[()`\n]", value):
        raise LabFormError(f"{here}: glued value {key} = {value!r} has brackets or backticks: no Lab form")
    return "{abbr}`%s (computed in this notebook: %s%s)`" % (value, key, f", format {fmt}" if fmt else "")


GLUE_ROLE = re.compile(r"\{glue:text\}`(?P<body>[^`]*)`")


def refresh_glue_values(notebook, here="this notebook"):
    """Write each glued value into the notebook's markdown (Lab form), from its own stored outputs.

    Existing Lab forms get today's value; ``{glue:text}`` roles get their Lab form. True if a cell changed.
    """
    values, changed = glue_values(notebook), False

    def body_of(match):
        return match.group("key") + (f":{match.group('fmt')}" if match.group("fmt") else "")

    for cell in notebook["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        old = _cell_source(cell)
        new = GLUE.sub(lambda m: glue_lab_form(body_of(m), values, here), old)
        new = GLUE_ROLE.sub(lambda m: glue_lab_form(m.group("body"), values, here), new)
        if new != old:
            cell["source"] = new.splitlines(keepends=True) if isinstance(cell["source"], list) else new
            changed = True
    return changed


def to_lab(markdown, here, labels, numbers=None, refs=None):
    """``markdown`` with every role JupyterLab cannot render replaced by its Lab form.

    ``here`` is the notebook's docname, ``labels`` what it defines itself (:func:`local_labels`),
    ``numbers`` the book's texts (:func:`read_numbers`), needed only when a numbered role is present.
    """
    refs = bibliography() if refs is None else refs

    def cite(keys, kind):
        missing = [k for k in keys if k not in refs]
        if missing:
            raise LabFormError(f"{here}: {missing} not in references.bib")
        if kind == "t":
            if len(keys) != 1:
                raise LabFormError(f"{here}: a narrative citation names one entry: {keys}")
            ref = refs[keys[0]]
            return "{abbr}`%s (%s)`" % (ref.narrative, ref.full)
        return "(" + "; ".join("{abbr}`%s (%s)`" % (refs[k].parenthetical, refs[k].full) for k in keys) + ")"

    def replace(match):
        role, body = match.group("role"), match.group("body")
        if role == "glue:text":
            return match.group(0)  # needs the notebook's outputs: refresh_glue_values
        if role.startswith("cite"):
            keys = [k.strip() for k in body.split(",")]
            if any("{" in k for k in keys):
                raise LabFormError(f"{here}: citation prefixes/suffixes have no Lab form: {body}")
            return cite(keys, "t" if role == "cite:t" else "p")
        titled = _TITLED.match(body)
        text, label = (titled.group("text"), titled.group("target")) if titled else ("", body)
        if role == "term":
            if term_anchor(label) not in glossary_terms():
                raise LabFormError(f"{here}: {{term}}`{body}` names no term of {GLOSSARY.name}")
            return "[%s](glossary.md#%s)" % (text or label, term_anchor(label))
        if role == "doc":
            title = text or (numbers.titles.get(label) if numbers else None)
            if not title:
                raise LabFormError(f"{here}: no title for {{doc}}`{body}`: build the book before --fix")
            return "[%s](%s.ipynb)" % (title, label)
        if role in ("eq", "ref") and (label in labels or (role == "ref" and text)):
            return match.group(0)  # JupyterLab resolves it (same notebook) or shows its own text
        if numbers is None:
            raise LabFormError(f"{here}: {match.group(0)} needs the book's numbers: build the book first")
        if role == "ref":
            kind = "numref" if (label, "numref") in numbers.texts else "ref"
            if kind == "ref":
                return "{ref}`%s <%s>`" % (numbers.text(label, "ref"), label)
            role = "numref"
        prefix = text.split("%s")[0].strip() if "%s" in text else None
        shown = numbers.text(label, "eq" if role == "eq" else "numref", prefix)
        return "[%s](%s#%s)" % (shown, numbers.file_of(label, "eq" if role == "eq" else "numref", here), label)

    return ROLE.sub(replace, markdown)


def unrenderable_roles(markdown, labels):
    """Roles in ``markdown`` that JupyterLab cannot render (what ``--check`` reports)."""
    bad = []
    for match in ROLE.finditer(markdown):
        role, body = match.group("role"), match.group("body")
        titled = _TITLED.match(body)
        label = titled.group("target") if titled else body
        if role in ("eq", "ref") and (label in labels or (role == "ref" and titled)):
            continue
        bad.append(match.group(0))
    return bad


# ---------------------------------------------------------------------------------------------
# Notebooks
# ---------------------------------------------------------------------------------------------
def chapters():
    return sorted(BOOK.glob("*.ipynb"))


# ---------------------------------------------------------------------------------------------
# Chapter numbers in JupyterLab
# ---------------------------------------------------------------------------------------------
# The book numbers a chapter's equations, exercises and theorems "6.1, 6.2, ..." (every displayed
# equation: math_number_all). jupyterlab-myst numbers them "1, 2, ..." unless the notebook's frontmatter
# (a YAML block opening its first markdown cell) gives an enumerator, "6.%s"; with it the numbers a reader
# sees in JupyterLab are the book's. The book's extension removes the block before myst-nb reads the cell
# and checks the number against Sphinx's.
FRONTMATTER = re.compile(r"\A---\nnumbering:\n  enumerator: (?P<number>\d+|[A-Z])\.%s\n---\n")
APPENDIX = "appendix_"  # back-matter files named appendix_* are appendices A, B, ... in _toc.yml's order


def chapter_numbers(toc=ROOT / "_toc.yml"):
    """``{docname stem: chapter number}`` for the chapters of the numbered parts (numbers run on)."""
    import yaml

    numbers, count = {}, 0
    for part in yaml.safe_load(Path(toc).read_text(encoding="utf-8")).get("parts", []):
        for chapter in part.get("chapters", []):
            if part.get("numbered"):
                count += 1
                numbers[Path(chapter["file"]).name] = count
    return numbers


def appendix_letters(toc=ROOT / "_toc.yml"):
    """``{docname stem: letter}`` for the appendices (unnumbered files ``appendix_*``): A, B, ... in order.

    The book numbers an appendix's equations and figures (A.1), (A.2), ... (:func:`_letter_appendices`).
    """
    import yaml

    letters = {}
    for part in yaml.safe_load(Path(toc).read_text(encoding="utf-8")).get("parts", []):
        for chapter in part.get("chapters", []):
            stem = Path(chapter["file"]).name
            if not part.get("numbered") and stem.startswith(APPENDIX):
                letters[stem] = chr(ord("A") + len(letters))
    return letters


def enumerators(toc=ROOT / "_toc.yml"):
    """``{docname stem: "6" or "A"}``: what the book prints before the dot of an equation number."""
    return {**{stem: str(n) for stem, n in chapter_numbers(toc).items()}, **appendix_letters(toc)}


def equation_labels(notebook):
    """Labels of the notebook's displayed equations, in the order Sphinx numbers them.

    Sphinx numbers labelled displayed equations in document order; every displayed equation of a chapter
    carries a label (:func:`unlabelled_equations`), so the k-th label here is printed (N.k). Cells the
    book removes (tag ``remove-cell``) are skipped.
    """
    labels = []
    for cell in notebook["cells"]:
        if cell["cell_type"] != "markdown" or "remove-cell" in cell.get("metadata", {}).get("tags", []):
            continue
        labels += [m.group("label").strip()[1:-1] for m in DISPLAY_MATH.finditer(_cell_source(cell))
                   if m.group("label")]
    return labels


def equation_numbers(toc=ROOT / "_toc.yml", book=None):
    """``{label: "9.14"}``: the number the book prints for each labelled equation, from the sources.

    The build checks these against Sphinx's own numbers (``book_numbers_table`` below, tools/book_numbers.py).
    """
    book = BOOK if book is None else Path(book)
    numbers = {}
    for stem, prefix in enumerators(toc).items():
        path = book / f"{stem}.ipynb"
        if not path.exists():
            continue
        for k, label in enumerate(equation_labels(json.loads(path.read_text(encoding="utf-8"))), 1):
            if label in numbers:
                raise LabFormError(f"equation label {label!r} is used twice ({stem} and before)")
            numbers[label] = f"{prefix}.{k}"
    return numbers


_EQNO = re.compile(r'<span class="eqno">\((?P<number>[^<)]*)\)<a class="headerlink" href="#equation-(?P<label>[\w-]+)"')


def read_equation_numbers(html_dir=HTML):
    """``{label: "9.14"}`` as the HTML build prints each labelled equation (its ``eqno``)."""
    numbers = {}
    for page in sorted(Path(html_dir).glob("*.html")):
        for match in _EQNO.finditer(page.read_text(encoding="utf-8")):
            numbers[match.group("label")] = match.group("number")
    return numbers


DISPLAY_MATH = re.compile(r"\$\$(?P<body>.*?)\$\$(?P<label>[ \t]*\([\w-]+\))?", re.S)


def unlabelled_equations(markdown):
    """Displayed equations without a label: JupyterLab numbers every displayed equation, the book
    (Sphinx) only labelled ones, so an unlabelled one would shift JupyterLab's numbers off the book's."""
    return [m.group("body").strip()[:60] for m in DISPLAY_MATH.finditer(markdown) if not m.group("label")]


def _label_equations(notebook, here):
    """Give each unlabelled displayed equation a label ``<chapter>-eq-<k>`` (k after the largest in use)."""
    prefix = here.split("_", 1)[-1].replace("_", "-")
    used = [int(k) for c in notebook["cells"] if c["cell_type"] == "markdown"
            for k in re.findall(rf"\({re.escape(prefix)}-eq-(\d+)\)", _cell_source(c))]
    count = max(used, default=0)

    def label(match):
        nonlocal count
        if match.group("label"):
            return match.group(0)
        count += 1
        return f"{match.group(0)} ({prefix}-eq-{count})"

    for cell in notebook["cells"]:
        if cell["cell_type"] == "markdown" and unlabelled_equations(_cell_source(cell)):
            new = DISPLAY_MATH.sub(label, _cell_source(cell))
            cell["source"] = new.splitlines(keepends=True) if isinstance(cell["source"], list) else new


def _first_markdown(notebook):
    return next((c for c in notebook["cells"] if c["cell_type"] == "markdown"), None)


def frontmatter_problems(notebook, here, numbers=None):
    numbers = enumerators() if numbers is None else {k: str(v) for k, v in numbers.items()}
    cell = _first_markdown(notebook)
    found = FRONTMATTER.match(_cell_source(cell)) if cell else None
    wanted = numbers.get(here)
    if wanted is None:
        return ["an unnumbered chapter has a numbering frontmatter"] if found else []
    if not found:
        return [f"no numbering frontmatter (enumerator {wanted}.%s) in the first markdown cell"]
    if found.group("number") != wanted:
        return [f"numbering frontmatter says chapter {found.group('number')}, _toc.yml makes it {wanted}"]
    return []


def _fix_frontmatter(notebook, here, numbers=None):
    numbers = enumerators() if numbers is None else numbers
    cell = _first_markdown(notebook)
    if cell is None:
        return
    body = FRONTMATTER.sub("", _cell_source(cell), count=1)
    if here in numbers:
        body = f"---\nnumbering:\n  enumerator: {numbers[here]}.%s\n---\n" + body
    cell["source"] = body.splitlines(keepends=True) if isinstance(cell["source"], list) else body


# ---------------------------------------------------------------------------------------------
# Figure captions in JupyterLab
# ---------------------------------------------------------------------------------------------
# A figure's caption and label live in its code cell's metadata (mystnb.figure), which JupyterLab does
# not show. Each figure cell is therefore followed by a markdown cell with the caption, tagged
# remove-cell (so the book, which prints the caption under the figure, leaves it out).
#
# The caption is also what a "[Fig. 7.1](#fig-ev-normaliser)" link in JupyterLab goes to: it holds an
# empty HTML anchor named by the figure's label, "**Fig. 7.1** <a id="fig-ev-normaliser"></a>The ...".
# JupyterLab's sanitizer turns the id into data-jupyter-id, which is exactly what its notebook looks up
# for a URL fragment (Notebook.setFragment): a click on the link (the page's URL gets the fragment) and a
# link from another chapter ("07_evidence.ipynb#fig-ev-platt", when that chapter is open) scroll the
# caption into view. Measured in a real Lab (tests_browser/test_lab_figure_links.py): without the anchor
# the click changes the URL and nothing moves. A MyST target "(fig-...)=" would also give jupyterlab-myst
# a cross-reference, but only for links inside the same notebook (it sets an id, not data-jupyter-id)
# and it would put MyST before "**Fig. ...**". The anchor comes after the number, so the caption still
# starts with it, and the book never sees either (the cell is removed; the book's own figure has the id).
CAPTION_KEY = "lab_caption"
CAPTION = re.compile(r'^\*\*(?P<number>Fig\. [\w.]+)\*\* (?:<a id="(?P<target>[^"<>]*)"></a>)?(?P<body>.*)$', re.S)


def figure_of(cell):
    """``(label, caption)`` of a figure cell, else None."""
    figure = cell["metadata"].get("mystnb", {}).get("figure") if cell["cell_type"] == "code" else None
    return (figure["name"], figure.get("caption", "")) if figure and figure.get("name") else None


def caption_label(cell):
    return cell["metadata"].get("svmlib", {}).get(CAPTION_KEY) if cell["cell_type"] == "markdown" else None


def caption_anchor(label):
    """The empty HTML anchor a caption cell holds, which JupyterLab's figure links scroll to."""
    if not re.fullmatch(r"[A-Za-z][\w-]*", label):
        raise LabFormError(f"figure label {label!r} cannot name an HTML anchor (letters, digits, - and _ only)")
    return f'<a id="{label}"></a>'


def caption_cell(label, number, caption_lab):
    return {"cell_type": "markdown", "id": f"lab-caption-{label}"[:64],
            "metadata": {"svmlib": {CAPTION_KEY: label}, "tags": ["remove-cell"]},
            "source": f"**{number}** {caption_anchor(label)}{caption_lab}".splitlines(keepends=True)}


def _targets_only(text):
    """``text`` with every role reduced to its target: compares a caption with its Lab form."""
    def target(match):
        titled = _TITLED.match(match.group("body"))
        return "<%s>" % (titled.group("target") if titled else match.group("body"))

    return ROLE.sub(target, to_sphinx(text))


def caption_problems(notebook):
    problems, cells = [], notebook["cells"]
    for index, cell in enumerate(cells):
        figure = figure_of(cell)
        if figure:
            follower = cells[index + 1] if index + 1 < len(cells) else None
            if follower is None or caption_label(follower) != figure[0]:
                problems.append(f"cell {index}: figure {figure[0]} has no caption cell for JupyterLab")
                continue
            match = CAPTION.match(_cell_source(follower))
            if not match or _targets_only(match.group("body")) != _targets_only(figure[1]):
                problems.append(f"cell {index + 1}: the JupyterLab caption of {figure[0]} differs from its metadata")
        elif caption_label(cell) and not (index and figure_of(cells[index - 1]) and
                                          figure_of(cells[index - 1])[0] == caption_label(cell)):
            problems.append(f"cell {index}: caption cell of {caption_label(cell)} follows no such figure")
    return problems


def caption_targets(notebook):
    """Labels of the figures whose caption cell holds its anchor (what a JupyterLab link can go to)."""
    targets = set()
    for cell in notebook["cells"]:
        match = CAPTION.match(_cell_source(cell)) if caption_label(cell) else None
        if match and match.group("target") == caption_label(cell):
            targets.add(match.group("target"))
    return targets


def figure_link_problems(notebook, here, book=None):
    """Caption cells without their anchor, and "[Fig. N.M](file#label)" links whose target has none.

    ``here`` is the notebook's docname; a link to another chapter is looked up in ``book`` (the folder of
    the chapters). Without the anchor a figure link in JupyterLab changes the URL and goes nowhere.
    """
    book = BOOK if book is None else Path(book)
    problems = []
    for index, cell in enumerate(notebook["cells"]):
        label = caption_label(cell)
        match = CAPTION.match(_cell_source(cell)) if label else None
        if match and match.group("target") != label:
            problems.append(f"cell {index}: the caption of {label} has no anchor {caption_anchor(label)} "
                            "for JupyterLab's figure links")
    targets = {here: caption_targets(notebook)}
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        for link in LINK.finditer(_cell_source(cell)):
            if not link.group("text").startswith(("Fig.", "Figure")):
                continue
            stem = (link.group("file") or f"{here}.ipynb").removesuffix(".ipynb")
            if stem not in targets:
                path = book / f"{stem}.ipynb"
                targets[stem] = caption_targets(json.loads(path.read_text(encoding="utf-8"))) if path.exists() else set()
            if link.group("label") not in targets[stem]:
                problems.append(f"cell {index}: {link.group(0)} goes to no figure caption of {stem}.ipynb")
    return problems


def _fix_captions(notebook, here, labels, numbers, refs):
    """Put today's caption cell under every figure cell (fix_notebook compares the result with the file)."""
    cells, out = notebook["cells"], []
    for index, cell in enumerate(cells):
        if caption_label(cell):
            continue  # rebuilt after its figure (dropped if the figure is gone)
        out.append(cell)
        figure = figure_of(cell)
        if not figure:
            continue
        if numbers is None:
            raise LabFormError(f"{here}: figure captions need the book's numbers: build the book first")
        wanted = caption_cell(figure[0], numbers.text(figure[0], "numref"), to_lab(figure[1], here, labels, numbers, refs))
        follower = cells[index + 1] if index + 1 < len(cells) else None
        if follower is not None and caption_label(follower) == figure[0]:
            follower.update(source=wanted["source"], metadata=wanted["metadata"])  # keeps its cell id
            wanted = follower
        out.append(wanted)
    notebook["cells"] = out


def fix_notebook(path, numbers, refs=None):
    """Rewrite ``path`` into Lab form (cell sources only); True if it changed."""
    raw = Path(path).read_text(encoding="utf-8")
    notebook = json.loads(raw)
    labels = local_labels(notebook)
    here = Path(path).stem
    for cell in notebook["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        old = _cell_source(cell)
        # refresh stale Lab forms too: back to roles, then forward with today's numbers
        new = to_lab(to_sphinx(old, refs, lenient=True), here, labels, numbers, refs)
        if new != old:
            lines = new.splitlines(keepends=True)
            cell["source"] = lines if isinstance(cell["source"], list) else new
    _fix_captions(notebook, here, labels, numbers, refs)
    _fix_frontmatter(notebook, here)
    _label_equations(notebook, here)
    refresh_glue_values(notebook, here)  # the glue roles to_lab left (it has no outputs to read)
    text = json.dumps(notebook, sort_keys=True, indent=1, ensure_ascii=False) + "\n"  # as nbformat writes
    if text != raw:
        Path(path).write_text(text, encoding="utf-8")
    return text != raw


def check_notebook(path, refs=None):
    """Problems of ``path``: roles JupyterLab cannot render, Lab forms that name no bibliography entry."""
    notebook = json.loads(Path(path).read_text(encoding="utf-8"))
    labels = local_labels(notebook)
    problems = []
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        text = _cell_source(cell)
        try:
            to_sphinx(text, refs)
        except LabFormError as err:
            problems.append(f"{path.name} cell {index}: {err}")
        for role in unrenderable_roles(text, labels):
            problems.append(f"{path.name} cell {index}: {role} shows as a warning in JupyterLab")
        for equation in unlabelled_equations(text):
            problems.append(f"{path.name} cell {index}: an unlabelled displayed equation ({equation!r}) would shift "
                            "JupyterLab's equation numbers off the book's")
    problems += [f"{path.name} {p}" for p in caption_problems(notebook)]
    problems += [f"{path.name} {p}" for p in figure_link_problems(notebook, path.stem, path.parent)]
    problems += [f"{path.name}: {p}" for p in frontmatter_problems(notebook, path.stem)]
    try:
        if refresh_glue_values(notebook, path.name):
            problems.append(f"{path.name}: a glued value shown in JupyterLab differs from the stored output")
    except LabFormError as err:
        problems.append(str(err))
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--check", action="store_true", help="fail if a chapter is not in Lab form")
    group.add_argument("--fix", action="store_true", help="rewrite the chapters into Lab form")
    parser.add_argument("notebooks", nargs="*", type=Path,
                        help="only these chapters (default: all of book/*.ipynb)")
    args = parser.parse_args(argv)
    if args.fix:
        numbers = read_numbers() if HTML.is_dir() else None
        for path in [p.resolve() for p in args.notebooks] or chapters():
            if fix_notebook(path, numbers):
                print(f"rewrote {path}")
        return 0
    checked = [p.resolve() for p in args.notebooks] or chapters()
    problems = [p for path in checked for p in check_notebook(path)]
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problem(s) of the chapters as JupyterLab shows them: python book/_ext/lab_references.py "
              "--fix (after make book) writes the Lab forms and the figure captions")
        return 1
    print(f"lab references: {len(checked)} chapters, every citation, cross-reference and figure caption readable "
          "in JupyterLab, every figure link goes to its caption")
    return 0


# ---------------------------------------------------------------------------------------------
# Sphinx
# ---------------------------------------------------------------------------------------------
def _source_read(app, docname, source):
    if not str(app.env.doc2path(docname)).endswith(".ipynb"):
        return
    notebook = json.loads(source[0])
    expected = []
    errors = []
    first = _first_markdown(notebook)
    if first is not None:
        found = FRONTMATTER.match(_cell_source(first))
        if found:  # JupyterLab's numbering; myst-nb would read the YAML block as text and a heading
            first["source"] = _cell_source(first)[found.end():]
            expected.append((docname, found.group("number"), "chapter"))
    for cell in notebook["cells"]:
        if cell["cell_type"] == "markdown":
            cell["source"] = to_sphinx(_cell_source(cell), expected=expected, errors=errors)
            caption = CAPTION.match(cell["source"]) if caption_label(cell) else None
            if caption:
                expected.append((caption_label(cell), caption.group("number"), "figure"))
    if errors:
        from sphinx.util import logging

        for err in errors:
            logging.getLogger(__name__).warning(f"{err} (python book/_ext/lab_references.py --fix)",
                                                location=docname)
    app.env.lab_reference_texts = getattr(app.env, "lab_reference_texts", {})
    app.env.lab_reference_texts[docname] = expected
    source[0] = json.dumps(notebook, ensure_ascii=False)


def _check_numbers(app, doctree, docname):
    """Each Lab form's literal text equals what the book prints for the same reference."""
    from docutils import nodes
    from sphinx.util import logging

    wanted = getattr(app.env, "lab_reference_texts", {}).get(docname)
    if not wanted or app.builder.format != "html":
        return
    shown = {}
    for node in doctree.findall(nodes.reference):
        target = node.get("refuri", "") or "#" + node.get("refid", "")
        if "#" in target:
            shown.setdefault(target.split("#", 1)[1], set()).add(node.astext().strip())
    figures = app.env.toc_fignumbers.get(docname, {}).get("figure", {})
    for label, text, kind in wanted:
        if kind == "chapter":
            number = app.env.toc_secnumbers.get(docname, {}).get("") or _appendix_letter(app, docname)
            if not number or str(number[0]) != text:
                logging.getLogger(__name__).warning(
                    f"JupyterLab numbers this chapter {text}, the book {number}: "
                    "run python book/_ext/lab_references.py --fix", location=docname)
            continue
        if kind == "figure":
            number = figures.get(label)
            printed = "Fig. " + ".".join(map(str, number)) if number else None
            if printed != text:
                logging.getLogger(__name__).warning(
                    f"JupyterLab's caption reads {text!r} for {label!r}, the book prints {printed!r}: "
                    "run python book/_ext/lab_references.py --fix", location=docname)
            continue
        fragment = f"equation-{label}" if kind == "eq" else label
        if text not in shown.get(fragment, set()):
            logging.getLogger(__name__).warning(
                f"JupyterLab reads {text!r} for {label!r}, the book prints {sorted(shown.get(fragment, []))}: "
                "run python book/_ext/lab_references.py --fix", location=docname)


def _appendix_letter(app, docname):
    letters = getattr(app.env, "appendix_letters", None) or appendix_letters()
    letter = letters.get(Path(docname).name)
    return (letter,) if letter else None


def _letter_appendices(app, env):
    """Number each appendix's equations, figures, exercises ... (A.1), (A.2), ... instead of (1), (2), ...

    Sphinx numbers the enumerable nodes of an unnumbered page with one running counter; after its
    toctree collector has assigned them (``env-get-updated``, priority 500), this prefixes the appendix's
    letter and counts from 1 on each appendix. References (``{eq}``, ``{numref}``) read the same table.
    """
    env.appendix_letters = appendix_letters(Path(app.srcdir) / "_toc.yml")
    changed = []
    for docname, figtypes in env.toc_fignumbers.items():
        letter = env.appendix_letters.get(Path(docname).name)
        if not letter:
            continue
        for numbers in figtypes.values():
            for k, node_id in enumerate(sorted(numbers, key=lambda i: numbers[i]), 1):
                numbers[node_id] = (letter, k)
        changed.append(docname)
    return changed


def sphinx_equation_numbers(env):
    """``{label: "9.14"}`` as Sphinx prints each labelled equation (math domain + numfig tables)."""
    from docutils.nodes import make_id

    numbers = {}
    for label, (docname, number) in env.get_domain("math").equations.items():
        fignumbers = env.toc_fignumbers.get(docname, {}).get("displaymath", {})
        numbers[label] = ".".join(map(str, fignumbers.get(make_id(f"equation-{label}"), (number,))))
    return numbers


def _check_book_numbers(app, env):
    """svmlib/_book_numbers.py (tools/book_numbers.py --write) states the numbers Sphinx prints."""
    import importlib

    from sphinx.util import logging

    if not (Path(app.srcdir) / "svmlib" / "_book_numbers.py").exists():
        return
    table = importlib.reload(importlib.import_module("svmlib._book_numbers"))
    shown = sphinx_equation_numbers(env)
    chapters = {Path(doc).name: str(n[""][0]) for doc, n in env.toc_secnumbers.items() if n.get("")}
    stale = [f"equation {label}: table {table.EQUATIONS.get(label)}, book {number}"
             for label, number in sorted(shown.items()) if table.EQUATIONS.get(label) != number]
    stale += [f"equation {label}: in the table, not in the book" for label in sorted(set(table.EQUATIONS) - set(shown))]
    stale += [f"chapter {stem}: table {table.CHAPTERS.get(stem)}, book {number}"
              for stem, number in sorted(chapters.items()) if str(table.CHAPTERS.get(stem)) != number]
    for problem in stale:
        logging.getLogger(__name__).warning(
            f"svmlib/_book_numbers.py is stale ({problem}): run python tools/book_numbers.py --write")


def _check_term_anchors(app, env):
    """The anchors the Lab forms link to (term_anchor) are the ids Sphinx gave the glossary's terms."""
    from sphinx.util import logging

    objects = env.get_domain("std").objects
    for anchor, term in glossary_terms(Path(app.srcdir) / "book" / "glossary.md").items():
        found = objects.get(("term", term))
        if found is not None and found[1] != anchor:
            logging.getLogger(__name__).warning(
                f"glossary term {term!r} has the id {found[1]!r}, its JupyterLab links use #{anchor}: "
                "update term_anchor in book/_ext/lab_references.py")


_UNNUMBERED_LATEX = (r"\renewcommand{\theequation}{\arabic{equation}}\renewcommand{\thefigure}{\arabic{figure}}"
                     r"\renewcommand{\thetable}{\arabic{table}}")


def _letter_appendices_latex(app, doctree, docname):
    r"""The PDF numbers an appendix's equations and figures A.1, A.2, ... as the HTML does.

    Runs after pdf_edition's ``structure_for_latex`` (which resets the counters at each unnumbered
    document and numbers them plainly): redefines ``\theequation`` etc. at the appendix's start and
    restores the plain form at the next top-level document.
    """
    from docutils import nodes
    from sphinx import addnodes

    if app.builder.name != "latex":
        return
    letters = appendix_letters(Path(app.srcdir) / "_toc.yml")
    after_appendix = False
    for sof in doctree.findall(addnodes.start_of_file):
        letter = letters.get(Path(sof["docname"]).name)
        if letter:
            latex = (r"\renewcommand{\theequation}{%s.\arabic{equation}}\renewcommand{\thefigure}{%s.\arabic{figure}}"
                     r"\renewcommand{\thetable}{%s.\arabic{table}}" % (letter, letter, letter))
        elif after_appendix:
            latex = _UNNUMBERED_LATEX
        else:
            continue
        after_appendix = bool(letter)
        at = 1 if len(sof) and isinstance(sof[0], nodes.raw) else 0  # after pdf_edition's counter reset
        sof.insert(at, nodes.raw("", latex + "\n", format="latex"))


def _merge(app, env, docnames, other):
    env.lab_reference_texts = getattr(env, "lab_reference_texts", {})
    env.lab_reference_texts.update(getattr(other, "lab_reference_texts", {}))


def setup(app):
    app.connect("source-read", _source_read)
    app.connect("doctree-resolved", _check_numbers)
    app.connect("env-merge-info", _merge)
    app.connect("env-get-updated", _letter_appendices, priority=600)  # after Sphinx's toctree collector
    app.connect("env-check-consistency", _check_book_numbers)
    app.connect("env-check-consistency", _check_term_anchors)
    app.connect("doctree-resolved", _letter_appendices_latex, priority=600)  # after pdf_edition's structure
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":
    sys.exit(main())
