"""svmlib.primal: the subgradient-descent SVM against independent solutions.

References used here: libsvm (sklearn.svm.SVC) and svmlib.dual.DualSVC for the
textbook problem with an unregularised bias; liblinear (sklearn.svm.LinearSVC,
which regularises its intercept) for the augmented-bias problem; the
subgradient inequality and finite differences for the subgradient formula.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.svm import SVC, LinearSVC

from svmlib.primal import PrimalIterate, PrimalSVC, hinge_subgradient, primal_objective
from svmlib.primal import _per_sample_subgradient

# Full-batch Pegasos on the 2-D blobs: its iterate error decays like ~1/t; after
# 5000 epochs it is measured at |w - w*| ~ 3.5e-4 and |b - b*| ~ 4.2e-4, so the
# 1e-3 of the foundation issue holds with a margin of ~2.5 (it is NOT loosened).
PRIMAL_VS_DUAL_EPOCHS = 5000


def _fit_quiet(**params):
    """A PrimalSVC factory for runs with tol=None (exactly max_epochs, no warning)."""
    return PrimalSVC(tol=None, **params)


# ---------------------------------------------------------------------------
# The formulas
# ---------------------------------------------------------------------------
def test_primal_objective_by_hand():
    X = np.array([[0.0, 0.0], [1.0, 2.0], [2.0, -1.0]])
    y = np.array([-1.0, 1.0, 1.0])
    w, b, C = np.array([1.0, 0.5]), -0.5, 2.0
    # margins: -(-0.5) = 0.5, 1 + 1 - 0.5 = 1.5, 2 - 0.5 - 0.5 = 1.0 -> hinge 0.5, 0, 0
    assert primal_objective(w, b, X, y, C) == pytest.approx(0.5 * 1.25 + 2.0 * 0.5, rel=1e-15)
    assert primal_objective(w, b, X, y, C, regularize_bias=True) == pytest.approx(0.625 + 0.125 + 1.0)


def test_primal_objective_hard_margin_is_infinite_unless_feasible():
    X = np.array([[-1.0], [1.0]])
    y = np.array([-1.0, 1.0])
    assert primal_objective([1.0], 0.0, X, y, np.inf) == 0.5  # both margins exactly 1
    assert primal_objective([0.5], 0.0, X, y, np.inf) == np.inf


def _J_many(W, B, X, y, C, regularize_bias):
    """J at many points (rows of W, entries of B), written out independently of svmlib."""
    margins = y[None, :] * (W @ X.T + B[:, None])
    reg = 0.5 * (np.sum(W**2, axis=1) + (B**2 if regularize_bias else 0.0))
    return reg + C * np.maximum(0.0, 1.0 - margins).sum(axis=1)


def test_subgradient_inequality(blobs, rng):
    """J(v) >= J(u) + g(u) . (v - u) for every v: the definition of a subgradient."""
    X, y = blobs
    C = 0.7
    for regularize_bias in (False, True):
        for _ in range(20):
            u_w, u_b = rng.normal(size=2), rng.normal()
            g_w, g_b = hinge_subgradient(u_w, u_b, X, y, C, regularize_bias=regularize_bias)
            J_u = primal_objective(u_w, u_b, X, y, C, regularize_bias=regularize_bias)
            assert J_u == pytest.approx(_J_many(u_w[None], np.array([u_b]), X, y, C, regularize_bias)[0], rel=1e-14)
            V_w, V_b = rng.normal(size=(500, 2)) * 2.0, rng.normal(size=500) * 2.0
            J_v = _J_many(V_w, V_b, X, y, C, regularize_bias)
            lower = J_u + (V_w - u_w) @ g_w + (V_b - u_b) * g_b
            assert np.all(J_v >= lower - 1e-10 * np.abs(J_v))  # round-off only


def test_subgradient_at_a_kink_is_still_a_subgradient(rng):
    """A point exactly on the margin (the kink) is counted as satisfied; still valid."""
    X = np.array([[1.0, 0.0], [-1.0, 0.5]])
    y = np.array([1.0, -1.0])
    w, b = np.array([1.0, 0.0]), 0.0  # margins: 1 (kink) and 1 (kink)
    g_w, g_b = hinge_subgradient(w, b, X, y, 1.0)
    np.testing.assert_array_equal(g_w, w)
    J_u = primal_objective(w, b, X, y, 1.0)
    for v in rng.normal(size=(500, 3)):
        assert primal_objective(v[:2], v[2], X, y, 1.0) >= J_u + (v[:2] - w) @ g_w + (v[2] - b) * g_b - 1e-12


def test_subgradient_is_the_gradient_away_from_kinks(blobs, rng):
    """Central finite differences (step 1e-6, error O(h^2) ~ 1e-12 relative) where J is smooth."""
    X, y = blobs
    C, h = 1.3, 1e-6
    w, b = rng.normal(size=2), 0.1
    margins = y * (X @ w + b)
    assert np.min(np.abs(margins - 1)) > 1e-3  # no kink within h of the point
    g_w, g_b = hinge_subgradient(w, b, X, y, C, regularize_bias=True)

    def J(p):
        return primal_objective(p[:2], p[2], X, y, C, regularize_bias=True)

    p = np.r_[w, b]
    fd = np.array([(J(p + h * e) - J(p - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(np.r_[g_w, g_b], fd, rtol=1e-6, atol=1e-6)


def test_per_sample_subgradient_is_scaled_full_subgradient(blobs, rng):
    """The solver's step direction on the whole set is hinge_subgradient / (C n)."""
    X, y = blobs
    C, n = 2.5, len(y)
    w, b = rng.normal(size=2), 0.3
    for reg in (False, True):
        g_w, g_b, _ = _per_sample_subgradient(w, b, X, y, 1.0 / (C * n), reg)
        G_w, G_b = hinge_subgradient(w, b, X, y, C, regularize_bias=reg)
        np.testing.assert_allclose(g_w, G_w / (C * n), rtol=1e-13, atol=1e-15)
        assert g_b == pytest.approx(G_b / (C * n), rel=1e-13, abs=1e-15)


