"""Interactive figures for the book (needs matplotlib and ipywidgets).

One module per chapter idea. Each module defines factories that return an
:class:`~svmlib.widgets._base.Explorer` and a ``LATENCY_CASES`` list of
``(factory, control_name, values)`` that ``benchmarks/widget_latency.py`` times.
The computations behind every widget are plain functions in the math modules.
"""

from ._base import Explorer, StaticExplorer, animated_png, book_build, dropdown, slider

__all__ = ["Explorer", "StaticExplorer", "animated_png", "book_build", "slider", "dropdown"]
