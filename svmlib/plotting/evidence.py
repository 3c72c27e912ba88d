"""Figures of :ref:`Chapter 7 <ch-evidence>` (evidence and error bars): data and fits, evidence curves, class probabilities.

The live widget redraws the three panels on every slider event (rendered with Agg into a PNG), so
its view is kept light (profiled: tick creation was most of a redraw once the Explorer stopped
re-running constrained layout): every axis gets a few fixed ticks and no minor ticks, titles are
placed at a fixed height (automatic placement measures every tick label), legends sit at fixed
places (``loc="best"`` searches over every data point), and the third panel reuses the first
panel's legend (same line styles).
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import FixedLocator, NullLocator

from ._style import drop_layout_engine

__all__ = ["draw_toy_fit", "draw_evidence_curves", "draw_class_probability", "draw_evidence_state",
           "draw_sollich_fig2", "draw_normaliser"]

#: ticks of the C axis (log scale): fixed, so no log locator runs on a redraw
C_TICKS = (0.5, 1.0, 2.0, 5.0, 10.0)

#: share of a panel's width and height a three-entry legend takes, padding included (measured in the
#: explorer, the smallest panels that use it: 0.34 x 0.21 for the data panel, 0.58 x 0.21 for the evidence)
LEGEND_BOX = {"fit": (0.38, 0.25), "evidence": (0.62, 0.25)}

_CORNERS = {  # legend location -> its box in axes fractions, as a test on (u, v) for a box of size (w, h)
    "lower right": lambda u, v, w, h: (u > 1 - w) & (v < h),
    "upper right": lambda u, v, w, h: (u > 1 - w) & (v > 1 - h),
    "lower left": lambda u, v, w, h: (u < w) & (v < h),
    "upper left": lambda u, v, w, h: (u < w) & (v > 1 - h),
    "lower center": lambda u, v, w, h: (np.abs(u - 0.5) < w / 2) & (v < h),
}


def _legend_place(ax, points, candidates, box):
    """The first of ``candidates`` whose legend box holds none of ``points`` (data coordinates, the
    visible ones), else None. A cheap stand-in for ``loc="best"``, which measures every artist."""
    uv = (ax.transScale + ax.transLimits).transform(points)  # data -> axes fractions (log axes too)
    u, v = uv[:, 0], uv[:, 1]
    seen = (u >= 0) & (u <= 1) & (v >= 0) & (v <= 1)
    for loc in candidates:
        if not np.any(_CORNERS[loc](u, v, *box) & seen):
            return loc
    return None


def draw_toy_fit(ax, grid, theta_true, theta_svm, X, y):
    """True latent function, the SVM's theta*, and the data (at y = +-1)."""
    ax.plot(grid, theta_true, label="true $\\theta(x)$")
    ax.plot(grid, theta_svm, "--", label="SVM $\\theta^*(x)$")
    ax.plot(X, y, "o", mfc="none", ms=4, color="k", label="data")
    ax.axhspan(-1, 1, color="0.9", zorder=0)
    top = float(np.ceil(max(np.abs(theta_true).max(), np.abs(theta_svm).max(), 1.0)))
    ax.set(xlabel="$x$", ylabel="$\\theta$", xticks=[0, 0.5, 1], yticks=[-top, -1, 1, top])
    ax.set_title("data from the model", y=1.0)
    points = np.concatenate([np.c_[grid, theta_true], np.c_[grid, theta_svm], np.c_[X, y]])
    loc = _legend_place(ax, points, ("lower right", "lower left", "upper right", "upper left"), LEGEND_BOX["fit"])
    if loc is None:  # data in every corner: make room below it
        y0, y1 = ax.get_ylim()
        h = LEGEND_BOX["fit"][1]
        ax.set_ylim(y0 - h / (1 - h) * (y1 - y0), y1)
        loc = "lower right"
    ax.legend(loc=loc)


def draw_evidence_curves(ax, C, log_full, log_naive, C_true=None):
    """Full and naive log evidence against C (each shifted to maximum 0), maxima marked."""
    for values, label, style in ((log_full, "full", "-"), (log_naive, "naive", "--")):
        shifted = values - np.max(values)
        line, = ax.plot(C, shifted, style, label=f"{label}: max at C = {C[np.argmax(values)]:.2f}")
        ax.plot(C[np.argmax(values)], 0, "o", color=line.get_color())
    if C_true is not None:
        ax.axvline(C_true, color="0.5", lw=1, label=f"true C = {C_true:g}")
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(FixedLocator(C_TICKS))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([f"{c:g}" for c in C_TICKS])
    lo = min(np.min(log_full - np.max(log_full)), np.min(log_naive - np.max(log_naive)))
    bottom = max(lo, -15)
    ax.set(xlabel="C (with C K0 fixed)", ylabel="log evidence - max", ylim=(bottom, 1), xlim=(C[0], C[-1]),
           yticks=np.arange(0, bottom - 1e-9, -5 if bottom < -6 else -2))
    ax.set_title("evidence", y=1.0)
    points = np.concatenate([np.c_[C, log_full - np.max(log_full)], np.c_[C, log_naive - np.max(log_naive)]])
    loc = _legend_place(ax, points, ("lower center", "lower left", "lower right", "upper right", "upper left"),
                        LEGEND_BOX["evidence"])
    if loc is None:  # curves in every candidate box: make room above the maxima (at 0)
        y0, y1 = ax.get_ylim()
        h = LEGEND_BOX["evidence"][1]
        ax.set_ylim(y0, y1 + h / (1 - h) * (y1 - y0))
        loc = "upper right"
    ax.legend(loc=loc)