def test_mini_batch_subgradient_is_unbiased(blobs, rng):
    """Averaged over all batches of one shuffle, batch subgradients give the full one."""
    X, y = blobs
    lam = 1.0 / 40
    w, b = rng.normal(size=2), -0.2
    full = _per_sample_subgradient(w, b, X, y, lam, False)
    parts = [_per_sample_subgradient(w, b, X[i:i + 8], y[i:i + 8], lam, False) for i in range(0, 40, 8)]
    np.testing.assert_allclose(np.mean([p[0] for p in parts], axis=0), full[0], rtol=1e-13)
    assert np.mean([p[1] for p in parts]) == pytest.approx(full[1], rel=1e-13)


# ---------------------------------------------------------------------------
# The solution: primal vs dual
# ---------------------------------------------------------------------------
def test_primal_matches_libsvm(blobs, linear_svc_reference):
    X, y = blobs
    w_ref, b_ref, J_ref = linear_svc_reference(X, y, 1.0)
    clf = _fit_quiet(C=1.0, step="pegasos", max_epochs=PRIMAL_VS_DUAL_EPOCHS).fit(X, y)
    np.testing.assert_allclose(clf.coef_[0], w_ref, atol=1e-3)
    assert abs(clf.intercept_[0] - b_ref) < 1e-3
    assert abs(clf.objective_ - J_ref) <= 1e-4 * J_ref


def test_primal_matches_dual_svc(blobs):
    """The foundation test: primal vs svmlib's own SMO dual, linear kernel."""
    from svmlib.dual import DualSVC

    X, y = blobs
    dual = DualSVC(kernel="linear", C=1.0, tol=1e-8).fit(X, y)
    w_dual = dual.dual_coef_[0] @ dual.support_vectors_
    clf = _fit_quiet(C=1.0, step="pegasos", max_epochs=PRIMAL_VS_DUAL_EPOCHS).fit(X, y)
    np.testing.assert_allclose(clf.coef_[0], w_dual, atol=1e-3)
    assert abs(clf.intercept_[0] - dual.intercept_[0]) < 1e-3
    # The dual maximum equals the primal minimum (strong duality).
    assert abs(clf.objective_ - dual.objective_) <= 1e-4 * abs(dual.objective_)
    np.testing.assert_array_equal(clf.predict(X), dual.predict(X))


