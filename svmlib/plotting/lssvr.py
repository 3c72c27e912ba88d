"""Figures of :ref:`Chapter 10 <ch-lssvr>` (LS-SVR as a Bayesian RBF network).

Every function draws a state computed by :mod:`svmlib.lssvr`; nothing expensive happens here.
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, NullLocator

from .._book_numbers import eq
from ._style import drop_layout_engine, fixed_ticks

__all__ = [
    "BAND_LABELS",
    "draw_sinc_bands",
    "draw_epsilon_convergence",
    "draw_epsilon_sweeps",
    "draw_prior_eigenvalues",
    "draw_prediction_distance",
    "draw_parameter_distance",
    "draw_sinc_seed",
    "sinc_caption",
]

BAND_LABELS = {
    "std_eq16": "preprint's eq. 16 (bias dropped)",
    "std_full": "full: bias row included",
    "gp_std": "GP posterior (same kernel, noise 1/C)",
}
def _plain_log_label(v, _pos=None):
    if 1e-2 <= v <= 1e2:
        return f"{v:g}"
    return f"{v:.0e}".replace("e+0", "e").replace("e-0", "e-")


_PLAIN_LOG = FuncFormatter(_plain_log_label)


def _light_log_axis(ax, axis="y", numticks=5):
    """Few major ticks and no minor ones: log axes with grid lines were the slowest part of a redraw."""
    target = ax.yaxis if axis == "y" else ax.xaxis
    target.set_major_locator(LogLocator(numticks=numticks))
    target.set_minor_locator(NullLocator())
    target.set_minor_formatter(NullFormatter())
    # Plain "1e-08" labels: the default 10^{k} labels go through mathtext, slow to lay out.
    target.set_major_formatter(_PLAIN_LOG)


_COLORS = {"std_eq16": "#CC79A7", "std_full": "#0072B2", "gp_std": "#009E73"}


def _sinc_panel(ax, state, key):
    x = state["x"]
    mean = state["gp_mean"] if key == "gp_std" else state["mean"]
    sd = state[key]
    ax.fill_between(x, mean - sd, mean + sd, color=_COLORS[key], alpha=0.3, lw=0, label="± 1 sd")
    ax.plot(x, state["f"], "k--", lw=1.0, label="sinc")
    ax.plot(x, mean, color=_COLORS[key], lw=1.5, label="posterior mean")
    for edge in state["data_range"]:
        ax.axvline(edge, color="#D55E00", ls=":", lw=1.0)
    # y=1.0 skips the automatic title placement (it measures every tick label first, ~4 ms per
    # panel and redraw, profiled); explicit few ticks because each tick is rebuilt per event.
    ax.set_title(state.get("labels", {}).get(key, BAND_LABELS[key]), y=1.0)  # a state may rename a band
    ax.set_xlabel("x")
    fixed_ticks(ax, xlim=(x[0], x[-1]), ylim=(-0.9, 1.5))


def _grid(fig, fixed_layout, **margins):
    """Gridspec keywords; ``fixed_layout`` swaps constrained layout (~60% of a widget redraw,
    profiled) for fixed margins."""
    if not fixed_layout:
        return {}
    drop_layout_engine(fig)  # not "none": any engine, even a placeholder, makes savefig draw twice
    return margins


def draw_sinc_bands(fig, state, *, keys=("std_eq16", "std_full", "gp_std"), fixed_layout=False, sd_panel=True):
    """The preprint's Fig. 4 with three variance bands side by side, and the three sds on a log scale below.

    The live widget passes ``fixed_layout=True, sd_panel=False``: fixed margins and one row of axes
    redraw in about half the time (profiled: empty axes were most of a redraw here).
    """
    names = list(keys)
    grid = _grid(fig, fixed_layout, left=0.07, right=0.99, bottom=0.1 if sd_panel else 0.14,
                 top=0.9 if sd_panel else 0.86, wspace=0.05, hspace=0.15)
    if sd_panel:
        axes = fig.subplot_mosaic([names, ["sd"] * len(names)], gridspec_kw={"height_ratios": [3, 1.4], **grid})
    else:
        axes = fig.subplot_mosaic([names], gridspec_kw=grid)
    for j, key in enumerate(names):
        ax = axes[key]
        _sinc_panel(ax, state, key)
        if j:
            ax.tick_params(labelleft=False)
        if sd_panel:
            axes["sd"].semilogy(state["x"], np.maximum(state[key], 1e-12), color=_COLORS[key],
                                label=state.get("labels", {}).get(key, BAND_LABELS[key]))
    axes[names[0]].set_ylabel("f(x)")
    axes[names[0]].legend(loc="upper left")
    title = (f"N = {len(state['X'])} sinc points, c = {state['c']:.3g}, C = {state['gamma']:.3g}, "
             f"ε = {state['eps']:.1g}")
    if not sd_panel:
        fig.suptitle(title, fontsize="medium")
        return axes
    sd = axes["sd"]
    for edge in state["data_range"]:
        sd.axvline(edge, color="#D55E00", ls=":", lw=1.0)
    sd.set_xlim(state["x"][0], state["x"][-1])
    sd.set_ylim(1e-6, 3.0)
    _light_log_axis(sd)
    sd.set_ylabel("sd of f(x)")
    sd.set_xlabel("x")
    sd.legend(loc="lower center", ncols=3)
    fig.suptitle(title, fontsize="medium")
    return axes


def draw_epsilon_convergence(fig, state, *, fixed_layout=False):
    """Left: LS-SVR and epsilon-LS-SVR predictions; right: the gap |beta_LS - mu*| against eps."""
    grid = _grid(fig, fixed_layout, left=0.07, right=0.98, bottom=0.14, top=0.9, wspace=0.28)
    ax, ax_gap = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.6, 1], **grid})
    ax.plot(state["X"], state["y"], "o", ms=3.5, color="0.4", label="data (sinc + 1)")
    ax.plot(state["x"], state["ls_pred"], color="#0072B2", lw=2.5, label="LS-SVR")
    ax.plot(state["x"], state["map_pred"], color="#D55E00", lw=1.5, ls="--", label="ε-LS-SVR MAP")
    ax.axhline(state["b_ls"], color="#0072B2", lw=0.8, ls=":")
    ax.axhline(state["b_map"], color="#D55E00", lw=0.8, ls=":")
    ax.set_xlabel("x")
    ax.set_ylabel("prediction")
    ax.set_title(f"bias: LS-SVR {state['b_ls']:.3f}, MAP {state['b_map']:.3f} (dotted)", y=1.0)  # y: see _sinc_panel
    # The limits autoscaling would give (5 % margins), set by hand so the ticks can be few and fixed.
    xs = np.concatenate([np.ravel(state["X"]), state["x"]])
    ys = np.concatenate([state["y"], state["ls_pred"], state["map_pred"], [state["b_ls"], state["b_map"]]])
    pad_x, pad_y = 0.05 * np.ptp(xs), 0.05 * max(np.ptp(ys), 1e-12)
    fixed_ticks(ax, xlim=(xs.min() - pad_x, xs.max() + pad_x), ylim=(ys.min() - pad_y, ys.max() + pad_y))
    ax.legend(loc="upper right")
    ax_gap.loglog(state["eps_grid"], state["gap_grid"], color="0.3", label="lemma (closed form)")
    ax_gap.loglog([state["eps"]], [max(state["gap"], 1e-300)], "o", color="#D55E00", ms=8,
                  label="measured at this ε")
    _light_log_axis(ax_gap, "x", 6)
    _light_log_axis(ax_gap, "y", 6)
    ax_gap.set_xlabel("ε")
    ax_gap.set_ylabel("|β_LS − μ*|")
    ax_gap.set_title(f"gap = {state['gap']:.2e}", y=1.0)
    ax_gap.legend(loc="upper left")
    return ax, ax_gap


def draw_epsilon_sweeps(fig, sweeps):
    """The preprint's Figs. 2 and 3: ARSE and parameter distance against eps, log-log, one line per set.

    ``sweeps`` maps a data-set name to an :class:`svmlib.lssvr.EpsilonSweep`. Markers are the
    measured distances (two separate solves), lines the lemma's closed form.
    """
    ax_arse, ax_dist = fig.subplots(1, 2, sharex=True)
    for k, (name, sw) in enumerate(sweeps.items()):
        color = f"C{k}"
        ax_arse.loglog(sw.eps, sw.arse_lemma, color=color, lw=1.2)
        ax_arse.loglog(sw.eps, sw.arse, "o", color=color, ms=4, label=name)
        ax_dist.loglog(sw.eps, sw.param_distance_lemma, color=color, lw=1.2)
        ax_dist.loglog(sw.eps, sw.param_distance, "o", color=color, ms=4, label=name)
    ax_arse.set_title("Fig. 2: ARSE of the predictions")
    ax_dist.set_title("Fig. 3: parameter distance |β_LS − μ*|")
    for ax in (ax_arse, ax_dist):
        ax.set_xlabel("ε")
    ax_arse.set_ylabel("distance")
    ax_dist.legend(title="markers: measured\nlines: lemma", loc="upper left")
    return ax_arse, ax_dist


def _distance_panel(ax, sweeps, measured, lemma, ylabel):
    for k, (name, sw) in enumerate(sweeps.items()):
        color = f"C{k}"
        ax.loglog(sw.eps, getattr(sw, lemma), color=color, lw=1.2)
        ax.loglog(sw.eps, getattr(sw, measured), "o", color=color, ms=5, label=name)
    ax.set_xlabel("ε (prior precision of the bias)")
    ax.set_ylabel(ylabel)
    _light_log_axis(ax, "x", 6)
    _light_log_axis(ax, "y", 6)
    ax.legend(title="markers: measured\nlines: lemma", loc="upper left", fontsize="small")
    return ax


def draw_prediction_distance(ax, sweeps):
    """The preprint's Fig. 2, one panel: mean absolute difference of the two models' predictions against eps.

    The preprint calls it ARSE ("average root square error"); its formula, (1/N) sum_i |f_eps(x_i) - f_LS(x_i)|,
    is a mean absolute difference. Markers: two separate solves; lines: the lemma.
    """
    return _distance_panel(ax, sweeps, "arse", "arse_lemma",
                           r"mean $|f_\varepsilon(x_i) - f_{LS}(x_i)|$ (ARSE)")


def draw_parameter_distance(ax, sweeps):
    """The preprint's Fig. 3, one panel: the parameter distance |beta_LS - mu*| against eps (log-log)."""
    return _distance_panel(ax, sweeps, "param_distance", "param_distance_lemma", r"$\|\beta_{LS} - \mu^*\|$")


