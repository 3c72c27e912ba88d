"""Widget of the chapter "SVMs in practice": kernel, C and epsilon -> the epsilon-tube of an SVR.

:func:`fit_svr_state` is the plain function behind the widget: fit :class:`svmlib.svr.DualSVR`
(eqs. :eq:`(5.2) <svr-primal>` / :eq:`(5.6) <svr-dual>` of the chapter) on a seeded 1-D regression problem and evaluate it
on a grid; it is tested headless in ``tests/test_widgets_svr.py``.
"""

from __future__ import annotations

import functools

import numpy as np

from ..kernels import Linear, Polynomial, RBF
from ..plotting.svr import draw_svr_tube
from ..svr import DualSVR
from ._base import Explorer, dropdown, slider

__all__ = ["KERNELS", "svr_data", "fit_svr_state", "svr_explorer", "LATENCY_CASES"]

KERNELS = ("rbf", "poly", "linear")


def svr_data(n=40, noise=0.1, random_state=0):
    """Seeded 1-D data: ``y = sinc(x) + noise`` on ``x`` uniform in [-3, 3]; returns (X (n, 1), y, truth)."""
    rng = np.random.default_rng(random_state)
    x = np.sort(rng.uniform(-3.0, 3.0, n))
    return x[:, None], np.sinc(x) + noise * rng.normal(size=n), np.sinc


def _kernel(kernel, l, p):
    if kernel == "rbf":
        return RBF(l=float(l)), f"RBF l = {float(l):.3g}"
    if kernel == "poly":
        return Polynomial(p=int(p), c0=1.0), f"(1 + x x')^{int(p)}"
    if kernel == "linear":
        return Linear(), "linear"
    raise ValueError(f"kernel must be one of {KERNELS}, got {kernel!r}.")


@functools.lru_cache(maxsize=256)
def fit_svr_state(kernel="rbf", l=0.5, C=10.0, epsilon=0.1, p=5, n=40, tol=1e-3):
    """Fit ``DualSVR`` on :func:`svr_data` and return what the figure needs.

    Returns
    -------
    dict with ``X, y, grid, f_grid, truth, epsilon, is_support, on_edge`` (support vectors with
    ``0 < alpha < C``, on the tube's edge), ``n_support, n_bound, n_outside, label, ylim, reg``.
    """
    X, y, truth = svr_data(n)
    k, name = _kernel(kernel, l, p)
    scale = 1.0 if kernel == "rbf" else 3.0  # linear/poly kernels on x / 3 in [-1, 1]: (1 + x x')^p stays O(1)
    reg = DualSVR(C=float(C), epsilon=float(epsilon), kernel=k, tol=tol).fit(X / scale, y)
    grid = np.linspace(-3.0, 3.0, 241)
    f_grid = reg.predict(grid[:, None] / scale)
    coef = reg.alpha_ - reg.alpha_star_
    is_support = np.abs(coef) > 0
    bound = np.maximum(reg.alpha_, reg.alpha_star_) >= float(C) * (1 - 1e-12)
    on_edge = is_support & ~bound
    return {
        "X": X, "y": y, "grid": grid, "f_grid": f_grid, "truth": truth(grid), "epsilon": float(epsilon),
        "is_support": is_support, "on_edge": on_edge, "n_support": int(is_support.sum()),
        "n_bound": int(on_edge.sum()), "n_outside": int((is_support & bound).sum()),
        "label": f"{name}, C = {float(C):.3g}, ε = {float(epsilon):.3g}", "ylim": (-0.6, 1.6),
        "kernel": kernel, "C": float(C),
    }


def svr_explorer(kernel="rbf", l=0.5, C=10.0, epsilon=0.1, p=5):
    """Kernel dropdown; length scale l (RBF), degree p (polynomial), C and epsilon sliders."""
    controls = {
        "kernel": dropdown(list(KERNELS), kernel, "kernel"),
        "l": slider(float(l), -1, 0.5, 0.1, "length scale l (rbf)", log=True),
        "p": slider(int(p), 1, 6, 1, "degree p (poly)"),
        # C <= 100: beyond it SMO needs 10^4-10^5 steps for the linear and polynomial kernels (seconds per event)
        "C": slider(float(C), -2, 2, 0.25, "C", log=True),
        "epsilon": slider(float(epsilon), 0.0, 0.5, 0.01, "ε (tube half-width)"),
    }
    # static form: epsilon x C (RBF, l = 0.5), 9 frames (fewer than 10: no progress bar in the stored notebook)
    grid = {"epsilon": [0.0, 0.1, 0.3], "C": [0.1, 1.0, 10.0]}
    return Explorer(fit_svr_state, draw_svr_tube, controls, figsize=(8, 4), grid=grid)


LATENCY_CASES = [
    (svr_explorer, "epsilon", [0.0, 0.05, 0.3, 0.5]),
    (svr_explorer, "C", [0.01, 1.0, 100.0]),
    (svr_explorer, "l", [0.1, 1.0, 3.0]),
    (svr_explorer, "kernel", ["poly", "linear", "rbf"]),
]
