"""Auto-checked exercises of :ref:`Chapter 1 <ch-margin>` (maximum margin).

Call a checker with your answer; it returns a :class:`~svmlib.exercises.Feedback`
that says whether the answer is right and why.
"""

from __future__ import annotations

import numpy as np

from . import Feedback, as_number, as_numbers, close_enough

__all__ = ["FOUR_POINTS", "FOUR_LABELS", "check_max_margin_line", "check_distance_to_line", "check_best_margin"]

#: The data of exercise ex-margin-1: two points of each class in the plane.
FOUR_POINTS = np.array([[2.0, 0.0], [3.0, 1.0], [0.0, 0.0], [-1.0, 1.0]])
#: Their labels.
FOUR_LABELS = np.array([1.0, 1.0, -1.0, -1.0])

# The answer: the perpendicular bisector of the closest opposite pair (2,0)-(0,0) separates the
# data and has margin 1 = half their distance, and no line can do better (the margin is at most
# half the distance of any opposite pair), so it is the maximum-margin line; canonical form:
_W, _B = np.array([1.0, 0.0]), -1.0


def check_max_margin_line(w, b):
    """Check the canonical maximum-margin line ``(w, b)`` of :data:`FOUR_POINTS`.

    Canonical means the closest points satisfy ``y (w . x + b) = 1`` (eq. :eq:`(1.4) <margin-canonical>`).
    """
    w, b = as_numbers(w, 2), as_number(b)
    if w is None or b is None:
        return Feedback(False, "w must be a vector of two finite numbers, e.g. [0.5, 1.0], and b one finite number.")
    if not np.any(w):
        return Feedback(False, "w = 0 is not a line: the normal vector must be non-zero.")
    t = FOUR_LABELS * (FOUR_POINTS @ w + b)
    if np.any(t <= 0):
        bad = np.flatnonzero(t <= 0)
        return Feedback(False, f"This line does not separate the classes: point(s) {bad.tolist()} are on the "
                               "wrong side (or on the line). Check the sign of w: it must point to the +1 class.")
    if close_enough(w, _W, atol=1e-6) and close_enough(b, _B, atol=1e-6):
        return Feedback(True, "w = (1, 0), b = -1: the line x1 = 1 bisects the closest opposite pair "
                              "(2,0)-(0,0), its margin is 1/||w|| = 1, and no line can beat half the distance "
                              "of that pair.")
    gamma = t.min() / np.linalg.norm(w)
    if abs(gamma - 1.0) < 1e-6:
        return Feedback(False, f"This is the right line, but not in canonical form: the closest points have "
                               f"y (w.x + b) = {t.min():.4g}, not 1. Divide w and b by {t.min():.4g}.")
    return Feedback(False, f"Your line separates the data with geometric margin {gamma:.4g}, but the best "
                           "line has a larger one. Hint: which pair of opposite points is closest, and what "
                           "does half their distance bound?")


def _three_figures(answer, expected):
    """True if ``answer`` agrees with ``expected`` to three significant figures (hand work: 4.47 for 4.4721)."""
    value = as_number(answer)
    if value is None or expected == 0:
        return False
    half_unit = 0.5 * 10.0 ** (np.floor(np.log10(abs(expected))) - 2)  # half a unit in the third figure
    return abs(value - expected) <= half_unit * (1 + 1e-9)


