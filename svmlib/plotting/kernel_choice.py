"""Figures of :ref:`Chapter 4 <ch-kernels>` (kernels): decision boundary and support vectors of a kernel SVM."""

from __future__ import annotations

from ._style import fixed_ticks
from .maximum_margin import scatter_classes
from .smo import draw_decision_regions

__all__ = ["draw_kernel_boundary"]


def draw_kernel_boundary(fig, state, ax=None):
    """:ref:`Chapter 4 <ch-kernels>` widget: regions sign f(x), boundary f = 0, margins f = +-1, support vectors ringed."""
    if ax is None:
        ax = fig.subplots()
    X, y = state["X"], state["y"]
    draw_decision_regions(ax, state["grid_x"], state["grid_y"], state["grid_f"])
    scatter_classes(ax, X, y, s=18)
    sv = state["support"]
    ax.scatter(X[sv, 0], X[sv, 1], s=80, facecolors="none", edgecolors="black", lw=0.9,
               label=f"{sv.size} support vectors", zorder=4)
    fixed_ticks(ax, xlim=(state["grid_x"].min(), state["grid_x"].max()),
                ylim=(state["grid_y"].min(), state["grid_y"].max()))
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    # legend in a row above the panel: inside it, any corner is crossed by the boundary or the margins of some
    # kernel (the lower left one by those of the polynomial, RBF and OU machines of Fig. 4.1)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, fontsize=8, frameon=False,
              borderaxespad=0.1, handletextpad=0.3, columnspacing=1.2)
    # y=1.0: skips matplotlib's automatic title placement (see draw_margin); pad: above the legend's row
    ax.set_title(f"{state['label']}: train acc {state['train_accuracy']:.2f}, test acc {state['test_accuracy']:.2f}",
                 fontsize="small", y=1.0, pad=20)
    return ax
