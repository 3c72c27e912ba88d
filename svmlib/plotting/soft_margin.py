"""Figures of :ref:`Chapter 2 <ch-soft-margin>` (soft margin and the primal): the hinge loss and its subgradients,
subgradient-descent iterates next to the exact solution, and the objective trace."""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import LogLocator, NullLocator

from ._style import fixed_ticks
from .maximum_margin import MAX_MARGIN_COLOR, draw_line, ring_points, scatter_classes

__all__ = ["draw_hinge_subgradients", "draw_soft_margin", "draw_objective_traces"]


def draw_hinge_subgradients(ax, *, kink_slopes=(-1.0, -0.6, -0.25, 0.0), smooth_point=-0.5):
    r"""The hinge loss :math:`\ell(t) = \max(0, 1 - t)` with its subgradients drawn.

    At a smooth point the only sub-tangent is the tangent; at the kink ``t = 1`` every
    slope in [-1, 0] gives a line that stays below the loss (eq. :eq:`(2.4) <soft-subgradient-def>`).
    """
    t = np.linspace(-1.5, 3.0, 400)
    ax.plot(t, np.maximum(0.0, 1.0 - t), color="black", lw=2.2, label=r"hinge $\ell(t)=\max(0, 1-t)$")
    colors = ["#0072B2", "#56B4E9", "#009E73", "#E69F00"]
    for g, c in zip(kink_slopes, colors):
        ax.plot(t, g * (t - 1.0), color=c, lw=1.1, ls="--", label=f"slope {g:g} at the kink")
    ax.plot(t, 1.0 - t, color="#D55E00", lw=1.1, ls=":", label=f"tangent at t = {smooth_point:g} (slope -1)")
    ax.plot([smooth_point], [1.0 - smooth_point], "o", color="#D55E00", ms=6)
    ax.plot([1.0], [0.0], "o", color="black", ms=6)
    ax.set_xlim(t[0], t[-1])
    ax.set_ylim(-0.8, 2.6)
    ax.set_xlabel(r"$t = y\,(w \cdot x + b)$")
    ax.set_ylabel(r"loss $\ell(t)$")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=10, frameon=False)  # beside the axes
    return ax


def draw_soft_margin(fig, state):
    """:ref:`Chapter 2 <ch-soft-margin>` widget: the iterate's boundary vs the exact one, and J(epoch) - J*."""
    X, y = state["X"], state["y"]
    ax, axo = fig.subplots(1, 2, width_ratios=[1.1, 1])
    lo, hi = X.min(axis=0) - 0.6, X.max(axis=0) + 0.6
    lims = (lo[0], hi[0], lo[1], hi[1])
    fixed_ticks(ax, xlim=lims[:2], ylim=lims[2:])
    ax.set_aspect("equal", adjustable="box")
    scatter_classes(ax, X, y, s=22)
    w_ref, b_ref = state["w_ref"], state["b_ref"]
    draw_line(ax, w_ref, b_ref, lims=lims, color=MAX_MARGIN_COLOR, lw=1.4, label="exact (libsvm)")
    for level in (-1.0, 1.0):
        draw_line(ax, w_ref, b_ref, level=level, lims=lims, color=MAX_MARGIN_COLOR, lw=0.8, ls="--")
    w, b = state["w"], state["b"]
    if np.any(w):
        draw_line(ax, w, b, lims=lims, color="black", lw=1.6, label=f"epoch {state['epochs']}")
        for level in (-1.0, 1.0):
            draw_line(ax, w, b, level=level, lims=lims, color="black", lw=0.8, ls=":")
    ring_points(ax, X, state["violators"], label="y f(x) < 1", color="0.4", s=70)
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    # legend above the panel, where it covers no point; readable when scaled to a phone's width
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.08), ncol=3, fontsize=9, frameon=False,
              handletextpad=0.3, columnspacing=0.8)
    # y=1.0: skips matplotlib's automatic title placement (see draw_margin)
    ax.set_title(f"C = {state['C']:.3g}, {state['step']}, {state['batch_label']}", y=1.0, loc="left", fontsize=10)

    gap = np.asarray(state["objectives"]) - state["J_ref"]
    epochs = np.arange(gap.size)
    floor = 1e-6 * max(1.0, abs(state["J_ref"]))  # keep zero gaps visible on the log axis
    axo.semilogy(epochs, np.maximum(gap, floor), color="black", lw=1.2, label="$J(w_k, b_k) - J^*$")
    axo.semilogy(epochs, np.maximum(np.minimum.accumulate(gap), floor), color="#0072B2", lw=1.0, ls="--",
                 label="best so far")
    axo.set_xlabel("epoch")
    axo.set_ylabel("objective gap (log)")
    fixed_ticks(axo, xlim=(0, max(1, state["max_epochs"])))
    # Decades only, no minor ticks: the default log axis built ~60 Tick objects per redraw
    # (each ~1 ms, profiled) for the same reading of the gap's order of magnitude.
    axo.yaxis.set_major_locator(LogLocator(numticks=6))
    axo.yaxis.set_minor_locator(NullLocator())
    # above the panel like the left one: inside, "upper right" hid the trace where the gap stays high
    # (C = 0.01 with the constant step oscillates over the whole axis)
    axo.legend(loc="lower right", bbox_to_anchor=(1.0, 1.08), ncol=2, fontsize=9, frameon=False,
               handletextpad=0.3, columnspacing=0.8)
    axo.set_title(f"J = {state['objectives'][-1]:.4g}, J* = {state['J_ref']:.4g}", y=1.0)
    return ax, axo


def draw_objective_traces(ax, traces, J_star, *, floor=1e-6):
    """Objective gap J - J* per epoch of several solver runs (eq. :eq:`(2.3) <primal-objective>`), on a log axis.

    ``traces`` maps ``(step_rule, batch)`` (batch None = full batch) to the objective per epoch.
    Full-batch runs are solid, mini-batch runs dotted; one colour per step rule. The legend sits
    to the right of the axes, where it covers no trace.
    """
    colors = {"pegasos": "#0072B2", "invsqrt": "#009E73", "constant": "#D55E00"}
    for (step, batch), J in traces.items():
        ax.semilogy(np.maximum(np.asarray(J) - J_star, floor), lw=1.4, color=colors.get(step, "black"),
                    ls="-" if batch is None else ":",
                    label=f"{step}, {'full batch' if batch is None else f'batch {batch}'}")
    ax.set_xlabel("epoch")
    ax.set_ylabel("$J(w_k, b_k) - J^*$")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=10, frameon=False)
    return ax
