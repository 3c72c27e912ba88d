"""How the book makes a figure interactive: one :class:`Explorer` per figure, two forms.

* Live (a reader running the notebook in Jupyter, Colab or Binder): controls ->
  ``compute(**values)`` -> *state* -> ``draw(fig, state)`` -> PNG in an ``Image`` widget.
  Tests drive it headless: set ``explorer.controls[name].value``, assert on ``explorer.state``.
* Static (the stored notebook and the built web page, no kernel): the figure precomputed
  for a grid of one or two parameters (:meth:`Explorer.grid`), shown as an
  ``ipywidgets.Stack`` of images whose ``selected_index`` is ``jslink``-ed to a slider;
  the widget JavaScript alone (the book's embed manager, or JupyterLab restoring the
  stored widget state) moves the figure. ``tools/run_notebooks.py`` sets
  ``SVMLIB_BOOK_BUILD=1``, and then displaying an explorer shows this form.

Both forms carry an ``image/png`` fallback in their display bundle: JupyterLab renders
widgets only in trusted notebooks and otherwise shows the next safe mimetype. The static
form's fallback is an animated PNG through the grid that plays with no JavaScript at all.

(The old static form, a matplotlib ``to_jshtml`` scrubber cell after the explorer, is gone: it
showed the figure twice, needed JavaScript of its own and its transport glyphs were empty boxes
with common Linux fonts.)
"""

from __future__ import annotations

import gc
import html as _html
import io
import itertools
import os
import time

import ipywidgets as widgets
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from tqdm.auto import tqdm

from ..plotting._style import drop_layout_engine

__all__ = ["Explorer", "StaticExplorer", "slider", "dropdown", "animated_png", "BOOK_BUILD_ENV", "book_build"]

#: Set to ``1`` by ``tools/run_notebooks.py``: displayed explorers take their static form.
BOOK_BUILD_ENV = "SVMLIB_BOOK_BUILD"
_VIEW = "application/vnd.jupyter.widget-view+json"
_LIVE_HINT = ("Static view: the figure was precomputed for the values on the slider{s}{fixed}. "
              "Run this notebook (Jupyter, Colab or Binder) to change every control live.")


def book_build():
    """True while ``tools/run_notebooks.py`` executes the book (``SVMLIB_BOOK_BUILD=1``)."""
    return os.environ.get(BOOK_BUILD_ENV, "") == "1"


def slider(value, min, max, step, description, *, log=False, readout_format=None):
    """A slider that updates on release (``continuous_update=False``): one event per move."""
    common = dict(description=description, continuous_update=False, style={"description_width": "initial"})
    if log:
        # FloatLogSlider takes exponents for min/max.
        return widgets.FloatLogSlider(value=value, base=10, min=min, max=max, step=step,
                                      readout_format=readout_format or ".3g", **common)
    if isinstance(value, int) and isinstance(step, int):
        return widgets.IntSlider(value=value, min=min, max=max, step=step, **common)
    return widgets.FloatSlider(value=value, min=min, max=max, step=step,
                               readout_format=readout_format or ".3g", **common)


def dropdown(options, value, description):
    """A dropdown of named options."""
    return widgets.Dropdown(options=options, value=value, description=description,
                            style={"description_width": "initial"})


def _label(value, control=None):
    """How a grid value reads on the static slider (a dropdown's own label if it has one)."""
    labels, values = getattr(control, "_options_labels", None), getattr(control, "_options_values", None)
    if labels is not None and values is not None:
        for label, option in zip(labels, values):
            if option == value and type(option) is type(value):
                return str(label)
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value)


def _png(fig, dpi, compress_level=6):
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, pil_kwargs={"compress_level": compress_level})
    return buffer.getvalue()


