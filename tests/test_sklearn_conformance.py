"""scikit-learn's own estimator checks for every svmlib estimator outside svmlib.dual (issue 16).

DualSVC and PrimalSVC are checked in tests/test_dual.py and tests/test_primal.py. Every estimator
here declares itself binary-only (``classifier_tags.multi_class = False``), which is honest: the
SVM, the step likelihood and the hard-margin bootstrap separate two classes, and
``OneVsRestClassifier`` is the way to more.

No check is marked as an expected failure. The two bootstrap estimators are checked with
``deduplicate=True``: by design their default refuses duplicated inputs (the hard-margin problem
is ill-posed on them, see ``svmlib.bootstrap.distinct_inputs``) with a ValueError that says so,
and several checks feed data with duplicated rows (iris, the positive-only data).
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import cross_val_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from svmlib.bootstrap import MonteCarloBootstrap, ReplicaBootstrap
from svmlib.gpc import MeanFieldGPC, SequentialGPC
from svmlib.lssvr import GPRegression, LSSVR, BayesianLSSVR
from svmlib.primal import PrimalSVC
from svmlib.probabilistic import NoBiasSVC

ESTIMATORS = [
    LSSVR(),
    BayesianLSSVR(),
    GPRegression(),
    NoBiasSVC(),
    MeanFieldGPC(),
    SequentialGPC(random_state=0),
    ReplicaBootstrap(deduplicate=True),
    # 20 samples instead of 500: the checks test the interface, not the estimate
    MonteCarloBootstrap(n_samples=20, deduplicate=True, random_state=0),
]


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        # the bootstrap estimators say when they drop duplicated inputs; that is the point of
        # deduplicate=True, not a problem the checks need to see
        warnings.filterwarnings("ignore", message="Dropped .* duplicated input")
        check(estimator)


def _blobs(n=60, seed=0):
    rng = np.random.default_rng(seed)
    y = np.r_[np.zeros(n // 2), np.ones(n - n // 2)].astype(int)
    X = rng.normal(size=(n, 2)) + 2.0 * (y[:, None] - 0.5)
    return X, y


@pytest.mark.parametrize("make", [lambda: ReplicaBootstrap(),
                                  lambda: MonteCarloBootstrap(n_samples=30, random_state=0)])
def test_bootstrap_estimators_work_in_cross_val_score(make):
    """They had no `score`: cross_val_score failed. Now they are classifiers (the bagged
    hard-margin SVM), with accuracy as score, and still error estimators (error_)."""
    X, y = _blobs()
    scores = cross_val_score(make(), X, y, cv=3)
    # overlapping blobs: sklearn.svm.SVC scores (0.95, 0.95, 0.8) on these folds
    assert scores.shape == (3,) and np.all(scores >= 0.75)
    est = make().fit(X, y)
    assert 0.0 <= est.error_ <= 1.0
    np.testing.assert_array_equal(est.classes_, [0, 1])
    p = est.predict_proba(X)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    np.testing.assert_array_equal(est.predict(X), est.classes_[(p[:, 1] > 0.5).astype(int)])


def test_bootstrap_estimators_before_fit_and_bad_n_jobs():
    X, y = _blobs()
    with pytest.raises(NotFittedError):
        ReplicaBootstrap().predict_proba(X)
    with pytest.raises(NotFittedError):
        MonteCarloBootstrap().field_samples(X)
    # n_jobs=0 used to reach joblib and fail with its message
    with pytest.raises(ValueError, match="n_jobs = 0"):
        MonteCarloBootstrap(n_samples=5, n_jobs=0).fit(X, y)


@pytest.mark.parametrize("make", [lambda: ReplicaBootstrap(), lambda: MonteCarloBootstrap(n_samples=10, random_state=0),
                                  lambda: NoBiasSVC(), lambda: SequentialGPC(random_state=0), lambda: LSSVR(),
                                  lambda: PrimalSVC(random_state=0)])
def test_reordered_dataframe_columns_are_refused(make):
    """Issue 16: reordered DataFrame columns were accepted silently (score 1.0 -> 0.57); every
    estimator now records feature_names_in_ and refuses them as scikit-learn does."""
    pd = pytest.importorskip("pandas")
    X, y = _blobs()
    df = pd.DataFrame(np.column_stack([X[:, 0], 3 * X[:, 1]]), columns=["first", "second"])
    est = make().fit(df, y)
    np.testing.assert_array_equal(est.feature_names_in_, ["first", "second"])
    with pytest.raises(ValueError, match="feature names"):
        est.predict(df[["second", "first"]])
    est.predict(df)        # the right order works
