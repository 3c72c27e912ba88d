"""Shared, seeded test data sets and helpers.

Every fixture is deterministic (fixed seeds), so a failing test fails the
same way on every machine. BLAS is limited to one thread for the whole run:
on the 2-core machine multithreaded BLAS made small dense solves 4-200x slower.
"""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from svmlib.datasets import make_blobs2d

_BLAS_LIMIT = threadpool_limits(limits=1, user_api="blas")


@pytest.fixture
def rng():
    """A fresh seeded generator per test."""
    return np.random.default_rng(20240501)


@pytest.fixture(scope="session")
def blobs():
    """40 points in 2-D, two overlapping Gaussian blobs, labels -1/+1.

    With C = 1 the linear SVM has 13 support vectors, three of them free
    (0 < alpha < C), so w and b are unique and well conditioned.
    """
    return make_blobs2d(40, separation=3.0, random_state=0)


@pytest.fixture(scope="session")
def separable_blobs():
    """40 linearly separable points in 2-D (hard-margin multipliers <= 0.18)."""
    X, y = make_blobs2d(40, separation=6.0, random_state=1)
    return X, y


@pytest.fixture(scope="session")
def blobs5d():
    """60 points in 5-D: a seeded linear teacher with 10 % label noise."""
    gen = np.random.default_rng(7)
    X = gen.normal(size=(60, 5))
    teacher = np.array([1.0, -2.0, 0.5, 0.0, 1.5])
    y = np.where(X @ teacher + 0.3 > 0, 1.0, -1.0)
    flip = gen.random(60) < 0.1
    return X, np.where(flip, -y, y)


@pytest.fixture(scope="session")
def linear_svc_reference():
    """``ref(X, y, C) -> (w, b, J)``: the linear soft-margin SVM from libsvm at KKT tolerance 1e-12."""
    from sklearn.svm import SVC

    def ref(X, y, C):
        svc = SVC(kernel="linear", C=C, tol=1e-12).fit(X, y)
        w, b = svc.coef_[0], float(svc.intercept_[0])
        J = 0.5 * w @ w + C * np.maximum(0.0, 1.0 - y * (X @ w + b)).sum()
        return w, b, float(J)

    return ref
