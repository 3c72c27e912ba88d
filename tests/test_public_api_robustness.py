"""Every public name of svmlib against a shared corpus of malformed and numerically nasty inputs.

Issue 16. The test walks every module of the package (``pkgutil``; a module added later is
found without editing this file), takes every name in its ``__all__`` and drives it:

* functions and non-estimator classes (their constructor): a *baseline* call with good arguments,
  then one call per argument per corpus entry of that argument's *role* (a Gram matrix, labels,
  regression targets, inputs X, a positive number, an integer, a kernel, a switch, a method name,
  a random state), the other arguments kept good;
* estimators (scikit-learn ``BaseEstimator``): ``fit`` on every bad X and every bad y, ``fit``
  after ``set_params`` of every constructor parameter to every bad value of its role, and the
  prediction methods of a fitted estimator on every bad X;
* kernels (``svmlib.kernels.Kernel``): constructed with bad parameters, evaluated on bad X.

A call passes when it returns finite numbers, raises ``ValueError``/``TypeError`` with a message
raised by svmlib (or scikit-learn's validation) rather than from inside numpy/scipy/joblib, or
returns non-finite numbers only together with a ``ConvergenceWarning`` (or svmlib's
``LowESSWarning``). A call that takes longer than ``TIME_LIMIT`` seconds fails.

A new public function whose parameters have known names is covered automatically; one with a
required parameter of a new name fails with "no baseline for parameter ..." until BASELINES
learns it. Records (dataclasses), exceptions/warnings and constants are not callables to drive.
Not driven: ``svmlib.widgets``, ``svmlib.plotting`` (figures and GUI state, tested in their own
files) and ``svmlib.exercises`` (answer checkers returning Feedback, tested in test_cover_exercises).
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import inspect
import os
import pkgutil
import signal
import tempfile
import time
import traceback
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, is_regressor
from sklearn.exceptions import ConvergenceWarning

import svmlib
from svmlib.kernels import RBF, Kernel

TIME_LIMIT = 5.0  # seconds per call ("never longer than a few seconds")
SKIPPED_PACKAGES = ("svmlib.widgets", "svmlib.plotting", "svmlib.exercises")
# Names that fail the test in files another session owns: {qualname: reason}. An entry is an
# expected failure (strict=False, so the owner's fix does not break the run) until the owner
# fixes it and removes it. Empty: svmlib.dual, svmlib.svr and the replica functions pass.
EXPECTED_FAILURES = {}


# --------------------------------------------------------------------------------------------
# good data (small: the whole test must run in about a minute on 2 cores)
# --------------------------------------------------------------------------------------------
N = 12
_rng = np.random.default_rng(0)
X0 = _rng.normal(size=(N, 2))
Y0 = np.where(X0[:, 0] + 0.3 * _rng.normal(size=N) > 0, 1.0, -1.0)
Y0[:2] = (1.0, -1.0)
T0 = np.sin(X0[:, 0]) + 0.1 * X0[:, 1]          # regression targets
K0 = RBF(l=1.0)(X0)

REGRESSION_MODULES = ("svmlib.lssvr", "svmlib.svr")


class _Timeout(BaseException):
    """Not an Exception: library code cannot swallow it."""


def _alarm(signum, frame):  # pragma: no cover - only on a hang
    raise _Timeout()


# --------------------------------------------------------------------------------------------
# roles: which corpus an argument gets, by parameter name
# --------------------------------------------------------------------------------------------
MATRIX = {"K", "K_train"}
LABELS = {"y"}
INPUTS = {"X"}
POSITIVE = {"C", "gamma", "noise_var", "noise_variance", "scale", "S_over_N", "l", "length_scale", "c",
            "epsilon", "CK0", "noise_var0", "K0", "eta0", "cache_size", "damping", "tol", "rel_tol", "epsrel",
            "gtol", "outer_tol", "separation", "spread", "jitter", "max_se"}
NONNEGATIVE = {"eps", "B2", "c0", "noise"}
INTEGER = {"n", "n_samples", "n_chains", "n_draws", "n_temps", "n_anneal", "n_steps", "max_iter", "n_sweeps",
           "burn_in", "n_accepted", "batch", "n_datasets", "n_per_dim", "dim", "n_grid", "n_epochs",
           "max_hyper_iter", "max_epochs", "batch_size", "n_beta", "n_between", "n_moves", "n_replicas",
           "max_outer", "anderson", "p"}
SWITCH = {"fit_intercept", "shuffle", "deduplicate", "progress", "newton", "projection", "track",
          "with_gradient", "standardize_inputs", "include_online", "regularize_bias", "check", "warn"}
CHOICE = {"method", "objective", "sampling", "solver", "normaliser", "variance", "step", "bias", "optimize",
          "target"}
KERNEL = {"kernel"}
RANDOM = {"random_state"}


def _nan_kernel(x, z):
    return np.full((len(x), len(z)), np.nan)


def _duplicate_X():
    X = X0.copy()
    X[1] = X[0]
    return X


def corpus(role, good):
    """(name, value) pairs of bad or nasty values for an argument of ``role`` whose good value is ``good``."""
    if role == "matrix":
        K = np.asarray(good, dtype=float)
        n = K.shape[0]
        bad = K.copy()
        bad[0, 1] += 0.3
        nan, inf = K.copy(), K.copy()
        nan[0, 0], inf[1, 1] = np.nan, np.inf
        lam_max = float(np.linalg.eigvalsh(K)[-1])
        X = X0[:n]
        Xd = X.copy()
        Xd[1] = Xd[0]
        return [("empty", np.zeros((0, 0))), ("wrong_shape", K[:, :-1]), ("nan", nan), ("inf", inf),
                ("asymmetric", bad), ("not_psd", K - 2 * lam_max * np.eye(n)), ("duplicates", RBF(l=1.0)(Xd)),
                ("scale_1e-8", K * 1e-8), ("scale_1e8", K * 1e8), ("zeros", np.zeros((n, n))),
                ("rbf_l_1e6", RBF(l=1e6)(X)), ("rbf_l_1e-6", RBF(l=1e-6)(X)), ("list", K.tolist()),
                ("string", "K"), ("3d", K[None]), ("none", None)]
    if role == "labels":
        y = np.asarray(good, dtype=float)
        nan = y.copy()
        nan[0] = np.nan
        imbalance = -np.ones_like(y)
        imbalance[0] = 1.0
        return [("wrong_length", y[:-1]), ("nan", nan), ("zero_one", (y > 0).astype(float)),
                ("three_classes", np.arange(y.size) % 3), ("one_class", np.ones_like(y)), ("column", y[:, None]),
                ("strings", np.where(y > 0, "a", "b")), ("imbalance_1_vs_rest", imbalance), ("list", y.tolist()),
                ("empty", np.zeros(0)), ("none", None), ("2.5", np.full(y.size, 2.5))]
    if role == "targets":
        t = np.asarray(good, dtype=float)
        nan, inf = t.copy(), t.copy()
        nan[0], inf[0] = np.nan, np.inf
        return [("wrong_length", t[:-1]), ("nan", nan), ("inf", inf), ("constant", np.ones_like(t)),
                ("scale_1e8", t * 1e8), ("scale_1e-8", t * 1e-8), ("column", t[:, None]),
                ("strings", np.array(["a"] * t.size)), ("empty", np.zeros(0)), ("none", None)]
    if role == "inputs":
        X = np.asarray(good, dtype=float)
        nan, inf = X.copy(), X.copy()
        nan[0, 0], inf[0, 0] = np.nan, np.inf
        dup = X.copy()
        dup[1] = dup[0]
        return [("empty", X[:0]), ("1d", X[:, 0]), ("nan", nan), ("inf", inf), ("constant", np.ones_like(X)),
                ("constant_feature", np.column_stack([X[:, 0], np.ones(len(X))])), ("duplicates", dup),
                ("scale_1e-8", X * 1e-8), ("scale_1e8", X * 1e8), ("3d", X[None]), ("strings", X.astype(str).astype(object) + "x"),
                ("one_sample", X[:1]), ("list", X.tolist()), ("none", None)]
    if role == "positive":
        return [("zero", 0.0), ("negative", -1.0), ("nan", np.nan), ("inf", np.inf), ("string", "1"),
                ("tiny_1e-12", 1e-12), ("huge_1e12", 1e12), ("array", np.array([1.0, 2.0])), ("bool", True)]
    if role == "nonnegative":
        return [("negative", -1.0), ("nan", np.nan), ("inf", np.inf), ("string", "1"), ("huge_1e12", 1e12),
                ("bool", True)]
    if role == "integer":
        return [("zero", 0), ("negative", -1), ("fraction", 2.5), ("string", "3"), ("bool", True)]
    if role == "switch":
        return [("string_no", "no"), ("two", 2), ("none", None)]
    if role == "choice":
        return [("unknown", "nope"), ("number", 3)]
    if role == "kernel":
        from svmlib.kernels import UserKernel

        return [("unknown_name", "nope"), ("number", 42), ("rbf_l_1e-6", RBF(l=1e-6)), ("rbf_l_1e6", RBF(l=1e6)),
                ("nan_kernel", UserKernel(_nan_kernel))]
    if role == "random":
        return [("string", "seed"), ("negative", -1), ("fraction", 1.5)]
    return []


def role_of(name, qualname):
    module = qualname.rsplit(".", 1)[0]
    if name in MATRIX:
        return "matrix"
    if name in LABELS:
        return "targets" if module.startswith(REGRESSION_MODULES) else "labels"
    if name in INPUTS:
        return "inputs"
    for role, names in (("positive", POSITIVE), ("nonnegative", NONNEGATIVE), ("integer", INTEGER),
                        ("switch", SWITCH), ("choice", CHOICE), ("kernel", KERNEL), ("random", RANDOM)):
        if name in names:
            return role
    return None


# --------------------------------------------------------------------------------------------
# good arguments (baselines), by parameter name; per-function overrides where a name means
# something else
# --------------------------------------------------------------------------------------------
def _grid_prior():
    from svmlib.probabilistic import GridPrior, unit_grid

    return GridPrior(RBF(l=0.3), unit_grid(12))


def _mean_field_solution():
    from svmlib.gpc import solve_mean_field

    return solve_mean_field(K0 + 0.1 * np.eye(N), Y0, "naive")


def _replica_solution():
    from svmlib.bootstrap import solve_replica

    return solve_replica(K0, Y0, 1.0)


def _mc_result():
    from svmlib.bootstrap import monte_carlo_bootstrap

    return monte_carlo_bootstrap(K0, Y0, 1.0, 5, random_state=0)


BASELINES = {
    "K": lambda: K0, "K_train": lambda: K0 + 0.1 * np.eye(N), "y": lambda: Y0, "X": lambda: X0,
    "C": lambda: 1.0, "gamma": lambda: 1.0, "eps": lambda: 1e-2, "kernel": lambda: RBF(l=1.0),
    "n": lambda: 4, "theta": lambda: np.linspace(-2, 2, 7), "z": lambda: np.linspace(-3, 3, 7),
    "w": lambda: np.array([1.0, -0.5]), "b": lambda: 0.1, "angle": lambda: 0.3, "offset": lambda: 0.2,
    "prior": _grid_prior, "grid": lambda: np.linspace(0, 1, 12)[:, None], "C_values": lambda: np.array([0.5, 1.0, 2.0]),
    "CK0": lambda: 2.0, "sol": _mean_field_solution, "solution": _replica_solution,
    "lam": lambda: np.diag(K0 + 0.1 * np.eye(N)).copy(), "h": lambda: np.zeros(N),
    "dK": lambda: RBF(l=1.0).grad_log_l(X0), "K_new": lambda: K0[:3], "K_new_diag": lambda: np.ones(3),
    "length_scales": lambda: np.array([0.5, 1.0]), "noise_var": lambda: 0.1, "length_scale": lambda: 1.0,
    "reference": lambda: np.linspace(0, 1, 6), "estimate": lambda: np.linspace(0, 1.1, 6),
    "S_over_N_values": lambda: [0.5, 1.0], "bounds": lambda: (0.3, 3.0), "bootstrap_error": lambda: 0.2,
    "occupations": lambda: _mc_result().occupations, "fields": lambda: _mc_result().fields,
    "rng": lambda: np.random.default_rng(0), "random_state": lambda: 0, "eps_values": lambda: np.array([1e-3, 1e-2]),
    "x": lambda: np.array([1.0, 2.0, 4.0]), "Y": lambda: X0[:3], "k": lambda: (lambda a, b: a @ b.T),
    "alpha": None,  # filled per function below
    "dl": lambda: _replica_solution().dl, "g": lambda: _replica_solution().g,
    "m_c": lambda: _replica_solution().m_c, "V_c": lambda: _replica_solution().V_c,
    "chi_c": lambda: _replica_solution().chi_c, "S_over_N": lambda: 1.0,
    "Dz": lambda: None, "spec": lambda: "rbf", "kernel_spec": lambda: "rbf",
}

OVERRIDES = {  # qualname -> {param: factory}; budgets kept small
    "svmlib.gpc.free_energy_and_gradient": {"theta": lambda: np.zeros(3)},
    "svmlib.gpc.training_kernel": {"length_scales": lambda: 1.0},
    "svmlib.lssvr.loglog_slope": {"x": lambda: np.array([1.0, 2.0, 4.0]), "y": lambda: np.array([1.0, 0.5, 0.25])},
    "svmlib.evidence.laplace_log_naive_evidence": {"alpha": lambda: _no_bias_alpha()},
    # the exact references integrate numerically (~1 s at n = 3, 4, 5): closed forms keep it quick
    "svmlib.evidence.exact_log_naive_evidence": {"K": lambda: K0[:2, :2], "y": lambda: Y0[:2]},
    "svmlib.gpc.log_evidence_exact": {"K": lambda: K0[:3, :3] + 0.1 * np.eye(3), "y": lambda: Y0[:3]},
    "svmlib.gpc.alpha_exact": {"K": lambda: K0[:3, :3] + 0.1 * np.eye(3), "y": lambda: Y0[:3]},
    "svmlib.gpc.alpha_exact_n2": {"K": lambda: K0[:2, :2], "y": lambda: Y0[:2]},
    "svmlib.gpc.solve_fixed_point": {"K": lambda: K0 + 0.1 * np.eye(N)},
    "svmlib.gpc.solve_mean_field": {"K": lambda: K0 + 0.1 * np.eye(N)},
    "svmlib.gpc.free_energy": {"K": lambda: K0 + 0.1 * np.eye(N)},
    "svmlib.gpc.free_energy_naive": {"K": lambda: K0 + 0.1 * np.eye(N)},
    "svmlib.gpc.free_energy_ensemble": {"K": lambda: K0 + 0.1 * np.eye(N)},
    "svmlib.gpc.neg_log_evidence_ep": {"K": lambda: K0 + 0.1 * np.eye(N), "sol": lambda: _ep_solution()},
    "svmlib.gpc.free_energy_gradient": {"K": lambda: K0 + 0.1 * np.eye(N),
                                        "dK": lambda: np.concatenate([RBF(l=1.0).grad_log_l(X0), 0.1 * np.eye(N)[None]])},
    "svmlib.gpc.cavity_variances": {"K": lambda: K0 + 0.1 * np.eye(N), "method": lambda: "ensemble"},
    "svmlib.gpc.ensemble_bound": {"K": lambda: K0 + 0.1 * np.eye(N)},
    "svmlib.gpc.sample_posterior": {"K": lambda: K0 + 0.1 * np.eye(N), "n_samples": lambda: 20,
                                    "n_chains": lambda: 2, "burn_in": lambda: 5},
    "svmlib.gpc.log_evidence_importance": {"K": lambda: K0 + 0.1 * np.eye(N), "n_samples": lambda: 200},
    "svmlib.gpc.compare_posterior_means": {"noise_var": lambda: 0.5, "n_samples": lambda: 20, "n_chains": lambda: 2,
                                           "burn_in": lambda: 5},
    "svmlib.gpc.fit_hyperparameters": {"max_iter": lambda: 3},
    "svmlib.gpc.make_demo_problem": {"n": lambda: 10},
    "svmlib.evidence.normaliser_curve": {"grid": lambda: np.linspace(0, 1, 8)[:, None], "n_chains": lambda: 4,
                                         "n_beta": lambda: 3, "n_between": lambda: 2, "n_replicas": lambda: 2,
                                         "C_values": lambda: np.array([0.5, 1.0])},
    "svmlib.evidence.evidence_curve": {"grid": lambda: np.linspace(-2, 2, 8)[:, None], "normaliser": lambda: "mc",
                                       "n_draws": lambda: 50, "C_values": lambda: np.array([0.5, 1.0]),
                                       "X": lambda: X0[:, :1]},
    "svmlib.evidence.log_normaliser_mc": {"n_draws": lambda: 50},
    "svmlib.evidence.log_normaliser_ais": {"n_chains": lambda: 5, "n_temps": lambda: 3},
    "svmlib.probabilistic.sample_effective_prior": {"n_chains": lambda: 3, "n_anneal": lambda: 2, "n_steps": lambda: 2},
    "svmlib.probabilistic.restart_process": {"n": lambda: 2, "n_accepted": lambda: 3, "batch": lambda: 20},
    "svmlib.probabilistic.generate_data": {"n_anneal": lambda: 2, "n_steps": lambda: 2},
    "svmlib.probabilistic.unit_grid": {"n_per_dim": lambda: 5},
    "svmlib.probabilistic.likelihood": {"y": lambda: np.array([1.0, -1.0, 1.0]), "theta": lambda: np.array([0.2, 1.5, -3.0])},
    "svmlib.bootstrap.monte_carlo_bootstrap": {"n_samples": lambda: 5},
    "svmlib.bootstrap.ratio_error": {"y": lambda: Y0},
    "svmlib.bootstrap.draw_occupations": {"n": lambda: N},
    "svmlib.bootstrap.length_scale_path": {"length_scales": lambda: np.array([1.0, 2.0])},
    "svmlib.bootstrap.replica_learning_curve": {"S_over_N_values": lambda: [1.0]},
    # replica_map maps the cavity vector (m_c, ln V_c, ln chi_c)
    "svmlib.bootstrap.replica_map": {"x": lambda: np.concatenate([_replica_solution().m_c, np.log(_replica_solution().V_c),
                                                                  np.log(_replica_solution().chi_c)])},
    "svmlib.lssvr.make_sinc": {"n": lambda: 30},
    "svmlib.lssvr.sinc_bands": {"n": lambda: 30, "n_grid": lambda: 20},
    "svmlib.lssvr.epsilon_convergence": {"n": lambda: 10, "n_grid": lambda: 20, "eps_grid": lambda: np.array([1e-3, 1e-2])},
    "svmlib.lssvr.epsilon_sweep": {"y": lambda: T0},
    "svmlib.datasets.make_blobs2d": {"n": lambda: 10},
    "svmlib.primal.primal_trace": {"n_epochs": lambda: 3},
    "svmlib.dual.solve_dual": {"max_iter": lambda: 2000},
    "svmlib.dual.smo_steps": {"max_iter": lambda: 200},
}
# parameters mutated even though they have a default (the rest keep their defaults)
MUTATE_DEFAULTS = POSITIVE | NONNEGATIVE | {"max_iter", "n_samples", "n_sweeps", "fit_intercept", "method",
                                            "objective", "sampling", "random_state", "n_jobs"} | INTEGER
NEVER_MUTATE = {"jitter"}  # a numerical safety margin: any positive value is legitimate
# Non-finite results that are the right answer, with the reason.
ALLOWED_NONFINITE = {
    ("svmlib.primal.primal_objective", "C=inf"):
        "the hard-margin objective is +inf wherever a margin is violated (tests/test_primal.py)",
}


def _no_bias_alpha():
    from svmlib.probabilistic import solve_no_bias_dual

    return solve_no_bias_dual(K0, Y0, 1.0).alpha


def _ep_solution():
    from svmlib.gpc import solve_mean_field

    return solve_mean_field(K0 + 0.1 * np.eye(N), Y0, "ep")


# --------------------------------------------------------------------------------------------
# the judge
# --------------------------------------------------------------------------------------------
FOREIGN = ("/numpy/", "/scipy/", "/joblib/", "/threadpoolctl")


def _finite(value, depth=0):
    """True when every number reachable in ``value`` is finite."""
    if depth > 4 or value is None or isinstance(value, (str, bytes, bool, np.bool_, type)):
        return True
    if isinstance(value, (int, np.integer)):
        return True
    if isinstance(value, (float, np.floating, complex)):
        return bool(np.isfinite(value))
    if isinstance(value, np.ndarray):
        return value.dtype.kind not in "fc" or bool(np.all(np.isfinite(value)))
    if dataclasses.is_dataclass(value):
        return all(_finite(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value))
    if isinstance(value, dict):
        return all(_finite(v, depth + 1) for v in value.values())
    if isinstance(value, (list, tuple)):
        return all(_finite(v, depth + 1) for v in value[:50])
    return True


@contextlib.contextmanager
def _native_output():
    """What native code writes to file descriptors 1 and 2 meanwhile. OpenBLAS's xerbla prints
    "On entry to DSYRK parameter number 10 had an illegal value" to stdout and returns: an error the
    caller never sees."""
    import sys

    sys.stdout.flush()
    sys.stderr.flush()
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    sink = tempfile.TemporaryFile()
    for fd in saved:
        os.dup2(sink.fileno(), fd)
    written = []
    try:
        yield written
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        for fd, copy in saved.items():
            os.dup2(copy, fd)
            os.close(copy)
        sink.seek(0)
        written.append(sink.read().decode(errors="replace"))
        sink.close()


def judge(call):
    """Run ``call()``; return (ok, description, result)."""
    with _native_output() as native:
        ok, what, result = _judge(call)
    if ok and ("illegal value" in native[0] or "On entry to" in native[0]):
        return False, f"a native library reported an error: {native[0].strip()[:160]}", result
    return ok, what, result


def _judge(call):
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT)
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with np.errstate(all="ignore"):
                result = call()
                if inspect.isgenerator(result):
                    result = list(result)[-3:]
    except _Timeout:
        return False, f"took longer than {TIME_LIMIT} s", None
    except (ValueError, TypeError) as err:
        frames = traceback.extract_tb(err.__traceback__)
        where = frames[-1].filename if frames else ""
        if not str(err).strip():
            return False, f"{type(err).__name__} without a message", None
        if any(f in where for f in FOREIGN):
            return False, f"{type(err).__name__} from inside {where.split('site-packages/')[-1]}: {err}", None
        return True, f"{type(err).__name__}", None
    except Exception as err:  # noqa: BLE001 - the point of the test
        frames = traceback.extract_tb(err.__traceback__)
        where = frames[-1].filename.split("site-packages/")[-1] if frames else "?"
        return False, f"{type(err).__name__} ({where}:{frames[-1].lineno if frames else 0}): {str(err)[:160]}", None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    elapsed = time.perf_counter() - t0
    warned = any(issubclass(w.category, ConvergenceWarning) or w.category.__name__ == "LowESSWarning"
                 for w in caught)
    if not _finite(result) and not warned:
        return False, "non-finite result without a ConvergenceWarning", result
    return True, f"returned in {elapsed:.2f} s", result


# --------------------------------------------------------------------------------------------
# enumeration of the public API
# --------------------------------------------------------------------------------------------
def public_api():
    seen, out = set(), []
    # public modules only: a name starting with "_" anywhere in the path is internal
    # (svmlib._validation, svmlib.bootstrap._replica, ...); what they export publicly comes
    # through their package's __all__ (svmlib.bootstrap.solve_replica, ...)
    modules = [svmlib] + [importlib.import_module(m.name) for m in pkgutil.walk_packages(svmlib.__path__, "svmlib.")
                          if not m.name.startswith(SKIPPED_PACKAGES)
                          and not any(part.startswith("_") for part in m.name.split("."))]
    for mod in modules:
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if id(obj) in seen or not callable(obj):
                continue
            seen.add(id(obj))
            if inspect.isclass(obj) and (issubclass(obj, (BaseException, tuple)) or dataclasses.is_dataclass(obj)):
                continue  # exceptions, warnings and records (dataclasses, named tuples)
            home = getattr(obj, "__module__", mod.__name__)
            out.append((f"{mod.__name__}.{name}", home, obj))
    return out


API = public_api()


def _owner_mark(qualname):
    reason = EXPECTED_FAILURES.get(qualname)
    return [pytest.mark.xfail(reason=reason, strict=False)] if reason else []


def _good_args(qualname, fn):
    sig = inspect.signature(fn)
    args, missing = {}, []
    over = OVERRIDES.get(qualname, {})
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.name in over:
            args[p.name] = over[p.name]()
        elif p.default is inspect.Parameter.empty:
            factory = BASELINES.get(p.name)
            if factory is None:
                missing.append(p.name)
            else:
                args[p.name] = factory()
    return args, missing, sig


def _call(fn, sig, args):
    pos = [args[p.name] for p in sig.parameters.values()
           if p.kind == p.POSITIONAL_ONLY and p.name in args]
    kw = {k: v for k, v in args.items()
          if sig.parameters[k].kind != sig.parameters[k].POSITIONAL_ONLY}
    return lambda: fn(*pos, **kw)


def drive_function(qualname, fn):
    """Baseline call, then each argument replaced by each corpus value. Returns (n_calls, failures)."""
    args, missing, sig = _good_args(qualname, fn)
    if missing:
        return 0, [f"no baseline for parameter(s) {missing}: add them to BASELINES/OVERRIDES"]
    failures = []
    ok, what, _ = judge(_call(fn, sig, args))
    n = 1
    if not ok:
        failures.append(f"baseline: {what}")
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.name in NEVER_MUTATE:
            continue
        if p.name not in args and p.name not in MUTATE_DEFAULTS:
            continue
        role = role_of(p.name, qualname)
        good = args.get(p.name, p.default)
        if role is None or (role in ("matrix", "labels", "targets", "inputs") and good is None):
            continue
        if p.name == "n_jobs":
            values = [("zero", 0), ("string", "2"), ("fraction", 1.5)]
        else:
            values = corpus(role, good)
        for case, value in values:
            trial = dict(args)
            trial[p.name] = value
            ok, what, _ = judge(_call(fn, sig, trial))
            n += 1
            if not ok and not (what.startswith("non-finite") and (qualname, f"{p.name}={case}") in ALLOWED_NONFINITE):
                failures.append(f"{p.name}={case}: {what}")
    return n, failures


PREDICT_METHODS = ("predict", "predict_proba", "decision_function", "score", "field_samples",
                   "field_distribution", "latent_mean")
SMALL_BUDGET = {"n_samples": 10, "max_epochs": 50, "max_hyper_iter": 3}


def _estimator(cls):
    est = cls()
    small = {k: v for k, v in SMALL_BUDGET.items() if k in est.get_params()}
    return est.set_params(**small)


def drive_estimator(qualname, cls):
    failures, n = [], 0
    regressor = is_regressor(cls())
    y_good = T0 if regressor else Y0
    y_role = "targets" if regressor else "labels"
    # baseline fit, then predictions on good and bad X
    est = _estimator(cls)
    ok, what, _ = judge(lambda: est.fit(X0, y_good))
    n += 1
    if not ok:
        return n, [f"baseline fit: {what}"]
    for method in PREDICT_METHODS:
        if not hasattr(est, method):
            continue
        fn = getattr(est, method)
        call = (lambda f=fn: f(X0, y_good)) if method == "score" else (lambda f=fn: f(X0))
        ok, what, _ = judge(call)
        n += 1
        if not ok:
            failures.append(f"{method}(X): {what}")
        if method == "score":
            continue
        for case, value in corpus("inputs", X0):
            ok, what, _ = judge(lambda f=fn, v=value: f(v))
            n += 1
            if not ok:
                failures.append(f"{method}(X={case}): {what}")
    # fit on bad data
    for case, value in corpus("inputs", X0):
        ok, what, _ = judge(lambda v=value: _fit_and_predict(_estimator(cls), v, y_good))
        n += 1
        if not ok:
            failures.append(f"fit(X={case}): {what}")
    for case, value in corpus(y_role, y_good):
        ok, what, _ = judge(lambda v=value: _fit_and_predict(_estimator(cls), X0, v))
        n += 1
        if not ok:
            failures.append(f"fit(y={case}): {what}")
    # every constructor parameter with a role
    for name in cls().get_params():
        role = role_of(name, qualname)
        if role is None or role in ("matrix", "labels", "targets", "inputs") or name in NEVER_MUTATE:
            continue
        values = [("zero", 0), ("string", "2"), ("fraction", 1.5)] if name == "n_jobs" else \
            corpus(role, getattr(cls(), name))
        for case, value in values:
            ok, what, _ = judge(lambda v=value: _fit_and_predict(_estimator(cls).set_params(**{name: v}), X0, y_good))
            n += 1
            if not ok:
                failures.append(f"{name}={case}: {what}")
    return n, failures


def _fit_and_predict(est, X, y):
    est.fit(X, y)
    out = [est.predict(X0)]
    if hasattr(est, "predict_proba"):
        out.append(est.predict_proba(X0))
    return out


def drive_kernel(qualname, cls):
    failures, n = [], 0
    params = list(inspect.signature(cls).parameters)
    if "k" in params:        # UserKernel(k): a callable
        base = {"k": lambda a, b: a @ b.T}
    else:
        base = {}
    kern = cls(**base)
    for case, value in corpus("inputs", X0):
        for what_call in (lambda v=value: kern(v), lambda v=value: kern.diag(v), lambda v=value: kern(X0, v)):
            ok, what, _ = judge(what_call)
            n += 1
            if not ok:
                failures.append(f"kernel(X={case}): {what}")
    for name in params:
        role = {"l": "positive", "K0": "positive", "B2": "nonnegative", "p": "integer", "c0": "nonnegative",
                "k": None}.get(name)
        if role is None:
            continue
        for case, value in corpus(role, 1.0):
            ok, what, _ = judge(lambda v=value: cls(**{**base, name: v})(X0))
            n += 1
            if not ok:
                failures.append(f"{name}={case}: {what}")
    return n, failures


def drive(qualname, obj):
    if inspect.isclass(obj) and issubclass(obj, Kernel):   # kernels are BaseEstimators too
        if obj is Kernel:
            return 0, []
        return drive_kernel(qualname, obj)
    if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
        return drive_estimator(qualname, obj)
    return drive_function(qualname, obj)


@pytest.mark.parametrize(
    "qualname, obj",
    [pytest.param(q, o, id=q, marks=_owner_mark(q)) for q, _, o in API],
)
def test_public_name_survives_the_corpus(qualname, obj):
    n_calls, failures = drive(qualname, obj)
    assert not failures, f"{qualname}: {len(failures)} of {n_calls} calls failed:\n  " + "\n  ".join(failures)


def test_the_enumeration_finds_every_module():
    """A module added later is walked without editing this file (pkgutil); dual is in."""
    names = {q.rsplit(".", 1)[0] for q, _, _ in API}
    for module in ("svmlib.dual", "svmlib.kernels", "svmlib.probabilistic", "svmlib.evidence", "svmlib.gpc",
                   "svmlib.bootstrap", "svmlib.lssvr", "svmlib.margin", "svmlib.primal"):
        assert module in names, module


CLASSIFIERS = [pytest.param(q, o, id=q, marks=_owner_mark(q)) for q, _, o in API
               if inspect.isclass(o) and issubclass(o, BaseEstimator) and not issubclass(o, Kernel)
               and not is_regressor(o())]


@pytest.mark.parametrize("qualname, cls", CLASSIFIERS)
def test_classifiers_survive_extreme_class_imbalance(qualname, cls):
    """One example of one class against 999 of the other (n = 1000, 2-D Gaussian inputs): the
    issue's 1-vs-999 imbalance, within TIME_LIMIT. Every classifier takes under ~0.6 s here;
    ReplicaBootstrap, whose exact fixed-point iteration wandered for 60-90 O(N^3) iterations on
    this set (5-18 s, ending in a ConvergenceWarning), now solves it on a low-rank surrogate of the
    kernel first and converges in ~0.5 s."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(1000, 2))
    y = -np.ones(1000)
    y[0] = 1.0
    ok, what, _ = judge(lambda: _fit_and_predict(_estimator(cls), X, y))
    assert ok, f"{qualname} on a 1-vs-999 data set: {what}"


