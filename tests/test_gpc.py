"""Tests of svmlib.gpc against independent ground truth.

Ground truths: closed-form orthant probabilities (n <= 3), Genz's multivariate
normal CDF (scipy), integration by parts with conditional orthant probabilities
(exact alpha for n = 4), elliptical slice sampling (checked itself against the
exact n = 4 answer), importance sampling, finite differences, an independent
full-covariance ADF, and scikit-learn's GaussianProcessClassifier.
"""

import warnings

import numpy as np
import pytest
from scipy import stats
from scipy.special import ndtr
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process import GaussianProcessClassifier
from sklearn.gaussian_process.kernels import RBF as SkRBF

from svmlib.datasets import load_crabs, load_pima
from svmlib.gpc import (
    METHODS,
    D,
    MeanFieldGPC,
    SequentialGPC,
    alpha_exact,
    alpha_exact_n2,
    dD,
    ensemble_bound,
    fit_hyperparameters,
    fit_slope,
    free_energy,
    free_energy_and_gradient,
    log_evidence_exact,
    log_evidence_importance,
    make_demo_problem,
    online_sweep,
    sample_posterior,
    solve_mean_field,
    training_kernel,
)
from svmlib.kernels import RBF, Polynomial


def demo_kernel(n, noise_var, seed=0, l=1.0):
    X, y = make_demo_problem(n, random_state=seed)
    return RBF(l=l)(X) + noise_var * np.eye(n), y, X


# ----------------------------------------------------------------------------- D(z), D'(z)
def test_D_matches_direct_ratio_and_is_finite_in_the_tails():
    z = np.linspace(-8, 8, 33)
    np.testing.assert_allclose(D(z), stats.norm.pdf(z) / stats.norm.cdf(z), rtol=1e-10)
    far = D(np.array([-1e3, -40.0, 40.0]))
    assert np.all(np.isfinite(far))
    # Mills-ratio asymptotics: D(z) = -z - 1/z + O(z^-3) for z -> -inf. The exponent
    # -z^2/2 - ln Phi(z) cancels two numbers ~5e5: round-off ~1e-10 relative, 1e-7 absolute.
    assert abs(far[0] - (1e3 + 1e-3)) < 1e-6
    assert far[2] == pytest.approx(0.0, abs=1e-300)


def test_dD_is_the_derivative_of_D():
    z = np.linspace(-6, 6, 25)
    eps = 1e-6  # central differences: error O(eps^2) ~ 1e-12, round-off ~ 1e-10
    np.testing.assert_allclose(dD(z), (D(z + eps) - D(z - eps)) / (2 * eps), atol=1e-8)
    assert np.all((dD(z) < 0) & (dD(z) > -1))


# ----------------------------------------------------------------------------- exact cases
@pytest.mark.parametrize("method", METHODS)
def test_single_example_is_exact(method):
    K, y = np.array([[2.5]]), np.array([-1.0])
    sol = solve_mean_field(K, y, method)
    # Half-normal posterior: <a> = y sqrt(2K/pi), so alpha = sqrt(2 / (pi K)); ln Z = -ln 2.
    assert sol.alpha[0] == pytest.approx(np.sqrt(2 / (np.pi * 2.5)), rel=1e-12)
    assert free_energy(K, y, sol) == pytest.approx(np.log(2), rel=1e-12)


@pytest.mark.parametrize("method", METHODS)
def test_diagonal_kernel_is_exact(method):
    Kd = np.array([0.5, 1.0, 3.0, 7.0])
    K, y = np.diag(Kd), np.array([1.0, -1.0, -1.0, 1.0])
    sol = solve_mean_field(K, y, method)
    np.testing.assert_allclose(sol.alpha, np.sqrt(2 / (np.pi * Kd)), rtol=1e-12)
    assert free_energy(K, y, sol) == pytest.approx(4 * np.log(2), rel=1e-12)


