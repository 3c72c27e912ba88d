"""Figures the chapters draw but no widget test reaches (Parts I to III).

Each state is computed with svmlib's public functions on a small seeded problem, drawn into a
headless ``matplotlib.figure.Figure`` (Agg), and the test asserts that what was drawn IS the
state: line data equal the state's arrays, titles and legend entries carry its numbers,
images hold its values. Drawing is rendered once (``canvas.draw``) so layout code runs too.
"""

import matplotlib

matplotlib.use("Agg")

import warnings  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from svmlib import gpc, lssvr  # noqa: E402
from svmlib._book_numbers import eq  # noqa: E402
from svmlib.bootstrap import exact_loo, monte_carlo_bootstrap, opper_winther_loo, replica_learning_curve  # noqa: E402
from svmlib.datasets import load_crabs  # noqa: E402
from svmlib.kernels import RBF  # noqa: E402
from svmlib.plotting import bootstrap as pboot  # noqa: E402
from svmlib.plotting import evidence as pev  # noqa: E402
from svmlib.plotting import gpc as pgpc  # noqa: E402
from svmlib.plotting import lssvr as plssvr  # noqa: E402
from svmlib.plotting import probabilistic as pprob  # noqa: E402
from svmlib.plotting import smo as psmo  # noqa: E402
from svmlib.plotting import soft_margin as psoft  # noqa: E402
from svmlib import probabilistic as pr  # noqa: E402


def _figure(**kwargs):
    fig = Figure(**kwargs)
    FigureCanvasAgg(fig)
    return fig


def _render(fig):
    """Draw once: layout engines, tick locators and formatters only run at draw time."""
    fig.canvas.draw()


def _line(ax, label):
    found = [ln for ln in ax.get_lines() if ln.get_label() == label]
    assert len(found) == 1, [ln.get_label() for ln in ax.get_lines()]
    return found[0]


def _legend_texts(ax):
    legend = ax.get_legend()
    assert legend is not None
    return [t.get_text() for t in legend.get_texts()]


# ----------------------------------------------------------------------------- Part I
def test_draw_line_defaults_to_the_current_axes_limits():
    from svmlib.plotting.maximum_margin import draw_line

    fig = _figure()
    ax = fig.subplots()
    ax.set_xlim(-2.0, 3.0)
    ax.set_ylim(-1.0, 1.0)
    w, b = np.array([0.5, 2.0]), 0.25  # flatter than 45 degrees: parametrised by x
    (line,) = draw_line(ax, w, b, level=1.0)
    xy = line.get_xydata()
    np.testing.assert_allclose(xy[:, 0], [-2.0, 3.0])
    np.testing.assert_allclose(xy @ w + b, 1.0)  # both ends on w.x + b = 1
    (steep,) = draw_line(ax, np.array([3.0, 1.0]), 0.0)  # steeper: parametrised by y
    np.testing.assert_allclose(steep.get_ydata(), [-1.0, 1.0])
    np.testing.assert_allclose(steep.get_xydata() @ [3.0, 1.0], 0.0, atol=1e-12)


def test_hinge_subgradients_stay_below_the_hinge():
    fig = _figure()
    ax = fig.subplots()
    slopes = (-1.0, -0.6, -0.25, 0.0)
    psoft.draw_hinge_subgradients(ax, kink_slopes=slopes, smooth_point=-0.5)
    _render(fig)
    hinge = _line(ax, r"hinge $\ell(t)=\max(0, 1-t)$")
    t, loss = hinge.get_data()
    np.testing.assert_allclose(loss, np.maximum(0.0, 1.0 - t))
    for g in slopes:  # eq. :eq:`(2.4) <soft-subgradient-def>`: each drawn line through the kink is a minorant
        tt, line = _line(ax, f"slope {g:g} at the kink").get_data()
        np.testing.assert_array_equal(tt, t)
        assert np.all(line <= loss + 1e-12), g
        assert np.interp(1.0, tt, line) == pytest.approx(0.0, abs=1e-12)
    # the tangent at the smooth point touches the loss there and has slope -1
    tt, tangent = _line(ax, "tangent at t = -0.5 (slope -1)").get_data()
    assert np.interp(-0.5, tt, tangent) == pytest.approx(1.5)
    assert np.polyfit(tt, tangent, 1)[0] == pytest.approx(-1.0)
    assert len(_legend_texts(ax)) == 1 + len(slopes) + 1


