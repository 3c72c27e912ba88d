"""Figures of :ref:`Chapter 8 <ch-mean-field-gpc>` (mean-field GP classification). Draw only; the states come from svmlib.gpc."""

from __future__ import annotations

import numpy as np

from ._style import drop_layout_engine, fixed_ticks

__all__ = [
    "METHOD_LABELS",
    "draw_posterior_means",
    "draw_bias_vs_noise",
    "draw_hyper_history",
    "draw_online_errors",
    "draw_online_state",
]

METHOD_LABELS = {"naive": "naive MF", "ensemble": "ensemble MF", "ep": "EP (TAP)", "online": "online, 1 sweep"}
_MARKERS = {"naive": "^", "ensemble": "v", "ep": "o", "online": "s"}


def _two_panels(fig, fixed_layout, width_ratios, **margins):
    """Two axes side by side; ``fixed_layout`` swaps constrained layout (about a third of a widget
    redraw, profiled) for fixed margins."""
    if fixed_layout:
        drop_layout_engine(fig)  # not "none": any engine, even a placeholder, makes savefig draw twice
        return fig.subplots(1, 2, gridspec_kw={"width_ratios": width_ratios, **margins})
    return fig.subplots(1, 2, width_ratios=width_ratios)


def draw_posterior_means(fig, state, *, methods=("naive", "ensemble", "ep", "online"), fixed_layout=False):
    """Left: each method's posterior means <a_i> against MCMC (2 s.e. bars on the diagonal). Right: relative errors."""
    ax, bx = _two_panels(fig, fixed_layout, [1.4, 1], left=0.08, right=0.98, bottom=0.2, top=0.9, wspace=0.3)
    ref, se = state["mcmc"], state["mcmc_se"]
    lim = 1.1 * max(np.abs(ref).max(), max(np.abs(state["means"][m]).max() for m in methods))
    ax.plot([-lim, lim], [-lim, lim], color="0.6", lw=1, zorder=0)
    for m in methods:
        ax.scatter(ref, state["means"][m], marker=_MARKERS[m], s=16, alpha=0.85,
                   label=f"{METHOD_LABELS[m]} (slope {state['slope'][m]:.2f})")
    # The MCMC error bars (2 s.e.) once, at the diagonal: cheaper to draw than one set per method.
    ax.errorbar(ref, ref, xerr=2 * se, fmt="none", ecolor="0.3", lw=0.8, label="MCMC ± 2 s.e.")
    # Explicit limits and few ticks: each tick is rebuilt on every widget event (~1 ms, profiled).
    fixed_ticks(ax, xlim=(-lim, lim), ylim=(-lim, lim))
    ax.set(xlabel=r"MCMC $\langle a_i\rangle$", ylabel=r"approximate $\langle a_i\rangle$", aspect="equal")
    ax.legend(fontsize="small", loc="upper left")
    errs = [100 * state["rel_error"][m] for m in methods]
    bx.bar(range(len(methods)), errs, color=[f"C{k}" for k in range(len(methods))])
    bx.axhline(100 * state["mcmc_rel_se"], color="k", ls="--", lw=1, label="MCMC noise (1 s.e.)")
    bx.set_xticks(range(len(methods)), [METHOD_LABELS[m].split(",")[0] for m in methods], rotation=20)
    fixed_ticks(bx, ylim=(0.0, 1.05 * max(max(errs), 100 * state["mcmc_rel_se"])))  # autoscale's top, by hand
    bx.set_ylabel(r"$|m - m_{\rm MCMC}| / |m_{\rm MCMC}|$ (%)")
    # y=1.0: skips matplotlib's automatic title placement, which measures every tick label first
    bx.set_title(fr"$\sigma^2$ = {state['noise_var']:g}, $l$ = {state['length_scale']:g}", y=1.0)
    bx.legend(fontsize="small")


def draw_bias_vs_noise(fig, noise_levels, slopes):
    """Slope of each method's posterior means against MCMC's, as the noise shrinks (log x axis)."""
    ax = fig.subplots()
    for m, values in slopes.items():
        ax.semilogx(noise_levels, values, marker=_MARKERS.get(m, "o"), label=METHOD_LABELS.get(m, m))
    ax.axhline(1.0, color="0.5", lw=1)
    ax.invert_xaxis()
    ax.set(xlabel=r"probit noise $\sigma^2$ (decreasing →)", ylabel="slope of the means against MCMC",
           title="Naive MF overshoots, ensemble MF undershoots")
    ax.legend(fontsize="small")


