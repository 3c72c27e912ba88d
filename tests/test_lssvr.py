"""Tests of svmlib.lssvr against independent computations.

Independent references: dense solves and explicit inverses of small matrices (numpy), the
KKT/primal conditions, scikit-learn's KernelRidge and GaussianProcessRegressor.

Tolerances: every matrix here is well conditioned (cond(Psi) ~ 4-15 on these sets, checked
in ``test_kkt_matrix_is_well_conditioned_here``), so two backward-stable routes to the same
quantity agree to ~ cond * n * 1e-16 < 1e-12; 1e-10 leaves a margin of 100 for other BLAS builds.
"""

import numpy as np
import pytest
from scipy import linalg
from sklearn.exceptions import NotFittedError
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel
from sklearn.kernel_ridge import KernelRidge

from svmlib import lssvr
from svmlib.kernels import RBF, Linear, Polynomial
from svmlib.lssvr import (
    LSSVR,
    BayesianLSSVR,
    GPRegression,
    kkt_matrix,
    lemma_gap,
    loglog_slope,
    make_sinc,
    posterior_factor,
    prior_mean,
    prior_precision,
    rbf_from_c,
    solve_lssvr,
)

RTOL = 1e-10
EPS_GRID = [1.0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8]


def rel(a, b):
    return np.linalg.norm(np.asarray(a) - np.asarray(b)) / np.linalg.norm(np.asarray(b))


@pytest.fixture(scope="module")
def regression_sets():
    return lssvr.load_regression_sets()


def small_sets(regression_sets):
    """Spec's sinc set-up, two real sets (subsampled to keep the tests quick) and a noisy synthetic one."""
    rng = np.random.default_rng(3)
    X, y = make_sinc(40, random_state=0)
    out = {"sinc40": (X, y, 1.0, rbf_from_c(1.0))}
    Xm, ym = regression_sets["mtcars"]
    out["mtcars"] = (Xm, ym, 0.5, rbf_from_c(1.0))
    Xc, yc = regression_sets["cpus"]
    out["cpus"] = (Xc[:120], yc[:120], 0.5, rbf_from_c(1.0))
    Xs = rng.normal(size=(60, 3))
    ys = Xs[:, 0] - Xs[:, 1] ** 2 + 3.0 + 0.1 * rng.normal(size=60)  # offset 3: a large bias
    out["synthetic"] = (Xs, ys, 2.0, RBF(l=[1.0, 2.0, 0.5], K0=1.5))
    return out


@pytest.fixture(scope="module")
def sets(regression_sets):
    return small_sets(regression_sets)


# ------------------------------------------------------------------------------------------
# LS-SVR
# ------------------------------------------------------------------------------------------
def test_kkt_matrix_is_well_conditioned_here(sets):
    for X, y, gamma, kernel in sets.values():
        assert np.linalg.cond(kkt_matrix(kernel(X), gamma)) < 1e3


@pytest.mark.parametrize("kernel", [rbf_from_c(1.0), Polynomial(p=2, c0=1.0), Linear(), RBF(l=0.3, K0=2.0, B2=0.5)])
def test_lssvr_matches_dense_kkt_solve(sets, kernel):
    X, y, gamma, _ = sets["cpus"]
    model = LSSVR(gamma=gamma, kernel=kernel).fit(X, y)
    Psi = kkt_matrix(kernel(X), gamma)
    theta = linalg.solve(Psi, np.concatenate([[0.0], y]))  # LU with pivoting: an independent route
    assert rel(model.coef_theta_, theta) < RTOL
    Xt = X[:7] + 0.1
    expected = kernel(Xt, X) @ theta[1:] + theta[0]
    assert rel(model.predict(Xt), expected) < RTOL


def test_lssvr_satisfies_kkt_conditions(sets):
    """The seed's eq. 5: sum(alpha) = 0 and alpha_i = gamma * e_i with e = y - f(x)."""
    X, y, gamma, kernel = sets["synthetic"]
    model = LSSVR(gamma=gamma, kernel=kernel).fit(X, y)
    alpha = model.dual_coef_
    assert abs(alpha.sum()) < 1e-10 * np.abs(alpha).sum()
    residual = y - model.predict(X)
    assert rel(alpha, gamma * residual) < RTOL


