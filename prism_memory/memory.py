"""The ``Memory`` facade: one object for writing, reading and managing an agent's memory.

Design:
- ``Memory`` composes its parts and delegates to them: ``Engine`` (``engine/``: store,
  embedder, sparse encoder, screen, scope locks, write events), ``RecordAPI``
  (``_record_api.py``: add, get, list, update, ...), ``DeleteAPI`` (``_delete_api.py``),
  ``TransferAPI`` (``_transfer.py``: JSONL export/import), ``VersionAPI`` (``_version_api.py``:
  history and restore of a memory's versions), ``WritePath`` (``write/path.py``: remember, the
  four layers, lifecycle) and ``RecallPipeline`` (``retrieval/pipeline.py``: recall and
  search). Every part, and every stage below them, gets the engine; nothing below imports
  this module.
- Signatures once (as httpx's ``get`` -> ``request`` -> ``send(Request)``): a public method
  here is the only place its parameters and its docstring are written. It checks the memory
  is open, validates the scope (:meth:`Memory._call_scope`) and hands the part that ``Scope`` with
  the call's own arguments, or a small frozen request where they are many
  (``RecallRequest``, ``SearchRequest``, ``RecordQuery``, ``RecordEdit``); the parts'
  docstrings say what they do, not what the parameters mean. ``RemoteMemory`` takes its
  methods from these signatures.
- ``Memory(path=p)`` twice in one process shares one open store (reference-counted, see
  ``_shared.py``): same store, write events, scope locks; each ``close()`` drops one
  reference. Another process on ``p`` gets ``StoreLockedError``.
- Async twins are made once, by :func:`_async_twin` (``asyncio.to_thread`` over the sync
  method, with its signature), so logic exists once; ``async with Memory(...)`` closes it.
"""

from __future__ import annotations

import asyncio
import builtins
import functools
import os
import warnings
from collections.abc import Callable, Coroutine, Iterator, Sequence
from datetime import datetime
from typing import Any, Concatenate, ParamSpec, TypeVar, overload

from ._delete_api import DeleteAPI
from ._record_api import RecordAPI, RecordEdit, RecordPage, RecordQuery
from ._transfer import ImportReport, TransferAPI
from ._validation import new_record
from ._version_api import VersionAPI
from .config import PrismConfig, RetrievalConfig
from .embeddings import Embedder
from .engine import Engine
from .errors import ValidationError
from .extraction.schemas import SchemaDecl, SchemaRegistry, SchemaSpec
from .layers.stated import StatedFacts
from .layers.working import TaskChanges, TaskState
from .lifecycle.forget import ForgetCriteria
from .lifecycle.worker import BackgroundWorker
from .record_store import RecordStore
from .records import Entity, Kind, Layer, MemoryRecord, Scope, ScoredRecord, Source, Trust
from .results import DeleteReport, RememberResult
from .retrieval.access import AccessLog
from .retrieval.context import MemoryContext
from .retrieval.intent import Intent, IntentRegistry
from .retrieval.pipeline import RecallPipeline
from .retrieval.request import RecallRequest, SearchRequest
from .sparse import SparseEncoder
from .stores import MemoryStore, RecordFilter
from .versions import MemoryVersion
from .write import WritePath

