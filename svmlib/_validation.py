"""Input validation shared by every svmlib module.

All checks raise ``ValueError`` (or ``TypeError`` for the wrong kind of object)
with a message that says what to do. scikit-learn's ``sklearn.utils.validation``
does the array work; this module adds the SVM-specific rules (two classes mapped
to +-1, C > 0, positive scales, kernel matrices of the right shape).
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils.multiclass import type_of_target
import inspect

from sklearn.utils.validation import _check_sample_weight, check_array, check_X_y

__all__ = [
    "check_data",
    "check_regression_data",
    "check_inputs",
    "check_binary_labels",
    "check_C",
    "check_positive",
    "check_positive_int",
    "check_probability",
    "check_kernel_matrix",
    "check_random_state",
    "check_pm_labels",
    "check_tol",
    "check_bool",
    "check_n_jobs",
    "set_feature_info",
    "check_predict_inputs",
]

from sklearn.utils import check_random_state  # noqa: E402  (re-exported)


def check_inputs(X, *, name="X", ensure_min_samples=1):
    """Return ``X`` as a finite 2-D float array or raise a ValueError."""
    try:
        with np.errstate(invalid="ignore", over="ignore"):  # sklearn sums the array to find NaN/inf
            return check_array(
                X,
                dtype=np.float64,
                ensure_2d=True,
                ensure_all_finite=True,
                ensure_min_samples=ensure_min_samples,
                input_name=name,
            )
    except ValueError as err:
        raise ValueError(
            f"{name} must be a finite 2-D array of shape (n_samples, n_features): {err}"
        ) from None
    except TypeError as err:
        raise TypeError(f"{name} must be array-like of numbers: {err}") from None


def _two_integer_labels(y):
    """The two sorted labels of a numeric y holding exactly two integer values, else None.

    type_of_target calls such a y "binary" too; this is the same decision without its overhead.
    """
    if y.dtype.kind not in "iuf" or y.size == 0:
        return None
    classes = np.unique(y)
    if classes.size != 2 or not np.all(classes == np.floor(classes)):
        return None
    return classes


def check_binary_labels(y):
    """Map any two class labels to -1/+1.

    Returns
    -------
    y_pm : ndarray of shape (n,), values in {-1.0, +1.0}
    classes : ndarray of shape (2,), the original labels; ``classes[0]`` maps to -1.
    """
    y = np.asarray(y)
    if y.ndim != 1:
        y = np.ravel(y) if (y.ndim == 2 and 1 in y.shape) else y
    if y.ndim != 1:
        raise ValueError(f"y must be a 1-D array of class labels, got shape {y.shape}.")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError("y contains NaN or infinity; give every sample a class label.")
    if y.dtype.kind == "O":
        try:
            y = y.astype(str) if all(isinstance(v, str) for v in y) else y.astype(float)
        except (TypeError, ValueError):
            raise ValueError("y must hold class labels of one type (all strings or all numbers).") from None
    classes = _two_integer_labels(y)
    if classes is not None:  # the common case, decided without type_of_target (~0.1 ms)
        return np.where(y == classes[1], 1.0, -1.0), classes
    try:
        target = type_of_target(y)
    except ValueError as err:
        raise ValueError(f"y is not a valid vector of class labels: {err}") from None
    classes = np.unique(y)
    if target == "continuous":
        raise ValueError(
            f"y looks continuous (non-integer numbers such as {classes[:3]!r}); class labels must be "
            "integers, strings or booleans. Map your two classes to e.g. -1/+1."
        )
    if classes.size != 2 or target not in ("binary", "multiclass"):
        # the leading phrases are the ones scikit-learn's estimator checks look for
        lead = "Only binary classification is supported. " if classes.size > 2 else ""
        counted = "1 class" if classes.size == 1 else f"{classes.size} classes"
        raise ValueError(
            f"{lead}An SVM separates exactly two classes, but y has {counted} (distinct "
            f"labels {classes[:5]!r}). Give labels of two classes (e.g. -1/+1 or 0/1); "
            "for more classes use one-vs-rest (sklearn.multiclass.OneVsRestClassifier)."
        )
    y_pm = np.where(y == classes[1], 1.0, -1.0)
    return y_pm, classes


def check_data(X, y, *, name="X"):
    """Validate a training set for a binary classifier.

    Returns ``X`` (float, 2-D, finite), ``y`` in {-1, +1} and the original ``classes``.
    """
    if y is None:
        raise ValueError("This estimator requires y to be passed, but the target y is None: "
                         "give one class label per row of X.")
    try:
        with np.errstate(invalid="ignore", over="ignore"):  # sklearn sums the array to find NaN/inf
            X, y_raw = check_X_y(
                X, y, dtype=np.float64, ensure_all_finite=True, ensure_2d=True, y_numeric=False,
            )
    except ValueError as err:
        raise ValueError(
            f"{name} must be a finite 2-D array (n_samples, n_features) and y a 1-D array "
            f"with one label per row: {err}"
        ) from None
    except TypeError as err:
        raise TypeError(f"{name} and y must be array-like of numbers/labels: {err}") from None
    y_pm, classes = check_binary_labels(y_raw)
    return X, y_pm, classes


def check_regression_data(X, y, *, name="X"):
    """Validate a regression training set: finite 2-D ``X`` and one finite real target per row."""
    if y is None:
        raise ValueError("This estimator requires y to be passed, but the target y is None: "
                         "give one real-valued target per row of X.")
    try:
        with np.errstate(invalid="ignore", over="ignore"):  # sklearn sums the array to find NaN/inf
            X, y = check_X_y(X, y, dtype=np.float64, ensure_all_finite=True, y_numeric=True)
    except ValueError as err:
        raise ValueError(
            f"{name} must be a finite 2-D array (n_samples, n_features) and y a finite 1-D array with one "
            f"target per row: {err}"
        ) from None
    except TypeError as err:
        raise TypeError(f"{name} and y must be array-like of numbers: {err}") from None
    return X, y.astype(float)


def _is_real_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_C(C, *, allow_inf=True, name="C"):
    """Return ``C`` as a float after checking ``C > 0`` (``inf`` = hard margin)."""
    if not _is_real_number(C) and not (isinstance(C, np.ndarray) and C.ndim == 0):
        raise TypeError(f"{name} must be a positive number, got {C!r}.")
    C = float(C)
    if np.isnan(C) or C <= 0:
        raise ValueError(f"{name} must be > 0 (got {C}); use a larger {name} for a harder margin.")
    if np.isinf(C) and not allow_inf:
        raise ValueError(f"{name} = inf (a hard margin) is not supported here; give a finite {name}.")
    return C


def check_positive(value, name, *, allow_array=False, allow_zero=False):
    """Check a positive (finite) scale such as a length scale or amplitude."""
    arr = np.asarray(value, dtype=float) if _is_array_like_number(value) else None
    if arr is None:
        raise TypeError(f"{name} must be a positive number, got {value!r}.")
    if arr.ndim > (1 if allow_array else 0):
        raise ValueError(f"{name} must be a {'number or 1-D array' if allow_array else 'number'}, got shape {arr.shape}.")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty.")
    bad = ~np.isfinite(arr) | ((arr < 0) if allow_zero else (arr <= 0))
    if np.any(bad):
        sign = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be finite and {sign}, got {value!r}.")
    return arr if arr.ndim else float(arr)


def _is_array_like_number(value):
    if isinstance(value, bool):
        return False
    if _is_real_number(value):
        return True
    try:
        arr = np.asarray(value)
    except Exception:  # pragma: no cover - exotic objects
        return False
    return arr.dtype.kind in "biuf" and arr.dtype.kind != "b"


def check_positive_int(value, name, *, minimum=1):
    """Check an integer parameter such as a polynomial degree or an iteration count."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    if not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and float(value).is_integer():
            value = int(value)
        else:
            raise TypeError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value}.")
    return int(value)


