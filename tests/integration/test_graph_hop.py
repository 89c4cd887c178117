"""The second hop (``graph`` route): an answer told in another session, linked to the first
hop's best record only through a person it names, on both engines and on an old store."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from memories import embedded_points

from prism_memory import FastEmbedEmbedder, Memory, MemoryRecord, Scope
from prism_memory.config import RetrievalConfig
from prism_memory.retrieval.fusion import Candidate
from prism_memory.retrieval.graph import plan_hop
from prism_memory.stores import EdgeStore, MemoryStore, PointData, QdrantStore

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)
USER = "graph-user"
QUERY = "What is my sister up to these days?"
ANSWER = "Maya adopted a greyhound and named him Biscuit."
# (session, text): the answer shares no word with the query; only "Maya" links it to the
# first hop's best record (session one)
TURNS = [
    ("one", "My sister Maya moved to Lisbon last spring."),
    ("one", "The weather in March was cold and rainy."),
    ("two", ANSWER),
    ("two", "I repaired the kitchen shelf on Saturday."),
    ("three", "My colleague is up to something with the quarterly plan."),
    ("three", "These days I am busy with the garden and the tomatoes."),
    ("four", "What is new at the office: a coffee machine that grinds beans."),
    ("four", "I am up early these days to run before work."),
]
# a first hop that keeps only its few best records, so the second hop has somewhere to go
NARROW = {"route_limit": 2, "pool_size": 3, "aux_route_limit": 2, "cache_size": 0}
GRAPH = ["dense", "bm25", "entity", "time", "recent", "graph"]  # the default routes + graph


def _records() -> list[MemoryRecord]:
    return [
        MemoryRecord(
            text=text,
            user_id=USER,
            session_id=sid,
            layer="episodic",
            kind="observation",
            speaker="Ana",
            event_time=T0 + timedelta(days=i),
            created_at=T0 + timedelta(days=i),
            updated_at=T0 + timedelta(days=i),
            metadata={"turn_index": i % 2},
        )
        for i, (sid, text) in enumerate(TURNS)
    ]


@pytest.fixture(scope="module")
def points(real_embedder: FastEmbedEmbedder) -> list[PointData]:
    return embedded_points(_records(), real_embedder)


@pytest.fixture(scope="module")
def engines(
    tmp_path_factory: pytest.TempPathFactory, points: list[PointData]
) -> Iterator[dict[str, MemoryStore]]:
    stores: dict[str, MemoryStore] = {
        "edge": EdgeStore(tmp_path_factory.mktemp("graph") / "edge", dim=384, embedder_name="m"),
        "local": QdrantStore(location=":memory:", dim=384),
    }
    for s in stores.values():
        s.upsert(points)
    yield stores
    for s in stores.values():
        s.close()


def test_the_graph_route_is_congruent_on_both_engines(
    engines: dict[str, MemoryStore], points: list[PointData], real_embedder: FastEmbedEmbedder
) -> None:
    seed = points[0].record  # "My sister Maya moved to Lisbon"
    pool = [Candidate(seed.id, seed.to_payload())]
    route = plan_hop(pool, seeds=1, vector=real_embedder.embed_query(QUERY), space="dense", limit=5)
    assert route is not None
    found = {
        name: [h.id for h in e.query_routes(Scope(user_id=USER), [route])["graph"]]
        for name, e in engines.items()
    }
    assert found["edge"] == found["local"]
    answer = next(p.record for p in points if p.record.text == ANSWER)
    assert found["edge"] == [answer.id]  # the one record of another session naming Maya


@pytest.fixture
def memory(
    tmp_path: Path, real_embedder: FastEmbedEmbedder, points: list[PointData]
) -> Iterator[Memory]:
    m = Memory(path=tmp_path / "store", embedder=real_embedder)
    m._engine.store.upsert(points)
    yield m
    m.close()


def _recall_texts(m: Memory, **knobs: object) -> list[str]:
    cfg = RetrievalConfig(**{**NARROW, **knobs})
    ctx = m.recall(QUERY, user_id=USER, budget_tokens=400, config=cfg)
    return [r.text for r in ctx.records]


def test_recall_reaches_the_answer_linked_through_the_first_hops_person(memory: Memory) -> None:
    with_hop = _recall_texts(memory, routes=GRAPH)
    assert TURNS[0][1] in with_hop  # the first hop's best: the sister, named
    assert ANSWER in with_hop  # the second hop: another session, linked by "Maya"
    assert ANSWER not in _recall_texts(memory)  # the default routes have no second hop


def test_an_old_store_without_link_keys_recalls_as_before(memory: Memory) -> None:
    store = memory._engine.store
    ids = [r.id for r in _records()]
    store.set_payload(ids, Scope(user_id=USER), {"link_keys": None})  # as if written before
    texts = _recall_texts(memory, routes=GRAPH)
    assert TURNS[0][1] in texts and ANSWER not in texts  # nothing to follow, nothing fails
