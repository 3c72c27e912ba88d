# Two commands for a fresh machine (Python 3.11):  make book   and   make test
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# Progress bars print wall-clock timings: off while notebooks are checked or built.
NB_ENV := TQDM_DISABLE=1 PYTHONHASHSEED=0
NBVAL  := --nbval --nbval-current-env --nbval-sanitize-with tools/nbval_sanitize.cfg -p tools.nbval_tolerant -p no:cacheprovider

.PHONY: book test install pytest notebooks check-notebooks nbval student browser-check benchmarks widget-tables pdf clean

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -e .
	touch $(STAMP)

install: $(STAMP)

## make book: install if needed, build the book into _build/html (warnings are errors)
book: $(STAMP)
	$(PY) tools/vendor_assets.py
	$(PY) tools/check_notebooks_executed.py
	$(NB_ENV) $(VENV)/bin/jupyter-book build . -W -n --keep-going
	$(PY) tools/check_offline.py _build/html
	@echo "The book is built: open _build/html/index.html"

## make pdf: the PDF edition, _build/latex/svm-textbook.pdf (also copied next to the HTML book). TeX comes from
## Debian's archive (tools/install_tex.sh, apt-get); tools/check_pdf.py checks the page count and that no
## reference is undefined ("??").
pdf: $(STAMP)
	tools/install_tex.sh
	$(PY) tools/check_notebooks_executed.py
	$(NB_ENV) $(VENV)/bin/jupyter-book build . --builder pdflatex
	$(PY) tools/check_pdf.py _build/latex
	mkdir -p _build/html && cp _build/latex/svm-textbook.pdf _build/html/svm-textbook.pdf
	@echo "The PDF is built: _build/latex/svm-textbook.pdf"

## make test: install if needed, then pytest over tests/ and nbval over every notebook in book/
test: pytest check-notebooks nbval

pytest: $(STAMP)
	$(PY) -m pytest tests svmlib --doctest-modules -q --cov=svmlib --cov-report=term-missing:skip-covered  # + docstring Examples

check-notebooks: $(STAMP)
	$(PY) tools/notebook_setup.py --check
	$(PY) book/_ext/lab_references.py --check
	$(PY) tools/book_numbers.py --check
	$(PY) tools/run_notebooks.py --check

nbval: $(STAMP)
	$(NB_ENV) $(PY) -m pytest $(NBVAL) -q book/

## make notebooks: re-execute every chapter and store its outputs (commit the result)
notebooks: $(STAMP)
	$(PY) tools/run_notebooks.py

## make student: student copies (solutions blanked, outputs cleared) in student/
student: $(STAMP)
	$(PY) tools/make_student_notebooks.py --out student

## make browser-check: the built book (static sliders, 390 px, search, no console errors) and a chapter in a real
## JupyterLab on 127.0.0.1 (opened untrusted/trusted, Run All, student copy; every chapter's citations and
## cross-references read without a warning marker); headless Chromium, no network
browser-check: $(STAMP)
	$(PY) -m pytest -q tests_browser

## make widget-tables: re-tabulate precomputed widget states (after changing a widget's grids or sampler)
widget-tables: $(STAMP)
	$(PY) tools/tabulate_evidence_normalisers.py

benchmarks: $(STAMP)
	for f in benchmarks/*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf _build student .pytest_cache .coverage
