"""Recall cache: TTL + LRU, keyed by every input that changes the answer: scope, intent
signature, query, budget, config and the clock the call reads (``clock``: the caller's
``now``, or the current minute when it gave none, so "yesterday" never answers for another
day).

Design:
- The cache never hands out shared mutable state: :meth:`RecallCache.put` keeps a private
  copy and every hit is a fresh copy of it, so marking ``trace.cached`` on a hit or editing a
  returned context changes neither the first caller's context nor the cache. The private copy
  is the value pickled (a context is thousands of small objects: pickling them in C costs a
  fraction of ``copy.deepcopy``'s walk, and each hit unpickles a new one); a value that cannot
  be pickled is kept as a deep copy instead.
- Invalidation is by scope overlap: a write or delete in scope ``W`` drops every entry whose
  read scope could hold a record ``W`` covers, i.e. no scope field is set in both to different
  values (:func:`scopes_overlap`). An entry reads its user's/agent's records across sessions,
  so its session does not narrow it unless it has neither user nor agent. So
  ``delete_all(user_id="bob")`` drops ``recall(agent_id="nurse-bot")`` (bob's records may be
  the nurse-bot's) and ``delete_all(session_id="s1")`` drops every user's and agent's entries;
  a write with no scope (admin) drops everything. Stale data is never served; the TTL bounds
  staleness from writes made by another process sharing a server.
- Thread-safe; a ``time_fn`` can be injected for tests.
"""

from __future__ import annotations

import copy
import pickle
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ..records import Scope

__all__ = ["RecallCache", "scopes_overlap"]

Key = tuple[str, str, str, str, int, str, str]


class _Pickled(bytes):
    """A cached value kept as its pickle."""


def _frozen(value: Any) -> Any:
    """A private copy of ``value``: its pickle, or a deep copy when it cannot be pickled."""
    try:
        return _Pickled(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    except (pickle.PicklingError, TypeError, AttributeError):
        return copy.deepcopy(value)


def _thawed(kept: Any) -> Any:
    """A fresh copy of what :func:`_frozen` kept."""
    if isinstance(kept, _Pickled):
        return pickle.loads(kept)  # our own pickle of our own value, never outside input
    return copy.deepcopy(kept)


def _owner(scope: Scope) -> tuple[str, str, str]:
    return (scope.user_id or "", scope.agent_id or "", scope.session_id or "")


def _read_scope(entry: tuple[str, str, str]) -> tuple[str, str, str]:
    """What a recall in ``entry`` reads: its user/agent across sessions (the session's buffer
    is part of that), or one session when it has neither (``Scope.widen(session=True)``)."""
    u, a, _ = entry
    return (u, a, "") if u or a else entry


def _overlap(a: tuple[str, str, str], b: tuple[str, str, str]) -> bool:
    return all(not x or not y or x == y for x, y in zip(a, b))


def scopes_overlap(write: Scope, read: Scope) -> bool:
    """Whether a record written or deleted in ``write`` can be one that a read in ``read``
    returns: no scope field is set in both to different values (an unset field matches any).

    A delete in ``write`` removes records whose unset fields hold anything, so this is exact
    for deletes and errs on the side of dropping for writes. ``read`` is taken as it is:
    widen it first when the read spans sessions.

    >>> scopes_overlap(Scope(user_id="bob"), Scope(agent_id="nurse-bot"))
    True
    >>> scopes_overlap(Scope(user_id="bob"), Scope(user_id="alice", agent_id="nurse-bot"))
    False
    """
    return _overlap(_owner(write), _owner(read))


class RecallCache:
    """LRU of recall results with a time-to-live.

    Example:
        >>> c = RecallCache(max_size=2, ttl_s=60)
        >>> s = Scope(user_id="alice")
        >>> c.put(s, "intent", "q", 100, "cfg", "ctx", clock="2026-03-02")
        >>> c.get(s, "intent", "q", 100, "cfg", clock="2026-03-02")
        'ctx'
        >>> c.get(s, "intent", "q", 100, "cfg", clock="2026-03-10") is None  # another day
        True
        >>> c.invalidate(Scope(user_id="bob"))  # bob's records are never alice's
        >>> c.get(s, "intent", "q", 100, "cfg", clock="2026-03-02")
        'ctx'
        >>> c.invalidate(Scope(user_id="alice", session_id="s1"))
        >>> c.get(s, "intent", "q", 100, "cfg", clock="2026-03-02") is None
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
    def _key(
        scope: Scope, intent_sig: str, query: str, budget: int, config_sig: str, clock: str
    ) -> Key:
        u, a, s = _owner(scope)
        return (u, a, s, intent_sig + "\x1f" + query, budget, config_sig, clock)

    def get(
        self,
        scope: Scope,
        intent_sig: str,
        query: str,
        budget: int,
        config_sig: str,
        *,
        clock: str = "",
    ) -> Any:
        """A private copy of the value cached under these inputs, or ``None``."""
        if self.max_size <= 0 or self.ttl_s <= 0:
            return None
        key = self._key(scope, intent_sig, query, budget, config_sig, clock)
        with self._lock:
            entry = self._data.get(key)
            if entry is None or self._time() - entry[0] > self.ttl_s:
                if entry is not None:
                    del self._data[key]
                self.misses += 1
                return None
            self._data.move_to_end(key)
            self.hits += 1
            value = entry[1]
        return _thawed(value)

    def put(
        self,
        scope: Scope,
        intent_sig: str,
        query: str,
        budget: int,
        config_sig: str,
        value: Any,
        *,
        clock: str = "",
    ) -> None:
        """Cache a private copy of ``value`` (later edits of ``value`` do not reach it)."""
        if self.max_size <= 0 or self.ttl_s <= 0:
            return
        key = self._key(scope, intent_sig, query, budget, config_sig, clock)
        kept = _frozen(value)
        with self._lock:
            self._data[key] = (self._time(), kept)
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
            for key in [k for k in self._data if _overlap(w, _read_scope(k[:3]))]:
                del self._data[key]

    def __len__(self) -> int:
        return len(self._data)