def test_lagrange_circle_marks_the_tangency_points():
    fig = _figure()
    ax = fig.subplots()
    assert psmo.draw_lagrange_circle(ax) is ax
    _render(fig)
    cx, cy = _line(ax, "constraint $x^2 + y^2 = 1$").get_data()
    np.testing.assert_allclose(cx ** 2 + cy ** 2, 1.0, atol=1e-12)
    # the two candidate points: +-(2, 1)/sqrt(5), where grad f = (2, 1) is parallel to grad g
    points = [np.ravel(ln.get_xydata())[:2] for ln in ax.get_lines() if ln.get_marker() == "o"]
    expected = np.array([2.0, 1.0]) / np.sqrt(5.0)
    assert len(points) == 2
    np.testing.assert_allclose(points[0], expected)
    np.testing.assert_allclose(points[1], -expected)
    texts = " ".join(t.get_text() for t in ax.texts)
    assert "maximum" in texts and "minimum" in texts
    assert ax.get_aspect() == 1.0 and ax.get_xlim() == (-1.7, 1.7)
    assert len(_legend_texts(ax)) == 4  # circle, grad f, grad g, level lines
    # readable contour labels: one bold label per level line that crosses the axes, at least 10 pt
    labels = [t for t in ax.texts if t.get_text().lstrip("-").isdigit()]
    assert len(labels) >= 7 and all(t.get_fontsize() >= 10 and t.get_fontweight() == "bold" for t in labels)


@pytest.mark.parametrize("C", [1.0, 3.0])
def test_likelihood_panel_draws_q_plus_q_minus_and_nu(C):
    fig = _figure()
    ax = fig.subplots()
    pprob.draw_likelihood(ax, C)
    _render(fig)
    q_plus, q_minus, nu = ax.get_lines()
    theta = q_plus.get_xdata()
    np.testing.assert_allclose(q_plus.get_ydata(), pr.likelihood(np.ones_like(theta), theta, C))
    np.testing.assert_allclose(q_minus.get_ydata(), pr.likelihood(-np.ones_like(theta), theta, C))
    # nu is the sum of the two class likelihoods (eq. :eq:`(6.4) <gp-nu>`); the grey band is what is missing to 1
    np.testing.assert_allclose(nu.get_ydata(), q_plus.get_ydata() + q_minus.get_ydata(), rtol=1e-12)
    assert ax.get_title() == f"$C = {C:g}$"
    assert "don't know" in _legend_texts(ax)


def test_prior_panels_show_each_probability_map_and_hide_spare_axes():
    grid = pr.unit_grid(12, dim=2)
    white = np.random.default_rng(0).standard_normal((1, grid.shape[0]))
    unit = pr.GridPrior(RBF(l=0.3), grid).draw(white)[0]
    panels = [{"prob": pr.class_probability(np.sqrt(K0) * unit, 2.0), "title": f"K0 = {K0:g}"}
              for K0 in (0.5, 1.0, 4.0, 10.0)]
    fig = _figure()
    pprob.draw_prior_panels(fig, panels, ncols=3)
    _render(fig)
    axes = fig.axes
    assert len(axes) == 6  # two rows of three
    assert [ax.get_visible() for ax in axes] == [True] * 4 + [False] * 2
    for ax, panel in zip(axes, panels):
        (image,) = ax.get_images()
        np.testing.assert_array_equal(image.get_array(), panel["prob"].reshape(12, 12))
        assert image.get_clim() == (0, 1) and ax.get_title() == panel["title"]


