"""Sphinx glue for the API reference pages (book/reference): loaded through _config.yml.

svmlib's docstrings are numpydoc, written to be read as plain text too: ``|x - y|`` for an
absolute value, ``n_iter_`` for a fitted attribute. In reStructuredText those are a substitution
and a hyperlink reference, and the strict build (-W) fails on them. After napoleon has turned a
docstring into reST, :func:`escape_plain_text` escapes ``|`` and a trailing ``_`` in running
text only -- never inside inline literals, roles (``:math:`...```), math or literal blocks, or
doctest examples -- so such docstrings render as written. It also skips the ``set_*_request``
methods scikit-learn adds to every estimator (their docstrings link into sklearn's own docs).
"""

from __future__ import annotations

import re

# inline literal, role with content (``:math:`a|b```), or interpreted text / reference already marked up
_PROTECTED = re.compile(r"``.+?``|(?::[\w:+.-]+:)?`[^`]+`_{0,2}")
_TRAILING_UNDERSCORE = re.compile(r"(?<=\w)_(?=$|[\s.,;:!?)\]'\"])")
_BLOCK_START = re.compile(r"^\s*\.\. (math|code-block|code|highlight|plot|doctest)::|::\s*$")


def _escape_text(text):
    out, pos = [], 0
    for match in _PROTECTED.finditer(text):
        out.append(_escape_plain(text[pos:match.start()]))
        out.append(match.group(0))
        pos = match.end()
    out.append(_escape_plain(text[pos:]))
    return "".join(out)


def _escape_plain(text):
    text = re.sub(r"(?<!\\)\|", r"\\|", text)
    return _TRAILING_UNDERSCORE.sub(r"\\_", text)


def escape_plain_text(lines):
    """Escape reST markup characters meant as plain text in running text (in place)."""
    block_indent = None  # inside a literal/math block: its directive's indentation
    in_doctest = False
    for k, line in enumerate(lines):
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if block_indent is not None:
            if stripped and indent <= block_indent:
                block_indent = None
            else:
                continue
        if stripped.startswith(">>>"):
            in_doctest = True
        if in_doctest:
            if not stripped:
                in_doctest = False
            continue
        if _BLOCK_START.search(line):
            lines[k] = _escape_text(line) if not line.lstrip().startswith("..") else line
            block_indent = indent
            continue
        if stripped.startswith(".. ") or stripped.startswith(":"):  # directives and field names
            if stripped.startswith(":") and re.match(r"^:[^:]+:", stripped):
                head = re.match(r"^\s*:[^:]+:", line).group(0)
                lines[k] = head + _escape_text(line[len(head):])
            continue
        lines[k] = _escape_text(line)


def _process_docstring(app, what, name, obj, options, lines):
    escape_plain_text(lines)


def _skip_member(app, what, name, obj, skip, options):
    if re.fullmatch(r"set_\w+_request", name):
        return True
    return None


def _subject_index_only(app, doctree):
    """Keep autodoc's entries (book/reference/*) out of the general index: it is the book's subject index;
    svmlib's objects are listed by the API reference pages and the Python module index.

    The index domain collects a document's entries in the SphinxDomains transform (priority 850), before
    doctree-read (880): emptying this document's list removes them from genindex and the PDF's index,
    while the Python domain's objects (the cross-reference targets) stay.
    """
    if app.env.docname.startswith("book/reference/"):
        app.env.get_domain("index").entries[app.env.docname] = []


def setup(app):
    app.connect("autodoc-process-docstring", _process_docstring, priority=900)
    app.connect("doctree-read", _subject_index_only)
    app.connect("autodoc-skip-member", _skip_member)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
