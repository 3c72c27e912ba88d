r"""Hyperplane geometry and the maximum-margin (hard-margin) classifier.

:ref:`Chapter 1 <ch-margin>` of the book. A hyperplane :math:`\{x : w \cdot x + b = 0\}` splits the
input space in two; the classifier is :math:`\operatorname{sign}(w \cdot x + b)`.

* :func:`line_from_angle` -- a line in the plane from the direction of its normal
  (an angle) and its signed distance from the origin (an offset): the two
  numbers the chapter's widget lets the reader choose.
* :func:`signed_distances` -- :math:`(w \cdot x_i + b) / \lVert w \rVert`
  (eq. :eq:`(1.2) <margin-signed-distance>`).
* :func:`geometric_margin` -- the distance from the hyperplane to the closest
  training point, negative when some point is on the wrong side
  (eq. :eq:`(1.3) <margin-geometric>`).
* :func:`canonical_hyperplane` -- rescale :math:`(w, b)` so the closest points
  have :math:`y_i (w \cdot x_i + b) = 1` (eq. :eq:`(1.4) <margin-canonical>`); then the margin
  band has width :math:`2 / \lVert w \rVert` (eq. :eq:`(1.5) <margin-width>`).
* :func:`best_margin_for_direction` -- for a fixed normal direction, the best
  offset and its margin (a one-dimensional problem solved exactly).
* :func:`max_margin_hyperplane` -- the hard-margin SVM (eq. :eq:`(1.7) <margin-hard-primal>`)
  solved through its dual with :func:`svmlib.dual.solve_dual` at ``C = inf``.
* :func:`is_linearly_separable` -- a linear-programming feasibility test, so the
  hard-margin problem is only attempted when it has a solution.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from ._threads import blas_single_thread
from ._validation import check_data, check_inputs

__all__ = [
    "line_from_angle",
    "angle_of",
    "signed_distances",
    "functional_margins",
    "geometric_margin",
    "canonical_hyperplane",
    "margin_width",
    "best_margin_for_direction",
    "is_linearly_separable",
    "MaxMarginSolution",
    "max_margin_hyperplane",
]


# ---------------------------------------------------------------------------
# lines and distances
# ---------------------------------------------------------------------------
def _check_finite_number(value, name):
    if isinstance(value, bool) or not np.isscalar(value) or not np.isreal(value):
        raise TypeError(f"{name} must be a real number, got {value!r}.")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}.")
    return value


def line_from_angle(angle, offset):
    r"""The line whose unit normal points at ``angle`` degrees, ``offset`` from the origin.

    Implements eq. :eq:`(1.1) <margin-hyperplane>` for a unit normal.

    Returns ``(w, b)`` with :math:`w = (\cos\theta, \sin\theta)` and :math:`b = -\text{offset}`,
    so the line is :math:`\{x : w \cdot x = \text{offset}\}` and points with
    :math:`w \cdot x > \text{offset}` are classified +1. Angles are in degrees because that
    is what a reader sets on a slider; ``angle`` and ``angle + 360`` give the same line.

    Parameters
    ----------
    angle : float
        Direction of the normal vector ``w``, in degrees, counter-clockwise from the x-axis.
    offset : float
        Signed distance of the line from the origin, measured along ``w``.

    Returns
    -------
    w : ndarray of shape (2,), unit length
    b : float

    Examples
    --------
    >>> from svmlib.margin import line_from_angle
    >>> w, b = line_from_angle(90.0, 1.5)
    >>> print(w.round(6) + 0.0, b)
    [0. 1.] -1.5
    """
    theta = np.deg2rad(_check_finite_number(angle, "angle"))
    offset = _check_finite_number(offset, "offset")
    return np.array([np.cos(theta), np.sin(theta)]), -offset


def angle_of(w):
    """Inverse of :func:`line_from_angle` for the direction: the angle of ``w`` in degrees, in [0, 360).

    A helper of :ref:`Chapter 1 <ch-margin>` (the direction of eq. :eq:`(1.1) <margin-hyperplane>`'s normal).

    Parameters
    ----------
    w : array_like of shape (2,)
        A non-zero normal vector.

    Returns
    -------
    float
        Its angle in degrees, in [0, 360).

    Examples
    --------
    >>> from svmlib.margin import angle_of
    >>> print(f'{angle_of([0.0, -2.0]):.1f}')
    270.0
    """
    w = _check_normal(w, 2)
    return float(np.rad2deg(np.arctan2(w[1], w[0])) % 360.0)


def _check_normal(w, n_features):
    w = np.asarray(w, dtype=float)
    if w.ndim != 1 or w.shape[0] != n_features:
        raise ValueError(
            f"w must be a 1-D normal vector with one entry per feature ({n_features}), got shape {w.shape}."
        )
    if not np.all(np.isfinite(w)):
        raise ValueError("w contains NaN or infinity; give a finite normal vector.")
    if not np.any(w):
        raise ValueError("w = 0 does not define a hyperplane; give a non-zero normal vector.")
    return w


def _check_hyperplane(X, w, b):
    X = check_inputs(X)
    w = _check_normal(w, X.shape[1])
    return X, w, _check_finite_number(b, "b")


def signed_distances(X, w, b):
    r"""Signed distances :math:`(w \cdot x_i + b) / \lVert w \rVert` of the rows of ``X``.

    Implements eq. :eq:`(1.2) <margin-signed-distance>`: positive on the side ``w`` points to.
    Rescaling ``(w, b)`` by any positive factor leaves them unchanged.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        Inputs.
    w : array_like of shape (n_features,)
        Non-zero normal vector.
    b : float
        Offset.

    Returns
    -------
    ndarray of shape (n_samples,)
        The signed distances.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 2.0], [3.0, 1.0], [-1.0, -1.0], [-2.0, 0.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> w, b = np.array([1.0, 1.0]), 0.0
    >>> from svmlib.margin import signed_distances
    >>> print(np.round(signed_distances(X, w, b), 4))
    [ 2.8284  2.8284 -1.4142 -1.4142]
    """
    X, w, b = _check_hyperplane(X, w, b)
    return (X @ w + b) / np.linalg.norm(w)


def functional_margins(X, y, w, b):
    r"""Functional margins :math:`y_i (w \cdot x_i + b)`: >= 1 for every point of a canonical separating hyperplane.

    The numerators of eq. :eq:`(1.3) <margin-geometric>`; eq. :eq:`(1.4) <margin-canonical>` makes their
    minimum 1.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        Inputs.
    y : array_like of shape (n_samples,)
        Two classes (the second in sorted order is the +1 side).
    w : array_like of shape (n_features,)
        Normal vector.
    b : float
        Offset.

    Returns
    -------
    ndarray of shape (n_samples,)
        :math:`y_i (w \cdot x_i + b)`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 2.0], [3.0, 1.0], [-1.0, -1.0], [-2.0, 0.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> w, b = np.array([1.0, 1.0]), 0.0
    >>> from svmlib.margin import functional_margins
    >>> print(functional_margins(X, y, w, b))
    [4. 4. 2. 2.]
    """
    X, y, _ = check_data(X, y)
    X, w, b = _check_hyperplane(X, w, b)
    return y * (X @ w + b)


def geometric_margin(X, y, w, b):
    r"""Geometric margin :math:`\min_i y_i (w \cdot x_i + b) / \lVert w \rVert` (eq. :eq:`(1.3) <margin-geometric>`).

    Implements eq. :eq:`(1.3) <margin-geometric>`.

    The distance from the hyperplane to the closest training point when the
    hyperplane separates the two classes; negative (minus the depth of the worst
    misclassified point) when it does not. Labels may be any two classes; the
    second class in sorted order is the +1 side.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        Inputs.
    y : array_like of shape (n_samples,)
        Two classes (the second in sorted order is the +1 side).
    w : array_like of shape (n_features,)
        Normal vector.
    b : float
        Offset.

    Returns
    -------
    float
        The geometric margin (negative when the hyperplane does not separate the data).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 2.0], [3.0, 1.0], [-1.0, -1.0], [-2.0, 0.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> w, b = np.array([1.0, 1.0]), 0.0
    >>> from svmlib.margin import geometric_margin
    >>> print(f'{geometric_margin(X, y, w, b):.4f}')
    1.4142
    """
    X, y, _ = check_data(X, y)
    return float(np.min(y * signed_distances(X, w, b)))


def margin_width(w):
    r"""Width :math:`2 / \lVert w \rVert` of the band between :math:`w \cdot x + b = \pm 1` (eq. :eq:`(1.5) <margin-width>`).

    Implements eq. :eq:`(1.5) <margin-width>`.

    Parameters
    ----------
    w : array_like of shape (n_features,)
        Normal vector of a canonical hyperplane.

    Returns
    -------
    float
        :math:`2/\lVert w \rVert`.

    Examples
    --------
    >>> from svmlib.margin import margin_width
    >>> print(margin_width([3.0, 4.0]))
    0.4
    """
    w = np.asarray(w, dtype=float)
    if w.ndim != 1:
        raise ValueError(f"w must be a 1-D vector, got shape {w.shape}.")
    return 2.0 / np.linalg.norm(_check_normal(w, w.shape[0]))


def canonical_hyperplane(X, y, w, b):
    r"""Rescale a separating hyperplane so that :math:`\min_i y_i (w \cdot x_i + b) = 1`.

    Eq. :eq:`(1.4) <margin-canonical>`: the same hyperplane, normalised so that the closest points lie on
    :math:`w \cdot x + b = \pm 1`. Raises ValueError when ``(w, b)`` does not separate the data
    (no positive rescaling can then make every functional margin >= 1).

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        Inputs.
    y : array_like of shape (n_samples,)
        Two classes (the second in sorted order is the +1 side).
    w : array_like of shape (n_features,)
        Normal vector.
    b : float
        Offset.

    Returns
    -------
    w : ndarray of shape (n_features,)
        Rescaled normal vector.
    b : float
        Rescaled offset.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 2.0], [3.0, 1.0], [-1.0, -1.0], [-2.0, 0.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> w, b = np.array([1.0, 1.0]), 0.0
    >>> from svmlib.margin import canonical_hyperplane, functional_margins
    >>> wc, bc = canonical_hyperplane(X, y, w, b)
    >>> print(f'{functional_margins(X, y, wc, bc).min():.4f}')
    1.0000
    """
    X, y, _ = check_data(X, y)
    X, w, b = _check_hyperplane(X, w, b)
    closest = float(np.min(y * (X @ w + b)))
    if closest <= 0:
        raise ValueError(
            "This hyperplane does not separate the two classes (some point has y (w.x + b) <= 0), "
            "so it has no canonical form; choose a separating hyperplane first."
        )
    return w / closest, b / closest


# ---------------------------------------------------------------------------
# best offset for one direction (exact, one-dimensional)
# ---------------------------------------------------------------------------
def best_margin_for_direction(X, y, angle):
    r"""Best offset and its geometric margin for lines with unit normal at ``angle`` degrees.

    Maximises eq. :eq:`(1.3) <margin-geometric>` over the offset, for a fixed direction.

    Projecting the data on :math:`w = (\cos\theta, \sin\theta)` reduces the problem to one
    dimension: with :math:`p_+ = \min_{y_i=+1} w \cdot x_i` and :math:`p_- = \max_{y_i=-1} w \cdot x_i`
    the best line sits midway, at offset :math:`(p_+ + p_-)/2`, with margin :math:`(p_+ - p_-)/2`
    (negative when the projections overlap). Maximising this over the angle is a brute-force
    route to the maximum margin that does not use the dual -- the book uses it as a check.

    ``angle`` may be an array; then both outputs are arrays of the same shape.

    Returns
    -------
    offset, margin : float or ndarray

    Parameters
    ----------
    X : array_like of shape (n_samples, 2)
        Inputs.
    y : array_like of shape (n_samples,)
        Two classes (the second in sorted order is the +1 side).
    angle : float or array_like
        Direction(s) of the normal, in degrees.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 2.0], [3.0, 1.0], [-1.0, -1.0], [-2.0, 0.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> w, b = np.array([1.0, 1.0]), 0.0
    >>> from svmlib.margin import best_margin_for_direction
    >>> offset, margin = best_margin_for_direction(X, y, 45.0)
    >>> print(f'{offset:.4f} {margin:.4f}')
    0.7071 2.1213
    """
    X, y, _ = check_data(X, y)
    if X.shape[1] != 2:
        raise ValueError(f"Lines from an angle live in the plane; X has {X.shape[1]} columns, not 2.")
    angles = np.asarray(angle, dtype=float)
    if not np.all(np.isfinite(angles)):
        raise ValueError("angle must be finite (degrees).")
    theta = np.deg2rad(angles.ravel())
    proj = X @ np.vstack([np.cos(theta), np.sin(theta)])  # (n, n_angles)
    p_plus = proj[y > 0].min(axis=0)
    p_minus = proj[y < 0].max(axis=0)
    offset = 0.5 * (p_plus + p_minus)
    margin = 0.5 * (p_plus - p_minus)
    if angles.ndim == 0:
        return float(offset[0]), float(margin[0])
    return offset.reshape(angles.shape), margin.reshape(angles.shape)


# ---------------------------------------------------------------------------
# separability and the hard-margin SVM
# ---------------------------------------------------------------------------
def is_linearly_separable(X, y):
    r"""True when some hyperplane has :math:`y_i (w \cdot x_i + b) \ge 1` for all i.

    Decides whether eq. :eq:`(1.7) <margin-hard-primal>` has a solution.

    A linear-programming feasibility problem (scipy's HiGHS): strict separability
    is exactly feasibility of these constraints, because any strictly separating
    hyperplane can be rescaled to meet them.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        Inputs.
    y : array_like of shape (n_samples,)
        Two classes.

    Returns
    -------
    bool
        Whether the data are strictly linearly separable.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 2.0], [3.0, 1.0], [-1.0, -1.0], [-2.0, 0.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> w, b = np.array([1.0, 1.0]), 0.0
    >>> from svmlib.margin import is_linearly_separable
    >>> print(is_linearly_separable(X, y), is_linearly_separable(X, np.array([1, -1, 1, -1])))
    True False
    """
    X, y, _ = check_data(X, y)
    n, d = X.shape
    # variables (w, b); constraints -y_i (x_i, 1) . (w, b) <= -1
    A_ub = -y[:, None] * np.hstack([X, np.ones((n, 1))])
    res = linprog(np.zeros(d + 1), A_ub=A_ub, b_ub=-np.ones(n), bounds=[(None, None)] * (d + 1),
                  method="highs")
    return bool(res.status == 0)


@dataclass
class MaxMarginSolution:
    """The maximum-margin hyperplane of a linearly separable data set.

    The solution of eq. :eq:`(1.7) <margin-hard-primal>`, with eq. :eq:`(1.8) <margin-w-expansion>`.

    Attributes
    ----------
    w : ndarray of shape (n_features,)
        Normal vector in canonical form (closest points have ``y (w.x + b) = 1``).
    b : float
        Offset.
    alpha : ndarray of shape (n_samples,)
        Dual variables (Lagrange multipliers); non-zero only on support vectors.
    support : ndarray of int
        Indices of the support vectors (``alpha > 0``).
    margin : float
        Geometric margin ``1 / ||w||``: distance from the hyperplane to the closest points.
    width : float
        Width of the margin band, ``2 / ||w||`` (eq. :eq:`(1.5) <margin-width>`).
    n_iter : int
    converged : bool

    Parameters
    ----------
    w, b, alpha, support, margin, width, n_iter, converged
        The fields below (a record returned by :func:`max_margin_hyperplane`).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 2.0], [3.0, 1.0], [-1.0, -1.0], [-2.0, 0.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> w, b = np.array([1.0, 1.0]), 0.0
    >>> from svmlib.margin import max_margin_hyperplane
    >>> sol = max_margin_hyperplane(X, y)
    >>> print(type(sol).__name__, sol.converged)
    MaxMarginSolution True
    """

    w: np.ndarray
    b: float
    alpha: np.ndarray
    support: np.ndarray
    margin: float
    width: float
    n_iter: int
    converged: bool

    def decision_function(self, X):
        """``w . x + b`` for the rows of ``X``."""
        X = check_inputs(X)
        if X.shape[1] != self.w.shape[0]:
            raise ValueError(f"X has {X.shape[1]} features; this hyperplane lives in {self.w.shape[0]} dimensions.")
        return X @ self.w + self.b

    def angle_offset(self):
        """(angle in degrees, offset) of this line in the parametrisation of :func:`line_from_angle`."""
        if self.w.shape[0] != 2:
            raise ValueError("angle_offset is defined for lines in the plane (2 features).")
        norm = np.linalg.norm(self.w)
        return angle_of(self.w), -self.b / norm


def max_margin_hyperplane(X, y, *, tol=1e-6, max_iter=None):
    r"""Solve the hard-margin SVM (eq. :eq:`(1.7) <margin-hard-primal>`) through its dual.

    Implements eqs. :eq:`(1.7) <margin-hard-primal>` and :eq:`(1.8) <margin-w-expansion>`.

    The dual (:ref:`Chapter 3 <ch-duality>`) is solved by SMO with :func:`svmlib.dual.solve_dual` on the linear
    Gram matrix :math:`K = X X^\top` with ``C = inf``; the normal vector is recovered as
    :math:`w = \sum_i \alpha_i y_i x_i`.

    Parameters
    ----------
    X : array of shape (n_samples, n_features)
    y : array of shape (n_samples,), two classes (the second in sorted order is +1)
    tol : float
        Stopping tolerance on the KKT violation, passed to the SMO solver. The default is
        tight because the book compares this solution with independent ones to ~1e-4.
    max_iter : int, optional

    Returns
    -------
    MaxMarginSolution

    Raises
    ------
    ValueError
        When the classes are not linearly separable: the hard-margin problem then has no
        solution; use the soft margin of :ref:`Chapter 2 <ch-soft-margin>` (a finite ``C``).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 2.0], [3.0, 1.0], [-1.0, -1.0], [-2.0, 0.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> w, b = np.array([1.0, 1.0]), 0.0
    >>> from svmlib.margin import max_margin_hyperplane
    >>> sol = max_margin_hyperplane(X, y)
    >>> print(f'{sol.margin:.4f}', np.round(sol.w, 4))
    2.1213 [0.3333 0.3333]
    """
    X, y, _ = check_data(X, y)
    if not is_linearly_separable(X, y):
        raise ValueError(
            "The two classes are not linearly separable, so no hyperplane has a (hard) margin. "
            "Use a soft margin with a finite C (svmlib.primal.PrimalSVC or svmlib.dual.DualSVC)."
        )
    from .dual import solve_dual  # :ref:`Chapter 3 <ch-duality>`'s module; imported here to keep the import graph flat

    with blas_single_thread():
        K = X @ X.T
        sol = solve_dual(K, y, C=np.inf, tol=tol, max_iter=max_iter)
        alpha = np.asarray(sol.alpha, dtype=float)
        w = X.T @ (alpha * y)  # eq. :eq:`(1.8) <margin-w-expansion>`: w = sum_i alpha_i y_i x_i
    # Support vectors: alpha above round-off relative to the largest multiplier.
    support = np.flatnonzero(alpha > 1e-8 * max(1.0, alpha.max(initial=0.0)))
    norm = float(np.linalg.norm(w))
    return MaxMarginSolution(
        w=w, b=float(sol.b), alpha=alpha, support=support, margin=1.0 / norm, width=2.0 / norm,
        n_iter=int(sol.n_iter), converged=bool(sol.converged),
    )