def _orthant_probability(cov):
    """P(z < 0) for z ~ N(0, cov) in 2 or 3 dimensions, in closed form (Sheppard; Plackett):
    1/4 + arcsin(rho)/(2 pi), and 1/8 + (arcsin rho_12 + arcsin rho_13 + arcsin rho_23)/(4 pi)."""
    sd = np.sqrt(np.diag(cov))
    rho = cov / np.outer(sd, sd)
    arcs = np.arcsin(rho[np.triu_indices(len(cov), 1)])
    return {2: 0.25 + arcs.sum() / (2 * np.pi), 3: 0.125 + arcs.sum() / (4 * np.pi)}[len(cov)]


def test_exact_evidence_closed_forms_match_orthant_probabilities():
    """Independent and exact: the orthant probabilities of a 2- and 3-variate normal have closed forms (scipy's
    Genz integrator agrees only to its quasi-Monte Carlo error, which differs between scipy releases)."""
    K, y, _ = demo_kernel(3, 0.2, seed=5)
    assert log_evidence_exact(K, y) == pytest.approx(np.log(_orthant_probability(K * np.outer(y, y))), abs=1e-12)
    assert log_evidence_exact(K[:2, :2], y[:2]) == pytest.approx(
        np.log(_orthant_probability(K[:2, :2] * np.outer(y[:2], y[:2]))), abs=1e-12)
    genz = np.log(stats.multivariate_normal.cdf(np.zeros(3), np.zeros(3), K * np.outer(y, y),
                                                abseps=1e-12, releps=1e-9))
    assert log_evidence_exact(K, y) == pytest.approx(genz, abs=1e-4)  # Genz: its QMC error, not ours
    assert log_evidence_exact(K[:1, :1], y[:1]) == -np.log(2)


def test_n2_alpha_closed_form_and_the_approximations_around_it():
    K, y = np.array([[1.0, 0.6], [0.6, 1.5]]), np.array([1.0, 1.0])
    exact = alpha_exact_n2(K, y)
    np.testing.assert_allclose(alpha_exact(K, y), exact, rtol=1e-10)
    # The n = 2 integral directly: <a_1> = E[a_1 ; orthant] / Z by Monte Carlo-free quadrature.
    Z = np.exp(log_evidence_exact(K, y))
    rng = np.random.default_rng(0)
    a = rng.multivariate_normal(np.zeros(2), K, size=400_000)
    inside = np.all(a > 0, axis=1)
    mean_mc = (a * inside[:, None]).mean(axis=0) / Z
    se = (a * inside[:, None]).std(axis=0) / np.sqrt(len(a)) / Z
    assert np.all(np.abs(K @ (y * exact) - mean_mc) < 4 * se)
    naive, ens, ep = (solve_mean_field(K, y, m).alpha for m in METHODS)
    # The seed's bias directions: naive too large, ensemble too small; EP within 0.2 %.
    assert np.all(naive > exact) and np.all(ens < exact)
    np.testing.assert_allclose(ep, exact, rtol=2e-3)


def test_ep_is_nearly_exact_for_four_examples():
    K, y, _ = demo_kernel(4, 0.03, seed=3)
    exact_m = K @ (y * alpha_exact(K, y))
    ep = solve_mean_field(K, y, "ep").m
    # EP's error here is ~0.1 %; the Genz integration error ~1e-6.
    assert np.linalg.norm(ep - exact_m) / np.linalg.norm(exact_m) < 0.01


def test_slice_sampler_agrees_with_exact_posterior_mean():
    K, y, _ = demo_kernel(4, 0.03, seed=3)
    exact_m = K @ (y * alpha_exact(K, y))
    post = sample_posterior(K, y, 300, n_chains=32, burn_in=300, random_state=1)
    z = (post.mean - exact_m) / post.se
    # se from 32 independent chain means (t with 31 dof): |z| < 4 fails with prob. < 1e-3 per component.
    assert np.all(np.abs(z) < 4), z
    assert np.all(y * post.samples.reshape(-1, 4) > 0)  # every sample is in the orthant