# ----------------------------------------------------------------------------- :ref:`Chapter 7 <ch-evidence>`
def _evidence_state():
    """A small evidence state from the library (plain Monte Carlo normaliser: quick)."""
    from svmlib.evidence import LowESSWarning, evidence_curve

    prior = pr.GridPrior(RBF(l=0.1, K0=5.0), pr.unit_grid(60))
    data = pr.generate_data(prior, 20, 2.0, scale=5.0, n_anneal=5, n_steps=10, random_state=0)
    C = np.logspace(-0.5, 1.0, 7)
    # Plain Monte Carlo misses the rare draws that dominate <N^n> at large C: it must say so.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        curve = evidence_curve(data.X, data.y, RBF(l=0.1), C, CK0=10.0, grid=pr.unit_grid(40), normaliser="mc",
                               n_draws=300, random_state=0)
    low = [str(w.message) for w in caught if issubclass(w.category, LowESSWarning)]
    assert any("at C = 10:" in m for m in low) and not any("at C = 0.316" in m for m in low), low
    # the "mc" normaliser reports an effective sample size per C (at most the number of draws)
    assert np.all((curve.normaliser_ess > 0) & (curve.normaliser_ess <= 300))
    np.testing.assert_allclose(curve.log_evidence, curve.log_naive - curve.log_normaliser)
    theta_svm = 10.0 * RBF(l=0.1)(data.grid, data.X) @ (curve.alpha_over_C * data.y)
    return {"grid": data.grid[:, 0], "theta_true": data.theta, "theta_svm": theta_svm, "X": data.X[:, 0],
            "y": data.y, "C": C, "log_full": curve.log_evidence, "log_naive": curve.log_naive, "C_true": 2.0,
            "p_true": data.true_probability(), "p_svm": pr.class_probability(theta_svm, curve.C_best),
            "C_best": curve.C_best, "C_best_naive": curve.C_best_naive}


@pytest.fixture(scope="module")
def evidence_state():
    return _evidence_state()


def test_evidence_state_fixed_layout_draws_the_three_panels(evidence_state):
    s = evidence_state
    fig = _figure(figsize=(11, 3.4))
    pev.draw_evidence_state(fig, s, fixed_layout=True)
    _render(fig)
    ax1, ax2, ax3 = fig.axes
    assert fig.get_layout_engine() is None or type(fig.get_layout_engine()).__name__ == "PlaceHolderLayoutEngine"
    # the fixed margins were applied: the first axes starts at left = 0.06 of the figure
    assert ax1.get_position().x0 == pytest.approx(0.06, abs=1e-6)
    np.testing.assert_array_equal(_line(ax1, "true $\\theta(x)$").get_ydata(), s["theta_true"])
    np.testing.assert_array_equal(_line(ax1, "SVM $\\theta^*(x)$").get_ydata(), s["theta_svm"])
    labels = _legend_texts(ax2)
    assert f"full: max at C = {s['C_best']:.2f}" in labels
    assert f"naive: max at C = {s['C_best_naive']:.2f}" in labels
    assert "true C = 2" in labels
    full = [ln for ln in ax2.get_lines() if ln.get_label().startswith("full")][0]
    np.testing.assert_allclose(full.get_ydata(), s["log_full"] - s["log_full"].max())
    np.testing.assert_array_equal(_line(ax3, "SVM plug-in").get_ydata(), s["p_svm"])


def test_class_probability_with_a_second_estimate(evidence_state):
    s = evidence_state
    fig = _figure()
    ax = fig.subplots()
    p_other = np.clip(s["p_svm"] * 0.5 + 0.25, 0, 1)
    pev.draw_class_probability(ax, s["grid"], s["p_true"], s["p_svm"], p_other, "Platt scaling")
    _render(fig)
    assert _legend_texts(ax) == ["true", "SVM plug-in", "Platt scaling"]
    np.testing.assert_array_equal(_line(ax, "Platt scaling").get_ydata(), p_other)


def test_sollich_fig2_layout_left_full_height_right_two_panels(evidence_state):
    s = evidence_state
    fig = _figure(figsize=(9, 5.2))
    ax_fit, ax_ev, ax_p = pev.draw_sollich_fig2(fig, s["grid"], s["theta_true"], s["theta_svm"], s["X"], s["y"],
                                                 s["C"], s["log_full"], s["log_naive"], 2.0, s["p_true"], s["p_svm"])
    _render(fig)
    # the seed's layout: the fit spans both rows on the left; evidence above class probability on the right
    b_fit, b_ev, b_p = (ax.get_position() for ax in (ax_fit, ax_ev, ax_p))
    assert b_fit.x1 < b_ev.x0 and b_ev.y0 > b_p.y1 and b_fit.y0 <= b_p.y0 + 1e-6 and b_fit.y1 >= b_ev.y1 - 1e-6
    np.testing.assert_array_equal(_line(ax_fit, "SVM $\\theta^*(x)$").get_ydata(), s["theta_svm"])
    assert f"full: max at C = {s['C_best']:.2f}" in _legend_texts(ax_ev)
    np.testing.assert_array_equal(_line(ax_p, "SVM plug-in").get_ydata(), s["p_svm"])


