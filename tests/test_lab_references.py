"""The chapters' JupyterLab forms of citations and cross-references (book/_ext/lab_references.py).

The book builds from roles; the notebooks store forms jupyterlab-myst renders as text. These tests pin
both directions and the checks that keep the literal numbers honest (the build compares each number
with Sphinx's, see the extension).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "book" / "_ext"))
import lab_references as lr  # noqa: E402


@pytest.fixture(scope="module")
def refs():
    return lr.bibliography()


def test_every_chapter_is_in_lab_form():
    problems = [p for path in lr.chapters() for p in lr.check_notebook(path)]
    assert not problems, "\n".join(problems)


def test_short_forms_follow_the_author_count(refs):
    assert refs["sollich2002bayesian"].narrative == "Sollich (2002)"
    assert refs["rasmussen2006gaussian"].parenthetical == "Rasmussen and Williams, 2006"
    assert refs["dembo1982inexact"].narrative == "Dembo et al. (1982)"
    assert refs["scholkopf2002learning"].narrative.startswith("Schölkopf")  # LaTeX accents decoded


def test_full_reference_has_no_round_brackets(refs):
    """MyST's abbr role takes the last "(...)" as the explanation: one inside would cut it short."""
    for ref in refs.values():
        assert "(" not in ref.full and ")" not in ref.full and "`" not in ref.full, ref.key


def test_citations_round_trip(refs):
    text = ("{cite:t}`sollich2002bayesian` shows it ({cite:p}`suykens1999least,mesquita2021lssvr` agree); "
            "so does {cite:p}`neal2001annealed`.")
    lab = lr.to_lab(text, "x", set(), None, refs)
    assert "{cite" not in lab and lab.count("{abbr}") == 4
    assert lab.startswith("{abbr}`Sollich (2002) (Peter Sollich. Bayesian methods")
    assert "({abbr}`Suykens and Vandewalle, 1999 (" in lab
    assert lr.to_sphinx(lab, refs) == text


def test_numbered_lab_forms_become_roles_and_report_their_text():
    expected = []
    text = ("see [(3.4)](03_duality_smo.ipynb#smo-stationarity), [Chapter 7](07_evidence.ipynb#ch-evidence), "
            "[Fig. 1.1](#fig-margin-scan) and [Exercise 6.2](06_gp_prior.ipynb#ex-gp-prior-2); "
            "[a plain link](https://example.org#x) and [Chapter 2 notes](notes.md) stay links")
    out = lr.to_sphinx(text, expected=expected)
    assert out == ("see {eq}`smo-stationarity`, {numref}`Chapter %s <ch-evidence>`, {numref}`Fig. %s <fig-margin-scan>` "
                   "and {numref}`Exercise %s <ex-gp-prior-2>`; "
                   "[a plain link](https://example.org#x) and [Chapter 2 notes](notes.md) stay links")
    assert expected == [("smo-stationarity", "(3.4)", "eq"), ("ch-evidence", "Chapter 7", "numref"),
                        ("fig-margin-scan", "Fig. 1.1", "numref"), ("ex-gp-prior-2", "Exercise 6.2", "numref")]


def test_a_stale_or_unknown_citation_is_an_error(refs):
    good = lr.to_lab("{cite:t}`sollich2002bayesian`", "x", set(), None, refs)
    with pytest.raises(lr.LabFormError, match="references.bib gives 'Sollich \\(2002\\)'"):
        lr.to_sphinx(good.replace("Sollich (2002) (", "Solich (2002) ("), refs)
    with pytest.raises(lr.LabFormError, match="no entry of references.bib"):
        lr.to_sphinx("{abbr}`Nobody (1999) (Nobody. A paper that does not exist, 1999.)`", refs)
    errors = []
    assert lr.to_sphinx("{abbr}`Nobody (1999) (Nobody. Nothing, 1999.)`", refs, errors=errors).startswith("{abbr}")
    assert errors and "no entry" in errors[0]
    with pytest.raises(lr.LabFormError, match="not in references.bib"):
        lr.to_lab("{cite:p}`nosuchkey2000`", "x", set(), None, refs)


def test_a_plain_abbreviation_is_left_alone(refs):
    text = "{abbr}`SMO (sequential minimal optimisation)`"
    assert lr.to_sphinx(text, refs) == text  # "SMO" is not a citation's short form: no error, no change


