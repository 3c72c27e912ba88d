"""Every branch of the auto-checked exercises: the right answer passes, and each typical wrong answer
gets ITS explanation (not the generic hint). Expected values are recomputed here independently of
the checkers (closed forms, hand-built matrices), so a checker with a wrong key fails.
"""

import numpy as np
import pytest
from scipy import integrate
from scipy.stats import multivariate_normal

from svmlib.exercises import Feedback, close_enough
from svmlib.exercises import bootstrap as ex_boot
from svmlib.exercises import evidence as ex_ev
from svmlib.exercises import gpc as ex_gpc
from svmlib.exercises import kernel_choice as ex_k
from svmlib.exercises import lssvr as ex_ls
from svmlib.exercises import maximum_margin as ex_mm
from svmlib.exercises import smo as ex_smo
from svmlib.exercises import soft_margin as ex_soft


def _wrong(feedback, *fragments):
    assert isinstance(feedback, Feedback) and not feedback.correct, feedback
    for fragment in fragments:
        assert fragment in feedback.message, (fragment, feedback.message)


# ----------------------------------------------------------------------------- Feedback itself
def test_feedback_prints_its_verdict_in_text_and_markdown():
    right, wrong = Feedback(True, "because."), Feedback(False, "try again.")
    assert repr(right) == "Correct: because." and repr(wrong) == "Not yet: try again."
    assert right._repr_markdown_() == "**Correct.** because."
    assert wrong._repr_markdown_() == "**Not yet.** try again."
    assert bool(right) and not bool(wrong)


def test_close_enough_never_raises_on_odd_answers():
    assert close_enough([1.0, 2.0], np.array([1.0, 2.0 + 1e-9]))
    assert not close_enough(object(), 1.0)          # not a number at all
    assert not close_enough([1.0, 2.0], [1.0, 2.0, 3.0])  # wrong shape
    assert not close_enough(np.nan, np.nan)         # NaN is never an answer


# ----------------------------------------------------------------------------- :ref:`Chapter 1 <ch-margin>`
def test_answer_parsing_helpers():
    from svmlib.exercises import as_number, as_numbers

    np.testing.assert_array_equal(as_numbers([1, 2], 2), [1.0, 2.0])
    for bad in ("ab", [1.0], [1.0, np.nan], [[1.0, 2.0, 3.0]], None):
        assert as_numbers(bad, 2) is None, bad
    assert as_number(np.float32(0.5)) == 0.5 and as_number([0.5]) == 0.5
    assert as_number("x") is None and as_number(np.inf) is None and as_number([1.0, 2.0]) is None


def test_max_margin_line_every_branch():
    assert ex_mm.check_max_margin_line([1.0, 0.0], -1.0)
    _wrong(ex_mm.check_max_margin_line("w", 0.0), "two finite numbers")
    _wrong(ex_mm.check_max_margin_line([1.0, 0.0, 0.0], -1.0), "two finite numbers")
    _wrong(ex_mm.check_max_margin_line([np.inf, 0.0], -1.0), "two finite numbers")
    _wrong(ex_mm.check_max_margin_line([0.0, 0.0], 1.0), "w = 0")
    _wrong(ex_mm.check_max_margin_line([-1.0, 0.0], 1.0), "does not separate", "[0, 1, 2, 3]")
    # the same line scaled by 2: right geometry, not canonical (closest points at y f = 2)
    _wrong(ex_mm.check_max_margin_line([2.0, 0.0], -2.0), "canonical", "Divide w and b by 2")
    # x1 = 1 tilted a little still separates, with a smaller geometric margin
    w = np.array([1.0, 0.3])
    gamma = min(ex_mm.FOUR_LABELS * (ex_mm.FOUR_POINTS @ w - 1.0)) / np.linalg.norm(w)
    _wrong(ex_mm.check_max_margin_line(w, -1.0), f"geometric margin {gamma:.4g}")


def test_distance_to_line_every_branch():
    # x = (3, 4), w = (1, 2), b = -1: w.x + b = 10, ||w|| = sqrt(5)
    assert ex_mm.check_distance_to_line(10 / np.sqrt(5))
    _wrong(ex_mm.check_distance_to_line(10.0), "functional margin")
    _wrong(ex_mm.check_distance_to_line(-10 / np.sqrt(5)), "wrong sign")
    _wrong(ex_mm.check_distance_to_line(3.0), "Project x - x0")


