"""The shard of an embedded store: its configuration, its payload indexes, and how it is
created (from a per-process template) or loaded.

Design:
- One configuration (:func:`engine_config`): dense (and CJK) cosine vectors, BM25 with IDF,
  HNSW, WAL on.
- Payload indexes on scope fields (``user_id`` as tenant), layer, kind, task, entity keys, ...
  (:func:`create_indexes`); a store written by an earlier version gets the keyword indexes it
  lacks on open (:func:`add_missing_indexes`).
- Creating ~20 indexes takes 0.1-0.2 s each, so the first store of a process builds them once
  in a template shard (removed at exit) and later stores copy its files
  (:func:`new_shard_from_template`), staged under a temporary name and renamed into place.
- Opening hands the payload indexes' file pages back to the page cache
  (:func:`~prism_memory.heap.release_mapped_files`): the engine reads them in whole on load
  into each index's own structures and afterwards only writes to them, yet an agent process
  hosting an empty store kept ~95 MB of them mapped (RSS); a write maps back what it touches.
- Opening translates the engine's lock into :class:`StoreLockedError` and its other failures
  into :class:`StoreError` (:func:`open_shard`).
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import StoreError, StoreLockedError
from ..heap import release_mapped_files
from ._edge_engine import engine_error, qdrant_edge
from ._edge_files import copy_sparse
from .base import (
    BM25_VECTOR,
    CJK_VECTOR,
    DATETIME_INDEXES,
    DENSE_VECTOR,
    FLOAT_INDEXES,
    KEYWORD_INDEXES,
)

__all__ = [
    "add_missing_indexes",
    "create_indexes",
    "engine_config",
    "new_shard_from_template",
    "open_shard",
    "template_key",
]

_TEMPLATE_LOCK = threading.Lock()
_TEMPLATES: dict[tuple[Any, ...], Path] = {}


def engine_config(dim: int, cjk_dim: int, hnsw_m: int, hnsw_ef_construct: int) -> Any:
    """The shard's configuration: dense (and CJK) cosine vectors, BM25 with IDF, HNSW."""
    q = qdrant_edge()
    return q.EdgeConfig(
        vectors={
            DENSE_VECTOR: q.EdgeVectorParams(size=dim, distance=q.Distance.Cosine),
            **(
                {CJK_VECTOR: q.EdgeVectorParams(size=cjk_dim, distance=q.Distance.Cosine)}
                if cjk_dim
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


def template_key(dim: int, cjk_dim: int, hnsw: tuple[int, int]) -> tuple[Any, ...]:
    """What makes two empty shards the same (one template per key and process)."""
    return (dim, cjk_dim, hnsw, KEYWORD_INDEXES, FLOAT_INDEXES, DATETIME_INDEXES)


def create_indexes(shard: Any, lock: threading.RLock) -> None:
    """Create every payload index on ``shard`` (each a durable update, under ``lock``)."""
    q = qdrant_edge()
    ops = [
        q.UpdateOperation.create_field_index(
            name, q.KeywordIndexParams(is_tenant=name == "user_id")
        )
        for name in KEYWORD_INDEXES
    ]
    ops += [
        q.UpdateOperation.create_field_index(n, q.PayloadSchemaType.Float) for n in FLOAT_INDEXES
    ]
    ops += [
        q.UpdateOperation.create_field_index(n, q.PayloadSchemaType.Datetime)
        for n in DATETIME_INDEXES
    ]
    with lock:
        for op in ops:
            shard.update(op)


def add_missing_indexes(shard: Any, lock: threading.RLock) -> None:
    """Keyword indexes added by a later version (``extraction``): a store written before
    has not got them; each is created once (a durable update of a fraction of a second)."""
    q = qdrant_edge()
    have = set(shard.info().payload_schema)
    for name in KEYWORD_INDEXES:
        if name not in have:
            op = q.UpdateOperation.create_field_index(
                name, q.KeywordIndexParams(is_tenant=name == "user_id")
            )
            with lock:
                shard.update(op)


def new_shard_from_template(
    shard_path: Path,
    config: Any,
    key: tuple[Any, ...],
    lock: threading.RLock,
    check_space: Callable[[], None],
) -> Any:
    """A new, empty shard with every payload index at ``shard_path``, copied from this
    process's template for ``key`` (built first, after ``check_space``, if there is none).
    The copy lands under a temporary name and is renamed into place, so a crash leaves either
    no shard or a complete one."""
    q = qdrant_edge()
    with _TEMPLATE_LOCK:
        template = _TEMPLATES.get(key)
        if template is None or not (template / "segments").exists():
            check_space()
            root = Path(tempfile.mkdtemp(prefix="prism-edge-template-"))
            atexit.register(shutil.rmtree, root, True)
            template = root / "shard"
            shard = q.EdgeShard.create(str(template), config)
            try:
                create_indexes(shard, lock)
                shard.flush()
            finally:
                shard.close()
            _TEMPLATES[key] = template
        staging = shard_path.with_name(shard_path.name + ".creating")
        shutil.rmtree(staging, ignore_errors=True)
        shutil.copytree(template, staging, copy_function=copy_sparse)
    os.replace(staging, shard_path)
    return q.EdgeShard.load(str(shard_path), config)


def open_shard(
    store: Path, shard_path: Path, has_shard: bool, create: Callable[[Path], Any]
) -> Any:
    """Load the shard of the store at ``store``, or ``create`` it; the engine's lock on it
    becomes :class:`StoreLockedError`, its other failures :class:`StoreError`."""
    try:
        shard = qdrant_edge().EdgeShard.load(str(shard_path)) if has_shard else create(shard_path)
    except BaseException as exc:
        err = engine_error(exc, store)
        if not isinstance(exc, Exception) and err is None:
            raise  # KeyboardInterrupt and the like
        msg = str(exc)
        if "WouldBlock" in msg or "lock" in msg.lower():
            raise StoreLockedError(
                f"the memory store at {store} is already open in another process (or "
                "by an EdgeStore made directly in this one). Use one process per path (any "
                "number of Memory objects in it share the store), close the other process's "
                "Memory first, or run a Qdrant server and pass Memory(url=...) so several "
                "processes can share one memory"
            ) from exc
        raise StoreError(f"could not open the memory store at {store}: {msg}") from exc
    # loading reads every payload index's files in whole (~5 MB each, ~95 MB for an empty
    # store) into the index's own structures; the mapped files are only written after that
    release_mapped_files(str(shard_path), containing=f"{os.sep}payload_index{os.sep}")
    return shard
