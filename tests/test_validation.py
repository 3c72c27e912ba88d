"""svmlib._validation: every check returns clean values or raises with a helpful message."""

from __future__ import annotations

import numpy as np
import pytest

from svmlib._validation import (
    check_binary_labels,
    check_C,
    check_data,
    check_inputs,
    check_kernel_matrix,
    check_positive,
    check_positive_int,
    check_probability,
    check_random_state,
)


def test_check_inputs_accepts_array_likes():
    X = check_inputs([[1, 2], [3, 4]])
    assert X.dtype == np.float64 and X.shape == (2, 2)
    np.testing.assert_array_equal(check_inputs(np.eye(3, dtype=np.float32)), np.eye(3))


@pytest.mark.parametrize(
    "X, exc",
    [
        ([1.0, 2.0], ValueError),  # 1-D
        (np.zeros((2, 2, 2)), ValueError),  # 3-D
        (3.0, ValueError),  # scalar
        (np.empty((0, 2)), ValueError),  # no samples
        (np.empty((2, 0)), ValueError),  # no features
        ([[np.nan, 1.0]], ValueError),
        ([[np.inf, 1.0]], ValueError),
        ([["a", "b"]], ValueError),  # strings that are not numbers
        ([[1, 2], [3]], ValueError),  # ragged
        ([[1 + 2j, 1.0]], TypeError),  # complex
    ],
)
def test_check_inputs_rejects(X, exc):
    with pytest.raises(exc, match="X must"):
        check_inputs(X)


def test_check_inputs_uses_the_name():
    with pytest.raises(ValueError, match="^Y must"):
        check_inputs([1.0], name="Y")


@pytest.mark.parametrize(
    "y, classes",
    [
        ([0, 1, 1, 0], [0, 1]),
        ([-1, 1, 1], [-1, 1]),
        (["spam", "ham", "spam"], ["ham", "spam"]),
        ([3.0, 7.0, 3.0], [3.0, 7.0]),
        ([[1], [2], [1]], [1, 2]),  # a column vector is raveled
        (np.array(["b", "a"], dtype=object), ["a", "b"]),
    ],
)
def test_check_binary_labels_maps_the_smaller_class_to_minus_one(y, classes):
    y_pm, found = check_binary_labels(y)
    np.testing.assert_array_equal(found, classes)
    np.testing.assert_array_equal(y_pm, np.where(np.ravel(np.asarray(y, dtype=object)) == found[1], 1.0, -1.0))
    assert y_pm.dtype == np.float64


@pytest.mark.parametrize(
    "y, match",
    [
        ([1, 1, 1], "1 (distinct|class)"),
        ([1, 2, 3], "3 (distinct|classes)"),
        ([np.nan, 1.0], "NaN"),
        ([[1, 2], [3, 4]], "1-D"),
        (np.array([1, "a", None], dtype=object), "labels"),
    ],
)
def test_check_binary_labels_rejects(y, match):
    with pytest.raises(ValueError, match=match):
        check_binary_labels(y)


def test_check_data():
    X, y, classes = check_data([[0.0], [1.0], [2.0]], ["a", "b", "a"])
    assert X.shape == (3, 1)
    np.testing.assert_array_equal(y, [-1.0, 1.0, -1.0])
    np.testing.assert_array_equal(classes, ["a", "b"])
    with pytest.raises(ValueError, match="y is required|target y is None"):
        check_data([[0.0]], None)
    with pytest.raises(ValueError, match="one label per row"):
        check_data([[0.0], [1.0]], [0, 1, 0])
    with pytest.raises(ValueError, match="finite"):
        check_data([[np.nan], [1.0]], [0, 1])


@pytest.mark.parametrize("C", [1, 0.5, 1e6, np.float32(2.0), np.array(3.0)])
def test_check_C_accepts(C):
    assert check_C(C) == float(C)


def test_check_C_infinity():
    assert check_C(np.inf) == np.inf
    with pytest.raises(ValueError, match="finite"):
        check_C(np.inf, allow_inf=False)


@pytest.mark.parametrize("C, exc", [(0, ValueError), (-1.0, ValueError), (np.nan, ValueError), (-np.inf, ValueError),
                                    ("1", TypeError), (None, TypeError), (True, TypeError), ([1.0], TypeError)])
def test_check_C_rejects(C, exc):
    with pytest.raises(exc, match="C must"):
        check_C(C)


def test_check_positive():
    assert check_positive(2, "l") == 2.0
    np.testing.assert_array_equal(check_positive([1.0, 2.0], "l", allow_array=True), [1.0, 2.0])
    assert check_positive(0.0, "B2", allow_zero=True) == 0.0
    for bad, exc in [(0.0, ValueError), (-1, ValueError), (np.nan, ValueError), (np.inf, ValueError),
                     ("1", TypeError), (True, TypeError), (None, TypeError)]:
        with pytest.raises(exc, match="l"):
            check_positive(bad, "l")
    with pytest.raises(ValueError, match="shape"):
        check_positive([1.0, 2.0], "l")
    with pytest.raises(ValueError, match="empty"):
        check_positive([], "l", allow_array=True)
    with pytest.raises(ValueError, match=">= 0"):
        check_positive(-1e-3, "B2", allow_zero=True)


def test_check_positive_int():
    assert check_positive_int(3, "p") == 3
    assert check_positive_int(3.0, "p") == 3  # an integral float is fine
    assert check_positive_int(np.int64(2), "p") == 2
    assert check_positive_int(0, "n", minimum=0) == 0
    for bad, exc in [(0, ValueError), (-2, ValueError), (1.5, TypeError), ("2", TypeError), (True, TypeError),
                     (np.bool_(True), TypeError)]:
        with pytest.raises(exc, match="p must be an integer"):
            check_positive_int(bad, "p")


