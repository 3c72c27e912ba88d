"""The static-page scrubbers of chapters 1-4, 7 and 9, and the Explorer's re-layout, driven headless.

A scrubber must hold exactly one frame per value (the reader scrubs through them offline) and
be byte-identical on a re-run (stored notebooks must not change). Small data keep it quick.
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

_FRAME = "data:image/png;base64"

# Six separable points: SMO needs only a few steps, so the step scrubber stays short.
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


def test_margin_scrubber_one_frame_per_angle():
    html = wmm.margin_scrubber(angles=[0.0, 45.0, 90.0], X=_X6, y=_Y6).data
    assert html.count(_FRAME) == 3
    assert html == wmm.margin_scrubber(angles=[0.0, 45.0, 90.0], X=_X6, y=_Y6).data


def test_smo_scrubber_one_frame_per_step():
    model = wsmo.SMOModel(_X6, _Y6)
    n_steps = model.n_steps(1.0)
    assert 1 <= n_steps <= 10
    html = wsmo.smo_scrubber(C=1.0, X=_X6, y=_Y6).data
    assert html.count(_FRAME) == n_steps + 1  # the start and every step


def test_soft_margin_scrubber_and_bad_batch():
    html = wsm.soft_margin_scrubber(epochs=(0, 3)).data
    assert html.count(_FRAME) == 2
    with pytest.raises(ValueError, match="batch must be one of"):
        wsm.SoftMarginModel().compute(batch="half batch")
    with pytest.raises(ValueError, match=r"epochs must lie in \[0, "):
        wsm.SoftMarginModel().compute(epochs=wsm.MAX_EPOCHS + 1)


def test_kernel_scrubber_one_frame_per_length_scale():
    html = wk.kernel_scrubber(values=(0.3, 1.0)).data
    assert html.count(_FRAME) == 2


def test_sinc_scrubber_one_frame_per_c():
    html = wls.sinc_scrubber(values=(0.5, 2.0), n=40).data
    assert html.count(_FRAME) == 2


def test_online_scrubber_on_a_small_demo():
    demo = wgpc.OnlineDemo(n_train=12, n_test=30, n_sweeps=1)
    assert demo.n_total == 12
    html = wgpc.online_scrubber(values=(1, 6, 12), demo=demo).data
    assert html.count(_FRAME) == 3
    last = demo.state(12)
    assert last["seen"].all() and last["current"] == demo.order[-1]
    # the mean after all 12 examples is the sweep's final posterior mean on the grid
    basis, alpha = demo.run.snapshots[12]
    np.testing.assert_allclose(last["f_grid"].ravel(), demo.K_grid[:, basis] @ alpha)