def _small_png(png, colors=128):
    """The PNG ``png`` with an adaptive palette (octree, no dither): ~3x smaller, same look.

    Static frames are stored base64 in the page; book figures have few distinct colours.
    """
    from PIL import Image as PILImage  # matplotlib depends on Pillow

    image = PILImage.open(io.BytesIO(png)).convert("RGB")
    image = image.quantize(colors=colors, method=PILImage.Quantize.FASTOCTREE, dither=PILImage.Dither.NONE)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def animated_png(frames, *, default=None, duration=800):
    """An animated PNG (APNG) of the PNG ``frames`` that loops forever, with no JavaScript.

    ``default`` (PNG bytes), if given, is the still image a viewer without APNG support
    (or a PDF) shows; APNG-aware viewers play ``frames`` only. All frames share one
    adaptive palette (~8 kB per frame). Deterministic bytes.
    """
    from PIL import Image as PILImage  # matplotlib depends on Pillow

    if not frames:
        raise ValueError("animated_png needs at least one frame")
    images = [PILImage.open(io.BytesIO(f)).convert("RGB") for f in ([default] if default else []) + list(frames)]
    width, height = images[0].size
    if any(im.size != (width, height) for im in images):
        raise ValueError("animated_png: every frame must have the same size")
    mosaic = PILImage.new("RGB", (width, height * len(images)))
    for k, im in enumerate(images):
        mosaic.paste(im, (0, height * k))
    palette = mosaic.quantize(colors=255, method=PILImage.Quantize.FASTOCTREE, dither=PILImage.Dither.NONE)
    images = [im.quantize(palette=palette, dither=PILImage.Dither.NONE) for im in images]
    buffer = io.BytesIO()
    if len(images) == 1:
        images[0].save(buffer, format="PNG", optimize=True)
    else:
        images[0].save(buffer, format="PNG", save_all=True, append_images=images[1:], duration=duration,
                       loop=0, default_image=default is not None, optimize=True)
    return buffer.getvalue()


class Explorer:
    """Sliders -> ``compute(**values)`` -> state -> ``draw(fig, state)``.

    Parameters
    ----------
    compute : callable
        Plain function of the control values (keyword arguments named like the
        controls) returning the state to draw. It lives in a math module and is
        unit-tested on its own.
    draw : callable
        ``draw(fig, state)``; clears and redraws ``fig``.
    controls : dict of str -> ipywidgets.ValueWidget
    figsize : tuple
    caption : callable, optional
        ``caption(state) -> str`` shown under the figure (e.g. a printed number).
    dpi : float
        Resolution of the live image (low: every event renders a PNG).
    grid : dict of str -> sequence, optional
        The static form's grid: one or two control names, each with the values
        precomputed for the stored notebook and the web page (see :meth:`grid`).

    Notes
    -----
    Display an explorer as the last expression of a cell (tag the cell
    ``nbval-ignore-output``). In a kernel the reader gets the live controls; under
    ``tools/run_notebooks.py`` (``SVMLIB_BOOK_BUILD=1``) the same cell stores the static
    form, :meth:`static`.
    """

    def __init__(self, compute, draw, controls, *, figsize=(8, 4), caption=None, dpi=72, grid=None):
        self.compute = compute
        self.draw = draw
        self.controls = dict(controls)
        self.caption = caption
        self.dpi = dpi
        self.figsize = figsize
        self._grid = {}
        self._positions = None
        self._image = None
        self._label = None
        self._widget = None
        self._png = b""
        self.fig = Figure(figsize=figsize, layout="constrained")
        FigureCanvasAgg(self.fig)  # a bare Figure's canvas.draw() renders nothing; Agg really draws
        self.state = None
        self.n_updates = 0
        self.last_seconds = None
        if grid:
            self.grid(**grid)
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        self.update()

    # -- live form ---------------------------------------------------------------------------
    # The image and caption widgets are made on first use: under the book build only the
    # static form is displayed, and an unused live image would sit in the stored widget state.
    @property
    def image(self):
        """The live figure: an ``ipywidgets.Image`` holding the current state's PNG."""
        if self._image is None:
            self._image = widgets.Image(value=self._png, format="png",
                                        layout=widgets.Layout(max_width="100%", height="auto"))
        return self._image

    @property
    def label(self):
        """The live caption (an ``ipywidgets.HTML``)."""
        if self._label is None:
            self._label = widgets.HTML(self.caption(self.state) if self.caption is not None else "")
        return self._label

    def values(self):
        """Current control values as keyword arguments for ``compute``."""
        return {name: c.value for name, c in self.controls.items()}

    def _on_change(self, _change):
        self.update()

    def update(self):
        """Recompute the state, redraw the figure and refresh the image."""
        start = time.perf_counter()
        # A full garbage collection (~80 ms) landing inside an event is the worst-case spike;
        # let it wait until the image is sent.
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            self.state = self.compute(**self.values())
            self.fig.clear()
            self.draw(self.fig, self.state)
            self._reuse_layout()
            # One Agg render + PNG: latency includes drawing. Low compression saves ~10 ms.
            self._png = _png(self.fig, self.dpi, compress_level=1)
            if self._image is not None:
                self._image.value = self._png
            self._remember_layout()
            if self.caption is not None and self._label is not None:
                self._label.value = self.caption(self.state)
        finally:
            if gc_was_enabled:
                gc.enable()
        self.n_updates += 1
        self.last_seconds = time.perf_counter() - start
        return self.state

    # Constrained layout costs ~40 ms per render. It runs for the first figure only; later
    # events put the same number of axes at the positions it found, with NO layout engine:
    # with any engine set (even matplotlib's "none" placeholder) savefig draws twice.
    def _remember_layout(self):
        if self._positions is None:
            self._positions = [ax.get_position() for ax in self.fig.axes]

    def _reuse_layout(self):
        if self._positions is None:
            return
        if len(self.fig.axes) == len(self._positions):
            drop_layout_engine(self.fig)
            for ax, position in zip(self.fig.axes, self._positions):
                ax.set_position(position)
        else:  # the draw made a different set of panels: lay it out afresh
            self.fig.set_layout_engine("constrained")
            self._positions = None

    @property
    def widget(self):
        """The live ipywidgets layout: controls above the figure (made once)."""
        if self._widget is None:
            self._widget = widgets.VBox([widgets.HBox(list(self.controls.values()),
                                                      layout=widgets.Layout(flex_flow="row wrap")),
                                         self.image, self.label])
        return self._widget

    def _text(self):
        names = ", ".join(self.controls)
        return (f"<svmlib Explorer: {names}> (interactive figure; shown as widgets in a trusted "
                "notebook with a running kernel, as its figure otherwise)")

    def _repr_mimebundle_(self, include=None, exclude=None):
        if book_build() and self._grid:
            return self.static()._repr_mimebundle_(include, exclude)
        self.widget  # noqa: B018 -- creates the live widgets (and their comms)
        return {_VIEW: {"version_major": 2, "version_minor": 0, "model_id": self._widget.model_id},
                "image/png": self._png, "text/plain": self._text()}

    # -- static form -------------------------------------------------------------------------
    def grid(self, **values):
        """Choose the static form's grid: ``explorer.grid(l=[0.1, 0.3, 1.0])``; returns ``self``.

        One control, or two (the first is the main one, whose frames the no-JavaScript
        fallback animates). Every other control stays at its current value. Each frame is
        a PNG in the page (~10-40 kB at the live resolution): keep a page's frames under ~1 MB.
        """
        if not 1 <= len(values) <= 2:
            raise ValueError(f"grid takes one or two controls, got {len(values)}: {sorted(values)}")
        grid = {}
        for name, vals in values.items():
            if name not in self.controls:
                raise ValueError(f"grid: {name!r} is not a control of this explorer; "
                                 f"choose from {sorted(self.controls)}")
            vals = list(vals)
            if not vals:
                raise ValueError(f"grid: {name!r} needs at least one value")
            grid[name] = vals
        self._grid = grid
        return self

    def static(self, dpi=None):
        """The kernel-free form over :meth:`grid` (a :class:`StaticExplorer`; display it)."""
        if not self._grid:
            raise ValueError("this explorer has no static grid: call explorer.grid(name=[values...]) first")
        return StaticExplorer(self, dpi=dpi or self.dpi)