# ----------------------------------------------------------------------------- :ref:`Chapter 2 <ch-soft-margin>`
def test_slacks_every_branch():
    # t = y (w.x + b) = (2, 1, 0.5, -0.5, 3) for w = (1, 0), b = 0, so xi = max(0, 1 - t)
    assert ex_soft.check_slacks([0.0, 0.0, 0.5, 1.5, 0.0])
    _wrong(ex_soft.check_slacks("five numbers"), "one slack per point")
    _wrong(ex_soft.check_slacks([0.0, 0.0, 0.5]), "5 numbers, not 3")
    _wrong(ex_soft.check_slacks([0.0, 0.0, 0.5, 1.5, -3.0]), "never negative")
    _wrong(ex_soft.check_slacks([0.0, 0.0, 0.5, 1.0, 0.0]), "point(s) [3]")


def test_subgradient_accepts_the_whole_kink_segment_and_explains_the_rest():
    # Points with t < 1: x_2 = (0.5, -1), x_3 = (-0.5, 0), both y = +1. Gradient away from the kink:
    # (w, 0) - C sum y_i (x_i, 1) = (1, 0, 0) - (0, -1, 2) = (1, 1, -2); point 1 (t = 1) adds
    # -theta (1, 1, 1) for any theta in [0, 1].
    base, kink = np.array([1.0, 1.0, -2.0]), -np.array([1.0, 1.0, 1.0])
    for theta in (0.0, 0.4, 1.0):
        assert ex_soft.check_subgradient(base + theta * kink), theta
    _wrong(ex_soft.check_subgradient(base + 1.5 * kink), "Not a subgradient")  # theta outside [0, 1]
    _wrong(ex_soft.check_subgradient([1.0, 0.0, 0.0]), "only the regulariser")
    _wrong(ex_soft.check_subgradient(["a", "b", "c"]), "three finite numbers")
    _wrong(ex_soft.check_subgradient([1.0, 1.0]), "three finite numbers")
    _wrong(ex_soft.check_subgradient([1.0, np.nan, 0.0]), "three finite numbers")


# ----------------------------------------------------------------------------- :ref:`Chapter 3 <ch-duality>`
def test_lagrange_maximum_every_branch():
    assert ex_smo.check_lagrange_maximum(0.6, 0.8)
    _wrong(ex_smo.check_lagrange_maximum("x", 0.8), "two numbers")
    _wrong(ex_smo.check_lagrange_maximum(np.nan, 0.8), "finite")
    _wrong(ex_smo.check_lagrange_maximum(3.0, 4.0), "not on the circle", "= 25")
    _wrong(ex_smo.check_lagrange_maximum(-0.6, -0.8), "minimum")
    _wrong(ex_smo.check_lagrange_maximum(1.0, 0.0), "f = 3 here")


def test_two_point_dual_every_branch():
    assert ex_smo.check_two_point_dual([0.5, 0.5])
    _wrong(ex_smo.check_two_point_dual(["a", "b"]), "two finite numbers")
    _wrong(ex_smo.check_two_point_dual([0.5, 0.5, 0.5]), "two finite numbers")
    _wrong(ex_smo.check_two_point_dual([-0.5, -0.5]), "never negative")
    _wrong(ex_smo.check_two_point_dual([0.5, 0.3]), "alpha_1 = alpha_2")
    # W(a, a) = 2a - 2a^2; at a = 0.3 that is 0.42
    _wrong(ex_smo.check_two_point_dual([0.3, 0.3]), "= 0.42 at your a")


# ----------------------------------------------------------------------------- :ref:`Chapter 4 <ch-kernels>`
def test_feature_map_every_branch():
    def exact(X):  # (1 + x.z)^2 = phi(x).phi(z) with the sqrt(2) cross terms
        x1, x2 = X[:, 0], X[:, 1]
        r2 = np.sqrt(2.0)
        return np.column_stack([np.ones_like(x1), r2 * x1, r2 * x2, x1 ** 2, x2 ** 2, r2 * x1 * x2])

    assert ex_k.check_feature_map(exact)
    _wrong(ex_k.check_feature_map("phi"), "Pass a function")

    def broken(X):
        raise RuntimeError("boom")

    _wrong(ex_k.check_feature_map(broken), "RuntimeError: boom")
    _wrong(ex_k.check_feature_map(lambda X: X[0]), "shape (20, m)")
    # one feature 1 + |x|^2: right lengths (diagonal of the Gram matrix), wrong cross terms
    _wrong(ex_k.check_feature_map(lambda X: (1.0 + (X ** 2).sum(axis=1))[:, None]), "cross terms")
    _wrong(ex_k.check_feature_map(lambda X: X), "differs from (1 + x.z)^2")


