"""What every ``Memory`` on one embedded path shares within a process: the open store, the
write-event bus, the scope locks and the default embedder.

Design:
- An embedded Qdrant Edge store can be open once per process (its WAL is locked), yet a
  program may build several ``Memory`` objects on one path (LlamaIndex's
  ``memory_cls.from_defaults()`` per chat, two adapters, a test helper). So embedded stores
  are opened through :func:`path_slot`: one :class:`PathSlot` per resolved absolute path, and
  while the path is open its :class:`SharedStore` holds the :class:`EdgeStore`, the
  :class:`WriteBus` (a write through one ``Memory`` invalidates the recall caches and buffer
  indexes of every other), the :class:`ScopeLocks` (check-and-write stays atomic across them)
  and the embedder resolved from ``embedder=None`` (reused, not loaded again).
- Reference counting: :meth:`PathSlot.acquire` opens the store for the first engine and counts
  one reference per engine; :meth:`SharedStore.release` drops one, and the last one closes the
  store, after which another process may open the path. Both run under the slot's lock, so
  engines opening and closing one path from several threads never see a half-open store;
  different paths do not wait for each other.
- A second engine must ask for what the store was opened with: the same embedder (name and
  dimension) and the same ``StoreConfig``; otherwise :class:`ConfigError` names both and the
  fixes. Everything else (LLM, retrieval, safety, extraction settings, background worker)
  stays per ``Memory``.
- Engines over a server (``url=``), ``location=":memory:"`` or a store passed in get a private
  bus and private locks (:meth:`SharedStore.private`): nothing to share with anyone.
- Another process still gets :class:`StoreLockedError` from the engine's own lock.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .config import StoreConfig
from .embeddings import Embedder
from .errors import ConfigError
from .records import MemoryRecord, Scope
from .stores import MemoryStore

__all__ = [
    "PathSlot",
    "ScopeLocks",
    "SharedStore",
    "StoreIdentity",
    "WriteBus",
    "WriteEvent",
    "path_slot",
    "reusable_embedder",
]


@dataclass(frozen=True)
class WriteEvent:
    """Records of ``scope`` (``None``: every scope) were written or deleted. ``reindex``: a
    whole scope was cleared or records were retired by policy, so indexes kept beside the
    store (the buffer index) must be rebuilt from it. ``inserted``: the records the write
    upserted, when that is all it did (caches may extend what they hold instead of dropping
    it); ``None`` for every other change. ``updated`` / ``deleted``: ids of the records the
    write replaced or changed in place / removed (empty when not known: a scope cleared by
    filter, a change announced from outside). ``fields``: the payload fields an in-place update
    set (``None`` for any other change), so a reader that keeps only some fields (the name
    counts) can tell whether the change touched them."""

    scope: Scope | None
    reindex: bool = False
    inserted: tuple[MemoryRecord, ...] | None = None
    updated: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    fields: frozenset[str] | None = None


WriteListener = Callable[[WriteEvent], None]


class WriteBus:
    """Listeners of write events; every engine on one store publishes to and listens on one bus."""

    def __init__(self) -> None:
        self._listeners: list[WriteListener] = []
        self._lock = threading.Lock()

    def subscribe(self, listener: WriteListener) -> None:
        with self._lock:
            self._listeners.append(listener)

    def unsubscribe(self, listener: WriteListener) -> None:
        """Remove one registration of ``listener`` (nothing if it is not registered)."""
        with self._lock:
            for i, registered in enumerate(self._listeners):
                if registered == listener:
                    del self._listeners[i]
                    return

    def publish(self, event: WriteEvent) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            listener(event)

    def __len__(self) -> int:
        with self._lock:
            return len(self._listeners)


class ScopeLocks:
    """One lock per user/agent (or per session without either), made on first use."""

    def __init__(self) -> None:
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def get(self, scope: Scope) -> threading.Lock:
        key = (scope.user_id or "") + "\x1f" + (scope.agent_id or "")
        if key == "\x1f":
            key = "session\x1f" + (scope.session_id or "")
        with self._guard:
            lock = self._locks.get(key)
            if lock is None:
                lock = self._locks[key] = threading.Lock()
            return lock


@dataclass(frozen=True)
class StoreIdentity:
    """What a second engine on an open path must agree with."""

    embedder_name: str
    dim: int
    store_config: StoreConfig

    def describe(self) -> str:
        settings = ", ".join(f"{k}={v!r}" for k, v in self.store_config.model_dump().items())
        return f"embedder {self.embedder_name!r} ({self.dim} dimensions), StoreConfig({settings})"


@dataclass
class SharedStore:
    """An open store and what every engine on it shares; ``refs`` engines hold it."""

    store: MemoryStore
    identity: StoreIdentity | None = None
    slot: PathSlot | None = None
    bus: WriteBus = field(default_factory=WriteBus)
    locks: ScopeLocks = field(default_factory=ScopeLocks)
    #: embedders resolved from ``embedder=None``, by (model, batch size): reused by later opens
    default_embedders: dict[tuple[str, int], Embedder] = field(default_factory=dict)
    refs: int = 0

    @classmethod
    def private(cls, store: MemoryStore) -> SharedStore:
        """A store nobody else opens through a slot (server, in-memory, or passed in)."""
        return cls(store, refs=1)

    def release(self, *, close_store: bool = True) -> None:
        """Drop one reference; the last one closes the store (when ``close_store``)."""
        slot = self.slot
        if slot is None:
            self.refs -= 1
            if self.refs == 0 and close_store:
                self.store.close()
            return
        with slot.lock:
            self.refs -= 1
            if self.refs > 0:
                return
            slot.shared = None
            self.store.close()


class PathSlot:
    """One embedded path of this process: its lock and, while it is open, its shared store."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.lock = threading.RLock()
        self.shared: SharedStore | None = None

    def acquire(
        self, identity: StoreIdentity, open_store: Callable[[], MemoryStore]
    ) -> tuple[SharedStore, bool]:
        """One more reference to the path's store, opening it if nobody holds it; returns the
        shared store and whether this call opened it. Call it holding :attr:`lock`."""
        shared = self.shared
        if shared is None:
            shared = SharedStore(open_store(), identity, self, refs=1)
            self.shared = shared
            return shared, True
        if shared.identity != identity:
            raise ConfigError(
                f"the memory store at {self.key} is already open in this process with "
                f"{shared.identity.describe() if shared.identity else 'other settings'}; this "
                f"Memory asks for {identity.describe()}. Memory objects on one path share one "
                "store: open it with the same embedder and store settings (or reuse the open "
                "Memory), close the other Memory first, or use another path"
            )
        shared.refs += 1
        return shared, False


_SLOTS: dict[str, PathSlot] = {}
_SLOTS_GUARD = threading.Lock()


def path_key(path: str | os.PathLike[str]) -> str:
    """The identity of an embedded path: absolute, ``~`` expanded, symlinks resolved."""
    return str(Path(path).expanduser().resolve())


def path_slot(path: str | os.PathLike[str]) -> PathSlot:
    """The process's slot for ``path`` (made on first use and kept: one small object per path)."""
    key = path_key(path)
    with _SLOTS_GUARD:
        slot = _SLOTS.get(key)
        if slot is None:
            slot = _SLOTS[key] = PathSlot(key)
        return slot


def open_refs(path: str | os.PathLike[str]) -> int:
    """How many engines of this process hold ``path`` open (0: closed here)."""
    with _SLOTS_GUARD:
        slot = _SLOTS.get(path_key(path))
    if slot is None:
        return 0
    with slot.lock:
        return slot.shared.refs if slot.shared is not None else 0


def reusable_embedder(slot: PathSlot, model: str, batch_size: int) -> Any:
    """The embedder an open store's earlier opener resolved from ``embedder=None``, or None."""
    shared = slot.shared
    return None if shared is None else shared.default_embedders.get((model, batch_size))
