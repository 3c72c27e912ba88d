""":ref:`Chapter 1 <ch-margin>` widget: choose a line by (angle, offset) and compare its margin with the maximum.

The expensive parts -- the maximum-margin solution and the margin-vs-angle profile --
are computed once in :class:`MarginModel`; a slider event only evaluates one line
(:meth:`MarginModel.compute`), which is plain NumPy and tested headless.
"""

from __future__ import annotations


import numpy as np

from ..datasets import make_blobs2d
from ..margin import best_margin_for_direction, line_from_angle, max_margin_hyperplane, signed_distances
from ..plotting.maximum_margin import draw_margin
from ._base import Explorer, slider

__all__ = ["chapter_data", "MarginModel", "margin_explorer", "LATENCY_CASES"]


def chapter_data():
    """The chapter's data: 30 points in two separable Gaussian blobs (seed 0)."""
    return make_blobs2d(30, separation=4.0, spread=0.8, random_state=0)


class MarginModel:
    """Precomputed pieces of the :ref:`Chapter 1 <ch-margin>` figure for one data set.

    Parameters
    ----------
    X, y : arrays, optional
        A linearly separable 2-D data set with labels -1/+1; default :func:`chapter_data`.
    """

    def __init__(self, X=None, y=None):
        if X is None:
            X, y = chapter_data()
        self.X = np.asarray(X, dtype=float)
        self.y = np.asarray(y, dtype=float)
        self.solution = max_margin_hyperplane(self.X, self.y)
        self.profile_angles = np.linspace(0.0, 360.0, 721)
        _, self.profile_margins = best_margin_for_direction(self.X, self.y, self.profile_angles)

    def compute(self, angle, offset=None):
        """State of the figure for the line at ``angle`` degrees and ``offset``.

        ``offset=None`` places the line at the best offset for that angle.
        """
        if offset is None:
            offset, _ = best_margin_for_direction(self.X, self.y, angle)
        w, b = line_from_angle(angle, offset)
        d = self.y * signed_distances(self.X, w, b)  # eq. :eq:`(1.2) <margin-signed-distance>` times the label
        return {
            "X": self.X, "y": self.y, "solution": self.solution,
            "angle": float(angle), "offset": float(offset), "w": w, "b": b,
            "margin": float(d.min()),                         # eq. :eq:`(1.3) <margin-geometric>`
            "misclassified": np.flatnonzero(d < 0),
            "closest": int(np.argmin(d)),
            "profile_angles": self.profile_angles, "profile_margins": self.profile_margins,
        }


def margin_explorer(X=None, y=None, *, angle=60.0, offset=0.0):
    """Sliders for the angle of the normal (degrees) and the offset of a line."""
    model = MarginModel(X, y)
    controls = {
        "angle": slider(float(angle), 0.0, 360.0, 1.0, "angle of w (deg)"),
        "offset": slider(float(offset), -3.0, 3.0, 0.05, "offset"),
    }
    # static form: 12 directions x 3 offsets (36 frames, ~0.3 MB)
    grid = {"angle": [float(a) for a in range(0, 360, 30)], "offset": [-1.0, 0.0, 1.0]}
    return Explorer(model.compute, draw_margin, controls, figsize=(9, 4), grid=grid)


LATENCY_CASES = [
    (margin_explorer, "angle", [10.0, 25.0, 80.0, 200.0]),
    (margin_explorer, "offset", [-1.0, 0.2, 0.9]),
]