def draw_hyper_history(fig, free_energies, test_errors, *, label="naive MF"):
    """Fig. 1 of Csató et al. (2000): free energy and test errors against hyperparameter updates."""
    ax, bx = fig.subplots(1, 2)
    it = np.arange(len(free_energies))
    ax.plot(it, free_energies, marker="o", ms=3)
    ax.set(xlabel="hyperparameter update", ylabel=f"free energy ({label})")
    bx.plot(it, test_errors, marker="o", ms=3, color="C1")
    bx.set(xlabel="hyperparameter update", ylabel="test errors (of 332)")


def draw_online_errors(fig, train_errors, test_errors, n_train, n_test, *, title=None):
    """Fig. 2 of Csató et al. (2000): training and test errors against examples presented; dashed line = end of sweep 1."""
    ax = fig.subplots()
    t = np.arange(1, len(train_errors) + 1)
    ax.plot(t, 100 * np.asarray(train_errors) / n_train, label=f"training error (of {n_train})")
    ax.plot(t, 100 * np.asarray(test_errors) / n_test, label=f"test error (of {n_test})")
    ax.axvline(n_train, color="k", ls="-.", lw=1, label="end of the single sweep")
    ax.set(xlabel="examples presented", ylabel="error (%)", ylim=(0, None), title=title)
    ax.legend(fontsize="small")


def draw_online_state(fig, state, *, fixed_layout=False):
    """Left: the online mean <f>(x) after t examples (seen points bold). Right: the error curves so far."""
    ax, bx = _two_panels(fig, fixed_layout, [1, 1.2], left=0.06, right=0.98, bottom=0.13, top=0.92, wspace=0.2)
    g = state["grid"]
    ax.contourf(g[0], g[1], state["f_grid"], levels=np.linspace(-2.5, 2.5, 11), cmap="RdBu_r", extend="both",
                alpha=0.6)
    if np.ptp(state["f_grid"]) > 0:
        ax.contour(g[0], g[1], state["f_grid"], levels=[0], colors="k", linewidths=1.5)
    X, y, seen = state["X"], state["y"], state["seen"]
    for label, colour in ((-1, "C0"), (1, "C1")):
        sel = y == label
        ax.scatter(*X[sel & ~seen].T, s=12, c=colour, alpha=0.3)
        ax.scatter(*X[sel & seen].T, s=26, c=colour, edgecolors="k", linewidths=0.7)
    if state["current"] is not None:
        ax.scatter(*X[state["current"]], s=160, facecolors="none", edgecolors="k", linewidths=2)
    fixed_ticks(ax, xlim=(g[0].min(), g[0].max()), ylim=(g[1].min(), g[1].max()))
    ax.set_aspect("equal")
    ax.set_title(f"after {state['t']} examples presented", y=1.0)  # y given: no automatic placement
    n = len(y)
    t_all = np.arange(1, len(state["train_errors"]) + 1)
    bx.plot(t_all, state["train_errors"], color="C0", alpha=0.25)
    bx.plot(t_all, state["test_errors"], color="C1", alpha=0.25)
    k = state["t"]
    bx.plot(t_all[:k], state["train_errors"][:k], color="C0", label=f"training errors (of {n})")
    bx.plot(t_all[:k], state["test_errors"][:k], color="C1", label=f"test errors (of {state['n_test']})")
    bx.axvline(n, color="k", ls="-.", lw=1)
    # The limits autoscaling would give (5 % margins, bottom at 0), set by hand for fixed ticks.
    top = max(np.max(state["train_errors"]), np.max(state["test_errors"]), 1)
    fixed_ticks(bx, xlim=(1 - 0.05 * (t_all[-1] - 1), t_all[-1] + 0.05 * (t_all[-1] - 1)), ylim=(0, 1.05 * top))
    bx.set(xlabel="examples presented", ylabel="errors")
    bx.legend(fontsize="small")
