""":ref:`Chapter 10 <ch-lssvr>` widgets (driven headless) and auto-checked exercises."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

from svmlib.exercises import lssvr as ex  # noqa: E402
from svmlib.lssvr import BayesianLSSVR, kkt_matrix, make_sinc, prior_precision, rbf_from_c  # noqa: E402
from svmlib.widgets import lssvr as w  # noqa: E402


def test_epsilon_explorer_moves_the_map_towards_the_lssvr():
    explorer = w.epsilon_explorer(eps=100.0)
    far = explorer.state["gap"]
    explorer.controls["eps"].value = 1e-6
    near = explorer.state
    assert near["eps"] == 1e-6 and near["gap"] < 1e-6 * far * 10
    assert np.max(np.abs(near["map_pred"] - near["ls_pred"])) < 1e-5
    assert explorer.n_updates == 2


def test_sinc_explorer_bands():
    explorer = w.sinc_explorer()
    state = explorer.state
    assert len(state["X"]) == w.N_WIDGET
    explorer.controls["c"].value = 2.0
    assert explorer.state["c"] == 2.0
    # Far from the data: eq. 16 -> 0, full -> bias sd, GP -> prior sd 1 (at the grid's end, x = 3 pi).
    s = explorer.state
    assert s["std_eq16"][-1] < 1e-3 and abs(s["std_full"][-1] - s["bias_sd"]) < 1e-3 and s["gp_std"][-1] > 0.99
    explorer.controls["gamma"].value = 10.0
    assert explorer.state["gamma"] == 10.0


def test_static_forms_render_deterministically():
    a = w.epsilon_explorer().grid(eps=[1.0, 1e-4]).static()
    b = w.epsilon_explorer().grid(eps=[1.0, 1e-4]).static()
    assert a.frames == b.frames and len(a.frames) == 2  # stored notebooks do not change on a re-run
    assert a.frames[(0,)] != a.frames[(1,)]
    default = w.epsilon_explorer()  # the default grid: eps = 1e3 ... 1e-8, every slider position in range
    low, high = default.controls["eps"].min, default.controls["eps"].max
    assert all(10.0**low <= v <= 10.0**high for v in default._grid["eps"]) and len(default._grid["eps"]) == 12


def test_latency_cases_are_valid():
    for factory, control, values in w.LATENCY_CASES:
        assert control in factory().controls and len(values) >= 3


def test_exercise_lssvr_parameters():
    K = rbf_from_c(1.0)(ex.TINY_X)
    theta = np.linalg.solve(kkt_matrix(K, ex.TINY_GAMMA), np.r_[0.0, ex.TINY_Y])  # independent dense solve
    assert ex.check_lssvr_parameters(theta[0], theta[1:])
    wrong = ex.check_lssvr_parameters(0.0, np.linalg.solve(K + np.eye(3) / ex.TINY_GAMMA, ex.TINY_Y))
    assert not wrong and "kernel ridge" in wrong.message
    assert not ex.check_lssvr_parameters(theta[0], theta[1:] + 0.1)
    assert not ex.check_lssvr_parameters("b", [1])


def test_exercise_far_field():
    X, y = make_sinc(300, random_state=1)
    m = BayesianLSSVR(gamma=1.0, eps=1e-4, kernel=rbf_from_c(1.0)).fit(X, y)
    _, sd = m.predict(np.array([[100.0]]), return_std=True)
    assert ex.check_far_field_variances(0.0, sd[0] ** 2, 1.0)
    bad = ex.check_far_field_variances(0.03, sd[0] ** 2, 0.0)
    assert not bad and "eq. 16" in bad.message and "GP" in bad.message


def test_exercise_prior_eigenvalue():
    X, _ = make_sinc(40, random_state=0)
    lam = np.linalg.eigvalsh(prior_precision(rbf_from_c(1.0)(X), 1.0, 1e-3))[0]
    assert lam < 0
    assert ex.check_prior_smallest_eigenvalue(lam)
    assert not ex.check_prior_smallest_eigenvalue(-lam)
    assert not ex.check_prior_smallest_eigenvalue(0.0)


def test_widget_events_render_the_figure_once(monkeypatch):
    # fixed_layout drops the layout engine altogether: with any engine (even matplotlib's
    # placeholder) savefig runs a second full draw per event.
    from matplotlib.figure import Figure

    with matplotlib.rc_context({"figure.constrained_layout.use": True}):  # as under book.mplstyle
        explorers = [(w.epsilon_explorer(), "eps", 10.0), (w.sinc_explorer(), "c", 2.0)]
        calls, original = [], Figure.draw
        monkeypatch.setattr(Figure, "draw", lambda self, renderer: calls.append(1) or original(self, renderer))
        for explorer, name, value in explorers:
            for v in (value, 1.0, value):  # several events: savefig may put an engine back after each
                explorer.controls[name].value = v
    assert len(calls) == 6


def test_sinc_explorer_draws_the_gp_with_a_flat_bias_prior():
    # the flat-bias GP's mean is the LS-SVR's prediction (Section "Kernel ridge regression, Gaussian processes
    # and the bias"), computed here by svmlib's LSSVR, an independent route; far from the data its variance
    # is the prior's 1 plus the bias's posterior variance 1 / (1' A^-1 1)
    import numpy as np

    from svmlib.lssvr import LSSVR, rbf_from_c
    from svmlib.widgets.lssvr import _sinc_compute

    s = _sinc_compute(1.0, 10.0)
    ls = LSSVR(gamma=10.0, kernel=rbf_from_c(1.0)).fit(s["X"][:, None], s["y"]).predict(s["x"][:, None])
    assert np.abs(s["gp_mean"] - ls).max() < 1e-9
    A = rbf_from_c(1.0)(s["X"][:, None]) + np.eye(len(s["X"])) / 10.0
    bias_var = 1.0 / np.linalg.solve(A, np.ones(len(s["X"]))).sum()
    assert abs(s["gp_std"][0] ** 2 - 1.0 - bias_var) < 1e-3 and s["labels"]["gp_std"].startswith("GP, flat")
