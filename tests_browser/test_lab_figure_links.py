"""In JupyterLab every "Fig. N.M" link goes to its figure's caption, and stored explorers show no red icons.

Issue 24. Two things a reader of a stored chapter sees in a real JupyterLab (127.0.0.1, headless Chromium),
each chapter a trusted copy (so Lab restores the stored widget views), opened without running it:

* Figure links. The chapters write a figure reference as "[Fig. 7.1](#fig-ev-normaliser)" (book/_ext/
  lab_references.py) and each figure's JupyterLab caption cell holds an empty anchor named by the label.
  Lab's sanitizer stores the anchor's id as ``data-jupyter-id``, which is what the notebook looks up for a
  URL fragment. Every rendered "Fig. N.M" link must have such a target in its chapter (or, for a link to
  another chapter, in that chapter), inside the caption that starts with the same "Fig. N.M"; a click on
  Fig. 7.1 in chapter 7 must bring its caption into view, and a click on chapter 5's link to Fig. 7.4
  must show chapter 7 at that caption (when chapter 7 is open: Lab applies the fragment of a notebook it
  is still loading before the cells exist, so a first-time open lands at the top).
* "Disconnected" icons. ipywidgets marks a view restored from the notebook without its kernel model
  ``jupyter-widgets-disconnected`` and draws a red chain icon before it (a ``::before``). The static
  explorers need no kernel, so their note carries a style that hides the icon (svmlib/widgets/_base.py).
  No visible icon may remain; a control copy of chapter 8 with that style removed must show icons, so the
  check can see one.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

pytest.importorskip("selenium")

from labsession import LabServer, chrome, open_notebook, shut_down_kernels, wait_for  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "book" / "_ext"))
import lab_references as lr  # noqa: E402

SHOTS = ROOT / "_build" / "screenshots"
CHAPTERS = sorted((ROOT / "book").glob("*.ipynb"))
PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"
FIG_TEXT = re.compile(r"^(?:Fig\.|Figure) [A-Z0-9]+\.\d+$")
CONTROL = "control_08_no_icon_style.ipynb"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
ICON_STYLE = re.compile(r"<style>[^<]*jupyter-widgets-disconnected[^<]*</style>")

RENDERED = {}  # chapter stem -> {anchor: text of the markdown cell that holds it}, as Lab rendered it
CROSS_LINKS = []  # (chapter, link text, target chapter stem, fragment)

# The stored red icons: elements ipywidgets marks disconnected whose ::before draws something visible.
VISIBLE_ICONS_JS = f"""
return [...document.querySelectorAll('{PANEL} .jupyter-widgets-disconnected')].filter(e => {{
  const before = getComputedStyle(e, '::before');
  const content = before.content;
  return e.offsetParent !== null && content && content !== 'none' && content !== 'normal' && content !== '""'
         && before.display !== 'none' && before.visibility !== 'hidden';
}}).map(e => e.className);"""


def _without_icon_style(notebook):
    """Chapter 8 with the explorers' icon-hiding style taken out of the stored widget state."""
    removed = 0
    for model in notebook["metadata"]["widgets"][WIDGET_STATE]["state"].values():
        value = model.get("state", {}).get("value")
        if isinstance(value, str) and ICON_STYLE.search(value):
            model["state"]["value"] = ICON_STYLE.sub("", value)
            removed += 1
    assert removed, "chapter 8's stored widget state holds no icon-hiding style: the control would prove nothing"
    return notebook


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    root = tmp_path_factory.mktemp("lab-figure-links")
    home = tmp_path_factory.mktemp("lab-figure-links-home")
    for chapter in CHAPTERS:
        shutil.copy(chapter, root / chapter.name)
    control = _without_icon_style(json.loads((ROOT / "book" / "08_mean_field_gpc.ipynb").read_text(encoding="utf-8")))
    (root / CONTROL).write_text(json.dumps(control), encoding="utf-8")
    # trusted, as a reader's own notebooks are: Lab then restores the stored widget views from the metadata
    server = LabServer(root, home, trusted=[root / c.name for c in CHAPTERS] + [root / CONTROL])
    driver = chrome(home / "profile", 1280, 1000)
    yield server, driver
    driver.quit()
    server.stop()