# ----------------------------------------------------------------------------- bounds
@pytest.mark.parametrize("seed", [0, 1])
def test_ensemble_free_energy_bounds_minus_log_evidence(seed):
    K, y, _ = demo_kernel(7, 0.1, seed=seed)
    neg_log_Z = -log_evidence_exact(K, y)
    log_Z_is, se = log_evidence_importance(K, y, 60_000, random_state=seed)
    assert abs(-log_Z_is - neg_log_Z) < 4 * se + 1e-4  # IS and Genz agree (Genz tol 1e-6 rel)
    sol = solve_mean_field(K, y, "ensemble")
    assert free_energy(K, y, sol) >= neg_log_Z
    # The bound holds for ANY cavity means, and the mean-field solution is its minimum.
    rng = np.random.default_rng(seed)
    for _ in range(5):
        h = sol.h + rng.normal(scale=0.5, size=7)
        assert ensemble_bound(K, y, h) >= free_energy(K, y, sol) >= neg_log_Z


# ----------------------------------------------------------------------------- hypergradients
@pytest.mark.parametrize("objective", METHODS)
def test_hypergradients_match_finite_differences(objective):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(15, 3))
    y = np.where(X[:, 0] - X[:, 1] + 0.3 * rng.normal(size=15) > 0, 1.0, -1.0)
    theta = np.r_[np.log([0.8, 1.3, 2.0]), np.log(0.3)]
    _, grad, _ = free_energy_and_gradient(theta, X, y, objective)
    eps = 1e-5
    fd = []
    for k in range(4):
        e = np.zeros(4)
        e[k] = eps
        fd.append((free_energy_and_gradient(theta + e, X, y, objective)[0]
                   - free_energy_and_gradient(theta - e, X, y, objective)[0]) / (2 * eps))
    # Central differences: truncation ~eps^2 = 1e-10; inner solves converge to 1e-10.
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-7)


def test_training_kernel_gradient_slices():
    X = np.random.default_rng(0).normal(size=(6, 2))
    K, dK = training_kernel(X, np.array([0.7, 1.5]), 0.2, with_gradient=True)
    eps = 1e-6
    Kp = training_kernel(X, np.array([0.7, 1.5]) * np.exp([eps, 0]), 0.2)
    np.testing.assert_allclose(dK[0], (Kp - K) / eps, atol=1e-5)
    np.testing.assert_allclose(dK[2], 0.2 * np.eye(6))


# ----------------------------------------------------------------------------- vs MCMC
@pytest.fixture(scope="module")
def mcmc_n40():
    K, y, X = demo_kernel(40, 0.1)
    post = sample_posterior(K, y, 400, n_chains=64, burn_in=1000, random_state=2)
    return K, y, X, post


def test_posterior_means_vs_mcmc_ordering_and_bias(mcmc_n40):
    K, y, _, post = mcmc_n40
    z_rms = {m: np.sqrt(np.mean(((solve_mean_field(K, y, m).m - post.mean) / post.se) ** 2)) for m in METHODS}
    slope = {m: fit_slope(post.mean, solve_mean_field(K, y, m).m) for m in METHODS}
    # If a method were exact, its rms z-score over 40 components would be ~1 (sd ~0.12):
    # EP is within Monte Carlo error; the mean-field methods are not.
    assert z_rms["ep"] < 1.6, z_rms
    assert z_rms["ep"] < z_rms["ensemble"] < z_rms["naive"], z_rms
    # Bias directions (spec): naive too large, ensemble too small. The slope's MC error is
    # ~ rel. s.e. of the mean vector / sqrt(40) ~ 0.01, so 0.05 margins are > 4 s.e.
    assert slope["naive"] > 1.05 and slope["ensemble"] < 0.95, slope
    assert abs(slope["ep"] - 1) < 0.05, slope


def test_biases_grow_as_noise_shrinks():
    # EP is the reference here (within MCMC error above); cheap enough for several noise levels.
    slopes = {}
    for noise in (1.0, 0.1, 0.01):
        K, y, _ = demo_kernel(40, noise)
        ep = solve_mean_field(K, y, "ep").m
        slopes[noise] = [fit_slope(ep, solve_mean_field(K, y, m).m) for m in ("naive", "ensemble")]
    naive, ens = np.array(list(slopes.values())).T
    assert np.all(np.diff(naive) > 0) and np.all(np.diff(ens) < 0), slopes


