"""Tests for svmlib.probabilistic: the normalised likelihood, GP prior draws, the effective prior,
the restart process and the MAP (no-bias SVM) with plug-in class probabilities."""

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.svm import SVC

from svmlib import probabilistic as pr
from svmlib.kernels import RBF

THETA = np.linspace(-4, 4, 2001)
CS = [0.05, 0.5, 1.0, 2.0, 7.0, 40.0]


@pytest.mark.parametrize("C", CS)
def test_kappa_makes_max_nu_exactly_one(C):
    nu = pr.nu(THETA, C)
    assert pr.nu(1.0, C) == pytest.approx(1.0, abs=1e-15)
    assert pr.nu(-1.0, C) == pytest.approx(1.0, abs=1e-15)
    assert np.all(nu <= 1.0 + 1e-15)
    # any other normalisation breaks max nu = 1
    q_sum = np.exp(-C * pr.hinge(THETA)) + np.exp(-C * pr.hinge(-THETA))
    assert 1.0 / q_sum.max() == pytest.approx(pr.kappa(C), rel=1e-12)


@pytest.mark.parametrize("C", CS)
def test_nu_formulas_match_direct_sum(C):
    direct = pr.likelihood(np.ones_like(THETA), THETA, C) + pr.likelihood(-np.ones_like(THETA), THETA, C)
    np.testing.assert_allclose(pr.nu(THETA, C), direct, rtol=1e-12)
    inside = np.abs(THETA) <= 1
    if C < 20:  # the plain cosh formula overflows beyond that; log_nu does not
        np.testing.assert_allclose(pr.nu(THETA[inside], C), np.cosh(C * THETA[inside]) / np.cosh(C), rtol=1e-12)
    out = THETA[~inside]
    np.testing.assert_allclose(pr.nu(out, C), pr.kappa(C) * (1 + np.exp(-C * (1 + np.abs(out)))), rtol=1e-12)
    np.testing.assert_allclose(pr.dont_know(THETA, C), 1 - direct, atol=1e-14)


@pytest.mark.parametrize("C", CS)
def test_class_probabilities_sum_to_one_and_match_ratio(C):
    p_plus = pr.class_probability(THETA, C)
    q_plus = pr.likelihood(np.ones_like(THETA), THETA, C)
    q_minus = pr.likelihood(-np.ones_like(THETA), THETA, C)
    np.testing.assert_allclose(p_plus, q_plus / (q_plus + q_minus), rtol=1e-12)
    np.testing.assert_allclose(p_plus + q_minus / (q_plus + q_minus), 1.0, rtol=1e-12)
    # the three pieces of eq. :eq:`(6.14) <gp-class-probability>`
    mid = np.abs(THETA) <= 1
    np.testing.assert_allclose(p_plus[mid], 1 / (1 + np.exp(-2 * C * THETA[mid])), rtol=1e-12)


def test_log_nu_is_finite_for_extreme_values():
    assert np.all(np.isfinite(pr.log_nu(np.array([-1e6, -1, 0, 1, 1e6]), 500.0)))


def test_likelihood_rejects_bad_labels_and_C():
    with pytest.raises(ValueError, match="labels -1 or \\+1"):
        pr.likelihood([0, 1], [0.1, 0.2], 1.0)
    with pytest.raises(ValueError, match="C must be > 0"):
        pr.nu(0.3, -1.0)
    with pytest.raises(ValueError, match="finite"):
        pr.kappa(np.inf)
    with pytest.raises(TypeError):
        pr.nu(0.3, "big")


def test_grid_prior_reuses_white_noise_and_has_the_kernel_covariance():
    g = pr.unit_grid(30)
    prior = pr.GridPrior(RBF(l=0.2), g)
    z = prior.white_noise(4000, random_state=0)
    np.testing.assert_allclose(prior.draw(z, scale=4.0), 2.0 * prior.draw(z))
    draws = prior.draw(z)
    # empirical covariance vs K: entries of a 4000-sample covariance of unit-variance
    # Gaussians have standard error <= sqrt(2/4000) = 0.022; allow 5 of them
    np.testing.assert_allclose(np.cov(draws.T), RBF(l=0.2)(g), atol=0.11)
    with pytest.raises(ValueError, match="shape"):
        prior.draw(np.zeros((3, 7)))


def test_unit_grid_is_cell_centres():
    g = pr.unit_grid(4, dim=2)
    assert g.shape == (16, 2)
    assert g.min() == pytest.approx(0.125) and g.max() == pytest.approx(0.875)


