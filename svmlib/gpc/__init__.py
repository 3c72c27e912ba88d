"""Mean-field Gaussian-process classification (:ref:`Chapter 8 <ch-mean-field-gpc>`).

The step likelihood ``Theta(y a)`` with probit noise folded into the training
kernel; the posterior mean in the SVM-like form ``<f(x)> = sum_j K(x, x_j) y_j alpha_j``;
naive mean field, ensemble (variational) mean field and EP through one
fixed-point form; their free energies with hypergradients; hyperparameters by
L-BFGS; the sequential single-sweep algorithm; ground truth by elliptical slice
sampling and exact orthant probabilities.

Modules: ``_likelihood`` (D, D'), ``_meanfield`` (solvers, free energies),
``_hyper`` (hyperparameter fitting), ``_online`` (the sequential algorithm),
``_exact`` (ground truth), ``_estimators`` (classifiers), ``_compare`` (chapter helpers).
"""

from ._compare import *  # noqa: F401,F403
from ._compare import __all__ as _cmp_all
from ._estimators import *  # noqa: F401,F403
from ._estimators import __all__ as _est_all
from ._exact import *  # noqa: F401,F403
from ._exact import __all__ as _ex_all
from ._hyper import *  # noqa: F401,F403
from ._hyper import __all__ as _hy_all
from ._likelihood import D, dD, log_Phi
from ._meanfield import *  # noqa: F401,F403
from ._meanfield import __all__ as _mf_all
from ._online import *  # noqa: F401,F403
from ._online import __all__ as _on_all

__all__ = [
    "D", "dD", "log_Phi", *_mf_all, *_hy_all, *_on_all, *_ex_all, *_est_all, *_cmp_all]
