"""The Explorer's kernel-free static form (stored notebooks, the web page) and its fallbacks."""

import io

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PIL import Image as PILImage  # noqa: E402

from svmlib.widgets import Explorer, StaticExplorer, dropdown, slider  # noqa: E402
from svmlib.widgets._base import animated_png  # noqa: E402

VIEW = "application/vnd.jupyter.widget-view+json"


def _compute(a, kind="power"):
    x = np.linspace(0, 1, 21)
    return {"x": x, "y": x**a if kind == "power" else np.exp(-a * x), "a": a, "kind": kind}


def _draw(fig, state):
    ax = fig.add_subplot()
    ax.plot(state["x"], state["y"])
    ax.set_title(f"{state['kind']} a = {state['a']}")


def _explorer(**kw):
    return Explorer(_compute, _draw, {"a": slider(1.0, 0.5, 3.0, 0.5, "a"),
                                      "kind": dropdown([("x^a", "power"), ("exp(-a x)", "exp")], "power", "kind")},
                    figsize=(3, 2), **kw)


def _frames(png):
    image = PILImage.open(io.BytesIO(png))
    return getattr(image, "n_frames", 1), image


def test_static_form_one_frame_per_grid_value_linked_to_a_slider():
    explorer = _explorer(grid={"a": [0.5, 1.0, 2.0]})
    static = explorer.static()
    assert isinstance(static, StaticExplorer) and len(static.frames) == 3
    assert len(set(static.frames.values())) == 3  # three different figures
    (index_slider,) = static.sliders
    assert index_slider.options == ("0.5", "1", "2") and index_slider.index == 1  # starts at the live value
    assert static.stack.selected_index == 1 and len(static.stack.children) == 3
    (link,) = static._links
    assert link.source == (index_slider, "index") and link.target == (static.stack, "selected_index")
    # the stack's images are the frames, in grid order
    assert [c.value for c in static.stack.children] == [static.frames[(i,)] for i in range(3)]
    # the note names the control that is fixed (its dropdown label, not the value)
    note = static.widget.children[-1].value
    assert "kind = x^a" in note and "Run this notebook" in note


def test_static_frame_equals_the_live_figure_for_the_same_values():
    live = _explorer(grid={"a": [1.0, 2.0]})
    static = live.static()
    live.controls["a"].value = 2.0
    # same compute and draw: the same picture (palette quantisation aside)
    a = np.asarray(PILImage.open(io.BytesIO(static.frames[(1,)])).convert("RGB"), dtype=float)
    b = np.asarray(PILImage.open(io.BytesIO(live.image.value)).convert("RGB"), dtype=float)
    assert a.shape == b.shape
    assert np.mean(np.abs(a - b)) < 2.0  # quantised to 128 colours: mean error of a few grey levels


def test_two_parameter_grid_links_every_inner_stack():
    explorer = _explorer(grid={"a": [1.0, 2.0, 3.0], "kind": ["power", "exp"]})
    static = explorer.static()
    assert len(static.frames) == 6 and static.start == (0, 0)
    assert len(static.stack.children) == 3 and all(len(s.children) == 2 for s in static.stack.children)
    assert len(static._links) == 1 + 3
    assert static.sliders[1].options == ("x^a", "exp(-a x)")


def test_bundle_under_the_book_build_is_the_static_form_with_an_animated_fallback(monkeypatch):
    explorer = _explorer(grid={"a": [0.5, 1.0, 2.0, 3.0]})
    monkeypatch.setenv("SVMLIB_BOOK_BUILD", "1")
    bundle = explorer._repr_mimebundle_()
    assert set(bundle) == {VIEW, "image/png", "text/plain"}
    assert "VBox" not in bundle["text/plain"]
    n, image = _frames(bundle["image/png"])
    assert n == 5 and image.info.get("default_image")  # a still default + 4 frames that loop
    assert image.info.get("loop") == 0
    # deterministic: the stored notebook does not change on a re-run
    assert explorer._repr_mimebundle_()["image/png"] == bundle["image/png"]
    monkeypatch.setenv("SVMLIB_BOOK_BUILD", "0")
    live = explorer._repr_mimebundle_()
    assert live[VIEW]["model_id"] == explorer.widget.model_id and _frames(live["image/png"])[0] == 1


def test_without_a_grid_the_book_build_shows_the_live_form(monkeypatch):
    monkeypatch.setenv("SVMLIB_BOOK_BUILD", "1")
    explorer = _explorer()
    assert explorer._repr_mimebundle_()[VIEW]["model_id"] == explorer.widget.model_id
    with pytest.raises(ValueError, match="no static grid"):
        explorer.static()


def test_grid_rejects_bad_input():
    explorer = _explorer()
    with pytest.raises(ValueError, match="not a control"):
        explorer.grid(b=[1.0])
    with pytest.raises(ValueError, match="one or two controls"):
        explorer.grid()
    with pytest.raises(ValueError, match="at least one value"):
        explorer.grid(a=[])


def test_animated_png_rejects_frames_of_different_sizes():
    one = _explorer(grid={"a": [1.0]}).static().frames[(0,)]
    other = Explorer(_compute, _draw, {"a": slider(1.0, 0.5, 3.0, 0.5, "a")}, figsize=(4, 2)).grid(a=[1.0]).static()
    with pytest.raises(ValueError, match="same size"):
        animated_png([one, other.frames[(0,)]])
    with pytest.raises(ValueError, match="at least one frame"):
        animated_png([])
    assert _frames(animated_png([one]))[0] == 1


def test_live_image_is_made_only_when_shown():
    explorer = _explorer(grid={"a": [1.0]})
    assert explorer._image is None  # the book build never shows it: not in the stored widget state
    explorer.controls["a"].value = 2.0
    assert explorer._image is None and explorer._png[:4] == b"\x89PNG"
    assert explorer.image.value == explorer._png


def test_static_form_hides_the_disconnected_icon_only_inside_the_explorer():
    # JupyterLab marks widgets restored without a kernel "disconnected" (a red chain icon); the static form
    # needs no kernel, so its note carries a style that hides the icon -- scoped to the explorer's own box.
    static = _explorer(grid={"a": [0.5, 1.0]}).static()
    note = static.widget.children[-1].value
    style = note[note.index("<style>"):note.index("</style>")]
    assert "jupyter-widgets-disconnected::before" in style and "display:none" in style
    rules = style.removeprefix("<style>").split("{")[0].split(",")
    assert rules and all(r.strip().startswith(".svmlib-static-explorer") for r in rules)
    assert "svmlib-static-explorer" in static.widget._dom_classes
