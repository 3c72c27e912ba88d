"""Figures of chapter 3 (duality and SMO): the Lagrange picture, and one SMO step
(working pair, multipliers, boundary, dual objective)."""

from __future__ import annotations

import numpy as np

from ._style import fixed_ticks
from .maximum_margin import CLASS_COLORS, scatter_classes

__all__ = ["draw_lagrange_circle", "draw_decision_regions", "draw_smo_step"]


def draw_lagrange_circle(ax):
    r"""Maximise :math:`f(x, y) = 2x + y` on the unit circle: level lines of f, the circle,
    and the two points where :math:`\nabla f` is parallel to :math:`\nabla g` (eq. smo-lagrange-tangency)."""
    s = np.linspace(-1.6, 1.6, 200)
    U, V = np.meshgrid(s, s)
    levels = np.linspace(-3, 3, 13)
    cs = ax.contour(U, V, 2 * U + V, levels=levels, cmap="RdBu_r", linewidths=0.9)
    ax.clabel(cs, fontsize="x-small", fmt="%g")
    phi = np.linspace(0, 2 * np.pi, 300)
    ax.plot(np.cos(phi), np.sin(phi), color="black", lw=2, label="constraint $x^2 + y^2 = 1$")
    r5 = np.sqrt(5.0)
    for sign, name in [(1, "maximum"), (-1, "minimum")]:
        p = sign * np.array([2 / r5, 1 / r5])
        ax.plot(*p, "o", color="black", ms=7)
        ax.annotate("", xy=p + 0.45 * np.array([2, 1]) / r5, xytext=p,
                    arrowprops=dict(arrowstyle="->", color="#D55E00", lw=1.5))
        ax.annotate("", xy=p + 0.45 * p, xytext=p, arrowprops=dict(arrowstyle="->", color="#009E73", lw=1.5))
        ax.annotate(f"{name}\n({sign * 2}/√5, {sign * 1}/√5)", xy=p, xytext=p + np.array([0.1, -0.35 * sign]),
                    fontsize="small")
    ax.plot([], [], color="#D55E00", label=r"$\nabla f = (2, 1)$")
    ax.plot([], [], color="#009E73", label=r"$\nabla g = (2x, 2y)$")
    ax.set_aspect("equal")
    ax.set_xlim(-1.6, 1.6)
    ax.set_ylim(-1.6, 1.6)
    ax.set_xlabel("$x$")
    ax.set_ylabel("$y$")
    ax.legend(loc="upper left", fontsize="x-small")
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
    """Chapter 3 widget: one SMO iteration -- boundary and working pair, the multipliers, W(alpha)."""
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
    ax.legend(loc="upper left", fontsize="xx-small")
    # y=1.0: skips matplotlib's automatic title placement (see draw_margin)
    ax.set_title(f"C = {C:g}, step {state['iteration']} of {state['n_steps']}", y=1.0)

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
    axw.set_title(f"KKT violation {state['violation']:.2g}", y=1.0)
    axw.legend(loc="lower right", fontsize="x-small")
    return ax, axa, axw
