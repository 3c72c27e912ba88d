"""Figures of :ref:`Chapter 3 <ch-duality>` (duality and SMO): the Lagrange picture, and one SMO step
(working pair, multipliers, boundary, dual objective)."""

from __future__ import annotations

import numpy as np

from ._style import fixed_ticks
from .maximum_margin import CLASS_COLORS, scatter_classes

__all__ = ["draw_lagrange_circle", "draw_decision_regions", "draw_smo_step"]


def draw_lagrange_circle(ax):
    r"""Maximise :math:`f(x, y) = 2x + y` on the unit circle: level lines of f, the circle,
    and the two points where :math:`\nabla f` is parallel to :math:`\nabla g` (eq. :eq:`(3.1) <smo-lagrange-tangency>`).

    The level lines are dark grey with their values in bold, placed away from the two marked
    points; the labels of the points sit outside the circle, clear of the arrows.
    """
    s = np.linspace(-1.7, 1.7, 200)
    U, V = np.meshgrid(s, s)
    levels = np.arange(-4, 5)
    cs = ax.contour(U, V, 2 * U + V, levels=levels, colors="0.35", linewidths=0.9, linestyles="-")
    # one label per level line, in the empty lower-right / upper-left corners (away from the points)
    r5 = np.sqrt(5.0)
    spots = [(c + 1.5) / 2 for c in levels]  # where each line crosses y = -1.5, else y = +1.5
    manual = [(x, -1.5) if -1.6 < x < 1.6 else ((c - 1.5) / 2, 1.5) for x, c in zip(spots, levels)]
    manual = [(x, yy) for x, yy in manual if -1.6 < x < 1.6]
    ax.clabel(cs, fontsize=11, fmt="%g", manual=manual, inline_spacing=4)
    for txt in ax.texts:  # the contour labels are the only texts so far
        txt.set_fontweight("bold")
    phi = np.linspace(0, 2 * np.pi, 300)
    ax.plot(np.cos(phi), np.sin(phi), color="black", lw=2.2, label="constraint $x^2 + y^2 = 1$")
    for sign, name in [(1, "maximum, $f = \\sqrt{5}$"), (-1, "minimum, $f = -\\sqrt{5}$")]:
        p = sign * np.array([2 / r5, 1 / r5])
        ax.plot(*p, "o", color="black", ms=8, zorder=5)
        ax.annotate("", xy=p + 0.5 * np.array([2, 1]) / r5, xytext=p,
                    arrowprops=dict(arrowstyle="-|>", color="#D55E00", lw=2.2, mutation_scale=14), zorder=6)
        ax.annotate("", xy=p + 0.35 * p, xytext=p,
                    arrowprops=dict(arrowstyle="-|>", color="#009E73", lw=2.2, mutation_scale=14), zorder=6)
        # label on the side away from the arrows (which point along +-(2, 1))
        ax.annotate(name, xy=p, xytext=sign * np.array([0.45, 1.25]), fontsize=11, ha="center",
                    va="center", bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="0.6"), zorder=7,
                    arrowprops=dict(arrowstyle="-", color="0.4", lw=0.8))
    ax.plot([], [], color="#D55E00", lw=2.2, label=r"$\nabla f = (2, 1)$")
    ax.plot([], [], color="#009E73", lw=2.2, label=r"$\nabla g = (2x, 2y)$")
    ax.plot([], [], color="0.35", lw=0.9, label="level lines of $f$ (value on the line)")
    ax.set_aspect("equal")
    ax.set_xlim(-1.7, 1.7)
    ax.set_ylim(-1.7, 1.7)
    ax.set_xlabel("$x$")
    ax.set_ylabel("$y$")
    # the legend goes below the axes, where it covers nothing
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, fontsize=10, frameon=False)
    return ax


def draw_decision_regions(ax, grid_x, grid_y, f, *, margins=True, fill=True):
    """Shade sign(f) on a grid and draw the boundary f = 0 (and the margins f = +-1)."""
    if fill:  # an image of sign(f) is much cheaper to draw than filled contours
        from matplotlib.colors import ListedColormap

        cmap = ListedColormap([CLASS_COLORS[-1], CLASS_COLORS[1]])
        ax.imshow((f > 0).astype(float), origin="lower", cmap=cmap, alpha=0.12, vmin=0, vmax=1,
                  extent=(grid_x.min(), grid_x.max(), grid_y.min(), grid_y.max()), aspect="auto",
                  interpolation="nearest")
    if margins:
        levels, styles, widths = [-1, 0, 1], ["--", "-", "--"], [0.9, 1.6, 0.9]
    else:
        levels, styles, widths = [0], ["-"], [1.6]
    if np.nanmin(f) < max(levels) and np.nanmax(f) > min(levels):
        ax.contour(grid_x, grid_y, f, levels=levels, colors="black", linestyles=styles, linewidths=widths)