def draw_class_probability(ax, grid, p_true, p_svm, p_other=None, other_label=None, legend=True):
    """True P(y = +1 | x) against the plug-in estimate (and optionally another, e.g. Platt).

    ``legend=False`` when a neighbouring panel already explains the line styles.
    """
    ax.plot(grid, p_true, label="true")
    ax.plot(grid, p_svm, "--", label="SVM plug-in")
    if p_other is not None:
        ax.plot(grid, p_other, ":", label=other_label)
    ax.set(xlabel="$x$", ylabel="$P(y=+1|x)$", ylim=(-0.02, 1.02), xticks=[0, 0.5, 1], yticks=[0, 0.5, 1])
    ax.set_title("class probability", y=1.0)
    if legend:
        ax.legend(loc="upper right" if p_true[0] < 0.5 else "lower right")


def draw_evidence_state(fig, state, *, fixed_layout=False):
    """Widget view: data and fit, evidence curves, class probability (line styles as in the first panel).

    ``fixed_layout=True`` drops the layout engine for fixed margins (one render pass, for callers
    that redraw often outside an :class:`~svmlib.widgets.Explorer`, which reuses its first layout
    by itself).
    """
    if fixed_layout:
        drop_layout_engine(fig)
        axes = fig.subplots(1, 3, gridspec_kw=dict(left=0.06, right=0.99, bottom=0.15, top=0.91, wspace=0.3))
    else:
        axes = fig.subplots(1, 3)
    ax1, ax2, ax3 = axes
    draw_toy_fit(ax1, state["grid"], state["theta_true"], state["theta_svm"], state["X"], state["y"])
    draw_evidence_curves(ax2, state["C"], state["log_full"], state["log_naive"], state["C_true"])
    draw_class_probability(ax3, state["grid"], state["p_true"], state["p_svm"], legend=False)


def draw_sollich_fig2(fig, grid, theta_true, theta_svm, X, y, C, log_full, log_naive, C_true, p_true, p_svm):
    """Sollich's Fig. 2 as the paper lays it out: the target latent function, the SVM's theta* and the
    data on the left (full height); the evidence against C top right (full and naive, shifted to
    maximum 0); the true and the plug-in class probability bottom right."""
    gs = fig.add_gridspec(2, 2, width_ratios=(1.15, 1.0))
    ax_fit = fig.add_subplot(gs[:, 0])
    ax_ev = fig.add_subplot(gs[0, 1])
    ax_p = fig.add_subplot(gs[1, 1])
    draw_toy_fit(ax_fit, grid, theta_true, theta_svm, X, y)
    ax_fit.set_title("target and SVM", y=1.0)
    draw_evidence_curves(ax_ev, C, log_full, log_naive, C_true)
    ax_ev.set_xlabel("$C$ (with $CK_0$ fixed)")
    ax_ev.set_ylabel("ln evidence $-$ max")
    ax_ev.legend(loc="upper right")  # the curves fall away from the corner right of the maxima
    draw_class_probability(ax_p, grid, p_true, p_svm)
    ax_p.set_title("class probability at the evidence maximum", y=1.0)
    return ax_fit, ax_ev, ax_p


def draw_normaliser(ax, C, log_chain, se_chain, log_mc, n):
    """ln <N^n> against C: the chained sampler with its error bar and plain Monte Carlo."""
    ax.fill_between(C, np.asarray(log_chain) - 2 * np.asarray(se_chain), np.asarray(log_chain) + 2 * np.asarray(se_chain),
                    color="C0", alpha=0.25, lw=0)
    ax.plot(C, log_chain, "-", color="C0", label=r"chained sampler ($\pm 2$ s.e.)")
    ax.plot(C, log_mc, "--", color="C1", label="plain Monte Carlo, 2000 draws")
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(FixedLocator(C_TICKS))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([f"{c:g}" for c in C_TICKS])
    ax.set(xlabel="$C$ (with $CK_0 = 10$)", ylabel=f"$\\ln\\langle N^{{{n}}}\\rangle$", xlim=(C[0], C[-1]))
    ax.legend(loc="lower left")