def test_normaliser_curve_band_and_plain_mc():
    C = np.array([0.5, 1.0, 2.0, 5.0])
    chain, se, mc = np.array([-3.0, -2.0, -4.0, -9.0]), np.array([0.1, 0.1, 0.2, 0.4]), np.array([-3.0, -2.1, -5.0, -14.0])
    fig = _figure()
    ax = fig.subplots()
    pev.draw_normaliser(ax, C, chain, se, mc, 50)
    _render(fig)
    np.testing.assert_array_equal(_line(ax, "plain Monte Carlo, 2000 draws").get_ydata(), mc)
    np.testing.assert_array_equal(_line(ax, "chained sampler ($\\pm 2$ s.e.)").get_ydata(), chain)
    assert ax.get_xscale() == "log" and "50" in ax.get_ylabel()


def test_sollich_fig1_rows_of_surface_and_two_probability_maps():
    g = pr.unit_grid(8, dim=2)
    rows = [{"theta": np.linspace(-3, 3, 64), "theta_b": np.linspace(3, -3, 64), "title": "A", "title_b": "B"}]
    fig = _figure(figsize=(9, 3))
    axes = pprob.draw_sollich_fig1(fig, rows, C=2.0)
    _render(fig)
    assert len(axes) == 3 and axes[0].name == "3d" and g.shape == (64, 2)
    img = axes[1].get_images()[0].get_array()
    np.testing.assert_allclose(np.asarray(img).ravel(), pr.class_probability(rows[0]["theta"], 2.0))
    assert axes[2].get_title() == "B" and axes[0].get_title() == "A"


# ----------------------------------------------------------------------------- :ref:`Chapter 8 <ch-mean-field-gpc>`
@pytest.fixture(scope="module")
def means_state():
    X, y = gpc.make_demo_problem(12)
    # A short MCMC run: the figure only has to show the state it is given.
    return gpc.compare_posterior_means(X, y, 0.1, 1.0, n_samples=30, n_chains=4, burn_in=50)


def test_posterior_means_constrained_layout(means_state):
    s = means_state
    fig = _figure(figsize=(10, 4.2), layout="constrained")
    pgpc.draw_posterior_means(fig, s)
    _render(fig)
    ax, bx = fig.axes
    methods = ("naive", "ensemble", "ep", "online")
    labels = _legend_texts(ax)
    for m in methods:
        assert f"{pgpc.METHOD_LABELS[m]} (slope {s['slope'][m]:.2f})" in labels
    scatters = [c for c in ax.collections if c.get_label().startswith(tuple(pgpc.METHOD_LABELS.values()))]
    for m, sc in zip(methods, scatters):
        np.testing.assert_allclose(sc.get_offsets(), np.column_stack([s["mcmc"], s["means"][m]]))
    heights = [p.get_height() for p in bx.patches]
    np.testing.assert_allclose(heights, [100 * s["rel_error"][m] for m in methods])
    (noise_line,) = [ln for ln in bx.get_lines() if ln.get_label() == "MCMC noise (1 s.e.)"]
    assert noise_line.get_ydata()[0] == pytest.approx(100 * s["mcmc_rel_se"])
    assert bx.get_title() == r"$\sigma^2$ = 0.1, $l$ = 1"
    assert ax.get_xlim() == ax.get_ylim()  # a square panel around the diagonal


def test_bias_vs_noise_draws_one_line_per_method():
    noise = [1.0, 0.1, 0.01]
    slopes = {"naive": [1.05, 1.2, 1.5], "ensemble": [0.97, 0.9, 0.7], "custom": [1.0, 1.0, 1.0]}
    fig = _figure()
    pgpc.draw_bias_vs_noise(fig, noise, slopes)
    _render(fig)
    (ax,) = fig.axes
    assert ax.get_xscale() == "log"
    lo, hi = ax.get_xlim()
    assert lo > hi  # inverted: the noise decreases to the right
    for name, label in (("naive", "naive MF"), ("ensemble", "ensemble MF"), ("custom", "custom")):
        line = _line(ax, label)
        np.testing.assert_array_equal(line.get_xdata(), noise)
        np.testing.assert_array_equal(line.get_ydata(), slopes[name])
    assert _line(ax, "custom").get_marker() == "o"  # unknown methods fall back to a circle


