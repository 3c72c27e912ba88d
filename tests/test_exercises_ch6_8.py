"""Checkers and tabulated data of :ref:`Chapter 6 <ch-gp-prior>` to :ref:`Chapter 8 <ch-mean-field-gpc>` (GP prior, evidence, mean-field GPC).

Each checker is called with a right and with a wrong answer; each table the chapters read is
compared with a fresh computation of sampled entries.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from svmlib import evidence as ev
from svmlib import probabilistic as pr
from svmlib._tables import load_table
from svmlib.exercises import evidence as ex_ev
from svmlib.kernels import RBF


# --- :ref:`Chapter 7 <ch-evidence>`: the Laplace evidence ------------------------------------------------------------

def _laplace_by_hand(K, y, alpha, C, *, two_pi=True, identity=True):
    theta = K @ (alpha * y)
    fit = -0.5 * np.sum(y * alpha * theta) - C * np.sum(np.maximum(0.0, 1.0 - y * theta))
    m = (alpha > 0) & (alpha < C)
    L = (2 * np.pi if two_pi else 1.0) * (alpha[m] * (C - alpha[m]) / C) ** 2
    A = L[:, None] * K[np.ix_(m, m)] + (np.eye(m.sum()) if identity else 0)
    return fit - len(y) * np.log1p(np.exp(-2 * C)) - 0.5 * np.linalg.slogdet(A)[1]


def test_check_laplace_evidence_accepts_a_right_answer():
    fb = ex_ev.check_laplace_evidence(_laplace_by_hand)
    assert fb.correct, fb.message


@pytest.mark.parametrize("kwargs, words", [({"two_pi": False}, "2 pi"), ({"identity": False}, "identity")])
def test_check_laplace_evidence_names_the_slip(kwargs, words):
    fb = ex_ev.check_laplace_evidence(lambda K, y, a, C: _laplace_by_hand(K, y, a, C, **kwargs))
    assert not fb.correct and words in fb.message and "n = 12" in fb.message


def test_check_laplace_evidence_survives_bad_functions():
    assert "raised ZeroDivisionError" in ex_ev.check_laplace_evidence(lambda *a: 1 / 0).message
    assert "one finite float" in ex_ev.check_laplace_evidence(lambda *a: [1.0, 2.0]).message
    assert not ex_ev.check_laplace_evidence("not a function").correct
    off = ex_ev.check_laplace_evidence(lambda *a: _laplace_by_hand(*a) + 0.3)
    assert not off.correct and "+0.3" in off.message


def test_laplace_cases_have_marginal_and_bound_inputs():
    for name, K, y, alpha, C in ex_ev.laplace_cases():
        assert np.any((alpha > 1e-9 * C) & (alpha < C * (1 - 1e-9))), name
        assert np.any(alpha < 1e-9 * C) and np.any(alpha > C * (1 - 1e-9)), name


def test_check_n1_log_evidence_right_and_wrong():
    right = ev.exact_log_naive_evidence(np.array([[0.5]]), np.array([1.0]), 3.0)
    assert ex_ev.check_n1_log_evidence(0.5, 3.0, right).correct
    wrong = ex_ev.check_n1_log_evidence(0.5, 3.0, right + np.log1p(np.exp(-6.0)))
    assert not wrong.correct and "kappa" in wrong.message


# --- :ref:`Chapter 7 <ch-evidence>`: the tabulated toy (tools/tabulate_evidence.py) ----------------------------------

@pytest.fixture(scope="module")
def evidence_table():
    return load_table("evidence_toy.json")


def test_evidence_table_normalisers_recompute(evidence_table):
    """The chained and the plain-MC normaliser are seeded: a fresh run gives the table's values."""
    import importlib.util
    from pathlib import Path
    spec = importlib.util.spec_from_file_location("tab", Path(__file__).resolve().parent.parent / "tools" / "tabulate_evidence.py")
    tab = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tab)
    norm = tab.chained_normaliser()
    # Same seeded computation, but the table may come from another CPU: the prior draws go through the
    # Cholesky factor of a 100-point RBF Gram matrix (l = 0.05, relative jitter 1e-10: condition ~1e10), which
    # another BLAS kernel rounds differently by up to ~cond * eps ~ 2e-6 relative, so n ln N (n = 50) moves by up
    # to ~n * cond * eps ~ 1e-4 nats. Measured: 1.2e-6 (chain), 3e-7 (plain MC) with OpenBLAS's Haswell kernel.
    # 1e-3 nats is 10x the bound and 60x below the smallest standard error (0.066): a real change still fails.
    roundoff = 1e-3
    np.testing.assert_allclose(norm.log_value, evidence_table["log_norm_chain"], atol=roundoff)
    np.testing.assert_allclose(norm.std_error, evidence_table["se_chain"], atol=roundoff)
    Cs = np.array(evidence_table["C"])
    prior = pr.GridPrior(RBF(l=0.05), pr.unit_grid(100))
    for j in (0, 12, 24):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ev.LowESSWarning)
            mc = ev.log_normaliser_mc(prior, 50, Cs[j], n_draws=2000, scale=10.0 / Cs[j], random_state=0)
        assert mc.log_value == pytest.approx(evidence_table["log_norm_mc"][j], abs=roundoff)
    # every data set: maxima and label counts (~6 s; a sample of three missed two stale near-ties, seeds 30 and 45,
    # whose top two evidence values differ by ~0.003 nats, after a solver change)
    log_mc = evidence_table["log_norm_mc"]
    stale = [seed for seed, row in enumerate(evidence_table["sets"]) if tab.toy_set(seed, norm, log_mc) != row]
    assert not stale, f"evidence_toy.json is stale for data seeds {stale}: run tools/tabulate_evidence.py"
    assert tab.positives_l01(16) == evidence_table["n_positive_l01"][16]


