"""Second read of issue 25 (duality and SMO, kernels, SVMs in practice): checks of what the read fixed."""

import json
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import nbformat  # noqa: E402
import pytest  # noqa: E402

from svmlib.plotting import use_book_style  # noqa: E402
from svmlib.plotting.kernel_choice import draw_kernel_boundary  # noqa: E402
from svmlib.widgets import kernel_choice as wk  # noqa: E402

BOOK = Path(__file__).resolve().parents[1] / "book"


def _markdown(name):
    nb = nbformat.read(BOOK / name, as_version=4)
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def _code(name):
    nb = nbformat.read(BOOK / name, as_version=4)
    return "\n".join(c.source for c in nb.cells if c.cell_type == "code")


@pytest.mark.parametrize("setting", [("linear", 3, 0.5, 1.0), ("poly", 3, 0.5, 1.0), ("rbf", 3, 0.5, 1.0),
                                     ("ou", 3, 1.0, 1.0), ("rbf", 3, 0.1, 10.0)])
def test_kernel_boundary_legend_outside_the_panel(setting):
    # Fig. 4.1 and the kernel explorer: inside the panel the legend (lower left) was crossed by the boundary and
    # margins of the polynomial, RBF and OU machines; above the panel it covers nothing drawn from the data
    use_book_style()
    model = wk.KernelModel()
    fig, ax = plt.subplots(figsize=(4.5, 3.75))
    draw_kernel_boundary(fig, model.compute(*setting), ax=ax)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legend = ax.get_legend().get_window_extent(renderer)
    panel = ax.get_window_extent(renderer)
    title = ax.title.get_window_extent(renderer)
    plt.close(fig)
    assert legend.y0 >= panel.y1 - 1.0, (legend, panel)            # not over the data
    assert title.y0 >= legend.y1 - 1.0, (title, legend)            # the title does not sit on the legend


def test_ch5_pegasos_step_and_dcd_names():
    md = _markdown("05_svms_in_practice.ipynb")
    # the soft-margin chapter writes Pegasos' step 1/(lambda k) (t is the functional margin y f(x))
    assert r"1/(\lambda t)" not in md and r"1/(\lambda k)" in md
    # the DCD dual is -W(alpha); D is only the number of explicit features
    assert "dD/dalpha" not in _code("05_svms_in_practice.ipynb")


def test_ch5_exact_kernel_growth_matches_the_table():
    # 'three times the points cost ... times the CPU time' is glued from the table, and the growth is roughly
    # quadratic (the old text said 'about ten times' and 'faster than N^2'; the table says 8.2, exponent 1.9)
    md = _markdown("05_svms_in_practice.ipynb")
    assert "faster than $N^2$" not in md and "about ten times the time" not in md
    table = json.loads((Path(__file__).resolve().parents[1] / "svmlib/_tables/practice_large_scale.json").read_text())
    ratio = table["rows"]["svc_sub_large"]["cpu_vs_svc_sub"]
    assert 5 < ratio < 12
    assert re.search(r"ls_ratio_sub_large", md)


def test_ch3_agreement_sentence():
    md = _markdown("03_duality_smo.ipynb")
    assert "and they agree." not in md
    assert "the accuracy the stopping test allows" in md


def test_ch5_p_is_only_the_polynomial_degree():
    # the SVR linear term is written out; libsvm's name for it appears only as code, not as the symbol $p$
    md = _markdown("05_svms_in_practice.ipynb")
    assert "calls this vector $p$" not in md and "the array `p`" in md


def test_ch4_projection_coefficients_are_not_beta():
    # beta is declared for the stacked SVR multipliers, the inverse temperature and the LS-SVR unknowns; the
    # kernel chapter's projection onto the span of the training kernels uses the RKHS definition's a_i
    md = _markdown("04_kernels.ipynb")
    assert r"\beta" not in md and "$Ka = (k(x_i, z))_i$" in md


def test_no_local_S():
    # S is declared for the bootstrap sample size (and a toolkit covariance): the duality chapter writes the quadratic form
    # as ||w||^2, the kernels chapter the span of the training kernels as a calligraphic S
    assert r"\tfrac12 S - S" not in _markdown("03_duality_smo.ipynb")
    md4 = _markdown("04_kernels.ipynb")
    assert r"$S = \operatorname{span}" not in md4 and r"\mathcal S = \operatorname{span}" in md4
    assert "f_S" not in md4


def test_kernel_explorer_initial_values():
    # the chapter opens the explorer at l = 0.2 (Fig. 4.1 shows l = 0.5); the arguments set the first state
    ex = wk.kernel_explorer(l=0.2)
    assert ex.values()["l"] == 0.2 and ex.state["label"].startswith("RBF, l = 0.2")
    ex = wk.kernel_explorer(kernel="ou", l=1.0, C=0.1)
    assert ex.state["label"].startswith("OU") and ex.values()["C"] == 0.1
    code = _code("04_kernels.ipynb") + _code("05_svms_in_practice.ipynb")
    assert "wk.kernel_explorer(l=0.2)" in code and "wsvr.svr_explorer(epsilon=0.3)" in code