# --------------------------------------------------------------------------- degenerate inputs (issue 26)
def test_kernel_overflow_warns():
    from svmlib.kernels import KernelOverflowWarning, Linear, Polynomial

    X = np.random.default_rng(0).normal(size=(6, 2))
    with pytest.warns(KernelOverflowWarning, match="overflowed double precision.*Standardise X"):
        Polynomial(p=400)(3 * X)
    with pytest.warns(KernelOverflowWarning, match="25 of 36|36 of 36"):
        Linear()(X * 1e200)
    with pytest.warns(KernelOverflowWarning):
        Linear().diag(X * 1e200)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        RBF()(X * 1e200)  # exp(-inf) = 0 is not an overflow: no warning


@pytest.mark.parametrize("how", ["callable", "precomputed"])
def test_non_psd_kernel_warns_with_its_most_negative_eigenvalue(how):
    from svmlib.dual import DualSVC, NotPSDWarning

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    if how == "callable":
        est, data = DualSVC(C=1.0, kernel=lambda A, B: -RBF()(A, B)), X
    else:
        est, data = DualSVC(C=1.0, kernel="precomputed"), -RBF()(X)
    with pytest.warns(NotPSDWarning, match=r"most negative eigenvalue is -\d"):
        est.fit(data, y)
    with warnings.catch_warnings():  # a valid kernel: no warning
        warnings.simplefilter("error", category=UserWarning)
        DualSVC(C=1.0).fit(X, y)


