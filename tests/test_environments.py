"""The book's two hosted environments install and run: Colab (the chapters' set-up cell) and Binder.

* The set-up cell names a git ref that exists: ``main`` (the branch the book is built from) or a tag of
  the repository, never a tag still to be made.
* svmlib's lower bounds (pyproject.toml) are exactly the pins of requirements-min.txt, which are
  Colab's versions, so installing svmlib on Colab upgrades nothing (ipywidgets 7.7.1 stays).
* Colab, offline: the wheel built from this checkout stands in for ``git+<repository>@<ref>``; a fresh
  Python 3.12 venv gets Colab's stack (requirements-min.txt), then :ref:`Chapter 3 <ch-duality>` runs with
  its set-up cell pointed at the wheel (so the cell itself installs svmlib, as on Colab), then
  :ref:`Chapter 7 <ch-evidence>`; no pinned
  package changes version.
* Binder: a fresh venv of the Python ``binder/runtime.txt`` names installs ``binder/requirements.txt``,
  runs ``binder/postBuild`` in a copy of the repository and executes :ref:`Chapter 3 <ch-duality>`.

The last two create virtual environments from the package index (pip's cache makes a re-run fast):
~2-5 minutes each on 2 cores; ``make test-hosted`` runs them (marked ``network`` and ``slow``; ``.ci/run`` calls it).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import notebook_setup  # noqa: E402

CHAPTERS = sorted((ROOT / "book").glob("[0-9]*.ipynb"))


def _run(cmd, **kw):
    done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    assert done.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def _interpreter(version):
    """The python<version> executable: on PATH, or among pyenv's versions (not necessarily active)."""
    for candidate in [shutil.which(f"python{version}")] + sorted(Path.home().glob(f".pyenv/versions/{version}*/bin/python{version}")):
        if candidate and subprocess.run([str(candidate), "-c", "pass"], capture_output=True).returncode == 0:
            return Path(candidate)
    pytest.fail(f"no Python {version} interpreter (PATH or ~/.pyenv/versions); the check needs one")


# --- the set-up cell --------------------------------------------------------------------------------

