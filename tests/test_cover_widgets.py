"""The static forms of the explorers of :ref:`Chapter 1 <ch-margin>` to :ref:`Chapter 4 <ch-kernels>`, :ref:`Chapter 8 <ch-mean-field-gpc>` and
:ref:`Chapter 10 <ch-lssvr>`, and the Explorer's re-layout, driven headless.

A static form must hold exactly one frame per grid point (the reader moves through them on the web
page) and be byte-identical on a re-run (stored notebooks must not change). Small data keep it quick.
"""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from svmlib.widgets import Explorer, dropdown  # noqa: E402
from svmlib.widgets import gpc as wgpc  # noqa: E402
from svmlib.widgets import kernel_choice as wk  # noqa: E402
from svmlib.widgets import lssvr as wls  # noqa: E402
from svmlib.widgets import maximum_margin as wmm  # noqa: E402
from svmlib.widgets import smo as wsmo  # noqa: E402
from svmlib.widgets import soft_margin as wsm  # noqa: E402

# Six separable points: SMO needs only a few steps, so the static form over the steps stays short.
_X6 = np.array([[0.0, 0.0], [1.0, 0.5], [0.5, -1.0], [3.0, 2.5], [4.0, 1.5], [3.5, 3.5]])
_Y6 = np.array([-1.0, -1.0, -1.0, 1.0, 1.0, 1.0])


def _panels(fig, state):
    axes = fig.subplots(1, state["n"], squeeze=False)[0]
    for ax in axes:
        ax.plot([0, 1], [0, state["n"]])


def test_explorer_lays_out_afresh_when_the_panel_count_changes():
    explorer = Explorer(lambda n: {"n": n}, _panels, {"n": dropdown([1, 2], 1, "panels")})
    one_panel = explorer._positions
    assert len(one_panel) == 1
    explorer.controls["n"].value = 2
    # the remembered single-panel layout cannot fit two panels: constrained layout ran again
    assert len(explorer.fig.axes) == 2 and len(explorer._positions) == 2
    left, right = explorer._positions
    assert left.x1 <= right.x0  # side by side, not stacked on the old position
    explorer.controls["n"].value = 2  # no change: no event
    assert explorer.n_updates == 2


def test_explorer_display_bundle_has_a_figure_fallback(monkeypatch):
    monkeypatch.delenv("SVMLIB_BOOK_BUILD", raising=False)
    explorer = Explorer(lambda n: {"n": n}, _panels, {"n": dropdown([1, 2], 1, "panels")})
    bundle = explorer._repr_mimebundle_()
    # live form: the widget view, and for untrusted notebooks the current figure, never a VBox(...) repr
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == explorer.widget.model_id
    assert bundle["image/png"][:8] == b"\x89PNG\r\n\x1a\n" and bundle["image/png"] == explorer.image.value
    assert "VBox" not in bundle["text/plain"]


def test_margin_static_form_one_frame_per_angle_and_offset():
    static = wmm.margin_explorer(X=_X6, y=_Y6).grid(angle=[0.0, 45.0, 90.0], offset=[0.0, 1.0]).static()
    assert len(static.frames) == 6 and len(set(static.frames.values())) == 6
    again = wmm.margin_explorer(X=_X6, y=_Y6).grid(angle=[0.0, 45.0, 90.0], offset=[0.0, 1.0]).static()
    assert again.frames == static.frames  # byte-identical on a re-run


def test_smo_static_form_one_frame_per_step():
    model = wsmo.SMOModel(_X6, _Y6)
    n_steps = model.n_steps(1.0)
    assert 1 <= n_steps <= 10
    static = wsmo.smo_explorer(_X6, _Y6).static()  # default grid: every step at C = 1
    assert len(static.frames) == n_steps + 1  # the start and every step
    assert "C = 1.0" in static.widget.children[-1].value  # the note names the fixed control


def test_soft_margin_static_form_and_bad_batch():
    static = wsm.soft_margin_explorer().grid(epochs=(0, 3)).static()
    assert len(static.frames) == 2
    with pytest.raises(ValueError, match="batch must be one of"):
        wsm.SoftMarginModel().compute(batch="half batch")
    with pytest.raises(ValueError, match=r"epochs must lie in \[0, "):
        wsm.SoftMarginModel().compute(epochs=wsm.MAX_EPOCHS + 1)


def test_kernel_static_form_one_frame_per_length_scale():
    static = wk.kernel_explorer().grid(l=(0.3, 1.0)).static()
    assert len(static.frames) == 2


def test_sinc_static_form_one_frame_per_c_with_captions():
    static = wls.sinc_explorer(n=40).grid(c=(0.5, 2.0)).static()
    assert len(static.frames) == 2 and all(static.captions.values())  # the explorer's caption under each frame


def test_every_default_grid_lies_on_its_controls():
    """Every factory's static grid uses values its live controls can take (the live view starts there)."""
    for factory in (wmm.margin_explorer, wsm.soft_margin_explorer, wsmo.smo_explorer, wk.kernel_explorer,
                    wls.epsilon_explorer, wls.sinc_explorer, wgpc.means_explorer):
        explorer = factory()
        assert explorer._grid, factory.__name__
        for name, values in explorer._grid.items():
            control = explorer.controls[name]
            if hasattr(control, "_options_values"):
                assert set(values) <= set(control._options_values), (factory.__name__, name)
            else:
                low, high = control.min, control.max
                if control.__class__.__name__ == "FloatLogSlider":
                    low, high = 10.0**low, 10.0**high
                assert all(low - 1e-9 <= v <= high + 1e-9 for v in values), (factory.__name__, name, values)


def test_online_static_form_on_a_small_demo():
    demo = wgpc.OnlineDemo(n_train=12, n_test=30, n_sweeps=1)
    assert demo.n_total == 12
    explorer = wgpc.online_explorer(t=1, demo=demo)
    assert explorer._grid["t"] == [0, 1, 5, 10]  # the default grid, cut at the demo's length
    assert len(explorer.grid(t=(1, 6, 12)).static().frames) == 3
    last = demo.state(12)
    assert last["seen"].all() and last["current"] == demo.order[-1]
    # the mean after all 12 examples is the sweep's final posterior mean on the grid
    basis, alpha = demo.run.snapshots[12]
    np.testing.assert_allclose(last["f_grid"].ravel(), demo.K_grid[:, basis] @ alpha)
