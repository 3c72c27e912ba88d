"""The Explorer machinery every chapter's widgets use, driven headless (static form: test_widgets_static.py)."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

from svmlib.widgets import Explorer, dropdown, slider  # noqa: E402


def _compute(a, kind="power"):
    x = np.linspace(0, 1, 21)
    return {"x": x, "y": x**a if kind == "power" else np.exp(-a * x), "a": a}


def _draw(fig, state):
    ax = fig.add_subplot()
    ax.plot(state["x"], state["y"])


def test_explorer_recomputes_when_a_slider_moves():
    explorer = Explorer(_compute, _draw, {"a": slider(1.0, 0.5, 3.0, 0.1, "a"),
                                          "kind": dropdown(["power", "exp"], "power", "kind")},
                        caption=lambda s: f"a = {s['a']:.1f}")
    assert explorer.n_updates == 1 and explorer.state["a"] == 1.0
    explorer.controls["a"].value = 2.0
    assert explorer.n_updates == 2
    assert np.isclose(explorer.state["y"][10], 0.25)
    assert explorer.label.value == "a = 2.0"
    explorer.controls["kind"].value = "exp"
    assert np.isclose(explorer.state["y"][10], np.exp(-1.0))
    assert len(explorer.fig.axes) == 1  # redrawn, not stacked
    assert explorer.last_seconds > 0
    assert explorer.widget.children[1] is explorer.image
    assert explorer.image.value[:8] == b"\x89PNG\r\n\x1a\n"  # the rendered figure


def test_slider_kinds():
    assert slider(3, 1, 10, 1, "n").__class__.__name__ == "IntSlider"
    log = slider(1.0, -2, 2, 0.1, "C", log=True)
    assert log.__class__.__name__ == "FloatLogSlider" and log.continuous_update is False
