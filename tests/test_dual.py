"""Tests of svmlib.dual: SMO against libsvm, exact QP solvers and the KKT conditions."""

import warnings

import numpy as np
import pytest
from scipy.linalg import cholesky, solve_triangular
from scipy.optimize import minimize, nnls
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from svmlib.datasets import load_biopsy, make_blobs2d
from svmlib.dual import DualSVC, hard_margin_feasible, smo_steps, solve_dual
from svmlib.kernels import RBF, Linear, Polynomial

TIGHT = 1e-8  # KKT tolerance used in both solvers when comparing them


# ---------------------------------------------------------------- data sets
def _blobs():
    return make_blobs2d(80, separation=2.0, random_state=0)


def _ring():
    """Seeded 5-D set whose classes are separated by a sphere (needs a nonlinear kernel)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(150, 5))
    r = np.linalg.norm(X, axis=1) + 0.3 * rng.normal(size=150)
    return X, np.where(r > np.sqrt(5), 1.0, -1.0)


def _biopsy():
    d = load_biopsy()
    return d.X, d.y


DATASETS = {"blobs": _blobs, "ring": _ring, "biopsy": _biopsy}
KERNELS = {"linear": Linear(), "poly": Polynomial(p=2, c0=1.0), "rbf": RBF(l=2.0)}


def _dual_objective(alpha, y, K):
    ya = y * alpha
    return alpha.sum() - 0.5 * ya @ K @ ya


def _libsvm(K, y, C, tol=TIGHT):
    clf = SVC(kernel="precomputed", C=C, tol=tol).fit(K, y)
    alpha = np.zeros(len(y))
    # sklearn's public dual_coef_ is y_i alpha_i with y = +1 for classes_[1] (= +1 here)
    alpha[clf.support_] = clf.dual_coef_[0] * y[clf.support_]
    return clf, alpha


# ------------------------------------------------------------ vs libsvm
# Every kernel on every set, except the linear kernel on the ring: no hyperplane helps
# there, the optimum is degenerate (w ~ 0, 35 free alphas in 5-D, so alpha is not unique)
# and libsvm needs 3.5e8 iterations; test_kkt_conditions covers degenerate optima.
CASES = [(d, k) for d in DATASETS for k in KERNELS if (d, k) != ("ring", "linear")]


@pytest.mark.parametrize("data, kern", CASES)
def test_matches_libsvm(data, kern):
    X, y = DATASETS[data]()
    K = KERNELS[kern](X)
    C = 1.0
    sol = solve_dual(K, y, C, tol=TIGHT)
    clf, alpha_ref = _libsvm(K, y, C)
    assert sol.converged
    _assert_kkt(sol, K, y, C, TIGHT)
    assert np.all(alpha_ref >= 0)  # the sign convention of dual_coef_ is as documented
    # Both solvers stop at a KKT violation below 1e-8, so their objectives differ by
    # O(tol * sum|alpha|) at most ~1e-8 relative; 1e-6 leaves room for round-off.
    W_ref = _dual_objective(alpha_ref, y, K)
    assert abs(sol.objective - W_ref) <= 1e-6 * abs(W_ref)
    np.testing.assert_array_equal(np.flatnonzero(sol.is_support), np.sort(clf.support_))
    # decision values: alpha differences of O(tol) times |K| summed over n points
    np.testing.assert_allclose(sol.decision, clf.decision_function(K), atol=1e-4, rtol=0)
    assert abs(sol.b - clf.intercept_[0]) < 1e-4


@pytest.mark.parametrize("data, kern", [("blobs", "rbf"), ("blobs", "linear"), ("ring", "rbf")])
def test_estimator_matches_sklearn_kernels(data, kern):
    """Named kernels (not precomputed) on unseen inputs: RBF l <-> gamma = 1 / (2 l^2)."""
    X, y = DATASETS[data]()
    X_test = np.random.default_rng(5).normal(size=(40, X.shape[1]))
    ours, ref = {
        "rbf": (DualSVC(C=2.0, kernel=RBF(l=1.5), tol=TIGHT), SVC(C=2.0, kernel="rbf", gamma=1 / (2 * 1.5**2), tol=TIGHT)),
        "linear": (DualSVC(C=0.5, kernel="linear", tol=TIGHT), SVC(C=0.5, kernel="linear", tol=TIGHT)),
    }[kern]
    ours.fit(X, y)
    ref.fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X_test), ref.decision_function(X_test), atol=1e-4)
    np.testing.assert_array_equal(ours.predict(X_test), ref.predict(X_test))
    np.testing.assert_array_equal(ours.support_, np.sort(ref.support_))
    order = np.argsort(ref.support_)
    # the free alphas solve K_free a = (margin conditions) only to the KKT tolerance, so
    # they are determined to ~ tol / lambda_min(K_free); 10x that for round-off
    free = ours.support_[(ours.alpha_[ours.support_] < ours.C)]
    lam_min = np.linalg.eigvalsh(ours._kernel()(X[free]))[0]
    atol = 10 * TIGHT / max(lam_min, 1e-12) + 1e-9
    np.testing.assert_allclose(ours.dual_coef_, ref.dual_coef_[:, order], atol=atol)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=1e-4)


# ------------------------------------------------------------- KKT, steps
def _assert_kkt(sol, K, y, C, tol, fit_intercept=True):
    """Complementary slackness in terms of the margins y_i f(x_i), to the solver's tolerance."""
    margin = y * sol.decision
    a = sol.alpha
    slack = tol + 1e-9  # the violation (m - M or max projected gradient) is below tol
    assert np.all(a >= 0) and (np.isinf(C) or np.all(a <= C))
    assert np.all(margin[a == 0] >= 1 - slack)
    assert np.all(np.abs(margin[sol.free] - 1) <= slack)
    if np.isfinite(C):
        assert np.all(margin[a == C] <= 1 + slack)
    if fit_intercept:
        assert abs(y @ a) <= 1e-10 * max(1.0, a.sum())
    assert sol.kkt_violation < tol
    # duality gap of a KKT point is O(tol * sum alpha) -- and never negative beyond round-off
    assert -1e-9 * abs(sol.objective) <= sol.duality_gap <= 2 * tol * (a.sum() + len(y))