def test_lssvr_minimises_the_primal(sets):
    """In the kernel's feature space the primal is 1/2 a^T K a + gamma/2 |y - K a - b|^2 with w = sum a_i phi_i:
    the LS-SVR solution beats random perturbations."""
    X, y, gamma, kernel = sets["sinc40"]
    K = kernel(X)
    b, a = solve_lssvr(K, y, gamma)

    def primal(a, b):
        e = y - K @ a - b
        return 0.5 * a @ K @ a + 0.5 * gamma * e @ e

    rng = np.random.default_rng(0)
    best = primal(a, b)
    for _ in range(50):
        assert primal(a + 1e-3 * rng.normal(size=a.size), b + 1e-3 * rng.normal()) > best


@pytest.mark.parametrize("name", ["sinc40", "mtcars", "synthetic"])
def test_no_bias_case_is_kernel_ridge(sets, name):
    X, y, gamma, kernel = sets[name]
    ours = LSSVR(gamma=gamma, kernel=kernel, fit_intercept=False).fit(X, y)
    K = kernel(X)
    ref = KernelRidge(alpha=1.0 / gamma, kernel="precomputed").fit(K, y)
    assert ours.intercept_ == 0.0
    assert rel(ours.dual_coef_, ref.dual_coef_) < RTOL
    Xt = X[::3] * 1.1
    assert rel(ours.predict(Xt), ref.predict(kernel(Xt, X))) < RTOL


# ------------------------------------------------------------------------------------------
# The lemma and the theorem
# ------------------------------------------------------------------------------------------
def dense_lemma(Psi, y, eps):
    """The seed's closed form with explicit inverses: an independent, brute-force reference."""
    G = np.linalg.inv(Psi.T @ Psi)
    s1 = np.zeros(Psi.shape[0])
    s1[0] = 1.0
    c = np.concatenate([[0.0], y])
    return eps / (1 + eps * s1 @ G @ s1) * G @ np.outer(s1, s1) @ np.linalg.solve(Psi, c)


@pytest.mark.parametrize("name", ["sinc40", "mtcars", "cpus", "synthetic"])
def test_lemma_holds_for_every_eps(sets, name):
    X, y, gamma, kernel = sets[name]
    K = kernel(X)
    Psi = kkt_matrix(K, gamma)
    b, alpha = solve_lssvr(K, y, gamma)
    theta = np.concatenate([[b], alpha])
    for eps in EPS_GRID:
        R, mu = posterior_factor(K, y, gamma, eps)
        closed = lemma_gap(K, y, gamma, eps)
        # (1) The closed form vs brute force, relative to the gap itself.
        assert rel(closed, dense_lemma(Psi, y, eps)) < 1e-9  # explicit inverse of Psi^T Psi: cond^2 ~ 1e3 * u
        # (2) The measured gap theta_LS - mu* (two independent solves) vs the closed form. The
        # subtraction cancels all but ~eps of theta's digits, so its error is ~ u * cond * |theta|:
        # compare relative to |theta|.
        assert np.linalg.norm(theta - mu - closed) <= RTOL * np.linalg.norm(theta)
        # (3) Exact algebra without cancellation: theta_LS - mu* = eps * b_LS * P^{-1} s1 (because
        # Psi theta_LS = [0, y]); P^{-1} s1 from the posterior's Cholesky factor R.
        s1 = np.zeros(R.shape[0])
        s1[0] = 1.0
        via_factor = eps * b * linalg.cho_solve((R, False), s1)
        assert rel(via_factor, closed) < RTOL


def test_gap_is_linear_in_eps(sets):
    for name, (X, y, gamma, kernel) in sets.items():
        K = kernel(X)
        gaps = [np.linalg.norm(lemma_gap(K, y, gamma, e)) for e in EPS_GRID]
        assert abs(loglog_slope(EPS_GRID, gaps) - 1.0) < 0.05, name
        # The measured gap too, where it is far above round-off (eps >= 1e-5: gap >~ 1e-7 |theta|).
        b, alpha = solve_lssvr(K, y, gamma)
        theta = np.concatenate([[b], alpha])
        measured = [np.linalg.norm(theta - posterior_factor(K, y, gamma, e)[1]) for e in EPS_GRID[:6]]
        assert abs(loglog_slope(EPS_GRID[:6], measured) - 1.0) < 0.05, name