def test_roles_jupyterlab_resolves_stay_roles():
    labels = {"dual-objective", "sec-here"}
    text = "{eq}`dual-objective`, {ref}`sec-here`, {ref}`the notation <appendix-notation>`"
    assert lr.unrenderable_roles(text, labels) == []
    assert lr.to_lab(text, "x", labels, None) == text
    assert lr.unrenderable_roles("{eq}`elsewhere` {numref}`fig-a` {cite:t}`k`", labels) == [
        "{eq}`elsewhere`", "{numref}`fig-a`", "{cite:t}`k`"]


def test_local_labels_are_what_the_notebook_defines():
    notebook = {"cells": [{"cell_type": "markdown", "source": "(ch-x)=\n# T\n\n$$ a $$ (eq-a)\n"},
                          {"cell_type": "markdown", "source": ["```{exercise} t\n", ":label: ex-x-1\n", "```"]},
                          {"cell_type": "code", "source": "(not-a-label)=\n"}]}
    assert lr.local_labels(notebook) == {"ch-x", "eq-a", "ex-x-1"}


def test_numbers_from_an_html_build(tmp_path):
    (tmp_path / "a.html").write_text(
        '<section id="ch-a"><h1>A</h1><div id="equation-e1"></div>'
        '<a class="reference internal" href="#equation-e1">(1.1)</a>'
        '<a class="reference internal" href="b.html#fig-b"><span class="std std-numref">Fig. 2.1</span></a>'
        '<a class="reference internal" href="b.html#sec-b"><span class="std std-ref">A section</span></a></section>')
    (tmp_path / "b.html").write_text('<figure id="fig-b"></figure><section id="sec-b"></section>')
    numbers = lr.read_numbers(tmp_path)
    assert numbers.text("e1", "eq") == "(1.1)" and numbers.text("fig-b", "numref") == "Fig. 2.1"
    assert numbers.file_of("fig-b", "numref", "a") == "b.ipynb" and numbers.file_of("e1", "eq", "a") == ""
    out = lr.to_lab("{eq}`e1` {numref}`fig-b` {ref}`sec-b`", "a", set(), numbers)
    assert out == "[(1.1)](#e1) [Fig. 2.1](b.ipynb#fig-b) {ref}`A section <sec-b>`"
    with pytest.raises(lr.LabFormError, match="build the book"):
        numbers.text("nowhere", "numref")


@pytest.mark.parametrize("chapter", ["01_maximum_margin", "06_gp_prior", "10_lssvr"])
def test_fix_is_idempotent_on_the_stored_chapters(tmp_path, chapter):
    """--fix on a chapter already in Lab form changes nothing: the Lab forms map back to roles and forward
    to the same text (given the numbers they state, as an HTML build would give them)."""
    path = tmp_path / f"{chapter}.ipynb"
    path.write_text((ROOT / "book" / path.name).read_text(encoding="utf-8"), encoding="utf-8")
    notebook = json.loads(path.read_text(encoding="utf-8"))
    numbers = lr.Numbers({}, {}, {})
    for cell in notebook["cells"]:
        source = lr._cell_source(cell)
        if cell["cell_type"] != "markdown":
            continue
        for link in lr.LINK.finditer(source):
            kind = "eq" if link.group("text").startswith("(") else "numref"
            fragment = f"equation-{link.group('label')}" if kind == "eq" else link.group("label")
            numbers.texts[(fragment, kind)] = {link.group("text")}
            numbers.pages[fragment] = (link.group("file") or path.name).removesuffix(".ipynb")
        caption = lr.CAPTION.match(source) if lr.caption_label(cell) else None
        if caption:
            numbers.texts[(lr.caption_label(cell), "numref")] = {caption.group("number")}
    before = path.read_text(encoding="utf-8")
    assert lr.fix_notebook(path, numbers) is False
    assert path.read_text(encoding="utf-8") == before


def _figure_notebook(caption_source=None, label="fig-a"):
    figure = {"cell_type": "code", "source": "plt.show()", "outputs": [],
              "metadata": {"mystnb": {"figure": {"name": "fig-a", "caption": "A curve of {eq}`e-1`."}}}}
    cells = [figure]
    if caption_source is not None:
        cells.append(lr.caption_cell(label, "Fig. 2.1", "") | {"source": caption_source})
    return {"cells": cells}


def test_every_figure_has_its_caption_for_jupyterlab():
    assert lr.caption_problems(_figure_notebook("**Fig. 2.1** A curve of {eq}`e-1`.")) == []
    assert lr.caption_problems(_figure_notebook("**Fig. 2.1** A curve of [(2.1)](#e-1).")) == []
    assert "no caption cell" in lr.caption_problems(_figure_notebook())[0]
    assert "differs from its metadata" in lr.caption_problems(_figure_notebook("**Fig. 2.1** Another curve."))[0]
    assert "differs" in lr.caption_problems(_figure_notebook("A curve of {eq}`e-1`."))[0]  # no number
    orphan = {"cells": [lr.caption_cell("fig-gone", "Fig. 1.1", "x")]}
    assert "follows no such figure" in lr.caption_problems(orphan)[0]