def check_probability(value, name, *, open_interval=True):
    """Check a number in (0, 1) (or [0, 1])."""
    if not _is_real_number(value):
        raise TypeError(f"{name} must be a number in (0, 1), got {value!r}.")
    value = float(value)
    ok = (0 < value < 1) if open_interval else (0 <= value <= 1)
    if not ok:
        raise ValueError(f"{name} must lie in {'(0, 1)' if open_interval else '[0, 1]'}, got {value}.")
    return value


def _is_symmetric(K, *, rtol, atol_scale):
    """|K - K^T| <= atol + rtol |K| elementwise, atol = atol_scale * max(1, max |K|) (as np.allclose).

    Written out because np.allclose costs ~0.15 ms at n = 200 (its NaN handling; K is finite here),
    a noticeable part of a replica solve.
    """
    magnitude = np.abs(K)
    atol = atol_scale * max(1.0, float(magnitude.max(initial=0)))
    gap = K - K.T
    np.abs(gap, out=gap)
    magnitude *= rtol
    magnitude += atol
    return bool(np.all(gap <= magnitude))


def check_kernel_matrix(K, n_rows, n_cols=None, *, name="K", symmetric=False):
    """Check a (precomputed) kernel matrix: finite, 2-D, shape (n_rows, n_cols)."""
    n_cols = n_rows if n_cols is None else n_cols
    try:
        K = np.asarray(K, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name} must be a numeric matrix: {err}") from None
    if K.shape != (n_rows, n_cols):
        raise ValueError(
            f"{name} must have shape ({n_rows}, {n_cols}) but has shape {K.shape}; "
            "a kernel must return one row per first input and one column per second input."
        )
    if not np.all(np.isfinite(K)):
        raise ValueError(f"{name} contains NaN or infinity: the inputs or the kernel parameters are too large for "
                         "double precision (an overflow), or the kernel is broken. Standardise X "
                         "(sklearn.preprocessing.StandardScaler) or check the kernel and its parameters.")
    if symmetric and not _is_symmetric(K, rtol=1e-10, atol_scale=1e-12):
        raise ValueError(f"{name} must be symmetric (a Gram matrix K(X, X)).")
    return K