def test_ep_predictive_probabilities_vs_mcmc(mcmc_n40):
    K, y, X, post = mcmc_n40
    Xs = np.array([[0.0, 0.0], [1.0, 1.0], [-1.5, -0.5], [0.5, -1.5]])
    clf = MeanFieldGPC(RBF(l=1.0), noise_var=0.1, method="ep").fit(X, y)
    # MCMC: P(y*=+1) = E_a[Phi(mu*(a) / s*)], mu* = k^T K^-1 a, s*^2 = k** - k^T K^-1 k + sigma^2.
    k = RBF(l=1.0)(Xs, X)
    A = np.linalg.solve(K, k.T)  # (n, 4)
    s = np.sqrt(1.0 - np.einsum("ij,ji->i", k, A) + 0.1)
    a = post.samples.reshape(-1, 40)
    p_chain = ndtr((post.samples @ A) / s).mean(axis=1)  # (chains, 4)
    p_mc, se = p_chain.mean(axis=0), p_chain.std(axis=0, ddof=1) / np.sqrt(len(p_chain))
    assert a.shape[0] == 64 * 400
    # EP's predictive probabilities are typically within 0.01-0.02 of the exact ones.
    np.testing.assert_allclose(clf.predict_proba(Xs)[:, 1], p_mc, atol=0.02 + 4 * se.max())