def draw_sinc_seed(ax, state, key="std_eq16"):
    """The preprint's Fig. 4 as it lays it out: sinc (dashed black), the eps-LS-SVR mean (dashed magenta),
    +-1 sd (blue band, by default the preprint's eq. 16, the book's :eq:`(10.12) <lssvr-var16>`) and the range of
    the data (thin red dashed lines)."""
    x, mean, sd = state["x"], state["mean"], state[key]
    ax.fill_between(x, mean - sd, mean + sd, color="#56B4E9", alpha=0.5, lw=0, label=f"± 1 sd, eq. {eq('lssvr-var16')}")
    ax.plot(x, state["f"], "k--", lw=1.2, label="sinc")
    ax.plot(x, mean, "--", color="#CC79A7", lw=2.0, label="posterior mean")
    for edge in state["data_range"]:
        ax.axvline(edge, color="#D55E00", ls="--", lw=0.8)
    ax.set_xlim(x[0], x[-1])
    ax.set_xlabel("x")
    ax.set_ylabel("f(x)")
    ax.legend(loc="upper right", fontsize="small")
    return ax


def draw_prior_eigenvalues(ax, eps, smallest, *, label=None):
    """Smallest eigenvalue of the preprint's prior precision against eps (negative: no prior exists)."""
    ax.semilogx(eps, smallest, "o-", ms=4, label=label)
    ax.axhline(0.0, color="k", lw=0.8)
    ax.set_xlabel("ε")
    ax.set_ylabel("smallest eigenvalue of Σ⁻¹")
    return ax


def sinc_caption(state):
    """One line under the live band widget: the three sds far from the data (x = 3 pi) and at x = 0."""
    x = state["x"]
    i0, i_far = int(np.argmin(np.abs(x))), len(x) - 1
    parts = [f"{name}: {state[key][i0]:.3g} at x = 0, {state[key][i_far]:.2g} at x = 3π"
             for key, name in [("std_eq16", f"eq. {eq('lssvr-var16')}"), ("std_full", "full"), ("gp_std", "GP")]]
    return "sd of f(x) — " + "; ".join(parts)
