"""Single-threaded BLAS with a cached threadpoolctl controller.

``svmlib._threads.blas_single_thread`` builds a new ``threadpool_limits`` on every
call, which re-scans the loaded shared libraries: ~8 ms each time here, more than
a whole free-energy evaluation at n = 200. A ``ThreadpoolController`` made once
and reused limits the same pools in microseconds.
"""

from __future__ import annotations

from threadpoolctl import ThreadpoolController

_CONTROLLER = None


def blas_single_thread():
    """Context manager limiting BLAS to one thread (cached library discovery)."""
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER.limit(limits=1, user_api="blas")