def test_selection_bias_answers():
    assert ex_k.check_selection_bias_answer(" B) nested CV")
    _wrong(ex_k.check_selection_bias_answer("a"), "biased")
    _wrong(ex_k.check_selection_bias_answer("c"), "optimistic")
    _wrong(ex_k.check_selection_bias_answer("d"), "'a', 'b' or 'c'")


# ----------------------------------------------------------------------------- :ref:`Chapter 7 <ch-evidence>`
def test_n1_log_evidence_against_direct_integration():
    K, C = 0.5, 3.0
    # Q_naive = int N(theta | 0, K) kappa(C) exp(-C max(0, 1 - theta)) dtheta, kappa = 1/(1 + exp(-2C))
    kappa = 1.0 / (1.0 + np.exp(-2 * C))
    dens = lambda t: np.exp(-t * t / (2 * K)) / np.sqrt(2 * np.pi * K) * kappa * np.exp(-C * max(0.0, 1 - t))  # noqa: E731
    q = integrate.quad(dens, -np.inf, 1.0)[0] + integrate.quad(dens, 1.0, np.inf)[0]
    assert ex_ev.check_n1_log_evidence(K, C, np.log(q))
    _wrong(ex_ev.check_n1_log_evidence(K, C, q), "Q_naive itself")
    _wrong(ex_ev.check_n1_log_evidence(K, C, 0.3), "Not 0.3")


def test_n1_log_evidence_names_the_missing_normaliser():
    from svmlib.evidence import exact_log_naive_evidence
    from svmlib.probabilistic import kappa

    expected = exact_log_naive_evidence(np.array([[0.5]]), np.array([1.0]), 3.0)
    assert ex_ev.check_n1_log_evidence(0.5, 3.0, expected)
    _wrong(ex_ev.check_n1_log_evidence(0.5, 3.0, expected - np.log(kappa(3.0))), "kappa(C)")
    _wrong(ex_ev.check_n1_log_evidence(0.5, 3.0, np.exp(expected)), "Q_naive itself")
    _wrong(ex_ev.check_n1_log_evidence(0.5, 3.0, 0.0), "Not 0")


def test_n1_log_evidence_explains_a_non_numeric_answer():
    _wrong(ex_ev.check_n1_log_evidence(0.5, 3.0, "a number"), "Give one number")
    _wrong(ex_ev.check_n1_log_evidence(0.5, 3.0, [1.0, 2.0]), "Give one number")


@pytest.mark.parametrize("K", [0.01, 1.0, 100.0])
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_one_point_naive_evidence_is_below_one_half(K, C):
    """Q(+1|theta) + Q(-1|theta) = nu <= 1 and the prior is symmetric, so Q_naive <= 1/2 for one point
    (which is why the checker has no "ln(ln Q)" branch: exp(answer) > 0 could never match ln Q < 0)."""
    from svmlib.evidence import exact_log_naive_evidence

    assert exact_log_naive_evidence(np.array([[K]]), np.array([1.0]), C) <= np.log(0.5) + 1e-12


# ----------------------------------------------------------------------------- :ref:`Chapter 8 <ch-mean-field-gpc>`
def test_two_point_evidence_every_branch():
    # Orthant probability P(a_1 > 0, -a_2 > 0) for correlation 1/2, by direct bivariate integration
    cov = ex_gpc.TWO_POINT_K * np.outer(ex_gpc.TWO_POINT_Y, ex_gpc.TWO_POINT_Y)
    Z = multivariate_normal(np.zeros(2), cov).cdf(np.zeros(2))  # P(u_1 < 0, u_2 < 0) = P(u_1 > 0, u_2 > 0)
    assert Z == pytest.approx(1 / 6, abs=1e-5)
    assert ex_gpc.check_two_point_evidence(Z)
    _wrong(ex_gpc.check_two_point_evidence(1 / 3), "equal labels")
    _wrong(ex_gpc.check_two_point_evidence(np.log(1 / 6)), "ln Z")
    _wrong(ex_gpc.check_two_point_evidence(0.25), "ignores the correlation")
    _wrong(ex_gpc.check_two_point_evidence(0.5), "Not the orthant probability")
    _wrong(ex_gpc.check_two_point_evidence([1 / 6, 1 / 6]), "one finite number")
    _wrong(ex_gpc.check_two_point_evidence(np.inf), "one finite number")


