"""Every number the prose states comes from the computation (issue 14, "prose from computation").

A number in a chapter's markdown (exercises and solutions included, math included) must be one of

1. glued: shown through a myst-nb glue role (``{glue:text}`name```), so it is not in the
   markdown at all;
2. in the chapter's code: the same value appears as a literal in a code cell of the chapter --
   a hidden assertion right after the computation (``assert abs(err - 0.02) < 0.005``) or the
   code that sets a parameter the text quotes (``C = 10``);
3. a constant of the text, listed in the notebook's metadata ``book.text_constants``
   (years, a paper's figure numbers, values the text sets without code).

Single digits and years are allowed without listing. Numbers inside role targets, labels,
code spans, URLs and directive options are not prose. The failure lists each unbacked number
with its context, so a changed computation cannot leave a stale sentence behind.
"""

from __future__ import annotations

import io
import json
import re
import sys
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "book" / "_ext"))
from lab_references import to_sphinx  # noqa: E402  (the chapters' JupyterLab forms of references)
CHAPTERS = sorted(p for p in (ROOT / "book").glob("*.ipynb") if p.stem[0].isdigit() or p.stem.startswith("appendix"))

# ---------------------------------------------------------------------------------------------
# What is not prose
# ---------------------------------------------------------------------------------------------
_NOT_PROSE = [
    re.compile(r"\{[\w:.-]+\}`[^`]*`"),              # roles: {eq}`x`, {cite:p}`k2002`, {glue:text}`n:.2f`
    re.compile(r"```+[^\n]*|~~~+[^\n]*"),            # fence lines are handled separately (titles kept)
    re.compile(r"`[^`\n]*`"),                        # code spans
    re.compile(r"^\([\w:.-]+\)=\s*$", re.M),         # target labels (ch-duality)=
    re.compile(r"\$\$\s*\([\w:.-]+\)"),              # $$ (label)
    re.compile(r"^\s*:[\w-]+:.*$", re.M),            # directive options :label: ex-soft-3
    re.compile(r"\]\([^)]*\)"),                      # link targets [text](target)
    re.compile(r"https?://\S+"),                     # bare URLs
    re.compile(r"<[^>\n]+>"),                        # HTML tags and their attributes
    re.compile(r"\\(?:t|d)?frac\s*\d\s*(?:\d|\{\d+\})"),  # \tfrac12 is 1/2, not twelve; \tfrac1{12}
    re.compile(r"_\{[^{}]*\}|_\d+"),                 # subscripts: K_{12}, x_1 are indices, not values
    re.compile(r"\\(?:label|ref|eqref|tag)\{[^}]*\}"),
]
# An exercise's time estimate in its title, "(30 min)", is a constant of the text.
_TIME_ESTIMATE = re.compile(r"\(\s*(?:~\s*)?\d+(?:\s*[-–]\s*\d+)?\s*(?:min|minutes|h|hours|days|week)\s*\)")
_POWER_OF_TEN = re.compile(r"(\d+(?:\.\d+)?)\s*(?:\\times|\\cdot|×|·)\s*10\s*\^\s*\{?\s*([-−+]?\d+)\s*\}?")
_BARE_POWER = re.compile(r"(?<![\d.])10\s*\^\s*\{?\s*([-−+]?\d+)\s*\}?")
_NUMBER = re.compile(r"(?<![A-Za-z_\\\d.])\d{1,3}(?:,\d{3})+(?![\d,])(?:\.\d+)?|(?<![A-Za-z_\\\d.])\d+(?:\.\d+)?(?:[eE][-−+]?\d+)?")


def _prose(markdown):
    """The markdown with non-prose parts blanked out (fence titles of exercises kept).

    A reference's JupyterLab form ("[Fig. 1.1](#fig-margin-scan)", a citation's abbr) is read as the role
    the book builds from: its number comes from Sphinx, not from the prose."""
    text = _TIME_ESTIMATE.sub(" ", to_sphinx(markdown))
    for fence_title in re.findall(r"^```+\s*\{(?:exercise|prf:\w+|admonition|note|tip|warning)\}([^\n]*)$", text, re.M):
        text += "\n" + fence_title
    for pattern in _NOT_PROSE:
        text = pattern.sub(" ", text)
    return text


def _values(token):
    token = token.replace(",", "").replace("−", "-")
    try:
        return float(token)
    except ValueError:  # pragma: no cover - the regex only matches numbers
        return None


def prose_numbers(markdown):
    """(value, token, context) for each number in the prose of ``markdown``."""
    text = _prose(markdown)
    found = []

    def record(value, token, start, end):
        context = " ".join(text[max(0, start - 40): end + 40].split())
        found.append((value, token, context))

    def powers(match):
        mantissa, exponent = match.group(1), match.group(2).replace("−", "-")
        record(float(mantissa) * 10.0 ** int(exponent), match.group(0), match.start(), match.end())
        return " "

    def bare_powers(match):
        record(10.0 ** int(match.group(1).replace("−", "-")), match.group(0), match.start(), match.end())
        return " "

    text = _POWER_OF_TEN.sub(powers, text)
    text = _BARE_POWER.sub(bare_powers, text)
    for match in _NUMBER.finditer(text):
        value = _values(match.group(0))
        if value is not None:
            record(value, match.group(0), match.start(), match.end())
    return found


