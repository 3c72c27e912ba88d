"""Input checks, warnings and small public helpers the module tests do not reach.

Bad input must raise ValueError/TypeError with a message that says what to do (never a
traceback from deep inside numpy, never a silent NaN); iterative solvers stopped early must
warn with ConvergenceWarning and say so in ``converged``. Where a helper computes something,
the result is checked against an independent computation.
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from svmlib import evidence as ev
from svmlib import gpc, lssvr, margin
from svmlib import probabilistic as pr
from svmlib.bootstrap import (MonteCarloBootstrap, ReplicaBootstrap, fit_hard_margin, kernel_cholesky,
                              monte_carlo_bootstrap, ratio_error, seed_sequence)
from svmlib.gpc._exact import as_generator
from svmlib.kernels import RBF, Linear, UserKernel


def _negative_kernel(X, Y):
    """A 'kernel' with a negative diagonal: no Cholesky factor, whatever the relative jitter."""
    return -((1.0 + X @ Y.T) ** 2)


# ----------------------------------------------------------------------------- margin (:ref:`Chapter 1 <ch-margin>`)
def test_margin_rejects_non_finite_normals_and_angles(separable_blobs):
    X, y = separable_blobs
    with pytest.raises(ValueError, match="w contains NaN or infinity"):
        margin.signed_distances(X, [np.nan, 1.0], 0.0)
    with pytest.raises(ValueError, match="angle must be finite"):
        margin.best_margin_for_direction(X, y, np.inf)


def test_max_margin_solution_decision_function_and_angle(separable_blobs):
    X, y = separable_blobs
    sol = margin.max_margin_hyperplane(X, y)
    # the hard-margin SVM from libsvm (C huge) is the same hyperplane
    ref = SVC(kernel="linear", C=1e8, tol=1e-10).fit(X, y)
    np.testing.assert_allclose(sol.decision_function(X), ref.decision_function(X), atol=1e-4)
    np.testing.assert_allclose(sol.decision_function(X), X @ sol.w + sol.b)
    with pytest.raises(ValueError, match="X has 1 features; this hyperplane lives in 2 dimensions"):
        sol.decision_function(X[:, :1])
    # angle_offset inverts line_from_angle: same line, unit normal
    angle, offset = sol.angle_offset()
    w_unit, b_unit = margin.line_from_angle(angle, offset)
    scale = np.linalg.norm(sol.w)
    np.testing.assert_allclose(w_unit, sol.w / scale, atol=1e-12)
    assert b_unit == pytest.approx(sol.b / scale)


def test_angle_offset_is_only_for_lines_in_the_plane(blobs5d):
    X, y = blobs5d
    sep = np.where(X @ np.array([1.0, -2.0, 0.5, 0.0, 1.5]) > 0, 1.0, -1.0)  # the teacher, no noise
    sol = margin.max_margin_hyperplane(X, sep)
    assert np.all(sep * sol.decision_function(X) >= 1 - 1e-5)
    with pytest.raises(ValueError, match="lines in the plane"):
        sol.angle_offset()


# ----------------------------------------------------------------------------- probabilistic (:ref:`Chapter 6 <ch-gp-prior>`)
def test_grid_prior_checks_weights_noise_and_definiteness():
    grid = pr.unit_grid(10)
    with pytest.raises(ValueError, match="weights must be 10 non-negative numbers"):
        pr.GridPrior(RBF(l=0.2), grid, weights=np.r_[-1.0, np.ones(9)])
    with pytest.raises(ValueError, match="not all zero"):
        pr.GridPrior(RBF(l=0.2), grid, weights=np.zeros(10))
    prior = pr.GridPrior(RBF(l=0.2), grid, weights=np.arange(1.0, 11.0))
    np.testing.assert_allclose(prior.weights, np.arange(1.0, 11.0) / 55.0)
    with pytest.raises(ValueError, match=r"shape \(n_draws, 10\); got \(2, 9\)"):
        prior.draw(np.zeros((2, 9)))
    # one white-noise vector is one draw, the same as a batch of one
    z = np.random.default_rng(0).standard_normal(10)
    np.testing.assert_array_equal(prior.draw(z, scale=4.0), prior.draw(z[None, :], scale=4.0))
    np.testing.assert_allclose(prior.draw(z, scale=4.0)[0], 2.0 * prior.L @ z)
    with pytest.raises(ValueError, match="not positive definite even with relative jitter"):
        pr.GridPrior(UserKernel(_negative_kernel), grid)


def test_restart_process_and_ais_need_a_grid_prior():
    with pytest.raises(TypeError, match="GridPrior"):
        pr.restart_process(RBF(), 5, 1.0)
    with pytest.raises(TypeError, match="GridPrior"):
        ev.log_normaliser_ais(RBF(), 5, 1.0)


def test_no_bias_dual_checks_K_and_warns_when_stopped_early():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=30) > 0, 1.0, -1.0)
    K = RBF(l=1.0, B2=100.0)(X)  # a large bias variance: the SMO start is far from exact
    with pytest.raises(ValueError, match=r"shape \(30, 30\)"):
        pr.solve_no_bias_dual(K[:, :29], y, 1.0)
    full = pr.solve_no_bias_dual(K, y, 10.0)
    assert full.converged
    with pytest.warns(ConvergenceWarning, match="stopped after 1 active-set iterations"):
        early = pr.solve_no_bias_dual(K, y, 10.0, max_iter=1)
    assert not early.converged and early.n_iter == 1
    assert np.all((early.alpha >= 0) & (early.alpha <= 10.0))  # still feasible
    assert early.objective <= full.objective + 1e-12  # and no better than the optimum


# ----------------------------------------------------------------------------- evidence (:ref:`Chapter 7 <ch-evidence>`)
def test_exact_evidence_checks_the_gram_matrix():
    with pytest.raises(ValueError, match=r"finite \(2, 2\) kernel matrix"):
        ev.exact_log_naive_evidence(np.eye(3), np.array([1.0, -1.0]), 1.0)
    with pytest.raises(ValueError, match="singular"):
        ev.exact_log_naive_evidence(np.ones((2, 2)), np.array([1.0, -1.0]), 1.0)


def test_evidence_curve_checks_C_values_and_the_normaliser():
    rng = np.random.default_rng(0)
    X = rng.random((8, 1))
    y = np.array([1.0, -1.0] * 4)
    with pytest.raises(ValueError, match="positive, finite"):
        ev.evidence_curve(X, y, RBF(l=0.2), [-1.0, 1.0], CK0=5.0, normaliser=None)
    wrong = ev.NormaliserCurve(C=np.array([1.0, 2.0]), log_value=np.zeros(2), std_error=np.zeros(2), n=9, CK0=5.0)
    with pytest.raises(ValueError, match="made for another n"):
        ev.evidence_curve(X, y, RBF(l=0.2), [1.0, 2.0], CK0=5.0, normaliser=wrong)


def test_evidence_curve_with_the_chained_normaliser_matches_normaliser_curve():
    rng = np.random.default_rng(0)
    X = rng.random((6, 1))
    y = np.array([1.0, -1.0] * 3)
    C = np.array([0.5, 1.0, 2.0])
    opts = dict(n_chains=20, n_beta=5, n_between=2, n_replicas=2, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ev.LowESSWarning)  # a tiny run: only the plumbing is tested
        curve = ev.evidence_curve(X, y, RBF(l=0.3), C, CK0=4.0, **opts)
        direct = ev.normaliser_curve(RBF(l=0.3), X, 6, C, CK0=4.0, **opts)
    np.testing.assert_allclose(curve.log_normaliser, direct.log_value)
    np.testing.assert_allclose(curve.log_evidence, curve.log_naive - direct.log_value)


# ----------------------------------------------------------------------------- GPC (:ref:`Chapter 8 <ch-mean-field-gpc>`)
def test_as_generator_accepts_every_seed_form():
    gen = np.random.default_rng(5)
    assert as_generator(gen) is gen
    a = as_generator(np.random.RandomState(0)).random(3)
    b = as_generator(np.random.RandomState(0)).random(3)
    np.testing.assert_array_equal(a, b)  # seeded RandomState -> reproducible Generator
    np.testing.assert_array_equal(as_generator(7).random(3), as_generator(7).random(3))


def test_exact_alpha_size_limits():
    with pytest.raises(ValueError, match="exactly two examples"):
        gpc.alpha_exact_n2(np.eye(3), np.ones(3))
    with pytest.raises(ValueError, match="n <= 12"):
        gpc.alpha_exact(np.eye(13), np.ones(13))


def test_posterior_samples_test_mean_is_the_rao_blackwellised_mean():
    X, y = gpc.make_demo_problem(6)
    K = RBF(l=1.0)(X) + 0.1 * np.eye(6)
    post = gpc.sample_posterior(K, y, 40, n_chains=4, burn_in=20, random_state=0)
    X_new = np.array([[0.0, 0.0], [1.0, -1.0]])
    K_cross = RBF(l=1.0)(X_new, X)
    mean, se = post.test_mean(K, K_cross)
    # <f*> = k*^T K^-1 <a> with <a> the mean over all samples (chains of equal length)
    np.testing.assert_allclose(mean, K_cross @ np.linalg.solve(K, post.mean), rtol=1e-10)
    chain_f = K_cross @ np.linalg.solve(K, post.samples.mean(axis=1).T)
    np.testing.assert_allclose(se, chain_f.std(axis=1, ddof=1) / 2.0, rtol=1e-10)


def test_mean_field_and_online_input_checks():
    K, y = np.eye(3), np.array([1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="square training kernel"):
        gpc.solve_mean_field(np.ones((3, 2)), y, "naive")
    with pytest.raises(ValueError, match="one label per row of K"):
        gpc.solve_mean_field(K, y[:2], "naive")
    with pytest.raises(ValueError, match="inf or NaN entries"):
        gpc.solve_mean_field(K * np.nan, y, "naive")
    with pytest.raises(ValueError, match="y must be finite"):
        gpc.solve_mean_field(K, y * np.nan, "naive")
    with pytest.raises(ValueError, match="labels -1/\\+1"):
        gpc.solve_mean_field(K, np.array([1.0, 0.0, 1.0]), "naive")
    with pytest.raises(ValueError, match="diagonal"):
        gpc.solve_mean_field(np.zeros((3, 3)), y, "naive")
    with pytest.raises(ValueError, match="EP's cavity variances"):
        gpc.cavity_variances(K, "ep")
    with pytest.raises(ValueError, match=r"K_train must have shape"):
        gpc.online_sweep(K, y[:2])
    with pytest.raises(ValueError, match="labels -1/\\+1"):
        gpc.online_sweep(K, np.array([2.0, -1.0, 1.0]))


def test_gpc_estimators_warn_and_check():
    X, y = gpc.make_demo_problem(20)
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        clf = gpc.MeanFieldGPC(RBF(l=1.0), noise_var=0.01, method="naive", max_iter=1).fit(X, y)
    assert not clf.converged_ and clf.n_iter_ == 1
    assert np.all(np.isfinite(clf.alpha_))  # stopped early, but no NaN
    assert gpc.MeanFieldGPC(RBF(l=1.0), noise_var=0.01, method="naive").fit(X, y).converged_
    X0 = np.vstack([np.zeros((1, 2)), X[1:]])  # a zero input: the linear kernel's K(x, x) = 0 there
    with pytest.raises(ValueError, match="kernel diagonal must be > 0"):
        gpc.SequentialGPC(Linear(), noise_var=0.0, shuffle=False).fit(X0, y)


# ----------------------------------------------------------------------------- bootstrap (:ref:`Chapter 9 <ch-replica>`)
def test_bootstrap_estimators_check_their_inputs(separable_blobs):
    X, y = separable_blobs
    with pytest.raises(ValueError, match="target y is None"):
        ReplicaBootstrap().fit(X, None)
    with pytest.raises(ValueError, match="inconsistent numbers of samples: \\[40, 39\\]"):
        ReplicaBootstrap().fit(X, y[:39])
    with pytest.raises(ValueError, match="not fitted yet"):
        MonteCarloBootstrap().field_samples(X)
    fitted = ReplicaBootstrap(kernel=RBF(l=3.0)).fit(X, y)
    with pytest.raises(ValueError, match="X has 1 features, but ReplicaBootstrap is expecting 2 features"):
        fitted.predict_proba(X[:, :1])


def test_hard_margin_helpers_edge_cases():
    with pytest.raises(ValueError, match="not positive definite"):
        kernel_cholesky(-np.eye(3))
    assert fit_hard_margin(np.zeros((0, 0)), np.zeros(0), check=False).shape == (0,)


def test_seed_sequence_and_ratio_error():
    ss = np.random.SeedSequence(4)
    assert seed_sequence(ss) is ss
    a = seed_sequence(np.random.default_rng(1)).generate_state(2)
    b = seed_sequence(np.random.default_rng(1)).generate_state(2)
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="non-negative integer"):
        seed_sequence(-3)
    y = np.array([1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="No point was ever left out"):
        ratio_error(np.ones((4, 3), dtype=int), np.ones((4, 3)), y)


def test_monte_carlo_point_errors_count_left_out_mistakes():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(15, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    K = RBF(l=1.5)(X)
    res = monte_carlo_bootstrap(K, y, 1.0, 25, random_state=0)
    errs = res.point_errors(y)
    # by hand: among the samples leaving point i out, the fraction with y_i f_i < 0
    out = res.occupations == 0
    for i in range(15):
        k = out[:, i]
        expected = np.mean(y[i] * res.fields[k, i] < 0) if k.any() else np.nan
        np.testing.assert_equal(errs[i], expected)


# ----------------------------------------------------------------------------- LS-SVR (:ref:`Chapter 10 <ch-lssvr>`)
def test_lssvr_input_checks():
    with pytest.raises(ValueError, match="at least 2"):
        lssvr.make_sinc(1)
    with pytest.raises(ValueError, match="Need low < high"):
        lssvr.make_sinc(10, low=1.0, high=0.0)
    K = np.eye(3)
    with pytest.raises(ValueError, match="1-D array of targets"):
        lssvr.solve_lssvr(K, np.ones((3, 1)), 1.0)
    with pytest.raises(ValueError, match="NaN or infinity"):
        lssvr.solve_lssvr(K, np.array([1.0, np.nan, 0.0]), 1.0)
    with pytest.raises(ValueError, match="eps_values must be a 1-D array"):
        lssvr.lemma_gap_path(K, np.ones(3), 1.0, [1e-3, -1.0])
    with pytest.raises(ValueError, match="positive, finite x and y"):
        lssvr.loglog_slope([1.0, 2.0], [1.0, 0.0])
    x = np.logspace(-3, 0, 7)
    assert lssvr.loglog_slope(x, 3 * x ** 2) == pytest.approx(2.0)


def test_lssvr_posterior_precision_singular_for_identical_inputs():
    # Three identical inputs (K = 1 1^T) and a negligible ridge 1/gamma: the KKT matrix is singular
    # to working precision, so no posterior mean can be computed.
    with pytest.raises(ValueError, match="posterior precision is singular"):
        lssvr.posterior_factor(np.ones((3, 3)), np.array([1.0, 2.0, 3.0]), 1e16, 0.0)
    # with a real ridge the same data are fine: the mean of y is the bias, as for any constant kernel
    _, mu = lssvr.posterior_factor(np.ones((3, 3)), np.array([1.0, 2.0, 3.0]), 1.0, 0.0)
    assert np.all(np.isfinite(mu))


def test_lssvr_posterior_without_a_gaussian():
    X, y = lssvr.make_sinc(30, random_state=0)
    K = lssvr.rbf_from_c(1.0)(X)
    # sigma^2 > 1 with the seed's indefinite prior (tiny eps): no positive definite posterior precision
    with pytest.raises(ValueError, match="not positive definite"):
        lssvr.posterior_factor(K, y, 1.0, 1e-12, noise_variance=50.0)
    with pytest.raises(ValueError, match="not positive definite: use a valid kernel"):
        lssvr.GPRegression(kernel=UserKernel(_negative_kernel), noise_variance=0.1).fit(X, y)
