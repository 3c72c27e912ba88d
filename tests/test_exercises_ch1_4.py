"""Checkers of :ref:`Chapter 1 <ch-margin>` to :ref:`Chapter 4 <ch-kernels>` added for issue 15: the implementation exercises (a right and several
wrong student functions), the three-figure rule of the distance checker, and the single verdict prefix."""

import numpy as np
import pytest

from svmlib._book_numbers import eq
from svmlib.exercises import Feedback
from svmlib.exercises import smo as ex_smo


# ----------------------------------------------------------------------------- Feedback
@pytest.mark.parametrize("message", ["Not yet: project x.", "not yet. project x.", "Correct: project x."])
def test_feedback_never_prints_its_verdict_twice(message):
    fb = Feedback(False, message)
    assert repr(fb) == "Not yet: project x."
    assert fb._repr_markdown_() == "**Not yet.** project x."


# ----------------------------------------------------------------------------- write one SMO step
def _smo_step(K, y, C, alpha, *, clip=True, second_order=True, sign=-1.0, scale=1.0):
    """An independent one-step SMO (WSS 2, Fan-Chen-Lin 2005) with switchable mistakes."""
    v = y - K @ (alpha * y)
    up = np.where(y > 0, alpha < C, alpha > 0)
    low = np.where(y > 0, alpha > 0, alpha < C)
    i = np.flatnonzero(up)[np.argmax(v[up])]
    a = np.maximum(K[i, i] + np.diag(K) - 2 * K[i], 1e-12)
    if second_order:
        j = int(np.argmax(np.where(low & (v < v[i]), (v[i] - v) ** 2 / a, -np.inf)))
    else:  # the maximal violating pair (first-order rule)
        j = int(np.flatnonzero(low)[np.argmin(v[low])])
    s = scale * (v[i] - v[j]) / a[j]
    if clip:
        s = min(s, C - alpha[i] if y[i] > 0 else alpha[i], alpha[j] if y[j] > 0 else C - alpha[j])
    new = alpha.copy()
    new[i] += y[i] * s
    new[j] += sign * y[j] * s
    return new


def test_smo_step_checker_accepts_a_right_step():
    fb = ex_smo.check_smo_step(_smo_step)
    assert fb, fb


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(clip=False), "left the box"),
    (dict(second_order=False), eq("smo-wss2")),  # the printed number of the rule
    (dict(sign=+1.0), "sum_i y_i alpha_i changed"),
    (dict(scale=0.5), "wrong step"),
])
def test_smo_step_checker_names_the_mistake(kwargs, fragment):
    fb = ex_smo.check_smo_step(lambda K, y, C, a: _smo_step(K, y, C, a, **kwargs))
    assert not fb and fragment in fb.message and "Case '" in fb.message, fb


def test_smo_step_checker_survives_bad_functions():
    assert "function itself" in ex_smo.check_smo_step(np.zeros(3)).message
    assert "raised ZeroDivisionError" in ex_smo.check_smo_step(lambda K, y, C, a: 1 / 0).message
    assert "finite numbers" in ex_smo.check_smo_step(lambda K, y, C, a: a[:3]).message


def test_smo_step_cases_include_a_clipped_step():
    # at least one case where the unclipped Newton step would leave the box
    clipped = [name for name, K, y, C, a0, a1 in ex_smo._smo_step_cases()
               if not np.allclose(_smo_step(K, y, C, a0, clip=False), a1)]
    assert clipped


# ----------------------------------------------------------------------------- chapter Soft margin
from svmlib.exercises import soft_margin as ex_soft  # noqa: E402


def test_slack_checker_says_where_each_point_lies():
    fb = ex_soft.check_slacks([0, 0, 0.5, 1.5, 0])
    assert fb
    # t = (2, 1, 0.5, -0.5, 3): points 0 and 4 are outside the margin, only point 1 is on it
    assert "points 0 and 4 are outside the margin" in fb.message
    assert "point 1 is exactly on the margin" in fb.message
    assert "point 0 and 1 meet the margin" not in fb.message


def _pegasos(X, y, C, n_steps, *, project=True, regularize_bias=False, t0=1):
    """Independent full-batch Pegasos (Shalev-Shwartz et al. 2011) with switchable mistakes."""
    N, d = X.shape
    lam = 1.0 / (N * C)
    w, b = np.zeros(d), 0.0
    for t in range(t0, t0 + n_steps):
        eta = 1.0 / (lam * t)
        V = y * (X @ w + b) < 1
        w = (1 - eta * lam) * w + eta / N * (y[V] @ X[V])
        b = (1 - eta * lam if regularize_bias else 1.0) * b + eta / N * y[V].sum()
        if project:
            norm = np.sqrt(w @ w + (b * b if regularize_bias else 0.0))
            if norm * np.sqrt(lam) > 1:
                w = w / (norm * np.sqrt(lam))
                b = b / (norm * np.sqrt(lam)) if regularize_bias else b
    return w, b


