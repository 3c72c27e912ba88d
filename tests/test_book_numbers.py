"""Book numbers stated outside the book agree with it (tools/book_numbers.py, svmlib/_book_numbers.py).

The table svmlib reads at run time is generated from ``_toc.yml`` and the chapters' labelled equations;
every docstring, comment and guide that cites a chapter or an equation does it through a form the check
can verify (CONTRIBUTING.md, "Book numbers"). These tests fail when the table or a stated number is
stale, and show on small texts that each kind of stale number is caught.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("book_numbers", ROOT / "tools" / "book_numbers.py")
bn = importlib.util.module_from_spec(spec)
sys.modules["book_numbers"] = bn
spec.loader.exec_module(bn)
lr = bn.lab_references

from svmlib import _book_numbers  # noqa: E402


@pytest.fixture(scope="module")
def table():
    return bn.numbers()


def test_the_table_is_generated_from_the_current_sources():
    assert (ROOT / "svmlib" / "_book_numbers.py").read_text(encoding="utf-8") == bn.render(), \
        "svmlib/_book_numbers.py is stale: python tools/book_numbers.py --write"


def test_every_number_cited_in_code_docstrings_and_guides_agrees_with_the_book(table):
    problems = bn.text_problems(table)
    assert not problems, "\n".join(problems) + "\n(python tools/book_numbers.py --fix; CONTRIBUTING.md, 'Book numbers')"


def test_chapter_numbers_follow_the_table_of_contents(table):
    # the file names carry the chapter numbers (01_ ... 10_), and _toc.yml numbers them the same
    assert {stem: int(stem.split("_")[0]) for stem in table["CHAPTERS"]} == table["CHAPTERS"]
    assert table["CHAPTER_LABELS"]["ch-replica"] == table["CHAPTERS"]["09_replica_bootstrap"] == 9
    assert table["APPENDICES"]["appendix_toolkit"] == "A"


def test_run_time_lookups():
    assert _book_numbers.chapter("ch-lssvr") == _book_numbers.chapter("10_lssvr") == 10
    label, number = next(iter(_book_numbers.EQUATIONS.items()))
    assert _book_numbers.eq(label) == f"({number})"
    assert _book_numbers.eq("tk-woodbury").startswith("(A.")
    with pytest.raises(KeyError, match="no equation labelled"):
        _book_numbers.eq("no-such-label")
    with pytest.raises(KeyError, match="no chapter"):
        _book_numbers.chapter("ch-nothing")


def test_equation_numbers_count_labelled_displays_in_page_order(tmp_path):
    # a two-chapter book: the k-th labelled display of chapter N prints (N.k); remove-cell cells do not count
    def notebook(*cells):
        return {"cells": [{"cell_type": "markdown", "metadata": meta, "source": src} for src, meta in cells]}

    (tmp_path / "01_a.ipynb").write_text(json.dumps(notebook(("$$\nx\n$$ (a-one)\n\n$$ y $$ (a-two)", {}))))
    (tmp_path / "02_b.ipynb").write_text(json.dumps(notebook(
        ("$$ z $$ (b-hidden)", {"tags": ["remove-cell"]}), ("text\n\n$$\nw\n$$ (b-one)", {}))))
    (tmp_path / "appendix_c.ipynb").write_text(json.dumps(notebook(("$$ v $$ (c-one)", {}))))
    toc = tmp_path / "_toc.yml"
    toc.write_text("parts:\n  - numbered: 1\n    chapters:\n      - file: book/02_b\n      - file: book/01_a\n"
                   "  - chapters:\n      - file: book/appendix_c\n")
    # the table of contents, not the file name, decides the number
    assert lr.equation_numbers(toc, tmp_path) == {"b-one": "1.1", "a-one": "2.1", "a-two": "2.2", "c-one": "A.1"}


def test_a_stale_equation_number_is_caught_and_fixed(table):
    label, number = next(iter(table["EQUATIONS"].items()))
    good = f'"""Implements eq. :eq:`({number}) <{label}>`."""\n'
    stale = f'"""Implements eq. :eq:`(9.99) <{label}>`."""\n'
    assert bn.problems_of_text(good, "x.py", table) == []
    problems = bn.problems_of_text(stale, "x.py", table)
    assert len(problems) == 1 and f"the book prints ({number})" in problems[0]
    assert bn.fix_text(stale, table) == good
    assert "no equation labelled" in bn.problems_of_text('"""eq. :eq:`(1.1) <not-a-label>`"""', "x.py", table)[0]


def test_a_bare_label_is_caught(table):
    label = next(iter(table["EQUATIONS"]))
    for text in (f"# eq. ({label})\n", f"# eq. {label}: the update\n", f'"""see ({label}) and more"""\n'):
        problems = bn.problems_of_text(text, "x.py", table)
        assert len(problems) == 1 and "without its number" in problems[0], text
    head, tail = label.split("-", 1)
    wrapped = bn.problems_of_text(f'"""Implements eq. ({head}-\n    {tail})."""\n', "x.py", table)
    assert len(wrapped) == 1 and "(wrapped)" in wrapped[0]
    # a label as data (quoted, or an anchor) is not prose
    assert bn.problems_of_text(f'eq("{label}")\nurl = "page.html#equation-{label}"\n', "x.py", table) == []


def test_a_label_the_book_does_not_have_is_caught(table):
    for text in ('"""The subgradient of the hinge (eq. soft-primal-hinge)."""\n', "# eq. no-such-label\n"):
        problems = bn.problems_of_text(text, "x.py", table)
        assert len(problems) == 1 and "names no equation of the book" in problems[0], text
    assert bn.problems_of_text("# eq. (2.3), step size eta\n", "x.py", table) == []


def test_a_typed_or_stale_chapter_number_is_caught(table):
    assert "typed chapter number" in bn.problems_of_text('"""Figures of chapter 8."""\n', "x.py", table)[0]
    assert "typed chapter number" in bn.problems_of_text("# the chapter-8 figures\n", "x.py", table)[0]
    assert bn.problems_of_text('"""Figures of :ref:`Chapter 9 <ch-replica>`."""\n', "x.py", table) == []
    stale = bn.problems_of_text('"""Figures of :ref:`Chapter 8 <ch-replica>`."""\n', "x.py", table)
    assert len(stale) == 1 and "makes it Chapter 9" in stale[0]
    # Markdown: roles without a typed number, Lab forms checked like the notebooks'
    assert bn.problems_of_text("see {numref}`Chapter %s <ch-replica>`", "x.md", table, "markdown") == []
    assert "makes it Chapter 9" in bn.problems_of_text("[Chapter 8](09_replica_bootstrap.ipynb#ch-replica)",
                                                       "x.md", table, "markdown")[0]
    assert "typed chapter number" in bn.problems_of_text("as chapter 8 shows", "x.md", table, "markdown")[0]


def test_a_role_in_a_string_a_reader_sees_is_caught(table):
    label, number = next(iter(table["EQUATIONS"].items()))
    source = f'ax.plot(x, y, label="gradient (eq. :eq:`({number}) <{label}>`)")\n'
    problems = bn.problems_of_text(source, "x.py", table)
    assert len(problems) == 1 and "string a reader sees" in problems[0]
    # the run-time form passes; so does the role in a docstring
    assert bn.problems_of_text(f'ax.plot(x, y, label=f"gradient (eq. {{eq(\'{label}\')}})")\n', "x.py", table) == []
    assert bn.problems_of_text(f'def f():\n    """See :eq:`({number}) <{label}>`."""\n', "x.py", table) == []


def test_string_literals_of_tests_are_data(table):
    source = 'FIXTURE = "[Chapter 2 notes](notes.md) and chapter 7"\n# chapter 7 here is prose\n'
    problems = bn.problems_of_text(source, "tests/x.py", table, "test")
    assert len(problems) == 1 and ":2:" in problems[0]


def test_the_teachers_guide_table_is_checked(table):
    text = (ROOT / "book" / "teachers_guide.md").read_text(encoding="utf-8")
    assert bn.guide_problems(text, table) == []
    swapped = text.replace("| 9 | `book/09_replica_bootstrap", "| 8 | `book/09_replica_bootstrap")
    assert "_toc.yml makes it" in bn.guide_problems(swapped, table)[0]


def test_check_fails_on_a_stale_number_in_a_file(monkeypatch, tmp_path, table):
    # the command make test runs: a stale docstring in one of the scanned folders makes it exit 1
    label, number = next(iter(table["EQUATIONS"].items()))
    stale = tmp_path / "stale.py"
    stale.write_text(f'"""Implements eq. :eq:`(0.1) <{label}>`."""\n', encoding="utf-8")
    monkeypatch.setattr(bn, "python_texts", lambda: iter([stale]))
    monkeypatch.setattr(lr, "chapters", lambda: [])
    monkeypatch.setattr(bn, "ROOT", tmp_path)  # no Markdown pages there: only the stale file is read
    fresh_table = tmp_path / "_book_numbers.py"
    fresh_table.write_text(bn.render(table), encoding="utf-8")
    monkeypatch.setattr(bn, "TABLE", fresh_table)
    assert bn.main(["--check"]) == 1
    stale.write_text(f'"""Implements eq. :eq:`({number}) <{label}>`."""\n', encoding="utf-8")
    assert bn.main(["--check"]) == 0


def test_chapter_code_comments_print_numbers(monkeypatch, tmp_path, table):
    label, number = next(iter(table["EQUATIONS"].items()))
    cells = [{"cell_type": "code", "source": f"x = 1  # eq. ({number})\ny = 2  # eq. {label}\nz = 3  # eq. (99.1)"},
             {"cell_type": "markdown", "source": f"eq. ({label}) in prose is lab_references' business"}]
    (tmp_path / "01_x.ipynb").write_text(json.dumps({"cells": cells}), encoding="utf-8")
    monkeypatch.setattr(lr, "chapters", lambda: [tmp_path / "01_x.ipynb"])
    problems = bn.notebook_comment_problems(table)
    assert len(problems) == 2
    assert f"write eq. ({number})" in problems[0] and "(99.1), which the book does not print" in problems[1]