# --- the MAP ----------------------------------------------------------------------------------

def _toy(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] + 0.6 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def test_no_bias_dual_matches_a_general_purpose_qp_solver():
    X, y = _toy()
    K = RBF(l=1.0, B2=1.0)(X)
    C = 2.0
    sol = pr.solve_no_bias_dual(K, y, C)
    assert sol.converged
    Q = K * np.outer(y, y)
    res = minimize(lambda a: 0.5 * a @ Q @ a - a.sum(), np.zeros(y.size), jac=lambda a: Q @ a - 1,
                   bounds=[(0, C)] * y.size, method="L-BFGS-B", options={"ftol": 1e-14, "gtol": 1e-10})
    # both optimise the same concave objective; L-BFGS-B reaches ~1e-8 of its optimum
    assert sol.objective >= -res.fun - 1e-8
    assert sol.objective == pytest.approx(-res.fun, abs=1e-6)
    np.testing.assert_allclose(sol.alpha, res.x, atol=1e-3)


def _projected_gradient(alpha, Q, C):
    grad = 1.0 - Q @ alpha
    return np.where(alpha <= 0, np.maximum(grad, 0), np.where(alpha >= C, np.minimum(grad, 0), grad))


def _independent_qp(Q, C):
    """The box QP by scipy's trust-constr (an interior-point / trust-region method, no SMO)."""
    from scipy.optimize import Bounds

    n = Q.shape[0]
    res = minimize(lambda a: 0.5 * a @ Q @ a - a.sum(), np.full(n, C / 2), jac=lambda a: Q @ a - 1,
                   hess=lambda a: Q, bounds=Bounds(np.zeros(n), np.full(n, C)), method="trust-constr",
                   options={"gtol": 1e-12, "xtol": 1e-14, "maxiter": 5000})
    return np.clip(res.x, 0, C), -res.fun


def test_no_bias_dual_regression_low_rank_linear_kernel_issue_16():
    """Issue 16: 60 seeded 2-D blobs, Linear(B2=1), C = 10. The old least-squares active set
    stopped at W = 367.69 with converged=True; the optimum is W = 369.14 (no-bias SMO and an
    interior-point QP agree)."""
    from svmlib.datasets import make_blobs2d
    from svmlib.dual import solve_dual
    from svmlib.kernels import Linear

    X, y = make_blobs2d(60, separation=1.0, spread=1.0, random_state=0)
    K = Linear(B2=1.0)(X)
    sol = pr.solve_no_bias_dual(K, y, 10.0)
    assert sol.converged
    assert sol.objective == pytest.approx(369.14, abs=0.005)
    Q = K * np.outer(y, y)
    smo = solve_dual(K, y, 10.0, fit_intercept=False, tol=1e-6)
    w_smo = smo.alpha.sum() - 0.5 * smo.alpha @ Q @ smo.alpha
    _, w_ip = _independent_qp(Q, 10.0)
    # both references are at most ~1e-6 (relative) below the optimum; ours must not be below them
    assert sol.objective >= max(w_smo, w_ip) - 1e-6 * abs(w_ip)
    assert np.abs(_projected_gradient(sol.alpha, Q, 10.0)).max() < 1e-8


@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf", "duplicates"])
@pytest.mark.parametrize("C", [0.3, 10.0])
def test_no_bias_dual_is_optimal_on_every_psd_kernel(kernel, C):
    """Against an independent interior-point QP: low-rank kernels (n >> feature dimension) with a
    bias variance, a full-rank RBF, and an RBF with duplicated inputs (a singular K)."""
    from svmlib.kernels import Linear, Polynomial

    X, y = _toy(50, seed=7)
    if kernel == "duplicates":
        X, y = np.vstack([X, X[:10]]), np.r_[y, y[:10]]
    k = {"linear": Linear(B2=1.0), "poly": Polynomial(p=2, c0=1.0, B2=4.0),
         "rbf": RBF(l=0.7, B2=1.0), "duplicates": RBF(l=0.7, B2=1.0)}[kernel]
    K = k(X)
    Q = K * np.outer(y, y)
    sol = pr.solve_no_bias_dual(K, y, C)
    assert sol.converged
    _, w_ref = _independent_qp(Q, C)
    # the QP is concave: no feasible point beats the optimum, and trust-constr stops within
    # ~1e-7 (relative) of it -- ours may be better, never worse than that
    assert sol.objective >= w_ref - 1e-7 * max(1.0, abs(w_ref))
    assert np.abs(_projected_gradient(sol.alpha, Q, C)).max() < 1e-8
    assert np.all((sol.alpha >= 0) & (sol.alpha <= C))