def test_spec_numbers_on_40_sinc_points(sets):
    """Spec: gap ~5e-3, 5e-5, 5e-7 for eps = 1, 1e-2, 1e-4 (its own 40 points; ours are another draw)."""
    X, y, gamma, kernel = sets["sinc40"]
    K = kernel(X)
    gaps = np.array([np.linalg.norm(lemma_gap(K, y, gamma, e)) for e in (1.0, 1e-2, 1e-4)])
    assert np.all((gaps > np.array([1e-3, 1e-5, 1e-7])) & (gaps < np.array([1e-2, 1e-4, 1e-6]))), gaps


# ------------------------------------------------------------------------------------------
# Prior and posterior
# ------------------------------------------------------------------------------------------
def test_prior_precision_is_the_seeds_difference(sets):
    """Sigma^{-1} = Psi^T Psi + eps s1 s1^T - Phi^T Phi (the seed's derivation), by brute force."""
    X, y, gamma, kernel = sets["synthetic"]
    K = kernel(X)
    Psi = kkt_matrix(K, gamma)
    Phi = np.column_stack([np.ones(len(y)), K])
    eps = 0.3
    expected = Psi.T @ Psi - Phi.T @ Phi
    expected[0, 0] += eps
    assert np.abs(prior_precision(K, gamma, eps) - expected).max() < 1e-12 * np.abs(expected).max()


def test_prior_indefinite_for_small_eps_and_posterior_always_pd(sets):
    X, y, gamma, kernel = sets["sinc40"]  # the spec's set-up: 40 sinc points, c = gamma = 1
    K = kernel(X)
    for eps in [1e-2, 1e-4, 1e-8]:
        lam = np.linalg.eigvalsh(prior_precision(K, gamma, eps))[0]
        assert lam < -0.5, (eps, lam)  # spec: about -0.76; far from round-off
    assert np.linalg.eigvalsh(prior_precision(K, gamma, 1.0))[0] > 0.05
    Psi = kkt_matrix(K, gamma)
    for eps in EPS_GRID + [0.0]:
        R, _ = posterior_factor(K, y, gamma, eps)
        P = Psi.T @ Psi
        P[0, 0] += eps
        assert np.abs(R.T @ R - P).max() < 1e-12 * np.abs(P).max()  # R is a Cholesky factor of P
        assert np.all(np.diag(R) > 0) and np.allclose(R, np.triu(R))
        assert np.linalg.eigvalsh(P)[0] > 0


def test_bayes_rule_with_the_data_dependent_prior(sets):
    """mu* = Sigma* (Phi^T y / sigma^2 + Sigma^{-1} mu), with the prior mean mu = Sigma [0, y]/gamma."""
    X, y, gamma, kernel = sets["sinc40"]
    eps = 1e-3
    model = BayesianLSSVR(gamma=gamma, eps=eps, kernel=kernel).fit(X, y)
    K = kernel(X)
    P_prior = prior_precision(K, gamma, eps)
    mu = model.prior_mean_
    assert rel(P_prior @ mu, np.concatenate([[0.0], y]) / gamma) < RTOL
    Phi = np.column_stack([np.ones(len(y)), K])
    P_post = P_prior + Phi.T @ Phi
    expected = np.linalg.solve(P_post, Phi.T @ y + P_prior @ mu)
    assert rel(model.coef_, expected) < 1e-9  # P_post formed by a difference: cond(P) ~ 1e2 larger
    assert rel(prior_mean(K, y, gamma, eps), mu) < RTOL
    assert rel(model.posterior_covariance(), np.linalg.inv(P_post)) < 1e-9
    # The prior mean moves with the data: shift y and it changes.
    assert rel(prior_mean(K, y + 1.0, gamma, eps), mu) > 0.1


