"""The SVR explorer of the chapter "SVMs in practice", driven headless."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from sklearn.svm import SVR  # noqa: E402

from svmlib.widgets import svr as w  # noqa: E402


def test_state_is_the_svr_fit_and_the_tube_is_respected():
    s = w.fit_svr_state(kernel="rbf", l=0.5, C=10.0, epsilon=0.1)
    X, y = s["X"], s["y"]
    f_train = np.interp(X[:, 0], s["grid"], s["f_grid"])  # grid step 0.025: interpolation error < 1e-3
    resid = np.abs(y - f_train)
    # points strictly inside the tube are not support vectors; points outside it are
    assert not np.any(s["is_support"] & (resid < 0.1 - 5e-3))
    assert np.all(s["is_support"][resid > 0.1 + 5e-3])
    # the same fit as libsvm (gamma = 1 / (2 l^2)): predictions agree to the solvers' tolerance
    sk = SVR(C=10.0, epsilon=0.1, gamma=2.0, tol=1e-3).fit(X, y)
    assert np.max(np.abs(sk.predict(s["grid"][:, None]) - s["f_grid"])) < 1e-2
    assert s["n_support"] == s["n_bound"] + s["n_outside"] < len(y)


def test_sliders_move_the_state():
    explorer = w.svr_explorer()
    n0 = explorer.state["n_support"]
    explorer.controls["epsilon"].value = 0.3
    assert explorer.state["epsilon"] == 0.3 and explorer.state["n_support"] < n0  # a wider tube: fewer SVs
    explorer.controls["epsilon"].value = 0.0
    assert explorer.state["n_support"] == len(explorer.state["y"])  # epsilon = 0: every point is an SV
    explorer.controls["C"].value = 0.1
    assert explorer.state["C"] == 0.1
    explorer.controls["kernel"].value = "poly"
    assert explorer.state["kernel"] == "poly" and np.all(np.isfinite(explorer.state["f_grid"]))
    explorer.controls["kernel"].value = "linear"
    f = explorer.state["f_grid"]
    assert np.allclose(np.diff(f, 2), 0.0, atol=1e-9)  # a straight line
    assert explorer.n_updates == 6


def test_bad_kernel_is_refused():
    with pytest.raises(ValueError, match="kernel must be one of"):
        w.fit_svr_state(kernel="sigmoid")


def test_static_form_renders_deterministically():
    a = w.svr_explorer().grid(epsilon=[0.05, 0.3]).static()
    b = w.svr_explorer().grid(epsilon=[0.05, 0.3]).static()
    assert a.frames == b.frames and len(a.frames) == 2


def test_latency_cases_name_real_controls():
    for factory, control, values in w.LATENCY_CASES:
        assert control in factory().controls and len(values) >= 2
