"""Headless tests of the Part I widgets (:ref:`Chapter 1 <ch-margin>` to :ref:`Chapter 4 <ch-kernels>`): set controls, assert on the state.

Each compute function is also checked against something independent (libsvm, exact values).
"""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from sklearn.svm import SVC  # noqa: E402

from svmlib.widgets import kernel_choice, maximum_margin, smo, soft_margin  # noqa: E402


# -- :ref:`Chapter 1 <ch-margin>` -------------------------------------------------------------------
def test_margin_explorer_reacts_and_matches_solution():
    ex = maximum_margin.margin_explorer()
    sol = ex.state["solution"]
    n0 = ex.n_updates
    angle, offset = sol.angle_offset()
    ex.controls["angle"].value = round(angle)
    ex.controls["offset"].value = 0.5
    assert ex.n_updates == n0 + 2
    assert ex.state["angle"] == round(angle)
    # The reader's line can never beat the maximum margin.
    assert ex.state["margin"] <= sol.margin + 1e-12
    # Flipping the normal puts every point on the wrong side.
    ex.controls["angle"].value = (round(angle) + 180) % 360
    assert ex.state["margin"] < 0 and ex.state["misclassified"].size == len(ex.state["y"])


def test_margin_model_at_the_optimum_and_profile():
    model = maximum_margin.MarginModel()
    angle, offset = model.solution.angle_offset()
    state = model.compute(angle, offset)
    # the maximum-margin line, written as (angle, offset), has margin 1/||w|| (solver tol ~1e-6)
    assert state["margin"] == pytest.approx(model.solution.margin, rel=1e-5)
    assert state["misclassified"].size == 0
    # best-offset mode (offset=None): the margin equals the profile's value at that angle
    k = 40
    assert model.compute(model.profile_angles[k])["margin"] == pytest.approx(model.profile_margins[k])
    # the profile's maximum (0.5 degree grid) is within 1e-3 of the dual's margin, and never above it
    assert model.profile_margins.max() <= model.solution.margin + 1e-9
    assert model.profile_margins.max() == pytest.approx(model.solution.margin, rel=1e-3)


# -- :ref:`Chapter 2 <ch-soft-margin>` -------------------------------------------------------------------
def test_soft_margin_model_start_and_convergence():
    model = soft_margin.SoftMarginModel()
    X, y = model.X, model.y
    start = model.compute(C=1.0, epochs=0)
    # w = 0, b = 0: every hinge is 1, so J = C n exactly (eq. :eq:`(2.3) <primal-objective>`)
    assert start["objectives"][0] == pytest.approx(1.0 * len(y))
    end = model.compute(C=1.0, step="pegasos", epochs=soft_margin.MAX_EPOCHS)
    # the reference is libsvm's optimum, computed independently; Pegasos after 150 full-batch
    # epochs is within 0.5% of it (measured 0.02%); never below it (J* is the minimum).
    assert end["J_ref"] <= end["objectives"].min() + 1e-6
    assert end["objectives"].min() == pytest.approx(end["J_ref"], rel=5e-3)
    assert end["objectives"].size == soft_margin.MAX_EPOCHS + 1
    with pytest.raises(ValueError, match="batch"):
        model.compute(batch="half")


@pytest.mark.parametrize("step", ["pegasos", "invsqrt", "constant"])
@pytest.mark.parametrize("batch", list(soft_margin.BATCHES))
def test_soft_margin_cached_trace_equals_a_fresh_run(step, batch):
    # The widget indexes one cached primal_trace per setting; an independent run of
    # PrimalSVC.iter_fit stopped after k epochs must give the same iterate, bit for bit
    # (same seed, same arithmetic).
    import itertools

    from svmlib.primal import PrimalSVC

    model = soft_margin.SoftMarginModel()
    for C, k in [(0.1, 7), (10.0, 40)]:
        state = model.compute(C=C, step=step, batch=batch, epochs=k)
        est = PrimalSVC(C=C, step=step, eta0=model.eta0, batch_size=soft_margin.BATCHES[batch],
                        random_state=model.random_state)
        run = list(itertools.islice(est.iter_fit(model.X, model.y), k + 1))
        np.testing.assert_array_equal(state["objectives"], [it.objective for it in run])
        np.testing.assert_array_equal(state["w"], run[-1].coef)
        assert state["b"] == run[-1].intercept