def test_hyper_history_and_online_errors():
    crabs = load_crabs("sex")
    perm = np.random.default_rng(0).permutation(200)
    tr, te = perm[:40], perm[40:100]
    fit = gpc.fit_hyperparameters(crabs.X[tr], crabs.y[tr], "naive", max_iter=3)
    energies = [h["free_energy"] for h in fit.history]
    errors = list(range(len(energies)))
    fig = _figure()
    pgpc.draw_hyper_history(fig, energies, errors, label="naive MF")
    _render(fig)
    ax, bx = fig.axes
    np.testing.assert_array_equal(ax.get_lines()[0].get_ydata(), energies)
    np.testing.assert_array_equal(bx.get_lines()[0].get_ydata(), errors)
    assert ax.get_ylabel() == "free energy (naive MF)"

    kern = RBF(l=2.0)
    K = kern(crabs.X[tr]) + 0.1 * np.eye(40)
    run = gpc.online_sweep(K, crabs.y[tr], n_sweeps=2, K_test=kern(crabs.X[te], crabs.X[tr]), y_test=crabs.y[te],
                           track=True)
    fig = _figure()
    pgpc.draw_online_errors(fig, run.train_errors, run.test_errors, 40, 60, title="crabs")
    _render(fig)
    (ax,) = fig.axes
    train = _line(ax, "training error (of 40)")
    np.testing.assert_allclose(train.get_ydata(), 100 * np.asarray(run.train_errors) / 40)
    np.testing.assert_array_equal(train.get_xdata(), np.arange(1, 81))
    np.testing.assert_allclose(_line(ax, "test error (of 60)").get_ydata(), 100 * np.asarray(run.test_errors) / 60)
    assert _line(ax, "end of the single sweep").get_xdata()[0] == 40
    assert ax.get_title() == "crabs" and ax.get_ylim()[0] == 0


# ----------------------------------------------------------------------------- :ref:`Chapter 9 <ch-replica>`
def test_learning_curves_theory_mc_and_loo_markers():
    crabs = load_crabs("sex")
    idx = np.random.default_rng(0).permutation(200)[:30]
    X, y = crabs.X[idx], crabs.y[idx]
    K = RBF(l=np.sqrt(X.shape[1]))(X)
    S_theory, S_mc = [0.5, 1.0, 2.0], [1.0]
    sols = replica_learning_curve(K, y, S_theory)
    mcs = [monte_carlo_bootstrap(K, y, s, 30, random_state=0) for s in S_mc]
    curves = [dict(label="crabs", S_theory=S_theory, eps_theory=[s.error for s in sols], S_mc=S_mc,
                   eps_mc=[m.error for m in mcs], se_mc=[m.error_se for m in mcs]),
              dict(label="theory only", S_theory=S_theory, eps_theory=[0.3, 0.2, 0.1])]
    loo = [dict(ow=opper_winther_loo(K, y)[0], exact=exact_loo(K, y)[0]), dict(ow=0.25, exact=0.2)]
    fig = _figure()
    ax = fig.subplots()
    pboot.draw_learning_curves(ax, curves, loo=loo, title="learning curves")
    _render(fig)
    assert ax.get_xscale() == "log" and ax.get_title() == "learning curves"
    assert _legend_texts(ax) == ["crabs", "theory only"]
    np.testing.assert_allclose(_line(ax, "crabs").get_ydata(), [s.error for s in sols])
    # one error-bar container (the second curve has no Monte Carlo), bars of +-2 s.e.
    (container,) = ax.containers
    data_line, _, (bars,) = container.lines
    np.testing.assert_array_equal(data_line.get_ydata(), [mcs[0].error])
    (segment,) = bars.get_segments()
    np.testing.assert_allclose(segment[:, 1], [mcs[0].error - 2 * mcs[0].error_se, mcs[0].error + 2 * mcs[0].error_se])
    # leave-one-out markers at 1.25 x the largest S/N
    right = [ln for ln in ax.get_lines() if ln.get_marker() in (">", "x")]
    assert len(right) == 4
    assert all(ln.get_xdata()[0] == pytest.approx(2.5) for ln in right)
    assert right[0].get_ydata()[0] == loo[0]["ow"] and right[1].get_ydata()[0] == loo[0]["exact"]