@pytest.mark.parametrize("C", [0.1, 1.0, 100.0])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("kern", [Linear(B2=1.0), RBF(l=2.0, B2=1.0)])
def test_kkt_conditions(C, fit_intercept, kern):
    X, y = _ring()
    K = kern(X)
    sol = solve_dual(K, y, C, fit_intercept=fit_intercept, tol=1e-6)
    _assert_kkt(sol, K, y, C, 1e-6, fit_intercept)
    # the reported objective is the dual objective computed from scratch
    assert sol.objective == pytest.approx(_dual_objective(sol.alpha, y, K), rel=1e-12)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_smo_steps_end_at_solution(fit_intercept):
    X, y = _blobs()
    K = RBF(l=1.0)(X)
    states = list(smo_steps(K, y, 1.0, fit_intercept=fit_intercept, tol=1e-5))
    sol = solve_dual(K, y, 1.0, fit_intercept=fit_intercept, tol=1e-5)
    assert states[0].iteration == 0 and states[0].pair is None and not states[0].alpha.any()
    assert [s.iteration for s in states] == list(range(len(states)))
    assert states[-1].iteration == sol.n_iter
    # at alpha = 0, v = y: m - M = 1 - (-1) with a bias, max projected gradient 1 without
    assert states[0].violation == (2.0 if fit_intercept else 1.0)
    assert states[-1].violation < 1e-5 <= states[-2].violation
    np.testing.assert_array_equal(states[-1].alpha, sol.alpha)  # same code, same arithmetic
    # b and W: the iterator uses the running v, solve_dual recomputes it from K
    assert states[-1].b == pytest.approx(sol.b, abs=1e-10)
    assert states[-1].objective == pytest.approx(sol.objective, rel=1e-10)
    # SMO is an ascent method: each exact (clipped) line search cannot lower W
    W = np.array([s.objective for s in states])
    assert np.all(np.diff(W) >= -1e-12 * np.abs(W[1:]))
    i, j = states[1].pair
    assert states[1].alpha[i] > 0 and states[1].alpha[j] > 0
    if fit_intercept:
        assert y[i] != y[j]  # from zero, a pair must have opposite labels to move


# -------------------------------------------------------- no-bias variant
def _pd_kernel():
    X, y = make_blobs2d(40, separation=1.0, random_state=3)
    return RBF(l=0.7)(X) + 1e-10 * np.eye(len(y)), y  # jitter as in the replica chapter


def test_no_bias_hard_margin_vs_nnls():
    """min 1/2 a^T Q a - 1^T a, a >= 0 with Q = L L^T is nnls(L^T, solve(L, 1))."""
    K, y = _pd_kernel()
    Q = np.outer(y, y) * K
    L = cholesky(Q, lower=True)
    alpha_ref, _ = nnls(L.T, solve_triangular(L, np.ones(len(y)), lower=True), maxiter=10_000)
    sol = solve_dual(K, y, np.inf, fit_intercept=False, tol=1e-10)
    assert sol.converged and sol.b == 0.0
    # |alpha - alpha*| <= |grad error| / lambda_min(Q); lambda_min ~ 1e-3 here and the
    # projected gradient is < 1e-10, so 1e-6 relative to max alpha is generous
    np.testing.assert_allclose(sol.alpha, alpha_ref, atol=1e-6 * alpha_ref.max())
    np.testing.assert_array_equal(sol.is_support, alpha_ref > 1e-8 * alpha_ref.max())
    _assert_kkt(sol, K, y, np.inf, 1e-10, fit_intercept=False)


@pytest.mark.parametrize("C", [0.5, 5.0])
def test_no_bias_soft_margin_vs_lbfgsb(C):
    K, y = _pd_kernel()
    Q = np.outer(y, y) * K
    res = minimize(lambda a: (0.5 * a @ Q @ a - a.sum(), Q @ a - 1), np.zeros(len(y)), jac=True,
                   method="L-BFGS-B", bounds=[(0, C)] * len(y),
                   options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 20_000})
    sol = solve_dual(K, y, C, fit_intercept=False, tol=1e-9)
    # L-BFGS-B reaches ~1e-10 relative in the objective on this 40-point QP; SMO may only be better
    assert sol.objective >= -res.fun - 1e-9 * abs(res.fun)
    assert sol.objective == pytest.approx(-res.fun, rel=1e-8)
    np.testing.assert_allclose(sol.alpha, res.x, atol=1e-4 * C)


def test_no_bias_warm_start():
    K, y = _pd_kernel()
    cold = solve_dual(K, y, 2.0, fit_intercept=False, tol=1e-8)
    start = solve_dual(K, y, 1.0, fit_intercept=False, tol=1e-8).alpha  # feasible for C = 2
    warm = solve_dual(K, y, 2.0, fit_intercept=False, tol=1e-8, alpha0=start)
    np.testing.assert_allclose(warm.alpha, cold.alpha, atol=1e-6)
    assert warm.n_iter < cold.n_iter
    # warm start at the solution: nothing to do
    again = solve_dual(K, y, 2.0, fit_intercept=False, tol=1e-6, alpha0=warm.alpha)
    assert again.n_iter == 0 and again.converged


def test_bias_warm_start_and_alpha0_checks():
    X, y = _blobs()
    K = RBF()(X)
    cold = solve_dual(K, y, 1.0, tol=1e-8)
    warm = solve_dual(K, y, 1.0, tol=1e-8, alpha0=cold.alpha)
    assert warm.n_iter == 0
    with pytest.raises(ValueError, match="sum\\(y \\* alpha0\\) = 0"):
        solve_dual(K, y, 1.0, alpha0=np.r_[1.0, np.zeros(len(y) - 1)])
    with pytest.raises(ValueError, match="\\[0, C\\]"):
        solve_dual(K, y, 1.0, alpha0=np.full(len(y), 2.0), fit_intercept=False)
    with pytest.raises(ValueError, match="shape"):
        solve_dual(K, y, 1.0, alpha0=np.zeros(3))
    with pytest.raises(ValueError, match="NaN"):
        solve_dual(K, y, 1.0, alpha0=np.full(len(y), np.nan))


