"""The buffer layer: the raw recent turns of a session, bounded by turns and tokens.

Design:
- Buffered turns are ordinary records (``layer=buffer``, ``kind=observation``) in the store, so
  a restarted agent keeps its short-term history; this module keeps only a small per-session
  index (id, tokens, turn index) in memory, rebuilt from the store the first time a session is
  touched.
- A turn is embedded once, when it is remembered. Moving it to the episodic layer is a payload
  update of the same point (``layer`` and ``updated_at``), so the vector is reused, never
  recomputed.
- The eviction rule is a pure function (:func:`overflow_count`): oldest turns leave first until
  both bounds hold.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..records import Layer, MemoryRecord, Scope, make_record_id
from ..stores import MemoryStore, RecordFilter
from ..stores.filters import Condition
from ..tokens import count_tokens

__all__ = [
    "BufferIndex",
    "BufferedTurn",
    "SessionBuffer",
    "overflow_count",
    "turn_filter",
    "turn_record_id",
]


def turn_record_id(scope: Scope, message_id: str | None, turn_index: int) -> str:
    """Id of a turn: from the message id when there is one (a retry is recognised), else its index."""
    key = f"msg:{message_id}" if message_id is not None else f"idx:{turn_index}"
    return make_record_id(scope, "turn", key)


def turn_filter(*layers: Layer) -> RecordFilter:
    """Records that are conversation turns in the given layers (buffer and episodic by default)."""
    chosen = [layer.value for layer in (layers or (Layer.BUFFER, Layer.EPISODIC))]
    return RecordFilter(
        must=[
            Condition("layer", "any", chosen),
            Condition("kind", "eq", "observation"),
        ],
        must_not=[Condition("metadata.turn_index", "empty")],
    )


def overflow_count(tokens: Sequence[int], max_turns: int, max_tokens: int) -> int:
    """How many of the oldest turns must leave so that both bounds hold.

    >>> overflow_count([10, 10, 10], max_turns=2, max_tokens=100)
    1
    >>> overflow_count([50, 40, 30], max_turns=10, max_tokens=60)
    2
    """
    n = len(tokens)
    total = sum(tokens)
    evict = 0
    while evict < n and (n - evict > max_turns or total > max_tokens):
        total -= tokens[evict]
        evict += 1
    return evict


@dataclass
class BufferedTurn:
    id: str
    tokens: int
    turn_index: int


@dataclass
class SessionBuffer:
    """The in-memory index of one session's buffer (the records themselves are in the store)."""

    turns: deque[BufferedTurn] = field(default_factory=deque)
    next_index: int = 0

    @property
    def tokens(self) -> int:
        return sum(t.tokens for t in self.turns)


class BufferIndex:
    """Per-session buffer indexes, loaded lazily from the store.

    Example:
        >>> from prism_memory import Memory, FakeEmbedder
        >>> m = Memory(location=":memory:", embedder=FakeEmbedder())
        >>> _ = m.remember("hello", user_id="a", session_id="s1")
        >>> [r.text for r in m.buffer(user_id="a", session_id="s1")]
        ['hello']
        >>> m.close()
    """

    def __init__(self) -> None:
        self._sessions: dict[str, SessionBuffer] = {}
        self._lock = threading.Lock()

    def session(self, store: MemoryStore, scope: Scope) -> SessionBuffer:
        """The session's index; built from the store the first time (restart-safe)."""
        key = scope.key()
        with self._lock:
            state = self._sessions.get(key)
        if state is not None:
            return state
        state = SessionBuffer()
        buffered: list[MemoryRecord] = []
        cursor: str | None = None
        while True:
            page, cursor = store.scroll(scope, turn_filter(Layer.BUFFER), limit=256, cursor=cursor)
            buffered.extend(page)
            if cursor is None:
                break
        buffered.sort(key=lambda r: int(r.metadata.get("turn_index", 0)))
        for r in buffered:
            state.turns.append(
                BufferedTurn(r.id, count_tokens(r.text), int(r.metadata["turn_index"]))
            )
        state.next_index = self._next_index(store, scope)
        with self._lock:
            return self._sessions.setdefault(key, state)

    @staticmethod
    def _next_index(store: MemoryStore, scope: Scope) -> int:
        n = store.count(scope, turn_filter())
        # a forgotten turn makes the count smaller than the highest index: probe upwards
        while store.count(scope, RecordFilter.eq("metadata.turn_index", n)):
            n += 1
        return n

    def forget_session(self, scope: Scope) -> None:
        with self._lock:
            self._sessions.pop(scope.key(), None)

    def forget_all(self) -> None:
        with self._lock:
            self._sessions.clear()