@pytest.mark.parametrize("scale", [1e100, 1e150, 1e200])
@pytest.mark.parametrize("solver", ["subgradient", "newton"])
def test_primal_on_huge_scales_has_no_numpy_traceback(scale, solver):
    # issue 26: the polishing least-squares raised numpy's 'SVD did not converge'
    from svmlib.datasets import make_blobs2d
    from svmlib.primal import PrimalSVC

    X, y = make_blobs2d(40, separation=2.0, random_state=0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf = PrimalSVC(solver=solver, max_epochs=50).fit(X * scale, y)
    except ValueError as err:
        assert "Standardise X" in str(err)
    else:
        assert np.all(np.isfinite(clf.coef_)) and np.isfinite(clf.intercept_[0])
        assert np.isfinite(clf.objective_) and 0 <= clf.duality_gap_ <= 1


def test_imbalanced_replica_solve_is_fast():
    # one positive among 1,000 points: the replica solve warm-starts on a low-rank surrogate
    # (issue 16); measured 0.5-0.7 s on the 2-core machine under load; allowed 10 s.
    from svmlib.bootstrap import ReplicaBootstrap

    rng = np.random.default_rng(1)
    X = rng.normal(size=(1000, 2))
    y = np.r_[1, -np.ones(999)]
    t0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = ReplicaBootstrap().fit(X, y)
    assert time.process_time() - t0 < 10.0
    assert np.isfinite(est.error_) and 0 <= est.error_ <= 1


@pytest.mark.parametrize("case", ["tiny scale", "constant X", "huge length scale"])
@pytest.mark.parametrize("name", ["SequentialGPC", "MeanFieldGPC"])
def test_gpc_on_degenerate_scales_stays_finite(case, name):
    # issue 26: SequentialGPC returned decision values ~1e146 and probabilities exactly 0/1 here;
    # now its skip floor keeps the fit finite (and it says it skipped); sklearn's GPC gives ~0.5.
    import svmlib.gpc as gpc

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] > 0, 1, 0)
    kernel = RBF(1e6) if case == "huge length scale" else RBF(1.0)
    Xf = {"tiny scale": X * 1e-8, "constant X": np.ones_like(X), "huge length scale": X}[case]
    params = {"random_state": 0} if name == "SequentialGPC" else {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = getattr(gpc, name)(kernel=kernel, **params).fit(Xf, y)
        proba = est.predict_proba(Xf)
        far = est.predict_proba(Xf * 1e6 + 1e3)  # far outside the training range
    for p in (proba, far):
        assert np.all(np.isfinite(p)) and np.all((p > 0.01) & (p < 0.99))  # no 0/1 from round-off
        np.testing.assert_allclose(p.sum(axis=1), 1.0)
    if name == "SequentialGPC" and case != "huge length scale":
        assert any("skipped" in str(w.message) for w in caught)


@pytest.mark.parametrize("name", ["SequentialGPC", "MeanFieldGPC"])
def test_gpc_on_huge_scales_says_standardise(name):
    # issue 26: a linear kernel on X * 1e200 overflows K; MeanFieldGPC said only "K and y must be finite"
    import svmlib.gpc as gpc
    from svmlib.datasets import make_blobs2d
    from svmlib.kernels import Linear

    X, y = make_blobs2d(40, separation=2.0, random_state=0)
    with pytest.raises(ValueError, match=r"overflow.*Standardise X"):
        getattr(gpc, name)(kernel=Linear()).fit(X * 1e200, y)