# ------------------------------------------------------------ hard margin
def test_hard_margin_equals_large_C():
    X, y = make_blobs2d(60, separation=5.0, random_state=2)  # separable
    K = Linear()(X)
    hard = solve_dual(K, y, np.inf, tol=1e-9)
    soft = solve_dual(K, y, 1e6, tol=1e-9)
    ref_clf, ref_alpha = _libsvm(K, y, 1e6, tol=1e-9)
    assert hard.alpha.max() < 1e6  # so C = 1e6 is not active and the problems coincide
    np.testing.assert_allclose(hard.alpha, soft.alpha, atol=1e-8 * hard.alpha.max())
    np.testing.assert_allclose(hard.alpha, ref_alpha, atol=1e-6 * hard.alpha.max())
    assert np.all(y * hard.decision >= 1 - 1e-8)  # every point outside the margin
    # at the optimum W = |w|^2 / 2 = sum(alpha) / 2
    assert hard.objective == pytest.approx(0.5 * hard.alpha.sum(), rel=1e-8)
    assert hard.free.sum() >= 2 and np.array_equal(hard.free, hard.is_support)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_infeasible_hard_margin_raises(fit_intercept):
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])  # XOR
    y = np.array([1.0, 1.0, -1.0, -1.0])
    with pytest.raises(ValueError, match="finite C"):
        solve_dual(Linear()(X), y, np.inf, fit_intercept=fit_intercept)
    Xb, yb = make_blobs2d(100, separation=1.0, random_state=0)  # overlapping blobs
    with pytest.raises(ValueError, match="infeasible"):
        DualSVC(C=np.inf, kernel="linear", fit_intercept=fit_intercept).fit(Xb, yb)
    assert not hard_margin_feasible(Linear()(Xb), yb, fit_intercept=fit_intercept)
    # the same data ARE separable by a flexible RBF kernel (full-rank Gram matrix)
    clf = DualSVC(C=np.inf, kernel=RBF(l=0.3), fit_intercept=fit_intercept).fit(Xb, yb)
    assert clf.score(Xb, yb) == 1.0
    # a kernel that is zero everywhere separates nothing (and has no scale to compare with)
    with pytest.raises(ValueError, match="infeasible"):
        solve_dual(np.zeros((3, 3)), np.array([-1.0, 1.0, 1.0]), np.inf, fit_intercept=fit_intercept)
    # identical inputs with opposite labels cannot be separated by any kernel
    with pytest.raises(ValueError, match="infeasible"):
        solve_dual(RBF()(np.array([[0.0], [0.0], [1.0]])), np.array([1.0, -1.0, 1.0]), np.inf,
                   fit_intercept=fit_intercept)


