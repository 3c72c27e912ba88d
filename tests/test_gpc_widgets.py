""":ref:`Chapter 8 <ch-mean-field-gpc>` widgets (driven headless) and auto-checked exercises."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

from svmlib.exercises.gpc import check_error_bar, check_single_alpha, check_two_point_evidence  # noqa: E402
from svmlib.gpc import log_evidence_exact  # noqa: E402
from svmlib.widgets import gpc as wgpc  # noqa: E402


def test_means_explorer_follows_the_noise_slider():
    explorer = wgpc.means_explorer(noise_var=1.0)
    assert explorer.state["noise_var"] == 1.0
    explorer.controls["noise_var"].value = 0.01
    state = explorer.state
    assert state["noise_var"] == 0.01 and set(state["means"]) == {"naive", "ensemble", "ep", "online"}
    # At sigma^2 = 0.01 the naive means overshoot and the ensemble ones undershoot MCMC; EP is closest.
    assert state["slope"]["naive"] > 1.1 and state["slope"]["ensemble"] < 0.9
    assert state["rel_error"]["ep"] == min(state["rel_error"].values())
    assert explorer.n_updates == 2
    assert callable(wgpc.LATENCY_CASES[0][0])


def test_online_explorer_steps_through_the_sweep():
    demo = wgpc.OnlineDemo()
    explorer = wgpc.online_explorer(t=0, demo=demo)
    assert explorer.state["seen"].sum() == 0 and explorer.state["current"] is None
    explorer.controls["t"].value = 25
    state = explorer.state
    assert state["seen"].sum() == 25 and state["seen"][state["current"]]
    explorer.controls["t"].value = demo.n_total
    assert explorer.state["seen"].all()
    # Reuse (second sweep) does not raise the training error of the single sweep.
    assert demo.run.train_errors[-1] <= demo.run.train_errors[len(demo.y) - 1]


def test_two_point_evidence_checker():
    assert check_two_point_evidence(1 / 6)
    assert check_two_point_evidence(np.exp(log_evidence_exact(np.array([[1, 0.5], [0.5, 1.0]]), np.array([1., -1]))))
    wrong = check_two_point_evidence(1 / 3)
    assert not wrong and "equal labels" in wrong.message
    assert not check_two_point_evidence("a sixth")


def test_single_alpha_and_error_bar_checkers():
    assert check_single_alpha(np.sqrt(2 / (np.pi * 1.5)))
    assert "noise" in check_single_alpha(np.sqrt(2 / np.pi)).message
    assert check_error_bar(np.sqrt(63 * 269 / 332))
    assert not check_error_bar(np.sqrt(63 / 332 * 269 / 332 / 332))


def test_online_event_renders_the_figure_once(monkeypatch):
    # fixed_layout drops the layout engine altogether: with any engine (even matplotlib's
    # placeholder) savefig runs a second full draw per event. Under the book's style
    # (figure.constrained_layout.use) too, which the readers' notebooks use.
    from matplotlib.figure import Figure

    with matplotlib.rc_context({"figure.constrained_layout.use": True}):
        explorer = wgpc.online_explorer()
        calls, original = [], Figure.draw
        monkeypatch.setattr(Figure, "draw", lambda self, renderer: calls.append(1) or original(self, renderer))
        for t in (60, 5, 60):  # several events: savefig may put an engine back after each one
            explorer.controls["t"].value = t
    assert len(calls) == 3 and explorer.state["t"] == 60