def test_no_bias_dual_on_an_indefinite_kernel_ends_at_a_kkt_point():
    """A kernel that is not PSD: the QP is not concave; the solver still ends at a feasible KKT
    point (a local maximum) instead of a least-squares point, or warns."""
    X, y = _toy(30, seed=2)
    K = np.tanh(0.5 * X @ X.T - 1.0)       # the sigmoid 'kernel', indefinite
    assert np.linalg.eigvalsh(K).min() < -1e-3
    sol = pr.solve_no_bias_dual(K, y, 1.0)
    Q = K * np.outer(y, y)
    assert sol.converged and np.abs(_projected_gradient(sol.alpha, Q, 1.0)).max() < 1e-8


def test_no_bias_svm_approaches_standard_svm_as_bias_variance_grows():
    X, y = _toy()
    ref = SVC(C=1.0, kernel="rbf", gamma=0.5, tol=1e-10).fit(X, y).decision_function(X)
    gaps = []
    for B2 in [10.0, 100.0, 1000.0]:
        model = pr.NoBiasSVC(C=1.0, kernel=RBF(l=1.0, B2=B2)).fit(X, y)
        assert model.converged_
        gaps.append(np.max(np.abs(model.decision_function(X) - ref)))
    # difference ~ 1/B2: each tenfold increase of B2 shrinks it about tenfold (allow 5-20x)
    ratios = np.array(gaps[:-1]) / np.array(gaps[1:])
    assert np.all((ratios > 5) & (ratios < 20)), gaps


def test_no_bias_svc_estimator_api_and_plug_in_probabilities():
    X, y = _toy()
    labels = np.where(y > 0, "yes", "no")
    model = pr.NoBiasSVC(C=2.0, kernel=RBF(l=1.0, B2=1.0)).fit(X, labels)
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert set(model.predict(X)) <= {"yes", "no"}
    theta = model.decision_function(X)
    np.testing.assert_allclose(theta, model.theta_train_, atol=1e-10)
    np.testing.assert_allclose(proba[:, 1], pr.class_probability(theta, 2.0))
    assert model.intercept_ == pytest.approx(1.0 * np.sum(model.alpha_ * y))
    # solution depends only on C K0: (C, K0) = (2, 1) and (0.5, 4) give the same theta*
    other = pr.NoBiasSVC(C=0.5, kernel=RBF(l=1.0, K0=4.0, B2=4.0)).fit(X, y)
    np.testing.assert_allclose(other.decision_function(X), theta, atol=1e-8)
    with pytest.raises(ValueError, match="features"):
        model.decision_function(X[:, :1])
    with pytest.raises(ValueError, match="exactly two classes"):
        pr.NoBiasSVC().fit(X, np.ones(len(X)))


# --- effective prior vs the literal restart process ---------------------------------------

def test_restart_process_agrees_with_effective_prior_sampler():
    g = pr.unit_grid(60)
    prior = pr.GridPrior(RBF(l=0.1, K0=1.0), g)
    n, C = 5, 2.0
    restart = pr.restart_process(prior, n, C, n_accepted=1500, random_state=1)
    # acceptance rate of the restart process = <N^n>; estimate it independently from prior draws
    draws = prior.sample(40000, random_state=2)
    N_n = np.exp(n * pr.log_N(draws, C))
    p_mc, se_mc = N_n.mean(), N_n.std() / np.sqrt(N_n.size)
    p_rs = restart.acceptance_rate
    se_rs = np.sqrt(p_rs * (1 - p_rs) / restart.n_attempts)
    assert abs(p_rs - p_mc) < 4 * np.hypot(se_rs, se_mc), (p_rs, p_mc)
    # gap fraction and sign changes of the surviving functions vs the ESS sampler
    ess = pr.sample_effective_prior(prior, n, C, n_chains=1500, n_anneal=10, n_steps=30, random_state=3)
    prior_gap = pr.gap_share(draws[:1500]).mean()
    for stat in (pr.gap_share, lambda t: np.mean(np.diff(np.sign(t), axis=-1) != 0, axis=-1)):
        a, b = stat(restart.theta), stat(ess.theta)
        se = np.hypot(a.std() / np.sqrt(a.size), b.std() / np.sqrt(b.size))
        assert abs(a.mean() - b.mean()) < 4 * se, (a.mean(), b.mean(), se)
    # and the effective prior really differs from the GP prior: fewer gaps
    assert pr.gap_share(ess.theta).mean() < prior_gap - 0.01