# ----------------------------------------------------- convergence warning
def test_convergence_warning():
    X, y = _ring()
    K = RBF(l=2.0)(X)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        sol = solve_dual(K, y, 10.0, max_iter=5)
    assert not sol.converged and sol.n_iter == 5
    assert np.all(np.isfinite(sol.alpha)) and np.isfinite(sol.objective) and sol.kkt_violation > 1e-3
    with pytest.warns(ConvergenceWarning):
        clf = DualSVC(C=10.0, kernel=RBF(l=2.0), max_iter=5).fit(X, y)
    assert clf.converged_ is False and clf.n_iter_ == 5
    assert np.all(np.isfinite(clf.decision_function(X)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # converged runs stay silent
        assert DualSVC(kernel=RBF(l=2.0)).fit(X, y).converged_


# ------------------------------------------------------------ estimator
def test_label_renaming_invariance():
    X, y = _blobs()
    y01 = (y > 0).astype(int)
    base = DualSVC(kernel=RBF(), tol=TIGHT).fit(X, y01)
    names = DualSVC(kernel=RBF(), tol=TIGHT).fit(X, np.where(y01 == 1, "spam", "eggs"))  # eggs < spam
    swapped = DualSVC(kernel=RBF(), tol=TIGHT).fit(X, np.where(y01 == 1, -7, 3))  # class 1 is classes_[0]
    np.testing.assert_allclose(names.decision_function(X), base.decision_function(X), atol=1e-12)
    # flipping y changes SMO's path (I_up and I_low swap), not the optimum: equal to ~tol
    np.testing.assert_allclose(swapped.decision_function(X), -base.decision_function(X), atol=1e-6)
    pred = base.predict(X)
    np.testing.assert_array_equal(names.predict(X), np.where(pred == 1, "spam", "eggs"))
    np.testing.assert_array_equal(swapped.predict(X), np.where(pred == 1, -7, 3))
    assert list(swapped.classes_) == [-7, 3]


def test_attributes_and_precomputed():
    X, y = _ring()
    X_test = np.random.default_rng(9).normal(size=(20, 5))
    kern = RBF(l=2.0)
    clf = DualSVC(C=1.0, kernel=kern, tol=1e-6).fit(X, y)
    pre = DualSVC(C=1.0, kernel="precomputed", tol=1e-6).fit(kern(X), y)
    np.testing.assert_allclose(pre.decision_function(kern(X_test, X)), clf.decision_function(X_test), atol=1e-10)
    n = len(y)
    assert clf.alpha_.shape == (n,) and clf.dual_coef_.shape == (1, clf.support_.size)
    np.testing.assert_allclose(clf.dual_coef_[0], np.where(y > 0, 1, -1)[clf.support_] * clf.alpha_[clf.support_])
    assert clf.support_vectors_.shape == (clf.support_.size, 5) and pre.support_vectors_.shape == (0, 0)
    assert clf.intercept_.shape == (1,) and clf.n_support_.sum() == clf.support_.size
    assert clf.converged_ and clf.n_iter_ > 0 and 0 <= clf.duality_gap_ < 1e-3 * clf.objective_
    # callable kernels work like the named one
    lin = DualSVC(kernel="linear").fit(X, y)
    call = DualSVC(kernel=lambda A, B: A @ B.T).fit(X, y)
    np.testing.assert_allclose(call.decision_function(X_test), lin.decision_function(X_test), atol=1e-12)


def test_pipeline_gridsearch_clone():
    X, y = _ring()
    pipe = make_pipeline(StandardScaler(), DualSVC(kernel=RBF()))
    grid = GridSearchCV(pipe, {"dualsvc__C": [0.1, 10.0], "dualsvc__kernel__l": [1.0, 3.0]}, cv=3).fit(X, y)
    assert grid.best_score_ > 0.7
    c = clone(DualSVC(C=3.0, kernel=RBF(l=2.0), tol=1e-4, fit_intercept=False, max_iter=100))
    assert c.get_params()["kernel__l"] == 2.0 and c.C == 3.0 and c.max_iter == 100
    # a precomputed kernel is sliced on both axes by cross-validation (pairwise tag)
    K = RBF(l=2.0)(X)
    gk = GridSearchCV(DualSVC(kernel="precomputed"), {"C": [0.1, 10.0]}, cv=3).fit(K, y)
    gs = GridSearchCV(SVC(kernel="precomputed"), {"C": [0.1, 10.0]}, cv=3).fit(K, y)
    np.testing.assert_allclose(gk.cv_results_["mean_test_score"], gs.cv_results_["mean_test_score"], atol=0.02)


# ------------------------------------------------------------- bad input
BAD_FIT = [
    (np.array([[0.0], [np.nan], [1.0]]), [0, 1, 1], {}, "finite"),
    (np.array([[0.0], [np.inf], [1.0]]), [0, 1, 1], {}, "finite"),
    (np.array([0.0, 1.0, 2.0]), [0, 1, 1], {}, "2-D"),
    (np.zeros((3, 2)), [0, 1], {}, "inconsistent|samples"),
    (np.zeros((3, 2)), [1, 1, 1], {}, "two classes"),
    (np.zeros((3, 2)), [0, 1, 2], {}, "two classes"),
    (np.eye(3), [0, 1, 1], {"C": 0.0}, "C must be > 0"),
    (np.eye(3), [0, 1, 1], {"C": -1.0}, "C must be > 0"),
    (np.eye(3), [0, 1, 1], {"C": np.nan}, "C must be > 0"),
    (np.eye(3), [0, 1, 1], {"kernel": lambda A, B: np.ones((2, 2))}, "shape"),
    (np.eye(3), [0, 1, 1], {"kernel": lambda A, B: np.full((len(A), len(B)), np.nan)}, "NaN"),
    (np.ones((3, 2)), [0, 1, 1], {"kernel": "precomputed"}, "square"),
    (np.eye(3), [0, 1, 1], {"kernel": "nope"}, "Unknown kernel"),
    (np.eye(3), [0, 1, 1], {"tol": -1.0}, "tol"),
]


@pytest.mark.parametrize("X, y, params, msg", BAD_FIT)
def test_bad_input_fit(X, y, params, msg):
    with pytest.raises(ValueError, match=msg):
        DualSVC(**params).fit(X, y)


def test_bad_input_predict_and_solve_dual():
    X, y = _blobs()
    clf = DualSVC(kernel="linear").fit(X, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="finite"):
        clf.decision_function(np.array([[np.nan, 0.0]]))
    pre = DualSVC(kernel="precomputed").fit(Linear()(X), y)
    with pytest.raises(ValueError, match="columns"):
        pre.predict(np.zeros((2, 5)))
    K = Linear()(X)
    with pytest.raises(ValueError, match="symmetric"):
        solve_dual(K + np.triu(np.ones_like(K), 1), y)
    with pytest.raises(ValueError, match="shape"):
        solve_dual(K[:-1], y)
    with pytest.raises(ValueError, match="-1 and \\+1"):
        solve_dual(K, (y > 0).astype(float))
    with pytest.raises(ValueError, match="both classes"):
        solve_dual(K, np.ones(len(y)))
    with pytest.raises(TypeError):
        solve_dual(K, y, C="big")
    with pytest.raises(ValueError, match="max_iter"):
        solve_dual(K, y, max_iter=-1)
    # one class is fine without a bias: every point is pushed to margin 1
    one = solve_dual(K + 1.0, np.ones(len(y)), 1.0, fit_intercept=False, tol=1e-8)
    assert one.converged and np.all(one.decision >= 1 - 1e-6)


def test_no_steps_and_more_bad_input():
    X, y = _blobs()
    with pytest.warns(ConvergenceWarning):
        clf = DualSVC(kernel="linear", max_iter=0).fit(X, y)
    assert clf.n_iter_ == 0 and clf.support_.size == 0
    np.testing.assert_array_equal(clf.decision_function(X[:3]), np.full(3, clf.intercept_[0]))
    K = Linear()(X)
    with pytest.raises(ValueError, match="1-D"):
        solve_dual(K, y[:, None] * np.ones((1, 2)))
    with pytest.raises(ValueError, match="1-D"):
        solve_dual(K, ["a"] * len(y))
    with pytest.raises(ValueError, match="empty"):
        solve_dual(np.zeros((0, 0)), np.zeros(0))
    with pytest.raises(TypeError, match="alpha0"):
        solve_dual(K, y, alpha0=["x"] * len(y))


# scikit-learn's own estimator checks: an independent test of the estimator protocol
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402


# Expected failures, with the reason:
# - check_sample_weight_equivalence_on_dense_data: a weight of 2 IS equivalent to a repeated point
#   at the optimum (test_sample_weight_equals_repetition shows it at tol = 1e-10), but the check
#   compares decision values to rtol = 1e-7 at the default tol = 1e-3, where both SMO runs stop at
#   different points of the KKT tolerance region (scikit-learn's SVC is listed for the same reason).
# - check_class_weight_classifiers without a bias: the check's RBF (l = 1) on blobs of spread 20
#   leaves test points far from every training point, where f(x) = sum_i alpha_i y_i K(x, x_i) ~ 0
#   whatever the class weights; only a bias can carry the weighted class there.
_SW = "sample_weight equals repetition only at the optimum; SMO stops within tol (as SVC)"
EXPECTED_FAILED = {
    "check_sample_weight_equivalence_on_dense_data": _SW,
}


def _expected_failed(estimator):
    failed = dict(EXPECTED_FAILED)
    if not estimator.fit_intercept:
        failed["check_class_weight_classifiers"] = "without a bias, far test points get f ~ 0"
    return failed


@parametrize_with_checks([DualSVC(), DualSVC(fit_intercept=False)], expected_failed_checks=_expected_failed)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


# ------------------------------------------- kernel rows on demand (issue 18)
from svmlib.dual import HARD_MAX_ITER, KernelRowCache  # noqa: E402
from svmlib.kernels import UserKernel  # noqa: E402


def _low_rank():
    """300 points in 2-D with Linear(B2=1): a Gram matrix of rank 3 (n >> d, libsvm's worst case)."""
    X, y = make_blobs2d(300, separation=1.5, random_state=4)
    return X, y, Linear(B2=1.0)


ROW_CASES = {
    "rbf": lambda: (*_ring(), RBF(l=2.0)),
    "linear": lambda: (*_blobs(), Linear()),
    "poly": lambda: (*_ring(), Polynomial(p=3, c0=1.0, K0=0.1)),
    "low_rank": _low_rank,
    "user": lambda: (*_ring(), UserKernel(lambda A, B: np.exp(-np.abs(A[:, None, :] - B[None]).sum(-1) / 3))),
}


@pytest.mark.parametrize("name", ROW_CASES)
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_row_cache_equals_full_gram(name, fit_intercept):
    """The cached solver takes the full-Gram solver's steps, with a cache of a few rows only."""
    X, y, kern = ROW_CASES[name]()
    K = kern(X)
    full = solve_dual(K, y, 1.0, tol=TIGHT, fit_intercept=fit_intercept)
    rows = KernelRowCache(kern, X, cache_size=4 * 8 * len(y) / 2**20)  # room for 4 rows
    cached = solve_dual(rows, y, 1.0, tol=TIGHT, fit_intercept=fit_intercept)
    assert rows.buffer.shape[0] == 4 and rows.misses > 4  # rows were dropped (and recomputed)
    assert cached.converged
    # Rows of the RBF and the user kernel are the kernel's own arithmetic, bit for bit: same path.
    # Linear/polynomial rows come from a matrix-vector product (other summation order than the
    # matrix product, ~1e-16 relative), so the paths may part at a near-tie; both stop at a KKT
    # violation below 1e-8, so the objectives agree to ~1e-8 relative (1e-7 for round-off).
    if name in ("rbf", "user"):
        np.testing.assert_array_equal(cached.alpha, full.alpha)
        assert cached.n_iter == full.n_iter
    assert cached.objective == pytest.approx(full.objective, rel=1e-7)
    # the running v at the end equals the recomputed decision values to round-off
    np.testing.assert_allclose(cached.decision, full.decision, atol=1e-5)
    assert cached.kkt_violation < TIGHT
    if fit_intercept:
        _, alpha_ref = _libsvm(K, y, 1.0)
        W_ref = _dual_objective(alpha_ref, y, K)
        assert abs(cached.objective - W_ref) <= 1e-6 * abs(W_ref)  # as test_matches_libsvm
        if name != "low_rank":  # a rank-3 Gram matrix leaves alpha non-unique; f is unique
            np.testing.assert_allclose(cached.alpha, alpha_ref, atol=1e-4)
        np.testing.assert_allclose(cached.decision, _libsvm(K, y, 1.0)[0].decision_function(K), atol=1e-4)


def test_estimator_uses_row_cache_and_bounded_memory():
    """DualSVC no longer forms the n x n Gram matrix (72 MB at n = 3000)."""
    import tracemalloc

    rng = np.random.default_rng(3)
    X = rng.normal(size=(3000, 4))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=3000) > 0, 1, 0)
    clf = DualSVC(C=1.0, kernel=RBF(l=2.0), cache_size=4.0)
    tracemalloc.start()
    try:
        clf.fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # 4 MB of cached rows plus O(n) vectors and the sampled symmetry check (2 x 32 x n);
    # the full Gram matrix alone would be 72 MB
    assert peak < 12e6, peak
    ref = SVC(C=1.0, gamma=1 / 8, tol=1e-3).fit(X, y)
    assert np.mean(clf.predict(X) == ref.predict(X)) > 0.995  # same optimum to tol = 1e-3


