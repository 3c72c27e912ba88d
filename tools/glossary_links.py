"""Each chapter links the first use of every glossary term to the term's entry.

The glossary (``book/glossary.md``) promises: "In the chapters, the first use of a term in this list links
here". A chapter stores the link in its JupyterLab form, ``[text](glossary.md#term-...)``, which the book's
build turns back into ``{term}`` (``book/_ext/lab_references.py``).

``python tools/glossary_links.py --check`` lists every term a chapter uses before its first link to it;
``--fix`` links that first use. A *use* is an occurrence in the running text: headings, code, mathematics,
citations and glued values, directive options and the texts of other links are not read (a heading is not
linked, and a term inside a citation's title is not the book using it). Words of a term that carry
another meaning (``selection bias``, ``support vector machine``) are listed in ``OTHER_MEANINGS``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
sys.path.insert(0, str(BOOK / "_ext"))
from lab_references import TERM_LINK, _cell_source, glossary_terms  # noqa: E402

CHAPTERS = sorted(BOOK.glob("[0-9][0-9]_*.ipynb")) + [BOOK / "appendix_toolkit.ipynb"]

#: term -> a pattern of phrases in which the term's words mean something else (they are not uses)
OTHER_MEANINGS = {
    # an estimator's systematic error, not the offset b of the decision function
    "bias": r"selection bias|(?:but|is|not) a bias\b|biased|unbiased|(?:size|sign) of the bias"
            r"|the bias could be (?:larger|smaller)",
    # the names of the methods: a support vector is a training point, a support vector machine the classifier
    "support vector": r"support\s+vector\s+(?:machines?|regression|classifiers?)|least-squares\s+support\s+vector",
    # other methods and bounds whose names contain a term
    "kernel": r"kernel ridge regression",
    "evidence": r"evidence lower bound",
}

#: term -> the chapters in which its word carries the glossary's meaning (elsewhere it means something else)
TERM_SCOPE = {
    # the glossary's normaliser is the evidence chapter's <N^n>; elsewhere a normaliser is any normalising
    # constant (of a tilted distribution in the mean-field chapter, of the replicated model in the replica
    # chapter, in the toolkit)
    "normaliser": ("06_gp_prior", "07_evidence"),
}

# spans that are not running text (replaced by filler of the same length, so positions stay the raw text's)
_NOT_PROSE = [
    re.compile(r"\A---\n.*?\n---\n", re.S),              # numbering frontmatter
    re.compile(r"^%.*$", re.M),                           # MyST comments
    re.compile(r"^#{1,6} .*$", re.M),                     # headings
    re.compile(r"^\(.*?\)=$", re.M),                      # labels
    re.compile(r"^```+\{code[^\n]*\n.*?^```+ *$", re.S | re.M),   # code blocks
    re.compile(r"^```+(?!\{)[^\n]*\n.*?^```+ *$", re.S | re.M),  # plain fences
    re.compile(r"^```+\{[^\n]*$", re.M),                  # directive fence lines (their bodies are prose)
    re.compile(r"^```+ *$", re.M),
    re.compile(r"^:[\w-]+:.*$", re.M),                    # directive options
    re.compile(r"\$\$.*?\$\$", re.S),                     # display mathematics
    re.compile(r"(?<!\\)\$[^$\n]*?(?<!\\)\$"),            # inline mathematics
    re.compile(r"\{abbr\}`[^`]*`"),                       # citations and glued values
    re.compile(r"\{(?:glue:text|cite:p|cite:t|numref|ref|doc|eq|math|py:\w+)\}`[^`]*`"),
    re.compile(r"(?<!\})`[^`\n]*`"),                      # inline code
    re.compile(r"\[[^\]\n]*\]\((?!glossary\.md#)[^)\n]*\)"),     # other links, with their texts
    re.compile(r"<[^>\n]*>"),                             # HTML tags
]


_INDEX_ROLE = re.compile(r"\{index\}`(?P<text>[^`<]*?)(?P<target>\s*<(?P<entry>[^>`]*)>)?`")


def _index_role_text(match):
    fill = "\x01"
    return fill * len("{index}`") + match["text"] + fill * (len(match["target"] or "") + 1)


def _mask(text, pattern, fill="\x01"):
    return pattern.sub(lambda m: fill * len(m.group()), text)


def _term_pattern(term):
    words = [re.escape(w) for w in re.split(r"[\s-]+", term.replace("\u2013", "-"))]
    return re.compile(r"(?<![\w-])" + r"[\s-]+".join(words) + r"(?:s|es)?(?![\w-])", re.I)


def _longer_terms(term, terms):
    """Other glossary terms that contain ``term`` (a use of "RBF kernel" is not a use of "kernel")."""
    pattern = _term_pattern(term)
    return [other for other in terms if other != term and pattern.search(other)]


def markdown_cells(notebook):
    """(index, source) of the cells a reader reads (the JupyterLab caption copies are left out)."""
    return [(i, _cell_source(c)) for i, c in enumerate(notebook["cells"])
            if c["cell_type"] == "markdown" and "remove-cell" not in c.get("metadata", {}).get("tags", [])]


def first_uses(notebook, stem=None):
    """term -> (cell index, start, end, linked) of the term's first use or link in the notebook's prose.

    ``stem`` (the notebook's file stem) leaves out the terms ``TERM_SCOPE`` does not give this chapter.
    """
    result = {term: None for term, stems in TERM_SCOPE.items() if stem is not None and stem not in stems}
    for index, source in markdown_cells(notebook):
        links = {m.start(): m["anchor"] for m in TERM_LINK.finditer(source)}
        masked = _mask(source, TERM_LINK)
        masked = _INDEX_ROLE.sub(_index_role_text, masked)  # an index role's text is prose, its target not
        for pattern in _NOT_PROSE:
            masked = _mask(masked, pattern)
        terms = glossary_terms()
        for anchor, term in terms.items():
            if term in result:
                continue
            text = masked
            for longer in _longer_terms(term, terms.values()):
                text = _mask(text, _term_pattern(longer))
            if term in OTHER_MEANINGS:
                text = _mask(text, re.compile(OTHER_MEANINGS[term], re.I))
            use = _term_pattern(term).search(text)
            link = min((pos for pos, a in links.items() if a == anchor), default=None)
            if link is not None and (use is None or link <= use.start()):
                result[term] = (index, link, link, True)
            elif use is not None:
                result[term] = (index, use.start(), use.end(), False)
    return {term: use for term, use in result.items() if use is not None}


def unlinked(path):
    """(term, context) for every term the chapter uses before linking it."""
    notebook = json.loads(Path(path).read_text(encoding="utf-8"))
    sources = dict(markdown_cells(notebook))
    found = []
    for term, (index, start, end, linked) in first_uses(notebook, Path(path).stem).items():
        if not linked:
            context = re.sub(r"\s+", " ", sources[index][max(0, start - 50):end + 30])
            found.append((term, context))
    return found


_WORD_BEFORE = re.compile(r"(?P<word>[\w'-]+)(?P<space>\s+)$")


def _link(source, start, end, target):
    """``source`` with its text from ``start`` to ``end`` linked to ``target``.

    A use inside an ``{index}`` role keeps its index entry: the entry moves to the word before it
    (``the {index}`kernel trick``` becomes ``{index}`the <kernel trick>` [kernel trick](...)``), which
    the book and jupyterlab-myst both show as plain text with the index target in place.
    """
    for role in _INDEX_ROLE.finditer(source):
        if role.start() <= start < role.end():
            before = _WORD_BEFORE.search(source[:role.start()])
            if before is None:
                raise ValueError(f"cannot carry the index entry of {role.group()!r}: no word before it")
            entry = role["entry"] or role["text"]
            carried = "{index}`%s <%s>`%s" % (before["word"], entry, before["space"])
            text = re.sub(r"\s+", " ", role["text"])
            return f"{source[:before.start()]}{carried}[{text}]({target}){source[role.end():]}"
    text = re.sub(r"\s+", " ", source[start:end])  # a Lab-form link is one line (lab_references.TERM_LINK)
    return f"{source[:start]}[{text}]({target}){source[end:]}"


def fix(path):
    """Link the first use of every unlinked term in ``path``; returns the terms linked."""
    from lab_references import term_anchor

    import nbformat

    path = Path(path)
    notebook = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    edits = sorted(((index, start, end, term) for term, (index, start, end, linked)
                    in first_uses(notebook, path.stem).items() if not linked), reverse=True)
    for index, start, end, term in edits:
        cell = notebook["cells"][index]
        cell["source"] = _link(cell["source"], start, end, f"glossary.md#{term_anchor(term)}")
    if edits:
        nbformat.write(notebook, path)
    return [term for *_, term in edits]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="fail if a chapter uses a term before linking it")
    mode.add_argument("--fix", action="store_true", help="link each such first use")
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every chapter and the toolkit")
    args = parser.parse_args(argv)
    failed = False
    for path in args.notebooks or CHAPTERS:
        if args.fix:
            for term in fix(path):
                print(f"{path.name}: linked {term!r}")
        for term, context in unlinked(path):
            failed = True
            print(f"{path.name}: first use of {term!r} has no glossary link: ...{context}...")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
