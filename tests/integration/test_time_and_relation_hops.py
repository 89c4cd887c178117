"""The second hop by time (``graph_time``) and along stored relations (``relations``): an
answer told in another session, reached only because it happened next to the first hop's best
record or is linked to it, on both engines."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest
from memories import embedded_points

from prism_memory import FastEmbedEmbedder, Memory, MemoryRecord, Scope
from prism_memory.config import RetrievalConfig
from prism_memory.records import Relation
from prism_memory.retrieval.fusion import Candidate
from prism_memory.retrieval.hops import plan_relation_hop, plan_time_hops
from prism_memory.stores import MemoryStore, PointData, QdrantStore

T0 = datetime(2023, 6, 1, 18, 0, tzinfo=timezone.utc)
USER = "hops-user"
TIME_QUERY = "What did we do after the roadtrip along the coast?"
HIKE = "Next morning we climbed up to the waterfall, exhausted but happy."
WHY_QUERY = "Why did the beach weekend get called off?"
STORM = "A storm flooded the only road to the village."
# (session, day, text): HIKE shares no word with TIME_QUERY and is told in another session,
# the day after the roadtrip; STORM shares none with WHY_QUERY and is linked to the
# cancellation only by a stored relation
TURNS = [
    ("trip", 0, "The roadtrip along the coast was amazing, we drove for hours."),
    ("trip", 0, "I bought new tyres before we left."),
    ("hike", 1, HIKE),
    ("later", 30, "We want to do another roadtrip along the coast next summer."),
    ("later", 30, "Along the coast the seafood is the best."),
    ("news", 40, STORM),
    ("plans", 41, "The beach weekend got called off, what a pity."),
    ("plans", 41, "Called my sister about the weekend at the beach."),
    ("misc", 60, "The beach near us has a new cafe for the weekend crowd."),
]
NARROW = {"route_limit": 2, "pool_size": 3, "aux_route_limit": 2, "cache_size": 0}
TIME_HOP = ["dense", "bm25", "entity", "time", "recent", "graph_time"]


def _records() -> list[MemoryRecord]:
    recs = [
        MemoryRecord(
            text=text,
            user_id=USER,
            session_id=sid,
            layer="episodic",
            kind="observation",
            speaker="Ana",
            event_time=T0 + timedelta(days=day, minutes=i),
            created_at=T0 + timedelta(days=day, minutes=i),
            updated_at=T0 + timedelta(days=day, minutes=i),
        )
        for i, (sid, day, text) in enumerate(TURNS)
    ]
    storm, called_off = recs[5], recs[6]
    called_off.relations = [Relation(type="caused_by", target_id=storm.id)]
    storm.relations = [Relation(type="causes", target_id=called_off.id)]
    return recs


@pytest.fixture(scope="module")
def points(real_embedder: FastEmbedEmbedder) -> list[PointData]:
    return embedded_points(_records(), real_embedder)


@pytest.fixture(scope="module")
def memory(
    tmp_path_factory: pytest.TempPathFactory,
    real_embedder: FastEmbedEmbedder,
    points: list[PointData],
) -> Iterator[Memory]:
    m = Memory(path=tmp_path_factory.mktemp("hops") / "store", embedder=real_embedder)
    m._engine.store.upsert(points)
    yield m
    m.close()


@pytest.fixture(scope="module")
def engines(memory: Memory, points: list[PointData]) -> Iterator[dict[str, MemoryStore]]:
    local = QdrantStore(location=":memory:", dim=384)
    local.upsert(points)
    yield {"edge": memory._engine.store, "local": local}  # the memory's own embedded store
    local.close()


def _seed(points: list[PointData], index: int) -> list[Candidate]:
    rec = points[index].record
    return [Candidate(rec.id, rec.to_payload())]


def test_both_second_hops_are_congruent_on_both_engines(
    engines: dict[str, MemoryStore], points: list[PointData], real_embedder: FastEmbedEmbedder
) -> None:
    vector = real_embedder.embed_query(TIME_QUERY)
    (by_time,) = plan_time_hops(
        _seed(points, 0), seeds=1, vector=vector, space="dense", limit=5, days=1
    )
    related = plan_relation_hop(_seed(points, 6), seeds=1, vector=vector, space="dense")
    assert related is not None
    found = {
        name: {
            q.name: [
                (h.id, round(h.score, 4)) for h in e.query_routes(Scope(user_id=USER), [q])[q.name]
            ]
            for q in (by_time, related)
        }
        for name, e in engines.items()
    }
    assert found["edge"] == found["local"]
    ids = {p.record.text: p.record.id for p in points}
    assert [i for i, _ in found["edge"][by_time.name]] == [ids[HIKE]]  # the next day only
    assert [i for i, _ in found["edge"]["relations"]] == [ids[STORM]]


def _recall(m: Memory, query: str, **knobs: object) -> tuple[list[str], dict[str, int]]:
    ctx = m.recall(
        query, user_id=USER, budget_tokens=400, config=RetrievalConfig(**{**NARROW, **knobs})
    )
    return [r.text for r in ctx.records], ctx.trace.routes


def test_the_time_hop_reaches_what_happened_next_in_another_session(memory: Memory) -> None:
    texts, routes = _recall(memory, TIME_QUERY, routes=TIME_HOP)
    assert TURNS[0][2] in texts and HIKE in texts and routes["graph_time"] >= 1
    assert HIKE not in _recall(memory, TIME_QUERY)[0]  # off by default


def test_recall_follows_a_stored_relation_and_can_be_told_not_to(memory: Memory) -> None:
    texts, routes = _recall(memory, WHY_QUERY)
    assert TURNS[6][2] in texts and STORM in texts and routes["relations"] == 1
    assert STORM not in _recall(memory, WHY_QUERY, follow_relations=False)[0]


def test_a_relation_to_a_superseded_record_is_not_followed(memory: Memory) -> None:
    store = memory._engine.store
    storm = next(r for r in _records() if r.text == STORM)
    store.set_payload([storm.id], Scope(user_id=USER), {"status": "superseded"})
    try:
        assert STORM not in _recall(memory, WHY_QUERY)[0]  # the base filter still holds
    finally:
        store.set_payload([storm.id], Scope(user_id=USER), {"status": "active"})


def test_a_link_the_llm_stated_changes_what_recall_returns(
    tmp_path_factory: pytest.TempPathFactory, real_embedder: FastEmbedEmbedder
) -> None:
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    storm = {"schema": "Event", "fields": {"description": "a storm flooded the only road"}}
    off = {
        "schema": "Event",
        "fields": {"description": "the beach weekend was called off"},
        "links": [{"type": "caused_by", "item": 0}],
    }
    answers = [json.dumps({"items": [storm, off]})] + ['{"items": []}'] * 3
    m = Memory(
        path=tmp_path_factory.mktemp("llm-links") / "store",
        embedder=real_embedder,
        llm=FakeListChatModel(responses=answers),
    )
    try:
        m.remember(
            ["A storm flooded the only road.", "So our beach weekend got called off."],
            user_id="ana",
            session_id="june",
        )
        for i, text in enumerate(
            [
                "The beach near us has a new cafe for the weekend crowd.",
                "We called my sister about the weekend at the beach.",
                "A beach weekend with friends is planned for August.",
            ]
        ):
            m.remember(text, user_id="ana", session_id=f"later-{i}")
        cfg = RetrievalConfig(**{**NARROW, "pool_size": 2, "route_limit": 1})
        ctx = m.recall(WHY_QUERY, user_id="ana", budget_tokens=400, config=cfg)
        texts = [r.text for r in ctx.records]
        assert any("storm" in t for t in texts) and ctx.trace.routes.get("relations", 0) >= 1
        off_cfg = cfg.model_copy(update={"follow_relations": False})
        texts_off = [r.text for r in m.recall(WHY_QUERY, user_id="ana", config=off_cfg).records]
        assert not any("storm" in t for t in texts_off), texts_off
        assert texts != texts_off, texts
    finally:
        m.close()