def test_row_cache_checks():
    X, y = _blobs()
    with pytest.raises(ValueError, match="cache_size"):
        DualSVC(cache_size=0).fit(X, y)
    with pytest.raises(TypeError, match="cache_size"):
        DualSVC(cache_size="big").fit(X, y)
    with pytest.raises(ValueError, match="symmetric"):
        DualSVC(kernel=lambda A, B: A @ (B + 1).T).fit(X, y)
    with pytest.raises(ValueError, match="holds 80 points"):
        solve_dual(KernelRowCache(RBF(), X), y[:-1])
    rows = KernelRowCache("linear", X, cache_size=1.0)
    np.testing.assert_allclose(rows.full(), X @ X.T, atol=1e-12)
    np.testing.assert_allclose(rows.dot(np.r_[1.0, np.zeros(79)]), X @ X[0], atol=1e-12)
    np.testing.assert_array_equal(rows.dot(np.zeros(80)), np.zeros(80))


# -------------------------------------------------- hard margin (issue 16)
def _xor(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2))
    return X, np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_hard_margin_non_psd_kernel_raises(fit_intercept):
    """Regression: -RBF gave alpha = inf, b = NaN and converged=True."""
    X, y = _xor(30)
    with pytest.raises(ValueError, match="positive semi-definite"):
        solve_dual(-RBF()(X), y, np.inf, fit_intercept=fit_intercept)
    # an indefinite kernel with a positive diagonal: caught by a pair of negative curvature
    K = RBF()(X) - 0.9 * Linear()(X)
    assert np.linalg.eigvalsh(K)[0] < -1e-3
    with pytest.raises(ValueError, match="positive semi-definite|infeasible"):
        solve_dual(K, y, np.inf, fit_intercept=fit_intercept)
    with pytest.raises(ValueError, match="positive semi-definite"):
        DualSVC(C=np.inf, kernel=lambda A, B: -RBF()(A, B), fit_intercept=fit_intercept).fit(X, y)
    # a soft margin on the same kernel stays finite (libsvm's tau fix), as before
    sol = solve_dual(-RBF()(X), y, 1.0, fit_intercept=fit_intercept)
    assert np.all(np.isfinite(sol.alpha)) and np.isfinite(sol.b)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_hard_margin_scale_free(fit_intercept):
    """Regression: K scaled by 1e-20 froze SMO (absolute tau 1e-12 > every curvature)."""
    X, y = make_blobs2d(60, separation=5.0, random_state=2)
    K = Linear()(X)
    ref = solve_dual(K, y, np.inf, tol=1e-9, fit_intercept=fit_intercept)
    for scale in (1e-20, 1e20):
        sol = solve_dual(scale * K, y, np.inf, tol=1e-9, fit_intercept=fit_intercept, max_iter=10_000)
        assert sol.converged and sol.n_iter <= 2 * ref.n_iter + 10
        np.testing.assert_array_equal(np.sign(sol.decision), np.sign(ref.decision))
        # alpha scales as 1 / scale, f does not change
        np.testing.assert_allclose(scale * sol.alpha, ref.alpha, rtol=1e-6, atol=1e-9 * ref.alpha.max())
        np.testing.assert_allclose(sol.decision, ref.decision, atol=1e-6)


