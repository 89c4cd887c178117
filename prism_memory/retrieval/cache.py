"""Recall cache: TTL + LRU, keyed by (scope, intent signature, query, budget, config).

Design:
- A hit returns the same ``MemoryContext`` object the first call built (callers must treat
  it as read-only) and marks ``trace.cached``.
- Invalidation is by scope: a write in ``(user=alice, session=s1)`` drops every entry whose
  user/agent matches (recall reads across the sessions of a user), and a write with no scope
  (admin) drops everything. Stale data is never served; the TTL bounds staleness from writes
  made by another process sharing a server.
- Thread-safe; a ``time_fn`` can be injected for tests.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ..records import Scope

__all__ = ["RecallCache"]

Key = tuple[str, str, str, str, int, str]


def _owner(scope: Scope) -> tuple[str, str, str]:
    return (scope.user_id or "", scope.agent_id or "", scope.session_id or "")


def _affects(write: tuple[str, str, str], entry: tuple[str, str, str]) -> bool:
    wu, wa, ws = write
    eu, ea, es = entry
    if wu or wa:  # user/agent scoped write: every entry of that user/agent (any session)
        return (not wu or wu == eu) and (not wa or wa == ea)
    return ws == es  # session-only scope


class RecallCache:
    """LRU of recall results with a time-to-live.

    Example:
        >>> c = RecallCache(max_size=2, ttl_s=60)
        >>> s = Scope(user_id="alice")
        >>> c.put(s, "intent", "q", 100, "cfg", "ctx")
        >>> c.get(s, "intent", "q", 100, "cfg")
        'ctx'
        >>> c.invalidate(Scope(user_id="alice", session_id="s1"))
        >>> c.get(s, "intent", "q", 100, "cfg") is None
        True
    """

    def __init__(
        self, max_size: int = 256, ttl_s: float = 300.0, time_fn: Callable[[], float] | None = None
    ) -> None:
        self.max_size = max_size
        self.ttl_s = ttl_s
        self._time = time_fn or time.monotonic
        self._data: OrderedDict[Key, tuple[float, Any]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def _key(scope: Scope, intent_sig: str, query: str, budget: int, config_sig: str) -> Key:
        u, a, s = _owner(scope)
        return (u, a, s, intent_sig + "\x1f" + query, budget, config_sig)

    def get(self, scope: Scope, intent_sig: str, query: str, budget: int, config_sig: str) -> Any:
        if self.max_size <= 0 or self.ttl_s <= 0:
            return None
        key = self._key(scope, intent_sig, query, budget, config_sig)
        with self._lock:
            entry = self._data.get(key)
            if entry is None or self._time() - entry[0] > self.ttl_s:
                if entry is not None:
                    del self._data[key]
                self.misses += 1
                return None
            self._data.move_to_end(key)
            self.hits += 1
            return entry[1]

    def put(
        self, scope: Scope, intent_sig: str, query: str, budget: int, config_sig: str, value: Any
    ) -> None:
        if self.max_size <= 0 or self.ttl_s <= 0:
            return
        key = self._key(scope, intent_sig, query, budget, config_sig)
        with self._lock:
            self._data[key] = (self._time(), value)
            self._data.move_to_end(key)
            while len(self._data) > self.max_size:
                self._data.popitem(last=False)

    def invalidate(self, scope: Scope | None) -> None:
        """Drop the entries a write in ``scope`` could change (``None``: all)."""
        with self._lock:
            if scope is None:
                self._data.clear()
                return
            w = _owner(scope)
            for key in [k for k in self._data if _affects(w, k[:3])]:
                del self._data[key]

    def __len__(self) -> int:
        return len(self._data)