@pytest.mark.parametrize("sigma2", [0.5, 2.0])
def test_other_noise_variances(sets, sigma2):
    """sigma^2 != 1 (the proof's stray 1/2): dense Bayes rule agrees, but MAP no longer -> LS-SVR."""
    X, y, gamma, kernel = sets["sinc40"]
    K = kernel(X)
    eps = 1e-8
    Phi = np.column_stack([np.ones(len(y)), K])
    P_prior = prior_precision(K, gamma, eps)
    P_post = P_prior + Phi.T @ Phi / sigma2
    if np.linalg.eigvalsh(P_post)[0] <= 0:
        with pytest.raises(ValueError, match="not positive definite"):
            posterior_factor(K, y, gamma, eps, noise_variance=sigma2)
        return
    _, mu = posterior_factor(K, y, gamma, eps, noise_variance=sigma2)
    expected = np.linalg.solve(P_post, Phi.T @ y / sigma2 + np.concatenate([[0.0], y]) / gamma)
    assert rel(mu, expected) < 1e-9
    b, alpha = solve_lssvr(K, y, gamma)
    assert rel(mu, np.concatenate([[b], alpha])) > 1e-3


def test_predictive_variances_match_dense_algebra(sets):
    X, y, gamma, kernel = sets["synthetic"]
    model = BayesianLSSVR(gamma=gamma, eps=1e-2, kernel=kernel).fit(X, y)
    Xt = np.random.default_rng(1).normal(size=(9, 3))
    Sigma = np.linalg.inv(model.posterior_precision_)
    Phi = np.column_stack([np.ones(9), kernel(Xt, X)])
    mean, sd = model.predict(Xt, return_std=True)
    assert rel(mean, Phi @ model.coef_) < RTOL
    assert rel(sd**2, np.einsum("ij,jk,ik->i", Phi, Sigma, Phi)) < 1e-9
    _, sd16 = model.predict(Xt, return_std=True, variance="eq16")
    Kx = Phi[:, 1:]
    assert rel(sd16**2, np.einsum("ij,jk,ik->i", Kx, Sigma[1:, 1:], Kx)) < 1e-9  # the seed's eq. 16


def test_monte_carlo_of_the_posterior_predictive(sets):
    """Sample theta ~ N(mu*, Sigma*) through the factor and compare mean/variance of f(x)."""
    X, y, gamma, kernel = sets["sinc40"]
    model = BayesianLSSVR(gamma=gamma, eps=1e-2, kernel=kernel).fit(X, y)
    rng = np.random.default_rng(0)
    n_mc = 20000
    Z = rng.normal(size=(model.coef_.size, n_mc))
    thetas = model.coef_[:, None] + linalg.solve_triangular(model.posterior_factor_, Z)  # R^{-1} z ~ N(0, P^{-1})
    Xt = np.array([[0.3], [2 * np.pi], [3 * np.pi]])
    Phi = np.column_stack([np.ones(3), kernel(Xt, X)])
    f = Phi @ thetas
    mean, sd = model.predict(Xt, return_std=True)
    # Standard errors: sd/sqrt(n) for the mean, sd^2 * sqrt(2/n) for the variance; 5 of them.
    assert np.all(np.abs(f.mean(axis=1) - mean) < 5 * sd / np.sqrt(n_mc))
    assert np.all(np.abs(f.var(axis=1) - sd**2) < 5 * sd**2 * np.sqrt(2 / n_mc))


def test_far_from_the_data():
    X, y = make_sinc(300, random_state=1)
    kernel = rbf_from_c(1.0)
    model = BayesianLSSVR(gamma=1.0, eps=1e-4, kernel=kernel).fit(X, y)
    far = np.array([[3 * np.pi], [40.0]])
    _, sd16 = model.predict(far, return_std=True, variance="eq16")
    _, sd = model.predict(far, return_std=True)
    bias_var = model.posterior_covariance()[0, 0]
    assert sd16[0] ** 2 < 1e-6 and sd16[1] == 0.0  # RBF features vanish: exp(-(40-2pi)^2) underflows
    assert abs(sd[1] ** 2 - bias_var) < 1e-12 * bias_var
    assert 1e-3 < bias_var < 0.1
    gp = GPRegression(kernel=kernel, noise_variance=1.0).fit(X, y)
    _, gp_sd = gp.predict(far, return_std=True)
    assert abs(gp_sd[1] ** 2 - 1.0) < 1e-12  # prior variance K0 = 1
    # Inside the data, the GP is confident.
    _, gp_in = gp.predict(np.array([[0.0]]), return_std=True)
    assert gp_in[0] ** 2 < 0.1  # ~0.07 with 300 points and noise variance 1, against a prior variance of 1


