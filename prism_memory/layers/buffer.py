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

import json
import threading
import uuid
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..records import Layer, MemoryRecord, Scope, make_record_id, normalize_text
from ..stores import MemoryStore, RecordFilter
from ..stores.filters import Condition
from ..tokens import count_tokens

__all__ = [
    "BufferIndex",
    "BufferedTurn",
    "SessionBuffer",
    "exact_turn_record_id",
    "legacy_turn_record_id",
    "message_candidates",
    "message_slots",
    "overflow_count",
    "turn_filter",
    "turn_record_id",
]


_EXACT_MESSAGE_IDS = uuid.UUID("0d6f3b1e-8c4a-5e29-b7d1-2f4a9c6e8b30")


def turn_record_id(scope: Scope, message_id: str | None, turn_index: int) -> str:
    """Id of a turn: from the message id when there is one (a retry is recognised), else its index.

    Message ids are compared byte for byte (``"K1"`` and ``"k1"`` are two messages). An id
    that text normalisation leaves unchanged (lower case, NFKC, no runs of whitespace: most
    ids) keeps the record id it has always had (:func:`legacy_turn_record_id`); any other id
    is hashed exactly (:func:`exact_turn_record_id`), so it can equal no normalised one.

    >>> s = Scope(user_id="a", session_id="s")
    >>> turn_record_id(s, "K1", 0) != turn_record_id(s, "k1", 0)
    True
    """
    if message_id is None:
        return make_record_id(scope, "turn", f"idx:{turn_index}")
    key = f"msg:{message_id}"
    if normalize_text(key) == key:
        return legacy_turn_record_id(scope, message_id)
    return exact_turn_record_id(scope, message_id)


def exact_turn_record_id(scope: Scope, message_id: str) -> str:
    """A turn id hashed from the exact message id, in a namespace of its own."""
    return str(uuid.uuid5(_EXACT_MESSAGE_IDS, json.dumps([scope.key(), message_id])))


def legacy_turn_record_id(scope: Scope, message_id: str) -> str:
    """The id versions that compared message ids after normalisation gave a turn: ``"K1"`` and
    ``"k1"`` shared it. Still the id of a message id in normal form."""
    return make_record_id(scope, "turn", f"msg:{message_id}")


def message_slots(
    scope: Scope, message_ids: Sequence[str], stored: Mapping[str, MemoryRecord]
) -> tuple[set[str], dict[str, str]]:
    """Which message ids were remembered before, and the record id of each message.

    ``stored``: the records found at :func:`message_candidates` of the ids. A message is known
    when one of its candidate records holds its exact id in ``source_ids`` (every turn record
    does), so a turn an older version stored under a shared legacy id is recognised, and is
    never overwritten: a message whose usual id is taken by another message's legacy record
    goes to its exact id instead.
    """
    known: set[str] = set()
    slots: dict[str, str] = {}
    for mid in message_ids:
        holders = [stored[c] for c in message_candidates(scope, mid) if c in stored]
        mine = [r for r in holders if mid in r.provenance.source_ids]
        if mine:
            known.add(mid)
            slots[mid] = mine[0].id
        else:
            primary = turn_record_id(scope, mid, 0)
            slots[mid] = primary if primary not in stored else exact_turn_record_id(scope, mid)
    return known, slots


def message_candidates(scope: Scope, message_id: str) -> list[str]:
    """Every record id a turn with this message id may have (see :func:`message_slots`)."""
    ids = [
        turn_record_id(scope, message_id, 0),
        exact_turn_record_id(scope, message_id),
        legacy_turn_record_id(scope, message_id),
    ]
    return list(dict.fromkeys(ids))


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
