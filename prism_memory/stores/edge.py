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
- This module is the store's state and its calls (open, write, read, purge); the parts it
  composes each have one job: ``_edge_engine`` (the engine's import, errors and filters),
  ``_edge_shard`` (configuration, indexes, creating and loading the shard), ``_edge_files``
  (layout record, purge journal, rebuild swap, disk space) and ``_edge_queries`` (points,
  route queries and facets translated to and from the engine).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import StoreError
from ..records import MemoryRecord, Scope, is_record_id
from ..sparse import SPARSE_VERSION
from ._edge_engine import edge_filter, engine_call, qdrant_edge
from ._edge_files import (
    MB,
    META,
    NEW_STORE_MB,
    OPEN_MB,
    PURGE_JOURNAL,
    StoreLayout,
    check_free_space,
    read_layout,
    rebuild_paths,
    recover_rebuild,
    remove_journal,
    write_journal,
    write_layout,
)
from ._edge_queries import engine_points, facet_counts, route_hits, route_requests
from ._edge_shard import (
    add_missing_indexes,
    engine_config,
    new_shard_from_template,
    open_shard,
    template_key,
)
from .base import (
    DENSE_VECTOR,
    PointData,
    RouteHit,
    RouteQuery,
    StoreBase,
    in_scope,
    scoped_points,
)
from .filters import RecordFilter

__all__ = ["PURGE_JOURNAL", "EdgeStore", "recover_rebuild"]

log = logging.getLogger("prism_memory")


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
        qdrant_edge()  # the engine is imported before anything is created on disk
        # stages: the directory, the store's recorded layout, the engine's configuration,
        # the shard (checked for space, loaded or created), then the layout written
        self._make_dir()
        meta_path = self.path / META
        shard_path = self.path / "shard"
        if meta_path.exists():
            layout = read_layout(meta_path, self.path, dim, embedder_name)
            self._sparse_version = layout.sparse_version
            self._cjk_dim, self._cjk_embedder = layout.cjk_dim, layout.cjk_embedder
        self._config = engine_config(dim, self._cjk_dim, hnsw_m, hnsw_ef_construct)
        self._hnsw = (hnsw_m, hnsw_ef_construct)
        self._dirty = True  # unknown history: the first purge after opening rebuilds
        recover_rebuild(shard_path)
        has_shard = (shard_path / "wal").exists() or (shard_path / "segments").exists()
        if has_shard:
            self._need_space(min(OPEN_MB, self._min_free_mb), "opening the memory store")
        else:
            self._need_space(self._min_free_mb + NEW_STORE_MB, "creating a new memory store")
        if meta_path.exists() and not has_shard:
            # the marker is written only after the shard is complete: its shard was removed
            raise StoreError(
                f"{meta_path} says a memory store exists at {self.path}, but its shard/ "
                f"directory is missing or empty, so every record is gone from disk. Restore "
                f"{shard_path} from a backup; to start an empty store here instead, delete "
                f"{meta_path}"
            )
        self._shard = open_shard(self.path, shard_path, has_shard, self._new_shard)
        add_missing_indexes(self._shard, self._lock)
        if (self.path / PURGE_JOURNAL).exists():
            self._complete_purge()
        if not meta_path.exists():
            layout = StoreLayout(self._sparse_version, self._cjk_dim, self._cjk_embedder)
            write_layout(meta_path, dim, embedder_name, layout)

    def _make_dir(self) -> None:
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot use {self.path} as a memory store: {exc.strerror or exc}; pass a "
                "directory path (existing or new) that this process can write to"
            ) from None

    # -- housekeeping -------------------------------------------------------------------
    @property
    def dim(self) -> int:
        return self._dim

    @property
    def sparse_version(self) -> int:
        """The BM25 tokenizer version the store's sparse vectors were written with."""
        return self._sparse_version

    def _new_shard(self, shard_path: Path) -> Any:
        """A new, empty shard with every payload index, copied from a per-process template.

        Creating the ~20 payload indexes takes 0.1-0.2 s each (each is a durable update), so
        the first store of a process builds them once in a template shard under a temporary
        directory (removed at exit) and later stores copy its files, which takes milliseconds.
        The copy lands under a temporary name and is renamed into place, so a crash leaves
        either no shard or a complete one.
        """
        return new_shard_from_template(
            shard_path,
            self._config,
            template_key(self._dim, self._cjk_dim, self._hnsw),
            self._lock,
            lambda: self._need_space(
                NEW_STORE_MB, "building the empty-store template", Path(tempfile.gettempdir())
            ),
        )

    def _need_space(self, mb: float, what: str, where: Path | None = None) -> None:
        """Raise :class:`StoreError` unless ``mb`` MB are free on the filesystem of the store
        (checks are off with ``min_free_mb=0``)."""
        check_free_space(self._min_free_mb, mb, what, where or self.path)

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

    @engine_call
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

    @engine_call
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
        return write_journal(self.path)

    def cancel_purge(self) -> None:
        """Remove a journal whose deletion was refused before it deleted anything."""
        self._end_purge()

    def _end_purge(self) -> None:
        remove_journal(self.path)

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

    @engine_call
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

    @engine_call
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

    @engine_call
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
    @engine_call
    def upsert(self, points: Sequence[PointData]) -> None:
        if not points:
            return
        self._check_open()
        q = qdrant_edge()
        batch, size = engine_points(points, self._dim, self._cjk_dim)
        # the WAL, the payload/vector storage and the indexes each take about its size
        self._need_space(self._min_free_mb + 3 * size / MB, f"writing {len(batch)} memories")
        with self._lock:
            self._shard.update(q.UpdateOperation.upsert_points(batch))
            self._after_write(len(batch))

    @engine_call
    def set_payload(self, ids: Sequence[str], scope: Scope, payload: dict[str, Any]) -> None:
        valid = [i for i in ids if is_record_id(i)]  # the engine rejects non-UUID ids
        if not valid:
            return
        self._check_open()
        q = qdrant_edge()
        flt = edge_filter(scope, RecordFilter.any_of("id", valid))
        size = 3 * len(valid) * len(json.dumps(payload, default=str))
        self._need_space(self._min_free_mb + size / MB, "updating memories")
        with self._lock:
            self._shard.update(q.UpdateOperation.set_payload_by_filter(flt, payload))

    def delete(self, ids: Sequence[str], scope: Scope) -> int:
        valid = [i for i in ids if is_record_id(i)]  # the engine rejects non-UUID ids
        if not valid:
            return 0
        return self.delete_by_filter(scope, RecordFilter.any_of("id", valid))

    @engine_call
    def delete_by_filter(self, scope: Scope, flt: RecordFilter | None = None) -> int:
        self._check_open()
        q = qdrant_edge()
        f = edge_filter(scope, flt)
        self._need_space(min(OPEN_MB, self._min_free_mb), "deleting memories")
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
        q = qdrant_edge()
        shard_path = self.path / "shard"
        new_path, done, old_path = rebuild_paths(shard_path)
        # the copy reads the live shard's state; flushing first leaves the old shard nothing
        # to write when it is closed below
        self._shard.flush()
        used = sum(p.stat().st_blocks * 512 for p in shard_path.rglob("*") if p.is_file())
        self._need_space(
            self._min_free_mb + NEW_STORE_MB + used / MB,
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
    @engine_call
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

    @engine_call
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

    @engine_call
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

    @engine_call
    def _scroll(
        self, scope: Scope | None, flt: RecordFilter | None, *, limit: int, cursor: str | None
    ) -> tuple[list[MemoryRecord], str | None]:
        self._check_open()
        q = qdrant_edge()
        req = q.ScrollRequest(
            offset=cursor if cursor else None,
            limit=limit,
            filter=edge_filter(scope, flt),
            with_payload=True,
            with_vector=False,
        )
        with self._lock:
            self._check_open()
            records, nxt = self._shard.scroll(req)
        return [MemoryRecord.from_payload(r.payload or {}) for r in records], (
            str(nxt) if nxt is not None else None
        )

    @engine_call
    def count(self, scope: Scope, flt: RecordFilter | None = None) -> int:
        self._check_open()
        q = qdrant_edge()
        req = q.CountRequest(exact=True, filter=edge_filter(scope, flt))
        with self._lock:
            self._check_open()
            return int(self._shard.count(req))

    @engine_call
    def facet(
        self, key: str, scope: Scope, flt: RecordFilter | None = None, *, limit: int = 100
    ) -> list[tuple[str, int]]:
        """``(value, count)`` of ``key`` over the scope's records matching ``flt``.

        Counted by the engine's per-segment facet (``exact=False``), which is exact here: a
        point lives in one segment except while ``optimize`` moves it, and that holds the
        lock this call takes. The engine's ``exact=True`` mode runs one filtered read per
        distinct value instead (1,400 entity keys of a 600-record scope: ~20 ms, against ~1).
        """
        self._check_open()
        q = qdrant_edge()
        req = q.FacetRequest(key=key, limit=limit, exact=False, filter=edge_filter(scope, flt))
        with self._lock:
            self._check_open()
            resp = self._shard.facet(req)
        return facet_counts(resp)

    @engine_call
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
        q = qdrant_edge()
        live = [r for r in routes if self._runnable(r)]
        requests = route_requests(
            scope, live, flt, with_vectors=with_vectors, with_payload=with_payload
        )
        batches: list[Any] = []
        if requests:
            # under the lock: purge() may swap the shard object while a search would use it
            with self._lock:
                self._check_open()
                batches = self._shard.query_batch(q.QueryBatchRequest(requests))
        return route_hits(routes, live, batches, with_vectors=with_vectors)
