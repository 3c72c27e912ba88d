"""The two ways the book makes a figure interactive.

* :class:`Explorer` -- live sliders for a reader running the notebook. The
  computation is a plain function of the slider values (``compute``) that
  returns a *state*; ``draw`` only draws a state. Tests drive an Explorer
  headless: set ``explorer.controls[name].value`` and assert on
  ``explorer.state``.
* :func:`scrubber` -- for the static online book, which cannot recompute: a
  kernel-free animation (matplotlib ``to_jshtml``) through precomputed states
  of one parameter, with a deterministic element id so stored notebooks stay
  byte-identical between runs.
"""

from __future__ import annotations

import gc
import hashlib
import io
import re
import time

import ipywidgets as widgets
from IPython.display import HTML, display
from matplotlib.animation import FuncAnimation
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..plotting._style import drop_layout_engine

__all__ = ["Explorer", "scrubber", "slider", "dropdown"]


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
    """

    def __init__(self, compute, draw, controls, *, figsize=(8, 4), caption=None, dpi=72):
        self.compute = compute
        self.draw = draw
        self.controls = dict(controls)
        self.caption = caption
        self.dpi = dpi
        self._positions = None
        self.fig = Figure(figsize=figsize, layout="constrained")
        FigureCanvasAgg(self.fig)  # a bare Figure's canvas.draw() renders nothing; Agg really draws
        # The figure is shown as PNG bytes in an Image widget: one render per event, and the
        # embedded widget state of the static book holds the default figure.
        self.image = widgets.Image(format="png", layout=widgets.Layout(max_width="100%", height="auto"))
        self.label = widgets.HTML()
        self.state = None
        self.n_updates = 0
        self.last_seconds = None
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        self.update()

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
            buffer = io.BytesIO()
            # One Agg render + PNG: latency includes drawing. Low compression saves ~10 ms.
            self.fig.savefig(buffer, format="png", dpi=self.dpi, pil_kwargs={"compress_level": 1})
            self.image.value = buffer.getvalue()
            self._remember_layout()
            if self.caption is not None:
                self.label.value = self.caption(self.state)
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
        """The ipywidgets layout: controls above the figure."""
        return widgets.VBox([widgets.HBox(list(self.controls.values()),
                                          layout=widgets.Layout(flex_flow="row wrap")),
                             self.image, self.label])

    def _ipython_display_(self):
        display(self.widget)


# matplotlib's player loads Font Awesome 4 from a CDN for its button icons; offline that
# leaves blank buttons, so the icons become plain Unicode symbols.
_FONT_AWESOME_LINK = re.compile(r'<link rel="stylesheet"\s+href="https://maxcdn[^"]*font-awesome[^"]*">')
_ICONS = {
    "fa fa-minus": "\u2212", "fa fa-fast-backward": "\u23ee", "fa fa-step-backward": "\u23f4\u2502",
    "fa fa-play fa-flip-horizontal": "\u25c0", "fa fa-pause": "\u23f8", "fa fa-play": "\u25b6",
    "fa fa-step-forward": "\u2502\u23f5", "fa fa-fast-forward": "\u23ed", "fa fa-plus": "+",
}


def _offline_controls(html):
    html = _FONT_AWESOME_LINK.sub("", html)
    for css, symbol in _ICONS.items():
        html = html.replace(f'<i class="{css}"></i>', symbol)
    return html


def scrubber(compute, draw, name, values, *, fixed=None, figsize=(8, 4), interval=600, dpi=72):
    """A kernel-free slider through precomputed states of one parameter.

    ``compute(**fixed, **{name: v})`` is evaluated for every ``v`` in ``values``
    and drawn with ``draw(fig, state)``; the frames are embedded in HTML that
    plays in any browser without Python. The element id is derived from the
    frames, so the output is identical on every run.
    """
    fixed = dict(fixed or {})
    states = [compute(**fixed, **{name: v}) for v in values]
    fig = Figure(figsize=figsize, layout="constrained", dpi=dpi)  # every frame is stored in the page

    def frame(k):
        fig.clear()
        draw(fig, states[k])
        fig.suptitle(f"{name} = {values[k]:.4g}" if isinstance(values[k], float) else f"{name} = {values[k]}",
                     fontsize="medium")
        return []

    anim = FuncAnimation(fig, frame, frames=len(states), interval=interval, blit=False)
    html = anim.to_jshtml(default_mode="once")
    html = _offline_controls(html)
    # matplotlib names the elements with a random uuid4; derive the id from the frames instead.
    ids = set(re.findall(r"_anim_img([0-9a-f]{32})", html))
    stripped = html
    for old in ids:
        stripped = stripped.replace(old, "")
    digest = hashlib.sha1(stripped.encode()).hexdigest()[:32]
    for old in ids:
        html = html.replace(old, digest)
    return HTML(html)
