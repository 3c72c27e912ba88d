"""Drawing functions for the book's figures (needs matplotlib).

One module per chapter idea; each function draws a *state* computed by a math
module onto a matplotlib Figure or Axes and computes nothing expensive itself.
"""

from importlib import resources as _resources

__all__ = ["use_book_style", "BOOK_STYLE"]

#: Path of the book's matplotlib style sheet, shipped inside svmlib so that a chapter run on
#: Colab or Binder (or from any working directory) finds it.
BOOK_STYLE = str(_resources.files(__name__) / "book.mplstyle")


def use_book_style():
    """Apply the book's figure style (opaque white backgrounds, colour-blind-safe cycle).

    Examples
    --------
    >>> from svmlib.plotting import use_book_style
    >>> use_book_style()
    >>> import matplotlib
    >>> matplotlib.rcParams["figure.facecolor"]
    'white'
    """
    import matplotlib.pyplot as plt

    plt.style.use(BOOK_STYLE)