def _tags():
    done = subprocess.run(["git", "-C", str(ROOT), "tag", "--list"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


def test_setup_cell_installs_a_ref_that_exists():
    sources = {"tools/notebook_setup.py": notebook_setup.SETUP_SOURCE}
    sources.update({p.name: nbformat.read(p, as_version=4).cells[0].source for p in CHAPTERS})
    tags = _tags()
    for where, source in sources.items():
        target = notebook_setup.install_target(source)
        assert target, f"{where}: the set-up cell installs no 'svmlib[...] @ git+...@ref'"
        assert target["url"] == notebook_setup.REPOSITORY, where
        ref = target["ref"]
        assert ref == "main" or ref in tags, (
            f"{where}: the set-up cell installs svmlib from git ref {ref!r}, which is neither main nor a tag "
            f"of the repository ({sorted(tags) or 'no tags'}): every import of svmlib on Colab would fail")
        assert "--upgrade" not in source and "-U" not in source.split(), where


def test_the_ref_check_fails_on_a_missing_tag():
    source = notebook_setup.SETUP_SOURCE.replace(f"@{notebook_setup.REF}", "@v99.0-never-tagged")
    ref = notebook_setup.install_target(source)["ref"]
    assert ref == "v99.0-never-tagged" and ref not in _tags()


def _requirement_pins(path):
    pins = {}
    for line in path.read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_.-]+)==([^\s#]+)", line.strip())
        if m:
            pins[m.group(1).lower()] = m.group(2)
    return pins


def _lower_bounds():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    # what a reader's kernel needs: the dependencies and the extras the chapters' set-up cell installs
    # (plot/widgets, and dask for the cluster section of :ref:`Chapter 5 <ch-practice>`: Colab ships dask and distributed)
    extras = project["optional-dependencies"]
    specs = project["dependencies"] + extras.get("plot", []) + extras.get("widgets", []) + extras.get("dask", [])
    bounds = {}
    for spec in specs:
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?>=([0-9.]+)", spec.replace(" ", ""))
        assert m, f"pyproject.toml: {spec!r} declares no lower bound (name>=version)"
        bounds[m.group(1).lower()] = m.group(2)
    return bounds


def test_lower_bounds_are_the_minimum_environment_and_colabs_versions():
    pins = _requirement_pins(ROOT / "requirements-min.txt")
    for name, low in _lower_bounds().items():
        assert pins.get(name) == low, f"pyproject.toml says {name}>={low}; requirements-min.txt pins {pins.get(name)}"
    # Colab's versions (2025-2026 images): the set-up cell must not upgrade them
    colab = {"numpy": "2.0.2", "scikit-learn": "1.6.1", "matplotlib": "3.10.0", "ipywidgets": "7.7.1"}
    for name, version in colab.items():
        assert pins[name] == version, name
    # and the project's own pins satisfy every lower bound
    current = _requirement_pins(ROOT / "requirements.txt")
    for name, low in _lower_bounds().items():
        have = tuple(int(x) for x in current[name].split(".")[:3])
        assert have >= tuple(int(x) for x in low.split(".")), (name, current[name], low)


# --- Colab: the wheel of this checkout into Colab's stack ---------------------------------------------

_EXECUTE = textwrap.dedent('''
    import sys, time, nbformat
    from nbclient import NotebookClient
    path, replace = sys.argv[1], sys.argv[2:]
    nb = nbformat.read(path, as_version=4)
    if replace:  # point the set-up cell at the local wheel
        old, new = replace
        assert old in nb.cells[0].source, nb.cells[0].source
        nb.cells[0].source = nb.cells[0].source.replace(old, new)
    start = time.perf_counter()
    NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=False,
                   resources={"metadata": {"path": "."}}).execute()
    print(f"{time.perf_counter() - start:.1f}")
''')


def _reader_env(tmp_path, venv_bin):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SVMLIB_", "PYTHONPATH", "JUPYTER", "VIRTUAL_ENV"))}
    env.update(JUPYTER_PATH=str(tmp_path / "jupyter"), JUPYTER_DATA_DIR=str(tmp_path / "jupyter"),
               JUPYTER_CONFIG_DIR=str(tmp_path / "jupyter-config"), IPYTHONDIR=str(tmp_path / "ipython"),
               TQDM_DISABLE="1", PYTHONHASHSEED="0", MPLBACKEND="module://matplotlib_inline.backend_inline",
               PATH=f"{venv_bin}{os.pathsep}{env.get('PATH', '')}", HOME=str(tmp_path))
    return env


def _source_copy(dest):
    """What a clone contains of the package, the book's chapters and binder/ (no build/ or egg-info left here)."""
    dest.mkdir(parents=True)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, dest / name)
    shutil.copytree(ROOT / "svmlib", dest / "svmlib", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    shutil.copytree(ROOT / "binder", dest / "binder")
    (dest / "book").mkdir()
    for chapter in CHAPTERS:
        shutil.copy2(chapter, dest / "book" / chapter.name)
    return dest


def _freeze(python):
    done = _run([python, "-m", "pip", "list", "--format=freeze", "--disable-pip-version-check"])
    return dict(line.lower().split("==", 1) for line in done.stdout.splitlines() if "==" in line)


@pytest.mark.slow
@pytest.mark.network
def test_colab_cell_installs_the_wheel_into_colabs_stack_and_chapters_run(tmp_path):
    source = _source_copy(tmp_path / "source")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet", "-w",
          tmp_path / "wheel", source])
    (wheel,) = (tmp_path / "wheel").glob("svmlib-*.whl")
    python312 = _interpreter("3.12")
    _run([python312, "-m", "venv", tmp_path / "colab"])
    python = tmp_path / "colab" / "bin" / "python"
    colab = [line.split("#")[0].strip() for line in (ROOT / "requirements-min.txt").read_text().splitlines()]
    colab = [r for r in colab if r and not r.startswith(("pytest", "hypothesis"))]
    _run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *colab], timeout=1500)
    before = _freeze(python)
    assert "svmlib" not in before

    work = tmp_path / "reader"
    work.mkdir()
    (tmp_path / "run.py").write_text(_EXECUTE)
    env = _reader_env(tmp_path, python.parent)
    target = notebook_setup.install_target(notebook_setup.SETUP_SOURCE)
    git_url = target["requirement"].split(" @ ", 1)[1]
    times = []
    for chapter, replace in (("03_duality_smo.ipynb", [git_url, wheel.as_uri()]), ("07_evidence.ipynb", [])):
        copy = work / chapter
        nb = nbformat.read(ROOT / "book" / chapter, as_version=4)
        nb.cells[0].source = notebook_setup.SETUP_SOURCE  # the cell tools/notebook_setup.py writes
        nbformat.write(nb, copy)
        done = subprocess.run([python, tmp_path / "run.py", copy, *replace], cwd=work, env=env,
                              capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{chapter} fails on Colab's stack:\n{done.stderr[-4000:]}"
        times.append(f"{chapter}: {done.stdout.split()[-1]} s")
    after = _freeze(python)
    assert after.pop("svmlib") == "0.1.0"
    changed = {k: (before.get(k), v) for k, v in after.items() if before.get(k) != v}
    assert not changed, f"installing svmlib changed Colab's packages: {changed}"
    print("; ".join(times))


# --- Binder ------------------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.network
def test_binder_installs_runs_postbuild_and_a_chapter(tmp_path):
    runtime = (ROOT / "binder" / "runtime.txt").read_text().strip()
    m = re.fullmatch(r"python-(3\.\d+)", runtime)
    assert m, f"binder/runtime.txt: {runtime!r} is not 'python-3.X'"
    python_bin = _interpreter(m.group(1))
    _run([python_bin, "-m", "venv", tmp_path / "binder"])
    python = tmp_path / "binder" / "bin" / "python"
    _run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r",
          ROOT / "binder" / "requirements.txt"], timeout=1500)
    repo = _source_copy(tmp_path / "repo")
    env = _reader_env(tmp_path, python.parent)
    _run(["bash", repo / "binder" / "postBuild"], cwd=repo, env=env, timeout=600)
    (tmp_path / "run.py").write_text(_EXECUTE)
    done = subprocess.run([python, tmp_path / "run.py", repo / "book" / "03_duality_smo.ipynb"],
                          cwd=repo / "book", env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"chapter 3 fails on Binder:\n{done.stderr[-4000:]}"
    where = _run([python, "-c", "import svmlib; print(svmlib.__file__)"], cwd=tmp_path, env=env).stdout
    assert "site-packages" in where, where  # postBuild installed it (not the source folder)