# ------------------------------------------------------------------------------------------
# GP regression
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("K0,B2", [(1.0, 0.0), (2.0, 0.7)])
def test_gp_matches_sklearn(sets, K0, B2):
    X, y, _, _ = sets["mtcars"]
    l, noise = 1.3, 0.25
    ours = GPRegression(kernel=RBF(l=l, K0=K0, B2=B2), noise_variance=noise).fit(X, y)
    sk_kernel = ConstantKernel(K0, "fixed") * SkRBF(l, "fixed")
    if B2 > 0:
        sk_kernel = sk_kernel + ConstantKernel(B2, "fixed")
    ref = GaussianProcessRegressor(kernel=sk_kernel, alpha=noise, optimizer=None).fit(X, y)
    Xt = np.vstack([X[:5] + 0.2, X[:5] * 5])
    m, s = ours.predict(Xt, return_std=True)
    mr, sr = ref.predict(Xt, return_std=True)
    # Both use a Cholesky of the same well-conditioned matrix (noise 0.25 on the diagonal).
    assert rel(m, mr) < 1e-9 and rel(s, sr) < 1e-9


def test_gp_mean_is_kernel_ridge_and_lssvr_is_flat_bias_limit(sets):
    X, y, gamma, kernel = sets["synthetic"]
    Xt = X[:10] + 0.3
    krr = LSSVR(gamma=gamma, kernel=kernel, fit_intercept=False).fit(X, y).predict(Xt)
    gp = GPRegression(kernel=kernel, noise_variance=1 / gamma).fit(X, y).predict(Xt)
    assert rel(gp, krr) < RTOL
    # A bias with prior variance B2 -> infinity (flat prior) gives the LS-SVR mean: the gap is O(1/B2).
    ls = LSSVR(gamma=gamma, kernel=kernel).fit(X, y).predict(Xt)
    errs = []
    for B2 in [1e2, 1e4]:
        k = RBF(l=kernel.l, K0=kernel.K0, B2=B2)
        errs.append(rel(GPRegression(kernel=k, noise_variance=1 / gamma).fit(X, y).predict(Xt), ls))
    assert errs[1] < 2e-3 and 50 < errs[0] / errs[1] < 200


# ------------------------------------------------------------------------------------------
# Experiments and data
# ------------------------------------------------------------------------------------------
def test_regression_sets(regression_sets):
    shapes = {k: v[0].shape for k, v in regression_sets.items()}
    assert shapes == {"diabetes": (442, 10), "Boston": (506, 13), "cpus": (209, 6), "mtcars": (32, 10)}
    for X, y in regression_sets.values():
        assert np.allclose(X.mean(axis=0), 0, atol=1e-12) and np.allclose(y.std(), 1)


def test_epsilon_sweep(regression_sets):
    X, y = regression_sets["mtcars"]
    eps = np.logspace(-8, 0, 5)
    sw = lssvr.epsilon_sweep(X, y, eps)
    assert np.all(np.abs(sw.param_distance - sw.param_distance_lemma) <= 1e-10 * np.linalg.norm(sw.theta_ls))
    assert abs(loglog_slope(eps, sw.arse_lemma) - 1) < 0.05
    assert np.all(sw.arse > 0) and sw.floor < 1e-13


def test_sinc_bands_spec_numbers():
    """The spec's Fig. 4 numbers (1200 points, c = gamma = 1, eps = 1e-4), on a 200-point grid."""
    st = lssvr.sinc_bands(n_grid=201)
    x = st["x"]
    inside = np.abs(x) < 5
    far = np.abs(x) > 3 * np.pi - 0.01
    assert 0.02 < np.median(st["std_eq16"][inside] ** 2) < 0.04  # spec: about 0.03
    assert np.all(st["std_eq16"][far] ** 2 < 1e-8)  # spec: about 2e-9
    assert np.allclose(st["std_full"][far] ** 2, st["bias_sd"] ** 2, rtol=1e-3)
    assert 0.015 < st["bias_sd"] ** 2 < 0.025  # spec: about 0.019
    assert np.all(st["gp_std"][far] ** 2 > 0.99)
    assert np.max(np.abs(st["mean"] - st["f"])[inside]) < 0.15


