"""The auto-checked exercises of :ref:`Chapter 1 <ch-margin>` to :ref:`Chapter 4 <ch-kernels>`: a right answer passes, wrong ones explain why."""

import numpy as np
import pytest

from svmlib.exercises import kernel_choice, maximum_margin, smo, soft_margin
from svmlib.kernels import poly2_feature_map
from svmlib.margin import max_margin_hyperplane


def test_max_margin_line_checker_agrees_with_solver():
    sol = max_margin_hyperplane(maximum_margin.FOUR_POINTS, maximum_margin.FOUR_LABELS)
    assert maximum_margin.check_max_margin_line(np.round(sol.w, 6), round(sol.b, 6))
    assert maximum_margin.check_max_margin_line([1.0, 0.0], -1.0)
    fb = maximum_margin.check_max_margin_line([2.0, 0.0], -2.0)
    assert not fb and "canonical" in fb.message
    assert "wrong side" in maximum_margin.check_max_margin_line([-1.0, 0.0], 1.0).message
    assert not maximum_margin.check_max_margin_line([1.0, 0.2], -1.0)
    assert not maximum_margin.check_max_margin_line("w", 0)


def test_distance_checker():
    d = (3 + 8 - 1) / np.sqrt(5)
    assert maximum_margin.check_distance_to_line(d)
    assert "functional" in maximum_margin.check_distance_to_line(10.0).message
    assert "sign" in maximum_margin.check_distance_to_line(-d).message


def test_slack_and_subgradient_checkers():
    assert soft_margin.check_slacks([0, 0, 0.5, 1.5, 0])
    assert not soft_margin.check_slacks([0, 0, 0.5, 1.5])
    assert "never negative" in soft_margin.check_slacks([0, 0, 0.5, 1.5, -2]).message
    # every theta in [0, 1] for the point on the margin gives a subgradient
    X, y = soft_margin.SLACK_POINTS, soft_margin.SLACK_LABELS
    Xa = np.hstack([X, np.ones((5, 1))])
    base = np.r_[soft_margin.SLACK_W, 0.0] - (y[[2, 3], None] * Xa[[2, 3]]).sum(axis=0)
    for theta in (0.0, 0.3, 1.0):
        assert soft_margin.check_subgradient(base - theta * y[1] * Xa[1])
    assert not soft_margin.check_subgradient(base - 1.5 * y[1] * Xa[1])  # theta outside [0, 1]
    assert not soft_margin.check_subgradient([1.0, 0.0, 0.0])


def test_subgradient_checker_against_finite_differences():
    # independent check: away from kinks the subgradient is the gradient; perturb the point so
    # that no t_i equals 1, then compare a central finite difference with the accepted set's centre.
    from svmlib.primal import primal_objective

    X, y = soft_margin.SLACK_POINTS, soft_margin.SLACK_LABELS
    w, b, h = soft_margin.SLACK_W, soft_margin.SLACK_B, 1e-6
    g_plus = np.array([(primal_objective(w + h * e[:2], b + h * e[2], X, y, 1.0)
                        - primal_objective(w, b, X, y, 1.0)) / h for e in np.eye(3)])
    g_minus = np.array([(primal_objective(w, b, X, y, 1.0)
                         - primal_objective(w - h * e[:2], b - h * e[2], X, y, 1.0)) / h for e in np.eye(3)])
    # one-sided derivatives of a convex function bound the subdifferential; both are accepted
    assert soft_margin.check_subgradient(np.round(g_plus, 4))
    assert soft_margin.check_subgradient(np.round(g_minus, 4))


def test_lagrange_and_two_point_dual_checkers():
    assert smo.check_lagrange_maximum(0.6, 0.8)
    assert "minimum" in smo.check_lagrange_maximum(-0.6, -0.8).message
    assert "not on the circle" in smo.check_lagrange_maximum(3, 4).message
    assert smo.check_two_point_dual([0.5, 0.5])
    assert "forces" in smo.check_two_point_dual([0.5, 0.2]).message
    assert not smo.check_two_point_dual([1.0, 1.0])
    # independent: the dual solver gives the same multipliers
    from svmlib.dual import solve_dual

    X = np.array([[1.0, 0.0], [-1.0, 0.0]])
    sol = solve_dual(X @ X.T, np.array([1.0, -1.0]), C=np.inf, tol=1e-10)
    assert smo.check_two_point_dual(sol.alpha)


def test_feature_map_checker():
    assert kernel_choice.check_feature_map(poly2_feature_map)
    # a permuted, sign-flipped map is just as valid
    assert kernel_choice.check_feature_map(lambda X: -poly2_feature_map(X)[:, ::-1])
    wrong = lambda X: np.column_stack([np.ones(len(X)), X[:, 0], X[:, 1], X[:, 0] ** 2, X[:, 1] ** 2, X[:, 0] * X[:, 1]])
    assert not kernel_choice.check_feature_map(wrong)
    assert not kernel_choice.check_feature_map(lambda X: X[0])
    assert "failed" in kernel_choice.check_feature_map(lambda X: 1 / 0).message
    assert not kernel_choice.check_feature_map(42)


@pytest.mark.parametrize("choice, ok", [("b", True), ("a", False), ("C", False), ("z", False)])
def test_selection_bias_choice(choice, ok):
    assert bool(kernel_choice.check_selection_bias_answer(choice)) is ok