# scikit-learn 1.7 rejects all-zero weights unless told otherwise; 1.6 (svmlib's minimum, Colab's version) has no
# such keyword and accepts them. svmlib reports an all-zero weighting itself, so allow it on both.
_ALLOW_ZERO = "allow_all_zero_weights" in inspect.signature(_check_sample_weight).parameters


def check_sample_weight(sample_weight, X):
    """Non-negative float64 weights, one per row of ``X``, or a ``ValueError`` that says what is wrong."""
    extra = {"allow_all_zero_weights": True} if _ALLOW_ZERO else {}
    try:
        return _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True, **extra)
    except (TypeError, ValueError) as err:
        raise ValueError(f"sample_weight must be one finite, non-negative weight per row of X: {err}") from None

def check_pm_labels(y, n=None, *, name="y"):
    """Check labels already mapped to -1/+1 (the solvers' input): a finite 1-D array of +-1.

    ``n``, if given, is the required length (e.g. the size of the kernel matrix).
    """
    try:
        y = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a 1-D array of labels -1/+1.") from None
    if y.ndim != 1 or y.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of labels -1/+1, got shape {y.shape}.")
    if not np.all((y == 1.0) | (y == -1.0)):
        raise ValueError(f"{name} must hold labels -1/+1 only (map two classes with "
                         "svmlib._validation.check_binary_labels).")
    if n is not None and y.size != n:
        raise ValueError(f"{name} has {y.size} labels but the kernel matrix has {n} rows.")
    return y


def check_tol(tol, name="tol"):
    """A stopping tolerance: a finite number > 0."""
    return check_positive(tol, name)


def check_bool(value, name):
    """A True/False switch (``fit_intercept``, ``shuffle``, ...): a string such as 'no' is an error."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral) and value in (0, 1):
        return bool(value)
    raise TypeError(f"{name} must be True or False, got {value!r}.")


def check_n_jobs(n_jobs, name="n_jobs"):
    """joblib's ``n_jobs``: None, a positive integer or a negative one (-1 = all cores); 0 is an error."""
    if n_jobs is None:
        return None
    if isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, numbers.Integral):
        raise TypeError(f"{name} must be None or an integer (-1 for all cores), got {n_jobs!r}.")
    if n_jobs == 0:
        raise ValueError(f"{name} = 0 means no worker; give None or 1 (serial), k > 1 workers or -1 (all cores).")
    return int(n_jobs)


# ---------------------------------------------------------------------------
# Feature bookkeeping for estimators (scikit-learn's n_features_in_ / feature_names_in_)
# ---------------------------------------------------------------------------

def set_feature_info(estimator, X):
    """Record ``n_features_in_`` and, for a DataFrame with string column names, ``feature_names_in_``.

    Call it in ``fit`` with the *raw* ``X`` the user passed (before it is converted to an
    array, which drops the names), after the data were validated. A refit on an array removes
    a stale ``feature_names_in_``. Pair it with :func:`check_predict_inputs` in ``predict`` /
    ``decision_function``.
    """
    from sklearn.utils.validation import validate_data

    validate_data(estimator, X, skip_check_array=True, reset=True)


def check_predict_inputs(estimator, X, *, name="X"):
    """Validate ``X`` for a fitted estimator: fitted, finite 2-D, same features as in ``fit``.

    Raises ``sklearn.exceptions.NotFittedError`` before ``fit``; a ValueError when the number of
    columns differs, or when ``X`` is a DataFrame whose column names (or their order) differ from
    the ones seen in ``fit`` (scikit-learn's rule: reordered columns would silently change the
    predictions). Returns ``X`` as a float array.
    """
    from sklearn.utils.validation import check_is_fitted, validate_data

    check_is_fitted(estimator)
    X_checked = check_inputs(X, name=name)
    validate_data(estimator, X, skip_check_array=True, reset=False)
    return X_checked
