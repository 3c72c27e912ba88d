#!/usr/bin/env python
"""Vendor the book's JavaScript from the npm registry into ``book/_vendor``.

By default a Jupyter Book loads MathJax, RequireJS and the ipywidgets embed
manager from CDNs, so a reader without internet sees raw TeX and no widgets.
``make book`` runs this script first; ``_config.yml`` then points Sphinx at the
local copies (``mathjax_path``, ``nb_ipywidgets_js``, ``html_static_path``).

Packages are fetched once with ``npm pack`` (pinned versions, integrity
checked against the registry's sha512) and unpacked; a stamp file records what
is there, so later builds need no network at all.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENDOR = ROOT / "book" / "_vendor"

# package -> (version, [(path inside the package, destination under book/_vendor)])
# MathJax 4 (not 3): it breaks a display equation that is wider than its column into lines (output option
# displayOverflow: "linebreak", set by book/_web/svmlib_web.py) and breaks long inline formulas; its font
# (New Computer Modern, CHTML woff2 files) is a separate package that MathJax would otherwise fetch from a
# CDN: it goes to mathjax/newcm, and svmlib_web.py points MathJax's loader path "mathjax-newcm" there.
PACKAGES = {
    "mathjax": ("4.1.3", [("package", "mathjax")]),
    "@mathjax/mathjax-newcm-font": ("4.1.3", [("package/chtml", "mathjax/newcm/chtml"),
                                             ("package/chtml.js", "mathjax/newcm/chtml.js")]),
    "requirejs": ("2.3.7", [("package/require.js", "require.min.js")]),
    "@jupyter-widgets/html-manager": ("1.0.15", [("package/dist", ".")]),
}
# Test-only assets (not shipped with the book): axe-core, the WCAG checker tests_browser/test_accessibility.py
# injects into every page. `python tools/vendor_assets.py --tests` puts them in _build/test_vendor.
TEST_PACKAGES = {
    "axe-core": ("4.10.3", [("package/axe.min.js", "axe.min.js")]),
}
TEST_VENDOR = ROOT / "_build" / "test_vendor"
SKIP_SUFFIXES = (".map", ".d.ts", ".d.mts", ".cjs", ".mjs", ".md")  # source maps, typings, Node entry points
SKIP_NAMES = {"embed.js", "libembed-amd.js"}  # embed-amd.js is the self-contained AMD bundle


def _npm_pack(spec, workdir):
    out = subprocess.run(["npm", "pack", spec, "--json", "--silent"], cwd=workdir, check=True,
                         capture_output=True, text=True).stdout
    info = json.loads(out[out.index("["):])[0]
    tarball = Path(workdir) / info["filename"]
    algo, expected = info["integrity"].split("-", 1)
    digest = base64.b64encode(hashlib.new(algo, tarball.read_bytes()).digest()).decode()
    if digest != expected:
        raise SystemExit(f"integrity mismatch for {spec}: the tarball is not what the registry lists")
    return tarball


def _copy(src, dest):
    if src.is_dir():
        for item in src.rglob("*"):
            if item.is_file() and not item.name.endswith(SKIP_SUFFIXES) and item.name not in SKIP_NAMES:
                target = dest / item.relative_to(src)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(item, target)
    else:
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    return vendor(TEST_PACKAGES, TEST_VENDOR) if "--tests" in argv else vendor(PACKAGES, VENDOR)


def vendor(packages, target):
    """Fetch ``packages`` into ``target`` unless its stamp already lists exactly these versions."""
    stamp = target / "stamp.json"
    wanted = {name: version for name, (version, _) in packages.items()}
    if stamp.exists() and json.loads(stamp.read_text()) == wanted:
        print(f"vendored assets up to date in {target.relative_to(ROOT)}")
        return 0
    if shutil.which("npm") is None:
        raise SystemExit("npm is needed once to vendor MathJax and the widget JavaScript (apt-get install npm).")
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, (version, copies) in packages.items():
            tarball = _npm_pack(f"{name}@{version}", tmp)
            unpack = Path(tmp) / name.replace("/", "_")
            with tarfile.open(tarball) as tar:
                tar.extractall(unpack, filter="data")
            for inner, dest in copies:
                _copy(unpack / inner, target / dest)
            print(f"vendored {name}@{version}")
    stamp.write_text(json.dumps(wanted, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