def test_pegasos_checker_accepts_a_right_implementation():
    fb = ex_soft.check_pegasos(_pegasos)
    assert fb, fb


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(project=False), "no projection"),
    (dict(regularize_bias=True), "regularised bias"),
    (dict(t0=2), "Check the step eta_k"),
])
def test_pegasos_checker_names_the_mistake(kwargs, fragment):
    fb = ex_soft.check_pegasos(lambda X, y, C, n: _pegasos(X, y, C, n, **kwargs))
    assert not fb and fragment in fb.message and "Case '" in fb.message, fb


def test_pegasos_checker_survives_bad_functions():
    assert "function itself" in ex_soft.check_pegasos((np.zeros(2), 0.0)).message
    assert "raised" in ex_soft.check_pegasos(lambda X, y, C, n: None).message
    assert "finite" in ex_soft.check_pegasos(lambda X, y, C, n: (np.full(X.shape[1], np.nan), 0.0)).message


# ----------------------------------------------------------------------------- chapter Kernels
from svmlib.exercises import kernel_choice as ex_k  # noqa: E402


def _d2(X, Y):
    return ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)


def test_rbf_gram_checker_accepts_direct_and_clipped_expanded_forms():
    assert ex_k.check_rbf_gram(lambda X, Y, l: np.exp(-_d2(X, Y) / (2 * l ** 2)))

    def expanded(X, Y, l):
        d2 = (X ** 2).sum(1)[:, None] + (Y ** 2).sum(1)[None, :] - 2 * X @ Y.T
        return np.exp(-np.maximum(d2, 0.0) / (2 * l ** 2))
    assert ex_k.check_rbf_gram(expanded)


@pytest.mark.parametrize("func, fragment", [
    (lambda X, Y, l: np.exp(-_d2(X, Y) / (2 * l ** 2)).T, "transposed"),
    (lambda X, Y, l: np.exp(-_d2(X, Y) / l ** 2), "factor 2"),
    (lambda X, Y, l: np.exp(-_d2(X, Y) / (2 * l)), "l must be squared"),
    (lambda X, Y, l: np.exp(-np.sqrt(_d2(X, Y)) / l), "Ornstein-Uhlenbeck"),
    (lambda X, Y, l: np.exp(-((X ** 2).sum(1)[:, None] + (Y ** 2).sum(1)[None, :] - 2 * X @ Y.T) / (2 * l ** 2)),
     "went negative"),
    (lambda X, Y, l: np.exp(-_d2(X, Y) / (2 * l ** 2)) + 1e-3, "expected"),
])
def test_rbf_gram_checker_names_the_mistake(func, fragment):
    fb = ex_k.check_rbf_gram(func)
    assert not fb and fragment in fb.message and "Case '" in fb.message, fb


def test_rbf_gram_checker_survives_bad_functions():
    assert "function itself" in ex_k.check_rbf_gram(np.eye(3)).message
    assert "raised" in ex_k.check_rbf_gram(lambda X, Y, l: 1 / 0).message
    assert "NaN" in ex_k.check_rbf_gram(lambda X, Y, l: np.full((len(X), len(Y)), np.nan)).message


# ----------------------------------------------------------------------------- chapter Maximum margin
from svmlib.exercises import maximum_margin as ex_mm  # noqa: E402


@pytest.mark.parametrize("answer", [4.47, 4.472, 4.4721, 10 / np.sqrt(5), "4.47"])
def test_distance_checker_accepts_three_significant_figures(answer):
    fb = ex_mm.check_distance_to_line(answer)
    assert fb and "three significant figures" in fb.message, fb


@pytest.mark.parametrize("answer, fragment", [
    (4.48, "three significant figures"), (4.5, "three significant figures"), (4.46, "three significant figures"),
    (10.0, "functional margin"), (-4.47, "wrong sign"), (3.0, "Project x - x0"), ("four", "one number"),
])
def test_distance_checker_rejects_with_a_reason(answer, fragment):
    fb = ex_mm.check_distance_to_line(answer)
    assert not fb and fragment in fb.message, fb
    assert not repr(fb).startswith("Not yet: Not yet")


def _best_margin(X, y, angle):
    """Independent one-direction scan: project on the unit normal, split the closest projections."""
    w = np.array([np.cos(np.deg2rad(angle)), np.sin(np.deg2rad(angle))])
    p = X @ w
    hi, lo = p[y > 0].min(), p[y < 0].max()
    return (hi + lo) / 2, (hi - lo) / 2


def test_best_margin_checker_accepts_a_right_scan():
    assert ex_mm.check_best_margin(_best_margin)


@pytest.mark.parametrize("func, fragment", [
    (lambda X, y, a: _best_margin(X, y, np.rad2deg(a)), "np.deg2rad"),
    (lambda X, y, a: (_best_margin(X, y, a)[0], 2 * _best_margin(X, y, a)[1]), "half the gap"),
    (lambda X, y, a: tuple(-v for v in _best_margin(X, y, a)), "signs are mixed up"),
    (lambda X, y, a: (0.0, _best_margin(X, y, a)[1]), "wrong offset"),
    (lambda X, y, a: 1.0, "two numbers"),
    (lambda X, y, a: 1 / 0, "raised ZeroDivisionError"),
])
def test_best_margin_checker_names_the_mistake(func, fragment):
    fb = ex_mm.check_best_margin(func)
    assert not fb and fragment in fb.message, fb
