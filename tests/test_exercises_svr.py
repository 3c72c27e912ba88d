"""Checkers of the chapter "SVMs in practice": right answers pass, each typical wrong answer is named."""

import numpy as np

from svmlib.exercises import svr as ex


def right_loss(r, eps):
    return np.maximum(0.0, np.abs(r) - eps)


def right_W(a, a_star, K, y, eps):
    c = a - a_star
    return y @ c - eps * np.sum(a + a_star) - 0.5 * c @ K @ c


def _wrong(feedback, text):
    assert not feedback, feedback
    assert text in feedback.message, feedback.message


def test_epsilon_loss_right_and_wrong():
    assert ex.check_epsilon_loss(right_loss)
    _wrong(ex.check_epsilon_loss(lambda r, e: np.maximum(0, r - e)), "two-sided")
    _wrong(ex.check_epsilon_loss(lambda r, e: np.abs(r) - e), "max(0, ...)")
    _wrong(ex.check_epsilon_loss(lambda r, e: np.maximum(0, np.abs(r) - e) ** 2), "squared")
    _wrong(ex.check_epsilon_loss(lambda r, e: np.maximum(0, np.abs(r) - 2 * e)), "expected")
    _wrong(ex.check_epsilon_loss(lambda r, e: 1 / 0), "ZeroDivisionError")
    _wrong(ex.check_epsilon_loss(lambda r, e: np.zeros(3)), "elementwise")
    _wrong(ex.check_epsilon_loss(right_loss(np.ones(3), 0.1)), "function itself")


def test_svr_dual_objective_right_and_wrong():
    assert ex.check_svr_dual_objective(right_W)
    _wrong(ex.check_svr_dual_objective(
        lambda a, s, K, y, e: y @ (a - s) + e * np.sum(a + s) - 0.5 * (a - s) @ K @ (a - s)), "wrong sign")
    _wrong(ex.check_svr_dual_objective(
        lambda a, s, K, y, e: y @ (a - s) - e * np.abs(a - s).sum() - 0.5 * (a - s) @ K @ (a - s)), "only at the optimum")
    _wrong(ex.check_svr_dual_objective(
        lambda a, s, K, y, e: y @ (a - s) - e * np.sum(a + s) - (a - s) @ K @ (a - s)), "1/2")
    _wrong(ex.check_svr_dual_objective(
        lambda a, s, K, y, e: y @ (a - s) - e * np.sum(a + s) - 0.5 * (a + s) @ K @ (a + s)), "not alpha + alpha*")
    _wrong(ex.check_svr_dual_objective(lambda a, s, K, y, e: -right_W(a, s, K, y, e)), "opposite sign")
    _wrong(ex.check_svr_dual_objective(lambda a, s, K, y, e: right_W(a, s, K, y, e) + 1.0), "expected")
    _wrong(ex.check_svr_dual_objective(lambda a, s, K, y, e: "W"), "one number")
    _wrong(ex.check_svr_dual_objective(3.0), "function itself")