def test_hard_margin_default_cap_ends_in_seconds():
    """Regression: the default cap was max(10**7, 100 n) steps (minutes); now 100,000 + 10 n."""
    import time

    X, y = _xor(40)
    K = RBF(l=20.0)(X)  # separable (K has full rank) with a tiny margin: alphas ~ 1e8, SMO creeps
    t0 = time.perf_counter()
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        sol = solve_dual(K, y, np.inf)
    assert time.perf_counter() - t0 < 60  # ~4 s here; the old cap meant ~6 minutes
    assert sol.n_iter == HARD_MAX_ITER + 10 * len(y) and not sol.converged
    assert np.all(np.isfinite(sol.alpha)) and np.isfinite(sol.b)


BAD_FEASIBLE = [
    (np.eye(2), [0.0, 1.0], {}, ValueError, "-1"),
    (np.eye(2), [1.0, -1.0, 1.0], {}, ValueError, "shape"),
    (np.array([[1.0, np.nan], [np.nan, 1.0]]), [1.0, -1.0], {}, ValueError, "NaN"),
    (np.array([[1.0, 0.5], [0.0, 1.0]]), [1.0, -1.0], {}, ValueError, "symmetric"),
    (np.zeros((0, 0)), [1.0, -1.0], {}, ValueError, "shape"),
    (np.zeros((0, 0)), [], {}, ValueError, "empty"),
    (np.eye(2), [1.0, -1.0], {"fit_intercept": "no"}, TypeError, "True or False"),
    ([["a", "b"], ["c", "d"]], [1.0, -1.0], {}, TypeError, "numeric"),
]


@pytest.mark.parametrize("K, y, kw, err, msg", BAD_FEASIBLE)
def test_hard_margin_feasible_validates(K, y, kw, err, msg):
    """Regression: wrong labels/lengths, NaN and asymmetric K were accepted; [] raised IndexError."""
    with pytest.raises(err, match=msg):
        hard_margin_feasible(K, np.asarray(y) if isinstance(y, list) and y and msg != "-1" else y, **kw)


def test_hard_margin_feasible_accepts_lists():
    """Regression: a list K raised AttributeError."""
    assert hard_margin_feasible([[1.0, 0.0], [0.0, 1.0]], [1, -1]) is True
    assert hard_margin_feasible([[1.0, 1.0], [1.0, 1.0]], [1, -1], fit_intercept=False) is False


@pytest.mark.parametrize("bad", ["no", "yes", None, 2.5])
def test_fit_intercept_must_be_bool(bad):
    """Regression: fit_intercept='no' was treated as True."""
    X, y = _blobs()
    with pytest.raises(TypeError, match="fit_intercept"):
        solve_dual(Linear()(X), y, fit_intercept=bad)
    with pytest.raises(TypeError, match="fit_intercept"):
        DualSVC(fit_intercept=bad).fit(X, y)


@pytest.mark.parametrize("tol", [-1e-3, 0.0, np.nan])
def test_tol_must_be_positive(tol):
    X, y = _blobs()
    with pytest.raises(ValueError, match="tol"):
        solve_dual(Linear()(X), y, tol=tol)
    with pytest.raises(ValueError, match="tol"):
        DualSVC(tol=tol).fit(X, y)


def test_feature_names_in():
    """Regression: reordered DataFrame columns were accepted silently."""
    pd = pytest.importorskip("pandas")
    X, y = _ring()
    df = pd.DataFrame(X, columns=[f"x{i}" for i in range(5)])
    clf = DualSVC(kernel=RBF(l=2.0)).fit(df, y)
    np.testing.assert_array_equal(clf.feature_names_in_, df.columns)
    with pytest.warns(UserWarning, match="feature names"):  # scikit-learn's warning for an array
        np.testing.assert_array_equal(clf.predict(df), clf.predict(X))
    with pytest.raises(ValueError, match="feature names"):
        clf.predict(df[df.columns[::-1]])
    assert not hasattr(DualSVC(kernel=RBF(l=2.0)).fit(X, y), "feature_names_in_")


# ------------------------------------- sample_weight / class_weight (issue 16)
def _weighted_problem(data="ring"):
    X, y = DATASETS[data]()
    w = np.random.default_rng(7).uniform(0.2, 3.0, size=len(y))
    w[:5] = 0.0  # zero weight: the point takes no part, as in libsvm
    return X, y, w


def _alpha_from_svc(clf, y, w=None):
    # scikit-learn drops zero-weight points before libsvm sees them, and its support_ then
    # indexes the remaining points (not the rows of X)
    kept = np.arange(len(y)) if w is None else np.flatnonzero(w > 0)
    alpha = np.zeros(len(y))
    sv = kept[clf.support_]
    alpha[sv] = clf.dual_coef_[0] * y[sv]
    return alpha


