"""Figures of the chapter "SVMs in practice": the epsilon-tube of support vector regression."""

from __future__ import annotations

import numpy as np

from ._style import fixed_ticks

__all__ = ["draw_svr_tube", "svr_caption"]


def svr_caption(state):
    """One line under the widget: what the fit is and how many points are support vectors."""
    return (f"{state['label']}: {state['n_support']} of {len(state['y'])} points are support vectors "
            f"({state['n_bound']} on the tube's edge, {state['n_outside']} outside it)")


def draw_svr_tube(fig, state, ax=None):
    """The fit f(x), the tube f +- epsilon, the data; support vectors ringed (on the edge / outside).

    ``state`` is :func:`svmlib.widgets.svr.fit_svr_state`'s dictionary.
    """
    if ax is None:
        ax = fig.subplots()
    grid, f, eps = state["grid"], state["f_grid"], state["epsilon"]
    x, y = state["X"][:, 0], state["y"]
    ax.fill_between(grid, f - eps, f + eps, color="C0", alpha=0.18, lw=0, label=r"tube $f \pm \varepsilon$")
    ax.plot(grid, f, color="C0", lw=2, label="$f(x)$")
    if state.get("truth") is not None:
        ax.plot(grid, state["truth"], color="0.4", lw=1, ls="--", label="noise-free target")
    inside = ~state["is_support"]
    ax.scatter(x[inside], y[inside], s=16, color="0.35", zorder=3, label="inside the tube")
    on = state["on_edge"]
    out = state["is_support"] & ~on
    ax.scatter(x[on], y[on], s=60, facecolors="none", edgecolors="C2", lw=1.5, zorder=4,
               label=r"SV on the edge ($0<\alpha<C$)")
    ax.scatter(x[out], y[out], s=60, facecolors="none", edgecolors="C3", lw=1.5, marker="s", zorder=4,
               label=r"SV outside ($\alpha = C$)")
    fixed_ticks(ax, xlim=(grid.min(), grid.max()), ylim=state["ylim"])
    ax.set_xlabel("$x$")
    ax.set_ylabel("$y$")
    ax.legend(loc="upper right", fontsize="small", framealpha=0.9, ncol=2)  # >= 9 px on a phone
    ax.set_title(svr_caption(state), fontsize="small", y=1.0)
    return ax