def test_primal_matches_libsvm_in_5d(blobs5d, linear_svc_reference):
    """A second, 5-D problem with 6 free support vectors (10000 epochs: |dw| ~ 4e-4 measured)."""
    X, y = blobs5d
    w_ref, b_ref, J_ref = linear_svc_reference(X, y, 1.0)
    clf = _fit_quiet(C=1.0, max_epochs=10000).fit(X, y)
    np.testing.assert_allclose(clf.coef_[0], w_ref, atol=1e-3)
    assert abs(clf.intercept_[0] - b_ref) < 1e-3
    assert abs(clf.objective_ - J_ref) <= 1e-4 * J_ref


# liblinear's dual coordinate descent stops on max_iter before reaching tol=1e-12; its
# answer is still within 1e-6 of our reference needs (checked by the objective below).
@pytest.mark.filterwarnings("ignore:Liblinear failed to converge:sklearn.exceptions.ConvergenceWarning")
def test_augmented_bias_matches_liblinear(blobs):
    """bias='augmented' is the problem liblinear solves (its intercept is regularised)."""
    X, y = blobs
    C = 1.0
    ref = LinearSVC(C=C, loss="hinge", dual=True, intercept_scaling=1.0, tol=1e-12, max_iter=1_000_000).fit(X, y)
    J_ref = primal_objective(ref.coef_[0], ref.intercept_[0], X, y, C, regularize_bias=True)
    clf = _fit_quiet(C=C, step="pegasos", bias="augmented", max_epochs=PRIMAL_VS_DUAL_EPOCHS).fit(X, y)
    np.testing.assert_allclose(clf.coef_[0], ref.coef_[0], atol=1e-3)
    assert abs(clf.intercept_[0] - ref.intercept_[0]) < 1e-3
    assert abs(clf.objective_ - J_ref) <= 1e-4 * J_ref

def test_augmented_bias_is_a_different_problem(blobs, linear_svc_reference):
    """Off-centre inputs need a large bias; regularising it (augmented) pulls it towards 0."""
    X, y = blobs
    X = X + 1.0
    _, b_textbook, _ = linear_svc_reference(X, y, 1.0)
    aug = PrimalSVC(bias="augmented").fit(X, y)
    assert aug.converged_
    assert abs(aug.intercept_[0]) < abs(b_textbook) - 0.1


def test_hard_margin_limit(separable_blobs):
    """On separable data, C above the largest hard-margin multiplier gives the hard margin."""
    X, y = separable_blobs
    hard = SVC(kernel="linear", C=1e10, tol=1e-12).fit(X, y)  # effectively C = inf
    alpha_max = np.abs(hard.dual_coef_).max()
    assert alpha_max < 0.2 and np.min(y * hard.decision_function(X)) > 1 - 1e-8
    clf = _fit_quiet(C=10.0, step="pegasos", max_epochs=PRIMAL_VS_DUAL_EPOCHS).fit(X, y)
    np.testing.assert_allclose(clf.coef_[0], hard.coef_[0], atol=1e-3)
    assert abs(clf.intercept_[0] - hard.intercept_[0]) < 1e-3
    assert np.min(y * clf.decision_function(X)) > 1 - 1e-3  # (almost) no margin violations
    # the margin 1/|w| is the hard-margin one
    assert 1 / np.linalg.norm(clf.coef_) == pytest.approx(1 / np.linalg.norm(hard.coef_), rel=1e-3)


def test_hard_margin_c_inf_is_refused(separable_blobs):
    X, y = separable_blobs
    with pytest.raises(ValueError, match="finite C"):
        PrimalSVC(C=np.inf).fit(X, y)


# ---------------------------------------------------------------------------
# Step rules, mini-batches, the best iterate, convergence
# ---------------------------------------------------------------------------
STEP_CASES = [
    dict(step="pegasos"),
    dict(step="invsqrt", eta0=1.0),
    dict(step="constant", eta0=0.1),
    dict(step="pegasos", batch_size=4, random_state=0),
    dict(step="invsqrt", eta0=1.0, batch_size=4, random_state=0),
    dict(step="constant", eta0=0.1, batch_size=8, random_state=0),
    dict(step="pegasos", projection=False),
]


