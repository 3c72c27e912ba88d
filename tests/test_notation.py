"""Every clash-prone symbol is used only in the meanings, and chapters, the notation appendix declares.

The appendix (``book/appendix_notation.md``) has a table "Symbols with more than one meaning": one row per
(symbol, meaning) with a key, and the chapters (file stems) that use the symbol in that meaning, or "none" for
a meaning the book has renamed away. This test recognises each meaning in a chapter's Markdown by the
pattern below (a signature of the meaning: its defining formula or its typical use) and fails when a
chapter uses a meaning the table does not declare for it, or when the table declares a use no chapter makes
(a stale row). A new clash therefore needs a row here and a row in the appendix.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
APPENDIX = BOOK / "appendix_notation.md"

#: meaning key -> a regular expression that recognises the meaning in a chapter's Markdown (LaTeX source)
PATTERNS = {
    # n: the number of training points in Sollich's chapters, the number of replicas in the replica chapter
    "n-points": r"N\(\\theta\)\^n|N\^\{?n\}?\\rangle|\{i=1\}\^n\b|\$n\$(?:-dimensional| (?:training|points|inputs|examples))"
                r"|\bn \\le \d",
    "n-replicas": r"\{a=1\}\^\{?n\b|(?<![A-Za-z])n \\to 0|J\^2 = nJ",
    # C: the SVM's constant everywhere; never a covariance (the replica chapter's sample covariance is \mathcal V)
    "C-covariance": r"(?<!\\mathcal )\bC \\otimes J|(?<!\\mathcal )\bC = -\(I",
    # J: the primal objective, the matrix of ones over replicas, a Jacobian
    "J-objective": r"J\(w, ?b\)",
    "J-ones": r"J = \\mathbf 1 ?\\mathbf 1\^\\top|\\otimes J",
    "J-jacobian": r"J = I -|Jacobian \$J\$|J\^\{-1\}",
    # D: a data set, random features, the dual of dual coordinate descent, phi/Phi, diag(Delta Lambda), input dim.
    "D-data": r"Q\(D\)|P\(D \\mid|E_D\b|f_D\b",
    "D-features": r"\$D\$ (?:random |Fourier )?features",
    "D-dual-cd": r"D\(\\alpha\)",
    "D-mills": r"D\(z|D\(\\mathbf z|D'\(z",
    "D-diag": r"D = \\(?:mathrm|operatorname)\{diag\}\(\\Delta\\Lambda\)",
    "D-input-dim": r"x[\w{}^, \\.]*\\in \\mathbb ?\{?R\}?\^\{?D\b",
    # G: the normaliser's grid size, the Newton matrix, the replica Gaussian's response, DCD's gradient, the lemma
    "G-grid": r"grid of \$G\$|\\frac1G|\\frac\{1\}\{G\}",
    "G-newton": r"G = Y\(",
    "G-replica": r"G = \(K\^\{-1\}|G = \(I \+ K",
    "G-dual-cd": r"\bG_i\b",
    "G-lssvr": r"G = \(\\Psi",
    # u: SMO's signed multipliers y_t alpha_t; the replica solver's state vector (bold)
    "u-signed": r"u_t = y_t ?\\alpha_t",
    "u-state": r"\\mathbf u(?:\^\*)? = F\(",
    "u-huber": r"u\(t\) &?= \\min",
    # z: a kernel's second input or a combination's centre; the SVR dual's signs; the cavity field
    "z-kernel-point": r"k\(x, z\)|k\(\\cdot, z_?i?\)",
    "z-svr-sign": r"z_s z_t|z_t y_",
    "z-cavity": r"z_i = y_i ?m_",
    # x_j is an input; never the replica chapter's indicator (written zeta_j)
    "x-indicator": r"x_j = \\prod|x_j\^\{s_j\}",
    # gamma is the margin; an RBF width gamma = 1/(2 l^2) is a second meaning
    "gamma-rbf": r"\\gamma = 1/\(2|\\gamma = \\frac\{?1\}?\{2",
    # vectors in bold (the book's rule: plain lower case; \mathbf 1 is allowed everywhere)
    "bold-vectors": r"\\mathbf ?\{?[a-zA-Z02-9]|\\boldsymbol",
}

ROW = re.compile(r"^\|\s*(?P<symbol>[^|]+?)\s*\|\s*`(?P<key>[\w-]+)`\s*\|\s*(?P<meaning>[^|]+?)\s*\|"
                 r"\s*(?P<chapters>[^|]+?)\s*\|\s*$", re.M)
STEM = re.compile(r"\{doc\}`[^`<]*<(?P<stem>[\w-]+)>`|\{ref\}`[^`<]*<(?P<ref>appendix-[a-z]+)>`"
                  r"|(?P<plain>\b\d\d_[a-z_]+\b|\bappendix_[a-z]+\b)")


def declared(text):
    """``{key: set of chapter stems}`` from the appendix's table of symbols with more than one meaning."""
    table = {}
    for row in ROW.finditer(text):
        chapters = row.group("chapters")
        stems = set() if chapters.strip().lower() in ("none", "—", "-") else {
            m.group("stem") or m.group("plain") or m.group("ref").replace("-", "_") for m in STEM.finditer(chapters)}
        table[row.group("key")] = stems
    return table


