"""Embedded store over Qdrant Edge (``qdrant-edge-py``): the real Qdrant engine in-process.

Design:
- One shard under ``<path>/shard`` plus ``<path>/prism-store.json`` recording the vector size
  and embedder name, checked on open (``EmbeddingDimensionError`` names both sizes).
- WAL on. The engine locks its WAL; a second opener gets :class:`StoreLockedError` (``Memory``
  objects of one process share one ``EdgeStore`` per path instead: ``prism_memory/_shared.py``).
- Payload indexes on scope fields (``user_id`` as tenant), layer, kind, task, entity keys, ...
- Optimisation policy: after ``optimize_after`` writes since the last run, ``optimize()`` runs on
  a background thread so searches stay on HNSW without blocking the caller.
- All calls are serialised by one lock except searches, which the engine runs concurrently.
- Disk space is checked before the engine is asked to allocate any (``min_free_mb``, see
  :meth:`EdgeStore._need_space`): the engine maps its files into memory, and a page it cannot
  allocate on a full disk kills the process with SIGBUS; a refused call raises
  :class:`StoreError` with the figures instead and writes nothing.
"""

from __future__ import annotations

import atexit
import functools
import json
import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar, cast

from ..errors import EmbeddingDimensionError, PrismError, StoreError, StoreLockedError
from ..records import MemoryRecord, Scope, is_record_id
from ..sparse import SPARSE_VERSION
from .base import (
    BM25_VECTOR,
    CJK_VECTOR,
    DATETIME_FIELDS,
    DATETIME_INDEXES,
    DENSE_VECTOR,
    FLOAT_INDEXES,
    KEYWORD_INDEXES,
    PointData,
    RouteHit,
    RouteQuery,
    StoreBase,
    in_scope,
    scoped_points,
    stable_order,
)
from .filters import Condition, RecordFilter

__all__ = ["EdgeStore"]

_TEMPLATE_LOCK = threading.Lock()
_TEMPLATES: dict[tuple[Any, ...], Path] = {}

log = logging.getLogger("prism_memory")
_META = "prism-store.json"
_MB = 1 << 20
#: measured: a new, empty store fills 131 MB of a tmpfs (its sparse files get their pages
#: filled); a disk that keeps holes allocates less, but the files grow into that size
_NEW_STORE_MB = 132
#: opening replays the WAL and preallocates a 32 MB WAL segment (measured: 32 MB on tmpfs)
_OPEN_MB = 64
#: written (durably) before the deletes of a purging delete, removed once the shard is rebuilt:
#: a store opened with it still there rebuilds its shard first (the purge is completed)
PURGE_JOURNAL = "purge-pending"


def _q() -> Any:
    import qdrant_edge

    return qdrant_edge


def engine_error(exc: BaseException, path: Path) -> StoreError | None:
    """The :class:`StoreError` for an exception the engine raised, or ``None`` (re-raise it).

    Two kinds are translated: a Rust panic (``pyo3_runtime.PanicException``, a
    ``BaseException`` that ``except Exception`` would miss) and the engine's own runtime
    errors (``Exception: Service runtime error: ...``), which on a read mean the files are
    damaged. Anything else (a ``TypeError`` from an argument PRISM should have refused,
    ``KeyboardInterrupt``) passes unchanged.
    """
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
    if type(exc).__name__ == "PanicException":
        return StoreError(
            f"the embedded engine (qdrant-edge) panicked on the store at {path}: {first}. The "
            "call was not carried out; if later calls fail too, close the Memory and open it "
            "again. Please report the call that caused it"
        )
    if not isinstance(exc, Exception) or "Service runtime error" not in first:
        return None
    if any(w in first.lower() for w in ("decode", "decompress", "deserializ", "corrupt")):
        return StoreError(
            f"the memory store at {path} is damaged and a record could not be read ({first}). "
            "Its files were changed or cut short outside PRISM (a disk fault, a copy taken "
            f"while it was open, an edit): restore {path} from a backup"
        )
    return StoreError(f"the embedded engine failed on the store at {path}: {first}")


_F = TypeVar("_F", bound=Callable[..., Any])


