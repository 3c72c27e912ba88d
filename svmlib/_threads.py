"""Single-threaded BLAS for small dense problems.

On a 2-core machine, multithreaded BLAS made small dense solves (n ~ 50-500)
4-200x slower than one thread: thread start-up and contention cost more than
the arithmetic. Hot paths wrap their linear algebra in :func:`blas_single_thread`.
"""

from __future__ import annotations

import functools

from threadpoolctl import threadpool_limits

__all__ = ["blas_single_thread", "single_threaded"]


def blas_single_thread():
    """Context manager limiting BLAS/OpenMP pools to one thread."""
    return threadpool_limits(limits=1, user_api="blas")


def single_threaded(func):
    """Decorator: run ``func`` with single-threaded BLAS."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with blas_single_thread():
            return func(*args, **kwargs)

    return wrapper