_STRING_TOKENS = {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}  # 3.12+ splits f-strings


def code_numbers(source):
    """Every numeric value written in ``source``: Python literals and numbers inside strings.

    Comments do not count: a comment is prose too and can go stale like any sentence.
    """
    values = set()
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):  # e.g. IPython magics
        tokens = None
    if tokens is None:
        texts = [re.sub(r"#.*", "", source)]
    else:
        texts = [tok.string for tok in tokens if tok.type in _STRING_TOKENS]
        for tok in tokens:
            if tok.type == tokenize.NUMBER:
                try:
                    values.add(float(tok.string.replace("_", "").rstrip("jJ")))
                except ValueError:
                    pass
    for text in texts:
        for match in _NUMBER.finditer(text):
            value = _values(match.group(0))
            if value is not None:
                values.add(value)
    return values


def _matches(value, allowed):
    return any(value == a or (a != 0 and abs(value - a) <= 1e-12 * abs(a)) for a in allowed)


def implicitly_allowed(value, token):
    if value == int(value) and 0 <= value <= 9 and "." not in token:
        return True  # counts, dimensions, small integers of the text
    return value == int(value) and 1900 <= value <= 2030 and "." not in token  # years


def unbacked_numbers(nb):
    """Numbers in the markdown of notebook ``nb`` that no code, glue or listed constant backs."""
    code = set()
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            code |= code_numbers("".join(cell["source"]))
    constants = {float(str(c).replace(",", "")) for c in nb.get("metadata", {}).get("book", {}).get("text_constants", [])}
    missing = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        source = "".join(cell["source"])
        if cell.get("metadata", {}).get("svmlib", {}).get("lab_caption"):  # a figure's caption, shown in JupyterLab
            source = re.sub(r"^\*\*Fig\. [\w.]+\*\*", "", source)  # its number comes from Sphinx (checked)
        for value, token, context in prose_numbers(source):
            if implicitly_allowed(value, token) or _matches(value, code) or _matches(value, constants):
                continue
            missing.append((token, context))
    return missing


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_every_number_in_the_prose_is_backed(path):
    nb = json.loads(path.read_text())
    missing = unbacked_numbers(nb)
    report = "\n".join(f"  {token!r:>10}  ...{context}..." for token, context in missing)
    assert not missing, (
        f"{path.name}: {len(missing)} number(s) in the prose are neither glued, nor in the chapter's code "
        f"(a hidden assertion), nor listed in metadata book.text_constants:\n{report}")


# ---------------------------------------------------------------------------------------------
# The checker checks (it must be able to fail)
# ---------------------------------------------------------------------------------------------
def _nb(markdown, code="", constants=()):
    return {"metadata": {"book": {"text_constants": list(constants)}},
            "cells": [{"cell_type": "markdown", "source": markdown}, {"cell_type": "code", "source": code}]}


def test_an_unbacked_number_is_reported_with_its_context():
    missing = unbacked_numbers(_nb("The plain SMO takes 26 steps, libsvm 23.", code="steps = smo(C=0.1)"))
    assert [t for t, _ in missing] == ["26", "23"]
    assert "plain SMO takes 26 steps" in missing[0][1]


def test_code_literals_glue_roles_and_constants_back_a_number():
    md = ("At $C = 0.1$ SMO takes {glue:text}`n_smo` steps; Efron's 0.632 rule (1983); "
          "error 1.7 times; see {eq}`dual-12` and Exercise {ref}`ex-soft-3`.")
    assert unbacked_numbers(_nb(md, code="C = 0.1\nassert abs(ratio - 1.7) < 0.05", constants=["0.632"])) == []
    assert [t for t, _ in unbacked_numbers(_nb(md, code="C = 0.1"))] == ["0.632", "1.7"]


def test_latex_forms_are_read_as_numbers():
    found = [v for v, _, _ in prose_numbers(r"a tolerance of $10^{-3}$ or $2.5\times 10^{-4}$, and $\tfrac12 w$")]
    assert found == [pytest.approx(2.5e-4), pytest.approx(1e-3)]
    assert [v for v, _, _ in prose_numbers("N = 1,093 lines")] == [1093]


def test_a_number_only_in_a_comment_does_not_back_the_prose():
    assert [t for t, _ in unbacked_numbers(_nb("It takes 26 steps.", code="n = smo()  # 26 steps"))] == ["26"]
    assert unbacked_numbers(_nb("It takes 26 steps.", code="n = smo()\nassert n == 26, n")) == []


def test_labels_code_spans_and_time_estimates_are_not_prose():
    assert prose_numbers(r"$\rho = y_1 y_2 K_{12}/\sqrt{K_{11}}$, $\tfrac1{12}$") == []
    md = "(ch-duality)=\n```{exercise} ★★ Write one SMO step (45 min)\n:label: ex-smo-12\n`x = 77`\n```\n$$\nx\n$$ (eq-33)"
    assert prose_numbers(md) == []