@pytest.mark.parametrize("params", STEP_CASES, ids=lambda p: "-".join(f"{k}={v}" for k, v in p.items()))
def test_every_step_rule_decreases_the_objective(blobs, linear_svc_reference, params):
    X, y = blobs
    _, _, J_ref = linear_svc_reference(X, y, 1.0)
    clf = _fit_quiet(C=1.0, max_epochs=500, **params).fit(X, y)
    history = clf.objective_history_
    assert history[0] == pytest.approx(40.0)  # J(0, 0) = C n
    # 500 epochs bring every rule within 1 % of the optimum (measured: <= 3e-4 for
    # these step sizes), far below the start J(0) = 40 = 4.2 J*.
    assert J_ref <= clf.objective_ <= 1.01 * J_ref
    # the late iterates are, on average, lower than the early ones
    assert history[-100:].mean() < history[1:101].mean()


def test_best_iterate_is_kept(blobs):
    """Subgradient descent is not monotone; coef_ is the best iterate, not the last."""
    X, y = blobs
    clf = _fit_quiet(C=1.0, step="constant", eta0=0.1, max_epochs=300).fit(X, y)
    history = clf.objective_history_
    assert np.any(np.diff(history) > 0)  # the objective does go up sometimes
    assert clf.objective_ == history.min() == history[clf.best_epoch_]
    assert primal_objective(clf.coef_[0], clf.intercept_[0], X, y, 1.0) == pytest.approx(clf.objective_, rel=1e-12)
    assert clf.last_coef_.shape == (1, 2) and clf.last_intercept_.shape == (1,)
    assert len(history) == clf.n_iter_ + 1 == 301


def test_projection_keeps_iterates_in_the_ball(blobs):
    X, y = blobs
    radius = np.sqrt(1.0 * 40)  # 1/sqrt(lambda), lambda = 1/(C n)
    for it in itertools.islice(PrimalSVC(C=1.0).iter_fit(X, y), 200):
        assert np.linalg.norm(it.coef) <= radius * (1 + 1e-12)


