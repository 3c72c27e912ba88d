"""Every chapter links the first use of each glossary term to its entry, as the glossary promises
(``tools/glossary_links.py``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from glossary_links import CHAPTERS, fix, unlinked  # noqa: E402


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_first_use_of_each_glossary_term_links_to_it(path):
    missing = unlinked(path)
    assert not missing, f"{path.name}: first use without a glossary link (tools/glossary_links.py --fix):\n" + "\n".join(
        f"  {term!r}: ...{context}..." for term, context in missing)


def _notebook(tmp_path, text):
    nb = {"cells": [{"cell_type": "markdown", "id": "a", "metadata": {}, "source": text}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "99_x.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def _source(path):
    source = json.loads(path.read_text())["cells"][0]["source"]
    return source if isinstance(source, str) else "".join(source)


def test_a_use_before_the_link_is_found_and_fixed(tmp_path):
    path = _notebook(tmp_path, "# Hinge loss\n\nThe hinge losses $\\text{hinge loss}$ are convex.\n"
                               "Later the [hinge loss](glossary.md#term-hinge-loss) returns.")
    assert [term for term, _ in unlinked(path)] == ["hinge loss"]
    assert fix(path) == ["hinge loss"]
    text = _source(path)
    # the heading and the mathematics are not uses; the first use in the text is linked, the later link stays
    assert text.startswith("# Hinge loss\n\nThe [hinge losses](glossary.md#term-hinge-loss) $\\text{hinge loss}$")
    assert unlinked(path) == []


def test_citations_links_and_other_meanings_are_not_uses(tmp_path):
    path = _notebook(tmp_path, "{abbr}`Vapnik (1995) (Support vector networks)` showed a selection bias;\n"
                               "see [the support vector machine](01_maximum_margin.ipynb) and `hinge loss`.")
    assert unlinked(path) == []


def test_a_use_inside_an_index_role_keeps_its_index_entry(tmp_path):
    path = _notebook(tmp_path, "Optimisers use the {index}`kernel trick <kernel trick; dual>` widely.")
    assert fix(path) == ["kernel trick"]
    text = _source(path)
    assert text == ("Optimisers use {index}`the <kernel trick; dual>` "
                    "[kernel trick](glossary.md#term-kernel-trick) widely.")
    assert unlinked(path) == []


def test_a_longer_term_is_not_a_use_of_the_shorter(tmp_path):
    path = _notebook(tmp_path, "The [RBF kernel](glossary.md#term-RBF-kernel) is smooth.")
    assert unlinked(path) == []


def test_a_use_broken_over_two_lines_becomes_a_one_line_link(tmp_path):
    path = _notebook(tmp_path, "By the implicit function\ntheorem it follows.")
    assert fix(path) == ["implicit-function theorem"]
    text = _source(path)
    assert "[implicit function theorem](glossary.md#term-implicit-function-theorem)" in text
    assert unlinked(path) == []


def test_a_term_is_checked_only_in_the_chapters_where_it_has_its_meaning(tmp_path):
    text = "The tilted distribution's normaliser is closed-form."
    path = _notebook(tmp_path, text)  # 99_x: not a chapter of the evidence normaliser
    assert unlinked(path) == []
    evidence = tmp_path / "07_evidence.ipynb"
    evidence.write_text(path.read_text(), encoding="utf-8")
    assert [term for term, _ in unlinked(evidence)] == ["normaliser"]
