"""``Engine``: the one object every stage receives — store, embedder, sparse encoder, safety
screen, scope locks, write events and the background error sink.

Design:
- ``Memory`` (the facade) composes an ``Engine`` with the record API, the write path and the
  recall pipeline; those parts, and every stage below them (``layers/``, ``extraction/``,
  ``lifecycle/``, ``retrieval/``), get the engine (or plain values), never the facade.
- One write funnel: the engine's write methods are the only calls that change a store
  (``tests/unit/test_write_funnel.py`` enforces it). :meth:`Engine.write_records`: PII
  redaction (when on), safety screen, the scope check on ids, embed (dense + BM25, one batch),
  upsert; :meth:`Engine.rewrite` (states of stored records, vectors reused),
  :meth:`Engine.update` (payload fields), :meth:`Engine.delete` / :meth:`Engine.delete_where`,
  :meth:`Engine.purge`. Each validates its input and announces what it changed; a caller
  passes ``announce=False`` only for bookkeeping no reader caches or for a step whose
  batch's write announces it.
- One notification mechanism: :meth:`Engine.on_write` listeners get a :class:`WriteEvent`
  (the scope; ``inserted`` records, ``updated`` / ``deleted`` ids; ``reindex`` after
  ``delete_all`` / ``forget``); the recall caches, the scopes' name counts and the buffer
  index listen.
- Check-and-write sequences take ``scope_lock(scope)`` so concurrent writers in one scope
  cannot both miss an existing record.
- One embedded path, one store per process (``_shared.py``): engines opened on the same path
  share the store, the write-event bus (a write through one ``Memory`` reaches every other's
  listeners), the scope locks and a default embedder; the store is reference-counted and the
  last :meth:`Engine.close` closes it. Config, LLM, screen and background worker stay per
  engine. Other stores get a private bus and locks.
- The engine composes two parts with one job each: ``screening.py`` (PII redaction, the
  poisoning screen and its LLM judge) and ``vectors.py`` (what a record is embedded as, one
  embedding batch per write, the CJK vectors' cache); this module holds the engine's state,
  its write funnel, events and reads.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from datetime import datetime, timezone
from functools import cache
from typing import TYPE_CHECKING, Any, TypedDict

from pydantic import TypeAdapter
from pydantic import ValidationError as PydanticValidationError

from .._opening import open_path, open_store, store_cjk_embedder
from .._shared import SharedStore, WriteEvent
from .._validation import check_record, new_record
from ..config import PrismConfig
from ..embeddings import Embedder, resolve_embedder
from ..errors import (
    ConfigError,
    PrismError,
    ScopeError,
    ValidationError,
)
from ..records import (
    MemoryRecord,
    Scope,
    Status,
    Trust,
)
from ..sparse import SPARSE_VERSION, SparseEncoder
from ..stores import MemoryStore, PointData, RecordFilter
from ..stores.filters import Condition
from .screening import redact_records, screen_records
from .vectors import CjkVectors, embedding_text, record_points

if TYPE_CHECKING:  # Unpack is in typing from Python 3.11; annotations are not evaluated
    from typing import Unpack


__all__ = ["Engine", "EngineOptions", "WriteEvent", "embedding_text", "payload_fields"]

log = logging.getLogger("prism_memory")


def _checked_ids(ids: Sequence[str]) -> list[str]:
    """``ids`` as a list, each a non-empty string (``ValidationError`` naming the first bad one)."""
    if isinstance(ids, str):
        raise ValidationError(f"ids must be a list of record ids, not one string {ids!r}")
    out = list(ids)
    for rid in out:
        if not isinstance(rid, str) or not rid:
            raise ValidationError(f"record ids must be non-empty strings, got {rid!r}")
    return out


def _checked_scope(scope: Scope) -> Scope:
    if not isinstance(scope, Scope):
        raise ValidationError(
            f"scope must be a Scope, got {type(scope).__name__}; build one with "
            "Scope.of(user_id, agent_id, session_id)"
        )
    return scope


_SCOPE_FIELDS = frozenset({"user_id", "agent_id", "session_id"})
_TIME_FIELDS = frozenset({"event_time", "created_at"})
#: payload key -> the ``MemoryRecord`` field it stores
_PAYLOAD_KEYS = {(f.alias or n): n for n, f in MemoryRecord.model_fields.items()}
_REFUSED = {
    "id": "a record's id is fixed; write a new record (Memory.add) and delete the old one",
    "text": "the text is what the vectors are computed from: Memory.update(record_id, "
    "text=...) re-embeds it (a new version), Engine.rewrite stores a new state",
    "speaker": "the speaker is part of what the vectors are computed from: Engine.rewrite "
    "stores a new state with its vectors",
    **{
        k: "moving records to another scope is Engine.move(ids, from_scope, to_scope) "
        "(RecordStore.move), which checks the records are the old scope's"
        for k in _SCOPE_FIELDS
    },
    **{
        k: "it is an index field derived from the record: set 'provenance' (trust, source, "
        "source_ids), 'entities' (entity_keys) or 'event_time' (ts) and it follows"
        for k in ("trust", "source", "source_ids", "ts", "entity_keys", "link_keys")
    },
}


@cache
def _adapter(name: str) -> TypeAdapter[Any]:
    annotation: Any = MemoryRecord.model_fields[name].annotation
    return TypeAdapter(annotation)


def payload_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The payload an in-place update of ``fields`` sets: each value checked against its
    :class:`MemoryRecord` field and stored as a written record stores it, plus the index
    fields it derives (``trust`` / ``source`` / ``source_ids`` from ``provenance``,
    ``entity_keys`` from ``entities``). ``ValidationError`` for an unknown field, one an
    in-place update may not set (saying which call does) or a bad value.

    >>> payload_fields({"status": "superseded"})
    {'status': 'superseded'}
    """
    out: dict[str, Any] = {}
    for key, value in fields.items():
        if key in _REFUSED:
            raise ValidationError(f"an update cannot set {key!r}: {_REFUSED[key]}")
        name = _PAYLOAD_KEYS.get(key)
        if name is None:
            raise ValidationError(
                f"unknown record field {key!r}; the fields an update may set are "
                f"{sorted(set(_PAYLOAD_KEYS) - _REFUSED.keys())}"
            )
        adapter = _adapter(name)
        try:
            checked = adapter.validate_python(value)
        except PydanticValidationError as exc:
            raise ValidationError(f"bad value for record field {key!r}: {exc}") from None
        out[key] = adapter.dump_python(checked, mode="json", by_alias=True)
        if name == "provenance":
            out["trust"] = checked.trust.value
            out["source"] = checked.source.value
            out["source_ids"] = list(checked.source_ids)
        elif name == "entities":
            out["entity_keys"] = sorted({e.key for e in checked if e.key})
    return out


