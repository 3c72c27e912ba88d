"""Tests for svmlib.margin: geometry by exact algebra, the maximum margin against
three independent routes (scikit-learn's libsvm, a brute-force scan over directions,
and SLSQP on the primal QP)."""

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.svm import SVC

from svmlib.datasets import make_blobs2d
from svmlib.margin import (
    angle_of,
    best_margin_for_direction,
    canonical_hyperplane,
    functional_margins,
    geometric_margin,
    is_linearly_separable,
    line_from_angle,
    margin_width,
    max_margin_hyperplane,
    signed_distances,
)


@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs2d(40, separation=5.0, spread=0.8, random_state=3)
    assert is_linearly_separable(X, y)
    return X, y


def test_line_from_angle_is_unit_normal_and_offset():
    w, b = line_from_angle(90.0, 2.0)
    np.testing.assert_allclose(w, [0.0, 1.0], atol=1e-15)
    assert b == -2.0
    # the point (5, 2) is on the line, (0, 3) is 1 unit on the positive side
    np.testing.assert_allclose(signed_distances([[5.0, 2.0], [0.0, 3.0]], w, b), [0.0, 1.0], atol=1e-15)
    assert angle_of(w) == pytest.approx(90.0)
    assert angle_of(line_from_angle(-30.0, 0.0)[0]) == pytest.approx(330.0)


def test_signed_distance_matches_projection_formula():
    # distance of (3, 4) to the line x + y = 1: |3 + 4 - 1| / sqrt(2), exact algebra
    d = signed_distances([[3.0, 4.0]], [1.0, 1.0], -1.0)
    assert d[0] == pytest.approx(6.0 / np.sqrt(2.0), rel=1e-14)
    # invariant under positive rescaling of (w, b)
    assert signed_distances([[3.0, 4.0]], [7.0, 7.0], -7.0)[0] == pytest.approx(d[0], rel=1e-14)


def test_geometric_margin_sign_and_canonical_form(blobs):
    X, y = blobs
    sol_w, sol_b = np.array([1.0, 0.5]), 0.0
    gamma = geometric_margin(X, y, sol_w, sol_b)
    if gamma > 0:
        w_c, b_c = canonical_hyperplane(X, y, sol_w, sol_b)
        assert functional_margins(X, y, w_c, b_c).min() == pytest.approx(1.0, rel=1e-12)
        # eq. :eq:`(1.5) <margin-width>`: half the band width is the geometric margin
        assert margin_width(w_c) / 2 == pytest.approx(gamma, rel=1e-12)
    # flipping the normal makes every point misclassified: margin becomes negative
    assert geometric_margin(X, y, -sol_w, -sol_b) < 0
    with pytest.raises(ValueError, match="does not separate"):
        canonical_hyperplane(X, y, -sol_w, -sol_b)