def test_width_scan_tangents_mc_and_minimum():
    widths, est, slopes = np.array([0.5, 1.0, 2.0]), np.array([0.05, 0.04, 0.045]), np.array([-0.02, 0.0, 0.01])
    fig = _figure()
    ax = fig.subplots()
    pboot.draw_width_scan(ax, widths, est, slopes, mc=([1.0], [0.042], [0.001]), best=(1.0, 0.04), tangent=0.1)
    _render(fig)
    assert ax.get_xscale() == "log"
    assert _legend_texts(ax) == ["theory", f"gradient (eq. {eq('boot-implicit')})", "minimum (L-BFGS-B)", "Monte Carlo"]
    np.testing.assert_allclose(_line(ax, "theory").get_ydata(), est)
    (tangents,) = [c for c in ax.collections if c.get_label() == f"gradient (eq. {eq('boot-implicit')})"]
    first = tangents.get_segments()[0]  # slope -0.02 per unit ln(width), +-0.1 around width 0.5
    np.testing.assert_allclose(first[:, 0], 0.5 * np.exp([-0.1, 0.1]))
    np.testing.assert_allclose(first[:, 1], [0.05 + 0.002, 0.05 - 0.002])
    (container,) = ax.containers
    (segment,) = container.lines[2][0].get_segments()
    np.testing.assert_allclose(segment[:, 1], [0.040, 0.044])


# ----------------------------------------------------------------------------- :ref:`Chapter 10 <ch-lssvr>`
def test_sinc_bands_with_the_sd_panel():
    state = lssvr.sinc_bands(c=1.0, gamma=1.0, n=60, n_grid=80)
    fig = _figure(figsize=(11, 4.8))
    axes = plssvr.draw_sinc_bands(fig, state)
    _render(fig)
    assert set(axes) == {"std_eq16", "std_full", "gp_std", "sd"}
    sd = axes["sd"]
    assert sd.get_yscale() == "log" and sd.get_ylim() == (1e-6, 3.0)
    for key, label in plssvr.BAND_LABELS.items():
        np.testing.assert_allclose(_line(sd, label).get_ydata(), np.maximum(state[key], 1e-12))
        assert axes[key].get_title() == label
    edges = [ln.get_xdata()[0] for ln in sd.get_lines() if ln.get_linestyle() == ":"]
    assert edges == list(state["data_range"])
    assert fig._suptitle.get_text().startswith("N = 60 sinc points, c = 1, C = 1")
    # the log axis labels come from the plain formatter: "1e-06", not mathtext
    assert plssvr._plain_log_label(1e-6) == "1e-6" and plssvr._plain_log_label(0.5) == "0.5"
    assert plssvr._plain_log_label(1e4) == "1e4"


def test_epsilon_sweeps_and_prior_eigenvalues():
    eps = np.logspace(0, -6, 4)
    sweeps = {}
    for seed in (0, 1):
        X, y = lssvr.make_sinc(25, random_state=seed)
        sweeps[f"sinc {seed}"] = lssvr.epsilon_sweep(X, y, eps)
    fig = _figure()
    ax_arse, ax_dist = plssvr.draw_epsilon_sweeps(fig, sweeps)
    _render(fig)
    assert ax_arse.get_xscale() == ax_dist.get_yscale() == "log"
    for name, sw in sweeps.items():
        np.testing.assert_array_equal(_line(ax_arse, name).get_ydata(), sw.arse)
        np.testing.assert_array_equal(_line(ax_dist, name).get_ydata(), sw.param_distance)
    lemma_lines = [ln for ln in ax_dist.get_lines() if ln.get_marker() in ("None", "", None)]
    np.testing.assert_array_equal(lemma_lines[0].get_ydata(), sweeps["sinc 0"].param_distance_lemma)
    assert _legend_texts(ax_dist) == list(sweeps)

    X, _ = lssvr.make_sinc(20, random_state=0)
    K = lssvr.rbf_from_c(1.0)(X)
    eps_values = np.logspace(-6, 0, 5)
    smallest = [np.linalg.eigvalsh(lssvr.prior_precision(K, 1.0, e))[0] for e in eps_values]
    fig = _figure()
    ax = fig.subplots()
    assert plssvr.draw_prior_eigenvalues(ax, eps_values, smallest, label="sinc") is ax
    _render(fig)
    line = _line(ax, "sinc")
    np.testing.assert_array_equal(line.get_ydata(), smallest)
    assert ax.get_xscale() == "log"
    assert any(np.all(np.asarray(ln.get_ydata()) == 0.0) for ln in ax.get_lines() if ln is not line)  # the zero line
