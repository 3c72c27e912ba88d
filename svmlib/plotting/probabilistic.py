"""Figures of :ref:`Chapter 6 <ch-gp-prior>` (the SVM as a GP model): prior samples through P(y=+1|x), the likelihood."""

from __future__ import annotations

import numpy as np

from ..probabilistic import class_probability, likelihood, nu

__all__ = ["draw_likelihood", "draw_probability_map", "draw_prior_panels", "draw_prior_sample", "draw_sollich_fig1"]


def draw_likelihood(ax, C):
    """Q(+1|theta), Q(-1|theta) and their sum nu(theta) against theta (eqs. :eq:`(6.3) <gp-likelihood>`, :eq:`(6.4) <gp-nu>`)."""
    theta = np.linspace(-3, 3, 601)
    ax.plot(theta, likelihood(np.ones_like(theta), theta, C), label="$Q(+1|\\theta)$")
    ax.plot(theta, likelihood(-np.ones_like(theta), theta, C), label="$Q(-1|\\theta)$")
    ax.plot(theta, nu(theta, C), "k", label="$\\nu(\\theta)$")
    ax.fill_between(theta, nu(theta, C), 1, color="0.8", label="don't know")
    ax.set(xlabel="$\\theta$", ylabel="probability", ylim=(0, 1.02), title=f"$C = {C:g}$")
    ax.legend(loc="center left")  # theta < -1, between the flat Q(-1) and Q(+1): empty for every C


def draw_probability_map(ax, prob, title=""):
    """P(y = +1 | x) on the unit square in greyscale (black = +1, white = -1, grey = uncertain), as in Sollich's Fig. 1."""
    m = int(round(np.sqrt(prob.size)))
    ax.imshow(prob.reshape(m, m), origin="lower", extent=(0, 1, 0, 1), cmap="gray_r", vmin=0, vmax=1)
    ax.set(xticks=[0, 1], yticks=[0, 1])
    ax.set_title(title, y=1.0)  # a fixed position: automatic placement measures the tick labels
    ax.grid(False)


def draw_prior_panels(fig, panels, ncols=3):
    """A grid of probability maps; ``panels`` is a list of dicts with ``prob``, ``title``."""
    nrows = int(np.ceil(len(panels) / ncols))
    axes = fig.subplots(nrows, ncols, squeeze=False)
    for ax, panel in zip(axes.flat, panels):
        draw_probability_map(ax, panel["prob"], panel["title"])
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)


def draw_prior_sample(fig, state):
    """Widget view: the latent sample theta(x) with the gap |theta| < 1, and P(y = +1 | x).

    Redrawn on every widget event, so kept light: two ticks per axis, titles at a fixed height.
    """
    ax1, ax2 = fig.subplots(1, 2)
    m = state["m"]
    th = state["theta"].reshape(m, m)
    lim = max(1.5, float(np.abs(th).max()))
    ax1.imshow(th, origin="lower", extent=(0, 1, 0, 1), cmap="RdBu_r", vmin=-lim, vmax=lim)
    axis = (np.arange(m) + 0.5) / m  # cell centres, as on the grid
    ax1.contour(axis, axis, th, levels=[-1, 1], colors="k", linewidths=0.8)
    ax1.set(xticks=[0, 1], yticks=[0, 1])
    ax1.set_title("prior sample $\\theta(x)$; contours $\\theta = \\pm 1$", y=1.0)
    ax1.grid(False)
    draw_probability_map(ax2, class_probability(state["theta"], state["C"]),
                         f"$P(y=+1|x)$, gap share {state['gap_share']:.2f}")


def draw_sollich_fig1(fig, rows, C):
    """Sollich's Fig. 1 as the paper lays it out: one row per kernel, three columns -- a prior sample
    theta(x) on the unit square as a surface, its class probability P(y = +1 | x) in greyscale
    (black = +1, white = -1, grey = theta near 0, in the middle of the uncertainty gap), and the
    class probability of a variant (another amplitude, length scale or degree).

    ``rows`` is a list of dicts with ``theta`` (the sample on an m x m grid, flattened), ``theta_b``
    (the variant's sample), ``title`` and ``title_b``.
    """
    n = len(rows)
    axes = []
    for r, row in enumerate(rows):
        m = int(round(np.sqrt(row["theta"].size)))
        axis = (np.arange(m) + 0.5) / m
        gx, gy = np.meshgrid(axis, axis)
        ax3 = fig.add_subplot(n, 3, 3 * r + 1, projection="3d")
        ax3.plot_surface(gx, gy, row["theta"].reshape(m, m), cmap="RdBu_r", linewidth=0, antialiased=False,
                         rstride=1, cstride=1)
        ax3.set(xticks=[0, 1], yticks=[0, 1], xlabel="$x_1$", ylabel="$x_2$")
        ax3.set_zlabel("$\\theta(x)$", labelpad=-2)
        ax3.tick_params(pad=-2)
        ax3.set_title(row["title"], y=1.0)
        axes.append(ax3)
        for c, (key, title) in enumerate((("theta", "$P(y=+1|x)$"), ("theta_b", row["title_b"]))):
            ax = fig.add_subplot(n, 3, 3 * r + 2 + c)
            prob = class_probability(row[key], C).reshape(m, m)
            ax.imshow(prob, origin="lower", extent=(0, 1, 0, 1), cmap="gray_r", vmin=0, vmax=1)
            ax.set(xticks=[0, 1], yticks=[0, 1], xlabel="$x_1$")
            ax.set_ylabel("$x_2$", labelpad=-4)
            ax.set_title(title, y=1.0)
            ax.grid(False)
            axes.append(ax)
    return axes