def _engine_call(fn: _F) -> _F:
    """Turn the engine's panics and runtime errors in ``fn`` into :class:`StoreError`."""

    @functools.wraps(fn)
    def wrapper(self: EdgeStore, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(self, *args, **kwargs)
        except PrismError:
            raise
        except BaseException as exc:
            err = engine_error(exc, self.path)
            if err is None:
                raise
            raise err from exc

    return cast(_F, wrapper)


def _condition(c: Condition) -> Any:
    q = _q()
    if c.key == "id":
        ids = c.value if c.op == "any" else [c.value]
        return q.HasIdCondition(point_ids={str(i) for i in ids})
    if c.op == "eq":
        return q.FieldCondition(key=c.key, match=q.MatchValue(c.value))
    if c.op == "any":
        return q.FieldCondition(key=c.key, match=q.MatchAny(list(c.value)))
    if c.op == "empty":
        return q.IsEmptyCondition(key=c.key)
    if c.op == "range":
        if c.key in DATETIME_INDEXES or c.key in DATETIME_FIELDS:
            return q.FieldCondition(key=c.key, range=q.RangeDateTime(**c.value))
        return q.FieldCondition(key=c.key, range=q.RangeFloat(**c.value))
    raise StoreError(f"unsupported filter operation {c.op!r}")


def _scope_conditions(scope: Scope) -> list[Any]:
    q = _q()
    return [q.FieldCondition(key=k, match=q.MatchValue(v)) for k, v in scope.as_dict().items()]


def _filter(
    scope: Scope | None, flt: RecordFilter | None = None, extra: RecordFilter | None = None
) -> Any:
    q = _q()
    must = _scope_conditions(scope) if scope is not None else []
    must_not: list[Any] = []
    for f in (flt, extra):
        if f is not None:
            must += [_condition(c) for c in f.must]
            must_not += [_condition(c) for c in f.must_not]
    return q.Filter(must=must, must_not=must_not or None)


class EdgeStore(StoreBase):
    """Embedded Qdrant Edge store (the default engine of ``Memory(path=...)``).

    Setup:
        >>> store = EdgeStore("/tmp/prism-doc", dim=384, embedder_name="minilm")  # doctest: +SKIP

    Use it through :class:`~prism_memory.Memory`; one process per path (``Memory`` objects of
    that process on the path share one ``EdgeStore``; use a Qdrant server via
    ``Memory(url=...)`` when several processes share memory).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        dim: int,
        embedder_name: str = "",
        optimize_after: int = 2000,
        hnsw_m: int = 16,
        hnsw_ef_construct: int = 100,
        min_free_mb: int = 256,
        cjk_dim: int = 0,
        cjk_embedder: str = "",
    ) -> None:
        self.path = Path(path)
        self._cjk_dim, self._cjk_embedder = cjk_dim, cjk_embedder
        self._min_free_mb = min_free_mb
        self._dim = dim
        self._optimize_after = optimize_after
        self._lock = threading.RLock()
        self._pending = 0
        self._optimizer: threading.Thread | None = None
        self._closed = False
        self._sparse_version = SPARSE_VERSION
        _q()  # the engine is imported before anything is created on disk
        # stages: the directory, the store's recorded layout, the engine's configuration,
        # the shard (checked for space, loaded or created), then the layout written
        self._make_dir()
        meta_path = self.path / _META
        shard_path = self.path / "shard"
        if meta_path.exists():
            self._read_meta(meta_path, dim, embedder_name)
        self._config = self._engine_config(dim, hnsw_m, hnsw_ef_construct)
        self._hnsw = (hnsw_m, hnsw_ef_construct)
        self._dirty = True  # unknown history: the first purge after opening rebuilds
        recover_rebuild(shard_path)
        has_shard = (shard_path / "wal").exists() or (shard_path / "segments").exists()
        if has_shard:
            self._need_space(min(_OPEN_MB, self._min_free_mb), "opening the memory store")
        else:
            self._need_space(self._min_free_mb + _NEW_STORE_MB, "creating a new memory store")
        if meta_path.exists() and not has_shard:
            # the marker is written only after the shard is complete: its shard was removed
            raise StoreError(
                f"{meta_path} says a memory store exists at {self.path}, but its shard/ "
                f"directory is missing or empty, so every record is gone from disk. Restore "
                f"{shard_path} from a backup; to start an empty store here instead, delete "
                f"{meta_path}"
            )
        self._shard = self._open_shard(shard_path, has_shard)
        self._add_missing_indexes()
        if (self.path / PURGE_JOURNAL).exists():
            self._complete_purge()
        if not meta_path.exists():
            self._write_meta(meta_path, dim, embedder_name)

    def _make_dir(self) -> None:
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot use {self.path} as a memory store: {exc.strerror or exc}; pass a "
                "directory path (existing or new) that this process can write to"
            ) from None

    def _read_meta(self, meta_path: Path, dim: int, embedder_name: str) -> None:
        """Adopt the layout the store was written with (tokenizer version, CJK vector) and
        refuse an embedder of another vector size."""
        try:
            meta = json.loads(meta_path.read_text())
            if not isinstance(meta, dict):
                raise ValueError("not a JSON object")
        except (OSError, ValueError) as exc:
            raise StoreError(
                f"{meta_path} is unreadable ({exc}); it records the store's vector size. "
                f'Restore it, or write {{"dim": <embedder dim>}} into it to reopen the store'
            ) from None
        # a store written before CJK bigrams keeps the word tokenizer (sparse.py)
        self._sparse_version = int(meta.get("sparse", 1))
        # the CJK vector is part of the store's layout: what the store has decides
        cjk: dict[str, Any] = meta["cjk"] if isinstance(meta.get("cjk"), dict) else {}
        self._cjk_dim = int(cjk.get("dim", 0))
        self._cjk_embedder = str(cjk.get("embedder", ""))
        if int(meta.get("dim", dim)) != dim:
            raise EmbeddingDimensionError(
                f"the store at {self.path} holds {meta['dim']}-dimensional vectors "
                f"(embedder {meta.get('embedder') or 'unknown'!r}) but the embedder makes "
                f"{dim}-dimensional ones ({embedder_name!r}); use the original embedder or a "
                "new path (or export_jsonl + import_jsonl to re-embed)"
            )

    def _engine_config(self, dim: int, hnsw_m: int, hnsw_ef_construct: int) -> Any:
        """The shard's configuration: dense (and CJK) cosine vectors, BM25 with IDF, HNSW."""
        q = _q()
        return q.EdgeConfig(
            vectors={
                DENSE_VECTOR: q.EdgeVectorParams(size=dim, distance=q.Distance.Cosine),
                **(
                    {CJK_VECTOR: q.EdgeVectorParams(size=self._cjk_dim, distance=q.Distance.Cosine)}
                    if self._cjk_dim
                    else {}
                ),
            },
            sparse_vectors={BM25_VECTOR: q.EdgeSparseVectorParams(modifier=q.Modifier.Idf)},
            hnsw_config=q.HnswIndexConfig(
                m=hnsw_m,
                ef_construct=hnsw_ef_construct,
                full_scan_threshold=10_000,
                payload_m=hnsw_m,
            ),
            optimizers=q.EdgeOptimizersConfig(deleted_threshold=0.05, vacuum_min_vector_number=100),
            wal_enabled=True,
        )

    def _open_shard(self, shard_path: Path, has_shard: bool) -> Any:
        """Load the shard, or create it; the engine's lock on it becomes
        :class:`StoreLockedError`, its other failures :class:`StoreError`."""
        try:
            if has_shard:
                return _q().EdgeShard.load(str(shard_path))
            return self._new_shard(shard_path)
        except BaseException as exc:
            err = engine_error(exc, self.path)
            if not isinstance(exc, Exception) and err is None:
                raise  # KeyboardInterrupt and the like
            msg = str(exc)
            if "WouldBlock" in msg or "lock" in msg.lower():
                raise StoreLockedError(
                    f"the memory store at {self.path} is already open in another process (or "
                    "by an EdgeStore made directly in this one). Use one process per path (any "
                    "number of Memory objects in it share the store), close the other process's "
                    "Memory first, or run a Qdrant server and pass Memory(url=...) so several "
                    "processes can share one memory"
                ) from exc
            raise StoreError(f"could not open the memory store at {self.path}: {msg}") from exc

    def _write_meta(self, meta_path: Path, dim: int, embedder_name: str) -> None:
        """Record the store's layout (atomically: written, then renamed into place)."""
        tmp = meta_path.with_suffix(".tmp")
        tmp.write_text(
            json.dumps(
                {
                    "dim": dim,
                    "embedder": embedder_name,
                    "format": 1,
                    "sparse": self._sparse_version,
                    **(
                        {"cjk": {"dim": self._cjk_dim, "embedder": self._cjk_embedder}}
                        if self._cjk_dim
                        else {}
                    ),
                }
            )
        )
        os.replace(tmp, meta_path)

    # -- housekeeping -------------------------------------------------------------------
    @property
    def dim(self) -> int:
        return self._dim

    @property
    def sparse_version(self) -> int:
        """The BM25 tokenizer version the store's sparse vectors were written with."""
        return self._sparse_version

    def _template_key(self) -> tuple[Any, ...]:
        return (
            self._dim,
            self._cjk_dim,
            self._hnsw,
            KEYWORD_INDEXES,
            FLOAT_INDEXES,
            DATETIME_INDEXES,
        )

    def _new_shard(self, shard_path: Path) -> Any:
        """A new, empty shard with every payload index, copied from a per-process template.

        Creating the ~20 payload indexes takes 0.1-0.2 s each (each is a durable update), so
        the first store of a process builds them once in a template shard under a temporary
        directory (removed at exit) and later stores copy its files, which takes milliseconds.
        The copy lands under a temporary name and is renamed into place, so a crash leaves
        either no shard or a complete one.
        """
        q = _q()
        key = self._template_key()
        with _TEMPLATE_LOCK:
            template = _TEMPLATES.get(key)
            if template is None or not (template / "segments").exists():
                self._need_space(
                    _NEW_STORE_MB, "building the empty-store template", Path(tempfile.gettempdir())
                )
                root = Path(tempfile.mkdtemp(prefix="prism-edge-template-"))
                atexit.register(shutil.rmtree, root, True)
                template = root / "shard"
                shard = q.EdgeShard.create(str(template), self._config)
                try:
                    self._create_indexes(shard)
                    shard.flush()
                finally:
                    shard.close()
                _TEMPLATES[key] = template
            staging = shard_path.with_name(shard_path.name + ".creating")
            shutil.rmtree(staging, ignore_errors=True)
            shutil.copytree(template, staging, copy_function=_copy_sparse)
        os.replace(staging, shard_path)
        return q.EdgeShard.load(str(shard_path), self._config)

    def _create_indexes(self, shard: Any = None) -> None:
        q = _q()
        target = self._shard if shard is None else shard
        ops = [
            q.UpdateOperation.create_field_index(
                name, q.KeywordIndexParams(is_tenant=name == "user_id")
            )
            for name in KEYWORD_INDEXES
        ]
        ops += [
            q.UpdateOperation.create_field_index(n, q.PayloadSchemaType.Float)
            for n in FLOAT_INDEXES
        ]
        ops += [
            q.UpdateOperation.create_field_index(n, q.PayloadSchemaType.Datetime)
            for n in DATETIME_INDEXES
        ]
        with self._lock:
            for op in ops:
                target.update(op)

    def _need_space(self, mb: float, what: str, where: Path | None = None) -> None:
        """Raise :class:`StoreError` unless ``mb`` MB are free on the filesystem of the store
        (checks are off with ``min_free_mb=0``)."""
        if self._min_free_mb <= 0:
            return
        target = where or self.path
        try:
            free = shutil.disk_usage(target).free
        except OSError:  # cannot tell: let the engine try
            return
        if free >= mb * _MB:
            return
        raise StoreError(
            f"{what} needs {mb:.1f} MB free on the filesystem of {target}, which has "
            f"{free / _MB:.1f} MB free; nothing was written. Free disk space or move the store "
            "to a larger filesystem. The embedded engine maps its files into memory and would "
            "crash (SIGBUS) on a full disk, so PRISM keeps a margin of "
            f"PrismConfig.store.min_free_mb = {self._min_free_mb} MB (a write needs the margin "
            "plus about three times its size)"
        )

    def _add_missing_indexes(self) -> None:
        """Keyword indexes added by a later version (``extraction``): a store written before
        has not got them; each is created once (a durable update of a fraction of a second)."""
        q = _q()
        have = set(self._shard.info().payload_schema)
        for name in KEYWORD_INDEXES:
            if name not in have:
                op = q.UpdateOperation.create_field_index(
                    name, q.KeywordIndexParams(is_tenant=name == "user_id")
                )
                with self._lock:
                    self._shard.update(op)

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("the memory store is closed; open a new Memory to keep using it")

    def _after_write(self, n: int) -> None:
        self._pending += n
        if self._optimize_after and self._pending >= self._optimize_after:
            self._pending = 0
            if self._optimizer is None or not self._optimizer.is_alive():
                self._optimizer = threading.Thread(
                    target=self._optimize_quietly, name="prism-edge-optimize", daemon=True
                )
                self._optimizer.start()

    def _optimize_quietly(self) -> None:
        try:
            if not self._closed:
                self._shard.optimize()
        except Exception as exc:  # never crash a background thread
            log.warning("background optimize failed: %s", exc)

    @_engine_call
    def optimize(self) -> None:
        """Build HNSW/sparse indexes now (blocking)."""
        self._check_open()
        self._wait_optimizer()
        with self._lock:
            self._shard.optimize()
            self._pending = 0

    def _wait_optimizer(self) -> None:
        t = self._optimizer
        if t is not None and t.is_alive():
            t.join()

    @_engine_call
    def flush(self) -> None:
        self._check_open()
        with self._lock:
            self._shard.flush()

    def begin_purge(self) -> bool:
        """Journal a purge before its deletes: a process killed before :meth:`purge` finished
        leaves the journal, and the next open rebuilds the shard (the deletes themselves are
        in the WAL already, or never happened). Durable: the file and its directory are
        fsynced. Returns whether this call wrote it (``False``: one was pending already)."""
        self._check_open()
        journal = self.path / PURGE_JOURNAL
        if journal.exists():
            return False
        tmp = journal.with_name(journal.name + ".tmp")
        with open(tmp, "w") as fh:
            fh.write("a purge started and has not finished; the next open completes it\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, journal)
        _fsync_dir(self.path)
        return True

    def cancel_purge(self) -> None:
        """Remove a journal whose deletion was refused before it deleted anything."""
        self._end_purge()

    def _end_purge(self) -> None:
        journal = self.path / PURGE_JOURNAL
        if journal.exists():
            journal.unlink()
            _fsync_dir(self.path)

    def _complete_purge(self) -> None:
        """On open: a purge was journalled and never finished; rebuild the shard now."""
        log.info("completing an interrupted purge of the store at %s", self.path)
        try:
            with self._lock:
                self._rebuild()
                self._dirty = False
        except Exception as exc:  # the store stays usable; the next purge or open retries
            log.warning("could not complete the interrupted purge at %s: %s", self.path, exc)
            return
        self._end_purge()

    @_engine_call
    def purge(self) -> None:
        """Make deletes physical: no byte of a deleted record stays in any file of the store.

        Qdrant keeps deleted payloads in its write-ahead log and in segment pages until they are
        rotated or vacuumed, so after deletes the shard is rebuilt: live points are copied into a
        fresh shard (new WAL, new segments) that replaces the old one, whose files are removed.
        Cost is linear in the store size; without deletes since the last purge it only flushes.
        A purge journalled by :meth:`begin_purge` is finished here and its journal removed.
        """
        self._check_open()
        self._wait_optimizer()
        with self._lock:
            self._shard.flush()
            if self._dirty or (self.path / PURGE_JOURNAL).exists():
                self._rebuild()
                self._dirty = False
        self._end_purge()

    @_engine_call
    def close(self) -> None:
        if self._closed:
            return
        self._wait_optimizer()
        with self._lock:
            try:
                self._shard.flush()
            finally:
                self._shard.close()
                self._closed = True

    @_engine_call
    def info(self) -> dict[str, Any]:
        self._check_open()
        with self._lock:
            i = self._shard.info()
        return {
            "engine": "qdrant-edge",
            "path": str(self.path),
            "points": i.points_count,
            "indexed_vectors": i.indexed_vectors_count,
            "segments": i.segments_count,
            "dim": self._dim,
        }

    # -- writes -------------------------------------------------------------------------
    @_engine_call
    def upsert(self, points: Sequence[PointData]) -> None:
        if not points:
            return
        self._check_open()
        q = _q()
        batch = []
        size = 0
        for p in points:
            if len(p.dense) != self._dim:
                raise EmbeddingDimensionError(
                    f"a {len(p.dense)}-dimensional vector was written to a {self._dim}-dimensional "
                    "store; use the embedder the store was created with"
                )
            vector: dict[str, Any] = {DENSE_VECTOR: p.dense}
            if p.cjk is not None and self._cjk_dim:
                vector[CJK_VECTOR] = p.cjk
            if p.sparse:
                vector[BM25_VECTOR] = q.SparseVector(
                    indices=p.sparse.indices, values=p.sparse.values
                )
            payload = p.record.to_payload()
            size += len(json.dumps(payload)) + 4 * len(p.dense) + 8 * len(p.sparse.indices)
            batch.append(q.Point(id=p.record.id, vector=vector, payload=payload))
        # the WAL, the payload/vector storage and the indexes each take about its size
        self._need_space(self._min_free_mb + 3 * size / _MB, f"writing {len(batch)} memories")
        with self._lock:
            self._shard.update(q.UpdateOperation.upsert_points(batch))
            self._after_write(len(batch))

    @_engine_call
    def set_payload(self, ids: Sequence[str], scope: Scope, payload: dict[str, Any]) -> None:
        valid = [i for i in ids if is_record_id(i)]  # the engine rejects non-UUID ids
        if not valid:
            return
        self._check_open()
        q = _q()
        flt = _filter(scope, RecordFilter.any_of("id", valid))
        size = 3 * len(valid) * len(json.dumps(payload, default=str))
        self._need_space(self._min_free_mb + size / _MB, "updating memories")
        with self._lock:
            self._shard.update(q.UpdateOperation.set_payload_by_filter(flt, payload))

    def delete(self, ids: Sequence[str], scope: Scope) -> int:
        valid = [i for i in ids if is_record_id(i)]  # the engine rejects non-UUID ids
        if not valid:
            return 0
        return self.delete_by_filter(scope, RecordFilter.any_of("id", valid))

    @_engine_call
    def delete_by_filter(self, scope: Scope, flt: RecordFilter | None = None) -> int:
        self._check_open()
        q = _q()
        f = _filter(scope, flt)
        self._need_space(min(_OPEN_MB, self._min_free_mb), "deleting memories")
        with self._lock:
            n = self._shard.count(q.CountRequest(exact=True, filter=f))
            if n:
                self._shard.update(q.UpdateOperation.delete_points_by_filter(f))
                self._dirty = True
                self._after_write(n)
        return int(n)

    def _rebuild(self) -> None:
        """Copy live points into a fresh shard and swap it in (caller holds the lock).

        Crash-safe: the new shard is complete and flushed before ``<shard>.rebuilt`` is written;
        only then is the old shard renamed away. :func:`recover_rebuild` finishes or undoes an
        interrupted swap when the store is opened.
        """
        q = _q()
        shard_path = self.path / "shard"
        new_path, done, old_path = _rebuild_paths(shard_path)
        # the copy reads the live shard's state; flushing first leaves the old shard nothing
        # to write when it is closed below
        self._shard.flush()
        used = sum(p.stat().st_blocks * 512 for p in shard_path.rglob("*") if p.is_file())
        self._need_space(
            self._min_free_mb + _NEW_STORE_MB + used / _MB,
            "purging deleted memories from disk (a rebuild of the store, which is journalled "
            "and retried by the next purge or open)",
        )
        for leftover in (new_path, old_path):
            shutil.rmtree(leftover, ignore_errors=True)
        done.unlink(missing_ok=True)
        new = self._new_shard(new_path)
        try:
            offset: Any = None
            while True:
                records, offset = self._shard.scroll(
                    q.ScrollRequest(offset=offset, limit=512, with_payload=True, with_vector=True)
                )
                if records:
                    points = [
                        q.Point(id=r.id, vector=r.vector or {}, payload=r.payload or {})
                        for r in records
                    ]
                    new.update(q.UpdateOperation.upsert_points(points))
                if offset is None:
                    break
            new.flush()
        finally:
            new.close()
        done.write_text("complete")
        # The old shard is closed before any directory is renamed: the engine writes some
        # files by path when it closes (the id tracker's mappings among them), and every shard
        # a process builds is a copy of one template with the same segment ids, so an old
        # shard closed after the swap wrote into the new shard's files (found by the crash
        # loop: "malformed mapping change byte 0x00" on the next open).
        self._shard.close()
        try:
            os.replace(shard_path, old_path)
            os.replace(new_path, shard_path)
            done.unlink(missing_ok=True)
        finally:
            # whatever happened, reopen the shard that recovery leaves in place
            recover_rebuild(shard_path)
            self._shard = q.EdgeShard.load(str(shard_path))
        shutil.rmtree(old_path, ignore_errors=True)
        self._pending = 0

    # -- reads --------------------------------------------------------------------------
    @_engine_call
    def get(
        self, ids: Sequence[str], scope: Scope, *, with_vectors: bool = False
    ) -> list[MemoryRecord]:
        if not ids:
            return []
        self._check_open()
        valid = [i for i in ids if is_record_id(i)]
        if not valid:
            return []
        with self._lock:
            self._check_open()
            records = self._shard.retrieve(valid, with_payload=True, with_vector=False)
        allowed = scope.as_dict()
        by_id: dict[str, MemoryRecord] = {}
        for r in records:
            if in_scope(r.payload, allowed):
                by_id[str(r.id)] = MemoryRecord.from_payload(r.payload or {})
        return [by_id[i] for i in valid if i in by_id]

    @_engine_call
    def get_vectors(
        self, ids: Sequence[str], scope: Scope, *, vector: str = DENSE_VECTOR
    ) -> dict[str, list[float]]:
        self._check_open()
        valid = [i for i in ids if is_record_id(i)]
        if not valid:
            return {}
        allowed = scope.as_dict()
        out: dict[str, list[float]] = {}
        with self._lock:
            self._check_open()
            got = self._shard.retrieve(valid, with_payload=list(allowed), with_vector=[vector])
        for r in got:
            if in_scope(r.payload, allowed) and isinstance(r.vector, dict) and r.vector.get(vector):
                out[str(r.id)] = list(r.vector[vector])
        return out

    @_engine_call
    def get_points(
        self, ids: Sequence[str], scope: Scope, *, vector: str = DENSE_VECTOR
    ) -> dict[str, RouteHit]:
        self._check_open()
        valid = [i for i in ids if is_record_id(i)]
        if not valid:
            return {}
        with self._lock:
            self._check_open()
            got = self._shard.retrieve(valid, with_payload=True, with_vector=[vector])
        return scoped_points(got, scope, vector)

    @_engine_call
    def _scroll(
        self, scope: Scope | None, flt: RecordFilter | None, *, limit: int, cursor: str | None
    ) -> tuple[list[MemoryRecord], str | None]:
        self._check_open()
        q = _q()
        req = q.ScrollRequest(
            offset=cursor if cursor else None,
            limit=limit,
            filter=_filter(scope, flt),
            with_payload=True,
            with_vector=False,
        )
        with self._lock:
            self._check_open()
            records, nxt = self._shard.scroll(req)
        return [MemoryRecord.from_payload(r.payload or {}) for r in records], (
            str(nxt) if nxt is not None else None
        )

    @_engine_call
    def count(self, scope: Scope, flt: RecordFilter | None = None) -> int:
        self._check_open()
        q = _q()
        req = q.CountRequest(exact=True, filter=_filter(scope, flt))
        with self._lock:
            self._check_open()
            return int(self._shard.count(req))

    @_engine_call
    def facet(
        self, key: str, scope: Scope, flt: RecordFilter | None = None, *, limit: int = 100
    ) -> list[tuple[str, int]]:
        self._check_open()
        q = _q()
        req = q.FacetRequest(key=key, limit=limit, exact=True, filter=_filter(scope, flt))
        with self._lock:
            self._check_open()
            resp = self._shard.facet(req)
        out = []
        for hit in resp.hits:
            value = hit.value
            value = getattr(value, "value", value)
            s = str(value)
            if s.startswith("Keyword(") and s.endswith(")"):
                s = s[len("Keyword(") : -1].strip('"')
            out.append((s, int(hit.count)))
        return out

    @_engine_call
    def query_routes(
        self,
        scope: Scope,
        routes: Sequence[RouteQuery],
        flt: RecordFilter | None = None,
        *,
        with_vectors: bool = False,
        with_payload: bool = True,
    ) -> dict[str, list[RouteHit]]:
        self._check_open()
        q = _q()
        requests = []
        live = [r for r in routes if self._runnable(r)]
        for r in live:
            f = _filter(scope, flt, r.filter)
            with_vector: Any = [DENSE_VECTOR] if with_vectors else False
            payload: Any = True if with_payload else (["ts"] if r.using == "order" else False)
            if r.using == "order":
                query: Any = q.OrderBy(key="ts", direction=q.Direction.Desc)
            elif r.using == "bm25":
                sv = r.vector
                assert sv is not None and not isinstance(sv, list)
                query = q.Query.Nearest(
                    q.SparseVector(indices=sv.indices, values=sv.values), using=BM25_VECTOR
                )
            else:
                query = q.Query.Nearest(
                    list(r.vector) if isinstance(r.vector, list) else [],
                    using=CJK_VECTOR if r.using == CJK_VECTOR else DENSE_VECTOR,
                )
            requests.append(
                q.QueryRequest(
                    limit=r.limit,
                    query=query,
                    filter=f,
                    with_payload=payload,
                    with_vector=with_vector,
                )
            )
        batches: list[Any] = []
        if requests:
            # under the lock: purge() may swap the shard object while a search would use it
            with self._lock:
                self._check_open()
                batches = self._shard.query_batch(q.QueryBatchRequest(requests))
        out: dict[str, list[RouteHit]] = {r.name: [] for r in routes}
        for r, points in zip(live, batches):
            hits = []
            for p in points:
                vec = None
                if with_vectors and isinstance(p.vector, dict):
                    vec = list(p.vector.get(DENSE_VECTOR, []))
                hits.append(RouteHit(str(p.id), float(p.score), p.payload or {}, vec))
            out[r.name] = stable_order(hits, r.using)
        return out


def _copy_sparse(src: str, dst: str) -> str:
    """Copy a file keeping its holes: the engine preallocates its WAL and mmap pages as sparse
    files (32 MB each, nearly all holes); a plain copy would write every zero to disk."""
    size = os.path.getsize(src)
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        offset = 0
        while offset < size:
            try:
                start = os.lseek(fin.fileno(), offset, os.SEEK_DATA)
                end = os.lseek(fin.fileno(), start, os.SEEK_HOLE)
            except OSError:  # ENXIO: only a hole is left (or the filesystem has no SEEK_DATA)
                break
            fin.seek(start)
            fout.seek(start)
            remaining = end - start
            while remaining > 0:
                chunk = fin.read(min(remaining, 1 << 20))
                if not chunk:
                    break
                fout.write(chunk)
                remaining -= len(chunk)
            offset = end
        fout.truncate(size)
    shutil.copystat(src, dst)
    return dst


def _fsync_dir(path: Path) -> None:
    """Make a rename or unlink in ``path`` durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _rebuild_paths(shard_path: Path) -> tuple[Path, Path, Path]:
    return (
        shard_path.with_name(shard_path.name + ".rebuild"),
        shard_path.with_name(shard_path.name + ".rebuilt"),
        shard_path.with_name(shard_path.name + ".old"),
    )


def recover_rebuild(shard_path: Path) -> None:
    """Finish or undo a purge rebuild that a crash interrupted (idempotent, run on open).

    - new shard incomplete (no ``.rebuilt`` marker): drop it, the old shard is intact;
    - marker present and the old shard already moved away: move the new shard in;
    - a leftover ``.old`` shard next to a live one: remove it.
    """
    new_path, done, old_path = _rebuild_paths(shard_path)
    if done.exists() and new_path.exists():
        if shard_path.exists():
            shutil.rmtree(new_path, ignore_errors=True)
        else:
            os.replace(new_path, shard_path)
        done.unlink(missing_ok=True)
    elif new_path.exists():
        shutil.rmtree(new_path, ignore_errors=True)
    done.unlink(missing_ok=True)
    if old_path.exists():
        if shard_path.exists():
            shutil.rmtree(old_path, ignore_errors=True)
        else:
            os.replace(old_path, shard_path)