# ----------------------------------------------------------------------------- solver robustness
def test_newton_converges_where_plain_iteration_fails():
    ds = load_pima()
    K = RBF(l=np.sqrt(7))(ds.X) + 0.01 * np.eye(200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        plain = solve_mean_field(K, ds.y, "naive", solver="iterate", damping=0.5, max_iter=300)
    assert not plain.converged and np.all(np.isfinite(plain.alpha))
    for method in ("naive", "ensemble"):
        sol = solve_mean_field(K, ds.y, method)
        assert sol.converged and sol.n_iter <= 15 and np.all(sol.alpha > 0)
    with pytest.warns(ConvergenceWarning):
        solve_mean_field(K, ds.y, "naive", solver="iterate", max_iter=5)


@pytest.mark.parametrize("noise", [1e-4, 1e-2, 10.0])
def test_solutions_finite_at_extreme_noise(noise):
    K, y, _ = demo_kernel(30, noise, seed=4, l=0.5)
    for method in METHODS:
        sol = solve_mean_field(K, y, method)
        assert sol.converged and np.all(np.isfinite(sol.alpha)) and np.all(sol.alpha > 0)
        assert np.isfinite(free_energy(K, y, sol))


# ----------------------------------------------------------------------------- the online algorithm
def _adf_full_covariance(K, y, order):
    """Independent ADF: Gaussian N(mu, S) over all latents, moment-matched one example at a time."""
    n = len(y)
    mu, S = np.zeros(n), K.copy()
    log_Z = 0.0
    for i in order:
        s2 = S[i, i]
        z = y[i] * mu[i] / np.sqrt(s2)
        log_Z += stats.norm.logcdf(z)
        # Tilted marginal moments, then the Gaussian update of every latent through its covariance.
        d = stats.norm.pdf(z) / stats.norm.cdf(z)
        new_mean = mu[i] + y[i] * np.sqrt(s2) * d
        new_var = s2 * (1 - d * (z + d))
        gain = S[:, i] / s2
        mu = mu + gain * (new_mean - mu[i])
        S = S + np.outer(gain, gain) * (new_var - s2)
    return mu, S, log_Z


def test_online_sweep_matches_full_covariance_adf():
    K, y, _ = demo_kernel(25, 0.2, seed=7)
    order = np.random.default_rng(0).permutation(25)
    state = online_sweep(K, y, order=order)
    mu, S, log_Z = _adf_full_covariance(K, y, order)
    Kb = K[:, state.basis]
    np.testing.assert_allclose(Kb @ state.alpha, mu, atol=1e-10)
    np.testing.assert_allclose(K + Kb @ state.C @ Kb.T, S, atol=1e-10)
    assert state.log_evidence == pytest.approx(log_Z, rel=1e-10)


def test_online_one_example_is_exact():
    state = online_sweep(np.array([[2.0]]), np.array([1.0]))
    assert state.log_evidence == pytest.approx(-np.log(2))
    assert state.alpha[0] * 2.0 == pytest.approx(np.sqrt(2 * 2.0 / np.pi))  # half-normal mean
    assert 2.0 + 4.0 * state.C[0, 0] == pytest.approx(2.0 * (1 - 2 / np.pi))  # half-normal variance


def test_reuse_makes_the_mean_over_confident():
    K, y, _ = demo_kernel(40, 0.1)
    ep = solve_mean_field(K, y, "ep").m
    one = online_sweep(K, y)
    five = online_sweep(K, y, n_sweeps=5)
    slope_one = fit_slope(ep, K[:, one.basis] @ one.alpha)
    slope_five = fit_slope(ep, K[:, five.basis] @ five.alpha)
    assert abs(slope_one - 1) < 0.1 and slope_five > 1.1, (slope_one, slope_five)


def test_crabs_sex_online_errors():
    cr = load_crabs("sex")
    perm = np.random.default_rng(0).permutation(200)
    tr, te = perm[:80], perm[80:]
    kern = Polynomial(p=3, c0=1.0)
    state = online_sweep(kern(cr.X[tr]), cr.y[tr], n_sweeps=2, K_test=kern(cr.X[te], cr.X[tr]),
                         y_test=cr.y[te], track=True)
    # The seed's Fig. 2 shape: few training errors after one sweep, none after reuse.
    assert state.train_errors[79] <= 3 and state.train_errors[-1] == 0
    assert state.test_errors[79] <= 8 and state.test_errors[-1] <= 8
    assert len(state.train_errors) == 160


# ----------------------------------------------------------------------------- estimators
def test_estimators_against_sklearn_gpc():
    X, y = make_demo_problem(80, random_state=1)
    Xt, yt = make_demo_problem(400, random_state=2)
    sk = GaussianProcessClassifier(1.0 * SkRBF(1.0), random_state=0).fit(X, y)
    for clf in (MeanFieldGPC(RBF(l=1.0), noise_var=0.1, method="ep", optimize="ep"),
                MeanFieldGPC(RBF(l=1.0), noise_var=1.0, method="naive", optimize="naive"),
                SequentialGPC(RBF(l=1.0), noise_var=0.1, random_state=0)):
        clf.fit(X, y)
        agree = np.mean(clf.predict(Xt) == sk.predict(Xt))
        # Same data, similar models (probit step vs logistic Laplace): decisions differ only
        # near the boundary. Both have ~10 % label noise, so accuracies are compared loosely.
        assert agree > 0.9, (type(clf).__name__, agree)
        assert abs(clf.score(Xt, yt) - sk.score(Xt, yt)) < 0.05
        P = clf.predict_proba(Xt)
        assert np.all((P >= 0) & (P <= 1)) and np.allclose(P.sum(axis=1), 1)
        np.testing.assert_array_equal(P[:, 1] > 0.5, clf.decision_function(Xt) > 0)


def test_estimator_conventions_and_labels():
    X, y = make_demo_problem(30)
    labels = np.where(y > 0, "yes", "no")
    clf = MeanFieldGPC(RBF(l=1.0), method="ensemble").fit(X, labels)
    assert set(clf.predict(X)) <= {"yes", "no"}
    assert clf.n_iter_ > 0 and clf.converged_ and np.all(clf.alpha_ > 0)
    np.testing.assert_allclose(clf.latent_mean(X), RBF(l=1.0)(X) @ clf.coef_)
    assert clone(clf).get_params()["method"] == "ensemble"
    seq = SequentialGPC(Polynomial(p=2), random_state=3).fit(X, y)
    assert seq.n_iter_ == 30 and len(seq.coef_) + seq.n_projected_ == 30


def test_degenerate_inputs_project_onto_one_basis_example_and_finite_rank_keeps_the_plain_update():
    # Csato & Opper's sparse update: an example with no new direction (novelty at round-off) is projected onto
    # a well-conditioned basis; on X * 1e-8, constant X or RBF(l=1e6) the basis stays at one example, so the
    # result no longer depends on the round-off of an ill-conditioned 17-example basis (it did: other BLAS
    # kernels gave probabilities of exactly 1 there)
    from svmlib.gpc._likelihood import D, dD, log_Phi

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    for K in (RBF(l=1.0)(X * 1e-8), RBF(l=1.0)(np.ones_like(X)), RBF(l=1e6)(X)):
        state = online_sweep(K, y)
        assert len(state.basis) == 1 and state.n_projected + state.n_skipped == 39
    # a cubic kernel in 5 inputs has rank C(8, 3) = 56 < 80: its basis Gram matrix is ill-conditioned, K_B^{-1} k
    # would carry its round-off (2e-5 in the mean, measured), so no projection: bit for bit the plain sweep
    crabs = load_crabs("sex")
    Xc, yc = crabs.X[:80], crabs.y[:80]
    K = Polynomial(p=3, c0=1.0)(Xc)
    alpha, R, log_Z = np.zeros(0), np.zeros((0, 0)), 0.0
    for t in range(len(yc)):  # eq. (8.17), written out
        k = K[t, :t]
        Rk = R @ k
        s2 = K[t, t] + k @ Rk
        z = yc[t] * (k @ alpha) / np.sqrt(s2)
        s = np.r_[Rk, 1.0]
        Dz = D(z)
        alpha = np.r_[alpha, 0.0] + yc[t] * Dz / np.sqrt(s2) * s
        R = np.pad(R, ((0, 1), (0, 1))) + dD(z, Dz) / s2 * np.outer(s, s)
        log_Z += float(log_Phi(z))
    state = online_sweep(K, yc)
    assert state.n_projected == 0 and len(state.basis) == 80
    np.testing.assert_array_equal(state.alpha, alpha)
    np.testing.assert_array_equal(state.C, R)
    assert state.log_evidence == pytest.approx(log_Z, rel=1e-12)


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: MeanFieldGPC(method="mystery").fit(*make_demo_problem(10)), "method must be one of"),
        (lambda: MeanFieldGPC(noise_var=-1).fit(*make_demo_problem(10)), "noise_var"),
        (lambda: MeanFieldGPC(Polynomial(), optimize="naive").fit(*make_demo_problem(10)), "RBF"),
        (lambda: MeanFieldGPC().fit(np.zeros((3, 2)), [0, 1, 2]), "two classes"),
        (lambda: MeanFieldGPC(noise_var=0.0, method="ensemble").fit(np.zeros((4, 2)), [0, 1, 0, 1]),
         "noise_var > 0"),
        (lambda: MeanFieldGPC().fit(*make_demo_problem(10)).predict(np.zeros((2, 3))), "features"),
        (lambda: solve_mean_field(np.eye(2), np.array([1.0, 0.5])), "-1/\\+1"),
        (lambda: log_evidence_exact(np.eye(25), np.ones(25)), "n <= 20"),
    ],
)
def test_bad_input_messages(make, match):
    with pytest.raises(ValueError, match=match):
        make()


