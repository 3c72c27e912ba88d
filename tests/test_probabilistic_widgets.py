"""Widget compute functions and exercise checkers of chapters 5 and 6 (headless)."""

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from svmlib.exercises.evidence import check_n1_log_evidence  # noqa: E402
from svmlib.exercises.probabilistic import check_dont_know_at_zero  # noqa: E402
from svmlib.widgets.probabilistic import prior_explorer, prior_sample_state  # noqa: E402


def test_prior_widget_rescales_the_same_sample_and_reports_the_gap():
    a = prior_sample_state("RBF", 0.1, 1.0, 2.0)
    b = prior_sample_state("RBF", 0.1, 4.0, 2.0)
    np.testing.assert_allclose(b["theta"], 2.0 * a["theta"])
    assert b["gap_share"] < a["gap_share"]  # larger amplitude, narrower gaps
    explorer = prior_explorer()
    explorer.controls["K0"].value = 10.0
    assert explorer.state["K0"] == pytest.approx(10.0)
    assert explorer.state["gap_share"] == pytest.approx(np.mean(np.abs(explorer.state["theta"]) < 1))
    explorer.controls["kernel"].value = "polynomial"
    assert explorer.state["kernel"] == "polynomial"
    with pytest.raises(ValueError, match="kernel"):
        prior_sample_state("sigmoid")


def test_evidence_widget_state():
    from svmlib.widgets.evidence import evidence_explorer

    explorer = evidence_explorer()
    s = explorer.state
    assert s["C_best"] == s["C"][np.argmax(s["log_full"])]
    assert s["C_best"] >= s["C_best_naive"]
    explorer.controls["seed"].value = 3
    assert len(explorer.state["y"]) == 50


def test_exercise_checkers_accept_right_and_reject_wrong_answers():
    assert check_dont_know_at_zero(2.0, 1 - 1 / np.cosh(2.0))
    wrong = check_dont_know_at_zero(2.0, 1 / np.cosh(2.0))
    assert not wrong and "DEFINITE" in wrong.message
    assert not check_dont_know_at_zero(2.0, "x")
    from scipy.stats import norm
    K, C = 0.5, 3.0
    right = np.log(1 / (1 + np.exp(-2 * C)) * (norm.cdf(-1 / np.sqrt(K))
                   + np.exp(-C + C**2 * K / 2) * norm.cdf((1 - C * K) / np.sqrt(K))))
    assert check_n1_log_evidence(K, C, right)
    assert not check_n1_log_evidence(K, C, np.exp(right))
    assert not check_n1_log_evidence(K, C, 0.3)
