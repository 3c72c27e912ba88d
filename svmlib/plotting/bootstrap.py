"""Figures of :ref:`Chapter 9 <ch-replica>` (the bootstrap without resampling). Draw only; compute in svmlib.bootstrap."""

from __future__ import annotations

import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.ticker import FixedFormatter, FixedLocator, MaxNLocator, NullLocator
from scipy.stats import norm

from .._book_numbers import eq

__all__ = ["draw_learning_curves", "draw_learning_curve_panels", "draw_calibration", "draw_field_histogram", "draw_cavity_state", "draw_field_state", "draw_width_scan"]


def draw_learning_curves(ax, curves, *, loo=None, title=None):
    """Theory lines and Monte Carlo symbols (with 2 SE bars) of eps(S/N) for several data sets.

    ``curves``: list of dicts with keys label, S_theory, eps_theory, S_mc, eps_mc, se_mc;
    ``loo``: optional list of dicts with label, ow, exact (drawn as markers at the right edge).
    """
    for k, c in enumerate(curves):
        colour = f"C{k}"
        ax.plot(c["S_theory"], c["eps_theory"], "-", color=colour, label=c["label"])
        if len(c.get("S_mc", ())):
            ax.errorbar(c["S_mc"], c["eps_mc"], yerr=2 * np.asarray(c["se_mc"]), fmt="o", color=colour, ms=4,
                        capsize=2)
        if loo is not None:
            x_right = max(c["S_theory"]) * 1.25
            ax.plot([x_right], [loo[k]["ow"]], ">", color=colour, ms=7)
            ax.plot([x_right], [loo[k]["exact"]], "x", color=colour, ms=7)
    ax.set_xscale("log")
    ax.set_xlabel("S / N")
    ax.set_ylabel("bootstrapped test error")
    if title:
        ax.set_title(title)
    ax.legend(fontsize="small")


def draw_field_histogram(ax, samples, mean, var, *, title=None):
    """Monte Carlo histogram of the field at one input against the theory's Gaussian."""
    ax.hist(samples, bins=30, density=True, color="0.75", label="Monte Carlo")
    lo, hi = min(samples.min(), mean - 4 * np.sqrt(var)), max(samples.max(), mean + 4 * np.sqrt(var))
    h = np.linspace(lo, hi, 300)
    ax.plot(h, norm.pdf(h, mean, np.sqrt(var)), "C0", label="theory")
    ax.axvline(0, color="k", lw=0.8)
    ax.set_xlabel("field f(x)")
    if title:
        ax.set_title(title)


def draw_width_scan(ax, widths, error_632, slope_632, *, mc=None, best=None, tangent=0.12):
    """The theory's 0.632 estimate against the kernel width, its gradient as short tangents.

    ``widths``: x values (e.g. l / sqrt(d)); ``slope_632``: derivatives in ln(width);
    ``mc``: optional (widths, estimates, standard errors) drawn with 2 SE bars;
    ``best``: optional (width, estimate) of the minimum; ``tangent``: half-length in ln(width).
    """
    widths = np.asarray(widths, dtype=float)
    ax.plot(widths, error_632, "C0-", label="theory")
    segments = [[(w * np.exp(-tangent), e - s * tangent), (w * np.exp(tangent), e + s * tangent)]
                for w, e, s in zip(widths, error_632, slope_632)]
    ax.add_collection(LineCollection(segments, colors="C1", linewidths=2, label=f"gradient (eq. {eq('boot-implicit')})"))
    if mc is not None:
        w_mc, e_mc, se_mc = (np.asarray(a, dtype=float) for a in mc)
        ax.errorbar(w_mc, e_mc, yerr=2 * se_mc, fmt="ks", ms=4, capsize=2, label="Monte Carlo")
    if best is not None:
        ax.axvline(best[0], color="0.5", ls="--", lw=1)
        ax.plot([best[0]], [best[1]], "C3*", ms=12, label="minimum (L-BFGS-B)")
    ax.set_xscale("log")
    ticks = [t for t in (0.1, 0.2, 0.5, 1.0, 2.0, 4.0) if widths.min() * 0.9 <= t <= widths.max() * 1.1]
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
    ax.set_xlabel(r"kernel width $l / \sqrt{d}$")
    ax.set_ylabel("0.632 estimate")
    ax.legend(fontsize="small")


def draw_cavity_state(fig, state):
    """Widget figure: learning-curve point (left) and per-point cavity Gaussians (right).

    Drawn for every widget event (<= 150 ms incl. rendering): few ticks (tick labels are most
    of matplotlib's drawing time), one LineCollection for the Gaussians.
    """
    ax1, ax2 = fig.subplots(1, 2)
    ax1.plot(state["S_grid"], state["eps_grid"], "C0-")
    ax1.plot([state["S_over_N"]], [state["error"]], "C1o", ms=8)
    ax1.set_xscale("log")
    ax1.xaxis.set_minor_locator(NullLocator())
    ax1.set_xticks(state["S_grid"], [f"{s:g}" for s in state["S_grid"]])
    ax1.yaxis.set_major_locator(MaxNLocator(4))
    ax1.set_xlabel("S / N")
    ax1.set_ylabel("eps(S) (theory)")
    ax1.set_title(f"eps = {state['error']:.4f}")  # no iteration count: where the stopping test lands is round-off
    h = np.linspace(-4, 4, 200)
    curves = [np.column_stack([h, norm.pdf(h, m, np.sqrt(v))]) for m, v in zip(state["m_c"], state["V_c"])]
    colours = ["C0" if y > 0 else "C1" for y in state["y"]]
    ax2.add_collection(LineCollection(curves, colors=colours, lw=1))
    ax2.axvline(0, color="k", lw=0.8)
    ax2.set_xlim(-4, 4)
    ax2.set_ylim(0, 3)
    ax2.set_xticks([-4, -2, 0, 2, 4])
    ax2.set_yticks([0, 1, 2, 3])
    ax2.set_xlabel("y-labelled field at left-out training points")
    ax2.set_title("cavity Gaussians N(m_c, V_c)")


