"""Widgets of :ref:`Chapter 9 <ch-replica>`: the replica theory live on crabs (S/N, kernel width; a held-out input)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.special import ndtr

from ..bootstrap import MonteCarloBootstrap, ReplicaBootstrap, replica_learning_curve
from .._tables import load_table
from ..datasets import load_crabs
from ..kernels import RBF
from ..plotting.bootstrap import draw_cavity_state, draw_field_state
from ._base import Explorer, dropdown, slider

__all__ = ["cavity_explorer", "field_explorer", "cavity_state", "field_state", "LATENCY_CASES"]

S_GRID = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
WIDTHS = {"broad (l = sqrt d)": 1.0, "narrow (l = sqrt d / 4)": 0.25}


@lru_cache(maxsize=None)
def _curve(width):
    """Theory solutions along S_GRID on crabs species (warm-started), cached per width."""
    ds = load_crabs("species")
    K = RBF(l=width * np.sqrt(ds.X.shape[1]))(ds.X)
    return ds.y, replica_learning_curve(K, ds.y, S_GRID)


def cavity_state(S_over_N=1.0, width=1.0):
    """State for the cavity widget: the theory at the nearest grid S/N (precomputed, so events are cheap)."""
    y, sols = _curve(float(width))
    k = int(np.argmin(np.abs(np.log(np.array(S_GRID) / S_over_N))))
    sol = sols[k]
    show = np.arange(0, y.size, 10)
    return dict(S_over_N=S_GRID[k], width=width, error=sol.error, n_iter=sol.n_iter,
                S_grid=np.array(S_GRID), eps_grid=np.array([s.error for s in sols]),
                m_c=y[show] * sol.m_c[show], V_c=sol.V_c[show], y=y[show])


@lru_cache(maxsize=None)
def _held_out(n_samples=300):
    """Crabs species, every 4th crab held out; theory and a seeded Monte Carlo at S = N."""
    ds = load_crabs("species")
    test = np.arange(0, ds.n, 4)
    train = np.setdiff1d(np.arange(ds.n), test)
    kernel = RBF(l=np.sqrt(ds.X.shape[1]))
    theory = ReplicaBootstrap(kernel).fit(ds.X[train], ds.y[train])
    mean, var = theory.field_distribution(ds.X[test])
    if n_samples == 300:  # the same seeded 300 fits are package data (tools/tabulate_replica_chapter.py;
        # tests/test_tables_replica.py recomputes rows): ~1.3 s of fits the chapter need not repeat
        return mean, var, load_table("replica_held_out.npz")["samples"]
    mc = MonteCarloBootstrap(kernel, n_samples=n_samples, random_state=0).fit(ds.X[train], ds.y[train])
    return mean, var, mc.field_samples(ds.X[test])


def field_state(index=0):
    """State for the held-out widget: MC samples and the theory's Gaussian at held-out input ``index``."""
    mean, var, samples = _held_out()
    index = int(index)
    return dict(index=index, mean=mean[index], var=var[index], samples=samples[:, index],
                p_theory=float(ndtr(-mean[index] / np.sqrt(var[index]))),
                p_mc=float(np.mean(samples[:, index] < 0)))


def cavity_explorer():
    """S/N slider and kernel width dropdown -> learning-curve point and cavity Gaussians."""
    for width in WIDTHS.values():  # solve both curves now (~0.1 s each), so no event waits for one
        _curve(width)
    controls = dict(S_over_N=slider(1.0, -0.6, 0.9, 0.3, "S/N", log=True),
                    width=dropdown(list(WIDTHS.items()), 1.0, "kernel"))
    grid = {"S_over_N": [float(10.0 ** e) for e in (-0.6, -0.3, 0.0, 0.3, 0.6, 0.9)], "width": list(WIDTHS.values())}
    return Explorer(cavity_state, draw_cavity_state, controls, figsize=(9, 3.5), grid=grid)


def field_explorer():
    """Pick a held-out crab -> bootstrap distribution of its field (MC histogram vs theory)."""
    controls = dict(index=slider(0, 0, 49, 1, "held-out input"))
    return Explorer(field_state, draw_field_state, controls, figsize=(6, 3.5), grid={"index": list(range(10))})


LATENCY_CASES = [
    (cavity_explorer, "S_over_N", [0.25, 2.0, 8.0]),
    (cavity_explorer, "width", [0.25, 1.0]),
    (field_explorer, "index", [5, 17, 33]),
]
