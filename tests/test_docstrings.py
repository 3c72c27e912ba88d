"""Every public function and class of svmlib's math modules has a complete numpydoc docstring.

Issue 18 ("API reference"): every public function and class has a docstring with Parameters,
Returns, an Examples section that runs (the Examples run as doctests: ``pytest --doctest-modules
svmlib`` in ``make test``) and the book equation it implements. This file checks the sections'
presence; the doctest run checks that the Examples run and print what they claim.

The walk is the one of tests/test_public_api_robustness.py: every module of the package
(``pkgutil``; a module added later is covered without editing this file), every name in its
``__all__`` that is a function or a class. Not checked: ``svmlib.widgets``, ``svmlib.plotting``
and ``svmlib.exercises`` (figures, GUI factories and answer checkers, not the library's math).

What each kind of name needs (numpydoc headers: a title line underlined with dashes):

* a function: ``Parameters`` (unless it takes none), ``Returns`` or ``Yields``, ``Examples``;
* a class with a constructor: ``Parameters`` (unless it takes none), ``Attributes``, ``Examples``;
  the public methods of an estimator (fit, predict, ...) share the class's Examples;
* a record (dataclass or named tuple): ``Attributes`` (its fields, which are also its
  constructor's parameters) and ``Examples``;
* an exception or warning class: ``Examples`` (it has neither parameters nor attributes of its own).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import re

import pytest

import svmlib

SKIPPED_PACKAGES = ("svmlib.widgets", "svmlib.plotting", "svmlib.exercises")

# Names whose docstrings are incomplete in files this file's author does not own:
# {qualified name: reason}. Expected failures (strict=False: the owner's fix does not break the
# run) until the owner completes the docstring and the coordinator removes the entry.
# Empty: every public name of the math modules has its sections.
EXPECTED_FAILURES: dict[str, str] = {}

_HEADER = re.compile(r"^\s*([A-Z][A-Za-z ]+)\n\s*-{3,}\s*$", re.M)


def sections(doc):
    """The numpydoc section titles of a docstring (a title line underlined with dashes)."""
    return set(_HEADER.findall(doc or ""))


def _takes_parameters(obj):
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):  # pragma: no cover - a builtin without a signature
        return True
    return any(p.name not in ("self", "cls") for p in sig.parameters.values())


def _is_record(cls):
    return dataclasses.is_dataclass(cls) or (issubclass(cls, tuple) and hasattr(cls, "_fields"))


def required_sections(obj):
    """The sections ``obj``'s docstring must have (see the module docstring)."""
    if inspect.isclass(obj):
        if issubclass(obj, BaseException):
            return {"Examples"}
        if _is_record(obj):
            return {"Attributes", "Examples"}
        need = {"Attributes", "Examples"}
        if _takes_parameters(obj):
            need.add("Parameters")
        return need
    need = {"Returns", "Examples"}
    if _takes_parameters(obj):
        need.add("Parameters")
    return need


def missing_sections(obj):
    have = sections(inspect.getdoc(obj))
    if "Yields" in have:
        have.add("Returns")
    return sorted(required_sections(obj) - have)


def public_modules():
    """svmlib's public math modules: the package walk of test_public_api_robustness."""
    return [importlib.import_module(m.name) for m in pkgutil.walk_packages(svmlib.__path__, "svmlib.")
            if not m.name.startswith(SKIPPED_PACKAGES)
            and not any(part.startswith("_") for part in m.name.split("."))]


def public_names():
    """``(qualified name, object)`` for every function and class in a public module's __all__."""
    out, seen = [], set()
    for mod in public_modules():
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)) or id(obj) in seen:
                continue  # constants (documented in the module's docstring), or seen via another module
            seen.add(id(obj))
            out.append((f"{mod.__name__}.{name}", obj))
    return out


PUBLIC = public_names()


def _param(qualname, obj):
    marks = []
    if qualname in EXPECTED_FAILURES:
        marks.append(pytest.mark.xfail(reason=EXPECTED_FAILURES[qualname], strict=False))
    return pytest.param(obj, id=qualname, marks=marks)


@pytest.mark.parametrize("obj", [_param(q, o) for q, o in PUBLIC])
def test_public_name_has_full_numpydoc_docstring(obj):
    doc = inspect.getdoc(obj)
    assert doc, f"{obj.__qualname__} has no docstring"
    missing = missing_sections(obj)
    assert not missing, f"{obj.__module__}.{obj.__qualname__}: docstring lacks {', '.join(missing)}"


def test_the_walk_covers_the_math_modules():
    """The modules of this issue are walked; widgets, plotting and exercises are not."""
    names = {m.__name__ for m in public_modules()}
    for required in ("svmlib.probabilistic", "svmlib.evidence", "svmlib.gpc", "svmlib.lssvr", "svmlib.margin",
                     "svmlib.primal", "svmlib.datasets", "svmlib.bootstrap", "svmlib.kernels", "svmlib.dual"):
        assert required in names
    assert not any(n.startswith(SKIPPED_PACKAGES) for n in names)
    assert len(PUBLIC) > 100  # sanity: the walk found the API (about 150 names)


def test_expected_failures_name_existing_objects():
    """A stale entry (renamed or removed name) must not linger."""
    known = {q for q, _ in PUBLIC}
    assert set(EXPECTED_FAILURES) <= known, set(EXPECTED_FAILURES) - known


def test_the_checker_can_fail():
    """The section parser finds a missing section (so a passing run means something)."""

    def documented(a):
        """Summary.

        Parameters
        ----------
        a : int

        Returns
        -------
        int

        Examples
        --------
        >>> documented(1)
        1
        """
        return a

    def incomplete(a):
        """Summary.

        Parameters
        ----------
        a : int
        """
        return a

    @dataclasses.dataclass
    class Record:
        """A record.

        Attributes
        ----------
        x : int
        """

        x: int

    assert missing_sections(documented) == []
    assert missing_sections(incomplete) == ["Examples", "Returns"]
    assert missing_sections(Record) == ["Examples"]


def test_every_docstring_cites_its_book_equation():
    """The issue asks for the equation each name implements: every docstring of the modules this
    file was written with names a label ``(eq. label)`` / ``eq. (label)`` or says it has none."""
    modules = ("svmlib.probabilistic", "svmlib.evidence", "svmlib.gpc", "svmlib.lssvr", "svmlib.margin",
               "svmlib.primal", "svmlib.datasets")
    # "eq. :eq:`(7.11) <ev-normaliser>`" (the printed number and its label, tools/book_numbers.py), or none
    cites = re.compile(r"eqs?\.\s*:eq:`\([A-Z0-9.]+\) <[a-z]+-[a-z0-9-]+>`|eqs?\.\s*\(?[a-z]+-[a-z0-9-]+|no equation", re.I)
    lacking = [q for q, o in PUBLIC if q.startswith(modules) and not cites.search(inspect.getdoc(o) or "")]
    assert not lacking, lacking
