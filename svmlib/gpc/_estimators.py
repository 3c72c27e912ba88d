"""scikit-learn style classifiers: mean-field / EP GP classification and the online algorithm."""

from __future__ import annotations

import warnings

import numpy as np
from scipy import linalg
from scipy.special import ndtr
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from .._threads import blas_single_thread
from .._validation import check_data, check_inputs, check_positive, check_positive_int
from ..kernels import RBF, Kernel, Polynomial, make_kernel
from ._exact import as_generator
from ._hyper import fit_hyperparameters
from ._meanfield import _check_method, free_energy, site_precisions, solve_mean_field
from ._online import online_sweep

__all__ = ["MeanFieldGPC", "SequentialGPC"]


class _GPCBase(ClassifierMixin, BaseEstimator):
    """Shared prediction: ``<f(x)> = sum_j K(x, x_j) c_j`` with ``c = y * alpha``."""

    def _training_gram(self, X):
        K = self.kernel_(X)
        K[np.diag_indices_from(K)] += self.noise_var_
        return K

    def decision_function(self, X):
        """Posterior mean ``<f(x)>`` of the noise-free latent function (eq. gpc-svm-form)."""
        check_is_fitted(self, "coef_")
        X = check_inputs(X)
        if X.shape[1] != self.X_train_.shape[1]:
            raise ValueError(f"X has {X.shape[1]} features; the classifier was fitted on "
                             f"{self.X_train_.shape[1]}.")
        with blas_single_thread():
            return self.kernel_(X, self.X_basis_) @ self.coef_

    def predict(self, X):
        """Class labels: the sign of the posterior mean (Bayes-optimal for a symmetric posterior)."""
        f = self.decision_function(X)
        return self.classes_[(f > 0).astype(int)]


class MeanFieldGPC(_GPCBase):
    """Gaussian-process classification with the step likelihood and probit noise.

    The noise ``Phi(y f / sigma)`` is folded into the training kernel
    (``K + sigma^2 I``); the posterior mean is computed by naive mean field,
    ensemble (variational) mean field or EP, all through the same fixed-point
    equations (eq. gpc-fixed-point) solved by Newton's method.

    Parameters
    ----------
    kernel : Kernel, str or callable, default RBF(l=1)
        Prior covariance of the latent function. With ``optimize`` it must be an RBF
        (its length scales are fitted; its amplitude ``K0`` and offset ``B2`` are kept).
    noise_var : float, default 1.0
        Probit noise variance ``sigma^2`` (>= 0; 0 is the noise-free step likelihood).
    method : {'naive', 'ensemble', 'ep'}
        Inference method for the posterior mean.
    optimize : {None, 'naive', 'ensemble', 'ep'}
        Fit one length scale per input and ``noise_var`` by minimising this free energy
        (F_naive, F_ens or -ln Z_EP) with L-BFGS, starting from ``kernel.l`` and ``noise_var``.
        Mixing ``optimize`` and ``method`` gives the paper's hybrid table.
    max_hyper_iter : int
    tol, max_iter : float, int
        Tolerance and step limit of the inner Newton solver.

    Attributes
    ----------
    alpha_ : ndarray (n,)        the coefficients ``alpha_j >= 0``
    coef_ : ndarray (n,)         ``y_j alpha_j``
    kernel_ : Kernel             the (fitted) kernel, noise not included
    noise_var_ : float
    free_energy_ : float         the method's free energy (F_naive, F_ens or -ln Z_EP)
    solution_ : MeanFieldSolution
    hyper_ : HyperFit or None    the hyperparameter run (with its history)
    n_iter_ : int                Newton steps of the final inner solve
    converged_ : bool
    classes_ : ndarray (2,)
    """

    def __init__(self, kernel=None, noise_var=1.0, method="naive", optimize=None, max_hyper_iter=100,
                 tol=1e-10, max_iter=100):
        self.kernel = kernel
        self.noise_var = noise_var
        self.method = method
        self.optimize = optimize
        self.max_hyper_iter = max_hyper_iter
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X, y):
        """Solve the mean-field equations (after fitting hyperparameters if asked)."""
        X, y_pm, self.classes_ = check_data(X, y)
        _check_method(self.method)
        kernel = make_kernel(RBF(l=1.0) if self.kernel is None else self.kernel)
        noise_var = check_positive(self.noise_var, "noise_var", allow_zero=True)
        self.hyper_ = None
        if self.optimize is not None:
            _check_method(self.optimize)
            if not isinstance(kernel, RBF):
                raise ValueError("optimize fits RBF length scales; give kernel=RBF(...) "
                                 f"(got {type(kernel).__name__}).")
            self.hyper_ = fit_hyperparameters(
                X, y_pm, self.optimize, length_scale0=kernel.l, noise_var0=max(noise_var, 1e-3),
                K0=kernel.K0, B2=kernel.B2, max_iter=check_positive_int(self.max_hyper_iter, "max_hyper_iter"))
            kernel = RBF(l=self.hyper_.length_scales, K0=kernel.K0, B2=kernel.B2)
            noise_var = self.hyper_.noise_var
        self.kernel_, self.noise_var_ = kernel, noise_var
        self.X_train_ = self.X_basis_ = X
        self.y_train_ = y_pm
        with blas_single_thread():
            K = self._training_gram(X)
            sol = solve_mean_field(K, y_pm, self.method, tol=self.tol,
                                   max_iter=check_positive_int(self.max_iter, "max_iter"), warn=False)
            self.free_energy_ = free_energy(K, y_pm, sol)
        if not sol.converged:
            warnings.warn(f"MeanFieldGPC({self.method!r}) did not converge (residual {sol.residual:.2e}); "
                          "raise max_iter or noise_var.", ConvergenceWarning, stacklevel=2)
        self.solution_ = sol
        self.alpha_ = sol.alpha
        self.coef_ = y_pm * sol.alpha
        self.n_iter_, self.converged_ = sol.n_iter, sol.converged
        self._tau = site_precisions(sol)
        return self

    def predict_proba(self, X):
        """Class probabilities ``P(y = +1 | x) = Phi(<f> / sqrt(var_f + sigma^2))``.

        The latent variance uses the Gaussian with each method's site precisions
        (exact for EP; for the mean-field methods the same Gaussian built from their
        marginals): ``var_f = K(x, x) - k^T (K + T^-1)^-1 k``.
        """
        mean = self.decision_function(X)
        X = check_inputs(X)
        with blas_single_thread():
            k = self.kernel_(X, self.X_train_)
            s = np.sqrt(self._tau)
            B = np.eye(len(s)) + s[:, None] * self._training_gram(self.X_train_) * s[None, :]
            L = linalg.cholesky(B, lower=True, check_finite=False)
            V = linalg.solve_triangular(L, (s[:, None] * k.T), lower=True, check_finite=False)
            var = self.kernel_.diag(X) - np.einsum("ij,ij->j", V, V)
        p1 = ndtr(mean / np.sqrt(np.maximum(var, 0.0) + self.noise_var_ + 1e-300))
        return np.column_stack([1 - p1, p1])