__all__ = ["ImportReport", "Memory", "RecordPage"]

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _async_twin(
    method: Callable[Concatenate[Memory, _P], _R],
) -> Callable[Concatenate[Memory, _P], Coroutine[Any, Any, _R]]:
    """The async twin of a sync method: the same call on a worker thread (``asyncio.to_thread``),
    with the same signature (``inspect.signature`` follows ``__wrapped__``)."""

    @functools.wraps(method)
    async def twin(self: Memory, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        return await asyncio.to_thread(method, self, *args, **kwargs)

    twin.__doc__ = f"Async :meth:`{method.__name__}`."
    twin.__name__ = twin.__qualname__ = f"a{method.__name__}"
    return twin


class Memory:
    """Long-term memory for an LLM agent.

    Setup:
        >>> from prism_memory import Memory
        >>> m = Memory(path="./.prism")                  # embedded Qdrant Edge (default)  # doctest: +SKIP
        >>> m = Memory(location=":memory:")              # throwaway, qdrant-client local  # doctest: +SKIP
        >>> m = Memory(url="http://qdrant:6333")         # Qdrant server / cluster         # doctest: +SKIP

    Use:
        >>> m.add("I prefer window seats", user_id="alice", kind="preference")  # doctest: +SKIP
        >>> hits = m.search("which seat?", user_id="alice")                     # doctest: +SKIP
        >>> hits[0].record.text, hits[0].routes                                 # doctest: +SKIP
        ('I prefer window seats', ['bm25', 'dense'])

    Every call takes ``user_id`` / ``agent_id`` / ``session_id`` (at least one); the store
    applies them as a filter, so one scope never sees another's memories.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        location: str | None = None,
        url: str | None = None,
        api_key: str | None = None,
        embedder: Any = None,
        llm: Any = None,
        config: PrismConfig | None = None,
        store: MemoryStore | None = None,
        background: bool = False,
        redact_pii: bool | None = None,
    ) -> None:
        self._engine = Engine(
            path,
            location=location,
            url=url,
            api_key=api_key,
            embedder=embedder,
            llm=llm,
            config=config,
            store=store,
            background=background,
            redact_pii=redact_pii,
        )
        try:
            self._records = RecordAPI(self._engine)
            self._deletes = DeleteAPI(self._engine)
            self._transfer = TransferAPI(self._engine)
            self._versions = VersionAPI(self._engine)
            self._writes = WritePath(self._engine)
            self._recall = RecallPipeline(self._engine)
            self._record_store = RecordStore(self._engine)
            self._stated = StatedFacts(self._engine, self._writes.semantic)
            self._writes.on_open()  # finish what an earlier process left undone
        except BaseException:
            # release an engine we opened (the embedded lock); a store passed in stays the caller's
            self._engine.close(release_store=self._engine.owns_store)
            raise

    # -- the parts' state, for adapters and tools -------------------------------------------
    @property
    def config(self) -> PrismConfig:
        return self._engine.config

    @config.setter
    def config(self, value: PrismConfig) -> None:
        self._engine.config = value

    @property
    def llm(self) -> Any:
        return self._engine.llm

    @llm.setter
    def llm(self, value: Any) -> None:
        self._engine.llm = value

    @property
    def store(self) -> MemoryStore:
        return self._engine.store

    @property
    def embedder(self) -> Embedder:
        return self._engine.embedder

    @property
    def cjk_embedder(self) -> Embedder | None:
        """The multilingual embedder of the store's ``dense_cjk`` vectors (texts and queries
        holding CJK characters), or ``None`` when the store has none (docs/multilingual.md)."""
        return self._engine.cjk_embedder

    @property
    def sparse(self) -> SparseEncoder:
        return self._engine.sparse

    @property
    def schemas(self) -> SchemaRegistry:
        return self._writes.schemas

    @property
    def background_errors(self) -> list[str]:
        """Messages of background steps that failed (``Memory(background=True)``)."""
        return self._engine.background_errors

    @property
    def access_log(self) -> AccessLog:
        return self._recall.access_log

    @property
    def intents(self) -> IntentRegistry:
        """The registered intent templates (:meth:`register_intent`)."""
        return self._recall.intents

    #: Build a validated :class:`MemoryRecord` without writing it (no I/O), for
    #: ``record_store.write``; ``help(Memory.build_record)`` documents every argument, e.g.
    #: ``m.build_record("I prefer window seats", Scope.of(user_id="alice"), kind="preference")``
    build_record = staticmethod(new_record)

    def visible_filter(
        self, *, include_history: bool = False, include_quarantined: bool = False
    ) -> RecordFilter:
        """Hard filters of every default read: current records, not quarantined."""
        return self._engine.visible_filter(
            include_history=include_history, include_quarantined=include_quarantined
        )

    def iter_records(
        self, scope: Scope, flt: RecordFilter | None = None, *, page_size: int = 256
    ) -> Iterator[MemoryRecord]:
        """Every record of a scope matching ``flt`` (all pages)."""
        return self._engine.iter_records(scope, flt, page_size=page_size)

    @property
    def record_store(self) -> RecordStore:
        """Whole-record reads and writes in a scope, for integrations (the LangGraph
        ``PrismStore``, services): see :class:`prism_memory.record_store.RecordStore`."""
        return self._record_store

    def _call_scope(
        self, user_id: str | None, agent_id: str | None, session_id: str | None
    ) -> Scope:
        """The validated scope of a call (a closed memory refuses the call first)."""
        self._engine.check_open()
        return Scope.of(user_id, agent_id, session_id)

    def _scope_or_all(
        self, user_id: str | None, agent_id: str | None, session_id: str | None, all_scopes: bool
    ) -> Scope | None:
        """The scope of a call that may instead cover every scope (``all_scopes=True``: None)."""
        if not all_scopes:
            return self._call_scope(user_id, agent_id, session_id)
        self._engine.check_open()
        if any(v is not None for v in (user_id, agent_id, session_id)):
            raise ValidationError("pass either a scope or all_scopes=True, not both")
        return None

    @property
    def _worker(self) -> BackgroundWorker | None:  # the background worker (benches, tests)
        return self._writes.worker

    # -- records ------------------------------------------------------------------------------
    def add(
        self,
        text: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        kind: Kind | str = Kind.FACT,
        layer: Layer | str = Layer.SEMANTIC,
        metadata: dict[str, Any] | None = None,
        event_time: datetime | None = None,
        task_id: str | None = None,
        subgoal_id: str | None = None,
        entities: Sequence[Entity | dict[str, str] | str] | None = None,
        importance: float | None = None,
        source: Source | str = Source.USER,
        source_ids: Sequence[str] | None = None,
    ) -> MemoryRecord:
        """Store one memory as is (no extraction) and return it.

        The id is deterministic, so adding the same text twice in a scope keeps one record
        (its ``created_at`` is kept, metadata merged).

        >>> m = Memory(location=":memory:", embedder=FakeEmbedder())  # doctest: +SKIP
        >>> m.add("I prefer window seats", user_id="alice", kind="preference").kind  # doctest: +SKIP
        <Kind.PREFERENCE: 'preference'>
        """
        scope = self._call_scope(user_id, agent_id, session_id)
        record = self._engine.build_record(
            text,
            scope,
            kind=kind,
            layer=layer,
            metadata=metadata,
            event_time=event_time,
            task_id=task_id,
            subgoal_id=subgoal_id,
            entities=entities,
            importance=importance,
            source=source,
            source_ids=source_ids,
        )
        return self._records.add(record)

    def add_many(
        self,
        items: Sequence[str | dict[str, Any]],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        kind: Kind | str = Kind.FACT,
        layer: Layer | str = Layer.SEMANTIC,
        event_time: datetime | None = None,
        source: Source | str = Source.USER,
    ) -> list[MemoryRecord]:
        """Store many memories with one embedding batch and one upsert.

        Items are strings or dicts with ``text`` plus any keyword of :meth:`add`. The whole
        batch is validated before anything is written: one bad item writes nothing.
        """
        defaults = {"kind": kind, "layer": layer, "event_time": event_time, "source": source}
        return self._records.add_many(
            items, self._call_scope(user_id, agent_id, session_id), defaults
        )

    def get(
        self,
        record_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> MemoryRecord:
        """The record with this id in the scope; :class:`NotFoundError` if there is none."""
        return self._records.get(record_id, self._call_scope(user_id, agent_id, session_id))

    def list(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        layer: Layer | str | None = None,
        kind: Kind | str | None = None,
        limit: int = 100,
        cursor: str | None = None,
        filters: dict[str, Any] | None = None,
        include_history: bool = False,
        trust: Trust | str | None = None,
    ) -> RecordPage:
        """A page of the scope's records; pass ``page.next_cursor`` as ``cursor`` for the next.

        Quarantined records are left out unless asked for: ``trust="quarantined"`` lists them
        (with ``provenance.reason``) for review; ``trust="trusted"`` / ``"untrusted"`` narrow
        the page to that trust level.
        """
        query = RecordQuery(layer, kind, limit, cursor, filters, include_history, trust)
        return self._records.list(self._call_scope(user_id, agent_id, session_id), query)

    def count(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        layer: Layer | str | None = None,
        include_history: bool = True,
    ) -> int:
        """Number of records in the scope (all layers and states unless narrowed)."""
        return self._records.count(
            self._call_scope(user_id, agent_id, session_id), layer, include_history
        )

    def update(
        self,
        record_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        text: str | None = None,
        metadata: dict[str, Any] | None = None,
        importance: float | None = None,
        kind: Kind | str | None = None,
        reason: str | None = None,
    ) -> MemoryRecord:
        """Change a record (same id); a new text is re-embedded. Returns the new record.

        A new text keeps the old one as a version: ``history(record_id)`` lists both (with
        ``reason``), ``restore`` brings it back, ``recall``/``search(as_of=...)`` answer from
        it for a time before the update. The id stays the one derived from the first text; a
        later ``add`` of that first text makes a record of its own and leaves this one alone.
        """
        edit = RecordEdit(text, metadata, importance, kind, reason)
        return self._records.update(
            record_id, self._call_scope(user_id, agent_id, session_id), edit
        )

    @overload
    def history(
        self,
        memory_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        limit: int | None = None,
    ) -> builtins.list[MemoryVersion]: ...

    @overload
    def history(
        self,
        memory_id: None = None,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        limit: int | None = None,
    ) -> builtins.list[MemoryRecord]: ...

    def history(
        self,
        memory_id: str | None = None,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        limit: int | None = None,
    ) -> builtins.list[MemoryVersion] | builtins.list[MemoryRecord]:
        """Every version of a memory, oldest first (the last ``limit`` if given).

        Each :class:`MemoryVersion` has ``event`` (``added``, ``updated``, ``superseded``,
        ``restored``, ``deleted``), ``time``, ``text`` and ``previous_text``, ``source`` and
        ``reason``. The lineage follows every change: a fact superseded by a new value (said
        in any words) and the fact that replaced it share one history.

        >>> r = m.add("Budget: 500 a night", user_id="alice")  # doctest: +SKIP
        >>> m.update(r.id, user_id="alice", text="Budget: 800 a night")  # doctest: +SKIP
        >>> [(v.event, v.text) for v in m.history(r.id, user_id="alice")]  # doctest: +SKIP
        [('added', 'Budget: 500 a night'), ('updated', 'Budget: 800 a night')]

        Deprecated: called without ``memory_id`` it returns the session transcript; that is
        :meth:`session_turns` now (the old call still works and warns).
        """
        if memory_id is None:
            warnings.warn(
                "Memory.history(user_id=..., session_id=...) without a memory id is the session "
                "transcript and is deprecated: call Memory.session_turns(...) for the turns, "
                "Memory.history(memory_id, ...) for a memory's versions",
                DeprecationWarning,
                stacklevel=2,
            )
            return self.session_turns(
                user_id=user_id, agent_id=agent_id, session_id=session_id, limit=limit
            )
        if limit is not None and (
            not isinstance(limit, int) or isinstance(limit, bool) or limit < 1
        ):
            raise ValidationError(f"limit must be a positive integer, got {limit!r}")
        versions = self._versions.history(
            memory_id, self._call_scope(user_id, agent_id, session_id)
        )
        return versions[-limit:] if limit else versions

    async def ahistory(
        self,
        memory_id: str | None = None,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        limit: int | None = None,
    ) -> builtins.list[MemoryVersion] | builtins.list[MemoryRecord]:
        """Async :meth:`history` (without ``memory_id``: deprecated, see :meth:`asession_turns`)."""
        if memory_id is None:
            warnings.warn(
                "Memory.ahistory(user_id=..., session_id=...) without a memory id is deprecated: "
                "call Memory.asession_turns(...) for the session's turns",
                DeprecationWarning,
                stacklevel=2,
            )
            return await self.asession_turns(
                user_id=user_id, agent_id=agent_id, session_id=session_id, limit=limit
            )
        return await asyncio.to_thread(
            self.history,
            memory_id,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            limit=limit,
        )

    def restore(
        self,
        memory_id: str,
        version: int,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        reason: str | None = None,
    ) -> MemoryRecord:
        """Make an earlier version (its number in :meth:`history`) the memory's current state.

        The state it replaces is kept as a version too, and the history gains a ``restored``
        event. Returns the current record.

        >>> m.restore(r.id, 1, user_id="alice", reason="the raise was cancelled")  # doctest: +SKIP
        """
        return self._versions.restore(
            memory_id, version, self._call_scope(user_id, agent_id, session_id), reason
        )

    def release(
        self,
        record_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        note: str | None = None,
    ) -> MemoryRecord:
        """Restore a quarantined record: it is read and recalled again from now on.

        The release is recorded in its provenance (``released_at``, and ``reason`` keeps why it
        had been quarantined, with ``note``). The user's and the application's own words become
        trusted again; tool, web, document and assistant content stays ``untrusted`` (shown as
        data, like any other content from outside).

        >>> page = m.list(user_id="alice", trust="quarantined")  # doctest: +SKIP
        >>> m.release(page[0].id, user_id="alice", note="my own note")  # doctest: +SKIP
        """
        return self._records.release(
            record_id, self._call_scope(user_id, agent_id, session_id), note
        )

    def stats(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        all_scopes: bool = False,
    ) -> dict[str, Any]:
        """Counts per layer / kind / status / trust of a scope, plus what the engine is.

        Only the scope's figures: the engine's point / vector / segment counts cover every
        tenant and are reported by ``stats(all_scopes=True)`` (no scope) under ``store_total``.
        """
        return self._records.stats(self._scope_or_all(user_id, agent_id, session_id, all_scopes))

    # -- deletion -----------------------------------------------------------------------------
    def delete(
        self,
        record_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        purge: bool = False,
    ) -> bool:
        """Delete one record of the scope and every record derived from it. Returns whether
        it existed. The text leaves the store's files with ``purge=True`` (or at the next
        :meth:`purge` / ``delete_all``); without it, it is gone from every read at once but
        stays in the engine's log and pages until then.

        Derived records (their ``provenance.source_ids`` name the deleted record: the fact
        extracted from a turn, a summary of it, what was derived from those) are deleted
        too, across the scope's sessions, even when they have other sources: deleting a
        turn removes what it said from every memory built on it (docs/deletion.md).

        >>> m.delete(turn_id, user_id="alice")  # doctest: +SKIP
        True
        """
        return self._deletes.delete(
            record_id, self._call_scope(user_id, agent_id, session_id), purge
        )

    def purge(self) -> None:
        """Erase from disk what deletions and replacements left there.

        ``delete(id)``, ``delete_by_source(...)`` (both without ``purge=True``) and the
        LangGraph store's deletes hide data from every read at once,
        but the embedded engine keeps the old bytes in its write-ahead log and segment pages
        until they rotate. ``purge()`` rebuilds the store's files so no deleted or replaced
        text remains (cost linear in the store size; journalled, so a crash is finished on
        the next open). ``delete_all`` purges by default. On a Qdrant server its optimizer
        vacuums on its own schedule.

        >>> m.delete(record_id, user_id="alice")  # doctest: +SKIP
        True
        >>> m.purge()  # the deleted text is gone from the files too  # doctest: +SKIP
        """
        self._deletes.purge()

    def delete_all(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        purge: bool = True,
        derived: bool = True,
    ) -> DeleteReport:
        """Delete every record of the scope (all layers, all pages), then purge the engine's files.

        Only the given scope is touched: ``delete_all(user_id="alice")`` never affects ``bob``.
        Everything of the user goes, whatever surface wrote it: turns, extracted facts, what
        the memory tools saved and the ``PrismStore`` items of the user's namespace
        (``("memories", user_id)`` by default). The result is the number of records removed
        (an ``int``) with ``.by_layer`` and ``.by_surface`` counts.

        For a session (``delete_all(user_id="alice", session_id="s1")``) the user's records
        derived from the session's records (facts, summaries) are deleted too, unless
        ``derived=False`` (a chat reset that keeps what was learned: those records then name
        sources that are gone). A refused call (a full disk) deletes nothing and leaves no
        purge journal.

        >>> report = m.delete_all(user_id="alice")  # doctest: +SKIP
        >>> int(report), report.by_surface  # doctest: +SKIP
        (5, {'conversation': 3, 'langgraph_store': 1, 'memory_tools': 1})
        """
        return self._deletes.delete_all(
            self._call_scope(user_id, agent_id, session_id), purge, derived
        )

    def delete_by_source(
        self,
        source: str | Source,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        purge: bool = False,
    ) -> int:
        """Roll back everything one source wrote in the scope; returns how many records went.

        ``source`` is either a source id (a message / tool call / URL id given as ``source_ids``
        when writing, or a record id) or a source kind (``"tool"``, ``"web"``, ...: every record
        with that ``provenance.source``). Records derived from removed records (their
        ``source_ids`` name a removed id) are removed too, in the scope and across its
        sessions. ``purge=True`` also scrubs the engine's files (see :meth:`delete_all`).

        >>> m.add("Wire refunds to IBAN X", user_id="alice", source="web",  # doctest: +SKIP
        ...       source_ids=["https://evil.example/page"])
        >>> m.delete_by_source("https://evil.example/page", user_id="alice")  # doctest: +SKIP
        1
        """
        return self._deletes.delete_by_source(
            source, self._call_scope(user_id, agent_id, session_id), purge
        )

    # -- export / import ----------------------------------------------------------------------
    def export_jsonl(
        self,
        path: str | os.PathLike[str],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        all_scopes: bool = False,
        vectors: bool = True,
    ) -> int:
        """Write records (one JSON object a line) and return how many.

        Exports one scope, or every tenant with ``all_scopes=True`` (an admin operation).
        ``vectors=True`` adds each record's dense vector (``"_embedding"``), which an import
        with the same embedding model reuses instead of embedding every text again.
        """
        scope = self._scope_or_all(user_id, agent_id, session_id, all_scopes)
        return self._transfer.export_jsonl(path, scope, vectors)

    def import_jsonl(
        self,
        path: str | os.PathLike[str],
        *,
        skip_bad: bool = False,
        batch_size: int = 64,
        progress: Callable[[int], None] | None = None,
        reembed: bool = False,
    ) -> ImportReport:
        """Read an export and write its records with their ids and scopes.

        Every line is validated first. A bad line raises :class:`ImportDataError` naming its
        line number and nothing is imported — unless ``skip_bad=True``, which skips bad lines
        (listed in the report) and imports the rest. Vectors exported by the same embedding
        model are reused unless ``reembed=True`` (or PII redaction is on: a redacted text
        needs its own vector); other records are embedded. ``progress(n)`` is called after
        each batch of ``batch_size`` records is written.
        """
        return self._transfer.import_jsonl(path, skip_bad, batch_size, progress, reembed)

    # -- write path: remember, layers, lifecycle ----------------------------------------------
    def remember(
        self,
        messages: Any,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        task_id: str | None = None,
        subgoal_id: str | None = None,
        event_time: datetime | str | float | None = None,
    ) -> RememberResult:
        """Remember a conversation turn (or several): buffer them, extract facts, reconcile.

        ``messages``: a string, a list of ``{"role", "content"[, "name", "timestamp", "id"]}``
        dicts, or LangChain messages. A message's ``id`` is kept in the ``source_ids`` of every
        record made from it, and a message id seen before in the session is skipped (retries
        are safe). Without ``session_id`` the turns go to the session ``"default"``.

        >>> m = Memory(location=":memory:", embedder=FakeEmbedder())  # doctest: +SKIP
        >>> m.remember("My budget is 500 a night", user_id="alice", session_id="s1")  # doctest: +SKIP
        RememberResult(added=2, updated=0, superseded=0, skipped=0)
        """
        scope = self._call_scope(user_id, agent_id, session_id)
        return self._writes.remember(messages, scope, task_id, subgoal_id, event_time)

    def remember_fact(
        self,
        text: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        kind: Kind | str = Kind.FACT,
        source: Source | str = Source.ASSISTANT,
        source_ids: Sequence[str] = (),
        surface: str | None = None,
    ) -> RememberResult:
        """Remember a fact stated outright (by a memory tool, LangMem, the application) the way
        extracted facts are remembered: the rule extractor reads it, and what it finds is
        merged with, or supersedes, what the scope already holds per field policy; text no
        schema recognises is kept as a fact unless the scope already says the same thing
        (then that record is kept and reported in ``skipped``). ``source_ids`` name the
        messages it came from (recall then shows the message or the fact, not both);
        ``surface`` is recorded for ``delete_all``'s report.

        >>> res = m.remember_fact("User is vegan", user_id="alice", source_ids=["msg-1"])  # doctest: +SKIP
        >>> res.added[0].record.layer  # doctest: +SKIP
        <Layer.SEMANTIC: 'semantic'>
        """
        return self._stated.remember_fact(
            text,
            self._call_scope(user_id, agent_id, session_id),
            kind=kind,
            source=source,
            source_ids=source_ids,
            surface=surface,
        )

    def buffer(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> builtins.list[MemoryRecord]:
        """The session's buffered (recent, raw) turns, oldest first."""
        return self._writes.buffer(self._call_scope(user_id, agent_id, session_id))

    def session_turns(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        limit: int | None = None,
    ) -> builtins.list[MemoryRecord]:
        """Every turn of the session (buffered and episodic), in order; the last ``limit`` if given.

        (Named ``history()`` up to 0.1.0; that name now means a memory's versions.)
        """
        return self._writes.session_turns(self._call_scope(user_id, agent_id, session_id), limit)

    def flush_buffer(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> RememberResult:
        """Move every buffered turn of the session to the episodic layer now."""
        return self._writes.flush_buffer(self._call_scope(user_id, agent_id, session_id))

    def end_session(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        consolidate: bool | None = None,
    ) -> RememberResult:
        """Flush the session's buffer to episodic memory and (by policy) consolidate the scope."""
        return self._writes.end_session(
            self._call_scope(user_id, agent_id, session_id), consolidate
        )

    def task(
        self,
        task_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        goal: str | None = None,
        status: str | None = None,
        subgoal_id: str | None = None,
        subgoal_status: str | None = None,
        entities: Sequence[str] | str | None = None,
        constraints: Sequence[str] | str | None = None,
        decisions: Sequence[str] | str | None = None,
        notes: Sequence[str] | str | None = None,
        parent_task_id: str | None = None,
    ) -> TaskState:
        """Read (no changes given) or update a task's working state; returns the state.

        A task whose status becomes ``done`` / ``failed`` / ``cancelled`` is summarised into an
        episodic ``summary`` record and removed from working memory.
        """
        scope = self._call_scope(user_id, agent_id, session_id)
        changes = TaskChanges(
            goal=goal,
            status=status,
            subgoal_id=subgoal_id,
            subgoal_status=subgoal_status,
            entities=entities,
            constraints=constraints,
            decisions=decisions,
            notes=notes,
            parent_task_id=parent_task_id,
        )
        return self._writes.task(task_id, scope, changes)

    def register_schema(
        self,
        model: Any,
        *,
        key: Sequence[str] | None = None,
        policies: dict[str, str] | None = None,
        kind: Kind | str = Kind.FACT,
        name: str | None = None,
        render: Callable[[dict[str, Any]], str] | None = None,
        extract: Callable[[str, dict[str, Any]], Sequence[dict[str, Any]]] | None = None,
    ) -> SchemaSpec:
        """Declare a schema facts can be written into (SCG).

        ``key``: fields that identify the same thing (records with an equal key are merged);
        ``policies``: ``{field: "first_write" | "latest_wins" | "max_confidence" | "accumulate"
        | "weighted"}`` (lists default to ``accumulate``, other fields to ``latest_wins``);
        ``extract(text, context) -> [field dicts]``: an optional rule for this schema, run on
        every user turn (the LLM extractor, when given, fills every registered schema).
        """
        decl = SchemaDecl(
            model=model,
            key=key,
            policies=policies,
            kind=kind,
            name=name,
            render=render,
            extract=extract,
        )
        return self._writes.schemas.declare(decl)

    def consolidate(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        reflect: bool | None = None,
    ) -> RememberResult:
        """Distil clusters of episodic turns into ``summary`` records (and, with an LLM and
        ``reflect=True``, ``reflection`` records) in semantic memory. Idempotent."""
        return self._writes.consolidate(self._call_scope(user_id, agent_id, session_id), reflect)

    def forget(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        older_than: datetime | float | str | None = None,
        below_utility: float | None = None,
        layer: Layer | str | None = None,
        mode: str = "archive",
        include_history: bool = True,
    ) -> int:
        """Archive (default) or delete (``mode="delete"``) records by policy; returns how many.

        ``older_than``: a datetime, or an age in days; ``below_utility``: decayed utility under
        this value; ``layer``: only this layer. At least one criterion is required.
        """
        scope = self._call_scope(user_id, agent_id, session_id)
        criteria = ForgetCriteria(
            older_than=older_than,
            below_utility=below_utility,
            layer=layer,
            mode=mode,
            include_history=include_history,
        )
        return self._writes.forget(scope, criteria)

    def touch(
        self,
        records: Sequence[str | MemoryRecord],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        now: datetime | None = None,
    ) -> int:
        """Record an access (``last_accessed``, ``access_count``) for decay; returns how many.

        The read path calls this with the records it returned (``m.touch(ctx.records, ...)``):
        payload updates only, no re-embedding, no read when records (not ids) are given, and
        one ``set_payload`` per distinct new count — typically one store call per recall.
        Like recall, it covers all sessions of the user/agent; records and ids outside that
        scope are ignored.
        """
        return self._writes.touch(records, self._call_scope(user_id, agent_id, session_id), now)

    def resume_extraction(self) -> int:
        """Extract the facts of user turns whose extraction never ran (the process died after
        ``remember`` returned and before the LLM pass); returns how many turns were found.

        Runs when the embedded store is opened; on a Qdrant server shared by several
        processes call it from one of them. With an LLM the pass runs as ``remember`` would
        (on the worker with ``background=True``), without one the rules extract them.
        """
        return self._writes.resume_extraction()

    # -- recall pipeline ----------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        limit: int = 10,
        filters: dict[str, Any] | None = None,
        include_history: bool = False,
        score_threshold: float | None = None,
        as_of: datetime | None = None,
    ) -> builtins.list[ScoredRecord]:
        """Hybrid search (dense + BM25, RRF) within the scope; best-ranked first.

        Each hit carries ``score``, its relevance in [0, 1] (the cosine similarity of the
        query and the record's vector, clipped to [0, 1], whichever route found it),
        ``rank_score`` (the RRF value the hits are ordered by) and ``routes`` (which of
        ``dense`` / ``bm25`` found it). ``score_threshold`` (in [0, 1]) drops hits whose
        ``score`` is below it. Superseded and quarantined records are left out unless
        ``include_history=True``. ``as_of`` (a datetime, naive = UTC) searches what was
        valid then: a value superseded since is found, one that came later is not.

        >>> m.search("hotel budget", user_id="alice", as_of=datetime(2026, 4, 1))  # doctest: +SKIP
        """
        scope = self._call_scope(user_id, agent_id, session_id)
        req = SearchRequest(
            query=query,
            scope=scope,
            limit=limit,
            filters=filters,
            include_history=include_history,
            score_threshold=score_threshold,
            as_of=as_of,
        )
        return self._recall.search(req)

    def recall(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        intent: Intent | None = None,
        budget_tokens: int = 1000,
        config: RetrievalConfig | None = None,
        now: datetime | None = None,
        as_of: datetime | None = None,
        thread_session: str | None = None,
        thread_texts: Sequence[str] = (),
    ) -> MemoryContext:
        """Build a token-budgeted context of the memories that serve ``query``.

        Long-term layers are searched across every session of the user/agent; the buffer of
        ``session_id`` (if given) fills the "recent turns" section. ``ctx.tokens`` never
        exceeds ``budget_tokens``; ``ctx.trace`` explains every candidate kept or cut.
        ``now``: the time the recall is made at (default: the current time; naive = UTC).
        ``as_of``: answer from what was valid at that time (superseded values that held then,
        nothing learnt later); ``now`` defaults to it.

        What the prompt already shows is left out before anything is ranked or packed, so it
        neither takes budget nor sets the relevance floor: the turns of ``thread_session``
        (a conversation whose messages are all in the prompt, e.g. a checkpointed LangGraph
        thread) and any record whose text is one of ``thread_texts`` (the messages in the
        prompt). This is the one rule every adapter uses (``MemoryContext.without`` applies
        it to a context after the fact).

        >>> ctx = m.recall("what should I cook?", user_id="carol",             # doctest: +SKIP
        ...                thread_session="t3", thread_texts=["What should I cook?"])
        """
        scope = self._call_scope(user_id, agent_id, session_id)
        req = RecallRequest(
            query=query,
            scope=scope,
            intent=intent,
            budget_tokens=budget_tokens,
            config=config,
            now=now,
            as_of=as_of,
            thread_session=thread_session,
            thread_texts=thread_texts,
        )
        return self._recall.recall(req)

    def feedback(
        self,
        record_ids: Sequence[str],
        success: bool = True,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> dict[str, float]:
        """Tell PRISM whether the recalled records helped; returns ``{id: new utility}``.

        Utility moves toward 1 on success and 0 on failure by a step that shrinks with each
        feedback (bounded in [0, 1]); recall's score uses it. Ids not in the scope are ignored.
        """
        return self._recall.feedback(
            record_ids, success, self._call_scope(user_id, agent_id, session_id)
        )

    def register_intent(self, name: str, **fields: Any) -> None:
        """Register a PRISM intent template for an agent step.

        ``fields`` are :class:`Intent` fields (``kinds``, ``layers``, ``entities``,
        ``weights``, ``task_id``, ``strictness``, ...). ``recall(intent=Intent(step=name))``
        then starts from it; what the caller's intent states wins.
        """
        return self._recall.register_intent(name, **fields)

    def flush_access(self) -> int:
        """Write the pending access statistics of past recalls now; returns records updated."""
        return self._recall.flush_access()

    # -- durability and closing -------------------------------------------------------------
    def flush(self, timeout: float | None = None) -> None:
        """Wait for background steps (extraction, consolidation), then make writes durable."""
        self._writes.join(timeout)
        self._engine.flush()

    def close(self) -> None:
        """Write pending access statistics, stop the background worker, then release the store:
        the last ``Memory`` of this process on an embedded path flushes and closes it (the
        path can then be opened by another process); the others keep working."""
        if self._engine.closed:
            return
        self._recall.close()
        self._writes.close()
        self._engine.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> Memory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self.close)

    def __del__(self) -> None:  # best effort: release the embedded lock on GC
        try:
            engine = self.__dict__.get("_engine")
            if engine is not None and not engine.closed:
                self.close()
        except Exception:
            pass

    # -- async twins (one wrapper, the sync signature) -----------------------------------------
    aadd = _async_twin(add)
    aadd_many = _async_twin(add_many)
    aget = _async_twin(get)
    alist = _async_twin(list)
    acount = _async_twin(count)
    aupdate = _async_twin(update)
    arelease = _async_twin(release)
    astats = _async_twin(stats)
    adelete = _async_twin(delete)
    adelete_all = _async_twin(delete_all)
    adelete_by_source = _async_twin(delete_by_source)
    apurge = _async_twin(purge)
    aexport_jsonl = _async_twin(export_jsonl)
    aimport_jsonl = _async_twin(import_jsonl)
    aremember = _async_twin(remember)
    aremember_fact = _async_twin(remember_fact)
    abuffer = _async_twin(buffer)
    asession_turns = _async_twin(session_turns)
    arestore = _async_twin(restore)
    aflush_buffer = _async_twin(flush_buffer)
    aend_session = _async_twin(end_session)
    atask = _async_twin(task)
    aregister_schema = _async_twin(register_schema)
    aconsolidate = _async_twin(consolidate)
    aforget = _async_twin(forget)
    atouch = _async_twin(touch)
    aresume_extraction = _async_twin(resume_extraction)
    asearch = _async_twin(search)
    arecall = _async_twin(recall)
    afeedback = _async_twin(feedback)
    aregister_intent = _async_twin(register_intent)  # type: ignore[arg-type]  # **fields
    aflush_access = _async_twin(flush_access)
    aflush = _async_twin(flush)
    aclose = _async_twin(close)