def draw_field_state(fig, state):
    """Widget figure: the bootstrap distribution of the field at one held-out input."""
    ax = fig.subplots()
    draw_field_histogram(ax, state["samples"], state["mean"], state["var"],
                         title=f"held-out input {state['index']}: P(y=-1|x) theory {state['p_theory']:.3f}, "
                               f"MC {state['p_mc']:.3f}")
    ax.legend()


def draw_learning_curve_panels(fig, curves, *, x_limit=64.0):
    """Fig. 1 (left) of Malzahn and Opper (2004), one panel per data set: theory line, Monte Carlo symbols, limits S -> infinity.

    ``curves``: list of dicts with keys label, S_theory, eps_theory, S_mc, eps_mc, se_mc, ow, exact.
    The two S -> infinity limits are drawn at the position labelled "inf" (``x_limit``), right of a
    dotted line: the Opper-Winther approximate leave-one-out error (the theory's limit, a triangle)
    and the exact leave-one-out error (the Monte Carlo bootstrap's limit, a cross).
    Monte Carlo symbols carry two standard errors. Returns the axes.
    """
    n = len(curves)
    cols = 2 if n > 1 else 1
    axes = np.atleast_1d(fig.subplots((n + cols - 1) // cols, cols, sharex=True)).ravel()
    ticks = [0.25, 1.0, 4.0, 16.0, x_limit]
    labels = ["1/4", "1", "4", "16", r"$\infty$"]
    for ax, c in zip(axes, curves):
        ax.plot(c["S_theory"], c["eps_theory"], "C0-", lw=1.8, label="theory (replica / ADATAP)")
        ax.errorbar(c["S_mc"], c["eps_mc"], yerr=2 * np.asarray(c["se_mc"]), fmt="ks", ms=4, capsize=2,
                    label="Monte Carlo (2 s.e.)")
        ax.plot([x_limit], [c["ow"]], "C0>", ms=8, label="Opper-Winther LOO (theory's limit)")
        ax.plot([x_limit], [c["exact"]], "kx", ms=8, mew=2, label="exact LOO (Monte Carlo's limit)")
        ax.axvline(np.sqrt(16.0 * x_limit), color="0.6", ls=":", lw=1)
        ax.set_xscale("log")
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticks(ticks, labels)
        ax.set_xlim(0.18, x_limit * 1.6)
        ax.yaxis.set_major_locator(MaxNLocator(4))
        ax.set_title(c["label"])
    for ax in axes[len(curves):]:
        ax.set_visible(False)
    for ax in axes[-cols:]:
        ax.set_xlabel("S / N")
    for ax in axes[::cols]:
        ax.set_ylabel(r"test error $\varepsilon(S)$")
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(handles, names, loc="lower center", ncol=2, fontsize="small", frameon=False)
    return axes


def draw_calibration(ax, p_mc, p_theory, n_samples):
    r"""P(y = -1 | x) of the theory against Monte Carlo at held-out inputs, on logit axes.

    Most held-out inputs have probabilities within 1e-3 of 0 or 1, which a linear axis piles
    into two corners. Monte Carlo frequencies of 0 or 1 are drawn at 1/(2 n_samples) from the
    edge (the resolution of ``n_samples`` bootstrap samples), marked as open symbols.
    """
    p_mc = np.asarray(p_mc, dtype=float)
    floor = 0.5 / n_samples
    edge = (p_mc < floor) | (p_mc > 1 - floor)
    p_plot = np.clip(p_mc, floor, 1 - floor)
    p_th = np.clip(np.asarray(p_theory, dtype=float), 1e-4, 1 - 1e-4)
    ax.plot(p_plot[~edge], p_th[~edge], "o", color="C0", ms=5, label="0 < MC frequency < 1")
    ax.plot(p_plot[edge], p_th[edge], "o", mfc="none", color="C0", ms=5, label="MC frequency 0 or 1")
    ax.plot([1e-4, 1 - 1e-4], [1e-4, 1 - 1e-4], "k-", lw=0.8)
    ax.set_xscale("logit")
    ax.set_yscale("logit")
    ax.set_xlim(1e-4 * 0.7, 1 - 1e-4 * 0.7)
    ax.set_ylim(1e-4 * 0.7, 1 - 1e-4 * 0.7)
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(FixedLocator([1e-3, 0.5, 1 - 1e-3]))
        axis.set_major_formatter(FixedFormatter(["0.001", "0.5", "0.999"]))
        axis.set_minor_locator(NullLocator())
    ax.set_xlabel("P(y=-1|x), Monte Carlo")
    ax.set_ylabel("P(y=-1|x), theory")
    ax.legend(fontsize="small", loc="lower right")  # the corner where theory says -1 is unlikely and MC that it is sure: empty