def test_soft_margin_explorer_controls():
    ex = soft_margin.soft_margin_explorer()
    ex.controls["epochs"].value = 20
    assert ex.state["objectives"].size == 21
    full = ex.state["objectives"].copy()
    ex.controls["batch"].value = "mini-batch of 6"
    assert not np.allclose(ex.state["objectives"][1:], full[1:])
    ex.controls["step"].value = "constant"
    assert ex.state["step"] == "constant"
    ex.controls["C"].value = 10.0
    assert ex.state["C"] == pytest.approx(10.0)
    assert ex.n_updates == 5


# -- :ref:`Chapter 3 <ch-duality>` -------------------------------------------------------------------
def test_smo_states_are_feasible_and_end_at_libsvm_optimum():
    model = smo.SMOModel()
    y = model.y
    for C in smo.C_VALUES:
        states = model.run(C)
        assert np.all(states[0].alpha == 0) and states[0].objective == 0.0
        W = [s.objective for s in states]
        # SMO increases the dual objective at every step (exact line search on a concave function)
        assert np.all(np.diff(W) > -1e-12)
        for s in states:
            assert np.all(s.alpha >= 0) and np.all(s.alpha <= C * (1 + 1e-12))
            assert abs(s.alpha @ y) < 1e-10  # the equality constraint of (3.6): pair steps keep sum y alpha = 0
        # libsvm's dual objective at its own optimum (tol 1e-10): agreement to SMO's tol-level accuracy
        ref = SVC(kernel="linear", C=C, tol=1e-10).fit(model.X, y)
        a = np.zeros(len(y))
        a[ref.support_] = np.abs(ref.dual_coef_[0])
        W_ref = a.sum() - 0.5 * (a * y) @ model.K @ (a * y)
        assert W[-1] == pytest.approx(W_ref, rel=1e-3)


def test_smo_explorer_step_and_clipping():
    ex = smo.smo_explorer()
    assert ex.state["iteration"] == 0 and ex.state["pair"] is None
    ex.controls["step"].value = 3
    assert ex.state["iteration"] == 3 and len(ex.state["pair"]) == 2
    ex.controls["C"].value = 0.1
    n = smo.SMOModel().n_steps(0.1)
    ex.controls["step"].value = ex.controls["step"].max
    assert ex.state["iteration"] == n  # past the last step shows the solution
    assert ex.state["violation"] <= 1e-3


# -- :ref:`Chapter 4 <ch-kernels>` -------------------------------------------------------------------
def test_kernel_model_matches_libsvm_rbf():
    model = kernel_choice.KernelModel()
    state = model.compute("rbf", 3, 0.5, 1.0)
    ref = SVC(kernel="rbf", gamma=1 / (2 * 0.5**2), C=1.0, tol=1e-6).fit(model.X, model.y)
    f_ref = ref.decision_function(model.grid).reshape(model.grid_x.shape)
    # both stop at KKT tolerance ~1e-3: decision values agree to ~1e-2 absolute (|f| ~ 1)
    np.testing.assert_allclose(state["grid_f"], f_ref, atol=2e-2)
    assert state["test_accuracy"] > 0.9  # measured 0.94 on 400 test points


def test_kernel_explorer_controls():
    ex = kernel_choice.kernel_explorer()
    rbf_acc = ex.state["test_accuracy"]
    ex.controls["kernel"].value = "linear"
    assert ex.state["label"].startswith("linear")
    assert ex.state["test_accuracy"] < rbf_acc  # moons are not linearly separable
    ex.controls["kernel"].value = "poly"
    ex.controls["p"].value = 2
    assert "^2" in ex.state["label"]
    ex.controls["kernel"].value = "rbf"
    ex.controls["l"].value = 0.1
    n_sv_small_l = ex.state["support"].size
    ex.controls["l"].value = 1.0
    assert ex.state["support"].size != n_sv_small_l
    with pytest.raises(ValueError, match="kernel must be one of"):
        kernel_choice.make_chapter_kernel("sigmoid")


