"""Issue 25's second read of the preface, :ref:`Chapter 1 <ch-margin>` and :ref:`Chapter 2 <ch-soft-margin>`: what the
read fixed stays fixed.

- The margin explorer's right panel (:ref:`Chapter 1 <ch-margin>`): its legend covers neither the
  margin-per-direction profile nor the reader's dot, for lines all round the circle (at "lower center"
  it hid the profile between about 90 and 120 degrees).
- :ref:`Chapter 2 <ch-soft-margin>` writes Pegasos' step index as k (as the other step rules), so that
  t is only the functional margin y f(x) of :eq:`(2.2) <soft-hinge>`.
- :ref:`Chapter 1 <ch-margin>`'s signed distance is dist(x, H): r is the multiplier of xi >= 0 (the notation appendix).
"""

import json
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from svmlib.plotting.maximum_margin import draw_margin  # noqa: E402
from svmlib.widgets.maximum_margin import MarginModel  # noqa: E402

BOOK = Path(__file__).resolve().parents[1] / "book"


def _markdown(stem):
    cells = json.loads((BOOK / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


@pytest.fixture(scope="module")
def model():
    return MarginModel()


@pytest.mark.parametrize("angle, offset", [(60.0, 0.0), (100.0, 0.0), (110.0, -0.5), (200.0, 1.0), (300.0, 0.0),
                                           (22.0, None)])
def test_margin_explorer_legend_covers_no_data(model, angle, offset):
    fig = plt.figure(figsize=(9, 4), layout="constrained")
    try:
        state = model.compute(angle, offset)
        _, axp = draw_margin(fig, state)
        fig.canvas.draw()
        box = axp.get_legend().get_window_extent()
        y0, y1 = axp.get_ylim()
        # the profile's points inside the panel, and the reader's dot (when it is inside the panel)
        ang, prof = state["profile_angles"], state["profile_margins"]
        inside = (prof >= y0) & (prof <= y1)
        points = np.column_stack([ang[inside], prof[inside]])
        if y0 <= state["margin"] <= y1:
            points = np.vstack([points, [state["angle"] % 360.0, state["margin"]]])
        xy = axp.transData.transform(points)
        covered = (xy[:, 0] >= box.x0) & (xy[:, 0] <= box.x1) & (xy[:, 1] >= box.y0) & (xy[:, 1] <= box.y1)
        assert not covered.any(), points[covered][:5]
        # and the maximum-margin level (dashed) runs below the legend
        level = axp.transData.transform([[0.0, state["solution"].margin]])[0, 1]
        assert level < box.y0
    finally:
        plt.close(fig)


def test_chapter_2_step_index_is_k():
    text = _markdown("02_soft_margin_primal")
    # Pegasos' steps: eta_k, V_k, w_k, 1/(lambda k); no subscript t and no 1/(lambda t) are left
    for stale in (r"\eta_t", "V_t", "w_t", r"w_{t+", "b_t", r"\lambda t)", "1/t", r"\sqrt t"):
        assert stale not in text, stale
    assert r"\eta_k = 1/(\lambda k)" in text and "V_k" in text
    # t is the functional margin, defined once
    assert "$t = y f(x)$" in text


def test_chapter_1_signed_distance_is_not_r():
    text = _markdown("01_maximum_margin")
    assert r"\operatorname{dist}(x, H) = \frac{w \cdot x + b}{\lVert w \rVert}" in text
    assert not re.search(r"\br\(x\)|\$r\b|\br\\,", text)


@pytest.mark.parametrize("C, step, batch", [(0.01, "constant", "full batch"), (0.01, "constant", "mini-batch of 6"),
                                            (1.0, "pegasos", "full batch"), (100.0, "invsqrt", "mini-batch of 6")])
def test_soft_margin_explorer_legend_covers_no_trace(C, step, batch):
    """:ref:`Chapter 2 <ch-soft-margin>`'s explorer: the gap panel's legend covers no trace (inside the panel at
    "upper right" it hid the oscillating constant-step trace at C = 0.01)."""
    from svmlib.plotting.soft_margin import draw_soft_margin
    from svmlib.widgets.soft_margin import MAX_EPOCHS, SoftMarginModel

    fig = plt.figure(figsize=(9, 4), layout="constrained")
    try:
        _, axo = draw_soft_margin(fig, SoftMarginModel().compute(C, step, batch, MAX_EPOCHS))
        fig.canvas.draw()
        box = axo.get_legend().get_window_extent()
        xy = np.vstack([axo.transData.transform(np.column_stack(line.get_data())) for line in axo.get_lines()])
        covered = (xy[:, 0] >= box.x0) & (xy[:, 0] <= box.x1) & (xy[:, 1] >= box.y0) & (xy[:, 1] <= box.y1)
        assert not covered.any()
    finally:
        plt.close(fig)