class SequentialGPC(_GPCBase):
    """The sequential single-sweep (online ADF) GP classifier.

    Parameters
    ----------
    kernel : Kernel, str or callable, default Polynomial(p=2)
    noise_var : float, default 0.0
        Probit noise variance added to the training kernel's diagonal.
    n_sweeps : int, default 1
        Sweeps through the data; more than 1 reuses examples (a heuristic).
    shuffle : bool, default True
        Present examples in a random order (``random_state``) instead of as given.
    random_state : int, None or Generator

    Attributes
    ----------
    coef_ : ndarray (t,)       ``<f>(x) = sum_i coef_i K(x, X_basis_i)``
    C_ : ndarray (t, t)
    log_evidence_ : float      ``ln Z_ADF`` of the first sweep
    X_basis_ : ndarray         the training inputs in order of presentation
    n_iter_ : int              examples presented (counting reuse)
    converged_ : bool          always True (a fixed number of updates, nothing to converge)
    """

    def __init__(self, kernel=None, noise_var=0.0, n_sweeps=1, shuffle=True, random_state=None):
        self.kernel = kernel
        self.noise_var = noise_var
        self.n_sweeps = n_sweeps
        self.shuffle = shuffle
        self.random_state = random_state

    def fit(self, X, y):
        """One (or ``n_sweeps``) pass(es) of the online update (eq. gpc-online-update)."""
        X, y_pm, self.classes_ = check_data(X, y)
        self.kernel_ = make_kernel(Polynomial(p=2) if self.kernel is None else self.kernel)
        if not isinstance(self.kernel_, Kernel):  # pragma: no cover - make_kernel guarantees it
            raise TypeError("kernel must be a svmlib Kernel.")
        self.noise_var_ = check_positive(self.noise_var, "noise_var", allow_zero=True)
        order = as_generator(self.random_state).permutation(len(y_pm)) if self.shuffle else None
        with blas_single_thread():
            K = self._training_gram(X)
            if np.any(np.diag(K) <= 0):
                raise ValueError("The kernel diagonal must be > 0; add noise_var > 0.")
            state = online_sweep(K, y_pm, n_sweeps=check_positive_int(self.n_sweeps, "n_sweeps"), order=order)
        self.state_ = state
        self.X_train_ = X
        self.X_basis_ = X[state.basis]
        self.coef_ = state.alpha
        self.C_ = state.C
        self.log_evidence_ = state.log_evidence
        self.n_iter_, self.converged_ = state.n_presented, True
        return self

    def predict_proba(self, X):
        """``P(y = +1 | x) = Phi(<f> / sqrt(K_t(x, x) + sigma^2))`` from the online Gaussian process."""
        mean = self.decision_function(X)
        X = check_inputs(X)
        with blas_single_thread():
            k = self.kernel_(X, self.X_basis_)
            var = self.kernel_.diag(X) + np.einsum("ij,jk,ik->i", k, self.C_, k)
        p1 = ndtr(mean / np.sqrt(np.maximum(var, 0.0) + self.noise_var_ + 1e-300))
        return np.column_stack([1 - p1, p1])

