"""``MemoryCore``: engine selection, scope checks, embedding, and the record-level API.

Design:
- ``Memory`` = ``MemoryCore`` (this file: add/search/get/list/update)
  + ``DeleteAPI`` (``_delete_api.py``: delete, delete_all, delete_by_source)
  + ``TransferAPI`` (``_transfer.py``: export/import JSONL)
  + ``WriteAPI`` (``_write_api.py``: remember, layers, lifecycle)
  + ``ReadAPI`` (``_read_api.py``: intent-aware recall, feedback). Each part extends
  ``_setup()`` for its own state; only this class has ``__init__``.
- Every public method takes ``user_id`` / ``agent_id`` / ``session_id`` and validates them into
  a :class:`Scope` first; stores apply the scope as a filter themselves.
- Writes go through ``_write_records``: PII redaction (when on), safety screen, embed (dense +
  BM25, one batch), upsert, notify listeners (the recall cache invalidates on any write in the
  scope).
- Check-and-write sequences take ``scope_lock(scope)`` so concurrent writers in one scope
  cannot both miss an existing record.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from ._validation import check_json_dict, check_record, check_text, coerce_enum, new_record
from .config import PrismConfig
from .embeddings import Embedder, resolve_embedder
from .errors import (
    ConfigError,
    EmbeddingDimensionError,
    NotFoundError,
    PrismError,
    StoreError,
    ValidationError,
)
from .records import (
    Entity,
    Kind,
    Layer,
    MemoryRecord,
    Scope,
    ScoredRecord,
    Source,
    Status,
    Trust,
    is_record_id,
    next_content_id,
    normalize_text,
    utcnow,
)
from .sparse import SparseEncoder
from .stores import EdgeStore, MemoryStore, PointData, QdrantStore, RecordFilter, parse_filters
from .stores.filters import Condition

__all__ = ["MemoryCore", "RecordPage"]

log = logging.getLogger("prism_memory")


_ROLE_NAMES = frozenset({"user", "assistant", "system", "tool"})
_CHAIN_PROBE = 4
_MAX_CHAIN_ROUNDS = 16


def _chain(first: str, n: int) -> list[str]:
    """``first`` and the next ``n - 1`` ids of its content-id chain."""
    out = [first]
    while len(out) < n:
        out.append(next_content_id(out[-1]))
    return out


class RecordPage(list[MemoryRecord]):
    """A page of records (a plain list) plus ``next_cursor`` for the following page (``None`` at the end)."""

    def __init__(
        self, records: Iterable[MemoryRecord] = (), next_cursor: str | None = None
    ) -> None:
        super().__init__(records)
        self.next_cursor = next_cursor


def embedding_text(record: MemoryRecord) -> str:
    """What the dense and BM25 vectors of a record are computed from: the text, after its speaker.

    A turn's words rarely name who said them, but questions about it do ("what did Priya
    research?"); embedding ``"Priya: I researched solar installers"`` lets the vector
    carry both (on LoCoMo this doubles dense recall@5). The shown text is unchanged.
    """
    return f"{record.speaker}: {record.text}" if record.speaker else record.text


class MemoryCore:
    """Engine, embedder and the record-level API. Use :class:`prism_memory.Memory`."""

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
        self.config = config or PrismConfig()
        if redact_pii is not None:
            self.config.safety.redact_pii = redact_pii
        if self.config.safety.screen == "strict":
            import importlib.util

            if importlib.util.find_spec("prism_screen") is None:
                from .safety._transformer import INSTALL

                raise ConfigError(
                    f"SafetyConfig(screen='strict') needs the screen's transformer: {INSTALL}; "
                    "or use screen='default'"
                )
        if sum(x is not None for x in (path, location, url, store)) > 1:
            raise ConfigError("pass only one of path=, location=, url= or store=")
        self.llm = llm
        self.background = background
        self.embedder: Embedder = resolve_embedder(
            embedder, self.config.embedding_model, self.config.embedding_batch_size
        )
        self.sparse = SparseEncoder()
        self._scope_locks: dict[str, threading.Lock] = {}
        self._scope_locks_guard = threading.Lock()
        self._write_listeners: list[Callable[[Scope | None], None]] = []
        self._closed = True  # until the store is open: __del__ must not close what we lack
        dim = self.embedder.dim
        if store is not None:
            if store.dim != dim:
                raise EmbeddingDimensionError(
                    f"the store holds {store.dim}-dimensional vectors but the embedder makes "
                    f"{dim}-dimensional ones; pass the embedder the store was created with"
                )
            self.store: MemoryStore = store
        elif url is not None:
            self.store = QdrantStore(
                url=url,
                api_key=api_key,
                dim=dim,
                collection=self.config.store.collection,
                timeout_s=self.config.store.timeout_s,
                embedder_name=self.embedder.name,
            )
        elif location is not None:
            if location != ":memory:":
                raise ConfigError(
                    f"location={location!r}: only ':memory:' is supported; use path= for an "
                    "embedded store on disk or url= for a Qdrant server"
                )
            self.store = QdrantStore(
                location=":memory:",
                dim=dim,
                collection=self.config.store.collection,
                embedder_name=self.embedder.name,
            )
        else:
            self.store = EdgeStore(
                path if path is not None else PrismConfig.default_path(),
                dim=dim,
                embedder_name=self.embedder.name,
                optimize_after=self.config.store.optimize_after,
                hnsw_m=self.config.store.hnsw_m,
                hnsw_ef_construct=self.config.store.hnsw_ef_construct,
                min_free_mb=self.config.store.min_free_mb,
            )
        self._closed = False
        try:
            self._setup()
            self._on_open()
        except BaseException:
            # release an engine we opened (the embedded lock); a store passed in stays the caller's
            self._closed = True
            if store is None:
                self.store.close()
            raise

    # -- extension points ---------------------------------------------------------------
    def _setup(self) -> None:
        """Subclasses (write / read APIs) initialise their state here; call ``super()._setup()``."""

    def _on_open(self) -> None:
        """Run once every part is set up: finish work an earlier process left undone."""

    def on_write(self, listener: Callable[[Scope | None], None]) -> None:
        """Register ``listener(scope)``, called after every write (``None`` = every scope)."""
        self._write_listeners.append(listener)

    def _notify_write(self, scope: Scope | None) -> None:
        for listener in self._write_listeners:
            listener(scope)

    def scope_lock(self, scope: Scope) -> threading.Lock:
        """The lock that makes check-and-write atomic within one scope (shared per user/agent)."""
        key = (scope.user_id or "") + "\x1f" + (scope.agent_id or "")
        if key == "\x1f":
            key = "session\x1f" + (scope.session_id or "")
        with self._scope_locks_guard:
            lock = self._scope_locks.get(key)
            if lock is None:
                lock = self._scope_locks[key] = threading.Lock()
            return lock

    # -- helpers ------------------------------------------------------------------------
    @staticmethod
    def _scope(user_id: str | None, agent_id: str | None, session_id: str | None) -> Scope:
        return Scope.of(user_id, agent_id, session_id)

    def _check_open(self) -> None:
        if self._closed:
            raise PrismError("this Memory is closed; create a new Memory(...) to keep using it")

    @staticmethod
    def visible_filter(
        *, include_history: bool = False, include_quarantined: bool = False
    ) -> RecordFilter:
        """Hard filters of every default read: current records, not quarantined."""
        flt = RecordFilter()
        if not include_history:
            flt.must.append(Condition("status", "eq", Status.ACTIVE.value))
        if not include_quarantined:
            flt.must_not.append(Condition("trust", "eq", Trust.QUARANTINED.value))
        return flt

    def _redact(self, records: Sequence[MemoryRecord], keep_metadata: Collection[str] = ()) -> None:
        """With ``config.safety.redact_pii``: identifiers in every content field of the records
        (text, fields, speaker, entity names, metadata values but ``keep_metadata``) become
        placeholders, in place (:func:`~prism_memory.safety.redact_record`). Every write
        passes here (:meth:`_write_records`); paths that derive something from a text before
        writing (``remember``, ``add``) redact first."""
        if not self.config.safety.redact_pii:
            return
        from .safety import redact_record

        for record in records:
            redact_record(record, keep_metadata=keep_metadata)

    def _screen(
        self, records: list[MemoryRecord], keep_metadata: Collection[str] = ()
    ) -> list[MemoryRecord]:
        """Safety stage run on records from outside before anything is derived from them.

        With ``config.safety.redact_pii`` identifiers in every content field become
        placeholders (:meth:`_redact`; a content-derived id is re-derived from the redacted
        text, so the id is no hash of the identifier). The poisoning screen then reads every
        record (its text,
        and its speaker name when it has one) by its source (``SafetyConfig.screen``; one batch for the whole call): instruction-like records
        are marked ``trust=quarantined`` with a reason, kept for audit and review
        (``list(trust="quarantined")``, ``release``), never returned by default reads.
        Derived records (``source="derived"``) are not screened: their sources were.
        Quarantine only escalates; an already quarantined record stays quarantined.
        """
        from .safety.judge import is_borderline, judge_with_llm
        from .safety.poisoning import screen_batch

        cfg = self.config.safety
        self._redact(records, keep_metadata)
        todo = [
            r
            for r in records
            if r.provenance.trust != Trust.QUARANTINED and r.provenance.source != Source.DERIVED
        ]
        if not todo or cfg.screen == "off":
            return records
        items = [(r.text, r.provenance.source.value) for r in todo]
        # a speaker name is shown with the text: screened as the source's words too
        named = [
            i
            for i, r in enumerate(todo)
            if r.speaker and r.speaker.strip().casefold() not in _ROLE_NAMES
        ]
        items += [(str(todo[i].speaker), todo[i].provenance.source.value) for i in named]
        verdicts = screen_batch(
            items,
            mode=cfg.screen,
            user=cfg.quarantine_threshold_user,
            external=cfg.quarantine_threshold_external,
        )
        text_verdicts = verdicts[: len(todo)]
        for i, speaker_verdict in zip(named, verdicts[len(todo) :]):
            if speaker_verdict.quarantined and not text_verdicts[i].quarantined:
                text_verdicts[i] = replace(
                    speaker_verdict, reason=f"speaker name: {speaker_verdict.reason}"
                )
        for record, verdict in zip(todo, text_verdicts):
            if cfg.llm_judge and self.llm is not None and is_borderline(verdict):
                source = record.provenance.source.value
                judged = judge_with_llm(self.llm, record.text, source, cfg.llm_judge_timeout_s)
                if judged is not None and judged.attack:
                    verdict = replace(
                        verdict,
                        quarantined=True,
                        reason=f"instruction-like content from {source} (LLM judge: "
                        f"{judged.reason or 'attack'}; signals: {', '.join(verdict.signals)})",
                    )
            if verdict.quarantined:
                record.provenance.trust = Trust.QUARANTINED
                record.provenance.reason = verdict.reason
                # ids and reasons only: memory text reaches the logs at DEBUG level at most
                log.info("quarantined memory %s: %s", record.id, verdict.reason)
                log.debug("quarantined text of %s: %r", record.id, record.text)
        return records

    def embed_records(
        self,
        records: Sequence[MemoryRecord],
        *,
        dense: Mapping[str, list[float]] | None = None,
        same_vector_as: Mapping[str, str] | None = None,
    ) -> list[PointData]:
        """Dense + sparse vectors for records, one embedding batch.

        ``dense``: dense vectors already known, by record id (not embedded again);
        ``same_vector_as``: record id -> id of another record of the batch whose dense vector
        it shares (an extracted event and its turn), so each text is embedded once.
        """
        known = dict(dense or {})
        share = {k: v for k, v in (same_vector_as or {}).items() if k not in known}
        batch_ids = {r.id for r in records}
        todo = [r for r in records if r.id not in known and share.get(r.id) not in batch_ids]
        for r, vec in zip(todo, self.embedder.embed_documents([embedding_text(r) for r in todo])):
            known[r.id] = vec
        vectors = [known.get(r.id) or known[share[r.id]] for r in records]
        sparse = self.sparse.documents([embedding_text(r) for r in records])
        return [PointData(r, d, s) for r, d, s in zip(records, vectors, sparse)]

    def _write_records(
        self,
        records: list[MemoryRecord],
        *,
        dense: Mapping[str, list[float]] | None = None,
        same_vector_as: Mapping[str, str] | None = None,
        screen: bool = True,
        keep_metadata: Collection[str] = (),
    ) -> list[MemoryRecord]:
        """Redact, screen, embed and upsert records; notify listeners. Returns what was written.

        ``dense`` / ``same_vector_as``: see :meth:`embed_records` (vectors reused, not recomputed).
        ``screen=False``: the records are internal (registries, task state) or were screened
        already (:meth:`_screen`), and are not screened again. PII redaction (when on) runs on
        every record either way; ``keep_metadata`` names top-level metadata keys that are
        addresses, not content (a LangGraph item's namespace and key), and are kept as given.
        """
        self._check_open()
        if not records:
            return []
        for record in records:  # nothing is written unless every record can be stored as is
            check_record(record)
        if screen:
            records = self._screen(records, keep_metadata)
        else:
            self._redact(records, keep_metadata)
        self.store.upsert(self.embed_records(records, dense=dense, same_vector_as=same_vector_as))
        for scope in {r.scope.key(): r.scope for r in records}.values():
            self._notify_write(scope)
        return records

    #: Validate arguments into a :class:`MemoryRecord` (no I/O); see
    #: :func:`prism_memory._validation.new_record` for the arguments.
    build_record = staticmethod(new_record)

    # -- record-level API ---------------------------------------------------------------
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
        self._check_open()
        scope = self._scope(user_id, agent_id, session_id)
        record = self.build_record(
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
        with self.scope_lock(scope):
            self._merge_existing([record], scope)
            return self._write_records([record])[0]

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
        self._check_open()
        scope = self._scope(user_id, agent_id, session_id)
        if not isinstance(items, (list, tuple)):
            raise ValidationError(
                f"items must be a list of strings or dicts, got {type(items).__name__}"
            )
        allowed = {
            "text",
            "kind",
            "layer",
            "metadata",
            "event_time",
            "task_id",
            "subgoal_id",
            "entities",
            "importance",
            "source",
            "source_ids",
        }
        records: list[MemoryRecord] = []
        for i, item in enumerate(items):
            spec: dict[str, Any]
            if isinstance(item, str):
                spec = {"text": item}
            elif isinstance(item, dict):
                spec = dict(item)
                unknown = set(spec) - allowed
                if unknown:
                    raise ValidationError(
                        f"item {i}: unknown keys {sorted(unknown)}; allowed: {sorted(allowed)}"
                    )
            else:
                raise ValidationError(
                    f"item {i} must be a string or a dict, got {type(item).__name__}"
                )
            try:
                text = spec.pop("text")
            except KeyError:
                raise ValidationError(f"item {i} has no 'text'") from None
            spec.setdefault("kind", kind)
            spec.setdefault("layer", layer)
            spec.setdefault("event_time", event_time)
            spec.setdefault("source", source)
            try:
                records.append(self.build_record(text, scope, **spec))
            except ValidationError as exc:
                raise ValidationError(f"item {i}: {exc}") from None
        # one record per id: the last spelling of a repeated text wins, as a re-add would
        by_id = {r.id: r for r in records}
        order = [r.id for r in records]
        unique = list(by_id.values())
        with self.scope_lock(scope):
            self._merge_existing(unique, scope)  # may move a record to another id
            self._write_records(unique)
        return [by_id[i] for i in order]

    def _merge_existing(self, records: list[MemoryRecord], scope: Scope) -> None:
        """Keep ``created_at``/stats of records that already exist (re-adds are upserts).

        A record's id is derived from its text, but ``update(text=...)`` keeps the id, and a
        summary, task or keyed record may sit at an id some text hashes to: a record found at
        the id with *another* text is never overwritten. The new record takes the next id of
        its chain (:func:`~prism_memory.records.next_content_id`) instead; the chain is probed
        a few ids at a time, so an add finds the record of its text even past a deleted one.
        """
        self._redact(records)  # the id is derived from the redacted text: look that one up
        pending = list(records)
        for _ in range(_MAX_CHAIN_ROUNDS):
            chains = {r.id: _chain(r.id, _CHAIN_PROBE) for r in pending}
            found = {
                x.id: x for x in self.store.get([i for c in chains.values() for i in c], scope)
            }
            left: list[MemoryRecord] = []
            for r in pending:
                chain = chains[r.id]
                text = normalize_text(r.text)
                same = [i for i in chain if i in found and normalize_text(found[i].text) == text]
                free = [i for i in chain if i not in found]
                if same:
                    r.id = same[0]
                    old = found[same[0]]
                    r.created_at = old.created_at
                    r.access_count = old.access_count
                    r.last_accessed = old.last_accessed
                    r.utility = old.utility
                    r.metadata = {**old.metadata, **r.metadata}
                elif free:
                    r.id = free[0]
                else:
                    r.id = next_content_id(chain[-1])
                    left.append(r)
            pending = left
            if not pending:
                return
        raise StoreError(
            f"{len(pending)} memories found no free id after {_MAX_CHAIN_ROUNDS * _CHAIN_PROBE} "
            "records with other texts at their ids; this only happens when many updated "
            "records share an original text: delete some of them and add again"
        )

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
    ) -> list[ScoredRecord]:
        """Hybrid search (dense + BM25, RRF) within the scope; best first.

        Each hit carries ``score`` and ``routes`` (which of ``dense`` / ``bm25`` found it).
        Superseded and quarantined records are left out unless ``include_history=True``.
        """
        self._check_open()
        scope = self._scope(user_id, agent_id, session_id)
        check_text(query, "query")
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1 or limit > 1000:
            raise ValidationError(f"limit must be an integer in [1, 1000], got {limit!r}")
        flt = self.visible_filter(include_history=include_history) & parse_filters(filters)
        return self.store.hybrid_query(
            scope,
            self.embedder.embed_query(query),
            self.sparse.query(query),
            flt,
            limit=limit,
            prefetch_limit=max(limit * 4, 32),
            rrf_k=self.config.retrieval.rrf_k,
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
        self._check_open()
        scope = self._scope(user_id, agent_id, session_id)
        found = self.store.get([str(record_id)], scope)
        if not found:
            raise NotFoundError(
                f"no memory {record_id!r} in scope {scope.as_dict()}; list(...) shows the ids there"
            )
        return found[0]

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
        self._check_open()
        scope = self._scope(user_id, agent_id, session_id)
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1 or limit > 10_000:
            raise ValidationError(f"limit must be an integer in [1, 10000], got {limit!r}")
        level = None if trust is None else coerce_enum(Trust, trust, "trust")
        flt = self.visible_filter(
            include_history=include_history, include_quarantined=level == Trust.QUARANTINED
        ) & parse_filters(filters)
        if level is not None:
            flt = flt & RecordFilter.eq("trust", level.value)
        if layer is not None:
            flt = flt & RecordFilter.eq("layer", coerce_enum(Layer, layer, "layer").value)
        if kind is not None:
            flt = flt & RecordFilter.eq("kind", coerce_enum(Kind, kind, "kind").value)
        if cursor is not None and not is_record_id(cursor):
            raise ValidationError(
                f"cursor {cursor!r} is not a cursor from list(); pass page.next_cursor of the "
                "previous page, or None for the first page"
            )
        records, nxt = self.store.scroll(scope, flt, limit=limit, cursor=cursor)
        return RecordPage(records, nxt)

    def iter_records(
        self, scope: Scope, flt: RecordFilter | None = None, *, page_size: int = 256
    ) -> Iterator[MemoryRecord]:
        """Every record of a scope matching ``flt`` (all pages)."""
        cursor: str | None = None
        while True:
            records, cursor = self.store.scroll(scope, flt, limit=page_size, cursor=cursor)
            yield from records
            if cursor is None:
                return

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
        self._check_open()
        scope = self._scope(user_id, agent_id, session_id)
        flt = self.visible_filter(include_history=include_history, include_quarantined=True)
        if layer is not None:
            flt = flt & RecordFilter.eq("layer", coerce_enum(Layer, layer, "layer").value)
        return self.store.count(scope, flt)

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
    ) -> MemoryRecord:
        """Change a record in place (same id); a new text is re-embedded. Returns the new record.

        The id stays the one derived from the first text; a later ``add`` of that first text
        makes a record of its own and leaves this one alone.
        """
        self._check_open()
        scope = self._scope(user_id, agent_id, session_id)
        with self.scope_lock(scope):
            record = self.get(record_id, **scope.as_dict())
            if text is not None:
                record.text = check_text(text)
            if metadata is not None:
                record.metadata = {**record.metadata, **check_json_dict(metadata, "metadata")}
            if importance is not None:
                if not (isinstance(importance, (int, float)) and 0 <= importance <= 1):
                    raise ValidationError(f"importance must be in [0, 1], got {importance!r}")
                record.importance = float(importance)
            if kind is not None:
                record.kind = coerce_enum(Kind, kind, "kind")
            record.updated_at = utcnow()
            return self._write_records([record])[0]

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
        self._check_open()
        scope = self._scope(user_id, agent_id, session_id)
        if note is not None:
            check_text(note, "note")
            if self.config.safety.redact_pii:
                from .safety import redact

                note = redact(note)
        with self.scope_lock(scope):
            record = self.get(record_id, **scope.as_dict())
            if record.provenance.trust != Trust.QUARANTINED:
                raise ValidationError(
                    f"memory {record_id!r} is not quarantined (trust: "
                    f"{record.provenance.trust.value}); list(trust='quarantined') shows those"
                )
            own = record.provenance.source in (Source.USER, Source.SYSTEM)
            record.provenance.trust = Trust.TRUSTED if own else Trust.UNTRUSTED
            record.provenance.released_at = utcnow()
            record.provenance.reason = (
                f"released{f' ({note})' if note else ''}; had been quarantined: "
                f"{record.provenance.reason or 'no reason recorded'}"
            )
            self.store.set_payload(
                [record.id],
                scope,
                {
                    "provenance": record.provenance.model_dump(mode="json"),
                    "trust": record.provenance.trust.value,
                },
            )
        log.info("released quarantined memory %s", record.id)
        self._notify_write(scope)
        return record

    # -- lifecycle ----------------------------------------------------------------------
    def stats(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> dict[str, Any]:
        """Counts per layer / kind / status for a scope, plus engine info."""
        self._check_open()
        scope = self._scope(user_id, agent_id, session_id)
        return {
            "scope": scope.as_dict(),
            "total": self.store.count(scope),
            "layers": dict(self.store.facet("layer", scope)),
            "kinds": dict(self.store.facet("kind", scope)),
            "status": dict(self.store.facet("status", scope)),
            "trust": dict(self.store.facet("trust", scope)),
            "engine": self.store.info(),
        }

    def flush(self) -> None:
        """Make every acknowledged write durable on disk."""
        self._check_open()
        self.store.flush()

    def close(self) -> None:
        """Flush and release the store (the embedded path can then be opened elsewhere)."""
        if self._closed:
            return
        self._closed = True
        self.store.close()

    def __enter__(self) -> MemoryCore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # best effort: release the embedded lock on GC
        try:
            if not getattr(self, "_closed", True):
                self.close()
        except Exception:
            pass
