"""Issue 25, second read of the GP-prior and evidence chapters: caption claims checked against the drawing code."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pytest

from svmlib.plotting.probabilistic import draw_prior_sample, draw_sollich_fig1
from svmlib.probabilistic import class_probability
from svmlib.widgets.probabilistic import prior_sample_state


def _probability_images(fig):
    return [im for ax in fig.axes for im in ax.images]


def test_fig_6_2_and_the_explorer_draw_plus_one_black_and_minus_one_white():
    # Issue 25: Fig. 6.2 drew +1 black and the explorer +1 white; both must map P(y=+1|x) the same way.
    m = 6
    theta = np.linspace(-3, 3, m * m)
    fig1 = plt.figure()
    draw_sollich_fig1(fig1, [{"theta": theta, "theta_b": theta, "title": "", "title_b": ""}], C=2.0)
    fig2 = plt.figure()
    draw_prior_sample(fig2, {"theta": theta, "C": 2.0, "m": m, "gap_share": 0.0})
    images = _probability_images(fig1) + _probability_images(fig2)[1:]  # the explorer's first image is theta
    assert len(images) == 3
    for im in images:
        np.testing.assert_allclose(im.to_rgba(1.0)[:3], 0.0, atol=1e-12)  # P = 1 (label +1): black
        np.testing.assert_allclose(im.to_rgba(0.0)[:3], 1.0, atol=1e-12)  # P = 0 (label -1): white
        # the drawn array is the class probability itself, not theta or 1 - P
        np.testing.assert_allclose(np.asarray(im.get_array()).ravel(), class_probability(theta, 2.0), atol=0)
    plt.close(fig1)
    plt.close(fig2)


def test_the_explorers_default_sample_is_drawn_in_the_same_colours():
    state = prior_sample_state()
    fig = plt.figure()
    draw_prior_sample(fig, state)
    im = _probability_images(fig)[1]
    top = np.argmax(state["theta"])  # the largest theta: P(y=+1|x) close to 1, so a dark cell
    assert np.asarray(im.get_array()).ravel()[top] > 0.99
    assert np.max(im.to_rgba(np.asarray(im.get_array()).ravel()[top])[:3]) < 0.05
    plt.close(fig)


@pytest.mark.parametrize("C", [0.5, 1.0, 2.0, 5.0])
def test_grey_in_the_probability_map_is_the_middle_of_the_gap(C):
    # Fig. 6.2's caption: 0.1 < P < 0.9 exactly where |theta| < ln(9) / (2C), inside the gap |theta| < 1 when
    # C > ln(9) / 2 = 1.10 (P = sigma(2 C theta) there, eq. (6.14)); outside the gap P is beyond sigma(2C).
    theta = np.linspace(-6, 6, 120001)
    grey = np.abs(class_probability(theta, C) - 0.5) < 0.4
    edge = np.log(9) / (2 * C)
    if edge < 1:
        assert abs(np.abs(theta[grey]).max() - edge) < 1e-4
    else:  # small C: the grey band reaches beyond the gap, where P = sigma(C (1 + |theta|)) for theta > 1
        assert np.abs(theta[grey]).max() == pytest.approx(np.log(9) / C - 1, abs=1e-4)


def _covered_points(fig):
    """{axes title: number of plotted points (lines, markers) under that axes' legend}."""
    fig.canvas.draw()
    covered = {}
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None:
            continue
        box = legend.get_window_extent()
        n = 0
        for line in ax.get_lines():
            if line.get_label().startswith("true C"):  # the vertical reference line spans the whole height
                continue
            pix = line.get_transform().transform(line.get_xydata())
            n += int(np.sum((pix[:, 0] > box.x0) & (pix[:, 0] < box.x1) & (pix[:, 1] > box.y0) & (pix[:, 1] < box.y1)))
        covered[ax.get_title()] = n
    return covered


# C_true = 2, n = 50 is the explorer's default (its fixed lower-right legend covered 16 points of the true
# theta there); 4, 100 covered 44; 1, 20 covered 9 (measured before the legends chose their place)
@pytest.mark.parametrize("C_true, n", [(2.0, 50), (4.0, 100), (1.0, 20), (2.0, 100)])
def test_the_evidence_explorers_legends_cover_no_data(C_true, n):
    from svmlib.plotting import use_book_style
    from svmlib.plotting.evidence import draw_evidence_state
    from svmlib.widgets.evidence import evidence_state

    use_book_style()
    fig = plt.figure(figsize=(11, 3.6), layout="constrained")
    draw_evidence_state(fig, evidence_state(C_true=C_true, n=n))
    covered = _covered_points(fig)
    plt.close(fig)
    assert len(covered) == 2 and all(v == 0 for v in covered.values()), covered