@pytest.mark.parametrize("kern", ["rbf", "linear", "poly"])
def test_sample_weight_matches_libsvm(kern):
    # (the linear kernel on the blobs: on the ring its optimum is degenerate, see CASES)
    X, y, w = _weighted_problem("blobs" if kern == "linear" else "ring")
    kernel, ref_kw = {"rbf": (RBF(l=2.0), dict(kernel="rbf", gamma=1 / 8)),
                      "linear": (Linear(), dict(kernel="linear")),
                      "poly": (Polynomial(p=2, c0=1.0), dict(kernel="poly", degree=2, gamma=1.0, coef0=1.0))}[kern]
    ours = DualSVC(C=2.0, kernel=kernel, tol=TIGHT).fit(X, y, sample_weight=w)
    ref = SVC(C=2.0, tol=TIGHT, **ref_kw).fit(X, y, sample_weight=w)
    K = kernel(X)
    alpha_ref = _alpha_from_svc(ref, y, w)
    assert np.all(ours.alpha_ <= 2.0 * w + 1e-12) and not ours.alpha_[:5].any()
    assert np.any(ours.alpha_ == 2.0 * w)  # some boxes are active: the weights matter
    W_ref = _dual_objective(alpha_ref, y, K)
    # both solvers stop at a KKT violation below 1e-8 (see test_matches_libsvm)
    assert abs(ours.objective_ - W_ref) <= 1e-6 * abs(W_ref)
    np.testing.assert_allclose(ours.alpha_, alpha_ref, atol=1e-4 * w.max())
    X_test = np.random.default_rng(5).normal(size=(50, X.shape[1]))
    np.testing.assert_allclose(ours.decision_function(X_test), ref.decision_function(X_test), atol=1e-4)
    np.testing.assert_array_equal(ours.predict(X_test), ref.predict(X_test))


@pytest.mark.parametrize("class_weight", [{-1.0: 0.2, 1.0: 5.0}, "balanced"])
def test_class_weight_matches_libsvm(class_weight):
    X, y = _ring()  # 1:2.4 imbalance
    ours = DualSVC(C=1.0, kernel=RBF(l=2.0), tol=TIGHT, class_weight=class_weight).fit(X, y)
    ref = SVC(C=1.0, gamma=1 / 8, tol=TIGHT, class_weight=class_weight).fit(X, y)
    np.testing.assert_allclose(ours.class_weight_, ref.class_weight_)
    K = RBF(l=2.0)(X)
    alpha_ref = _alpha_from_svc(ref, y)
    W_ref = _dual_objective(alpha_ref, y, K)
    assert abs(ours.objective_ - W_ref) <= 1e-6 * abs(W_ref)
    np.testing.assert_allclose(ours.alpha_, alpha_ref, atol=1e-4)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    plain = DualSVC(C=1.0, kernel=RBF(l=2.0), tol=TIGHT).fit(X, y)
    assert not np.allclose(plain.decision_function(X), ours.decision_function(X), atol=1e-2)
    # class weights times sample weights, as libsvm
    w = np.random.default_rng(2).uniform(0.5, 2.0, size=len(y))
    both = DualSVC(C=1.0, kernel=RBF(l=2.0), tol=TIGHT, class_weight=class_weight).fit(X, y, sample_weight=w)
    ref2 = SVC(C=1.0, gamma=1 / 8, tol=TIGHT, class_weight=class_weight).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(both.decision_function(X), ref2.decision_function(X), atol=1e-4)


def test_sample_weight_equals_repetition():
    """A weight of 2 is a repeated point: the same f at the optimum (to the tight tolerance)."""
    X, y = _blobs()
    w = np.ones(len(y))
    w[::4] = 2.0
    weighted = DualSVC(C=1.0, kernel=RBF(), tol=1e-10).fit(X, y, sample_weight=w)
    rep = np.r_[np.arange(len(y)), np.arange(0, len(y), 4)]
    repeated = DualSVC(C=1.0, kernel=RBF(), tol=1e-10).fit(X[rep], y[rep])
    np.testing.assert_allclose(weighted.decision_function(X), repeated.decision_function(X), atol=1e-7)
    assert weighted.objective_ == pytest.approx(repeated.objective_, rel=1e-9)
    unit = DualSVC(C=1.0, kernel=RBF(), tol=1e-10).fit(X, y, sample_weight=np.ones(len(y)))
    np.testing.assert_array_equal(unit.alpha_, DualSVC(C=1.0, kernel=RBF(), tol=1e-10).fit(X, y).alpha_)


BAD_WEIGHTS = [
    ({}, np.r_[-1.0, np.ones(79)], ValueError, "non-negative|>= 0"),
    ({}, np.ones(3), ValueError, "sample_weight"),
    ({}, np.r_[np.nan, np.ones(79)], ValueError, "sample_weight"),
    ({}, np.zeros(80), ValueError, "zero everywhere"),
    ({"class_weight": {-1.0: 0.0, 1.0: 1.0}}, None, ValueError, "one class"),
    ({"class_weight": "heavy"}, None, ValueError, "class_weight"),
    ({"class_weight": {7: 1.0}}, None, ValueError, "class_weight"),
]


@pytest.mark.parametrize("params, w, err, msg", BAD_WEIGHTS)
def test_bad_weights(params, w, err, msg):
    X, y = _blobs()
    with pytest.raises(err, match=msg):
        DualSVC(**params).fit(X, y, sample_weight=w)


def test_solve_dual_sample_weight_checks():
    X, y = _blobs()
    K = Linear()(X)
    with pytest.raises(ValueError, match="shape"):
        solve_dual(K, y, sample_weight=np.ones(3))
    with pytest.raises(TypeError, match="sample_weight"):
        solve_dual(K, y, sample_weight=["a"] * len(y))
    with pytest.raises(ValueError, match="one class"):
        solve_dual(K, y, sample_weight=(y > 0).astype(float))
    # without a bias one weighted class is fine; a hard margin keeps C_i = inf for w_i > 0
    sol = solve_dual(K + 1.0, y, np.inf, fit_intercept=False, sample_weight=(y > 0).astype(float))
    assert not sol.alpha[y < 0].any()
    with pytest.raises(ValueError, match="\\[0, C\\]"):
        solve_dual(K, y, 1.0, alpha0=np.full(len(y), 0.5), fit_intercept=False, sample_weight=np.full(len(y), 0.1))


