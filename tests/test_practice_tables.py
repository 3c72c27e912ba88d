"""The large-data table of the chapter "SVMs in practice" (svmlib/_tables/practice_large_scale.json).

Written by ``benchmarks/large_scale.py``; this test recomputes its cheapest entry, the exact ``SVC`` on a
10,000-point subsample, and checks the table's structure and the facts the chapter's prose relies on.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from svmlib._tables import load_table

ROOT = Path(__file__).resolve().parent.parent


def _benchmark():
    spec = importlib.util.spec_from_file_location("large_scale", ROOT / "benchmarks" / "large_scale.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_table_structure_and_meta():
    table = load_table("practice_large_scale.json")
    bench = _benchmark()
    assert table["cases"] == bench.CASES
    assert table["meta"]["n_train"] == bench.N_TRAIN >= 100_000
    for case in bench.CASES:
        row = table["rows"][case]
        assert 0.5 < row["accuracy"] <= 1.0 and row["cpu_seconds"] > 0 and row["peak_mb"] > row["fit_mb"] >= 0


@pytest.mark.slow
def test_svc_subsample_accuracy_is_reproduced():
    from sklearn.svm import SVC

    bench = _benchmark()
    X, y, X_test, y_test = bench.make_data()
    idx = np.random.default_rng(1).choice(len(y), bench.N_SUB, replace=False)
    model = SVC(C=bench.C, gamma=bench.GAMMA).fit(X[idx], y[idx])
    table = load_table("practice_large_scale.json")
    # libsvm is deterministic for a fixed input: the same accuracy to the last test point (1 / 20,000)
    assert abs(model.score(X_test, y_test) - table["rows"]["svc_sub"]["accuracy"]) < 1e-12
    assert model.support_.size == table["rows"]["svc_sub"]["n_support"]
