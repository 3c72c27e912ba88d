"""Single-threaded BLAS for small dense problems.

On a 2-core machine, multithreaded BLAS made small dense solves (n ~ 50-500)
4-200x slower than one thread: thread start-up and contention cost more than
the arithmetic. Hot paths wrap their linear algebra in :func:`blas_single_thread`.
"""

from __future__ import annotations

import functools

from threadpoolctl import ThreadpoolController

__all__ = ["blas_single_thread", "single_threaded"]

# Scanning the loaded libraries costs ~10 ms; do it once, not on every call.
_CONTROLLER = None


def _controller():
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER


def blas_single_thread():
    """Context manager limiting BLAS pools to one thread."""
    return _controller().limit(limits=1, user_api="blas")


def single_threaded(func):
    """Decorator: run ``func`` with single-threaded BLAS."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with blas_single_thread():
            return func(*args, **kwargs)

    return wrapper