def test_generate_data_labels_and_inputs():
    g = pr.unit_grid(100)
    prior = pr.GridPrior(RBF(l=0.1, K0=2.0), g)
    data = pr.generate_data(prior, 30, 2.0, n_anneal=10, n_steps=10, random_state=0)
    assert data.X.shape == (30, 1) and set(np.unique(data.y)) <= {-1.0, 1.0}
    np.testing.assert_array_equal(data.X, g[data.index])
    p = data.true_probability()
    assert p.shape == (100,) and np.all((p > 0) & (p < 1))
    # labels agree with the sign of theta far more often than not
    agree = np.mean(np.sign(data.theta[data.index]) == data.y)
    assert agree > 0.7
    sets = pr.generate_data(prior, 10, 2.0, n_datasets=3, n_anneal=5, n_steps=5, random_state=0)
    assert len(sets) == 3


def test_restart_process_gives_up_with_a_clear_message():
    prior = pr.GridPrior(RBF(l=0.05), pr.unit_grid(50))
    with pytest.raises(RuntimeError, match="acceptance rate"):
        pr.restart_process(prior, 200, 20.0, n_accepted=5, batch=100, max_attempts=500, random_state=0)


def test_samplers_validate_inputs():
    prior = pr.GridPrior(RBF(l=0.2), pr.unit_grid(20))
    with pytest.raises(TypeError, match="GridPrior"):
        pr.sample_effective_prior(np.eye(3), 5, 1.0)
    with pytest.raises(TypeError):
        pr.restart_process(prior, 2.5, 1.0)
    with pytest.raises(ValueError, match="weights"):
        pr.GridPrior(RBF(), pr.unit_grid(5), weights=[1, 2])


def test_exact_finish_agrees_with_the_foundations_smo_and_satisfies_kkt_to_round_off():
    """solve_no_bias_dual = svmlib.dual.solve_dual (no-bias SMO) + an exact active-set finish.

    Rigorous agreement bound: for the concave quadratic W maximised over the box,
    W* - W(a) >= (a - a*)^T Q (a - a*) / 2 = |w - w*|^2 / 2, and W* - W(a) <= SMO's duality gap,
    so every latent value differs by |theta_i - theta*_i| <= |w - w*| sqrt(K_ii)
    <= sqrt(2 gap K_ii). The finished alpha must also satisfy the KKT conditions to round-off,
    which SMO alone (stopped at tol) does not.
    """
    from svmlib.dual import solve_dual

    X, y = _toy()
    C, tol = 2.0, 1e-6
    for B2 in (1.0, 30.0):
        K = RBF(l=1.0, B2=B2)(X)
        Q = K * np.outer(y, y)
        smo = solve_dual(K, y, C, fit_intercept=False, tol=tol)
        exact = pr.solve_no_bias_dual(K, y, C)
        assert smo.converged and exact.converged
        bound = np.sqrt(2 * max(smo.duality_gap, 0.0) * np.diag(K).max())
        theta_gap = np.abs(K @ (y * exact.alpha) - K @ (y * smo.alpha)).max()
        assert theta_gap <= bound + 1e-12, (theta_gap, bound)
        assert bound < 0.05                                        # and the bound is not vacuous
        assert exact.objective >= smo.objective - 1e-12          # the finish never loses objective
        grad = 1.0 - Q @ exact.alpha
        proj = np.where(exact.alpha <= 0, np.maximum(grad, 0), np.where(exact.alpha >= C, np.minimum(grad, 0), grad))
        assert np.abs(proj).max() < 1e-9 < smo.kkt_violation    # exact to round-off; SMO only to its tol


def test_no_bias_svc_feature_names_and_tol_validation():
    pd = pytest.importorskip("pandas")
    X, y = _toy()
    df = pd.DataFrame(X, columns=["p", "q"])
    model = pr.NoBiasSVC(C=2.0, kernel=RBF(l=1.0, B2=1.0)).fit(df, y)
    np.testing.assert_array_equal(model.feature_names_in_, ["p", "q"])
    # reordered columns used to be accepted silently (and change the predictions)
    with pytest.raises(ValueError, match="feature names"):
        model.predict(df[["q", "p"]])
    with pytest.raises(ValueError, match="tol must be finite and > 0"):
        pr.NoBiasSVC(tol=-1e-3).fit(X, y)