def check_distance_to_line(answer, x=(3.0, 4.0), w=(1.0, 2.0), b=-1.0):
    """Check the signed distance of the point ``x`` from the line ``w . x + b = 0`` (eq. :eq:`(1.2) <margin-signed-distance>`).

    Hand work is enough: the answer must be right to three significant figures (4.47 for 4.4721...);
    more figures are fine.
    """
    x, w = np.asarray(x, dtype=float), np.asarray(w, dtype=float)
    expected = (x @ w + b) / np.linalg.norm(w)
    value = as_number(answer)
    if value is None:
        return Feedback(False, "Give the distance as one number, to at least three significant figures.")
    if _three_figures(value, expected):
        return Feedback(True, f"(w.x + b)/||w|| = {x @ w + b:g}/{np.linalg.norm(w):.4g} = {expected:.4g} "
                              "(checked to three significant figures).")
    if _three_figures(value, x @ w + b):
        return Feedback(False, "That is the functional margin w.x + b; divide by ||w|| to get a distance.")
    if _three_figures(value, -expected):
        return Feedback(False, "Right size, wrong sign: the point lies on the side w points to, so the "
                               "signed distance is positive.")
    if abs(value - expected) < 0.05 * abs(expected):
        return Feedback(False, f"Close, but the checker expects the value to three significant figures and {value:g} "
                               "does not round to it: keep more digits of ||w|| until the last step.")
    return Feedback(False, "Project x - x0 (x0 any point on the line) on the unit normal w/||w||. "
                           "Three significant figures are enough.")


# ----------------------------------------------------------------------------- write the direction scan
def _scan_cases():
    """Seeded (name, X, y, angle) cases for :func:`check_best_margin`."""
    from ..datasets import make_blobs2d

    X, y = make_blobs2d(30, separation=3.0, random_state=0)
    Xo, yo = make_blobs2d(40, separation=1.0, random_state=2)   # overlapping: negative margins
    return [("separable blobs, angle 20", X, y, 20.0), ("separable blobs, angle 200 (normal reversed)", X, y, 200.0),
            ("separable blobs, angle 95", X, y, 95.0), ("overlapping blobs, angle 0", Xo, yo, 0.0)]


def check_best_margin(best_margin):
    """Check a student's ``best_margin(X, y, angle) -> (offset, margin)``: the best offset and geometric margin
    of lines whose unit normal points at ``angle`` degrees (the brute-force scan of the chapter), compared with
    :func:`svmlib.margin.best_margin_for_direction` on seeded data, including a reversed normal and overlapping
    classes (negative margin).
    """
    from ..margin import best_margin_for_direction

    if not callable(best_margin):
        return Feedback(False, "Pass your function itself, e.g. check_best_margin(best_margin), not its result.")
    for name, X, y, angle in _scan_cases():
        want = np.array(best_margin_for_direction(X, y, angle))
        try:
            got = as_numbers(best_margin(X.copy(), y.copy(), angle), 2)
        except Exception as exc:  # noqa: BLE001 - the student's code may raise anything; report it
            return Feedback(False, f"Case '{name}': your function raised {type(exc).__name__}: {exc}")
        if got is None:
            return Feedback(False, f"Case '{name}': return two numbers, (offset, margin).")
        if close_enough(got, want, rtol=0, atol=1e-9):
            continue
        if close_enough(got, -want, rtol=0, atol=1e-9) or close_enough(got, [-want[0], want[1]], rtol=0, atol=1e-9):
            return Feedback(False, f"Case '{name}': the signs are mixed up. The +1 class must lie on the side the "
                                   "normal points to: offset = (min over +1 of w.x + max over -1 of w.x) / 2.")
        if abs(got[0] - want[0]) < 1e-9:
            return Feedback(False, f"Case '{name}': right offset, wrong margin ({got[1]:.4g}, expected {want[1]:.4g}): "
                                   "the margin is half the gap (min over +1 minus max over -1 of the projections).")
        if abs(got[1] - want[1]) < 1e-9:
            return Feedback(False, f"Case '{name}': right margin, wrong offset ({got[0]:.4g}, expected "
                                   f"{want[0]:.4g}): the best line sits midway between the two closest projections.")
        return Feedback(False, f"Case '{name}': (offset, margin) = ({got[0]:.4g}, {got[1]:.4g}), expected "
                               f"({want[0]:.4g}, {want[1]:.4g}). Project the points on w = (cos a, sin a) with a in "
                               "radians (np.deg2rad), then use the closest projections of the two classes.")
    return Feedback(True, "your scan equals svmlib.margin.best_margin_for_direction on every case (including a "
                          "reversed normal and overlapping classes, where the margin is negative).")
