"""Drawing functions for the book's figures (needs matplotlib).

One module per chapter idea; each function draws a *state* computed by a math
module onto a matplotlib Figure or Axes and computes nothing expensive itself.
"""