def _by_scope(records: Sequence[MemoryRecord]) -> list[list[MemoryRecord]]:
    """``records`` grouped by scope, in first-seen order."""
    groups: dict[str, list[MemoryRecord]] = {}
    for r in records:
        groups.setdefault(r.scope.key(), []).append(r)
    return list(groups.values())


class EngineOptions(TypedDict, total=False):
    """How to open an engine: the keywords of ``Memory(...)`` besides the path, documented
    there (``Memory.__init__`` is the one place they are written with their defaults)."""

    location: str | None
    url: str | None
    api_key: str | None
    embedder: Any
    llm: Any
    config: PrismConfig | None
    store: MemoryStore | None
    background: bool
    redact_pii: bool | None


class Engine:
    """Store, embedder, sparse encoder, screen, locks and write events; what stages receive.

    Setup:
        >>> from prism_memory import FakeEmbedder
        >>> engine = Engine(location=":memory:", embedder=FakeEmbedder())

    Use:
        >>> engine.on_write(lambda event: None)
        >>> engine.close()
    """

    def __init__(
        self, path: str | os.PathLike[str] | None = None, **options: Unpack[EngineOptions]
    ) -> None:
        unknown = options.keys() - EngineOptions.__annotations__.keys()
        if unknown:
            raise TypeError(f"Engine() got unexpected keywords {sorted(unknown)}")
        location, url, store = options.get("location"), options.get("url"), options.get("store")
        api_key, embedder = options.get("api_key"), options.get("embedder")
        llm, background = options.get("llm"), options.get("background", False)
        self.config = options.get("config") or PrismConfig()
        redact_pii = options.get("redact_pii")
        if redact_pii is not None:
            self.config.safety.redact_pii = redact_pii
        if self.config.safety.screen == "strict":
            import importlib.util

            if importlib.util.find_spec("prism_screen") is None:
                from ..safety._transformer import INSTALL

                raise ConfigError(
                    f"SafetyConfig(screen='strict') needs the screen's transformer: {INSTALL}; "
                    "or use screen='default'"
                )
        if sum(x is not None for x in (path, location, url, store)) > 1:
            raise ConfigError("pass only one of path=, location=, url= or store=")
        self.llm = llm
        self.background = background
        self.sparse = SparseEncoder()
        self._listeners: list[Callable[[WriteEvent], None]] = []
        self.background_errors: list[str] = []
        self._closed = True  # until the store is open: __del__ must not close what we lack
        #: whether this engine opened its store (False: it joined a path open in this process)
        self.opened_store = True
        if store is not None or url is not None or location is not None:
            self.embedder: Embedder = resolve_embedder(
                embedder, self.config.embedding_model, self.config.embedding_batch_size
            )
            self._shared = SharedStore.private(
                open_store(self.config, self.embedder, store, url, api_key, location)
            )
        else:
            where = path if path is not None else PrismConfig.default_path()
            self._shared, self.embedder, self.opened_store = open_path(self.config, where, embedder)
        self.store: MemoryStore = self._shared.store
        #: the embedder of the store's ``dense_cjk`` vectors (None: the store has none)
        self.cjk_embedder: Embedder | None = store_cjk_embedder(self.store, self.config)
        self._cjk = CjkVectors()
        # the store's tokenizer version: an older store keeps the tokenizer it was written with
        self.sparse = SparseEncoder(version=getattr(self.store, "sparse_version", SPARSE_VERSION))
        self.owns_store = store is None  # a store passed in stays the caller's to close
        self._closed = False

    # -- write events and background errors ----------------------------------------------
    def on_write(self, listener: Callable[[WriteEvent], None]) -> None:
        """Register ``listener(event)``, called after every write and deletion through any
        engine on this store (until this engine closes)."""
        self._listeners.append(listener)
        self._shared.bus.subscribe(listener)

    def _announce(
        self,
        scope: Scope | None,
        *,
        reindex: bool = False,
        inserted: Sequence[MemoryRecord] | None = None,
        updated: Sequence[str] = (),
        deleted: Sequence[str] = (),
        fields: Collection[str] | None = None,
    ) -> None:
        """Tell every listener on the store that records of ``scope`` changed (``None`` = every
        scope); ``inserted``: the records upserted, when that is the whole change; ``fields``:
        the payload fields an in-place update set. Only the write methods below call it:
        every change to a store goes through them and is announced by them."""
        event = WriteEvent(
            scope,
            reindex,
            None if inserted is None else tuple(inserted),
            tuple(updated),
            tuple(deleted),
            None if fields is None else frozenset(fields),
        )
        self._shared.bus.publish(event)

    def report_error(self, message: str, *, logged: bool = False) -> None:
        """Record a failed background step in :attr:`background_errors` (and log it, unless
        the step has ``logged`` it already)."""
        self.background_errors.append(message)
        if not logged:
            log.warning("background memory step failed: %s", message)

    @property
    def llm_extraction(self) -> bool:
        """Whether facts are extracted by the LLM (else by the rules)."""
        return self.llm is not None and self.config.extraction.use_llm

    @property
    def closed(self) -> bool:
        return self._closed

    def scope_lock(self, scope: Scope) -> threading.Lock:
        """The lock that makes check-and-write atomic within one scope (shared per user/agent)."""
        return self._shared.locks.get(scope)

    # -- helpers ------------------------------------------------------------------------
    def check_open(self) -> None:
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

    @staticmethod
    def as_of_filter(as_of: datetime) -> RecordFilter:
        """Hard filters of a read ``as_of`` a time: the states valid then (``valid_from`` at
        or before it, ``valid_to`` after it or open), superseded ones included, archived and
        quarantined ones not."""
        iso = as_of.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
        return RecordFilter(
            must=[Condition("valid_from", "range", {"lte": iso})],
            must_not=[
                Condition("valid_to", "range", {"lte": iso}),
                Condition("status", "eq", Status.ARCHIVED.value),
                Condition("trust", "eq", Trust.QUARANTINED.value),
            ],
        )

    def redact(self, records: Sequence[MemoryRecord], keep_metadata: Collection[str] = ()) -> None:
        """With ``config.safety.redact_pii``: identifiers in every content field of the records
        (text, fields, speaker, entity names, metadata values but ``keep_metadata``) become
        placeholders, in place (:func:`~prism_memory.safety.redact_record`). Every write
        passes here (:meth:`write_records`); paths that derive something from a text before
        writing (``remember``, ``add``) redact first."""
        redact_records(self.config, records, keep_metadata)

    def screen(
        self, records: list[MemoryRecord], keep_metadata: Collection[str] = ()
    ) -> list[MemoryRecord]:
        """Safety stage run on records from outside before anything is derived from them.

        With ``config.safety.redact_pii`` identifiers in every content field become
        placeholders (:meth:`redact`; a content-derived id is re-derived from the redacted
        text, so the id is no hash of the identifier). The poisoning screen then reads every
        record (its text, and its speaker name when it has one) by its source
        (``SafetyConfig.screen``; one batch for the whole call): instruction-like records
        are marked ``trust=quarantined`` with a reason, kept for audit and review
        (``list(trust="quarantined")``, ``release``), never returned by default reads.
        Every record passed here is screened, ``source="derived"`` ones too (as outside
        content): the engine's own derivations, whose sources were screened, are written
        with ``screen=False`` and never come here, so a caller's or an import file's claim
        of ``derived`` is only a claim. Quarantine only escalates; an already quarantined
        record stays quarantined (``engine/screening.py``).
        """
        return screen_records(self.config, self.llm, records, keep_metadata)

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
        return record_points(
            records,
            self.embedder,
            self.sparse,
            self.cjk_vectors,
            dense=dense,
            same_vector_as=same_vector_as,
        )

    def cjk_vectors(self, texts: Sequence[str]) -> dict[int, list[float]]:
        """The ``dense_cjk`` vectors of the texts holding CJK characters, by position (none
        when the store has no such vector: told once in the log how to get it)."""
        return self._cjk.vectors(
            texts,
            self.cjk_embedder,
            dense_name=self.embedder.name,
            wanted=self.config.cjk_embedding_model is not None,
        )

    def write_records(
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
        already (:meth:`screen`), and are not screened again. PII redaction (when on) runs on
        every record either way; ``keep_metadata`` names top-level metadata keys that are
        addresses, not content (a LangGraph item's namespace and key), and are kept as given.
        A record whose id names a record of another scope is refused (``ScopeError``); moving
        records to another scope is :meth:`move`.
        """
        self.check_open()
        if not records:
            return []
        for record in records:  # nothing is written unless every record can be stored as is
            check_record(record)
        self._refuse_foreign(records)
        if screen:
            records = self.screen(records, keep_metadata)
        else:
            self.redact(records, keep_metadata)
        self.store.upsert(self.embed_records(records, dense=dense, same_vector_as=same_vector_as))
        self._announce_upserts(records)
        return records

    def _announce_upserts(self, records: Sequence[MemoryRecord]) -> None:
        """One write event per scope of ``records``: only new, current records extend what
        listeners hold; a new version, a superseded one or an edited record (``updated_at``
        moved) makes them drop it."""
        for group in _by_scope(records):
            fresh = all(r.status == Status.ACTIVE and r.updated_at == r.created_at for r in group)
            if fresh:
                self._announce(group[0].scope, inserted=group)
            else:
                self._announce(group[0].scope, updated=[r.id for r in group])

    # -- the write funnel: with write_records, the only calls that change the store -------
    def rewrite(
        self,
        records: Sequence[MemoryRecord],
        *,
        dense: Mapping[str, list[float]] | None = None,
        announce: bool = True,
    ) -> None:
        """Store states of records already stored as they are: a superseded state kept as a
        version, a new state of the same text. No redaction or screen (the record passed
        them when first written); an id naming a record of another scope is refused
        (``ScopeError``, nothing written). The dense vector given by id is reused; the BM25
        and ``dense_cjk`` vectors are computed from the embedding text (speaker and text)
        like every write's, and a record without a given vector is embedded in full.

        ``announce=False``: the caller's next write in the same operation announces the
        change (a reconcile batch, a new version and its successor); otherwise each scope
        of ``records`` is told its records were updated.

        >>> engine.rewrite([old_state], dense={old_state.id: vector})  # doctest: +SKIP
        """
        self.check_open()
        if not records:
            return
        for record in records:
            check_record(record)
        self._refuse_foreign(records)
        given = {k: v for k, v in (dense or {}).items() if v is not None}
        self.store.upsert(self.embed_records(records, dense=given))
        if announce:
            for group in _by_scope(records):
                self._announce(group[0].scope, updated=[r.id for r in group])

    def _refuse_foreign(self, records: Sequence[MemoryRecord]) -> None:
        """``ScopeError`` when an id of ``records`` names a record of another scope."""
        taken = self.foreign_ids(records)
        if taken:
            raise ScopeError(
                f"{len(taken)} record id(s) (e.g. {sorted(taken)[0]}) belong to records of "
                "another scope; a write never replaces another scope's record. Drop the id to "
                "have one derived from the record's own scope and text"
            )

    def move(
        self,
        ids: Sequence[str],
        from_scope: Scope,
        to_scope: Scope,
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> list[MemoryRecord]:
        """Move the records ``ids`` of ``from_scope`` into ``to_scope`` (same ids and vectors,
        so each upsert replaces the old point); returns the moved records.

        Every id must name a record of ``from_scope``, else ``ScopeError`` and nothing moves
        (a move never takes another scope's record). Each scope field that ``from_scope`` or
        ``to_scope`` sets takes ``to_scope``'s value; one both leave open is kept.
        ``metadata``: keys set on every moved record's metadata (a migration's marks). The
        old scopes are told the records went, the new ones that they arrived.

        >>> engine.move([rid], Scope(user_id="ns-alice"), Scope(user_id="alice"))  # doctest: +SKIP
        """
        self.check_open()
        todo = list(dict.fromkeys(_checked_ids(ids)))
        _checked_scope(from_scope)
        _checked_scope(to_scope)
        if not todo:
            return []
        found: list[MemoryRecord] = []
        vectors: dict[str, list[float]] = {}
        for start in range(0, len(todo), 256):
            chunk = todo[start : start + 256]
            found += self.store.get(chunk, from_scope)
            vectors.update(self.store.get_vectors(chunk, from_scope))
        missing = set(todo) - {r.id for r in found}
        if missing:
            raise ScopeError(
                f"{len(missing)} record id(s) (e.g. {sorted(missing)[0]}) are not records of "
                f"{from_scope.key()}; nothing was moved. Pass the scope the records are in"
            )
        extra = dict(metadata or {})

        def field(name: str, record: MemoryRecord) -> str | None:
            old: str | None = getattr(from_scope, name)
            new: str | None = getattr(to_scope, name)
            kept: str | None = getattr(record, name)
            return new if old is not None or new is not None else kept

        moved = [
            r.model_copy(
                update={
                    **{k: field(k, r) for k in ("user_id", "agent_id", "session_id")},
                    "metadata": {**r.metadata, **extra},
                }
            )
            for r in found
        ]
        for record in moved:
            check_record(record)
        self.store.upsert(self.embed_records(moved, dense=vectors))
        for group in _by_scope(found):
            self._announce(group[0].scope, deleted=[r.id for r in group])
        for group in _by_scope(moved):
            if all(r.status == Status.ACTIVE for r in group):
                self._announce(group[0].scope, inserted=group)
            else:
                self._announce(group[0].scope, updated=[r.id for r in group])
        return moved

    def update(
        self,
        ids: Sequence[str],
        scope: Scope,
        fields: Mapping[str, Any],
        *,
        announce: bool = True,
        reindex: bool = False,
    ) -> None:
        """Set payload ``fields`` on the records ``ids`` of ``scope`` (records of other
        scopes untouched), without re-embedding: the change is not one the vectors follow
        (status, links, counters). Field names and values are checked against
        :class:`MemoryRecord` (:func:`payload_fields`): ``id``, ``text``, ``speaker``, the
        scope fields and the derived index fields are refused (``ValidationError`` naming
        the call that does it), nothing is changed; the index fields follow ``provenance``,
        ``entities`` and the time fields.

        ``announce=False``: the caller's next write in the same operation announces the
        change (a reconcile batch), or the fields are bookkeeping no reader caches (access
        statistics, the extraction mark) and today's readers are not told. ``reindex``:
        records retired by policy (archived), so the buffer index is rebuilt.

        >>> engine.update([rid], Scope(user_id="alice"), {"utility": 0.8})  # doctest: +SKIP
        """
        self.check_open()
        todo = _checked_ids(ids)
        _checked_scope(scope)
        if not fields or not all(isinstance(k, str) and k for k in fields):
            raise ValidationError(
                f"fields to update must be a non-empty mapping of field names, got {fields!r}"
            )
        payload = payload_fields(fields)
        if not todo:
            return
        if _TIME_FIELDS & payload.keys():  # ``ts`` is each record's own time: one call each
            for record in self.store.get(todo, scope):
                merged = MemoryRecord.from_payload({**record.to_payload(), **payload})
                self.store.set_payload(
                    [record.id], scope, {**payload, "ts": merged.time.timestamp()}
                )
        else:
            self.store.set_payload(todo, scope, payload)
        if announce:
            self._announce(scope, reindex=reindex, updated=todo, fields=payload.keys())

    def delete(self, ids: Sequence[str], scope: Scope, *, reindex: bool = False) -> int:
        """Delete the records ``ids`` of ``scope`` (others untouched; 256 per store call);
        returns how many went. ``reindex``: records retired by policy, so indexes kept
        beside the store (the buffer index) are rebuilt.

        >>> engine.delete([rid], Scope(user_id="alice"))  # doctest: +SKIP
        1
        """
        self.check_open()
        todo = _checked_ids(ids)
        _checked_scope(scope)
        if not todo:
            return 0
        n = 0
        try:
            for start in range(0, len(todo), 256):
                n += self.store.delete(todo[start : start + 256], scope)
        finally:
            self._announce(scope, reindex=reindex, deleted=todo)
        return n

    def delete_where(
        self, scope: Scope, flt: RecordFilter | None = None, *, reindex: bool = True
    ) -> int:
        """Delete every record of ``scope`` matching ``flt`` (all of them by default; every
        page); returns how many went. ``reindex`` (default): a scope was cleared, so the
        buffer index is rebuilt from the store.

        >>> engine.delete_where(Scope(user_id="alice"))  # doctest: +SKIP
        12
        """
        self.check_open()
        _checked_scope(scope)
        if flt is not None and not isinstance(flt, RecordFilter):
            raise ValidationError(
                f"flt must be a RecordFilter or None, got {type(flt).__name__}; build one "
                "with RecordFilter(must=[Condition(...)]) or prism_memory.stores.parse_filters"
            )
        try:
            return self.store.delete_by_filter(scope, flt)
        finally:
            self._announce(scope, reindex=reindex)

    def purge(self) -> None:
        """Make every deletion and replacement so far physical: the engine rewrites its files
        so no deleted or overwritten text stays on disk (what reads return is unchanged, so
        nothing is announced). Pair with :meth:`begin_purge` where a crash must not lose it.

        >>> engine.purge()  # doctest: +SKIP
        """
        self.check_open()
        self.store.purge()

    def foreign_ids(self, records: Sequence[MemoryRecord]) -> set[str]:
        """Ids of ``records`` that name a stored record of another scope, or that two of
        ``records`` in different scopes share: writing them would replace another tenant's
        record (a scope is a wall, whatever id a caller or an import file asserts).

        One id-filtered read per 256 ids (an index look-up; no vectors).
        """
        owner: dict[str, str] = {}
        taken: set[str] = set()
        for r in records:
            key = r.scope.key()
            if owner.setdefault(r.id, key) != key:
                taken.add(r.id)
        ids = list(owner)
        for start in range(0, len(ids), 256):
            chunk = ids[start : start + 256]
            found, _ = self.store.scroll_all(RecordFilter.any_of("id", chunk), limit=len(chunk))
            taken.update(f.id for f in found if f.scope.key() != owner[f.id])
        return taken

    #: Validate arguments into a :class:`MemoryRecord` (no I/O); see
    #: :func:`prism_memory._validation.new_record` for the arguments.
    build_record = staticmethod(new_record)

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

    def iter_all(self, flt: RecordFilter | None = None) -> Iterator[MemoryRecord]:
        """Every tenant's records matching ``flt`` (admin export, resuming work; all pages)."""
        cursor: str | None = None
        while True:
            records, cursor = self.store.scroll_all(flt, limit=256, cursor=cursor)
            yield from records
            if cursor is None:
                return

    def begin_purge(self) -> bool:
        """Journal a purge before deleting, where the engine keeps a journal (embedded).
        Returns whether this call wrote the journal (``False``: none, or one was pending)."""
        self.check_open()
        begin = getattr(self.store, "begin_purge", None)
        return bool(begin()) if callable(begin) else False

    def cancel_purge(self) -> None:
        """Remove the journal :meth:`begin_purge` wrote, when the deletion it announced was
        refused before deleting anything (a refused operation leaves no journal)."""
        self.check_open()
        cancel = getattr(self.store, "cancel_purge", None)
        if callable(cancel):
            cancel()

    def flush(self) -> None:
        """Make every acknowledged write durable on disk."""
        self.check_open()
        self.store.flush()

    def close(self, *, release_store: bool = True) -> None:
        """Stop listening and release this engine's reference to the store; the last engine
        on an embedded path flushes and closes it (the path can then be opened elsewhere).

        ``release_store=False`` only marks the engine closed (a store the caller passed in,
        when opening a ``Memory`` over it failed, stays the caller's).
        """
        if self._closed:
            return
        self._closed = True
        for listener in self._listeners:
            self._shared.bus.unsubscribe(listener)
        self._listeners.clear()
        self._shared.release(close_store=release_store)
