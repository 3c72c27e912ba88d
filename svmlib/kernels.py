r"""Kernels: one small class per kernel, its formula in the docstring.

Every kernel has an amplitude ``K0`` and a constant offset ``B2`` (the book's
:math:`B^2`, the prior variance of the bias in the Gaussian-process view), so

.. math:: K(x, x') = K_0\, k(x, x') + B^2 .

Calling a kernel gives its Gram matrix, ``kernel(X, Y)[i, j] = K(X[i], Y[j])``;
``kernel(X)`` means ``kernel(X, X)``. Kernels are scikit-learn estimators as far
as parameters go (``get_params``/``set_params``/``clone`` work), so an SVM that
holds one can be grid-searched.

Parameter names are the book's symbols: ``l`` (length scale), ``p`` (degree),
``c0`` (polynomial offset), ``K0`` (amplitude), ``B2`` (bias variance).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.spatial.distance import cdist
from sklearn.base import BaseEstimator

from ._validation import check_inputs, check_kernel_matrix, check_positive, check_positive_int

__all__ = [
    "Kernel",
    "KernelOverflowWarning",
    "Linear",
    "Polynomial",
    "RBF",
    "OrnsteinUhlenbeck",
    "UserKernel",
    "make_kernel",
    "gram",
    "is_psd",
    "min_eigenvalue",
    "poly2_feature_map",
]


class KernelOverflowWarning(UserWarning):
    """A kernel evaluation on finite inputs gave infinite or NaN values: rescale the inputs.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from svmlib.kernels import KernelOverflowWarning, Linear
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     _ = Linear()(np.array([[1e200, 1e200]]))
    >>> any(issubclass(x.category, KernelOverflowWarning) for x in w)
    True
    """


class Kernel(BaseEstimator):
    r"""Base class: ``K(x, x') = K0 * k(x, x') + B2``; subclasses define ``k``.

    The Gram matrix :math:`K_{ij} = K(x_i, x_j)` is what the kernel dual (eq. :eq:`(4.1) <kernel-dual>`)
    needs; the subclasses are the kernels of eq. :eq:`(4.7) <kernel-list>`. The base class has no
    constructor of its own: each subclass takes its own parameters plus ``K0`` and ``B2``.

    Attributes
    ----------
    K0 : float
        The amplitude, as given (checked when the kernel is called).
    B2 : float
        The constant offset, as given (checked when the kernel is called).

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.kernels import RBF
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    >>> kernel = RBF(l=1.0, K0=2.0, B2=0.5)  # K = K0 k + B2
    >>> kernel(X).shape, kernel(X, X[:1]).shape
    ((3, 3), (3, 1))
    >>> kernel.diag(X).tolist()  # K0 + B2 on the diagonal
    [2.5, 2.5, 2.5]
    """

    def __call__(self, X, Y=None):
        X, Y = self._check_pair(X, Y)
        K0 = check_positive(self.K0, "K0")
        B2 = check_positive(self.B2, "B2", allow_zero=True)
        with np.errstate(over="ignore", invalid="ignore"):
            return self._warn_if_overflow(K0 * self._k(X, Y) + B2)

    def diag(self, X):
        """The diagonal ``K(x_i, x_i)`` without forming the Gram matrix."""
        X, _ = self._check_pair(X, None)
        K0 = check_positive(self.K0, "K0")
        B2 = check_positive(self.B2, "B2", allow_zero=True)
        with np.errstate(over="ignore", invalid="ignore"):
            return self._warn_if_overflow(K0 * self._k_diag(X) + B2)

    def _warn_if_overflow(self, K):
        """Warn (KernelOverflowWarning) when finite inputs gave infinite or NaN kernel values."""
        bad = ~np.isfinite(K)
        if bad.any():
            warnings.warn(
                f"{self!r} overflowed double precision: {int(bad.sum())} of {K.size} kernel values are "
                "infinite or NaN. Standardise X (sklearn.preprocessing.StandardScaler), or lower the "
                "degree p, K0 or the inputs' scale.", KernelOverflowWarning, stacklevel=3)
        return K

    # -- to override -------------------------------------------------------
    def _k(self, X, Y):  # pragma: no cover - abstract
        raise NotImplementedError

    def _k_diag(self, X):
        return np.array([self._k(x[None, :], x[None, :])[0, 0] for x in X])

    # -- helpers -------------------------------------------------------------
    def _check_pair(self, X, Y):
        X = check_inputs(X, name="X")
        Y = X if Y is None else check_inputs(Y, name="Y")
        if X.shape[1] != Y.shape[1]:
            raise ValueError(
                f"X has {X.shape[1]} features but Y has {Y.shape[1]}; both sets of inputs "
                "must live in the same space."
            )
        return X, Y


class Linear(Kernel):
    r"""Linear kernel :math:`K(x, x') = K_0\, x \cdot x' + B^2`.

    The :math:`k_{\rm lin}` of eq. :eq:`(4.7) <kernel-list>`.

    Parameters
    ----------
    K0 : float, default 1.0
        Amplitude :math:`K_0 > 0`, multiplies :math:`k`.
    B2 : float, default 0.0
        Constant offset :math:`B^2 \ge 0` (the prior variance of a bias).

    Attributes
    ----------
    K0 : float
        The amplitude, as given (checked when the kernel is called).
    B2 : float
        The constant offset, as given (checked when the kernel is called).

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.kernels import Linear
    >>> Linear()(np.array([[1.0, 2.0]]), np.array([[3.0, 4.0]])).tolist()
    [[11.0]]
    """

    def __init__(self, K0=1.0, B2=0.0):
        self.K0 = K0
        self.B2 = B2

    def _k(self, X, Y):
        return X @ Y.T

    def _k_diag(self, X):
        return np.einsum("ij,ij->i", X, X)


class Polynomial(Kernel):
    r"""Polynomial kernel :math:`K(x, x') = K_0 (c_0 + x \cdot x')^p + B^2`.

    ``p`` is a positive integer degree, ``c0 >= 0`` the offset
    (``c0 = 1, p = 2`` is the tutorial's :math:`(1 + x \cdot x')^2`, eq. :eq:`(4.2) <kernel-poly2-map>`).
    The :math:`k_{\rm poly}` of eq. :eq:`(4.7) <kernel-list>`.

    Parameters
    ----------
    p : int, default 2
        Degree, a positive integer.
    c0 : float, default 1.0
        Offset :math:`c_0 \ge 0`.
    K0 : float, default 1.0
        Amplitude :math:`K_0 > 0`, multiplies :math:`k`.
    B2 : float, default 0.0
        Constant offset :math:`B^2 \ge 0` (the prior variance of a bias).

    Attributes
    ----------
    p : int
        The degree, as given (checked when the kernel is called).
    c0 : float
        The offset, as given (checked when the kernel is called).
    K0 : float
        The amplitude, as given (checked when the kernel is called).
    B2 : float
        The constant offset, as given (checked when the kernel is called).

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.kernels import Polynomial
    >>> Polynomial(p=2, c0=1.0)(np.array([[1.0, 2.0]]), np.array([[3.0, 4.0]])).tolist()  # (1 + 11)^2
    [[144.0]]
    """

    def __init__(self, p=2, c0=1.0, K0=1.0, B2=0.0):
        self.p = p
        self.c0 = c0
        self.K0 = K0
        self.B2 = B2

    def _params(self):
        return check_positive_int(self.p, "p (degree)"), check_positive(self.c0, "c0", allow_zero=True)

    def _k(self, X, Y):
        p, c0 = self._params()
        return (c0 + X @ Y.T) ** p

    def _k_diag(self, X):
        p, c0 = self._params()
        return (c0 + np.einsum("ij,ij->i", X, X)) ** p


class _Stationary(Kernel):
    """Shared length-scale handling: ``l`` is a number or one value per input dimension."""

    def _scaled(self, X, Y):
        l = check_positive(self.l, "l (length scale)", allow_array=True)
        if np.ndim(l) == 1 and l.shape[0] != X.shape[1]:
            raise ValueError(
                f"l has {l.shape[0]} entries but the inputs have {X.shape[1]} dimensions; "
                "give one length scale, or one per input dimension."
            )
        return X / l, Y / l

    def _k_diag(self, X):
        self._scaled(X, X)  # validates l
        return np.ones(X.shape[0])


class RBF(_Stationary):
    r"""Radial basis function (squared exponential) kernel

    .. math:: K(x, x') = K_0 \exp\!\Big(-\sum_d \frac{(x_d - x'_d)^2}{2 l_d^2}\Big) + B^2 ,

    with one length scale ``l`` or one per input dimension (automatic relevance determination).
    With a single ``l`` this is the :math:`k_{\rm RBF}` of eq. :eq:`(4.7) <kernel-list>`.

    Parameters
    ----------
    l : float or array-like of shape (n_features,), default 1.0
        Length scale :math:`l > 0`, shared by all input dimensions, or one :math:`l_d > 0`
        per dimension.
    K0 : float, default 1.0
        Amplitude :math:`K_0 > 0`, multiplies :math:`k`.
    B2 : float, default 0.0
        Constant offset :math:`B^2 \ge 0` (the prior variance of a bias).

    Attributes
    ----------
    l : float or array-like
        The length scale(s), as given (checked when the kernel is called).
    K0 : float
        The amplitude, as given (checked when the kernel is called).
    B2 : float
        The constant offset, as given (checked when the kernel is called).

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.kernels import RBF
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0]])
    >>> print(f"{RBF(l=1.0)(X)[0, 1]:.5f}")  # exp(-1/2)
    0.60653
    >>> print(f"{RBF(l=[1.0, 10.0])(X)[0, 1]:.5f}")  # one length scale per dimension
    0.60653
    """

    def __init__(self, l=1.0, K0=1.0, B2=0.0):
        self.l = l
        self.K0 = K0
        self.B2 = B2

    def _k(self, X, Y):
        Xs, Ys = self._scaled(X, Y)
        return np.exp(-0.5 * cdist(Xs, Ys, "sqeuclidean"))

    def grad_log_l(self, X):
        r"""Derivatives :math:`\partial K / \partial \ln l_d` of the Gram matrix ``K(X, X)``.

        Returns an array of shape ``(n_l, n, n)``: one slice per length scale
        (``n_l = 1`` for a single shared ``l``). Used for evidence and
        free-energy hypergradients.

        Examples
        --------
        >>> import numpy as np
        >>> from svmlib.kernels import RBF
        >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
        >>> dK = RBF(l=1.0).grad_log_l(X)
        >>> h = 1e-6  # against a central difference in ln l
        >>> fd = (RBF(l=np.exp(h))(X) - RBF(l=np.exp(-h))(X)) / (2 * h)
        >>> dK.shape, bool(np.allclose(dK[0], fd, atol=1e-8))
        ((1, 3, 3), True)
        >>> RBF(l=[1.0, 1.0]).grad_log_l(X).shape  # one slice per length scale
        (2, 3, 3)
        """
        X = check_inputs(X)
        K0 = check_positive(self.K0, "K0")
        Xs, _ = self._scaled(X, X)
        Kb = K0 * np.exp(-0.5 * cdist(Xs, Xs, "sqeuclidean"))
        sq = (Xs[:, None, :] - Xs[None, :, :]) ** 2  # (n, n, d): (x_d - x'_d)^2 / l_d^2
        if np.ndim(self.l) == 0:
            return (Kb * sq.sum(axis=2))[None]
        return np.moveaxis(sq, 2, 0) * Kb[None]


class OrnsteinUhlenbeck(_Stationary):
    r"""Ornstein-Uhlenbeck (exponential) kernel

    .. math:: K(x, x') = K_0 \exp(-\lVert x - x' \rVert / l) + B^2 .

    Here :math:`\lVert x - x' \rVert` is the Euclidean distance (of the inputs divided by
    their length scales when ``l`` has one entry per dimension); with a single ``l`` this is the
    :math:`k_{\rm OU}` of eq. :eq:`(4.7) <kernel-list>`. Its sample paths are continuous but nowhere
    differentiable; an SVM with it has a kink at each support vector (eq. :eq:`(4.9) <kernel-ou-kink>`).

    Parameters
    ----------
    l : float or array-like of shape (n_features,), default 1.0
        Length scale :math:`l > 0`, shared by all input dimensions, or one per dimension.
    K0 : float, default 1.0
        Amplitude :math:`K_0 > 0`, multiplies :math:`k`.
    B2 : float, default 0.0
        Constant offset :math:`B^2 \ge 0` (the prior variance of a bias).

    Attributes
    ----------
    l : float or array-like
        The length scale(s), as given (checked when the kernel is called).
    K0 : float
        The amplitude, as given (checked when the kernel is called).
    B2 : float
        The constant offset, as given (checked when the kernel is called).

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.kernels import OrnsteinUhlenbeck
    >>> print(f"{OrnsteinUhlenbeck(l=2.0)(np.array([[0.0]]), np.array([[2.0]]))[0, 0]:.5f}")  # exp(-1)
    0.36788
    """

    def __init__(self, l=1.0, K0=1.0, B2=0.0):
        self.l = l
        self.K0 = K0
        self.B2 = B2

    def _k(self, X, Y):
        Xs, Ys = self._scaled(X, Y)
        return np.exp(-cdist(Xs, Ys, "euclidean"))


class UserKernel(Kernel):
    r"""Any user function ``k(X, Y) -> (len(X), len(Y))`` array, as :math:`K_0 k + B^2`.

    The returned shape and finiteness are checked, so a wrong kernel fails with a
    clear message rather than deep inside a solver. Whether ``k`` is positive
    semidefinite, as eq. :eq:`(4.1) <kernel-dual>` needs, is not checked; test a Gram matrix with
    :func:`is_psd`.

    Parameters
    ----------
    k : callable
        ``k(X, Y)`` returning a finite array of shape ``(len(X), len(Y))``; ``X`` and ``Y``
        are validated 2-D float arrays with the same number of columns.
    K0 : float, default 1.0
        Amplitude :math:`K_0 > 0`, multiplies :math:`k`.
    B2 : float, default 0.0
        Constant offset :math:`B^2 \ge 0` (the prior variance of a bias).

    Attributes
    ----------
    k : callable
        The user function, as given (checked to be callable when the kernel is called).
    K0 : float
        The amplitude, as given (checked when the kernel is called).
    B2 : float
        The constant offset, as given (checked when the kernel is called).

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.kernels import UserKernel
    >>> cubic = UserKernel(lambda X, Y: (X @ Y.T) ** 3)
    >>> cubic(np.array([[1.0], [2.0]])).tolist()
    [[1.0, 8.0], [8.0, 64.0]]
    """

    def __init__(self, k, K0=1.0, B2=0.0):
        self.k = k
        self.K0 = K0
        self.B2 = B2

    def _k(self, X, Y):
        if not callable(self.k):
            raise TypeError(f"UserKernel needs a callable k(X, Y), got {self.k!r}.")
        return check_kernel_matrix(self.k(X, Y), X.shape[0], Y.shape[0], name="the user kernel's output")


_BY_NAME = {
    "linear": Linear,
    "poly": Polynomial,
    "polynomial": Polynomial,
    "rbf": RBF,
    "ou": OrnsteinUhlenbeck,
    "ornstein-uhlenbeck": OrnsteinUhlenbeck,
}


def make_kernel(kernel, **params):
    """Turn ``kernel`` into a :class:`Kernel`.

    ``kernel`` may be a Kernel (returned as is), a name (``'linear'``, ``'poly'``,
    ``'rbf'``, ``'ou'``; ``params`` go to its constructor) or a callable ``k(X, Y)``.
    It implements no equation of its own: it selects one of the kernels of eq. :eq:`(4.7) <kernel-list>`.

    Parameters
    ----------
    kernel : Kernel, str or callable
        A :class:`Kernel` instance; a name, ``'linear'``, ``'poly'`` (or ``'polynomial'``),
        ``'rbf'``, ``'ou'`` (or ``'ornstein-uhlenbeck'``), case-insensitive; or a callable
        ``k(X, Y)``, wrapped in :class:`UserKernel`.
    **params
        Constructor arguments of the named kernel or of :class:`UserKernel` (``K0``, ``B2``);
        not allowed with a :class:`Kernel` instance.

    Returns
    -------
    Kernel
        ``kernel`` itself if it is a :class:`Kernel`, else a new kernel.

    Raises
    ------
    ValueError
        An unknown name, or ``params`` given together with a :class:`Kernel` instance.
    TypeError
        ``kernel`` is neither a name, a :class:`Kernel` nor a callable.

    Examples
    --------
    >>> from svmlib.kernels import RBF, make_kernel
    >>> make_kernel("rbf", l=2.0)
    RBF(l=2.0)
    >>> kernel = RBF(l=0.5)
    >>> make_kernel(kernel) is kernel
    True
    """
    if isinstance(kernel, Kernel):
        if params:
            raise ValueError("Pass kernel parameters either in the Kernel object or as keywords, not both.")
        return kernel
    if isinstance(kernel, str):
        try:
            cls = _BY_NAME[kernel.lower()]
        except KeyError:
            raise ValueError(
                f"Unknown kernel {kernel!r}; choose one of {sorted(set(_BY_NAME))}, "
                "'precomputed', a svmlib.kernels.Kernel or a callable k(X, Y)."
            ) from None
        return cls(**params)
    if callable(kernel):
        return UserKernel(kernel, **params)
    raise TypeError(f"kernel must be a name, a svmlib Kernel or a callable, got {kernel!r}.")


def gram(kernel, X, Y=None):
    """Gram matrix ``K(X, Y)`` of any kernel :func:`make_kernel` accepts.

    The matrix :math:`K_{ij} = k(x_i, y_j)` of eq. :eq:`(4.1) <kernel-dual>`.

    Parameters
    ----------
    kernel : Kernel, str or callable
        Anything :func:`make_kernel` accepts (a name gets its default parameters).
    X : array-like of shape (n, d)
        First set of inputs (rows).
    Y : array-like of shape (m, d), optional
        Second set of inputs (columns); ``None`` means ``X``.

    Returns
    -------
    ndarray of shape (n, m)
        ``K(X[i], Y[j])``; shape ``(n, n)`` when ``Y`` is None.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.kernels import gram
    >>> gram("linear", np.array([[1.0, 0.0], [1.0, 1.0]])).tolist()
    [[1.0, 1.0], [1.0, 2.0]]
    """
    return make_kernel(kernel)(X, Y)


def min_eigenvalue(K):
    r"""Smallest eigenvalue of the symmetric part of a square matrix.

    A kernel is positive semidefinite when every Gram matrix has no negative eigenvalue
    (the condition of Mercer's theorem, eq. :eq:`(4.6) <kernel-mercer>`); this is the number to look at.

    Parameters
    ----------
    K : array-like of shape (n, n)
        A finite square matrix, ``n >= 1``; only :math:`(K + K^\top)/2` is used.

    Returns
    -------
    float
        The smallest eigenvalue of :math:`(K + K^\top)/2`.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.kernels import min_eigenvalue
    >>> round(min_eigenvalue(np.array([[2.0, 1.0], [1.0, 2.0]])), 12)
    1.0
    """
    K = check_kernel_matrix(K, np.shape(K)[0] if np.ndim(K) == 2 else -1, name="K")
    if K.size == 0:
        raise ValueError("K is empty: an eigenvalue needs at least one row.")
    return float(np.linalg.eigvalsh(0.5 * (K + K.T))[0])


def is_psd(K, tol=None):
    """True when the square matrix ``K`` is symmetric positive semidefinite.

    Round-off makes the smallest eigenvalue of a PSD Gram matrix slightly
    negative; the default tolerance ``tol = 10 n eps max(1, max_ij abs(K_ij))`` scales with the
    size and magnitude of ``K`` (the bound on eigenvalue error of a symmetric
    eigensolver). Positive semidefinite Gram matrices are what makes a function a
    kernel (the condition of Mercer's theorem, eq. :eq:`(4.6) <kernel-mercer>`) and the dual concave.

    Parameters
    ----------
    K : array-like of shape (n, n)
        A finite, non-empty square matrix.
    tol : float, optional
        Tolerance ``>= 0`` for the symmetry check and for the smallest eigenvalue
        (accepted down to ``-tol``); default ``10 n eps max(1, max_ij abs(K_ij))``.

    Returns
    -------
    bool
        True when ``K`` is symmetric to within ``tol`` and its smallest eigenvalue is
        at least ``-tol``.

    Raises
    ------
    ValueError
        ``K`` is not square, is empty, or contains NaN or infinity.
    TypeError
        ``K`` is not numeric.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.kernels import RBF, is_psd
    >>> X = np.random.default_rng(0).normal(size=(20, 2))
    >>> bool(is_psd(RBF(l=1.0)(X))), bool(is_psd(np.array([[1.0, 2.0], [2.0, 1.0]])))  # eigenvalues 3 and -1
    (True, False)
    """
    try:
        K = np.asarray(K, dtype=float)
    except (TypeError, ValueError):
        raise TypeError("K must be a numeric square matrix.") from None
    if K.ndim != 2 or K.shape[0] != K.shape[1] or K.size == 0:
        raise ValueError(f"K must be a non-empty square matrix, got shape {K.shape}.")
    if not np.all(np.isfinite(K)):
        raise ValueError("K contains NaN or infinity.")
    scale = max(1.0, float(np.abs(K).max(initial=0.0)))
    if tol is None:
        tol = 10 * K.shape[0] * np.finfo(float).eps * scale
    else:
        tol = check_positive(tol, "tol", allow_zero=True)
    if not np.allclose(K, K.T, rtol=0, atol=tol):
        return False
    return min_eigenvalue(K) >= -tol


def poly2_feature_map(X):
    r"""Explicit feature map of :math:`(1 + x \cdot x')^2` for 2-D inputs.

    .. math:: \phi(x) = (1, \sqrt2 x_1, \sqrt2 x_2, x_1^2, x_2^2, \sqrt2 x_1 x_2),

    so that :math:`\phi(x) \cdot \phi(x') = (1 + x \cdot x')^2` (the tutorial's
    kernel-trick example, eq. :eq:`(4.2) <kernel-poly2-map>`).

    Parameters
    ----------
    X : array-like of shape (n, 2)
        Two-dimensional inputs.

    Returns
    -------
    ndarray of shape (n, 6)
        The features :math:`\phi(x)` of each row, in the order above.

    Raises
    ------
    ValueError
        ``X`` does not have two columns.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.kernels import Polynomial, poly2_feature_map
    >>> X = np.array([[1.0, 2.0], [-0.5, 3.0]])
    >>> Phi = poly2_feature_map(X)
    >>> Phi.shape, bool(np.allclose(Phi @ Phi.T, Polynomial(p=2, c0=1.0)(X)))  # the kernel trick
    ((2, 6), True)
    """
    X = check_inputs(X)
    if X.shape[1] != 2:
        raise ValueError(f"poly2_feature_map is the map for 2-D inputs; X has {X.shape[1]} columns.")
    x1, x2 = X[:, 0], X[:, 1]
    r2 = np.sqrt(2.0)
    return np.column_stack([np.ones_like(x1), r2 * x1, r2 * x2, x1**2, x2**2, r2 * x1 * x2])
