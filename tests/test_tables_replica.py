"""The tabulated Monte Carlo results of :ref:`Chapter 9 <ch-replica>` equal a fresh computation (sampled entries).

The table (svmlib/_tables/replica_chapter.json, replica_held_out.npz) is written by
tools/tabulate_replica_chapter.py; these tests recompute a few of its entries with the same seeded
calls. Monte Carlo results are deterministic for a seed (independent of n_jobs), so the comparison is
tight: 1e-12 relative for sums of the same fits, 1e-6 for theory values (the fixed point is solved to
1e-8 in the marginals; different BLAS builds may move its last digits).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from svmlib._tables import load_table
from svmlib.bootstrap import exact_loo, monte_carlo_bootstrap, opper_winther_loo, replica_learning_curve

ROOT = Path(__file__).resolve().parent.parent


def _tool():
    spec = importlib.util.spec_from_file_location("tabulate_replica_chapter", ROOT / "tools" / "tabulate_replica_chapter.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


tool = _tool()
TABLE = load_table("replica_chapter.json")


def test_table_layout():
    assert TABLE["S_mc"] == tool.S_MC
    assert [c[0] for c in tool.CASES] == list(TABLE["curves"])
    for label, name, width, n_samples in tool.CASES:
        row = TABLE["curves"][label]
        assert row["data"] == name and row["width"] == width
        assert row["n_samples"] == [tool.n_mc_samples(n_samples, s) for s in tool.S_MC]
        assert len(row["error"]) == len(row["se"]) == len(tool.S_MC) and len(row["eps_theory"]) == len(tool.S_THEORY)
        assert all(0 <= e <= 1 for e in row["error"]) and all(s >= 0 for s in row["se"])
    samples = load_table("replica_held_out.npz")["samples"]
    assert samples.shape == (tool.HELD_OUT_SAMPLES, 50) and np.all(np.isfinite(samples))


@pytest.mark.parametrize("label, k", [("crabs, broad", 1), ("crabs, narrow", 2), ("biopsy, broad", 0)])
def test_monte_carlo_entries(label, k):
    _, name, width, n_samples = next(c for c in tool.CASES if c[0] == label)
    S = tool.S_MC[k]
    K, y = tool.gram(name, width)
    mc = monte_carlo_bootstrap(K, y, S, tool.n_mc_samples(n_samples, S), random_state=tool.SEED)
    row = TABLE["curves"][label]
    assert mc.error == pytest.approx(row["error"][k], rel=1e-12, abs=1e-15)
    assert mc.error_se == pytest.approx(row["se"][k], rel=1e-9, abs=1e-15)
    assert mc.out_of_sample.mean() == pytest.approx(row["left_out"][k], rel=1e-12)


def test_theory_and_loo_entries():
    row = TABLE["curves"]["crabs, narrow"]
    K, y = tool.gram("crabs", 0.25)
    sols = replica_learning_curve(K, y, row["S_theory"])
    np.testing.assert_allclose([s.error for s in sols], row["eps_theory"], rtol=1e-6, atol=1e-9)
    assert opper_winther_loo(K, y)[0] == pytest.approx(row["opper_winther"], abs=1e-12)
    assert exact_loo(K, y)[0] == pytest.approx(row["exact_loo"], abs=1e-12)


def test_width_scan_entries():
    scan = TABLE["width_scan"]
    w = scan["w_mc"][3]  # the broadest width: cheapest fits
    mc_error, mc_se, _ = tool.curve_mc("biopsy", w, 1.0, scan["mc_samples"])
    assert mc_error == pytest.approx(scan["mc_error"][3], rel=1e-12)
    assert mc_se == pytest.approx(scan["mc_se"][3], rel=1e-9)
    assert min(scan["error_632"]) >= scan["best_error_632"] - 1e-6


def test_held_out_column():
    samples = load_table("replica_held_out.npz")["samples"]
    fresh = tool.held_out_samples(40)  # the first 40 seeded samples are the same in a shorter run?
    # seed_sequence(...).spawn(n) gives the same first children for any n: the first 40 rows agree
    np.testing.assert_allclose(fresh, samples[:40], rtol=1e-10, atol=1e-12)
