"""scikit-learn style classifiers: mean-field / EP GP classification and the online algorithm."""

from __future__ import annotations

import warnings

import numpy as np
from scipy import linalg
from scipy.special import ndtr
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning

from .._threads import blas_single_thread
from .._validation import (
    check_bool,
    check_data,
    check_inputs,
    check_positive,
    check_positive_int,
    check_predict_inputs,
    check_tol,
    set_feature_info,
)
from ..kernels import RBF, Kernel, Polynomial, make_kernel
from ._exact import as_generator
from ._hyper import fit_hyperparameters
from ._meanfield import _check_method, free_energy, site_precisions, solve_mean_field
from ._online import online_sweep

__all__ = ["MeanFieldGPC", "SequentialGPC"]


class _GPCBase(ClassifierMixin, BaseEstimator):
    """Shared prediction.

    ``latent_mean`` is the posterior mean ``<f(x)> = sum_j K(x, x_j) c_j`` (``c = y * alpha``);
    ``decision_function`` is the probit argument ``z(x) = <f(x)> / sqrt(var_f(x) + sigma^2)``, so
    that ``predict_proba[:, 1] = Phi(z)`` is a monotone function of it: ROC curves and AUC are the
    same whichever of the two a user scores. (The mean alone ranks points differently from the
    probabilities, because the latent variance differs from point to point.) All three have the
    sign of the posterior mean, which ``predict`` uses.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False  # the step likelihood has two classes
        return tags

    def _training_gram(self, X):
        K = self.kernel_(X)
        K[np.diag_indices_from(K)] += self.noise_var_
        return K

    def latent_mean(self, X):
        """Posterior mean ``<f(x)>`` of the noise-free latent function (eq. :eq:`(8.5) <gpc-svm-form>`)."""
        X = check_predict_inputs(self, X)
        with blas_single_thread():
            return self.kernel_(X, self.X_basis_) @ self.coef_

    def decision_function(self, X):
        """``z(x) = <f(x)> / sqrt(var_f(x) + sigma^2)``, the argument of ``Phi`` in ``predict_proba``.

        Same sign as :meth:`latent_mean` (the posterior mean), and ranks points exactly as the
        class probabilities do.
        """
        mean = self.latent_mean(X)
        var = self._latent_var(check_inputs(X))
        return mean / np.sqrt(np.maximum(var, 0.0) + self.noise_var_ + 1e-300)

    def predict_proba(self, X):
        """Class probabilities, columns ordered as ``classes_``: ``P(y = +1 | x) = Phi(z(x))``."""
        p1 = ndtr(self.decision_function(X))
        return np.column_stack([1 - p1, p1])

    def predict(self, X):
        """Class labels: the sign of the posterior mean (Bayes-optimal for a symmetric posterior)."""
        f = self.decision_function(X)
        return self.classes_[(f > 0).astype(int)]


class MeanFieldGPC(_GPCBase):
    """Gaussian-process classification with the step likelihood and probit noise.

    The noise ``Phi(y f / sigma)`` is folded into the training kernel
    (``K + sigma^2 I``); the posterior mean is computed by naive mean field,
    ensemble (variational) mean field or EP, all through the same fixed-point
    equations (eq. :eq:`(8.7) <gpc-fixed-point>`) solved by Newton's method.

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
        Mixing ``optimize`` and ``method`` gives the paper's hybrid table. As scikit-learn's
        Gaussian processes do, a ``ConvergenceWarning`` says when a fitted value ends at its
        bound (widen the bound and fit again) or when L-BFGS stops early.
    max_hyper_iter : int
    tol, max_iter : float, int
        Tolerance and step limit of the inner Newton solver.
    length_scale_bounds, noise_var_bounds : (float, float) or None
        Search box of ``optimize`` for every length scale and for ``noise_var`` (``None``:
        ``(e^-4, e^6) = (0.018, 403)`` and ``(e^-7, e^7) = (0.00091, 1097)``).

    Attributes
    ----------
    alpha_ : ndarray (n,)
        the coefficients ``alpha_j >= 0``
    coef_ : ndarray (n,)
        ``y_j alpha_j``
    kernel_ : Kernel
        the (fitted) kernel, noise not included
    noise_var_ : float
    free_energy_ : float
        the method's free energy (F_naive, F_ens or -ln Z_EP)
    solution_ : MeanFieldSolution
    hyper_ : HyperFit or None
        the hyperparameter run (with its history)
    n_iter_ : int
        Newton steps of the final inner solve
    converged_ : bool
    classes_ : ndarray (2,)

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import make_demo_problem
    >>> X, y = make_demo_problem(20, random_state=0)
    >>> from svmlib.gpc import MeanFieldGPC
    >>> clf = MeanFieldGPC(method='ep', noise_var=1.0).fit(X, y)
    >>> print(f'{clf.score(X, y):.2f}', clf.converged_, clf.predict_proba(X[:2]).shape)
    0.85 True (2, 2)
    """

    def __init__(self, kernel=None, noise_var=1.0, method="naive", optimize=None, max_hyper_iter=100,
                 tol=1e-10, max_iter=100, length_scale_bounds=None, noise_var_bounds=None):
        self.kernel = kernel
        self.noise_var = noise_var
        self.method = method
        self.optimize = optimize
        self.max_hyper_iter = max_hyper_iter
        self.tol = tol
        self.max_iter = max_iter
        self.length_scale_bounds = length_scale_bounds
        self.noise_var_bounds = noise_var_bounds

    def _log_bounds(self):
        out = []
        for value, name, default in ((self.length_scale_bounds, "length_scale_bounds", (-4.0, 6.0)),
                                     (self.noise_var_bounds, "noise_var_bounds", (-7.0, 7.0))):
            if value is None:
                out.append(default)
                continue
            b = check_positive(value, name, allow_array=True)
            if np.ndim(b) != 1 or np.size(b) != 2 or not b[0] < b[1]:
                raise ValueError(f"{name} must be (low, high) with 0 < low < high, got {value!r}.")
            out.append((float(np.log(b[0])), float(np.log(b[1]))))
        return tuple(out)

    def fit(self, X, y):
        """Solve the mean-field equations (after fitting hyperparameters if asked)."""
        X_raw = X
        X, y_pm, self.classes_ = check_data(X, y)
        set_feature_info(self, X_raw)
        _check_method(self.method)
        kernel = make_kernel(RBF(l=1.0) if self.kernel is None else self.kernel)
        noise_var = check_positive(self.noise_var, "noise_var", allow_zero=True)
        tol = check_tol(self.tol)
        max_iter = check_positive_int(self.max_iter, "max_iter")
        self.hyper_ = None
        if self.optimize is not None:
            _check_method(self.optimize)
            if not isinstance(kernel, RBF):
                raise ValueError("optimize fits RBF length scales; give kernel=RBF(...) "
                                 f"(got {type(kernel).__name__}).")
            bounds = self._log_bounds()
            self.hyper_ = fit_hyperparameters(
                X, y_pm, self.optimize, length_scale0=kernel.l, noise_var0=max(noise_var, 1e-3),
                K0=kernel.K0, B2=kernel.B2, max_iter=check_positive_int(self.max_hyper_iter, "max_hyper_iter"),
                bounds=bounds)
            if self.hyper_.at_bounds:
                warnings.warn(
                    f"MeanFieldGPC(optimize={self.optimize!r}): {', '.join(self.hyper_.at_bounds)}: ended at "
                    "the bound; the free energy may decrease beyond it. Widen length_scale_bounds / "
                    "noise_var_bounds and fit again, or check the data (a constant or irrelevant input "
                    "drives its length scale to the upper bound).", ConvergenceWarning, stacklevel=2)
            elif not self.hyper_.converged:
                warnings.warn(f"MeanFieldGPC(optimize={self.optimize!r}): L-BFGS stopped before convergence "
                              f"({self.hyper_.message}); raise max_hyper_iter.", ConvergenceWarning, stacklevel=2)
            kernel = RBF(l=self.hyper_.length_scales, K0=kernel.K0, B2=kernel.B2)
            noise_var = self.hyper_.noise_var
        self.kernel_, self.noise_var_ = kernel, noise_var
        self.X_train_ = self.X_basis_ = X
        self.y_train_ = y_pm
        with blas_single_thread():
            K = self._training_gram(X)
            sol = solve_mean_field(K, y_pm, self.method, tol=tol, max_iter=max_iter, warn=False)
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

    def _latent_var(self, X):
        """Latent variance ``var_f = K(x, x) - k^T (K + T^-1)^-1 k``.

        The Gaussian with each method's site precisions (exact for EP; for the mean-field methods
        the same Gaussian built from their marginals).
        """
        with blas_single_thread():
            k = self.kernel_(X, self.X_train_)
            s = np.sqrt(self._tau)
            B = np.eye(len(s)) + s[:, None] * self._training_gram(self.X_train_) * s[None, :]
            L = linalg.cholesky(B, lower=True, check_finite=False)
            V = linalg.solve_triangular(L, (s[:, None] * k.T), lower=True, check_finite=False)
            return self.kernel_.diag(X) - np.einsum("ij,ij->j", V, V)


class SequentialGPC(_GPCBase):
    """The sequential single-sweep (online ADF) GP classifier.

    Implements eq. :eq:`(8.17) <gpc-online-update>`.

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
    coef_ : ndarray (t,)
        ``<f>(x) = sum_i coef_i K(x, X_basis_i)``
    C_ : ndarray (t, t)
    log_evidence_ : float
        ``ln Z_ADF`` of the first sweep
    X_basis_ : ndarray
        the training inputs in order of presentation
    n_iter_ : int
        examples presented (counting reuse)
    n_skipped_ : int
        presentations skipped because the predictive variance there was at
        round-off level (warned)
    n_projected_ : int
        presentations projected onto a well-conditioned basis instead of adding
        a row, because the example's kernel function is (to round-off) a
        combination of the basis functions (constant or near-collinear inputs,
        a very long length scale): what keeps ``coef_`` and ``C_`` from becoming
        an ill-conditioned representation whose round-off decides the predictions
    converged_ : bool
        always True (a fixed number of updates, nothing to converge)

    Examples
    --------
    >>> import numpy as np
    >>> from svmlib.gpc import make_demo_problem
    >>> X, y = make_demo_problem(20, random_state=0)
    >>> from svmlib.gpc import SequentialGPC
    >>> clf = SequentialGPC(random_state=0).fit(X, y)
    >>> print(f'{clf.score(X, y):.2f}', clf.coef_.shape, clf.n_projected_)  # quadratic kernel in 2 inputs: rank 6
    0.90 (6,) 14
    """

    def __init__(self, kernel=None, noise_var=0.0, n_sweeps=1, shuffle=True, random_state=None):
        self.kernel = kernel
        self.noise_var = noise_var
        self.n_sweeps = n_sweeps
        self.shuffle = shuffle
        self.random_state = random_state

    def fit(self, X, y):
        """One (or ``n_sweeps``) pass(es) of the online update (eq. :eq:`(8.17) <gpc-online-update>`)."""
        X_raw = X
        X, y_pm, self.classes_ = check_data(X, y)
        set_feature_info(self, X_raw)
        shuffle = check_bool(self.shuffle, "shuffle")
        self.kernel_ = make_kernel(Polynomial(p=2) if self.kernel is None else self.kernel)
        if not isinstance(self.kernel_, Kernel):  # pragma: no cover - make_kernel guarantees it
            raise TypeError("kernel must be a svmlib Kernel.")
        self.noise_var_ = check_positive(self.noise_var, "noise_var", allow_zero=True)
        order = as_generator(self.random_state).permutation(len(y_pm)) if shuffle else None
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
        self.n_skipped_ = state.n_skipped
        self.n_projected_ = state.n_projected
        if state.n_skipped:
            warnings.warn(
                f"SequentialGPC skipped {state.n_skipped} of {state.n_presented} presentations: the kernel "
                "left no variance at those inputs (their latent value was already fixed, to round-off, by "
                "earlier ones: duplicates, constant or nearly collinear inputs). Add noise_var > 0 or "
                "rescale the inputs / kernel.", UserWarning, stacklevel=2)
        return self

    def _latent_var(self, X):
        """``K_t(x, x) = K(x, x) + k^T C k`` of the online Gaussian process."""
        with blas_single_thread():
            k = self.kernel_(X, self.X_basis_)
            return self.kernel_.diag(X) + np.einsum("ij,jk,ik->i", k, self.C_, k)
