"""A single background thread for the heavy steps of the write path.

Design: ``Memory(background=True)`` hands LLM extraction and consolidation to this worker so
``remember`` returns once the turns are durable. Jobs run in submission order on one daemon
thread; a failing job is reported through ``on_error`` and never stops the worker. ``join``
waits until every job submitted so far has finished (``Memory.flush()`` uses it).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

__all__ = ["BackgroundWorker"]


class BackgroundWorker:
    """Run callables in order on one thread.

    Example:
        >>> out = []
        >>> w = BackgroundWorker()
        >>> w.submit(lambda: out.append(1))
        >>> w.join()
        True
        >>> w.stop(); out
        [1]
    """

    def __init__(self, on_error: Callable[[str], None] | None = None) -> None:
        self._queue: queue.Queue[Callable[[], object] | None] = queue.Queue()
        self._on_error = on_error
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._stopped = False

    def _ensure_thread(self) -> None:
        with self._start_lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._loop, name="prism-memory-worker", daemon=True
                )
                self._thread.start()

    def _loop(self) -> None:
        while True:
            job = self._queue.get()
            try:
                if job is None:
                    return
                job()
            except Exception as exc:  # a failed background step must not kill the worker
                if self._on_error is not None:
                    self._on_error(f"{type(exc).__name__}: {exc}")
            finally:
                self._queue.task_done()

    def submit(self, job: Callable[[], object]) -> None:
        """Queue ``job``; after :meth:`stop` it runs inline instead (nothing is dropped)."""
        if self._stopped:
            job()
            return
        self._ensure_thread()
        self._queue.put(job)

    @property
    def pending(self) -> int:
        return self._queue.unfinished_tasks

    def join(self, timeout: float | None = None) -> bool:
        """Wait for every queued job; ``False`` if ``timeout`` seconds passed first."""
        if timeout is None:
            self._queue.join()
            return True
        done = threading.Event()

        def _wait() -> None:
            self._queue.join()
            done.set()

        threading.Thread(target=_wait, daemon=True).start()
        return done.wait(timeout)

    def stop(self) -> None:
        """Finish queued jobs and end the thread."""
        if self._stopped:
            return
        self._stopped = True
        if self._thread is not None and self._thread.is_alive():
            self._queue.put(None)
            self._thread.join()