def markdown_of(path):
    notebook = json.loads(Path(path).read_text(encoding="utf-8"))
    return "\n".join("".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                     for c in notebook["cells"] if c["cell_type"] == "markdown")


def used(texts, patterns=PATTERNS):
    """``{key: set of stems}``: where each meaning's pattern occurs in ``texts`` (``{stem: markdown}``)."""
    return {key: {stem for stem, text in texts.items() if re.search(pattern, text)}
            for key, pattern in patterns.items()}


def problems(texts, table, patterns=PATTERNS):
    """What the appendix fails to declare (or declares but no chapter uses)."""
    out = []
    for key in patterns:
        if key not in table:
            out.append(f"meaning {key!r} has no row in the notation appendix's table of clashes")
    for key, stems in used(texts, patterns).items():
        for stem in sorted(stems - table.get(key, set())):
            out.append(f"{stem} uses {key!r}, which the notation appendix does not declare for it: rename the "
                       f"symbol or add {stem} to the row '{key}' of book/appendix_notation.md")
        for stem in sorted(table.get(key, set()) - stems):
            if stem in texts:
                out.append(f"the notation appendix declares {key!r} in {stem}, which no longer uses it")
    return out


def chapter_texts():
    return {path.stem: markdown_of(path) for path in sorted(BOOK.glob("*.ipynb"))}


def test_every_clash_is_declared():
    found = problems(chapter_texts(), declared(APPENDIX.read_text(encoding="utf-8")))
    assert not found, "\n".join(found)


def test_the_table_parses():
    table = declared(APPENDIX.read_text(encoding="utf-8"))
    assert set(table) == set(PATTERNS), set(table) ^ set(PATTERNS)
    assert table["n-replicas"] == {"09_replica_bootstrap"} and table["C-covariance"] == set()


@pytest.mark.parametrize("text, key", [
    (r"Its covariance is $\frac1\beta G \otimes I + C \otimes J$", "C-covariance"),
    (r"with $x_j = \prod_{a=1}^n \Theta(y_j f^a_j - 1)$", "x-indicator"),
    (r"solves $\mathbf u = F(\mathbf u)$ for the cavity vector", "u-state"),
    (r"Write $u_t = y_t\alpha_t$, so that", "u-signed"),
    (r"for a new point $z$, $g_\perp = k(\cdot, z) - \sum_i", "z-kernel-point"),
    (r"the linear term $\varepsilon - z_t y_{\bar t}$", "z-svr-sign"),
    (r"With $Z_i = \Phi(z_i)$ and $z_i = y_im_{\setminus i}$", "z-cavity"),
    (r"u(t) &= \min\{\max\{1 + h - t,\, 0\},\, 2h\}", "u-huber"),
    (r"the RBF kernel with $\gamma = 1/(2l^2)$", "gamma-rbf"),
    (r"weights $\boldsymbol\alpha$", "bold-vectors"),
])
def test_an_undeclared_use_fails(text, key):
    # a chapter that the table does not declare for the meaning: the check must name it
    table = declared(APPENDIX.read_text(encoding="utf-8"))
    texts = {"01_maximum_margin": text}
    assert "01_maximum_margin" not in table[key]
    found = problems(texts, table)
    assert any(p.startswith(f"01_maximum_margin uses {key!r}") for p in found), found


def test_declared_but_unused_fails():
    table = {key: set() for key in PATTERNS}
    table["J-ones"] = {"01_maximum_margin"}
    found = problems({"01_maximum_margin": "no symbols here"}, table)
    assert found == ["the notation appendix declares 'J-ones' in 01_maximum_margin, which no longer uses it"]


def test_a_missing_row_fails():
    table = {key: set() for key in PATTERNS if key != "G-grid"}
    assert "meaning 'G-grid' has no row in the notation appendix's table of clashes" in problems({}, table)


def test_renamed_meanings_stay_renamed():
    # the replica chapter's covariance is \mathcal V and its indicator zeta_j: the patterns do not match those
    texts = {"09_replica_bootstrap": r"$\frac1\beta G \otimes I + \mathcal V \otimes J$, $\zeta_j = \prod_a$"}
    assert used(texts)["C-covariance"] == set() and used(texts)["x-indicator"] == set()