def _source_figure_links(path):
    """(text, target file stem or '', label) of every figure link the chapter's markdown stores."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    return {(m.group("text"), (m.group("file") or "").removesuffix(".ipynb"), m.group("label"))
            for c in notebook["cells"] if c["cell_type"] == "markdown"
            for m in lr.LINK.finditer(lr._cell_source(c)) if FIG_TEXT.match(m.group("text"))}


def _rendered_links_and_anchors(driver):
    links = driver.execute_script(
        f"return [...document.querySelectorAll('{PANEL} .jp-MarkdownCell a[href]')]"
        ".map(a => [a.textContent.trim(), a.getAttribute('href')]);")
    anchors = driver.execute_script(
        f"return [...document.querySelectorAll('{PANEL} .jp-MarkdownCell [data-jupyter-id]')]"
        ".map(a => [a.getAttribute('data-jupyter-id'), a.closest('.myst').textContent.trim()]);")  # rendered text
    return [(t, h) for t, h in links if FIG_TEXT.match(t)], dict(anchors)


def _split(href):
    """('' or the linked notebook's stem, fragment) of a rendered link's href."""
    url = urlparse(href)
    name = Path(unquote(url.path)).name if url.path else ""
    return name.removesuffix(".ipynb"), url.fragment


@pytest.mark.parametrize("chapter", [c.name for c in CHAPTERS], ids=[c.stem for c in CHAPTERS])
def test_figure_links_have_their_caption_and_no_icon_shows(lab, chapter):
    server, driver = lab
    open_notebook(driver, server, chapter)
    time.sleep(2.0)  # widget views are restored after the markdown has settled
    stem = chapter.removesuffix(".ipynb")
    links, anchors = _rendered_links_and_anchors(driver)
    RENDERED[stem] = anchors
    stored = _source_figure_links(ROOT / "book" / chapter)
    shown = {(text, *_split(href)) for text, href in links}
    assert {(t, f or stem, lab) for t, f, lab in stored} == {(t, f or stem, lab) for t, f, lab in shown}, \
        f"{chapter}: the figure links JupyterLab shows differ from those the chapter stores"
    for text, target, fragment in sorted(shown):
        if target and target != stem:
            CROSS_LINKS.append((chapter, text, target, fragment))
            continue
        assert fragment in anchors, f"{chapter}: {text} links to #{fragment}, which is no anchor of the notebook"
        assert anchors[fragment].startswith(text + " "), \
            f"{chapter}: {text} (#{fragment}) goes to a cell that is not its caption: {anchors[fragment][:60]!r}"

    notebook = json.loads((ROOT / "book" / chapter).read_text(encoding="utf-8"))
    stored_views = sum("application/vnd.jupyter.widget-view+json" in o.get("data", {})
                       for c in notebook["cells"] if c["cell_type"] == "code" for o in c.get("outputs", []))
    if stored_views and notebook["metadata"].get("widgets"):  # the views are there, restored without a kernel
        wait_for(lambda: driver.execute_script(
            f"return document.querySelectorAll('{PANEL} .jupyter-widgets').length"), 60,
            what=f"{chapter}'s stored widget views")
    icons = driver.execute_script(VISIBLE_ICONS_JS)
    if chapter == "08_mean_field_gpc.ipynb":
        explorer = driver.find_element("css selector", f"{PANEL} .svmlib-static-explorer")
        driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", explorer)
        time.sleep(1.0)
        SHOTS.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(SHOTS / "lab_static_explorer_no_disconnected_icon.png"))
    assert not icons, f"{chapter}: {len(icons)} red 'disconnected' icon(s) beside stored widget views: {icons[:4]}"
    shut_down_kernels(server)


def test_links_to_another_chapter_find_its_caption(lab):
    assert CROSS_LINKS, "no chapter links a figure of another chapter (chapter 5 links Fig. 7.4): nothing checked"
    for chapter, text, target, fragment in CROSS_LINKS:
        anchors = RENDERED.get(target)
        assert anchors is not None, f"{chapter}: {text} links to {target}.ipynb, which is not a chapter"
        assert fragment in anchors and anchors[fragment].startswith(text + " "), \
            f"{chapter}: {text} links to {target}.ipynb#{fragment}, which is not that figure's caption there"


def _scroller_rect(driver):
    return driver.execute_script(
        f"const r = document.querySelector('{PANEL} .jp-WindowedPanel-outer').getBoundingClientRect();"
        "return [r.top, r.bottom];")


def _caption_rect(driver, number):
    """Top and bottom of the rendered caption text that starts with ``number`` (not its cell's padding)."""
    return driver.execute_script(
        f"const c = [...document.querySelectorAll('{PANEL} .jp-MarkdownCell .myst')]"
        ".find(c => c.textContent.trim().startsWith(arguments[0] + ' '));"
        "if (!c) return null; const r = c.getBoundingClientRect(); return [r.top, r.bottom];", number)


def _in_view(driver, number):
    top, bottom = _scroller_rect(driver)
    caption = _caption_rect(driver, number)
    # its first line is on screen: Lab scrolls the anchor (inline, in that line) to the top edge, so the text's
    # box may start a few pixels above it (3 px measured; a line is ~25 px), and it must not start at the bottom
    return caption is not None and top - 10 <= caption[0] < bottom - 40


def _click_link(driver, text):
    link = driver.execute_script(
        f"return [...document.querySelectorAll('{PANEL} .jp-MarkdownCell a[href]')]"
        ".find(a => a.textContent.trim() === arguments[0]);", text)
    assert link is not None, f"no link {text!r}"
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", link)
    time.sleep(0.5)
    link.click()


def test_clicking_fig_7_1_brings_its_caption_into_view(lab):
    server, driver = lab
    open_notebook(driver, server, "07_evidence.ipynb")
    # the first link to Fig. 7.1 stands in the prose well below the figure: the caption is off screen
    first = driver.execute_script(
        f"return [...document.querySelectorAll('{PANEL} .jp-MarkdownCell a[href]')]"
        ".find(a => a.textContent.trim() === 'Fig. 7.1');")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", first)
    time.sleep(0.5)
    assert not _in_view(driver, "Fig. 7.1"), "the caption of Fig. 7.1 is on screen before the click: no test"
    _click_link(driver, "Fig. 7.1")
    wait_for(lambda: _in_view(driver, "Fig. 7.1"), 20, what="the caption of Fig. 7.1 to scroll into view")
    time.sleep(0.5)
    SHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SHOTS / "lab_figure_link_click.png"))
    assert driver.current_url.endswith("#fig-ev-normaliser")
    shut_down_kernels(server)