def test_check_probability():
    assert check_probability(0.3, "q") == 0.3
    assert check_probability(1.0, "q", open_interval=False) == 1.0
    for bad, exc in [(0.0, ValueError), (1.0, ValueError), (1.5, ValueError), ("x", TypeError)]:
        with pytest.raises(exc, match="q must"):
            check_probability(bad, "q")


def test_check_kernel_matrix():
    K = check_kernel_matrix([[2.0, 1.0], [1.0, 2.0]], 2, symmetric=True)
    assert K.dtype == np.float64
    with pytest.raises(ValueError, match="shape \\(2, 3\\)"):
        check_kernel_matrix(np.ones((2, 2)), 2, 3)
    with pytest.raises(ValueError, match="NaN"):
        check_kernel_matrix([[np.nan]], 1)
    with pytest.raises(ValueError, match="symmetric"):
        check_kernel_matrix([[1.0, 2.0], [0.0, 1.0]], 2, symmetric=True)
    with pytest.raises(TypeError, match="numeric"):
        check_kernel_matrix([["a"]], 1)


def test_check_random_state_is_sklearns():
    a = check_random_state(5).normal(size=3)
    b = check_random_state(5).normal(size=3)
    np.testing.assert_array_equal(a, b)
    rs = np.random.RandomState(0)
    assert check_random_state(rs) is rs


def test_continuous_labels_get_their_own_message():
    with pytest.raises(ValueError, match="continuous"):
        check_binary_labels([0.5, 1.5, 0.5])


def test_unusable_label_vectors():
    with pytest.raises(ValueError, match="not a valid vector of class labels"):
        check_binary_labels(np.array([1 + 1j, 2 + 0j]))
    with pytest.raises(TypeError, match="array-like"):
        check_data([[1 + 2j], [1.0]], [0, 1])


def test_check_regression_data():
    from svmlib._validation import check_regression_data

    X, y = check_regression_data([[0.0], [1.0]], [0.5, 2])
    assert X.shape == (2, 1) and y.dtype == np.float64
    np.testing.assert_array_equal(y, [0.5, 2.0])
    with pytest.raises(ValueError, match="y is required|target y is None"):
        check_regression_data([[0.0]], None)
    with pytest.raises(ValueError, match="one target per row"):
        check_regression_data([[0.0], [1.0]], [0.5])
    with pytest.raises(ValueError, match="finite"):
        check_regression_data([[0.0], [1.0]], [0.5, np.nan])
    with pytest.raises(TypeError, match="array-like of numbers"):
        check_regression_data([[1 + 2j], [1.0]], [0.5, 1.0])


# --- issue 16: the helpers every module shares -------------------------------------------------

def test_new_helpers_for_labels_tolerances_switches_and_jobs():
    from svmlib._validation import check_bool, check_n_jobs, check_pm_labels, check_tol

    np.testing.assert_array_equal(check_pm_labels([1, -1, 1], 3), [1.0, -1.0, 1.0])
    for bad, match in (([0, 1], "-1/\\+1"), ([1.0, np.nan], "-1/\\+1"), ([], "non-empty"), ([[1, -1]], "1-D")):
        with pytest.raises(ValueError, match=match):
            check_pm_labels(bad)
    with pytest.raises(ValueError, match="2 labels but the kernel matrix has 3 rows"):
        check_pm_labels([1, -1], 3)
    assert check_tol(1e-6) == 1e-6
    for bad in (0.0, -1e-3, np.nan, np.inf):
        with pytest.raises(ValueError, match="tol"):
            check_tol(bad)
    assert check_bool(True, "fit_intercept") is True and check_bool(0, "shuffle") is False
    for bad in ("no", 2, None, 0.5):
        with pytest.raises(TypeError, match="must be True or False"):
            check_bool(bad, "fit_intercept")
    assert check_n_jobs(None) is None and check_n_jobs(-1) == -1 and check_n_jobs(4) == 4
    with pytest.raises(ValueError, match="n_jobs = 0"):
        check_n_jobs(0)
    for bad in ("2", 1.5, True):
        with pytest.raises(TypeError, match="n_jobs"):
            check_n_jobs(bad)


def test_feature_helpers_follow_scikit_learn():
    pd = pytest.importorskip("pandas")
    from sklearn.base import BaseEstimator
    from sklearn.exceptions import NotFittedError

    from svmlib._validation import check_predict_inputs, set_feature_info

    class Toy(BaseEstimator):
        def fit(self, X):
            set_feature_info(self, X)
            self.fitted_ = True
            return self

    df = pd.DataFrame(np.arange(6.0).reshape(3, 2), columns=["a", "b"])
    with pytest.raises(NotFittedError):
        check_predict_inputs(Toy(), df)
    toy = Toy().fit(df)
    assert toy.n_features_in_ == 2 and list(toy.feature_names_in_) == ["a", "b"]
    np.testing.assert_array_equal(check_predict_inputs(toy, df), df.to_numpy())
    with pytest.raises(ValueError, match="feature names"):
        check_predict_inputs(toy, df[["b", "a"]])
    # an array after a DataFrame fit: scikit-learn warns about the names, then the count fails
    with pytest.warns(UserWarning, match="valid feature names"), \
            pytest.raises(ValueError, match="X has 1 features, but Toy is expecting 2"):
        check_predict_inputs(toy, np.ones((2, 1)))
    toy.fit(df.to_numpy())                     # a refit on an array drops the stale names
    assert not hasattr(toy, "feature_names_in_")
