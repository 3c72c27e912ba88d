r"""The bootstrap without resampling: replica trick and adaptive TAP for SVMs (Part III, :ref:`Chapter 9 <ch-replica>`).

* :func:`fit_hard_margin` -- the exact hard-margin SVM without bias (an NNLS problem).
* :func:`monte_carlo_bootstrap` -- retrain on bootstrap samples (Poisson or multinomial
  occupations), seeded, parallel through joblib with results independent of ``n_jobs``.
* :func:`iterate_replica` -- the replica/ADATAP fixed point by the plain iteration of the
  book's equations (:func:`site_moments`, :func:`site_parameters`, :func:`gaussian_cavities`,
  :func:`replica_map`), the readable reference for the accelerated solver.
* :func:`solve_replica` / :func:`replica_learning_curve` -- the same fixed point, accelerated:
  bootstrapped test error (eq. :eq:`(9.19) <boot-error>`), cavity Gaussians at training points,
  :func:`field_at_new_inputs` (eq. :eq:`(9.20) <boot-field-new>`), :func:`error_gradient` (its derivative
  in kernel parameters, by implicit differentiation of the fixed point).
* :func:`opper_winther_loo`, :func:`exact_loo` -- the S -> infinity limits of theory and
  Monte Carlo.
* :class:`ReplicaBootstrap`, :class:`MonteCarloBootstrap` -- scikit-learn style estimators
  on inputs X with a kernel.
* :func:`length_scale_path`, :func:`minimise_632_estimate` -- the theory's 0.632 estimate and
  its gradient along RBF length scales, and its minimum by L-BFGS-B (no resampling).

Malzahn & Opper, *Approximate analytical bootstrap averages for support vector
classifiers*, NIPS 16 (2004).
"""

from ._estimators import MonteCarloBootstrap, ReplicaBootstrap, efron_632
from ._hardmargin import JITTER, exact_loo, fit_hard_margin, kernel_cholesky, opper_winther_loo
from ._selection import LengthScaleChoice, LengthScalePath, length_scale_path, minimise_632_estimate
from ._montecarlo import MonteCarloResult, draw_occupations, monte_carlo_bootstrap, ratio_error, seed_sequence
from ._replica import (
    MAX_S_OVER_N,
    ReplicaSolution,
    error_gradient,
    field_at_new_inputs,
    gaussian_cavities,
    initial_sites,
    iterate_replica,
    replica_learning_curve,
    replica_map,
    site_moments,
    site_parameters,
    solve_replica,
)

__all__ = [
    "JITTER", "MAX_S_OVER_N",
    "fit_hard_margin", "kernel_cholesky", "opper_winther_loo", "exact_loo",
    "MonteCarloResult", "monte_carlo_bootstrap", "draw_occupations", "ratio_error", "seed_sequence",
    "ReplicaSolution", "solve_replica", "replica_learning_curve", "field_at_new_inputs", "error_gradient",
    "gaussian_cavities", "initial_sites", "site_moments", "site_parameters", "replica_map", "iterate_replica",
    "ReplicaBootstrap", "MonteCarloBootstrap", "efron_632",
    "LengthScalePath", "length_scale_path", "LengthScaleChoice", "minimise_632_estimate",
]