def draw_smo_step(fig, state):
    """:ref:`Chapter 3 <ch-duality>` widget: one SMO iteration -- boundary and working pair, the multipliers, W(alpha)."""
    X, y, alpha, C = state["X"], state["y"], state["alpha"], state["C"]
    ax, axa, axw = fig.subplots(1, 3, width_ratios=[1.1, 1.0, 0.9])
    draw_decision_regions(ax, state["grid_x"], state["grid_y"], state["grid_f"])
    scatter_classes(ax, X, y, s=22)
    sv = alpha > 0
    at_bound = sv & (alpha >= C * (1 - 1e-12))
    ax.scatter(X[sv & ~at_bound, 0], X[sv & ~at_bound, 1], s=110, facecolors="none", edgecolors="black",
               lw=1.2, label=r"$0<\alpha_i<C$", zorder=4)
    ax.scatter(X[at_bound, 0], X[at_bound, 1], s=110, facecolors="none", edgecolors="0.5", lw=1.2,
               ls=":", label=r"$\alpha_i=C$", zorder=4)
    pair = state["pair"]
    if pair is not None:
        i, j = pair
        ax.plot(X[[i, j], 0], X[[i, j], 1], color="#E69F00", lw=2.5, zorder=2, label="working pair")
        ax.scatter(X[[i, j], 0], X[[i, j], 1], s=160, facecolors="none", edgecolors="#E69F00", lw=2.2, zorder=5)
    # Three narrow panels: four bins each (every tick label costs ~1 ms per redraw, profiled).
    fixed_ticks(ax, xlim=(state["grid_x"].min(), state["grid_x"].max()),
                ylim=(state["grid_y"].min(), state["grid_y"].max()), nbins=4)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    # legend above the panel (outside the data), readable when the figure is scaled to a phone's width
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.08), ncol=3, fontsize=9, frameon=False,
              handletextpad=0.3, columnspacing=0.8)
    # y=1.0: skips matplotlib's automatic title placement (see draw_margin)
    ax.set_title(f"C = {C:g}, step {state['iteration']} of {state['n_steps']}", y=1.0, loc="left", fontsize=10)

    idx = np.arange(alpha.size)
    colors = [CLASS_COLORS[int(v)] for v in y]
    # vlines: one LineCollection instead of one patch per bar (5x faster to draw)
    axa.vlines(idx, 0.0, alpha, colors=colors, lw=5)
    if pair is not None:
        axa.plot(list(pair), alpha[list(pair)], "o", color="#E69F00", ms=8, label="working pair")
    axa.axhline(C, color="0.4", ls="--", lw=1.0)
    axa.text(alpha.size - 0.5, C, "C", va="bottom", ha="right", fontsize="small")
    fixed_ticks(axa, xlim=(-1, alpha.size), ylim=(0, 1.12 * C), nbins=3)
    axa.set_xlabel("training point $i$")
    axa.set_ylabel(r"$\alpha_i$")
    axa.set_title(r"multipliers ($\sum_i y_i\alpha_i = 0$)", y=1.0, pad=9)  # pad: room for the subscript

    W = state["objectives"]
    axw.plot(np.arange(W.size), W, color="0.35", lw=1.2)
    axw.plot([state["iteration"]], [W[state["iteration"]]], "o", color="black", ms=6)
    axw.axhline(W[-1], color="#009E73", ls="--", lw=1.0, label="optimum")
    pad = 0.05 * max(np.ptp(W), 1e-12)  # matplotlib's default autoscale margin, set by hand for fixed ticks
    fixed_ticks(axw, xlim=(-0.05 * max(W.size - 1, 1), 1.05 * max(W.size - 1, 1)),
                ylim=(W.min() - pad, W.max() + pad), nbins=4)
    axw.set_xlabel("SMO step")
    axw.set_ylabel(r"dual objective $W(\alpha)$")
    axw.set_title(f"KKT violation $m - M$ = {state['violation']:.2g}", y=1.0)
    axw.legend(loc="lower right", fontsize=9)
    return ax, axa, axw