def test_non_psd_pair_named():
    """A pair of negative curvature is named as such (it used to be reported as 'infeasible')."""
    K = np.array([[1.0, 2.0], [2.0, 1.0]])  # positive diagonal, K_11 + K_22 - 2 K_12 = -2
    with pytest.raises(ValueError, match="positive semi-definite"):
        solve_dual(K, np.array([1.0, -1.0]), np.inf)


def test_overflow_at_huge_C_raises():
    """Regression: -RBF with C = 1e300 returned alpha = 1e300, b = -2e300 and converged=True."""
    X, y = _xor(30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's overflow warnings on the way
        with pytest.raises(ValueError, match="NaN"):
            solve_dual(-RBF()(X), y, 1e300, max_iter=100_000)


def test_more_weight_checks():
    X, y = _blobs()
    K = Linear()(X)
    with pytest.raises(ValueError, match=">= 0"):
        solve_dual(K, y, sample_weight=np.r_[-1.0, np.ones(79)])
    with pytest.raises(ValueError, match="class_weight must be finite"):
        DualSVC(class_weight={-1.0: -1.0, 1.0: 1.0}).fit(X, y)


# --------------------------------------------------------------------------
# Every kernel scale and degree: the curvature floor is libsvm's fixed TAU (issue 26)
# --------------------------------------------------------------------------
def _libsvm_dual_objective(K, y, lib):
    a = np.zeros(len(y))
    a[lib.support_] = np.abs(lib.dual_coef_[0])
    return a.sum() - 0.5 * (a * y) @ K @ (a * y)


def _blobs_unit(seed):
    X, y = make_blobs2d(40, separation=1.0, random_state=seed)
    return X / np.abs(X).max(), y  # |x| <= 1: the degree, not the inputs, makes K_ii grow


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("p", [2, 3, 5, 8, 12, 16, 20])
def test_polynomial_degrees_match_libsvm(seed, p):
    # Polynomial(p=20) has K_ii up to 2^20: a floor proportional to max K_ii floored most pair
    # curvatures and SMO stalled (issue 26). Both solvers stop at KKT violation 1e-6, where
    # the objective (second order in the error of alpha) agrees to ~1e-10 relative; we allow 1e-6.
    X, y = _blobs_unit(seed)
    K = Polynomial(p=p)(X, X).astype(np.float32).astype(float)  # libsvm's Q is float32
    ours = solve_dual(K, y, C=1.0, tol=1e-6)
    lib = SVC(kernel="precomputed", C=1.0, tol=1e-6).fit(K, y)
    W_lib = _libsvm_dual_objective(K, y, lib)
    assert ours.converged
    assert abs(ours.objective - W_lib) <= 1e-6 * abs(W_lib)
    # SMO's step count depends on which of two equally good pairs comes first (index order,
    # and libsvm orients y the other way); measured ratios 0.5-1.8 on these data; allowed 3
    assert ours.n_iter <= 3 * lib.n_iter_[0]


@pytest.mark.parametrize("scale", [1e-8, 1e-4, 1.0, 1e4, 1e8])
@pytest.mark.parametrize("kern", [RBF(1.0), Polynomial(p=3)], ids=["rbf", "poly3"])
def test_kernel_scales_match_libsvm(scale, kern):
    # Entries from 1e-8 to 1e8. Scaling K by s and C by 1/s scales alpha by 1/s and changes
    # nothing else (the same problem at every scale: with a fixed C a scale of 1e8 is a
    # hard-margin problem that takes both solvers ~1e6 steps).
    X, y = _blobs_unit(0)
    # libsvm stores Q in single precision (its Qfloat): on K of scale 1e4 that moves W by
    # 2e-6 relative. Both solve the same K, rounded to float32.
    K = (scale * kern(X, X)).astype(np.float32).astype(float)
    ours = DualSVC(C=1.0 / scale, kernel="precomputed", tol=1e-6).fit(K, y)
    lib = SVC(kernel="precomputed", C=1.0 / scale, tol=1e-6).fit(K, y)
    W_lib = _libsvm_dual_objective(K, y, lib)
    assert abs(ours.objective_ - W_lib) <= 1e-6 * abs(W_lib)
    assert ours.n_iter_ <= 3 * lib.n_iter_[0]


def test_tau_is_libsvm_fixed_floor():
    from svmlib.dual import TAU, _tau
    assert _tau(np.array([3.35e9, 1.0])) == TAU == 1e-12  # independent of a large scale
    assert _tau(np.array([1e-20])) == pytest.approx(1e-32)  # shrinks below scale 1 only


def test_wss_ties_go_to_smaller_index():
    # Two candidates whose gains differ by round-off (1e-15 relative) must not be ordered by it:
    # the step count would then change with the BLAS kernel (FMA or not).
    from svmlib.dual import _first_max
    a = np.array([0.3, 1.0 - 1e-15, 1.0, 0.2])
    assert _first_max(a, np.empty(4, dtype=bool)) == 1
    a = np.array([0.3, 1.0 - 1e-9, 1.0, 0.2])  # a real difference is kept
    assert _first_max(a, np.empty(4, dtype=bool)) == 2
    a = np.array([-np.inf, -np.inf])
    assert _first_max(a, np.empty(2, dtype=bool)) == 0


def test_mirror_symmetric_data_step_count_is_order_stable():
    # A mirror-symmetric data set has exact ties in v; with ties broken by index the run is
    # the same whatever tiny perturbation round-off adds (here 1e-15 relative on K).
    rng = np.random.default_rng(3)
    A = rng.normal(size=(10, 2))
    X = np.vstack([A, -A]); y = np.r_[np.ones(10), -np.ones(10)]
    K = X @ X.T
    base = solve_dual(K, y, C=1.0, tol=1e-8)
    E = rng.normal(size=K.shape) * 1e-15 * np.abs(K).max()
    pert = solve_dual(K + (E + E.T) / 2, y, C=1.0, tol=1e-8)
    assert pert.n_iter == base.n_iter
