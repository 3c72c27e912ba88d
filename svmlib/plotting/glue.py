"""Glue a computed number into the book's prose (myst-nb's ``glue``, without needing myst-nb).

A chapter computes a number, glues it under a name, and the markdown shows it with the
role ``{glue:text}`name:.3g```: the sentence changes (or the build fails) when the
computation changes. myst-nb stores glued values as display outputs with ``scrapbook``
metadata; this module writes exactly that output, so a chapter also runs where myst-nb is
not installed (Colab, a plain JupyterLab), where the glued value simply is not shown.
"""

from __future__ import annotations

__all__ = ["glue"]

#: myst-nb's prefix for values glued with ``display=False`` (myst_nb.ext.glue.GLUE_PREFIX).
GLUE_PREFIX = "application/papermill.record/"


def glue(name, value, display=False):
    """Store ``value`` under ``name`` for the ``{glue:text}`` and ``{glue:}`` roles of the chapter.

    Parameters
    ----------
    name : str
        Unique name within the chapter.
    value : object
        What to glue; a number is shown through its ``repr`` (format it in the role,
        e.g. ``{glue:text}`c_best:.2f```).
    display : bool, default False
        Also show the value in the notebook.

    Examples
    --------
    >>> glue("n_steps", 26)  # outside IPython nothing is displayed
    """
    if not isinstance(name, str) or not name:
        raise ValueError("name must be a non-empty string.")
    try:
        from IPython import get_ipython
        from IPython.core.formatters import format_display_data
        from IPython.display import display as ipy_display
    except ImportError:  # pragma: no cover - IPython ships with every Jupyter install
        return None
    if get_ipython() is None:
        return None
    # numpy 2 writes np.float64(0.5) as its repr; myst-nb's {glue:text}`x:.2f` parses the
    # text/plain form as a number, so numpy scalars are glued as the Python numbers they hold.
    if hasattr(value, "dtype") and getattr(value, "shape", None) == () and hasattr(value, "item"):
        value = value.item()
    mimebundle, metadata = format_display_data(value)
    prefix = "" if display else GLUE_PREFIX
    metadata["scrapbook"] = dict(name=name, mime_prefix=prefix)
    ipy_display({prefix + k: v for k, v in mimebundle.items()}, raw=True, metadata=metadata)
