"""Figures of :ref:`Chapter 1 <ch-margin>` (maximum margin): lines, margin bands, the margin-vs-angle profile.

Also the small drawing helpers the other Part I chapters reuse: two-class scatter
plots, a line ``w.x + b = level`` clipped to the axes, ringed support vectors.
"""

from __future__ import annotations

import numpy as np

from ._style import fixed_ticks

__all__ = ["draw_margin_scan", 
    "CLASS_COLORS",
    "scatter_classes",
    "draw_line",
    "ring_points",
    "draw_margin",
]

# Colour-blind-safe pair from book.mplstyle's cycle: -1 blue, +1 vermillion.
CLASS_COLORS = {-1: "#0072B2", 1: "#D55E00"}
MAX_MARGIN_COLOR = "#009E73"


def scatter_classes(ax, X, y, *, labels=("y = -1", "y = +1"), s=28, alpha=1.0):
    """Scatter the two classes (labels -1/+1) with the book's colours and marker shapes."""
    for value, marker, label in [(-1, "o", labels[0]), (1, "s", labels[1])]:
        mask = y == value
        ax.scatter(X[mask, 0], X[mask, 1], s=s, marker=marker, c=CLASS_COLORS[value],
                   edgecolors="white", linewidths=0.5, label=label, alpha=alpha, zorder=3)


def ring_points(ax, X, idx, *, label="support vectors", color="black", s=110):
    """Draw rings around the points ``X[idx]`` (support vectors, a working pair, ...)."""
    idx = np.asarray(idx, dtype=int)
    ax.scatter(X[idx, 0], X[idx, 1], s=s, facecolors="none", edgecolors=color, linewidths=1.4,
               label=label if idx.size else None, zorder=4)


def draw_line(ax, w, b, *, level=0.0, lims=None, **kwargs):
    """Draw ``w . x + b = level`` inside ``lims = (xmin, xmax, ymin, ymax)`` (default: current axes)."""
    if lims is None:
        (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    else:
        x0, x1, y0, y1 = lims
    w = np.asarray(w, dtype=float)
    if abs(w[1]) >= abs(w[0]):  # steeper in x than in y: parametrise by x
        xs = np.array([x0, x1])
        ys = (level - b - w[0] * xs) / w[1]
    else:
        ys = np.array([y0, y1])
        xs = (level - b - w[1] * ys) / w[0]
    return ax.plot(xs, ys, **kwargs)


def _limits(X, pad=0.6):
    lo, hi = X.min(axis=0) - pad, X.max(axis=0) + pad
    return lo[0], hi[0], lo[1], hi[1]


def draw_margin(fig, state):
    """:ref:`Chapter 1 <ch-margin>` widget: the reader's line and its margin next to the maximum-margin line.

    Left: the data, the chosen line (solid) with its margin band (dotted, when it separates),
    misclassified points crossed, and the maximum-margin line (green) with its support vectors.
    Right: the best margin reachable for each normal direction, the reader's direction and margin
    marked, and the maximum (the hard-margin SVM) as a horizontal line.
    """
    X, y, sol = state["X"], state["y"], state["solution"]
    ax, axp = fig.subplots(1, 2, width_ratios=[1.15, 1])
    lims = _limits(X)
    fixed_ticks(ax, xlim=lims[:2], ylim=lims[2:])
    ax.set_aspect("equal", adjustable="box")
    scatter_classes(ax, X, y)
    # maximum-margin solution: line and the band w.x + b = +-1
    draw_line(ax, sol.w, sol.b, lims=lims, color=MAX_MARGIN_COLOR, lw=1.5, label="maximum margin")
    for level in (-1.0, 1.0):
        draw_line(ax, sol.w, sol.b, level=level, lims=lims, color=MAX_MARGIN_COLOR, lw=0.9, ls="--")
    ring_points(ax, X, sol.support)
    # the reader's line (unit normal, so levels are distances)
    w, b, gamma = state["w"], state["b"], state["margin"]
    draw_line(ax, w, b, lims=lims, color="black", lw=1.6, label="your line")
    if gamma > 0:
        for level in (-gamma, gamma):
            draw_line(ax, w, b, level=level, lims=lims, color="black", lw=0.9, ls=":")
    wrong = state["misclassified"]
    if wrong.size:
        ax.scatter(X[wrong, 0], X[wrong, 1], marker="x", s=70, c="black", zorder=5, label="misclassified")
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    # legend above the panel, where it covers no point (readable at a phone's width too)
    # one row above both panels, where it covers no point (constrained layout makes room for it)
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncol=6, fontsize=9, frameon=False,
               handletextpad=0.3, columnspacing=0.9)
    verdict = f"margin {gamma:.3f}" if gamma > 0 else f"does not separate ({wrong.size} wrong)"
    # y=1.0 given: the automatic title position measures every y tick label first (~4 ms per
    # titled axes and redraw, profiled); with ticks at the bottom it is y = 1 anyway.
    ax.set_title(f"your line: {verdict}; maximum {sol.margin:.3f}", y=1.0, loc="left", fontsize=10)

    angles, profile = state["profile_angles"], state["profile_margins"]
    axp.plot(angles, profile, color="0.35", lw=1.2, label="best margin for this direction")
    axp.axhline(sol.margin, color=MAX_MARGIN_COLOR, lw=1.2, ls="--", label="maximum margin $1/\\|w\\|$")
    axp.axhline(0.0, color="0.6", lw=0.8)
    axp.plot([state["angle"] % 360.0], [gamma], "o", color="black", ms=7, label="your line")
    axp.set_xlim(angles[0], angles[-1])
    axp.set_xticks(np.arange(angles[0], angles[-1] + 1.0, 90.0))  # quarter turns; few ticks draw faster
    # no margin exceeds the maximum: the band above it holds the legend, which so covers neither the
    # profile nor the reader's dot (the dot is on or below the profile; at "lower center" it hid both)
    fixed_ticks(axp, ylim=(max(profile.min(), -2 * sol.margin), 2.4 * sol.margin))
    axp.set_xlabel(r"angle $\varphi$ of the normal $w$ (degrees)")
    axp.set_ylabel(r"geometric margin $\gamma$")
    axp.legend(loc="upper center", fontsize=9)
    return ax, axp


def draw_margin_scan(ax, angles, margins):
    r"""Best geometric margin per direction of the normal (the brute-force scan of the Maximum-margin chapter).

    ``angles`` in degrees, ``margins`` from :func:`svmlib.margin.best_margin_for_direction`. Negative values
    (no separating line with that direction) are shaded; the maximum is marked and labelled.
    """
    angles, margins = np.asarray(angles, dtype=float), np.asarray(margins, dtype=float)
    ax.plot(angles, margins, color="0.25", lw=1.4)
    ax.axhline(0.0, color="0.6", lw=0.8)
    ax.fill_between(angles, np.minimum(margins, 0.0), 0.0, color="#D55E00", alpha=0.12, lw=0,
                    label="no separating line")
    k = int(np.argmax(margins))
    ax.plot(angles[k], margins[k], "o", color=MAX_MARGIN_COLOR, ms=7,
            label=rf"scan maximum $\gamma$ = {margins[k]:.3f} at $\varphi$ = {angles[k]:.2f}°")
    ax.set_xlim(0.0, 360.0)
    ax.set_xticks(np.arange(0, 361, 60))
    ax.set_ylim(max(-2.0, margins.min() - 0.1), margins.max() + 0.5)
    ax.set_xlabel(r"angle $\varphi$ of the normal $w$ (degrees)")
    ax.set_ylabel(r"best margin $\gamma$")
    ax.legend(loc="upper right", fontsize=9)
    return ax