def test_caption_cells_are_left_out_of_the_book():
    cell = lr.caption_cell("fig-a", "Fig. 2.1", "A caption.")
    assert cell["metadata"]["tags"] == ["remove-cell"] and lr.caption_label(cell) == "fig-a"
    assert lr.CAPTION.match("".join(cell["source"])).group("number") == "Fig. 2.1"


def test_numbered_chapters_carry_their_number_for_jupyterlab():
    numbers = lr.chapter_numbers()
    assert numbers["01_maximum_margin"] == 1 and numbers["06_gp_prior"] == 6  # file numbers are chapter numbers
    assert "00_preface" not in numbers and "appendix_toolkit" not in numbers
    good = {"cells": [{"cell_type": "code", "source": "x"},
                      {"cell_type": "markdown", "source": "---\nnumbering:\n  enumerator: 6.%s\n---\n# T\n"}]}
    assert lr.frontmatter_problems(good, "06_gp_prior") == []
    stale = {"cells": [{"cell_type": "markdown", "source": "---\nnumbering:\n  enumerator: 5.%s\n---\n# T\n"}]}
    assert "_toc.yml makes it 6" in lr.frontmatter_problems(stale, "06_gp_prior")[0]
    assert "no numbering frontmatter" in lr.frontmatter_problems({"cells": [{"cell_type": "markdown", "source": "# T"}]},
                                                                 "06_gp_prior")[0]
    assert "unnumbered" in lr.frontmatter_problems(good, "00_preface")[0]
    fixed = {"cells": [{"cell_type": "markdown", "source": ["# T\n"]}]}
    lr._fix_frontmatter(fixed, "07_evidence")
    assert "".join(fixed["cells"][0]["source"]) == "---\nnumbering:\n  enumerator: 7.%s\n---\n# T\n"


def test_appendices_are_lettered_for_jupyterlab_and_the_book():
    assert lr.appendix_letters()["appendix_toolkit"] == "A"
    assert lr.enumerators()["appendix_toolkit"] == "A" and lr.enumerators()["09_replica_bootstrap"] == "9"
    good = {"cells": [{"cell_type": "markdown", "source": "---\nnumbering:\n  enumerator: A.%s\n---\n# T\n"}]}
    assert lr.frontmatter_problems(good, "appendix_toolkit") == []
    wrong = {"cells": [{"cell_type": "markdown", "source": "---\nnumbering:\n  enumerator: B.%s\n---\n# T\n"}]}
    assert "_toc.yml makes it A" in lr.frontmatter_problems(wrong, "appendix_toolkit")[0]
    fixed = {"cells": [{"cell_type": "markdown", "source": "# T\n"}]}
    lr._fix_frontmatter(fixed, "appendix_toolkit")
    assert fixed["cells"][0]["source"] == "---\nnumbering:\n  enumerator: A.%s\n---\n# T\n"


def test_the_book_numbers_an_appendix_a1_a2(tmp_path):
    """Sphinx numbers an unnumbered page 1, 2, ... (one counter for all of them); the extension makes the
    appendix's numbers (A.1), (A.2), ... and leaves chapters and other pages alone."""
    from types import SimpleNamespace

    (tmp_path / "_toc.yml").write_text((ROOT / "_toc.yml").read_text(encoding="utf-8"), encoding="utf-8")
    env = SimpleNamespace(toc_fignumbers={
        "book/appendix_toolkit": {"displaymath": {"equation-b": (15,), "equation-a": (14,)}, "figure": {"f": (3,)}},
        "book/09_replica_bootstrap": {"displaymath": {"equation-c": (9, 1)}},
        "book/glossary": {"displaymath": {"equation-d": (16,)}}})
    changed = lr._letter_appendices(SimpleNamespace(srcdir=str(tmp_path)), env)
    assert changed == ["book/appendix_toolkit"]
    assert env.toc_fignumbers["book/appendix_toolkit"] == {"displaymath": {"equation-a": ("A", 1), "equation-b": ("A", 2)},
                                                            "figure": {"f": ("A", 1)}}
    assert env.toc_fignumbers["book/09_replica_bootstrap"]["displaymath"]["equation-c"] == (9, 1)
    assert env.toc_fignumbers["book/glossary"]["displaymath"]["equation-d"] == (16,)