def test_max_margin_agrees_with_libsvm_bruteforce_and_slsqp(blobs):
    X, y = blobs
    sol = max_margin_hyperplane(X, y)
    assert sol.converged
    # 1) scikit-learn's libsvm with a huge C is the hard margin; both are solved to KKT
    #    tolerance ~1e-6..1e-3, so w agrees to ~1e-3 relative.
    ref = SVC(kernel="linear", C=1e8, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(sol.w, ref.coef_[0], rtol=2e-3, atol=2e-3)
    assert sol.b == pytest.approx(ref.intercept_[0], abs=2e-3)
    # 2) brute force over directions (no dual at all): on a 0.01-degree grid the best margin
    #    is within (pi/180 * 0.005)^2-ish of the optimum -- well below 1e-4 for |x| < 10.
    angles = np.arange(0.0, 360.0, 0.01)
    _, margins = best_margin_for_direction(X, y, angles)
    assert margins.max() == pytest.approx(sol.margin, rel=1e-4)
    assert angles[np.argmax(margins)] == pytest.approx(sol.angle_offset()[0], abs=0.05)
    # 3) the primal QP (eq. :eq:`(1.7) <margin-hard-primal>`) by SLSQP
    cons = {"type": "ineq", "fun": lambda v: y * (X @ v[:2] + v[2]) - 1.0}
    res = minimize(lambda v: 0.5 * v[:2] @ v[:2], x0=np.r_[ref.coef_[0] * 1.5, ref.intercept_[0] * 1.5],
                   constraints=[cons], method="SLSQP", options={"ftol": 1e-12, "maxiter": 500})
    assert res.success
    np.testing.assert_allclose(sol.w, res.x[:2], rtol=1e-3, atol=1e-4)
    # canonical: closest points at functional margin exactly 1 (to the solver tolerance)
    assert functional_margins(X, y, sol.w, sol.b).min() == pytest.approx(1.0, abs=1e-3)
    assert sol.width == pytest.approx(2 * sol.margin)
    # support vectors are the points on the margin
    on_margin = np.flatnonzero(np.abs(functional_margins(X, y, sol.w, sol.b) - 1.0) < 1e-3)
    assert set(sol.support) <= set(on_margin)
    assert 2 <= len(sol.support) <= 3


def test_three_point_textbook_example():
    # x+ = (1, 1), (2, 2) and x- = (-1, -1): the separator is the perpendicular bisector of the
    # closest pair, x1 + x2 = 0, at distance sqrt(2) from both (exact algebra).
    X = np.array([[1.0, 1.0], [-1.0, -1.0], [2.0, 2.0]])
    y = np.array([1, -1, 1])
    sol = max_margin_hyperplane(X, y)
    # exact: w = (1/2, 1/2), b = 0, margin = sqrt(2)
    np.testing.assert_allclose(sol.w, [0.5, 0.5], atol=1e-6)
    assert sol.b == pytest.approx(0.0, abs=1e-6)
    assert sol.margin == pytest.approx(np.sqrt(2.0), rel=1e-6)
    np.testing.assert_array_equal(np.sort(sol.support), [0, 1])


def test_not_separable_raises_with_advice():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]])
    y = np.array([1, -1, 1])
    assert not is_linearly_separable(X, y)
    with pytest.raises(ValueError, match="not linearly separable.*soft margin"):
        max_margin_hyperplane(X, y)


@pytest.mark.parametrize(
    "call, exc, msg",
    [
        (lambda: line_from_angle(np.nan, 0.0), ValueError, "finite"),
        (lambda: line_from_angle("north", 0.0), TypeError, "real number"),
        (lambda: signed_distances([[1.0, 2.0]], [0.0, 0.0], 0.0), ValueError, "w = 0"),
        (lambda: signed_distances([[1.0, 2.0]], [1.0, 0.0, 0.0], 0.0), ValueError, "one entry per feature"),
        (lambda: signed_distances([[1.0, np.nan]], [1.0, 0.0], 0.0), ValueError, "finite"),
        (lambda: geometric_margin([[1.0, 2.0], [0.0, 1.0]], [1, 1], [1.0, 0.0], 0.0), ValueError, "two classes"),
        (lambda: best_margin_for_direction(np.zeros((4, 3)), [0, 1, 0, 1], 10.0), ValueError, "2"),
        (lambda: margin_width([[1.0]]), ValueError, "1-D"),
    ],
)
def test_bad_input_messages(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def test_best_margin_for_direction_scalar_and_array(blobs):
    X, y = blobs
    off, m = best_margin_for_direction(X, y, 30.0)
    offs, ms = best_margin_for_direction(X, y, np.array([[30.0, 210.0]]))
    assert ms.shape == (1, 2)
    assert ms[0, 0] == pytest.approx(m)
    # the line at the best offset has exactly that geometric margin
    w, b = line_from_angle(30.0, off)
    assert geometric_margin(X, y, w, b) == pytest.approx(m, abs=1e-12)
    # the opposite normal direction swaps the sides: its best margin is the worst overlap
    assert ms[0, 1] < 0
