"""svmlib: support vector machines and their Bayesian and statistical-physics views.

The library behind the textbook. One module per idea of the book:

- :mod:`svmlib.kernels`        kernels and Gram matrices (Part I)
- :mod:`svmlib.primal`         primal soft-margin SVM by subgradient descent (Part I)
- :mod:`svmlib.dual`           dual QP by SMO, hard/soft margin, with and without bias (Part I)
- :mod:`svmlib.svr`            epsilon-insensitive support vector regression by SMO (Part I)
- :mod:`svmlib.probabilistic`  the SVM as MAP inference under a GP prior (Part II)
- :mod:`svmlib.evidence`       the SVM's Bayesian evidence and its normaliser (Part II)
- :mod:`svmlib.margin`         hyperplane geometry and the maximum margin (Part I)
- :mod:`svmlib.gpc`            mean-field Gaussian-process classification (Part II)
- :mod:`svmlib.bootstrap`      the replica / adaptive-TAP analytic bootstrap (Part III)
- :mod:`svmlib.lssvr`          LS-SVR as a Bayesian RBF network (Part III)
- :mod:`svmlib.datasets`       real data sets from installed packages (no downloads)
- :mod:`svmlib.widgets`        interactive figures (needs matplotlib and ipywidgets)
- :mod:`svmlib.exercises`      auto-checked exercises for the book

Nothing here imports matplotlib or ipywidgets except the plotting and widget modules.
"""

__version__ = "0.1.0"