def test_equation_numbers_from_the_sources_and_from_a_build(tmp_path):
    numbers = lr.equation_numbers()
    assert numbers["margin-hyperplane"] == "1.1" and numbers["tk-woodbury"].startswith("A.")
    (tmp_path / "page.html").write_text('<span class="eqno">(A.14)<a class="headerlink" href="#equation-tk-woodbury" '
                                        'title="Link to this equation">#</a></span>', encoding="utf-8")
    assert lr.read_equation_numbers(tmp_path) == {"tk-woodbury": "A.14"}
    labels = lr.equation_labels({"cells": [
        {"cell_type": "markdown", "metadata": {}, "source": "$$ a $$ (one)\n\n$$\nb\n$$ (two)"},
        {"cell_type": "markdown", "metadata": {"tags": ["remove-cell"]}, "source": "$$ c $$ (hidden)"},
        {"cell_type": "code", "metadata": {}, "source": "# $$ d $$ (code)"}]})
    assert labels == ["one", "two"]


def test_every_displayed_equation_gets_a_label():
    text = "$$\na = b\n$$ (eq-a)\n\n$$\nc = d\n$$\n\nand $$x$$ inline-display"
    assert lr.unlabelled_equations(text) == ["c = d", "x"]
    notebook = {"cells": [{"cell_type": "markdown", "source": text},
                          {"cell_type": "markdown", "source": "$$\ne\n$$ (evidence-eq-4)"}]}
    lr._label_equations(notebook, "07_evidence")
    assert lr.unlabelled_equations(notebook["cells"][0]["source"]) == []
    assert "$$\nc = d\n$$ (evidence-eq-5)" in notebook["cells"][0]["source"]  # after the largest in use


def test_fix_follows_an_edited_bibliography_entry(refs):
    """An entry edited in references.bib leaves stale Lab forms: --fix finds them by their short form."""
    stale = "{abbr}`Sollich (2002) (P. Sollich. An older rendering of the entry, 2002.)`"
    with pytest.raises(lr.LabFormError, match="no entry"):
        lr.to_sphinx(stale, refs)  # the check and the build refuse it
    assert lr.to_sphinx(stale, refs, lenient=True) == "{cite:t}`sollich2002bayesian`"
    ambiguous = "{abbr}`Opper and Winther (2000) (an older rendering)`"  # two entries read like this
    with pytest.raises(lr.LabFormError):
        lr.to_sphinx(ambiguous, refs, lenient=True)


# --- glossary terms ---------------------------------------------------------------------------
def test_glossary_terms_round_trip():
    text = ("the {term}`support vectors <support vector>` and the {term}`hinge loss`, "
            "{term}`Kullback-Leibler divergence <Kullback–Leibler divergence>`")
    lab = lr.to_lab(text, "01_maximum_margin", set())
    assert lab == ("the [support vectors](glossary.md#term-support-vector) and the "
                   "[hinge loss](glossary.md#term-hinge-loss), "
                   "[Kullback-Leibler divergence](glossary.md#term-KullbackLeibler-divergence)")
    assert lr.to_sphinx(lab) == text
    assert lr.unrenderable_roles(text, set()) == ["{term}`support vectors <support vector>`", "{term}`hinge loss`",
                                                  "{term}`Kullback-Leibler divergence <Kullback–Leibler divergence>`"]
    assert lr.unrenderable_roles(lab, set()) == []


def test_an_unknown_glossary_term_is_an_error():
    with pytest.raises(lr.LabFormError, match="names no term"):
        lr.to_lab("{term}`no such term`", "01_maximum_margin", set())
    with pytest.raises(lr.LabFormError, match="no term of glossary.md has the anchor"):
        lr.to_sphinx("[a margin](glossary.md#term-no-such-term)")


def test_glossary_anchors_are_the_ids_sphinx_gives_the_terms():
    """Every term's Lab anchor is the id Sphinx's glossary directive gives it (sphinx.domains.std.make_glossary_term
    calls make_id(env, document, 'term', text); the build also compares with the ids it wrote)."""
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser
    from docutils.utils import new_document
    from sphinx.util.nodes import make_id

    terms = lr.glossary_terms()
    assert len(terms) >= 40 and "Kullback–Leibler divergence" in terms.values()
    for anchor, term in terms.items():
        document = new_document("glossary", get_default_settings(Parser))
        assert make_id(None, document, "term", term) == anchor, term
