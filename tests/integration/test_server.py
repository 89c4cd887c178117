"""The congruence cases against a real Qdrant server (``QDRANT_URL``), beside the embedded engine.

Every case of ``test_congruence.py`` runs here with the engines ``edge`` (Qdrant Edge) and
``server`` (``QdrantStore(url=$QDRANT_URL)``, a fresh collection per fixture, dropped after).

This is the only module of the suite that may be skipped: no Qdrant server exists on the
machines this project is developed and tested on (no network, no Docker), so it runs only
where ``QDRANT_URL`` points at one, e.g. ``docker run -p 6333:6333 qdrant/qdrant`` and
``QDRANT_URL=http://localhost:6333 make test``.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

# The cases are imported so pytest collects them in this module, where the fixtures below
# (same names) replace the local-mode engine with the server.
from test_congruence import (  # type: ignore[import-not-found]
    points,
    test_count_per_scope,
    test_delete_by_filter_only_in_scope,
    test_delete_by_ids_only_in_scope,
    test_facet_counts,
    test_filter_on_record_ids,
    test_filters_match_the_same_records,
    test_get_round_trips_payload_and_respects_scope,
    test_hybrid_query_finds_the_obvious_answer,
    test_hybrid_query_same_ids_same_order,
    test_memory_api_is_congruent,
    test_query_routes_dense_bm25_order_and_filters,
    test_query_routes_with_vectors,
    test_scroll_all_sees_every_tenant,
    test_scroll_pages_cover_every_record_once_in_the_same_order,
    test_scroll_with_filter_and_cursor,
    test_search_never_crosses_scope,
    test_set_payload_only_in_scope,
    test_upsert_same_id_replaces,
)

from prism_memory import FastEmbedEmbedder, Memory, PrismConfig, StoreConfig
from prism_memory.stores import EdgeStore, MemoryStore, PointData, QdrantStore

QDRANT_URL = os.environ.get("QDRANT_URL")

# no Qdrant server on the development machines: see the module docstring
pytestmark = [
    pytest.mark.server,
    pytest.mark.skipif(not QDRANT_URL, reason="set QDRANT_URL to run against a Qdrant server"),
]

__all__ = [
    "points",
    "test_count_per_scope",
    "test_delete_by_filter_only_in_scope",
    "test_delete_by_ids_only_in_scope",
    "test_facet_counts",
    "test_filter_on_record_ids",
    "test_filters_match_the_same_records",
    "test_get_round_trips_payload_and_respects_scope",
    "test_hybrid_query_finds_the_obvious_answer",
    "test_hybrid_query_same_ids_same_order",
    "test_memory_api_is_congruent",
    "test_query_routes_dense_bm25_order_and_filters",
    "test_query_routes_with_vectors",
    "test_scroll_all_sees_every_tenant",
    "test_scroll_pages_cover_every_record_once_in_the_same_order",
    "test_scroll_with_filter_and_cursor",
    "test_search_never_crosses_scope",
    "test_set_payload_only_in_scope",
    "test_upsert_same_id_replaces",
]


def _collection() -> str:
    return f"prism_test_{uuid.uuid4().hex[:12]}"


def _drop(store: QdrantStore) -> None:
    store._client.delete_collection(store.collection)


def _edge_and_server(tmp: Path, points: list[PointData]) -> dict[str, MemoryStore]:
    assert QDRANT_URL is not None
    server = QdrantStore(url=QDRANT_URL, dim=384, collection=_collection())  # fails first
    edge = EdgeStore(tmp / "edge", dim=384, embedder_name="minilm")
    stores: dict[str, MemoryStore] = {"edge": edge, "server": server}
    for store in stores.values():
        store.upsert(points)
    return stores


def _close(stores: dict[str, MemoryStore]) -> None:
    server = stores["server"]
    assert isinstance(server, QdrantStore)
    _drop(server)
    for store in stores.values():
        store.close()


@pytest.fixture(scope="module")
def engines(
    tmp_path_factory: pytest.TempPathFactory, points: list[PointData]
) -> Iterator[dict[str, MemoryStore]]:
    stores = _edge_and_server(tmp_path_factory.mktemp("engines"), points)
    yield stores
    _close(stores)


@pytest.fixture
def fresh_engines(tmp_path: Path, points: list[PointData]) -> Iterator[dict[str, MemoryStore]]:
    stores = _edge_and_server(tmp_path, points)
    yield stores
    _close(stores)


@pytest.fixture
def memories(tmp_path: Path, real_embedder: FastEmbedEmbedder) -> Iterator[dict[str, Memory]]:
    config = PrismConfig(store=StoreConfig(collection=_collection()))
    mems = {
        "edge": Memory(path=tmp_path / "mem", embedder=real_embedder),
        "server": Memory(url=QDRANT_URL, embedder=real_embedder, config=config),
    }
    yield mems
    server = mems["server"].store
    assert isinstance(server, QdrantStore)
    _drop(server)
    for m in mems.values():
        m.close()
