"""Access statistics of recalled records, written off the hot path.

Design:
- ``recall`` only appends ``(scope, [(id, access_count it saw)])`` to an in-memory log (a dict
  update under a lock, microseconds); a daemon thread wakes every ``flush_s`` seconds and hands
  each scope's ``{id: new access_count}`` to a writer callback, which does one
  ``set_payload`` per distinct new count. No read: the count recall saw (or the last one this
  log wrote, if higher) plus the accesses since is the new count -- reading records back
  would parse payloads under the GIL and slow the recalls it runs beside.
- Accesses of the same record between flushes are summed, so no increment is lost to a race
  between two recalls of this process (a concurrent writer elsewhere may lose one, which a
  ranking signal tolerates).
- ``flush()`` writes synchronously (tests, shutdown); ``close()`` stops the thread and flushes.
  A writer error is kept in ``last_error`` and never reaches a recall: access counts are a
  ranking signal, not data the caller asked to store.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from datetime import datetime

from ..records import Scope, utcnow

__all__ = ["AccessLog", "Writer"]

Writer = Callable[[Scope, dict[str, int], datetime], None]
_MEMO = 100_000  # last written counts remembered (ids)


class AccessLog:
    """Pending accesses per scope, flushed in the background.

    Example:
        >>> seen = []
        >>> log = AccessLog(lambda scope, counts, when: seen.append(counts), flush_s=60)
        >>> log.add(Scope(user_id="u"), [("a", 0), ("b", 5), ("a", 0)])
        >>> log.flush(), seen
        (2, [{'a': 2, 'b': 6}])
        >>> log.close()
    """

    def __init__(self, writer: Writer, flush_s: float = 1.0) -> None:
        self._writer = writer
        self._flush_s = max(0.01, float(flush_s))
        self._lock = threading.Lock()
        self._flush_lock = threading.Lock()
        self._pending: dict[str, tuple[Scope, dict[str, list[int]]]] = {}
        self._written: OrderedDict[str, int] = OrderedDict()
        self._wake = threading.Event()
        self._stop = False
        self._thread: threading.Thread | None = None
        self.last_error: Exception | None = None

    def add(self, scope: Scope, seen: Iterable[tuple[str, int]]) -> None:
        """Count one access of each ``(id, access_count seen)`` (cheap; starts the flusher)."""
        with self._lock:
            if self._stop:
                return
            key = scope.key()
            entry = self._pending.get(key)
            if entry is None:
                entry = self._pending[key] = (scope, {})
            counts = entry[1]
            for i, base in seen:
                slot = counts.get(i)
                if slot is None:
                    counts[i] = [1, base]
                else:
                    slot[0] += 1
                    slot[1] = max(slot[1], base)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="prism-access-log", daemon=True
                )
                self._thread.start()

    def pending(self) -> int:
        """Records with accesses not yet written."""
        with self._lock:
            return sum(len(c) for _, c in self._pending.values())

    def flush(self) -> int:
        """Write everything pending now; returns how many records were handed to the writer."""
        with self._flush_lock:
            with self._lock:
                batch, self._pending = self._pending, {}
            when = utcnow()
            n = 0
            for key in sorted(batch):
                scope, pending = batch[key]
                counts = {
                    i: max(base, self._written.get(i, 0)) + hits
                    for i, (hits, base) in pending.items()
                }
                try:
                    self._writer(scope, counts, when)
                    n += len(counts)
                except Exception as exc:  # a ranking signal: never fail a recall over it
                    self.last_error = exc
                    continue
                for i, c in counts.items():
                    self._written[i] = c
                    self._written.move_to_end(i)
                while len(self._written) > _MEMO:
                    self._written.popitem(last=False)
            return n

    def _run(self) -> None:
        while True:
            self._wake.wait(self._flush_s)
            self._wake.clear()
            with self._lock:
                stop = self._stop
            self.flush()
            if stop:
                return

    def close(self) -> None:
        """Stop the flusher after writing what is pending."""
        with self._lock:
            self._stop = True
            thread = self._thread
        if thread is not None:
            self._wake.set()
            thread.join(timeout=10)
        self.flush()
