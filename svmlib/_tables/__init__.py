"""Tabulated results the chapters read instead of recomputing them on every Run All.

Each file here is written by a script in ``tools/`` (``tools/tabulate_<chapter>.py``), is
deterministic (seeded), and is checked against a fresh computation of sampled entries by a
test in ``tests/``. Load one with :func:`load_table`.
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np

__all__ = ["load_table", "table_path"]


def table_path(name):
    """Path of the tabulated file ``name`` shipped with svmlib."""
    path = resources.files(__name__) / name
    if not path.is_file():
        raise FileNotFoundError(f"svmlib has no table {name!r}; write it with the matching tools/tabulate_*.py script.")
    return path


def load_table(name):
    """Load a table: a ``.json`` file as a dict, a ``.npz`` file as a dict of arrays."""
    path = table_path(name)
    if name.endswith(".json"):
        return json.loads(path.read_text())
    if name.endswith(".npz"):
        with np.load(path, allow_pickle=False) as data:
            return {key: data[key] for key in data.files}
    raise ValueError(f"unknown table format: {name!r} (use .json or .npz)")
