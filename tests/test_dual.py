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