def test_duality_gap_certificate_is_valid_and_stops_the_run(blobs, linear_svc_reference):
    X, y = blobs
    w_ref, b_ref, J_ref = linear_svc_reference(X, y, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf = PrimalSVC(C=1.0, tol=1e-5).fit(X, y)
    assert clf.converged_ and clf.n_iter_ < clf.max_epochs
    assert clf.duality_gap_ <= 1e-5
    # the bound is a lower bound on the true minimum (libsvm's J* is within ~1e-12)
    assert clf.dual_bound_ <= J_ref * (1 + 1e-10) <= clf.objective_ * (1 + 1e-10)
    # J is 1-strongly convex in w, so |w - w*|^2 <= 2 (J(w, b) - J*) <= 2 (J - bound)
    assert np.linalg.norm(clf.coef_[0] - w_ref) <= np.sqrt(2 * (clf.objective_ - clf.dual_bound_)) + 1e-8


def test_certificate_on_minibatch_and_augmented_runs(blobs, linear_svc_reference):
    X, y = blobs
    _, _, J_ref = linear_svc_reference(X, y, 1.0)
    sgd = PrimalSVC(C=1.0, tol=1e-4, batch_size=5, random_state=1).fit(X, y)
    assert sgd.converged_ and sgd.duality_gap_ <= 1e-4
    assert sgd.dual_bound_ <= J_ref * (1 + 1e-10)
    aug = PrimalSVC(C=1.0, tol=1e-4, bias="augmented").fit(X, y)
    assert aug.converged_ and aug.duality_gap_ <= 1e-4
    # the augmented problem's minimum (liblinear) lies between the bound and the objective
    with warnings.catch_warnings():  # liblinear at tol=1e-12 hits max_iter; see above
        warnings.simplefilter("ignore", ConvergenceWarning)
        ref = LinearSVC(C=1.0, loss="hinge", dual=True, tol=1e-12, max_iter=1_000_000).fit(X, y)
    J_aug = primal_objective(ref.coef_[0], ref.intercept_[0], X, y, 1.0, regularize_bias=True)
    assert aug.dual_bound_ <= J_aug * (1 + 1e-8) and J_aug <= aug.objective_ * (1 + 1e-8)


def test_not_converged_warns(blobs):
    X, y = blobs
    with pytest.warns(ConvergenceWarning, match="duality gap"):
        clf = PrimalSVC(C=1.0, max_epochs=20, tol=1e-8).fit(X, y)
    assert not clf.converged_ and clf.n_iter_ == 20
    assert np.all(np.isfinite(clf.coef_)) and np.isfinite(clf.intercept_[0])


def test_tol_none_runs_all_epochs_silently(blobs):
    X, y = blobs
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = PrimalSVC(max_epochs=37, tol=None).fit(X, y)
    assert clf.n_iter_ == 37 and not clf.converged_


def test_seeded_runs_are_reproducible(blobs):
    X, y = blobs
    params = dict(C=1.0, batch_size=3, max_epochs=50)
    a = _fit_quiet(random_state=42, **params).fit(X, y)
    b = _fit_quiet(random_state=42, **params).fit(X, y)
    c = _fit_quiet(random_state=43, **params).fit(X, y)
    np.testing.assert_array_equal(a.objective_history_, b.objective_history_)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert not np.array_equal(a.objective_history_, c.objective_history_)
    # a RandomState object seeds it too
    d = _fit_quiet(random_state=np.random.RandomState(42), **params).fit(X, y)
    np.testing.assert_array_equal(a.coef_, d.coef_)
    # and so does a Generator
    e = _fit_quiet(random_state=np.random.default_rng(42), **params).fit(X, y)
    f = _fit_quiet(random_state=np.random.default_rng(42), **params).fit(X, y)
    np.testing.assert_array_equal(e.objective_history_, f.objective_history_)


def test_batch_as_large_as_the_data_is_full_batch(blobs):
    X, y = blobs
    full = _fit_quiet(max_epochs=100).fit(X, y)
    big = _fit_quiet(max_epochs=100, batch_size=1000, random_state=0).fit(X, y)
    # same steps, only the summation order of the batch differs (round-off)
    np.testing.assert_allclose(big.objective_history_, full.objective_history_, rtol=1e-9)
    assert big.n_steps_ == full.n_steps_ == 100


def test_minibatch_counts_steps(blobs):
    X, y = blobs
    clf = _fit_quiet(max_epochs=3, batch_size=7, random_state=0).fit(X, y)
    assert clf.n_steps_ == 3 * 6  # ceil(40 / 7) = 6 batches per epoch


# ---------------------------------------------------------------------------
# The iterate generator (for the widget trace)
# ---------------------------------------------------------------------------
def test_iter_fit_yields_the_same_trace_as_fit(blobs):
    X, y = blobs
    est = PrimalSVC(C=1.0, max_epochs=60, tol=None)
    trace = list(est.iter_fit(X, y))
    assert isinstance(trace[0], PrimalIterate)
    assert trace[0].epoch == 0 and np.all(trace[0].coef == 0) and trace[0].intercept == 0.0
    assert [it.epoch for it in trace] == list(range(61))
    clf = clone(est).fit(X, y)
    np.testing.assert_array_equal([it.objective for it in trace], clf.objective_history_)
    # each iterate's objective is J at its (w, b)
    for it in trace[::10]:
        assert it.objective == pytest.approx(primal_objective(it.coef, it.intercept, X, y, 1.0), rel=1e-12)
    # the dual bound is computed every 10 epochs and never exceeds the objective
    bounds = [it.dual_bound for it in trace if np.isfinite(it.dual_bound)]
    assert len(bounds) >= 6 and all(bd <= it.objective for bd, it in zip(bounds, trace[10::10]))


def test_iter_fit_validates_at_call_time():
    with pytest.raises(ValueError):
        PrimalSVC().iter_fit([[0.0], [1.0]], [1, 1])  # one class: no generator needed to fail


# ---------------------------------------------------------------------------
# Labels, estimator protocol, bad input
# ---------------------------------------------------------------------------
def test_any_two_labels_map_to_pm1_and_back(blobs):
    X, y = blobs
    names = np.where(y > 0, "dog", "cat")
    a = _fit_quiet(max_epochs=200).fit(X, y)
    b = _fit_quiet(max_epochs=200).fit(X, names)
    np.testing.assert_array_equal(b.classes_, ["cat", "dog"])
    np.testing.assert_array_equal(b.predict(X), np.where(a.predict(X) > 0, "dog", "cat"))
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert b.score(X, names) == a.score(X, y)


def test_estimator_protocol(blobs):
    X, y = blobs
    est = PrimalSVC(C=0.5, step="invsqrt", eta0=0.5, max_epochs=10, tol=None)
    assert clone(est).get_params() == est.get_params()
    est.set_params(C=2.0)
    assert est.C == 2.0
    fitted = est.fit(X, y)
    assert fitted is est
    assert est.coef_.shape == (1, 2) and est.intercept_.shape == (1,) and est.n_features_in_ == 2
    with pytest.raises(NotFittedError):
        PrimalSVC().predict(X)
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :1])