_NO_DISCONNECTED_ICON = ("<style>.svmlib-static-explorer.jupyter-widgets-disconnected::before,"
                         ".svmlib-static-explorer .jupyter-widgets-disconnected::before{display:none}</style>")


class StaticExplorer:
    """An :class:`Explorer` precomputed over its grid: slider(s) ``jslink``-ed to a Stack of images.

    Needs no kernel: the widget JavaScript moves the figure (the built book's embed manager,
    or JupyterLab restoring the widget state stored in a trusted notebook). Its display
    bundle also holds an animated PNG through the main parameter for untrusted notebooks.
    Attributes: ``frames`` (PNG bytes by grid index tuple), ``sliders``, ``stack``, ``widget``.
    """

    def __init__(self, explorer, dpi=72):
        self.explorer = explorer
        names = list(explorer._grid)
        current = explorer.values()
        fig = Figure(figsize=explorer.figsize, layout="constrained")
        FigureCanvasAgg(fig)
        self.frames = {}
        self.captions = {}
        grids = [explorer._grid[n] for n in names]
        positions = []  # constrained layout once per panel count, as the live explorer does

        def render(state):
            fig.clear()
            explorer.draw(fig, state)
            known = next((p for p in positions if len(p) == len(fig.axes)), None)
            if known is None:
                fig.set_layout_engine("constrained")
                png = _png(fig, dpi, compress_level=1)
                positions.append([ax.get_position() for ax in fig.axes])
            else:
                drop_layout_engine(fig)
                for ax, position in zip(fig.axes, known):
                    ax.set_position(position)
                png = _png(fig, dpi, compress_level=1)
            return _small_png(png)

        self.default_png = render(explorer.state)
        indices = list(itertools.product(*(range(len(g)) for g in grids)))
        # 0.1-0.3 s per frame: a grid of dozens takes seconds, so a reader who asks for the static
        # form gets a bar. Never under the book's runner or with TQDM_DISABLE set: in a notebook
        # tqdm.auto is tqdm.notebook, which ignores TQDM_DISABLE and would store its rate (it/s) in
        # the notebook, so that a re-run never reproduces the file.
        quiet = len(indices) < 10 or book_build() or os.environ.get("TQDM_DISABLE", "") not in ("", "0")
        for index in tqdm(indices, desc="precomputing the static figures", leave=False, disable=quiet):
            values = dict(current, **{n: g[i] for n, g, i in zip(names, grids, index)})
            state = explorer.compute(**values)
            self.frames[index] = render(state)
            self.captions[index] = explorer.caption(state) if explorer.caption is not None else None
        # start where the live explorer starts (or at the first grid value)
        self.start = tuple(g.index(current[n]) if current[n] in g else 0 for n, g in zip(names, grids))
        self.names, self.grids = names, grids
        self._build()

    def _frame_widget(self, index):
        image = widgets.Image(value=self.frames[index], format="png", layout=self._frame_layout)
        if self.captions[index] is None:
            return image
        return widgets.VBox([image, widgets.HTML(self.captions[index])])

    def _build(self):
        names, grids = self.names, self.grids
        self._frame_layout = widgets.Layout(max_width="100%", height="auto")  # one model for every frame
        sliders = []
        for k, (name, grid) in enumerate(zip(names, grids)):
            control = self.explorer.controls[name]
            sliders.append(widgets.SelectionSlider(
                options=[_label(v, control) for v in grid], index=self.start[k],
                description=control.description or name, continuous_update=True,
                style={"description_width": "initial"}, layout=widgets.Layout(width="min(100%, 420px)")))
        if len(names) == 1:
            stack = widgets.Stack([self._frame_widget((i,)) for i in range(len(grids[0]))],
                                  selected_index=self.start[0])
            links = [widgets.jslink((sliders[0], "index"), (stack, "selected_index"))]
        else:
            inner = [widgets.Stack([self._frame_widget((i, j)) for j in range(len(grids[1]))],
                                   selected_index=self.start[1]) for i in range(len(grids[0]))]
            stack = widgets.Stack(inner, selected_index=self.start[0])
            links = [widgets.jslink((sliders[0], "index"), (stack, "selected_index"))]
            links += [widgets.jslink((sliders[1], "index"), (s, "selected_index")) for s in inner]
        fixed = {n: v for n, v in self.explorer.values().items() if n not in names}
        fixed_text = ("; the other controls are fixed at " + ", ".join(
            f"{_html.escape(str(self.explorer.controls[n].description or n))} = "
            f"{_html.escape(_label(v, self.explorer.controls[n]))}"
            for n, v in fixed.items())) if fixed else ""
        hint = _LIVE_HINT.format(s="s" if len(names) > 1 else "", fixed=fixed_text)
        # The explorer needs no kernel (its sliders are jslink-ed to the frames), so JupyterLab's red
        # "disconnected" chain icon beside each of its widgets in a stored, trusted notebook is wrong: hidden.
        note = widgets.HTML(f'<span class="svmlib-static-note">{hint}</span>{_NO_DISCONNECTED_ICON}')
        self.sliders, self.stack, self._links = sliders, stack, links
        self._widget = widgets.VBox([widgets.HBox(sliders, layout=widgets.Layout(flex_flow="row wrap")),
                                     stack, note], layout=widgets.Layout(max_width="100%"))
        self._widget.add_class("svmlib-static-explorer")

    @property
    def widget(self):
        """The static form: slider(s), the stack of frames, one line on running it live."""
        return self._widget

    def fallback_png(self):
        """Animated PNG through the main parameter (other grid parameter at its start)."""
        rest = self.start[1:]
        frames = [self.frames[(i, *rest)] for i in range(len(self.grids[0]))]
        return animated_png(frames, default=self.default_png)

    def _repr_mimebundle_(self, include=None, exclude=None):
        widget = self.widget
        text = (f"<svmlib static explorer over {', '.join(self.names)}: "
                f"{len(self.frames)} precomputed frames>")
        return {_VIEW: {"version_major": 2, "version_minor": 0, "model_id": widget.model_id},
                "image/png": self.fallback_png(), "text/plain": text}
