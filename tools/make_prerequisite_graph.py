#!/usr/bin/env python
"""Draw the chapters' prerequisite graph for the teacher's guide.

    python tools/make_prerequisite_graph.py     # writes book/figures/chapter_prerequisites.png

The graph is data (``CHAPTERS``, ``PREREQUISITES`` below); re-run the script after changing it.
Chapters are named by title, never by number: numbers come from _toc.yml and move when a
chapter is inserted.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "book" / "figures" / "chapter_prerequisites.png"

#: node -> (label, part, (x, y)) in figure coordinates (x: 0..1 left to right, y: 0..1 bottom to top)
CHAPTERS = {
    "01": ("Maximum-margin\nclassifiers", "I", (0.14, 0.86)),
    "02": ("Soft margin and\nthe primal", "I", (0.14, 0.68)),
    "03": ("Duality and SMO", "I", (0.14, 0.50)),
    "04": ("Kernels", "I", (0.14, 0.32)),
    "05": ("SVMs in practice", "I", (0.14, 0.14)),
    "06": ("The SVM as a\nGaussian-process model", "II", (0.50, 0.59)),
    "07": ("Evidence and\nerror bars", "II", (0.50, 0.86)),
    "08": ("Mean-field GP\nclassification", "II", (0.50, 0.23)),
    "09": ("The bootstrap without\nresampling (replicas)", "III", (0.86, 0.23)),
    "10": ("LS-SVR and Bayesian\nRBF networks", "III", (0.86, 0.59)),
}
#: (prerequisite, chapter): read the prerequisite first. The toolkit appendix (not drawn) backs 07-09.
PREREQUISITES = [
    ("01", "02"), ("02", "03"), ("03", "04"), ("04", "05"),
    ("04", "06"), ("02", "06"), ("06", "07"), ("06", "08"),
    ("03", "09"), ("08", "09"), ("04", "10"), ("06", "10"),
]
BOX_W, BOX_H = 0.24, 0.125
COLOURS = {"I": "#dbe9f6", "II": "#fde8cf", "III": "#e3f1dc", "A": "#eeeeee"}
PART_NAMES = {"I": "Part I", "II": "Part II", "III": "Part III", "A": "Appendix"}


def _border(centre, towards):
    """Where the segment from a box's centre towards another point leaves the box."""
    (x, y), (u, v) = centre, towards
    dx, dy = u - x, v - y
    t = min(BOX_W / 2 / abs(dx) if dx else float("inf"), BOX_H / 2 / abs(dy) if dy else float("inf"))
    return x + t * dx * 1.04, y + t * dy * 1.04


def draw(path=OUT):
    fig = Figure(figsize=(9.0, 6.2), dpi=150)
    ax = fig.add_axes([0, 0, 1, 1])
    ax.set_xlim(0, 1)
    ax.set_ylim(0.05, 1)
    ax.set_axis_off()
    for key, (label, part, (x, y)) in CHAPTERS.items():
        ax.add_patch(FancyBboxPatch((x - BOX_W / 2, y - BOX_H / 2), BOX_W, BOX_H, boxstyle="round,pad=0.005",
                                    facecolor=COLOURS[part], edgecolor="0.3", linewidth=1.2))
        ax.text(x, y, label, ha="center", va="center", fontsize=11)
    for a, b in PREREQUISITES:
        ca, cb = CHAPTERS[a][2], CHAPTERS[b][2]
        ax.add_patch(FancyArrowPatch(_border(ca, cb), _border(cb, ca), arrowstyle="-|>", mutation_scale=16,
                                     shrinkA=0, shrinkB=0, color="0.25", linewidth=1.3))
    for i, part in enumerate(["I", "II", "III"]):
        ax.add_patch(FancyBboxPatch((0.33 + 0.13 * i, 0.955), 0.025, 0.03, boxstyle="square,pad=0",
                                    facecolor=COLOURS[part], edgecolor="0.3"))
        ax.text(0.365 + 0.13 * i, 0.97, PART_NAMES[part], va="center", fontsize=11)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, facecolor="white", metadata={"Software": None})
    return path


if __name__ == "__main__":
    print("wrote", draw())
    sys.exit(0)