def test_epsilon_convergence_state():
    small = lssvr.epsilon_convergence(1e-6)
    big = lssvr.epsilon_convergence(1e2)
    assert small["gap"] < 1e-5 < big["gap"]
    assert np.max(np.abs(small["map_pred"] - small["ls_pred"])) < 1e-5
    assert abs(small["gap"] - small["gap_lemma"]) < 1e-12


# ------------------------------------------------------------------------------------------
# Bad input
# ------------------------------------------------------------------------------------------
def test_bad_input_messages():
    X, y = make_sinc(20, random_state=0)
    with pytest.raises(ValueError, match="gamma"):
        LSSVR(gamma=0).fit(X, y)
    with pytest.raises(ValueError, match="eps"):
        BayesianLSSVR(eps=-1).fit(X, y)
    with pytest.raises(ValueError, match="noise_variance"):
        BayesianLSSVR(noise_variance=0).fit(X, y)
    y_bad = y.copy()
    y_bad[3] = np.nan
    with pytest.raises(ValueError, match="finite"):
        LSSVR().fit(X, y_bad)
    with pytest.raises(ValueError, match="one target per row"):
        LSSVR().fit(X, y[:-1])
    with pytest.raises(ValueError, match="requires y"):
        LSSVR().fit(X, None)
    with pytest.raises(NotFittedError):
        BayesianLSSVR().predict(X)
    model = BayesianLSSVR().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(np.ones((3, 2)))
    with pytest.raises(ValueError, match="'full' or 'eq16'"):
        model.predict(X, return_std=True, variance="diag")
    with pytest.raises(ValueError, match="positive semidefinite"):
        solve_lssvr(-np.eye(3) * 5, np.ones(3), 1.0)
    with pytest.raises(ValueError, match="shape"):
        solve_lssvr(np.eye(3), np.ones(4), 1.0)
    with pytest.raises(ValueError, match="eps_values"):
        lssvr.epsilon_sweep(X, y, [1.0, 0.0])
    with pytest.raises(ValueError, match="c "):
        rbf_from_c(-1.0)


def test_sklearn_api():
    from sklearn.base import clone
    from sklearn.model_selection import KFold, cross_val_score

    X, y = make_sinc(60, noise=0.1, random_state=2)
    for est in [LSSVR(gamma=2.0), BayesianLSSVR(eps=1e-3), GPRegression(noise_variance=0.1)]:
        cloned = clone(est)
        assert cloned.get_params() == est.get_params()
        scores = cross_val_score(est, X, y, cv=KFold(3, shuffle=True, random_state=0))  # X is sorted
        assert np.all(scores > 0.5)  # R^2 on a smooth noisy curve


# --- issue 16 ----------------------------------------------------------------------------------

def test_lssvr_functions_refuse_empty_input_instead_of_returning_nan():
    from svmlib.lssvr import solve_lssvr

    with pytest.raises(ValueError, match="empty"):
        solve_lssvr(np.zeros((0, 0)), np.zeros(0), 1.0)


def test_fit_intercept_must_be_a_boolean():
    X, y = np.linspace(0, 1, 8)[:, None], np.sin(np.linspace(0, 3, 8))
    with pytest.raises(TypeError, match="fit_intercept must be True or False"):
        LSSVR(fit_intercept="no").fit(X, y)          # was silently treated as True


def test_regressors_record_feature_names_and_refuse_reordered_columns():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(20, 2)), columns=["u", "v"])
    y = df["u"].to_numpy() - 0.1 * df["v"].to_numpy()
    for model in (LSSVR(), BayesianLSSVR(), GPRegression()):
        model.fit(df, y)
        np.testing.assert_array_equal(model.feature_names_in_, ["u", "v"])
        with pytest.raises(ValueError, match="feature names"):
            model.predict(df[["v", "u"]])