@pytest.mark.slow
def test_evidence_table_exact_three_point_value(evidence_table):
    import importlib.util
    from pathlib import Path
    spec = importlib.util.spec_from_file_location("tab", Path(__file__).resolve().parent.parent / "tools" / "tabulate_evidence.py")
    tab = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tab)
    # numerical integration at epsrel 1e-7: the tabulated value is reproduced to 1e-6 nats
    assert tab.exact_n3() == pytest.approx(evidence_table["exact_n3"], abs=1e-6)


# --- :ref:`Chapter 6 <ch-gp-prior>`: the normalised likelihood -------------------------------------------------------

from svmlib.exercises import probabilistic as ex_pr  # noqa: E402


def _likelihood_by_hand(theta, C, *, kappa=True, swap=False):
    k = 1.0 / (1.0 + np.exp(-2.0 * C)) if kappa else 1.0
    qp = k * np.exp(-C * np.maximum(0.0, 1.0 - theta))
    qm = k * np.exp(-C * np.maximum(0.0, 1.0 + theta))
    return (qm, qp, qp + qm) if swap else (qp, qm, qp + qm)


def test_check_normalised_likelihood_right_and_wrong():
    assert ex_pr.check_normalised_likelihood(_likelihood_by_hand).correct
    no_kappa = ex_pr.check_normalised_likelihood(lambda t, C: _likelihood_by_hand(t, C, kappa=False))
    assert not no_kappa.correct and "kappa" in no_kappa.message and "C = 0.5" in no_kappa.message
    swapped = ex_pr.check_normalised_likelihood(lambda t, C: _likelihood_by_hand(t, C, swap=True))
    assert not swapped.correct and "l(-theta)" in swapped.message
    unit_nu = ex_pr.check_normalised_likelihood(lambda t, C: _likelihood_by_hand(t, C)[:2] + (np.ones_like(t),))
    assert not unit_nu.correct and "nu is not 1" in unit_nu.message
    assert "shape" in ex_pr.check_normalised_likelihood(lambda t, C: (t[:2], t, t)).message
    assert "three arrays" in ex_pr.check_normalised_likelihood(lambda t, C: 1.0).message
    assert not ex_pr.check_normalised_likelihood(None).correct


def test_check_dont_know_at_zero_right_and_wrong():
    assert ex_pr.check_dont_know_at_zero(2.0, 1 - 1 / np.cosh(2.0)).correct
    assert "DEFINITE" in ex_pr.check_dont_know_at_zero(2.0, 1 / np.cosh(2.0)).message