def test_single_alpha_every_branch():
    # One example: a ~ N(0, K + s2) restricted to y a > 0 (half-normal); <a> = sqrt(2 (K + s2) / pi),
    # alpha = <a> / (K + s2) = sqrt(2 / (pi (K + s2))).
    K, s2 = 1.0, 0.5
    mean_a = integrate.quad(lambda a: a * 2 * np.exp(-a * a / (2 * (K + s2))) / np.sqrt(2 * np.pi * (K + s2)),
                            0, np.inf)[0]
    assert ex_gpc.check_single_alpha(mean_a / (K + s2))
    _wrong(ex_gpc.check_single_alpha(np.sqrt(2 / np.pi)), "left out the noise")
    _wrong(ex_gpc.check_single_alpha(mean_a), "posterior mean <a>")
    _wrong(ex_gpc.check_single_alpha(0.1), "half-normal")
    _wrong(ex_gpc.check_single_alpha("alpha"), "one finite number")


def test_error_bar_every_branch():
    n, k = 332, 63
    p = k / n
    assert ex_gpc.check_error_bar(np.sqrt(n * p * (1 - p)))
    _wrong(ex_gpc.check_error_bar(np.sqrt(p * (1 - p) / n)), "RATE")
    _wrong(ex_gpc.check_error_bar(np.sqrt(k)), "Poisson")
    _wrong(ex_gpc.check_error_bar(1.0), "Binomial(n, p)")
    _wrong(ex_gpc.check_error_bar(None), "one number")


# ----------------------------------------------------------------------------- :ref:`Chapter 9 <ch-replica>`
def test_bootstrap_checkers_generic_hints():
    assert ex_boot.check_left_out_fraction(1.0, np.exp(-1.0))
    _wrong(ex_boot.check_left_out_fraction(1.0, 0.5), "Poisson(S/N)")
    assert ex_boot.check_632(0.3, 0.1, 0.368 * 0.1 + 0.632 * 0.3)
    _wrong(ex_boot.check_632(0.3, 0.1, 0.2), "Combine")
    # E[log Z] for Z ~ U(1, 3) by quadrature
    e_log = integrate.quad(lambda z: np.log(z) / 2.0, 1.0, 3.0)[0]
    assert ex_boot.check_replica_warmup(1.0, 3.0, e_log)
    _wrong(ex_boot.check_replica_warmup(1.0, 3.0, np.log(2.0)), "annealed")
    _wrong(ex_boot.check_replica_warmup(1.0, 3.0, 0.0), "E[Z^n]")


def test_width_gradient_checker_against_a_difference_quotient():
    # independent of the implicit gradient: two full solves at l e^(+-h)
    from svmlib.bootstrap import solve_replica
    from svmlib.datasets import load_crabs
    from svmlib.kernels import RBF

    crabs = load_crabs("sex")
    l, h = 0.5 * np.sqrt(crabs.X.shape[1]), 0.01
    e = [solve_replica(RBF(l=l * np.exp(s))(crabs.X), crabs.y, 1.0).error for s in (h, -h)]
    fd = 0.632 * (e[0] - e[1]) / (2 * h)
    feedback = ex_boot.check_width_gradient(fd)
    assert feedback and "wider" in feedback.message  # the slope is negative at the narrow width
    _wrong(ex_boot.check_width_gradient(fd / 0.632), "0.632 times")
    _wrong(ex_boot.check_width_gradient(-fd), "sign")
    _wrong(ex_boot.check_width_gradient("steep"), "error_gradient")


