""":ref:`Chapter 4 <ch-kernels>` widget: kernel and its parameters -> decision boundary and support vectors.

:func:`fit_kernel_state` is the plain function behind the widget: fit
:class:`svmlib.dual.DualSVC` with the chosen kernel and evaluate it on a grid.
"""

from __future__ import annotations

import functools

import numpy as np
from sklearn.datasets import make_moons

from ..dual import DualSVC
from ..kernels import Linear, OrnsteinUhlenbeck, Polynomial, RBF
from ..plotting.kernel_choice import draw_kernel_boundary
from ._base import Explorer, dropdown, slider

__all__ = ["chapter_data", "make_chapter_kernel", "KernelModel", "kernel_explorer",
           "LATENCY_CASES", "KERNELS"]

KERNELS = ("linear", "poly", "rbf", "ou")


def chapter_data(n_train=80, n_test=400, noise=0.25, random_state=0):
    """Two interleaved half-moons (scikit-learn's make_moons), labels -1/+1; a training and a test set."""
    X, y = make_moons(n_train + n_test, noise=noise, random_state=random_state)
    y = 2.0 * y - 1.0
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def make_chapter_kernel(kernel, p=3, l=0.5):
    """The kernel of the widget: linear, polynomial (1 + x.x')^p, RBF or Ornstein-Uhlenbeck with length l."""
    if kernel == "linear":
        return Linear(), "linear"
    if kernel == "poly":
        return Polynomial(p=int(p), c0=1.0), f"(1 + x.x')^{int(p)}"
    if kernel == "rbf":
        return RBF(l=float(l)), f"RBF, l = {float(l):.3g}"
    if kernel == "ou":
        return OrnsteinUhlenbeck(l=float(l)), f"OU, l = {float(l):.3g}"
    raise ValueError(f"kernel must be one of {KERNELS}, got {kernel!r}.")


class KernelModel:
    """Training/test data and a plotting grid; :meth:`compute` fits one kernel SVM (cached)."""

    def __init__(self, data=None, *, grid_size=60, tol=1e-3):
        self.X, self.y, self.X_test, self.y_test = chapter_data() if data is None else data
        lo, hi = self.X.min(axis=0) - 0.5, self.X.max(axis=0) + 0.5
        self.grid_x, self.grid_y = np.meshgrid(np.linspace(lo[0], hi[0], grid_size),
                                               np.linspace(lo[1], hi[1], grid_size))
        self.grid = np.column_stack([self.grid_x.ravel(), self.grid_y.ravel()])
        self.tol = tol

    @functools.lru_cache(maxsize=128)
    def compute(self, kernel="rbf", p=3, l=0.5, C=1.0):
        """Fit DualSVC (eq. :eq:`(4.1) <kernel-dual>`: the dual with K(x_i, x_j)) and evaluate f on the grid."""
        k, label = make_chapter_kernel(kernel, p, l)
        clf = DualSVC(C=float(C), kernel=k, tol=self.tol).fit(self.X, self.y)
        return {
            "X": self.X, "y": self.y, "label": f"{label}, C = {float(C):.3g}",
            "support": clf.support_, "n_iter": clf.n_iter_, "converged": clf.converged_,
            "train_accuracy": clf.score(self.X, self.y), "test_accuracy": clf.score(self.X_test, self.y_test),
            "grid_x": self.grid_x, "grid_y": self.grid_y,
            "grid_f": clf.decision_function(self.grid).reshape(self.grid_x.shape),
        }


def kernel_explorer(data=None, kernel="rbf", p=3, l=0.5, C=1.0):
    """Kernel dropdown; degree p (polynomial), length scale l (RBF, OU) and C sliders.

    Parameters
    ----------
    data : tuple or None
        ``(X, y, X_test, y_test)``; None: the chapter's two moons.
    kernel : {"linear", "poly", "rbf", "ou"}
        Initial kernel.
    p : int
        Initial polynomial degree (1 to 6).
    l : float
        Initial length scale of the RBF and OU kernels (0.1 to about 3.2, logarithmic slider).
    C : float
        Initial box constant (0.01 to 10, logarithmic slider).
    """
    model = KernelModel(data)
    controls = {
        "kernel": dropdown(list(KERNELS), kernel, "kernel"),
        "p": slider(int(p), 1, 6, 1, "degree p (poly)"),
        "l": slider(float(l), -1, 0.5, 0.1, "length scale l (rbf, ou)", log=True),
        # C <= 10: beyond it SMO needs thousands of steps on this overlapping data (> 150 ms per event)
        "C": slider(float(C), -2, 1, 0.25, "C", log=True),
    }
    # static form: RBF length scales x three C (27 frames)
    grid = {"l": [0.1, 0.15, 0.2, 0.3, 0.5, 0.8, 1.2, 2.0, 3.0], "C": [0.1, 1.0, 10.0]}
    return Explorer(model.compute, draw_kernel_boundary, controls, figsize=(6, 4.5), grid=grid)


LATENCY_CASES = [
    (kernel_explorer, "l", [0.15, 0.3, 1.0, 2.5]),
    (kernel_explorer, "C", [0.1, 3.0, 10.0]),
    (kernel_explorer, "kernel", ["poly", "ou", "linear"]),
]