# --- :ref:`Chapter 8 <ch-mean-field-gpc>`: naive mean-field update, ADF step, tabulated Pima fits ---------------------------

from svmlib import gpc  # noqa: E402
from svmlib.exercises import gpc as ex_gpc  # noqa: E402


def _naive_update(K, y, alpha, *, self_term=True):
    V = np.diag(K)
    m = K @ (y * alpha)
    m_cav = m - V * y * alpha if self_term else m
    return gpc.D(y * m_cav / np.sqrt(V)) / np.sqrt(V)


def test_check_naive_update_right_and_wrong():
    assert ex_gpc.check_naive_update(_naive_update).correct
    wrong = ex_gpc.check_naive_update(lambda K, y, a: _naive_update(K, y, a, self_term=False))
    assert not wrong.correct and "leave example i out" in wrong.message and "sigma^2 = 1" in wrong.message
    assert "shape" in ex_gpc.check_naive_update(lambda K, y, a: a[:2]).message
    assert "raised" in ex_gpc.check_naive_update(lambda K, y, a: 1 / 0).message
    assert not ex_gpc.check_naive_update(3).correct


def test_naive_update_fixed_point_is_the_library_solution():
    name, K, y = ex_gpc.gpc_cases()[0]
    sol = gpc.solve_mean_field(K, y, "naive")
    np.testing.assert_allclose(_naive_update(K, y, sol.alpha), sol.alpha, rtol=1e-9)


def _adf_step(alpha, R, k, k_star, y, *, sign=1.0):
    Rk = R @ k
    s2 = k_star + k @ Rk
    z = y * (k @ alpha) / np.sqrt(s2)
    s = np.r_[Rk, 1.0]
    return (np.r_[alpha, 0.0] + y * gpc.D(z) / np.sqrt(s2) * s,
            np.pad(R, ((0, 1), (0, 1))) + sign * gpc.dD(z) / s2 * np.outer(s, s))


def test_check_adf_step_right_and_wrong():
    assert ex_gpc.check_adf_step(_adf_step).correct
    wrong = ex_gpc.check_adf_step(lambda *a: _adf_step(*a, sign=-1.0))
    assert not wrong.correct and "wrong sign" in wrong.message
    shapes = ex_gpc.check_adf_step(lambda a, R, k, ks, y: (a, R))
    assert not shapes.correct and "shapes" in shapes.message
    assert "failed" in ex_gpc.check_adf_step(lambda *a: None).message


@pytest.mark.slow
def test_gpc_table_recomputes():
    """tools/tabulate_gpc.py is deterministic: a fresh naive fit and the exact 8-point values agree."""
    import importlib.util
    from pathlib import Path
    spec = importlib.util.spec_from_file_location("tabg", Path(__file__).resolve().parent.parent / "tools" / "tabulate_gpc.py")
    tab = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tab)
    table = load_table("gpc_pima.json")
    fit = tab.fit("naive")
    # the same L-BFGS run on the same data: identical up to BLAS round-off
    np.testing.assert_allclose(fit.length_scales, table["fits"]["naive"]["length_scales"], rtol=1e-6)
    assert fit.free_energy == pytest.approx(table["fits"]["naive"]["free_energy"], rel=1e-9)
    assert fit.n_iter == table["fits"]["naive"]["n_iter"]
    from svmlib.datasets import load_pima
    pima = load_pima()
    assert tab.test_errors(pima, fit.length_scales, fit.noise_var, "ep") == table["errors"]["naive"]["ep"]
    # Genz's orthant integration at rel_tol 1e-6: the tabulated -ln Z is reproduced to 1e-5
    assert tab.exact_8(0.1) == pytest.approx(table["exact_8"]["0.1"], abs=1e-5)
    # the MCMC summaries are seeded: a fresh run at sigma^2 = 1 gives the same slopes (round-off only)
    fresh = tab.means_summary(1.0)
    for m, v in table["means_by_noise"]["1.0"]["slope"].items():
        assert fresh["slope"][m] == pytest.approx(v, abs=1e-10)
