#!/usr/bin/env python
"""Tabulate the seeded computation of the Kernels chapter that does not depend on the reader's choices.

    .venv/bin/python tools/tabulate_kernels.py      # writes svmlib/_tables/kernels_nested_cv.json

The chapter's "best CV score is optimistic" pitfall runs a grid search and a nested cross-validation on
random labels: about 360 SVM fits, 3-8 s on the book's 2-core machine, more than the chapter's whole Run
All budget. The chapter shows the same code (run it with RECOMPUTE = True) and reads this table;
tests/test_exercises_ch1_4_tables.py recomputes it and compares. Contents:

* ``seeds``: the label seeds 0, 1, ..., N_SEEDS - 1 (one random labelling each);
* ``best_cv``: per seed, the best mean 5-fold CV accuracy of the RBF grid on those random labels;
* ``nested``: per seed, the five outer-fold accuracies of nested CV (5 outer x 5 inner folds);
* ``grid``: the grid searched (length scales and C).

One labelling is a noisy demonstration (its nested estimate can land anywhere within a fold-SD of one
half); the chapter averages the ten. About 3600 fits: a minute or two.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score

from svmlib.dual import DualSVC
from svmlib.kernels import RBF
from svmlib.widgets import kernel_choice as wk

OUT = Path(__file__).resolve().parent.parent / "svmlib" / "_tables" / "kernels_nested_cv.json"
LENGTH_SCALES, CS = (0.1, 0.2, 0.5, 1.0), (0.1, 1.0, 10.0)
N_SEEDS = 10


def random_label_selection_bias(seed=0):
    """(best CV score, nested-CV fold scores) on the chapter's inputs with random labels (``seed``).

    The same code as the chapter's cell (keep them identical).
    """
    X, y, _, _ = wk.chapter_data()
    rng = np.random.default_rng(seed)
    y_noise = rng.choice([-1.0, 1.0], size=y.size)           # labels independent of X: true accuracy 0.5
    small_grid = {"kernel": [RBF(l=l) for l in LENGTH_SCALES], "C": list(CS)}
    inner = StratifiedKFold(5, shuffle=True, random_state=1)
    outer = StratifiedKFold(5, shuffle=True, random_state=2)
    noise_search = GridSearchCV(DualSVC(tol=1e-3), small_grid, cv=inner)
    best_cv = noise_search.fit(X, y_noise).best_score_
    nested = cross_val_score(noise_search, X, y_noise, cv=outer)
    return float(best_cv), [float(v) for v in nested]


def main():
    runs = [random_label_selection_bias(seed) for seed in range(N_SEEDS)]
    best_cv, nested = [r[0] for r in runs], [r[1] for r in runs]
    OUT.write_text(json.dumps({"seeds": list(range(N_SEEDS)), "best_cv": best_cv, "nested": nested,
                               "grid": {"l": list(LENGTH_SCALES), "C": list(CS)}}, indent=1) + "\n")
    print(f"wrote {OUT.name}: best CV {np.mean(best_cv):.4f} (min {np.min(best_cv):.4f}), "
          f"nested {np.mean(nested):.4f} (seed means {np.round(np.mean(nested, axis=1), 3)})")


if __name__ == "__main__":
    main()
