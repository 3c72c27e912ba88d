# Two commands for a fresh machine (Python 3.11, 3.12 or 3.13):  make book   and   make test
# Another interpreter: make test PYTHON=python3.13 (each minor version gets its own venv, .venv-3.13;
# Python 3.11 keeps .venv).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
# the interpreter itself (a pyenv shim of a version that is not active is looked up among pyenv's versions)
find_python = $(shell $(1) -c 'import sys; print(sys.executable)' 2>/dev/null || ls -d $$(pyenv root 2>/dev/null)/versions/*/bin/$(notdir $(1)) 2>/dev/null | tail -1)
PYTHON_EXE := $(call find_python,$(PYTHON))
PYVER  := $(shell $(PYTHON_EXE) -c 'import sys; print("%d.%d" % sys.version_info[:2])')
VENV   ?= $(if $(filter 3.11,$(PYVER)),.venv,.venv-$(PYVER))
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# Progress bars print wall-clock timings: off while notebooks are checked or built.
NB_ENV := TQDM_DISABLE=1 PYTHONHASHSEED=0
NBVAL  := --nbval --nbval-current-env --nbval-sanitize-with tools/nbval_sanitize.cfg -p tools.nbval_tolerant -p no:cacheprovider

# The minimum-versions environment (requirements-min.txt: svmlib's lower bounds, Colab's stack) on Python 3.12
MIN_PYTHON ?= python3.12
MIN_VENV   := .venv-min
# the library's own tests (not the ones about the book's tools, notebooks, builds and install environments)
LIB_TESTS  := tests svmlib --doctest-modules -p no:cacheprovider --ignore=tests/test_lab_references.py \
	--ignore=tests/test_pdf_edition.py --ignore=tests/test_prose_numbers.py --ignore=tests/test_student_copies.py \
	--ignore=tests/test_tools.py --ignore=tests/test_wheel_install.py --ignore=tests/test_output_check.py \
	--ignore=tests/test_environments.py --ignore=tests/test_book_numbers.py --ignore=tests/test_notation.py \
	--ignore=tests/test_glossary_links.py

.PHONY: book test test-hosted install pytest notebooks check-notebooks check-notebooks-baseline nbval student browser-check benchmarks widget-tables pdf clean test-min

$(STAMP): requirements.txt pyproject.toml
	@test -n "$(PYTHON_EXE)" || { echo "no interpreter $(PYTHON)"; exit 1; }
	$(PYTHON_EXE) -m venv $(VENV)
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
	$(PY) tools/check_pdf.py _build/latex --max-overfull-pt 5  # issue 24; measured: 1 box, 2.4 pt (a word in projects.md's rubric table), after _config.yml's LaTeX preamble (framed.sty's page split, the index)
	mkdir -p _build/html && cp _build/latex/svm-textbook.pdf _build/html/svm-textbook.pdf
	@echo "The PDF is built: _build/latex/svm-textbook.pdf"

## make test: install if needed, then pytest over tests/ and nbval over every notebook in book/
test: pytest check-notebooks nbval

pytest: $(STAMP)
	$(PY) -m pytest tests svmlib --doctest-modules -q -m "not network" --cov=svmlib --cov-report=term-missing:skip-covered  # + docstring Examples

## make test-hosted: the hosted environments install and run a chapter: Colab's set-up cell into Colab's package
## versions, Binder's requirements + postBuild (fresh venvs from the package index, ~5 min each; .ci/run runs it)
test-hosted: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider -m network tests/test_environments.py

check-notebooks: $(STAMP)
	$(PY) tools/notebook_setup.py --check
	$(PY) book/_ext/lab_references.py --check
	$(PY) tools/book_numbers.py --check
	$(PY) tools/run_notebooks.py --check

## make check-notebooks-baseline: the stored outputs also hold with numpy's SIMD dispatch lowered to its baseline
## (another summation order in numpy's loops, as on an older CPU); NPY_DISABLE_CPU_FEATURES is safe on every CPU
## (unlike forcing an OpenBLAS core type). Features this CPU or numpy lacks are dropped from the list.
NPY_LOWER = $(shell $(PY) -c 'import numpy._core._multiarray_umath as m; print(" ".join(f for f in ("AVX512_SPR", "AVX512_ICL", "X86_V4", "X86_V3", "AVX512_SKX", "AVX512F", "AVX2", "FMA3", "ASIMDHP", "ASIMDDP") if m.__cpu_features__.get(f) and f in m.__cpu_dispatch__))')
check-notebooks-baseline: $(STAMP)
	NPY_DISABLE_CPU_FEATURES="$(NPY_LOWER)" $(PY) tools/run_notebooks.py --check

## make test-min: the library's tests and Run All of two chapters with svmlib's minimum versions (Python 3.12)
$(MIN_VENV)/.installed: requirements-min.txt pyproject.toml
	$(call find_python,$(MIN_PYTHON)) -m venv $(MIN_VENV)
	$(MIN_VENV)/bin/python -m pip install --quiet -r requirements-min.txt
	$(MIN_VENV)/bin/python -m pip install --quiet --no-deps -e .
	touch $@

# The explorers' static form (ipywidgets.Stack, ipywidgets >= 8) is made only by the book build (requirements.txt),
# never in a reader's kernel: its tests are left out here (the live explorers run on ipywidgets 7.7.1).
test-min: $(MIN_VENV)/.installed
	$(MIN_VENV)/bin/python -m pytest -q $(LIB_TESTS) --ignore=tests/test_widgets_static.py -k "not static_form"
	$(NB_ENV) $(MIN_VENV)/bin/python tools/run_notebooks.py --run-only book/03_duality_smo.ipynb book/07_evidence.ipynb

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
	$(PY) tools/vendor_assets.py --tests
	$(PY) -m pytest -q tests_browser

## make widget-tables: re-tabulate precomputed widget states (after changing a widget's grids or sampler)
widget-tables: $(STAMP)
	$(PY) tools/tabulate_evidence_normalisers.py

benchmarks: $(STAMP)
	for f in benchmarks/*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf _build student .pytest_cache .coverage