# ----------------------------------------------------------------------------- Pima
@pytest.fixture(scope="module")
def pima():
    return load_pima()


def _test_errors(ds, fit, method):
    clf = MeanFieldGPC(RBF(l=fit.length_scales), noise_var=fit.noise_var, method=method).fit(ds.X, ds.y)
    return int(np.sum(clf.predict(ds.X_test) != ds.y_test))


def test_pima_naive_free_energy_hyperparameters_and_hybrid_table(pima):
    table = {}
    for objective in ("naive", "ensemble"):
        fit = fit_hyperparameters(pima.X, pima.y, objective)
        assert fit.converged and fit.history[-1]["free_energy"] <= fit.history[0]["free_energy"]
        table[objective] = {m: _test_errors(pima, fit, m) for m in METHODS}
    # Published range on Pima.te (332 cases): ~62-66 errors (Ripley 1996; the seed's table);
    # one binomial s.e. is ~7 errors, so accept 58-70.
    assert 58 <= table["naive"]["naive"] <= 70, table
    # The seed's claim: once hyperparameters are fixed the method changes the count by at most a
    # few. Measured: naive row 63/62/62; the ensemble row (F_ens has two near-equal minima; this
    # start finds the one with ~73 errors) 68/73/73. 5 errors is below one binomial s.e. (~7).
    for row in table.values():
        assert max(row.values()) - min(row.values()) <= 5, table


