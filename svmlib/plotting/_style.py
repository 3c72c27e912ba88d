"""Shared drawing helpers: cheap ticks and layout control for figures redrawn on every widget event."""

from __future__ import annotations

import matplotlib
from matplotlib.ticker import MaxNLocator

__all__ = ["drop_layout_engine", "fixed_ticks"]


def drop_layout_engine(fig):
    """Remove the figure's layout engine, so that ``savefig`` renders it in one pass.

    With any engine set -- even the placeholder that ``set_layout_engine("none")`` installs --
    ``savefig`` runs a full extra draw first (10-25 ms per widget event, profiled). Plain
    ``set_layout_engine(None)`` is not enough: under the book's style
    (``figure.constrained_layout.use: True``) it switches constrained layout *on*.
    """
    with matplotlib.rc_context({"figure.autolayout": False, "figure.constrained_layout.use": False}):
        fig.set_layout_engine(None)
    return fig


def fixed_ticks(ax, *, xlim=None, ylim=None, nbins=5):
    """Set the axis limits and a few explicit ticks, all inside them.

    Why: a widget redraws its axes from scratch on every event, and each tick is a Tick
    object (two lines, two labels) built anew, about 1 ms apiece (profiled). The default
    locator puts 6-9 ticks per axis and also builds the ones just outside the view; a
    fixed list of ``nbins + 1`` ticks at most, all visible, keeps the same picture cheaper.
    """
    for lims, set_lim, set_ticks in ((xlim, ax.set_xlim, ax.set_xticks), (ylim, ax.set_ylim, ax.set_yticks)):
        if lims is None:
            continue
        lo, hi = float(lims[0]), float(lims[1])
        set_lim(lo, hi)
        # AutoLocator's "nice" steps (MaxNLocator's default also allows 3, 4, 6, 8: 0, 8, 16, 24)
        ticks = MaxNLocator(nbins=nbins, steps=[1, 2, 2.5, 5, 10]).tick_values(lo, hi)
        span = 1e-9 * (hi - lo)
        set_ticks(ticks[(ticks >= lo - span) & (ticks <= hi + span)])
    return ax