@pytest.mark.parametrize(
    "params, exc, match",
    [
        (dict(C=0.0), ValueError, "C must be > 0"),
        (dict(C=-1.0), ValueError, "C must be > 0"),
        (dict(C=float("nan")), ValueError, "C must be > 0"),
        (dict(C="big"), TypeError, "C must be a positive number"),
        (dict(step="newton"), ValueError, "step must be one of"),
        (dict(bias=None), ValueError, "bias must be one of"),
        (dict(eta0=0.0), ValueError, "eta0"),
        (dict(step="constant", eta0=100.0), ValueError, "diverge"),
        (dict(batch_size=0), ValueError, "batch_size"),
        (dict(batch_size=2.5), TypeError, "batch_size"),
        (dict(max_epochs=0), ValueError, "max_epochs"),
        (dict(tol=-1.0), ValueError, "tol"),
        (dict(projection="yes"), TypeError, "projection"),
    ],
)
def test_bad_hyperparameters(blobs, params, exc, match):
    X, y = blobs
    with pytest.raises(exc, match=match):
        PrimalSVC(**params).fit(X, y)


def test_bad_point_for_the_formulas(blobs):
    X, y = blobs
    with pytest.raises(ValueError, match="one entry per feature"):
        primal_objective(np.zeros(3), 0.0, X, y, 1.0)
    with pytest.raises(ValueError, match="one label per row"):
        primal_objective(np.zeros(2), 0.0, X, y[:-1], 1.0)
    with pytest.raises(ValueError, match="-1/\\+1"):
        primal_objective(np.zeros(2), 0.0, X, (y + 1) / 2, 1.0)
    with pytest.raises(ValueError, match="finite"):
        primal_objective(np.array([np.nan, 0.0]), 0.0, X, y, 1.0)
    with pytest.raises(TypeError):
        primal_objective(np.zeros(2), "b", X, y, 1.0)
    with pytest.raises(ValueError, match="finite C"):
        hinge_subgradient(np.zeros(2), 0.0, X, y, np.inf)


def test_overflow_is_an_error_not_a_nan():
    X = np.array([[1e308, 0.0], [-1e308, 1.0], [1e308, 1.0], [-1e308, 0.0]])
    y = np.array([1, -1, 1, -1])
    with pytest.raises(ValueError, match="overflow.*Standardise X"):
        PrimalSVC(max_epochs=5).fit(X, y)  # the default step's curvature bound sees it first
    with pytest.raises(ValueError, match="overflowed.*Standardise X"):
        PrimalSVC(step="pegasos", max_epochs=5).fit(X, y)  # the objective, after the first epoch


def test_mismatched_lengths_and_missing_y(blobs):
    X, y = blobs
    with pytest.raises(ValueError, match="one label per row"):
        PrimalSVC().fit(X, y[:-1])
    with pytest.raises(ValueError, match="y is required|target y is None"):
        PrimalSVC().fit(X, None)


