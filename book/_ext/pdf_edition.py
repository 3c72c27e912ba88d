"""The PDF edition's print forms (Sphinx extension; acts for the LaTeX builder only).

The HTML book is untouched: every hook below returns at once unless the builder is ``latex``.

1. **Explorers.** An interactive explorer's output is an ipywidget view. myst-nb chooses an output's
   mimetype per builder and, for LaTeX, prefers ``image/png`` (the explorers carry their default figure
   as an ``image/png`` fallback; ``_config.yml`` also lists it first through ``nb_mime_priority_overrides``).
   This extension adds, under that figure, the explorer's precomputed frames (the images of the
   ``ipywidgets.Stack`` in the notebook's embedded widget state) as a small grid, so the printed page
   shows what the slider would show. An explorer output with no ``image/png`` fallback gets its default
   frame from the widget state instead of a ``VBox(children=...)`` text repr. A matplotlib ``to_jshtml``
   scrubber (``text/html`` with ``_anim_img``) becomes the grid of its frames.
2. **Solutions at the end of each chapter.** sphinx-exercise prints each solution right after its
   exercise. In the PDF every solution node is moved to a section "Solutions" at the end of its chapter,
   in order, so a reader can try an exercise before turning to the answer.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

logger = logging.getLogger(__name__)

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
MAX_FRAMES = 9           # at most 9 frames per explorer (6 when the frames are wide)
FRAMES_DIR = "explorer_frames"
_JSHTML_FRAME = re.compile(r"data:image/png;base64,([A-Za-z0-9+/=\\\n]+)")


# ---------------------------------------------------------------------------------------------
# Explorer frames
# ---------------------------------------------------------------------------------------------
def _docname_of(node, default, env=None):
    """The document a node came from (the LaTeX builder merges all documents into one tree).

    ``inline_all_toctrees`` moves a document's children under a ``start_of_file`` node without
    updating their ``parent``, so the walk up also stops at a section carrying ``docname`` (set by
    inline_all_toctrees) or at the document's original root (its ``source`` names the file).
    """
    parent = node
    while parent is not None:
        if isinstance(parent, addnodes.start_of_file):
            return parent["docname"]
        if isinstance(parent, nodes.section) and parent.get("docname"):
            return parent["docname"]
        if isinstance(parent, nodes.document) and env is not None and parent.get("source"):
            found = env.path2doc(parent["source"])
            if found:
                return found
        parent = parent.parent
    return default


_STATE_CACHE: dict[str, dict] = {}


def _widget_state(env, docname):
    """The embedded widget state (model id -> model) of the notebook behind ``docname``."""
    if docname not in _STATE_CACHE:
        path = Path(env.doc2path(docname))
        state = {}
        if path.suffix == ".ipynb" and path.exists():
            meta = json.loads(path.read_text(encoding="utf-8")).get("metadata", {})
            state = meta.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
        _STATE_CACHE[docname] = state
    return _STATE_CACHE[docname]


def _model_png(model):
    """The PNG bytes of an ImageModel (stored as a base64 buffer), or None."""
    for buf in model.get("buffers", []):
        if buf.get("path") == ["value"] and buf.get("encoding", "base64") == "base64":
            return base64.b64decode(buf["data"])
    value = model.get("state", {}).get("value")
    if isinstance(value, str) and model.get("state", {}).get("format", "png") == "png":
        try:
            return base64.b64decode(value)
        except ValueError:
            return None
    return None


def _children(model):
    refs = []
    for value in model.get("state", {}).values():
        items = value if isinstance(value, list) else [value]
        refs += [v[len("IPY_MODEL_"):] for v in items if isinstance(v, str) and v.startswith("IPY_MODEL_")]
    return refs


def explorer_frames(state, model_id):
    """(default frame, frames) as PNG bytes for the widget tree rooted at ``model_id``.

    The frames are the images of the first ``Stack`` in the tree (the static form's precomputed grid);
    the default frame is the Stack's selected image. Without a Stack the tree's images are the frames.
    """
    seen, order, stack = set(), [], [model_id]
    while stack:  # depth-first, children in order
        mid = stack.pop()
        if mid in seen or mid not in state:
            continue
        seen.add(mid)
        order.append(mid)
        stack.extend(reversed(_children(state[mid])))
    def shown(mid):
        """The image a Stack shows (recursively: a two-parameter grid is a Stack of Stacks)."""
        model = state.get(mid, {})
        if model.get("model_name") == "ImageModel":
            return _model_png(model)
        if model.get("model_name") == "StackModel":
            kids = [k[len("IPY_MODEL_"):] for k in model["state"].get("children", [])]
            if kids:
                index = model["state"].get("selected_index") or 0
                return shown(kids[min(index, len(kids) - 1)])
        return None

    for mid in order:
        model = state[mid]
        if model.get("model_name") == "StackModel":
            # the outermost Stack runs over the first control; each child shows its default for the others
            kids = [k[len("IPY_MODEL_"):] for k in model["state"].get("children", [])]
            frames = [p for p in (shown(k) for k in kids) if p]
            if frames:
                return shown(mid), frames
    frames = [p for p in (_model_png(state[m]) for m in order if state[m].get("model_name") == "ImageModel") if p]
    return (frames[0] if frames else None), frames


def _subsample(frames, k=MAX_FRAMES):
    if len(frames) <= k:
        return frames
    step = (len(frames) - 1) / (k - 1)
    return [frames[round(i * step)] for i in range(k)]


def _most(frames):
    import matplotlib.image as mpimg

    first = mpimg.imread(io.BytesIO(frames[0]), format="png")
    return 6 if first.shape[0] / first.shape[1] < 0.6 else MAX_FRAMES


def frame_grid_png(frames):
    """A grid of the frames (at most ``MAX_FRAMES``, evenly subsampled) as PNG bytes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.image as mpimg
    from matplotlib.figure import Figure

    first = mpimg.imread(io.BytesIO(frames[0]), format="png")
    aspect = first.shape[0] / first.shape[1]
    # wide (multi-panel) frames: 2 per row, at most 6; others 3 per row, at most 9 -- readable on the page
    columns, most = (2, 6) if aspect < 0.6 else (3, 9)
    frames = _subsample(frames, most)
    ncols = min(columns, len(frames))
    nrows = -(-len(frames) // ncols)
    fig = Figure(figsize=(8.0, 8.0 / ncols * aspect * nrows), dpi=150)
    for k, png in enumerate(frames):
        ax = fig.add_axes([(k % ncols) / ncols, 1 - (k // ncols + 1) / nrows, 1 / ncols, 1 / nrows])
        ax.imshow(mpimg.imread(io.BytesIO(png), format="png"))
        ax.set_axis_off()
    out = io.BytesIO()
    fig.savefig(out, format="png", facecolor="white")
    return out.getvalue()


def _image_node(outdir, png, stem):
    folder = Path(outdir) / FRAMES_DIR
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{stem}-{hashlib.sha1(png).hexdigest()[:12]}.png"
    (folder / name).write_bytes(png)
    uri = f"{FRAMES_DIR}/{name}"  # relative to the LaTeX output folder, where latexmk runs
    node = nodes.image(uri=uri, candidates={"*": uri}, width="100%")
    return node


def _note(text):
    para = nodes.paragraph()
    para += nodes.emphasis(text=text)
    return para


class ExplorerFramesForLatex(SphinxPostTransform):
    """Give explorer and scrubber outputs a print form (runs before myst-nb's mimetype selection)."""

    default_priority = 3  # myst_nb.sphinx_.SelectMimeType runs at 4
    builders = ("latex",)

    def run(self, **kwargs):
        outdir = self.app.builder.outdir
        bundles = [n for n in self.document.findall(nodes.container)
                   if n.get("nb_element") == "mime_bundle"]
        for bundle in bundles:
            mimes = {child.get("mime_type"): child for child in bundle.children}
            docname = _docname_of(bundle, self.env.docname, self.env)
            stem = re.sub(r"[^A-Za-z0-9]+", "-", docname)
            if WIDGET_VIEW in mimes:
                self._explorer(bundle, mimes, docname, stem, outdir)
            elif "text/html" in mimes and "_anim_img" in mimes["text/html"].astext():
                frames = [base64.b64decode(m.replace("\\", "").replace("\n", ""))
                          for m in _JSHTML_FRAME.findall(mimes["text/html"].astext())]
                if frames:
                    new = nodes.container(classes=["explorer-frames"])
                    new += _image_node(outdir, frame_grid_png(frames), stem)
                    new += _note("Frames of the scrubber on the web page, in order.")
                    bundle.replace_self(new)

    def _explorer(self, bundle, mimes, docname, stem, outdir):
        try:
            model_id = json.loads(mimes[WIDGET_VIEW].astext()).get("model_id")
        except ValueError:
            model_id = None
        if model_id is None:
            match = re.search(r'"model_id":\s*"([0-9a-f]+)"', mimes[WIDGET_VIEW].astext())
            model_id = match.group(1) if match else None
        default, frames = explorer_frames(_widget_state(self.env, docname), model_id) if model_id else (None, [])
        extra = []
        if len(frames) > 1:
            extra = [_image_node(outdir, frame_grid_png(frames), stem),
                     _note(f"The explorer's precomputed frames ({len(frames)} states"
                           + (f", {len(_subsample(frames, _most(frames)))} shown" if len(frames) > _most(frames) else "")
                           + "); the web page and the notebook let you move through them.")]
        if "image/png" in mimes:
            # myst-nb picks the image/png fallback (the default figure); add the frames after it.
            parent = bundle.parent
            index = parent.index(bundle)
            for k, node in enumerate(extra):
                parent.insert(index + 1 + k, node)
        elif default is not None:
            new = nodes.container(classes=["explorer-frames"])
            new += _image_node(outdir, default, stem)
            for node in extra:
                new += node
            bundle.replace_self(new)
        else:
            bundle.replace_self(_note("[Interactive explorer: run the notebook to use it.]"))


# ---------------------------------------------------------------------------------------------
# References to an exercise in another chapter
# ---------------------------------------------------------------------------------------------
class CrossChapterExerciseReferences(SphinxPostTransform):
    """Point a {numref} to an exercise of another chapter at the exercise's LaTeX label.

    sphinx-exercise labels an exercise ``exercise:<label>`` in LaTeX and rewrites references within one
    document only; a reference from another chapter would print "Exercise ??". The resolved reference
    already carries the text ("Exercise 5.2"); only the target needs the ``exercise:`` form.
    """

    default_priority = 23  # after sphinx_exercise's ResolveLinkTextToSolutions (22)
    builders = ("latex",)

    def run(self, **kwargs):
        registry = getattr(self.env, "sphinx_exercise_registry", None)
        if not registry:
            return
        from sphinx_exercise.nodes import exercise_enumerable_node, exercise_latex_number_reference

        for node in list(self.document.findall(addnodes.number_reference)):
            if isinstance(node, exercise_latex_number_reference):
                continue
            label = node.get("refid") or node.get("refuri", "").rpartition("#")[2]
            target = registry.get(label)
            if target is None or not isinstance(target.get("node"), exercise_enumerable_node):
                continue
            new = exercise_latex_number_reference()
            new.attributes = dict(node.attributes, refid=label)
            for child in node.children:
                new += child.deepcopy()
            node.replace_self(new)


# ---------------------------------------------------------------------------------------------
# Solutions at the end of each chapter
# ---------------------------------------------------------------------------------------------
def move_solutions_to_chapter_end(app, doctree, docname):
    if app.builder.name != "latex":
        return
    from sphinx_exercise.nodes import solution_node

    for chapter in list(doctree.findall(addnodes.start_of_file)):
        solutions = [s for s in chapter.findall(solution_node)
                     if _docname_of(s.parent, None, app.env) == chapter["docname"]]
        if not solutions:
            continue
        sections = [c for c in chapter.children if isinstance(c, nodes.section)]
        host = sections[-1] if sections else chapter
        section = nodes.section(ids=[f"solutions-{re.sub(r'[^A-Za-z0-9]+', '-', chapter['docname'])}"])
        section += nodes.title(text="Solutions to the exercises")
        for sol in solutions:
            sol.parent.remove(sol)
            section += sol
        host += section


# ---------------------------------------------------------------------------------------------
# Book structure: the preface as one unnumbered chapter, parts, numbering as in the HTML
# ---------------------------------------------------------------------------------------------
UNNUMBERED = (r"\setcounter{secnumdepth}{-1}\renewcommand{\theequation}{\arabic{equation}}"
              r"\renewcommand{\thefigure}{\arabic{figure}}\renewcommand{\thetable}{\arabic{table}}")
NUMBERED = (r"\setcounter{secnumdepth}{1}\renewcommand{\theequation}{\thechapter.\arabic{equation}}"
            r"\renewcommand{\thefigure}{\thechapter.\arabic{figure}}\renewcommand{\thetable}{\thechapter.\arabic{table}}")
RESET_COUNTERS = r"\setcounter{equation}{0}\setcounter{figure}{0}\setcounter{table}{0}"


def _raw(latex):
    return nodes.raw("", latex + "\n", format="latex")


def _top_toctrees(env, master):
    """[(caption, [docnames])] of the master document's own toctrees (the book's parts)."""
    out = []
    for toc in env.get_doctree(master).findall(addnodes.toctree):
        out.append((toc.get("caption") or "", [doc for _, doc in toc["entries"]]))
    return out


def structure_for_latex(app, doctree, docname):
    r"""Give the single LaTeX document the HTML book's structure.

    * The root page (the preface) becomes one unnumbered chapter "Preface" (LaTeX would make each of its
      sections a chapter).
    * Each part of _toc.yml starts with an unnumbered ``\part*`` (front matter excepted).
    * Chapters of numbered parts are numbered from 1, as in the HTML (``\setcounter{chapter}{0}`` before
      the first), with equations and figures numbered per chapter; front and back matter and the API
      reference are unnumbered, their equations and figures numbered per page from 1 (as in the HTML).
    """
    if app.builder.name != "latex":
        return
    env = app.env
    master = app.config.root_doc
    top = next(iter(doctree.findall(nodes.section)), None)
    sofs = list(doctree.findall(addnodes.start_of_file))
    if top is None or not sofs:
        return
    # 1. the preface: the root's content up to the first inlined document, as one unnumbered chapter
    first = next((i for i, child in enumerate(top.children)
                  if any(True for _ in child.findall(addnodes.start_of_file))
                  or isinstance(child, addnodes.start_of_file)), len(top.children))
    body = [c for c in top.children[:first] if not isinstance(c, nodes.title)]
    if body:
        title = next((c for c in top.children if isinstance(c, nodes.title)), None)
        preface = nodes.section(ids=["book-preface-chapter"])
        preface += nodes.title(text=title.astext() if title is not None else "Preface")
        for child in body:
            top.remove(child)
            preface += child
        top.insert(0 if title is None else top.index(title) + 1, preface)
        top.insert(top.index(preface), _raw(UNNUMBERED + RESET_COUNTERS))
    # 2. parts and numbering, document by document
    numbered_docs = {doc for doc, numbers in env.toc_secnumbers.items() if numbers.get("")}
    part_of = {}
    for caption, docs in _top_toctrees(env, master):
        if docs and caption and "front matter" not in caption.lower():
            part_of[docs[0]] = caption
    state, chapter_reset = "unnumbered", False
    for sof in sofs:
        doc = sof["docname"]
        if _docname_of(sof.parent, None, env) not in (None, master):
            continue  # a document inside another one (API reference sections): keep its parent's state
        latex = ""
        if doc in part_of:
            caption = part_of[doc].replace("\\", "").replace("{", "").replace("}", "")
            latex += (r"\cleardoublepage\phantomsection\addcontentsline{toc}{part}{%s}\part*{%s}" % (caption, caption))
        if doc in numbered_docs:
            if state != "numbered":
                latex += NUMBERED + ("" if chapter_reset else r"\setcounter{chapter}{0}")
                state, chapter_reset = "numbered", True
        else:
            if state != "unnumbered":
                latex += UNNUMBERED
                state = "unnumbered"
            latex += RESET_COUNTERS
        if latex:
            sof.insert(0, _raw(latex))


def _plain_contents_name(app, config):
    # Sphinx names the table of contents after the first toctree caption ("Front matter"): call it Contents.
    elements = dict(config.latex_elements or {})
    elements.setdefault("tableofcontents", r"\renewcommand{\contentsname}{Contents}\sphinxtableofcontents")
    config.latex_elements = elements


def setup(app):
    app.add_post_transform(ExplorerFramesForLatex)
    app.add_post_transform(CrossChapterExerciseReferences)
    app.connect("doctree-resolved", move_solutions_to_chapter_end)
    app.connect("doctree-resolved", structure_for_latex)
    app.connect("config-inited", _plain_contents_name)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
