"""The embarrassingly parallel loops on a Dask cluster through joblib's dask backend (issue 26).

A ``dask.distributed.LocalCluster`` on 127.0.0.1 with two thread workers in this process
(``processes=False``: starts in well under a second); results must equal the serial run
(bootstrap draws bit for bit, fits to round-off), because every bootstrap sample has its own
seed (``SeedSequence.spawn``) and every cross-validation fold its own fit.
"""

import numpy as np
import pytest

distributed = pytest.importorskip("distributed", reason="the optional extra svmlib[dask] is not installed")
joblib = pytest.importorskip("joblib")

from sklearn.model_selection import cross_val_score  # noqa: E402

from svmlib.bootstrap import MonteCarloBootstrap  # noqa: E402
from svmlib.datasets import load_crabs  # noqa: E402
from svmlib.dual import DualSVC  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       protocol="tcp", host="127.0.0.1", dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_monte_carlo_bootstrap_on_dask_equals_serial(client):
    crabs = load_crabs("species")
    serial = MonteCarloBootstrap(n_samples=60, random_state=0).fit(crabs.X, crabs.y)
    with distributed.get_task_stream(client) as stream, joblib.parallel_config(backend="dask"):
        on_dask = MonteCarloBootstrap(n_samples=60, n_jobs=-1, random_state=0).fit(crabs.X, crabs.y)
    assert len(stream.data) > 0  # the chunks really ran as tasks on the cluster's workers
    # the same bootstrap samples (one seed each), so the same occupations bit for bit; the same
    # fits up to the last bits of round-off (numpy's SIMD sums depend on the memory alignment of
    # the arrays a worker thread gets: measured differences up to 3e-11 relative in a few samples)
    np.testing.assert_array_equal(on_dask.result_.occupations, serial.result_.occupations)
    np.testing.assert_allclose(on_dask.result_.coef, serial.result_.coef, rtol=1e-8, atol=1e-10)
    assert on_dask.error_ == pytest.approx(serial.error_, rel=1e-9)
    assert on_dask.error_se_ == pytest.approx(serial.error_se_, rel=1e-9)


def test_cross_validation_on_dask_equals_serial(client):
    crabs = load_crabs("species")
    est = DualSVC(C=1.0, kernel="rbf")
    serial = cross_val_score(est, crabs.X, crabs.y, cv=5)
    with distributed.get_task_stream(client) as stream, joblib.parallel_config(backend="dask"):
        on_dask = cross_val_score(est, crabs.X, crabs.y, cv=5, n_jobs=-1)
    assert len(stream.data) > 0
    np.testing.assert_array_equal(on_dask, serial)