# --- issue 16: no silent failure, scikit-learn behaviour ------------------------------------

@pytest.mark.parametrize("case", ["scaled_1e-8", "constant_inputs", "rbf_l_1e6"])
def test_sequential_gpc_near_rank_deficient_gram_gives_finite_output_and_warns(case):
    """The online variance K_ii + k.Ck went <= 0 by round-off: NaN coefficients, NaN
    probabilities and a constant prediction, without a word. Now such examples are skipped
    (the kernel already fixes their latent value) and the estimator says so."""
    X, y = make_demo_problem(40)
    kernel = None
    if case == "scaled_1e-8":
        X = X * 1e-8
    elif case == "constant_inputs":
        X = np.ones_like(X)
    else:
        kernel = RBF(l=1e6)
    with pytest.warns(UserWarning, match="skipped"):
        clf = SequentialGPC(kernel, random_state=0).fit(X, y)
    assert clf.n_skipped_ > 0
    assert np.all(np.isfinite(clf.coef_)) and np.all(np.isfinite(clf.C_))
    P = clf.predict_proba(X)
    assert np.all(np.isfinite(P)) and np.allclose(P.sum(axis=1), 1.0)
    assert np.all(np.isfinite(clf.decision_function(X)))


def test_gpc_solvers_reject_an_asymmetric_kernel_matrix_quickly():
    rng = np.random.default_rng(0)
    K = RBF(l=1.0)(rng.normal(size=(8, 2))) + 0.1 * np.eye(8)
    K[0, 1] += 0.3
    y = np.where(rng.normal(size=8) > 0, 1.0, -1.0)
    for call in (lambda: solve_mean_field(K, y, "ep"), lambda: solve_mean_field(K, y, "naive"),
                 lambda: online_sweep(K, y), lambda: log_evidence_exact(K, y), lambda: alpha_exact(K, y)):
        with pytest.raises(ValueError, match="symmetric"):
            call()
    with pytest.raises(ValueError, match="positive semi-definite"):
        log_evidence_exact(np.array([[1.0, 2.0], [2.0, 1.0]]), np.array([1.0, -1.0]))


def test_mean_field_gpc_hyperparameters_at_a_bound_warn_as_scikit_learn_does():
    """Before: the fit ended at its bounds, reported converged and said nothing; the bounds could
    not be set from the estimator. The demo problem's free energy wants length scales above 0.2."""
    X, y = make_demo_problem(30)
    with pytest.warns(ConvergenceWarning, match=r"length_scale\[0\] \(upper bound 0.2\)"):
        clf = MeanFieldGPC(RBF(l=1.0), optimize="naive", max_hyper_iter=30,
                           length_scale_bounds=(0.05, 0.2), noise_var_bounds=(0.01, 10.0)).fit(X, y)
    # the bounds reached the optimiser (the start l = 1 lay outside: it begins on the edge)
    assert np.all((clf.kernel_.l >= 0.05 * (1 - 1e-9)) & (clf.kernel_.l <= 0.2 * (1 + 1e-9)))
    assert 0.01 * (1 - 1e-9) <= clf.noise_var_ <= 10.0 * (1 + 1e-9)
    assert clf.hyper_.at_bounds
    with pytest.raises(ValueError, match="length_scale_bounds"):
        MeanFieldGPC(RBF(l=1.0), optimize="naive", length_scale_bounds=(5.0, 1.0)).fit(X, y)


@pytest.mark.parametrize("make", [lambda: MeanFieldGPC(RBF(l=1.0), method="ep"),
                                  lambda: SequentialGPC(RBF(l=1.0), noise_var=0.1, random_state=0)])
def test_gpc_decision_function_ranks_points_as_the_probabilities(make):
    """decision_function is the probit argument: a monotone map to predict_proba[:, 1], so ROC
    AUC is the same whichever is scored (the posterior mean alone ranked ~21 % differently)."""
    from scipy.stats import rankdata

    X, y = make_demo_problem(40)
    clf = make().fit(X, y)
    Xt = np.random.default_rng(5).uniform(-6, 6, size=(300, X.shape[1]))   # spread test points
    d, p = clf.decision_function(Xt), clf.predict_proba(Xt)[:, 1]
    np.testing.assert_array_equal(rankdata(d), rankdata(p))
    np.testing.assert_array_equal(np.sign(d), np.sign(clf.latent_mean(Xt)))