def test_chapter_5s_link_to_fig_7_4_shows_it_in_chapter_7(lab):
    server, driver = lab
    open_notebook(driver, server, "07_evidence.ipynb")
    assert not _in_view(driver, "Fig. 7.4")
    driver.execute_script("window.jupyterapp.commands.execute('docmanager:open', {path: '05_svms_in_practice.ipynb'})")
    wait_for(lambda: driver.execute_script(
        f"return [...document.querySelectorAll('{PANEL} .jp-MarkdownCell a[href]')]"
        ".some(a => a.textContent.trim() === 'Fig. 7.4');"), 120, what="chapter 5 to render its link to Fig. 7.4")
    time.sleep(2.0)
    _click_link(driver, "Fig. 7.4")
    wait_for(lambda: _in_view(driver, "Fig. 7.4"), 30, what="chapter 7 at the caption of Fig. 7.4")
    title = driver.execute_script(
        "return document.querySelector('.lm-DockPanel-tabBar .lm-mod-current .lm-TabBar-tabLabel').textContent;")
    assert title == "07_evidence.ipynb"
    shut_down_kernels(server)


def test_the_icon_check_sees_an_icon(lab):
    """Control: chapter 8 without the explorers' icon-hiding style shows the red icons the check counts."""
    server, driver = lab
    open_notebook(driver, server, CONTROL)
    # 150 s as the other waits on a restored widget: under a full browser-check run the icons took over 60 s once
    wait_for(lambda: driver.execute_script(VISIBLE_ICONS_JS), 150, what="the control's red icons")
    explorer = driver.find_element("css selector", f"{PANEL} .svmlib-static-explorer")
    driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", explorer)
    time.sleep(1.0)
    SHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SHOTS / "lab_disconnected_icon_control.png"))
    assert len(driver.execute_script(VISIBLE_ICONS_JS)) >= 2  # at least one explorer's box and slider
    shut_down_kernels(server)


def test_the_static_check_reports_captions_without_anchor_and_links_to_nowhere(tmp_path):
    """lab_references --check's figure-link check (what the browser tests above measure) can fail."""
    figure = {"cell_type": "code", "source": "", "outputs": [],
              "metadata": {"mystnb": {"figure": {"name": "fig-a", "caption": "A curve."}}}}
    good = {"cells": [figure, lr.caption_cell("fig-a", "Fig. 2.1", "A curve."),
                      {"cell_type": "markdown", "metadata": {}, "source": "See [Fig. 2.1](#fig-a)."}]}
    assert "".join(good["cells"][1]["source"]) == '**Fig. 2.1** <a id="fig-a"></a>A curve.'
    assert lr.caption_problems(good) == [] and lr.figure_link_problems(good, "02_x", tmp_path) == []
    bare = json.loads(json.dumps(good))
    bare["cells"][1]["source"] = "**Fig. 2.1** A curve."
    problems = lr.figure_link_problems(bare, "02_x", tmp_path)
    assert "has no anchor" in problems[0] and "goes to no figure caption" in problems[1] and len(problems) == 2
    elsewhere = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "[Fig. 2.1](02_x.ipynb#fig-a)"}]}
    assert "goes to no figure caption of 02_x" in lr.figure_link_problems(elsewhere, "03_y", tmp_path)[0]
    (tmp_path / "02_x.ipynb").write_text(json.dumps(good), encoding="utf-8")
    assert lr.figure_link_problems(elsewhere, "03_y", tmp_path) == []
    with pytest.raises(lr.LabFormError, match="anchor"):
        lr.caption_cell('fig"a', "Fig. 2.1", "")
