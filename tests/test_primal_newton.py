"""PrimalSVC(solver="newton"): Chapelle's primal Newton method on Huber smoothings of the hinge."""

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.datasets import make_classification
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from svmlib.datasets import make_blobs2d
from svmlib.dual import solve_dual
from svmlib.primal import AUTO_NEWTON_MIN_SAMPLES, PrimalSVC, huber_hinge, primal_objective


def _data(n=2000, d=10, seed=0):
    X, y = make_classification(n, d, random_state=seed)
    return StandardScaler().fit_transform(X), 2.0 * y - 1.0


@pytest.mark.parametrize("C", [0.01, 1.0, 100.0])
def test_newton_matches_the_dual(C):
    # Independent reference: SMO on the linear kernel with a separate bias (same problem).
    # SMO at tol 1e-8 gives min J to ~1e-9 relative; Newton certifies its own gap <= 1e-7.
    X, y = _data(400, 5)
    ours = PrimalSVC(C=C, solver="newton", tol=1e-7).fit(X, y)
    ref = solve_dual(X @ X.T, y, C=C, tol=1e-8)
    assert ours.converged_ and ours.duality_gap_ <= 1e-7
    assert abs(ours.objective_ - ref.primal_objective) <= 2e-7 * ref.primal_objective
    assert ours.objective_ == pytest.approx(primal_objective(ours.coef_[0], ours.intercept_[0], X, y, C), rel=1e-12)


def test_newton_matches_liblinear_augmented_bias():
    # LinearSVC(loss="hinge", intercept_scaling=1) minimises the same J with b^2 / 2 added
    # (bias="augmented"); run tight, liblinear's optimum agrees to its own tolerance (~1e-5).
    X, y = _data(2000, 10)
    ours = PrimalSVC(C=1.0, solver="newton", bias="augmented", tol=1e-8).fit(X, y)
    lib = LinearSVC(loss="hinge", C=1.0, tol=1e-8, max_iter=200_000).fit(X, y)
    J_lib = primal_objective(lib.coef_[0], lib.intercept_[0], X, y, 1.0, regularize_bias=True)
    assert ours.objective_ <= J_lib * (1 + 1e-6)
    assert abs(ours.objective_ - J_lib) <= 1e-5 * J_lib
    np.testing.assert_allclose(ours.coef_[0], lib.coef_[0], atol=2e-3)


def test_newton_matches_scipy_on_the_smoothed_problem():
    # One smoothing width: the Huber objective is smooth, so scipy's L-BFGS finds its minimiser;
    # huber_hinge is checked against its closed form too.
    z = np.array([-2.0, 0.6, 1.0, 1.4, 3.0])
    loss, dloss = huber_hinge(z, 0.5)
    np.testing.assert_allclose(loss, [3.0, (1.5 - 0.6) ** 2 / 2, 0.125, (1.5 - 1.4) ** 2 / 2, 0.0])
    np.testing.assert_allclose(dloss, [-1.0, -0.9, -0.5, -0.1, 0.0])
    X, y = _data(300, 4)
    from svmlib.primal import _newton_hinge  # the solver with its smoothing loop
    w, b, J, bound, _, conv = _newton_hinge(X, y, 1.0, False, 1e-9)
    res = minimize(lambda t: 0.5 * t[:-1] @ t[:-1] + np.maximum(0, 1 - y * (X @ t[:-1] + t[-1])).sum(),
                   np.r_[w, b] + 0.01, method="Powell", options={"xtol": 1e-10, "ftol": 1e-14, "maxfev": 200_000})
    assert conv and bound <= J
    assert J <= res.fun * (1 + 1e-9)  # never worse than a derivative-free search started next to it


def test_newton_agrees_with_pegasos_on_small_data():
    X, y = make_blobs2d(200, separation=1.0, random_state=0)
    peg = PrimalSVC(C=1.0, solver="subgradient", tol=1e-6, max_epochs=50_000).fit(X, y)
    newt = PrimalSVC(C=1.0, solver="newton", tol=1e-8).fit(X, y)
    assert newt.objective_ <= peg.objective_ * (1 + 1e-12)
    assert peg.objective_ - newt.objective_ <= 1e-6 * peg.objective_  # Pegasos' certified gap
    np.testing.assert_allclose(newt.coef_, peg.coef_, atol=1e-3)


def test_auto_solver_switch_and_bad_solver():
    X, y = _data(AUTO_NEWTON_MIN_SAMPLES, 5)
    big = PrimalSVC().fit(X, y)
    assert big.converged_ and big.n_iter_ < 60  # Newton steps, not epochs
    small = PrimalSVC(max_epochs=3, tol=None).fit(X[:100], y[:100])
    assert small.n_iter_ == 3  # the subgradient epochs
    with pytest.raises(ValueError, match="solver must be one of"):
        PrimalSVC(solver="lbfgs").fit(X, y)


def test_newton_large_standardised_problem_is_not_w_zero():
    # issue 26: Pegasos on 100,000 standardised points returned w = 0; Newton certifies the optimum.
    X, y = _data(20_000, 50, seed=1)
    clf = PrimalSVC(C=1.0).fit(X, y)  # auto -> newton
    assert clf.converged_ and clf.duality_gap_ <= 1e-4
    assert np.abs(clf.coef_).max() > 0 and clf.score(X, y) > 0.8


def test_newton_huge_inputs_give_a_clear_error():
    X, y = make_blobs2d(40, separation=2.0, random_state=0)
    with pytest.raises(ValueError, match="Standardise X"):
        PrimalSVC(solver="newton").fit(X * 1e200, y)