# ---------------------------------------------------------------------------
# scikit-learn's own estimator checks (an independent test of the protocol)
# ---------------------------------------------------------------------------
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@parametrize_with_checks([PrimalSVC(max_epochs=100)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


# ---------------------------------------------------------------------------
# primal_trace: the widget's compute function
# ---------------------------------------------------------------------------
def test_primal_trace_matches_fit(blobs):
    from svmlib.primal import primal_trace

    X, y = blobs
    params = dict(C=0.5, step="invsqrt", eta0=2.0, batch_size=6, random_state=3)
    trace = primal_trace(X, y, n_epochs=80, **params)
    clf = _fit_quiet(max_epochs=80, **params).fit(X, y)
    assert trace.coefs.shape == (81, 2) and trace.intercepts.shape == (81,)
    np.testing.assert_array_equal(trace.objectives, clf.objective_history_)
    np.testing.assert_array_equal(trace.coefs[trace.best_epoch], clf.coef_[0])
    assert trace.best_objectives[-1] == clf.objective_
    assert np.all(np.diff(trace.best_objectives) <= 0) and np.all(np.diff(trace.dual_bounds) >= 0)
    assert np.all(trace.dual_bounds <= trace.best_objectives)
    assert trace.dual_bounds[-1] == pytest.approx(clf.dual_bound_, rel=1e-12)
    np.testing.assert_array_equal(trace.classes, [-1.0, 1.0])
    with pytest.raises(TypeError, match="n_epochs"):
        primal_trace(X, y, max_epochs=3)


def test_docstring_examples_run():
    import doctest

    import svmlib.primal

    result = doctest.testmod(svmlib.primal, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 3 and result.failed == 0


# ---------------------------------------------------------------------------
# The default step ('bottou') on large standardised data
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def standardised_10k():
    from sklearn.datasets import make_classification
    from sklearn.preprocessing import StandardScaler
    X, y = make_classification(n_samples=10_000, n_features=50, random_state=0)
    return StandardScaler().fit_transform(X), y


def test_default_step_never_overshoots_and_converges(standardised_10k):
    """Pegasos' first step C n throws J up ~650-fold here; Bottou's schedule starts at 1/L and never exceeds J(0)."""
    X, y = standardised_10k
    n = X.shape[0]
    reference = PrimalSVC(solver="newton", tol=1e-9).fit(X, y).objective_  # certified to 1e-9
    bottou = _fit_quiet(solver="subgradient", max_epochs=200).fit(X, y)  # default step
    assert bottou.objective_history_.max() <= n * 1.0  # J(0) = C n with C = 1
    # measured 2.9e-6 above the optimum after 200 epochs (0.3 s); 1e-4 is the estimator's default certified gap
    assert (bottou.objective_ - reference) / reference < 1e-4
    pegasos = _fit_quiet(solver="subgradient", step="pegasos", max_epochs=200).fit(X, y)
    assert pegasos.objective_history_.max() > 100 * n  # the blow-up the default avoids (measured 527 n)
    assert pegasos.best_epoch_ == 0 and not np.any(pegasos.coef_)  # never better than w = 0: it keeps w = 0
    stochastic = _fit_quiet(solver="subgradient", batch_size=1, max_epochs=3, random_state=0).fit(X, y)
    assert stochastic.objective_history_.max() <= n * 1.0
    assert (stochastic.objective_ - reference) / reference < 0.15  # measured 0.08 after 3 epochs


def test_curvature_step_is_the_top_eigenvalue():
    """1/L against numpy's 2-norm (an SVD), on tall and on wide data (where svmlib uses Lanczos)."""
    from svmlib.primal import _curvature_step
    rng = np.random.default_rng(0)
    for n, d in ((300, 4), (40, 1200)):
        X = rng.normal(size=(n, d)) + 0.5
        lam = 1e-3
        top = np.linalg.norm(np.c_[X, np.ones(n)], 2) ** 2 / n
        assert _curvature_step(X, lam) == pytest.approx(1 / (lam + top), rel=1e-9)
        per_sample = np.max(np.sum(X * X, axis=1)) + 1.0
        assert _curvature_step(X, lam, batch_size=7) == pytest.approx(1 / (lam + per_sample), rel=1e-12)


def test_bottou_step_has_the_pegasos_tail():
    clf = PrimalSVC(step="bottou")
    lam, eta0 = 1e-3, 0.5
    t = np.array([1.0, 10.0, 1e6])
    eta = np.array([clf._step_size(s, lam, eta0) for s in t])
    assert eta[0] == pytest.approx(eta0 / (1 + eta0 * lam))
    assert eta[-1] * lam * t[-1] == pytest.approx(1.0, rel=3e-3)  # 1/(lambda t) once t >> 1/(eta0 lambda) = 2000