@pytest.mark.parametrize("module", [maximum_margin, soft_margin, smo, kernel_choice])
def test_latency_cases_drive_their_controls(module):
    for factory, name, values in module.LATENCY_CASES:
        ex = factory()
        before = ex.n_updates
        for v in values:
            ex.controls[name].value = v
        assert ex.n_updates == before + len(values)
        assert ex.last_seconds is not None


def test_kkt_violation_from_definition_matches_solver():
    model = smo.SMOModel()
    states = model.run(1.0)
    mine = model.violations(1.0)
    # each state reports the KKT violation at its own alpha, as ours computes it from alpha
    np.testing.assert_allclose(mine, [s.violation for s in states], rtol=1e-9, atol=1e-12)
    assert mine[-1] < model.tol <= mine[-2]


# -- speed helpers (latency is measured in benchmarks/widget_latency.py, not here) ----------
def _count_figure_draws(monkeypatch):
    from matplotlib.figure import Figure

    calls = []
    original = Figure.draw

    def counting_draw(self, renderer):
        calls.append(1)
        return original(self, renderer)

    monkeypatch.setattr(Figure, "draw", counting_draw)
    return calls


@pytest.mark.parametrize("book_style", [False, True])
@pytest.mark.parametrize("factory", [maximum_margin.margin_explorer, soft_margin.soft_margin_explorer,
                                     smo.smo_explorer, kernel_choice.kernel_explorer])
def test_an_event_renders_the_figure_once(factory, book_style, monkeypatch):
    # The Explorer leaves a placeholder layout engine after its first render, which makes
    # savefig run a second full draw; one_render_pass removes it. Count the real draws.
    # book.mplstyle sets figure.constrained_layout.use, under which set_layout_engine(None)
    # would switch constrained layout back on: the readers' notebooks run with that style.
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    with matplotlib.rc_context({"figure.constrained_layout.use": book_style}):
        ex = factory()
        calls = _count_figure_draws(monkeypatch)
        layouts = []
        original_execute = ConstrainedLayoutEngine.execute
        monkeypatch.setattr(ConstrainedLayoutEngine, "execute",
                            lambda self, fig: layouts.append(1) or original_execute(self, fig))
        name, control = next(iter(ex.controls.items()))
        options = getattr(control, "options", None)
        values = [options[-1], options[0], options[-1]] if options else [control.max, control.min, control.max]
        for value in values:  # several events: savefig may put an engine back after each one
            control.value = value
    assert ex.n_updates == 4 and len(calls) == 3
    assert not layouts  # constrained layout ran for the first render only
    # the axes stay where the first (constrained) layout put them
    assert len(ex.fig.axes) == len(ex._positions)
    for ax, pos in zip(ex.fig.axes, ex._positions):
        np.testing.assert_allclose(ax.get_position().bounds, pos.bounds)


def test_fixed_ticks_are_few_nice_and_inside_the_limits():
    from matplotlib.figure import Figure

    from svmlib.plotting._style import fixed_ticks

    ax = Figure().subplots()
    for lims in [(-4.62, 3.58), (0.0, 1.12), (0, 24), (-1.0, 361.0), (1e-3, 2.4e-3)]:
        fixed_ticks(ax, xlim=lims, nbins=4)
        ticks = ax.get_xticks()
        assert ax.get_xlim() == lims
        assert 2 <= ticks.size <= 5 and ticks.min() >= lims[0] and ticks.max() <= lims[1]
        step = np.diff(ticks)
        np.testing.assert_allclose(step, step[0])
        mantissa = step[0] / 10 ** np.floor(np.log10(step[0]))  # AutoLocator's steps, never 3, 4, 6, 8
        assert min(abs(mantissa - m) for m in (1, 2, 2.5, 5)) < 1e-9
    fixed_ticks(ax, xlim=(0, 24), nbins=4)  # not 0, 8, 16, 24 (MaxNLocator's default steps)
    np.testing.assert_allclose(ax.get_xticks(), [0, 10, 20])
    fixed_ticks(ax, xlim=(-1.6, 2.6))  # default nbins=5: unit steps on a data panel
    np.testing.assert_allclose(ax.get_xticks(), [-1, 0, 1, 2])