def test_gpc_records_feature_names_and_refuses_reordered_columns():
    pd = pytest.importorskip("pandas")
    X, y = make_demo_problem(30)
    df = pd.DataFrame(X, columns=["a", "b"])
    clf = MeanFieldGPC(RBF(l=1.0)).fit(df, y)
    np.testing.assert_array_equal(clf.feature_names_in_, ["a", "b"])
    with pytest.raises(ValueError, match="feature names"):
        clf.predict(df[["b", "a"]])
    assert clf.score(df, y) > 0.8


# ---------------------------------------------------------------------------------------------
# The online update in place (issue 16 slow path: 1-vs-999 took 4-18 s)
# ---------------------------------------------------------------------------------------------
def _online_reference(K, y, order):
    """The update of eq. :eq:`(8.17) <gpc-online-update>` as the module wrote it before: a fresh np.outer per
    example. Each example is new (one sweep) and informative (the noise keeps s2 well above 0)."""
    from svmlib.gpc._likelihood import D as _D, dD as _dD, log_Phi as _log_Phi
    n = len(y)
    alpha, C, basis, log_Z = np.zeros(0), np.zeros((0, 0)), [], 0.0
    for i in order:
        k = K[i, basis]
        Ck = C @ k
        s2 = K[i, i] + k @ Ck
        z = y[i] * (k @ alpha) / np.sqrt(s2)
        Dz = _D(z)
        s = np.r_[Ck, 1.0]
        alpha = np.r_[alpha, 0.0] + y[i] * Dz / np.sqrt(s2) * s
        C = np.pad(C, ((0, 1), (0, 1))) + _dD(z, Dz) / s2 * np.outer(s, s)
        basis.append(i)
        log_Z += float(_log_Phi(z))
    assert len(basis) == n
    return np.array(basis), alpha, C, log_Z


def test_rank_one_update_in_place_is_bit_identical_across_blocks():
    """_rank_one_update == C + r outer(s, s) exactly (same products, same order), over several
    row blocks (t > _UPDATE_BLOCK), and leaves the rest of the buffer alone."""
    from svmlib.gpc._online import _UPDATE_BLOCK, _rank_one_update
    rng = np.random.default_rng(3)
    n, t = 2 * _UPDATE_BLOCK + 50, 2 * _UPDATE_BLOCK + 7
    C = rng.normal(size=(n, n))
    before = C.copy()
    s = rng.normal(size=t)
    r = -0.37
    _rank_one_update(C, t, r, s, np.empty(_UPDATE_BLOCK * n))
    expected = before[:t, :t] + r * np.outer(s, s)
    assert np.array_equal(C[:t, :t], expected)
    assert np.array_equal(C[t:, :], before[t:, :]) and np.array_equal(C[:, t:], before[:, t:])


def test_online_sweep_in_place_equals_the_outer_product_version_on_1_vs_n():
    """The seeded 1-vs-299 set of the slow-path report (RBF plus noise): basis, alpha, C and ln Z
    equal the np.outer version. 1e-12: only BLAS summation order can differ (observed <= 1e-15)."""
    rng = np.random.default_rng(0)
    n = 300
    X = rng.normal(size=(n, 2))
    y = -np.ones(n)
    y[0] = 1.0
    K = RBF(l=1.0)(X) + np.eye(n)
    order = rng.permutation(n)
    state = online_sweep(K, y, order=order)
    basis, alpha, C, log_Z = _online_reference(K, y, order)
    assert np.array_equal(state.basis, basis)
    np.testing.assert_allclose(state.alpha, alpha, rtol=0, atol=1e-12)
    np.testing.assert_allclose(state.C, C, rtol=0, atol=1e-12)
    assert abs(state.log_evidence - log_Z) <= 1e-12 * max(1.0, abs(log_Z))
