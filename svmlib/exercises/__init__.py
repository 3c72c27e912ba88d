"""Auto-checked exercises: call a checker with your answer, read its verdict.

Each chapter has a module here (``svmlib.exercises.<chapter idea>``); each
checker returns a :class:`Feedback` that prints as a short verdict and can be
used in ``assert`` (it is truthy only when the answer is right).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Feedback", "close_enough", "as_number", "as_numbers"]


@dataclass(frozen=True)
class Feedback:
    """The verdict on an answer: ``correct`` and a ``message`` that says why."""

    correct: bool
    message: str

    def __post_init__(self):
        # the verdict is printed by repr: a message that starts with its own verdict
        # ("Not yet: ...") would print it twice ("Not yet: Not yet: ...")
        message = str(self.message).strip()
        for prefix in ("Not yet:", "Not yet.", "Correct:", "Correct.", "Wrong:", "Wrong."):
            if message.lower().startswith(prefix.lower()):
                message = message[len(prefix):].lstrip()
        object.__setattr__(self, "message", message)

    def __bool__(self):
        return self.correct

    def __repr__(self):
        mark = "Correct" if self.correct else "Not yet"
        return f"{mark}: {self.message}"

    def _repr_markdown_(self):
        mark = "**Correct.**" if self.correct else "**Not yet.**"
        return f"{mark} {self.message}"


def close_enough(answer, expected, *, rtol=1e-3, atol=1e-6):
    """True if a numeric answer (scalar or array) matches ``expected``.

    Returns False (never raises) for answers of the wrong shape or type, so a
    checker can explain instead of crashing.
    """
    import numpy as np

    try:
        a = np.asarray(answer, dtype=float)
        e = np.asarray(expected, dtype=float)
    except (TypeError, ValueError):
        return False
    if a.shape != e.shape or not np.all(np.isfinite(a)):
        return False
    return bool(np.allclose(a, e, rtol=rtol, atol=atol))


def as_numbers(answer, size):
    """A student's answer as a 1-D array of ``size`` finite floats, or None if it is not one.

    Checkers call this first and explain the expected form when it returns None, so a
    string, a wrong length or a NaN never reaches numpy's own error messages.
    """
    import numpy as np

    try:
        values = np.asarray(answer, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        return None
    if values.shape != (size,) or not np.all(np.isfinite(values)):
        return None
    return values


def as_number(answer):
    """A student's answer as one finite float, or None if it is not one."""
    values = as_numbers(answer, 1)
    return None if values is None else float(values[0])
