"""svmlib.kernels against scikit-learn's pairwise kernels and GP kernels.

Every kernel is checked on seeded inputs against an independent
implementation (sklearn.metrics.pairwise, sklearn.gaussian_process.kernels),
its diagonal against the Gram matrix, its length-scale derivative against
finite differences, and (hypothesis) every Gram matrix is symmetric and PSD.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.base import clone
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import Matern
from sklearn.metrics.pairwise import laplacian_kernel, linear_kernel, polynomial_kernel, rbf_kernel

from svmlib.kernels import (
    RBF,
    Kernel,
    Linear,
    OrnsteinUhlenbeck,
    Polynomial,
    UserKernel,
    gram,
    is_psd,
    make_kernel,
    min_eigenvalue,
    poly2_feature_map,
)

# Both sides compute the same closed forms in double precision; differences are
# round-off of O(10 eps) relative, so 1e-12 leaves three orders of headroom.
RTOL = 1e-12


@pytest.fixture(scope="module")
def XY():
    gen = np.random.default_rng(11)
    return gen.normal(size=(12, 3)), gen.normal(size=(7, 3))


def _amplitude_offset_cases():
    return [(1.0, 0.0), (2.5, 0.0), (0.3, 1.7)]


@pytest.mark.parametrize("K0, B2", _amplitude_offset_cases())
def test_linear(XY, K0, B2):
    X, Y = XY
    np.testing.assert_allclose(Linear(K0=K0, B2=B2)(X, Y), K0 * linear_kernel(X, Y) + B2, rtol=RTOL, atol=1e-14)


@pytest.mark.parametrize("p, c0", [(1, 0.0), (2, 1.0), (3, 0.5), (5, 2.0)])
@pytest.mark.parametrize("K0, B2", _amplitude_offset_cases())
def test_polynomial(XY, p, c0, K0, B2):
    X, Y = XY
    ref = polynomial_kernel(X, Y, degree=p, gamma=1.0, coef0=c0)
    np.testing.assert_allclose(Polynomial(p=p, c0=c0, K0=K0, B2=B2)(X, Y), K0 * ref + B2, rtol=RTOL, atol=1e-13)


@pytest.mark.parametrize("l", [0.3, 1.0, 4.0])
@pytest.mark.parametrize("K0, B2", _amplitude_offset_cases())
def test_rbf_single_length_scale(XY, l, K0, B2):
    X, Y = XY
    ref = rbf_kernel(X, Y, gamma=1.0 / (2 * l**2))
    np.testing.assert_allclose(RBF(l=l, K0=K0, B2=B2)(X, Y), K0 * ref + B2, rtol=RTOL, atol=1e-14)


def test_rbf_per_dimension_length_scales(XY):
    X, Y = XY
    l = np.array([0.5, 2.0, 1.3])
    np.testing.assert_allclose(RBF(l=l)(X, Y), SkRBF(length_scale=l)(X, Y), rtol=RTOL, atol=1e-14)
    np.testing.assert_allclose(RBF(l=l, K0=3.0, B2=0.5)(X, Y), 3.0 * SkRBF(length_scale=l)(X, Y) + 0.5, rtol=RTOL)


@pytest.mark.parametrize("l", [0.5, 1.0, [0.4, 1.0, 3.0]])
def test_ornstein_uhlenbeck_is_matern_one_half(XY, l):
    X, Y = XY
    ref = Matern(length_scale=np.asarray(l, dtype=float), nu=0.5)(X, Y)
    np.testing.assert_allclose(OrnsteinUhlenbeck(l=l)(X, Y), ref, rtol=RTOL, atol=1e-14)
    np.testing.assert_allclose(OrnsteinUhlenbeck(l=l, K0=2.0, B2=0.1)(X, Y), 2 * ref + 0.1, rtol=RTOL)


def test_ornstein_uhlenbeck_in_1d_is_laplacian(rng):
    """In one dimension |x - x'| is also the L1 distance of sklearn's laplacian kernel."""
    X, Y = rng.normal(size=(9, 1)), rng.normal(size=(4, 1))
    np.testing.assert_allclose(OrnsteinUhlenbeck(l=0.7)(X, Y), laplacian_kernel(X, Y, gamma=1 / 0.7), rtol=RTOL)


def test_single_argument_means_x_with_itself(XY):
    X, _ = XY
    for kernel in (Linear(), Polynomial(), RBF(l=0.8), OrnsteinUhlenbeck()):
        np.testing.assert_array_equal(kernel(X), kernel(X, X))


def test_user_callable_kernel(XY):
    X, Y = XY

    def cubic(A, B):
        return (A @ B.T) ** 3

    np.testing.assert_allclose(UserKernel(cubic)(X, Y), (X @ Y.T) ** 3, rtol=RTOL)
    np.testing.assert_allclose(UserKernel(cubic, K0=2.0, B2=1.0)(X, Y), 2 * (X @ Y.T) ** 3 + 1.0, rtol=RTOL)
    np.testing.assert_allclose(make_kernel(cubic)(X, Y), (X @ Y.T) ** 3, rtol=RTOL)
    np.testing.assert_allclose(gram(cubic, X, Y), (X @ Y.T) ** 3, rtol=RTOL)


def test_user_kernel_wrong_shape_and_values(XY):
    X, Y = XY
    with pytest.raises(ValueError, match="shape"):
        UserKernel(lambda A, B: A @ A.T)(X, Y)
    with pytest.raises(ValueError, match="shape"):
        UserKernel(lambda A, B: np.ones(len(A)))(X, Y)
    with pytest.raises(ValueError, match="NaN or infinity"):
        UserKernel(lambda A, B: np.full((len(A), len(B)), np.nan))(X, Y)
    with pytest.raises(TypeError, match="callable"):
        UserKernel(3.0)(X, Y)
    with pytest.raises(TypeError):
        UserKernel(lambda A, B: [["a"] * len(B)] * len(A))(X, Y)


ALL_KERNELS = [
    Linear(K0=2.0, B2=0.5),
    Polynomial(p=3, c0=1.0, K0=0.5, B2=1.0),
    RBF(l=0.7, K0=2.0, B2=0.3),
    RBF(l=[0.5, 1.0, 2.0]),
    OrnsteinUhlenbeck(l=1.5, K0=1.2, B2=0.1),
    OrnsteinUhlenbeck(l=[0.5, 1.0, 2.0]),
    UserKernel(lambda A, B: np.exp(-np.abs(A @ B.T)), K0=1.5, B2=0.2),
]


@pytest.mark.parametrize("kernel", ALL_KERNELS, ids=lambda k: type(k).__name__)
def test_diag_is_the_gram_diagonal(XY, kernel):
    X, _ = XY
    np.testing.assert_allclose(kernel.diag(X), np.diag(kernel(X)), rtol=RTOL, atol=1e-14)


@pytest.mark.parametrize("l", [0.8, np.array([0.5, 1.5, 3.0])])
def test_rbf_grad_log_l_against_finite_differences(XY, l):
    """Central differences in ln l with h = 1e-5: truncation O(h^2) ~ 1e-10, round-off ~ eps/h ~ 1e-11."""
    X, _ = XY
    kernel = RBF(l=l, K0=1.7)
    grad = kernel.grad_log_l(X)
    log_l = np.log(np.atleast_1d(np.asarray(l, dtype=float)))
    assert grad.shape == (log_l.size, len(X), len(X))
    h = 1e-5
    for d in range(log_l.size):
        step = np.zeros_like(log_l)
        step[d] = h

        def K_at(v):
            value = np.exp(v) if np.ndim(l) else float(np.exp(v[0]))
            return RBF(l=value, K0=1.7)(X)

        fd = (K_at(log_l + step) - K_at(log_l - step)) / (2 * h)
        np.testing.assert_allclose(grad[d], fd, rtol=1e-7, atol=1e-9)


def test_poly2_feature_map_identity(rng):
    X, Y = rng.normal(size=(20, 2)) * 3, rng.normal(size=(15, 2)) * 3
    phi_X, phi_Y = poly2_feature_map(X), poly2_feature_map(Y)
    assert phi_X.shape == (20, 6)
    exact = (1.0 + X @ Y.T) ** 2
    np.testing.assert_allclose(phi_X @ phi_Y.T, exact, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(phi_X @ phi_Y.T, Polynomial(p=2, c0=1.0)(X, Y), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="2-D inputs"):
        poly2_feature_map(rng.normal(size=(4, 3)))


def test_is_psd_and_min_eigenvalue(XY, rng):
    X, _ = XY
    K = RBF(l=1.0)(X)
    assert is_psd(K)
    assert min_eigenvalue(K) > -1e-12
    not_psd = np.array([[1.0, 2.0], [2.0, 1.0]])  # eigenvalues 3 and -1
    assert not is_psd(not_psd)
    assert min_eigenvalue(not_psd) == pytest.approx(-1.0, rel=1e-14)
    assert not is_psd(np.array([[1.0, 0.5], [0.0, 1.0]]))  # not symmetric
    assert not is_psd(-np.eye(3))
    # a rank-deficient Gram matrix (duplicate points): smallest eigenvalue ~ 0 up to round-off
    Xd = np.vstack([X, X[:3]])
    assert is_psd(Linear()(Xd))
    with pytest.raises(ValueError, match="square"):
        is_psd(np.ones((2, 3)))
    with pytest.raises(ValueError, match="NaN"):
        is_psd(np.array([[np.nan]]))


def test_make_kernel():
    assert isinstance(make_kernel("rbf", l=2.0), RBF) and make_kernel("rbf", l=2.0).l == 2.0
    assert isinstance(make_kernel("Linear"), Linear)
    assert isinstance(make_kernel("poly", p=3), Polynomial)
    assert isinstance(make_kernel("ou"), OrnsteinUhlenbeck)
    k = RBF()
    assert make_kernel(k) is k
    with pytest.raises(ValueError, match="Unknown kernel"):
        make_kernel("sigmoid")
    with pytest.raises(ValueError, match="not both"):
        make_kernel(RBF(), l=2.0)
    with pytest.raises(TypeError, match="kernel must be"):
        make_kernel(3)


def test_kernels_are_sklearn_parameter_objects():
    k = Polynomial(p=3, c0=0.5, K0=2.0, B2=1.0)
    assert clone(k).get_params() == {"p": 3, "c0": 0.5, "K0": 2.0, "B2": 1.0}
    assert RBF().set_params(l=3.0).l == 3.0


@pytest.mark.parametrize(
    "kernel, match",
    [
        (RBF(l=0.0), "l \\(length scale\\)"),
        (RBF(l=-1.0), "l \\(length scale\\)"),
        (RBF(l=[1.0, 2.0]), "one per input dimension"),
        (RBF(l=[1.0, -2.0, 1.0]), "l \\(length scale\\)"),
        (OrnsteinUhlenbeck(l=np.inf), "finite"),
        (Polynomial(p=0), "p \\(degree\\)"),
        (Polynomial(c0=-1.0), "c0"),
        (Linear(K0=0.0), "K0"),
        (Linear(B2=-1.0), "B2"),
    ],
)
def test_bad_kernel_parameters(XY, kernel, match):
    X, Y = XY
    with pytest.raises(ValueError, match=match):
        kernel(X, Y)


def test_bad_kernel_parameter_types(XY):
    X, Y = XY
    with pytest.raises(TypeError):
        Polynomial(p=1.5)(X, Y)
    with pytest.raises(TypeError):
        RBF(l="wide")(X, Y)


def test_inputs_must_share_their_dimension(XY):
    X, Y = XY
    with pytest.raises(ValueError, match="same space"):
        Linear()(X, Y[:, :2])


# ---------------------------------------------------------------------------
# hypothesis: every Gram matrix is symmetric and positive semidefinite
# ---------------------------------------------------------------------------
finite = st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False)
scales = st.floats(0.2, 5.0)


@st.composite
def kernel_and_inputs(draw):
    d = draw(st.integers(1, 3))
    X = draw(arrays(np.float64, (draw(st.integers(1, 8)), d), elements=finite))
    K0, B2 = draw(scales), draw(st.floats(0.0, 2.0))
    which = draw(st.sampled_from(["linear", "poly", "rbf", "rbf_ard", "ou", "ou_ard"]))
    if which == "linear":
        kernel = Linear(K0=K0, B2=B2)
    elif which == "poly":
        kernel = Polynomial(p=draw(st.integers(1, 4)), c0=draw(st.floats(0.0, 2.0)), K0=K0, B2=B2)
    elif which.startswith("rbf"):
        l = draw(arrays(np.float64, d, elements=scales)) if which.endswith("ard") else draw(scales)
        kernel = RBF(l=l, K0=K0, B2=B2)
    else:
        l = draw(arrays(np.float64, d, elements=scales)) if which.endswith("ard") else draw(scales)
        kernel = OrnsteinUhlenbeck(l=l, K0=K0, B2=B2)
    return kernel, X


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(kernel_and_inputs())
def test_gram_matrices_are_symmetric_and_psd(case):
    kernel, X = case
    assert isinstance(kernel, Kernel)
    K = kernel(X)
    assert K.shape == (len(X), len(X))
    # symmetric up to round-off of the distance / product computation
    np.testing.assert_allclose(K, K.T, rtol=1e-13, atol=1e-13 * max(1.0, np.abs(K).max()))
    assert is_psd(K), min_eigenvalue(K)
    np.testing.assert_allclose(kernel.diag(X), np.diag(K), rtol=1e-12, atol=1e-12)
