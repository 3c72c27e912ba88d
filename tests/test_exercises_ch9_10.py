"""Checkers of the implementation exercises of :ref:`Chapter 9 <ch-replica>` (replica bootstrap) and
:ref:`Chapter 10 <ch-lssvr>` (LS-SVR):
each accepts a right answer and rejects wrong ones with a message that says which case failed and how.
Also smoke tests of the bootstrap chapter's figures added with them."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from svmlib.exercises import bootstrap as ex8
from svmlib._book_numbers import eq


# ------------------------------------------------------------------ :ref:`Chapter 9 <ch-replica>`: eq. :eq:`(9.20) <boot-field-new>`
def field_right(K, K_new, k_diag, dLam, Gam, Lam):
    T = np.linalg.solve(np.eye(len(dLam)) + K * dLam, K_new.T)
    return T.T @ Gam, -(T**2).T @ Lam


def test_field_checker_accepts_the_right_answer():
    feedback = ex8.check_field_at_new_inputs(field_right)
    assert feedback.correct, feedback.message
    assert "3 seeded cases" in feedback.message


def test_field_checker_names_the_missing_T():
    feedback = ex8.check_field_at_new_inputs(lambda K, Kn, kd, a, g, lam: (Kn @ g, field_right(K, Kn, kd, a, g, lam)[1]))
    assert not feedback.correct and "case 0" in feedback.message and "T(x)" in feedback.message


def test_field_checker_names_the_sign_of_the_variance():
    def wrong(*args):
        mean, var = field_right(*args)
        return mean, -var
    feedback = ex8.check_field_at_new_inputs(wrong)
    assert not feedback.correct and "sign" in feedback.message


def test_field_checker_reports_shapes_errors_and_values():
    assert "shape" in ex8.check_field_at_new_inputs(lambda *a: (np.zeros(2), np.zeros(2))).message
    assert "ZeroDivisionError" in ex8.check_field_at_new_inputs(lambda *a: 1 / 0).message
    assert "Pass your function" in ex8.check_field_at_new_inputs(3.0).message

    def off(*args):
        mean, var = field_right(*args)
        return mean, 1.1 * var
    feedback = ex8.check_field_at_new_inputs(off)
    assert not feedback.correct and "variance" in feedback.message and "expected" in feedback.message


# ------------------------------------------------------------------ :ref:`Chapter 9 <ch-replica>`: figures
def test_learning_curve_panels_and_calibration_draw():
    from svmlib.plotting.bootstrap import draw_calibration, draw_learning_curve_panels

    curves = [dict(label=f"set {k}", S_theory=[0.25, 1, 4, 16], eps_theory=[0.1, 0.05, 0.04, 0.05], S_mc=[0.25, 1, 4],
                   eps_mc=[0.11, 0.05, 0.04], se_mc=[0.01, 0.005, 0.01], ow=0.05, exact=0.03) for k in range(3)]
    fig = plt.figure()
    axes = draw_learning_curve_panels(fig, curves)
    assert len(axes) == 4 and not axes[3].get_visible()
    assert [t.get_text() for t in axes[2].get_xticklabels()][-1] == r"$\infty$"
    plt.close(fig)
    fig, ax = plt.subplots()
    draw_calibration(ax, np.array([0.0, 0.2, 1.0]), np.array([1e-6, 0.25, 0.999]), 300)
    assert ax.get_xscale() == "logit" and len(ax.lines) == 3
    plt.close(fig)


# ------------------------------------------------------------------ :ref:`Chapter 10 <ch-lssvr>`: the eps-LS-SVR solve
from scipy.linalg import solve_triangular

from svmlib.exercises import lssvr as ex9


def _psi(K, C):
    n = len(K)
    P = np.zeros((n + 1, n + 1))
    P[0, 1:] = P[1:, 0] = 1.0
    P[1:, 1:] = K + np.eye(n) / C
    return P


def map_by_qr(K, y, C, eps):
    n = len(y)
    Q, R = np.linalg.qr(np.vstack([_psi(K, C), np.sqrt(eps) * np.eye(1, n + 1)]))
    return solve_triangular(R, Q.T @ np.r_[0.0, y, 0.0])


def map_by_normal_equations(K, y, C, eps):
    P = _psi(K, C)
    A = P.T @ P
    A[0, 0] += eps
    return np.linalg.solve(A, P.T @ np.r_[0.0, y])


def test_solve_checker_accepts_the_qr_solve():
    feedback = ex9.check_eps_lssvr_solve(map_by_qr)
    assert feedback.correct, feedback.message


def test_solve_checker_explains_the_normal_equations():
    feedback = ex9.check_eps_lssvr_solve(map_by_normal_equations)
    assert not feedback.correct and "case 3" in feedback.message and "squares the condition number" in feedback.message


def test_solve_checker_names_the_common_mistakes():
    ls_only = ex9.check_eps_lssvr_solve(lambda K, y, C, eps: np.linalg.solve(_psi(K, C), np.r_[0.0, y]))
    assert not ls_only.correct and "LS-SVR solution" in ls_only.message and "case 0" in ls_only.message
    no_bias = ex9.check_eps_lssvr_solve(lambda K, y, C, eps: map_by_qr(K, y, C, eps)[1:])
    assert not no_bias.correct and "bias b comes first" in no_bias.message
    wrong_C = ex9.check_eps_lssvr_solve(lambda K, y, C, eps: map_by_qr(K, y, 2 * C, eps))
    assert not wrong_C.correct and "relative error" in wrong_C.message
    assert "raised ZeroDivisionError" in ex9.check_eps_lssvr_solve(lambda *a: 1 / 0).message
    assert "Pass your function" in ex9.check_eps_lssvr_solve("beta").message


def test_chapter9_seed_figures_draw():
    from svmlib.lssvr import epsilon_sweep, make_sinc, rbf_from_c, sinc_bands
    from svmlib.plotting import lssvr as plot

    X, y = make_sinc(30, random_state=0)
    sweeps = {"sinc": epsilon_sweep(X, y, np.logspace(0, -6, 4), kernel=rbf_from_c(1.0))}
    for draw in (plot.draw_prediction_distance, plot.draw_parameter_distance):
        fig, ax = plt.subplots()
        draw(ax, sweeps)
        assert ax.get_xscale() == "log" and ax.get_yscale() == "log" and len(ax.lines) == 2
        plt.close(fig)
    fig, ax = plt.subplots()
    plot.draw_sinc_seed(ax, sinc_bands(n=40, n_grid=50))
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [f"± 1 sd, eq. {eq('lssvr-var16')}", "sinc", "posterior mean"]
    plt.close(fig)