# ----------------------------------------------------------------------------- :ref:`Chapter 10 <ch-lssvr>`
def _tiny_kkt():
    """b, alpha of the LS-SVR on TINY_X, TINY_Y from the (N+1) x (N+1) KKT system, built by hand."""
    x = ex_ls.TINY_X[:, 0]
    omega = np.exp(-(x[:, None] - x[None, :]) ** 2)
    A = np.zeros((4, 4))
    A[0, 1:] = A[1:, 0] = 1.0
    A[1:, 1:] = omega + np.eye(3) / ex_ls.TINY_GAMMA
    sol = np.linalg.solve(A, np.r_[0.0, ex_ls.TINY_Y])
    krr = np.linalg.solve(omega + np.eye(3) / ex_ls.TINY_GAMMA, ex_ls.TINY_Y)
    return sol[0], sol[1:], krr


def test_lssvr_parameters_every_branch():
    b, alpha, krr = _tiny_kkt()
    assert abs(alpha.sum()) < 1e-12
    assert ex_ls.check_lssvr_parameters(b, alpha)
    _wrong(ex_ls.check_lssvr_parameters("b", alpha), "Give b as one number")
    _wrong(ex_ls.check_lssvr_parameters(b, alpha[:2]), "three finite numbers")
    _wrong(ex_ls.check_lssvr_parameters(np.nan, alpha), "three finite numbers")
    _wrong(ex_ls.check_lssvr_parameters(0.0, krr), "kernel ridge regression")
    _wrong(ex_ls.check_lssvr_parameters(b, alpha + 0.1), "sum to 0.3")
    _wrong(ex_ls.check_lssvr_parameters(b, alpha + [0.1, -0.1, 0.0]), "sum(alpha) = 0 holds")


def test_far_field_variances_every_branch():
    from svmlib.lssvr import BayesianLSSVR, make_sinc, rbf_from_c

    X, y = make_sinc(300, random_state=1)
    model = BayesianLSSVR(gamma=1.0, eps=1e-4, kernel=rbf_from_c(1.0)).fit(X, y)
    # measured far from the data (x = 100, every k(x, x_i) = 0 in double precision)
    _, sd_full = model.predict(np.array([[100.0]]), return_std=True, variance="full")
    _, sd_eq16 = model.predict(np.array([[100.0]]), return_std=True, variance="eq16")
    full = float(sd_full[0] ** 2)
    assert ex_ls.check_far_field_variances(float(sd_eq16[0] ** 2), full, 1.0)
    _wrong(ex_ls.check_far_field_variances("zero", full, 1.0), "Give three numbers")
    _wrong(ex_ls.check_far_field_variances(0.0, np.nan, 1.0), "finite")
    wrong_all = ex_ls.check_far_field_variances(1.0, 2 * full + 1.0, 0.0)
    _wrong(wrong_all, "eq. 16 sums", "one entry of Sigma*", "prior variance")
    _wrong(ex_ls.check_far_field_variances(0.0, full, 0.0), "returns to")
    assert "eq. 16" not in ex_ls.check_far_field_variances(0.0, full, 0.0).message


def test_prior_smallest_eigenvalue_every_branch():
    from svmlib.lssvr import make_sinc

    X, _ = make_sinc(40, random_state=0)
    x = X[:, 0]
    omega = np.exp(-(x[:, None] - x[None, :]) ** 2)
    eps, gamma, n = 1e-3, 1.0, x.size
    # Sigma^-1 = [[eps, 1^T/gamma], [1/gamma, 1 1^T + 2 Omega/gamma + I/gamma^2]] (eq. :eq:`(10.9) <lssvr-prior-precision>`)
    P = np.empty((n + 1, n + 1))
    P[0, 0] = eps
    P[0, 1:] = P[1:, 0] = 1.0 / gamma
    P[1:, 1:] = 1.0 + 2 * omega / gamma + np.eye(n) / gamma ** 2
    lam = np.linalg.eigvalsh(P)[0]
    right = ex_ls.check_prior_smallest_eigenvalue(lam, eps=eps)
    assert right and ("negative" in right.message) == (lam < 0)
    _wrong(ex_ls.check_prior_smallest_eigenvalue(-lam, eps=eps), "Check the sign")
    _wrong(ex_ls.check_prior_smallest_eigenvalue(1.0, eps=eps), "eigvalsh")
    _wrong(ex_ls.check_prior_smallest_eigenvalue("small", eps=eps), "Give one number")
