"""The PDF edition's helpers: explorer frames from widget state, the frame grid, and the PDF check.

The full LaTeX build is `make pdf` (minutes, needs TeX); these tests check the pieces that decide what
the PDF shows, on synthetic inputs, so they run in a second.
"""

from __future__ import annotations

import base64
import importlib.util
import io
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


pdf_edition = _load("pdf_edition", ROOT / "book" / "_ext" / "pdf_edition.py")
check_pdf = _load("check_pdf", ROOT / "tools" / "check_pdf.py")


def _png(value, shape=(20, 30)):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    plt.imsave(buf, np.full(shape, value, dtype=float), vmin=0, vmax=1, format="png")
    return buf.getvalue()


def _image_model(png):
    return {"model_name": "ImageModel", "state": {"format": "png", "layout": "IPY_MODEL_lay"},
            "buffers": [{"path": ["value"], "encoding": "base64", "data": base64.b64encode(png).decode()}]}


def _static_form_state(n_frames=3, selected=1):
    state = {"lay": {"model_name": "LayoutModel", "state": {}}}
    kids = []
    for k in range(n_frames):
        state[f"img{k}"] = _image_model(_png(k / max(n_frames - 1, 1)))
        kids.append(f"IPY_MODEL_img{k}")
    state["stack"] = {"model_name": "StackModel", "state": {"children": kids, "selected_index": selected}}
    state["slider"] = {"model_name": "IntSliderModel", "state": {"value": selected}}
    state["root"] = {"model_name": "VBoxModel", "state": {"children": ["IPY_MODEL_slider", "IPY_MODEL_stack"]}}
    return state


def test_explorer_frames_are_the_stack_images_and_the_default_is_the_selected_one():
    state = _static_form_state(4, selected=2)
    default, frames = pdf_edition.explorer_frames(state, "root")
    assert len(frames) == 4
    assert default == frames[2] != frames[0]


def test_two_parameter_grid_gives_the_first_control_at_the_others_default():
    state = {"lay": {"model_name": "LayoutModel", "state": {}}}
    outer = []
    for i in range(4):                       # first control: 4 values; second control: 3 values, default index 1
        inner = []
        for j in range(3):
            state[f"img{i}{j}"] = _image_model(_png((3 * i + j) / 11))
            inner.append(f"IPY_MODEL_img{i}{j}")
        state[f"inner{i}"] = {"model_name": "StackModel", "state": {"children": inner, "selected_index": 1}}
        outer.append(f"IPY_MODEL_inner{i}")
    state["outer"] = {"model_name": "StackModel", "state": {"children": outer, "selected_index": 2}}
    state["root"] = {"model_name": "VBoxModel", "state": {"children": ["IPY_MODEL_outer"]}}
    default, frames = pdf_edition.explorer_frames(state, "root")
    expected = [pdf_edition._model_png(state[f"img{i}1"]) for i in range(4)]
    assert frames == expected and default == expected[2]


def test_live_form_without_a_stack_gives_its_single_figure():
    state = {"img": _image_model(_png(0.5)), "root": {"model_name": "VBoxModel", "state": {"children": ["IPY_MODEL_img"]}}}
    default, frames = pdf_edition.explorer_frames(state, "root")
    assert frames == [default] and default is not None
    assert pdf_edition.explorer_frames(state, "missing") == (None, [])


def test_frame_grid_subsamples_and_lays_out_rows():
    import matplotlib.image as mpimg

    frames = [_png(k / 11) for k in range(12)]             # 12 frames, aspect 2/3 -> 3 per row, at most 9
    grid = mpimg.imread(io.BytesIO(pdf_edition.frame_grid_png(frames)), format="png")
    assert grid.shape[1] > grid.shape[0]                   # 3 x 3 grid of landscape frames
    assert len(pdf_edition._subsample(frames, 9)) == 9
    assert pdf_edition._subsample(frames, 9)[0] == frames[0] and pdf_edition._subsample(frames, 9)[-1] == frames[-1]
    wide = [_png(k / 5, shape=(10, 40)) for k in range(8)]  # wide frames: 2 per row, at most 6
    assert pdf_edition._most(wide) == 6 and pdf_edition._most(frames) == 9


def test_pdf_check_finds_undefined_references():
    log = ("LaTeX Warning: Reference `book/06_gp_prior:ex-gp-prior-2' on page 75 undefined on input line 4282.\n"
           "LaTeX Warning: There were undefined references.\n")
    found = check_pdf.problems_in_log(log)
    assert len(found) == 2 and "ex-gp-prior-2" in found[0]
    assert check_pdf.problems_in_log("Output written on svm-textbook.pdf (262 pages).") == []


def test_pdf_check_fails_without_a_pdf(tmp_path, capsys):
    assert check_pdf.main([str(tmp_path)]) == 1
    assert "does not exist" in capsys.readouterr().out


def test_pdf_check_reads_overfull_boxes():
    # lines as XeLaTeX writes them (from the book's own log)
    log = ("Overfull \\hbox (39.87184pt too wide) detected at line 13621\n"
           "Overfull \\vbox (18.60788pt too high) detected at line 1380\n"
           "Overfull \\hbox (3.30148pt too wide) in paragraph at lines 26533--26533\n"
           "Underfull \\hbox (badness 10000) in paragraph at lines 5--6\n")
    boxes = check_pdf.overfull_boxes(log)
    assert [(k, round(pt, 2)) for k, pt, _ in boxes] == [("h", 39.87), ("v", 18.61), ("h", 3.30)]
    assert boxes[0][2] == "detected at line 13621"
    assert [pt for _, pt, _ in boxes if pt > 5.0] == [39.87184, 18.60788]  # the 5 pt limit of issue 24


def test_pdf_check_finds_a_preamble_patch_that_did_not_apply():
    # _config.yml's preamble patches framed.sty (split depth) and Sphinx's admonition title row; a TeX Live or
    # Sphinx update can make a patch miss, and then the overfull boxes come back: the check names it
    log = "Package svm-textbook Warning: could not patch the admonition title row.\n"
    assert check_pdf.problems_in_log(log) == [log.strip()]
    assert check_pdf.problems_in_log("Package hyperref Warning: Token not allowed.\n") == []
