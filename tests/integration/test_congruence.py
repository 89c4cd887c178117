"""Congruence: the same cases against every engine, compared result by result.

Modelled on qdrant-client's ``tests/congruence_tests``: one fixed data set (real MiniLM vectors,
fixed timestamps, so payloads are byte-identical) is written to the embedded Qdrant Edge store
and to qdrant-client local mode (``":memory:"``); every operation of the ``MemoryStore``
protocol and of ``Memory`` is run on both and must give the same ids, order, counts and pages.
Each case also asserts the expected answer, so two engines that are wrong the same way fail.

``test_server.py`` imports these cases and runs them against a Qdrant server as well.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from memories import embedded_points

from prism_memory import FastEmbedEmbedder, Memory, MemoryRecord, NotFoundError, Scope
from prism_memory.records import Entity
from prism_memory.retrieval.hybrid import hybrid_query
from prism_memory.sparse import SparseEncoder
from prism_memory.stores import (
    EdgeStore,
    MemoryStore,
    PointData,
    QdrantStore,
    RecordFilter,
    RouteQuery,
    parse_filters,
)

T0 = datetime(2023, 5, 1, 9, 0, tzinfo=timezone.utc)

# (scope, text, kind, extra fields). Same texts in look-alike scopes test isolation.
_ROWS: list[tuple[dict[str, str], str, str, dict[str, Any]]] = [
    (
        {"user_id": "foo"},
        "I prefer window seats on long flights",
        "preference",
        {"topic": "travel"},
    ),
    ({"user_id": "foo"}, "My budget for the Lisbon trip is 500 euros", "fact", {"topic": "travel"}),
    ({"user_id": "foo"}, "Zhang recommended the ramen place near the station", "event", {}),
    ({"user_id": "foo"}, "I am allergic to peanuts", "fact", {"topic": "health"}),
    ({"user_id": "foo"}, "The quarterly report is due on Friday", "fact", {"topic": "work"}),
    ({"user_id": "foo"}, "I went hiking with Maria in the Alps last summer", "event", {}),
    ({"user_id": "foo"}, "My sister Maria lives in Berlin", "fact", {"topic": "family"}),
    ({"user_id": "foo"}, "I dislike horror movies", "preference", {"topic": "leisure"}),
    ({"user_id": "foo"}, "The dentist appointment moved to Tuesday at 3pm", "event", {}),
    (
        {"user_id": "foo"},
        "Our team uses Python and Rust for the backend",
        "fact",
        {"topic": "work"},
    ),
    ({"user_id": "foo"}, "I drink oat milk in my coffee", "preference", {"topic": "food"}),
    ({"user_id": "foo"}, "Zhang moved to Shanghai for a new job", "event", {"topic": "friends"}),
    ({"user_id": "foo", "session_id": "s1"}, "Let's book the train to Porto", "observation", {}),
    ({"user_id": "foo", "session_id": "s1"}, "The train leaves at 8:15 from Oriente", "result", {}),
    (
        {"user_id": "foo", "session_id": "s2"},
        "I need a vegetarian restaurant tonight",
        "observation",
        {},
    ),
    (
        {"user_id": "foo", "agent_id": "planner"},
        "Plan: compare three hotels in Porto",
        "action",
        {},
    ),
    (
        {"user_id": "foobar"},
        "I prefer window seats on long flights",
        "preference",
        {"topic": "travel"},
    ),
    ({"user_id": "foobar"}, "I am allergic to shellfish", "fact", {"topic": "health"}),
    ({"user_id": "foobar"}, "Zhang is my landlord", "fact", {}),
    ({"user_id": "john_doe"}, "I prefer aisle seats", "preference", {"topic": "travel"}),
    (
        {"user_id": "john_doe"},
        "My budget for the Lisbon trip is 500 euros",
        "fact",
        {"topic": "travel"},
    ),
    ({"user_id": "john-doe"}, "I prefer aisle seats", "preference", {"topic": "travel"}),
    ({"user_id": "john-doe"}, "I am allergic to peanuts", "fact", {"topic": "health"}),
    ({"agent_id": "planner"}, "Always confirm bookings before paying", "fact", {}),
]
_ENTITIES = {"Zhang", "Maria", "Lisbon", "Porto", "Berlin", "Shanghai", "Alps"}


def make_records() -> list[MemoryRecord]:
    """The fixed data set: distinct timestamps, deterministic ids, importance and entities."""
    records = []
    for i, (scope, text, kind, extra) in enumerate(_ROWS):
        when = T0 + timedelta(days=3 * i, hours=i)
        entities = [
            Entity(type="thing", name=w.strip(".,")) for w in text.split() if w in _ENTITIES
        ]
        layer = "episodic" if "session_id" in scope else "semantic"
        records.append(
            MemoryRecord(
                text=text,
                kind=kind,
                layer=layer,
                metadata={**extra, "n": i},
                entities=entities,
                event_time=when,
                created_at=when,
                updated_at=when,
                importance=round(0.1 + (i % 9) / 10, 2),
                **scope,
            )
        )
    return records


RECORDS = make_records()
FOO = Scope(user_id="foo")


def ids_of(records: list[MemoryRecord], **match: Any) -> set[str]:
    """Ids of the data set's records whose fields equal ``match``."""
    return {r.id for r in records if all(getattr(r, k) == v for k, v in match.items())}


@pytest.fixture(scope="module")
def points(real_embedder: FastEmbedEmbedder) -> list[PointData]:
    """The data set with real dense and BM25 vectors, embedded once per module."""
    return embedded_points(RECORDS, real_embedder)


def _edge_and_local(tmp: Path, points: list[PointData]) -> dict[str, MemoryStore]:
    edge = EdgeStore(tmp / "edge", dim=384, embedder_name="minilm")
    local = QdrantStore(location=":memory:", dim=384)
    stores: dict[str, MemoryStore] = {"edge": edge, "local": local}
    for store in stores.values():
        store.upsert(points)
    return stores


@pytest.fixture(scope="module")
def engines(
    tmp_path_factory: pytest.TempPathFactory, points: list[PointData]
) -> Iterator[dict[str, MemoryStore]]:
    """Both engines holding the same data set, shared by the read-only cases."""
    stores = _edge_and_local(tmp_path_factory.mktemp("engines"), points)
    yield stores
    for store in stores.values():
        store.close()


@pytest.fixture
def fresh_engines(tmp_path: Path, points: list[PointData]) -> Iterator[dict[str, MemoryStore]]:
    """Both engines holding the same data set, fresh for a case that writes."""
    stores = _edge_and_local(tmp_path, points)
    yield stores
    for store in stores.values():
        store.close()


def same(results: dict[str, Any]) -> Any:
    """Assert every engine gave the same result and return it."""
    values = list(results.values())
    for name, value in results.items():
        assert value == values[0], f"{name} differs: {value!r} != {values[0]!r}"
    return values[0]


def scroll_ids(store: MemoryStore, scope: Scope, flt: RecordFilter | None, page: int) -> list[str]:
    out: list[str] = []
    cursor: str | None = None
    while True:
        records, cursor = store.scroll(scope, flt, limit=page, cursor=cursor)
        assert len(records) <= page
        out += [r.id for r in records]
        if cursor is None:
            return out


# -- counts, scroll, get ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("scope", "expected"),
    [
        ({"user_id": "foo"}, 16),
        ({"user_id": "foobar"}, 3),
        ({"user_id": "fo"}, 0),
        ({"user_id": "john_doe"}, 2),
        ({"user_id": "john-doe"}, 2),
        ({"user_id": "foo", "session_id": "s1"}, 2),
        ({"session_id": "s1"}, 2),
        ({"agent_id": "planner"}, 2),
        ({"user_id": "foo", "agent_id": "planner"}, 1),
    ],
)
def test_count_per_scope(
    engines: dict[str, MemoryStore], scope: dict[str, str], expected: int
) -> None:
    s = Scope(**scope)
    assert same({n: e.count(s) for n, e in engines.items()}) == expected
    assert same({n: set(scroll_ids(e, s, None, 100)) for n, e in engines.items()}) == ids_of(
        RECORDS, **scope
    )


@pytest.mark.parametrize("page", [1, 3, 7, 16, 100])
def test_scroll_pages_cover_every_record_once_in_the_same_order(
    engines: dict[str, MemoryStore], page: int
) -> None:
    order = same({n: scroll_ids(e, FOO, None, page) for n, e in engines.items()})
    assert len(order) == len(set(order)) == 16
    assert set(order) == ids_of(RECORDS, user_id="foo")


def test_scroll_with_filter_and_cursor(engines: dict[str, MemoryStore]) -> None:
    flt = parse_filters({"kind": ["fact", "preference"]})
    got = same({n: scroll_ids(e, FOO, flt, 2) for n, e in engines.items()})
    expected = {
        r.id for r in RECORDS if r.user_id == "foo" and r.kind.value in ("fact", "preference")
    }
    assert set(got) == expected and len(got) == len(expected) == 8


def test_get_round_trips_payload_and_respects_scope(engines: dict[str, MemoryStore]) -> None:
    mine = [r for r in RECORDS if r.user_id == "foo"][:3]
    theirs = next(r for r in RECORDS if r.user_id == "foobar")
    ids = [mine[2].id, theirs.id, "not-a-uuid", mine[0].id]
    got = same({n: [r.model_dump() for r in e.get(ids, FOO)] for n, e in engines.items()})
    # order of the request, other scope and invalid ids dropped, payload identical to what we wrote
    assert got == [mine[2].model_dump(), mine[0].model_dump()]
    assert same({n: e.get([theirs.id], Scope(user_id="foobar"))[0].id for n, e in engines.items()})
    vectors = {n: e.get_vectors([mine[0].id, theirs.id], FOO) for n, e in engines.items()}
    for v in vectors.values():
        assert list(v) == [mine[0].id] and len(v[mine[0].id]) == 384


# -- filters -----------------------------------------------------------------------------
_FILTER_CASES: list[tuple[dict[str, Any], Any]] = [
    ({"kind": "preference"}, lambda r: r.kind.value == "preference"),
    ({"kind": ["event", "observation"]}, lambda r: r.kind.value in ("event", "observation")),
    ({"layer": "episodic"}, lambda r: r.layer.value == "episodic"),
    ({"metadata.topic": "travel"}, lambda r: r.metadata.get("topic") == "travel"),
    (
        {"metadata.topic": ["work", "health"]},
        lambda r: r.metadata.get("topic") in ("work", "health"),
    ),
    ({"metadata.n": 3}, lambda r: r.metadata["n"] == 3),
    ({"entities": "zhang"}, lambda r: "zhang" in r.entity_keys),
    ({"entities": ["Maria", "PORTO"]}, lambda r: {"maria", "porto"} & set(r.entity_keys)),
    ({"importance": {"gte": 0.7}}, lambda r: r.importance >= 0.7),
    ({"importance": {"gt": 0.2, "lte": 0.5}}, lambda r: 0.2 < r.importance <= 0.5),
    (
        {"event_time": {"gte": T0 + timedelta(days=10), "lt": T0 + timedelta(days=30)}},
        lambda r: T0 + timedelta(days=10) <= r.event_time < T0 + timedelta(days=30),
    ),
    (
        {"event_time": {"gte": "2023-06-01T00:00:00Z"}},
        lambda r: r.event_time >= datetime(2023, 6, 1, tzinfo=timezone.utc),
    ),
    (
        {"created_at": {"lt": datetime(2023, 5, 10)}},  # naive = UTC
        lambda r: r.created_at < datetime(2023, 5, 10, tzinfo=timezone.utc),
    ),
    ({"task_id": None}, lambda r: r.task_id is None),
    (
        {"kind": "fact", "metadata.topic": "travel"},
        lambda r: r.kind.value == "fact" and r.metadata.get("topic") == "travel",
    ),
]


@pytest.mark.parametrize(
    ("filters", "predicate"), _FILTER_CASES, ids=[str(c[0]) for c in _FILTER_CASES]
)
def test_filters_match_the_same_records(
    engines: dict[str, MemoryStore], filters: dict[str, Any], predicate: Any
) -> None:
    flt = parse_filters(filters)
    expected = {r.id for r in RECORDS if r.user_id == "foo" and predicate(r)}
    assert expected, "every filter case must select something"
    assert same({n: e.count(FOO, flt) for n, e in engines.items()}) == len(expected)
    assert same({n: set(scroll_ids(e, FOO, flt, 5)) for n, e in engines.items()}) == expected


def test_filter_on_record_ids(engines: dict[str, MemoryStore]) -> None:
    ids = [r.id for r in RECORDS[:3]] + [RECORDS[17].id]  # the last belongs to foobar
    flt = RecordFilter.any_of("id", ids)
    assert same({n: set(scroll_ids(e, FOO, flt, 10)) for n, e in engines.items()}) == set(ids[:3])


# -- search ----------------------------------------------------------------------------
_QUERIES = [
    "which seat do I like on a plane?",
    "what am I allergic to",
    "Zhang",
    "Porto train",
    "how much money can I spend in Lisbon",
]


@pytest.mark.parametrize("query", _QUERIES)
def test_hybrid_query_same_ids_same_order(
    engines: dict[str, MemoryStore], real_embedder: FastEmbedEmbedder, query: str
) -> None:
    dense = real_embedder.embed_query(query)
    sparse = SparseEncoder().query(query)
    hits = {n: hybrid_query(e, FOO, dense, sparse, limit=8) for n, e in engines.items()}
    order = same({n: [h.id for h in hs] for n, hs in hits.items()})
    assert len(order) == 8 and set(order) <= ids_of(RECORDS, user_id="foo")
    same({n: [h.routes for h in hs] for n, hs in hits.items()})
    for a, b in zip(hits["edge"], hits[next(k for k in hits if k != "edge")]):
        assert a.rank_score == pytest.approx(b.rank_score, abs=1e-9)  # the fused value
        assert a.score == pytest.approx(b.score, abs=1e-5)  # relevance: float32 vectors
        assert 0.0 <= a.score <= 1.0
        for route in a.route_scores:
            assert a.route_scores[route] == pytest.approx(b.route_scores[route], rel=1e-3, abs=1e-3)


def test_hybrid_query_finds_the_obvious_answer(
    engines: dict[str, MemoryStore], real_embedder: FastEmbedEmbedder
) -> None:
    query = "what am I allergic to"
    for name, e in engines.items():
        top = hybrid_query(
            e, FOO, real_embedder.embed_query(query), SparseEncoder().query(query), limit=3
        )
        assert top[0].text == "I am allergic to peanuts", name
        assert set(top[0].routes) == {"dense", "bm25"}


def test_query_routes_dense_bm25_order_and_filters(
    engines: dict[str, MemoryStore], real_embedder: FastEmbedEmbedder
) -> None:
    q = "train to Porto"
    routes = [
        RouteQuery("dense", "dense", real_embedder.embed_query(q), 5),
        RouteQuery("bm25", "bm25", SparseEncoder().query(q), 5),
        RouteQuery("recent", "order", None, 4),
        RouteQuery(
            "porto", "dense", real_embedder.embed_query(q), 5, parse_filters({"entities": "porto"})
        ),
        RouteQuery("empty_bm25", "bm25", SparseEncoder().query("the a of"), 5),
    ]
    res = {
        n: e.query_routes(
            FOO,
            routes,
            parse_filters(
                {"kind": ["observation", "result", "action", "event", "fact", "preference"]}
            ),
        )
        for n, e in engines.items()
    }
    by_route = same({n: {k: [h.id for h in v] for k, v in r.items()} for n, r in res.items()})
    foo_ids = ids_of(RECORDS, user_id="foo")
    assert all(set(v) <= foo_ids for v in by_route.values())
    # "order" = newest first by event time
    newest = sorted((r for r in RECORDS if r.user_id == "foo"), key=lambda r: r.time, reverse=True)
    assert by_route["recent"] == [r.id for r in newest[:4]]
    assert set(by_route["porto"]) == {
        r.id for r in RECORDS if r.user_id == "foo" and "porto" in r.entity_keys
    }
    assert by_route["empty_bm25"] == []  # stopwords only: the route is skipped, not an error
    assert {RECORDS[12].id} & set(by_route["bm25"])
    for r in res.values():
        for hits in r.values():
            assert [h.score for h in hits] == sorted(
                (h.score for h in hits), reverse=True
            ) or hits is r["recent"]


def test_query_routes_with_vectors(
    engines: dict[str, MemoryStore], real_embedder: FastEmbedEmbedder
) -> None:
    routes = [RouteQuery("dense", "dense", real_embedder.embed_query("coffee"), 2)]
    for name, e in engines.items():
        hits = e.query_routes(FOO, routes, with_vectors=True)["dense"]
        assert hits and all(h.vector is not None and len(h.vector) == 384 for h in hits), name


def test_search_never_crosses_scope(
    engines: dict[str, MemoryStore], real_embedder: FastEmbedEmbedder
) -> None:
    q = "I prefer aisle seats"
    dense, sparse = real_embedder.embed_query(q), SparseEncoder().query(q)
    for user in ("john_doe", "john-doe", "foobar", "foo"):
        s = Scope(user_id=user)
        got = same(
            {
                n: [h.id for h in hybrid_query(e, s, dense, sparse, limit=50)]
                for n, e in engines.items()
            }
        )
        assert set(got) == ids_of(RECORDS, user_id=user)


# -- facet -----------------------------------------------------------------------------
def test_facet_counts(engines: dict[str, MemoryStore]) -> None:
    kinds = same({n: sorted(e.facet("kind", FOO)) for n, e in engines.items()})
    expected: dict[str, int] = {}
    for r in RECORDS:
        if r.user_id == "foo":
            expected[r.kind.value] = expected.get(r.kind.value, 0) + 1
    assert dict(kinds) == expected
    layers = same(
        {
            n: sorted(e.facet("layer", FOO, parse_filters({"kind": "observation"})))
            for n, e in engines.items()
        }
    )
    assert layers == [("episodic", 2)]
    assert same({n: e.facet("kind", Scope(user_id="nobody")) for n, e in engines.items()}) == []


def test_facet_counts_stay_exact_as_points_are_rewritten(
    fresh_engines: dict[str, MemoryStore], points: list[PointData]
) -> None:
    """Every rewrite moves a point to another segment of the embedded engine, and its facet
    sums the segments' counts: each value still counts each current record once."""
    engines = fresh_engines
    kinds = {r.id: r.kind.value for r in RECORDS if r.user_id == "foo"}
    retyped = [RECORDS[0].id, RECORDS[4].id]
    for e in engines.values():
        e.set_payload(retyped, FOO, {"kind": "event"})
        e.upsert([points[4]])  # written again as it was: a fact
        e.delete([RECORDS[5].id], FOO)
    kinds.update({RECORDS[0].id: "event"})
    del kinds[RECORDS[5].id]
    if isinstance(engines["edge"], EdgeStore):
        engines["edge"].optimize()
    expected: dict[str, int] = {}
    for kind in kinds.values():
        expected[kind] = expected.get(kind, 0) + 1
    assert dict(same({n: sorted(e.facet("kind", FOO)) for n, e in engines.items()})) == expected


# -- writes ------------------------------------------------------------------------------
def test_set_payload_only_in_scope(fresh_engines: dict[str, MemoryStore]) -> None:
    engines = fresh_engines
    target = RECORDS[0]  # foo
    twin = RECORDS[16]  # the same text for foobar
    for e in engines.values():
        e.set_payload([target.id, twin.id], FOO, {"utility": 0.9, "status": "superseded"})
        e.set_payload([target.id], Scope(user_id="foobar"), {"utility": 0.0})  # wrong scope: no-op
        e.set_payload(["not-a-uuid"], FOO, {"utility": 0.0})  # cannot exist: no-op, no error
    got = same({n: e.get([target.id], FOO)[0].model_dump() for n, e in engines.items()})
    assert got["utility"] == 0.9 and got["status"].value == "superseded"
    assert got["text"] == target.text and got["created_at"] == target.created_at
    twin_after = same(
        {n: e.get([twin.id], Scope(user_id="foobar"))[0].utility for n, e in engines.items()}
    )
    assert twin_after == 0.5
    assert (
        same({n: e.count(FOO, parse_filters({"status": "superseded"})) for n, e in engines.items()})
        == 1
    )
    assert (
        same(
            {n: e.count(FOO, parse_filters({"utility": {"gte": 0.8}})) for n, e in engines.items()}
        )
        == 1
    )


def test_delete_by_ids_only_in_scope(fresh_engines: dict[str, MemoryStore]) -> None:
    engines = fresh_engines
    mine, theirs = RECORDS[3], RECORDS[22]  # "allergic to peanuts" for foo and john-doe
    assert same({n: e.delete([mine.id, theirs.id, "junk"], FOO) for n, e in engines.items()}) == 1
    assert same({n: e.count(FOO) for n, e in engines.items()}) == 15
    assert same({n: e.count(Scope(user_id="john-doe")) for n, e in engines.items()}) == 2
    assert same({n: e.get([mine.id], FOO) for n, e in engines.items()}) == []
    assert same({n: e.delete([mine.id], FOO) for n, e in engines.items()}) == 0


def test_delete_by_filter_only_in_scope(fresh_engines: dict[str, MemoryStore]) -> None:
    engines = fresh_engines
    flt = parse_filters({"metadata.topic": "travel"})
    assert same({n: e.delete_by_filter(FOO, flt) for n, e in engines.items()}) == 2
    assert same({n: e.count(FOO, flt) for n, e in engines.items()}) == 0
    for user, left in (("foobar", 1), ("john_doe", 2), ("john-doe", 1)):
        assert same({n: e.count(Scope(user_id=user), flt) for n, e in engines.items()}) == left
    # a whole narrower scope: session s1 only
    assert (
        same(
            {
                n: e.delete_by_filter(Scope(user_id="foo", session_id="s1"))
                for n, e in engines.items()
            }
        )
        == 2
    )
    assert same({n: e.count(FOO) for n, e in engines.items()}) == 12
    for e in engines.values():
        e.purge()
    assert same({n: e.count(Scope(agent_id="planner")) for n, e in engines.items()}) == 2


def test_upsert_same_id_replaces(
    fresh_engines: dict[str, MemoryStore], points: list[PointData]
) -> None:
    engines = fresh_engines
    p = points[4]
    changed = p.record.model_copy(update={"metadata": {"topic": "work", "n": 4, "edited": True}})
    for e in engines.values():
        e.upsert([PointData(changed, p.dense, p.sparse)])
    assert same({n: e.count(FOO) for n, e in engines.items()}) == 16
    assert (
        same({n: e.get([p.record.id], FOO)[0].metadata for n, e in engines.items()})["edited"]
        is True
    )


def test_scroll_all_sees_every_tenant(engines: dict[str, MemoryStore]) -> None:
    def every(e: MemoryStore) -> list[str]:
        out, cursor = [], None
        while True:
            recs, cursor = e.scroll_all(limit=5, cursor=cursor)
            out += [r.id for r in recs]
            if cursor is None:
                return out

    got = same({n: every(e) for n, e in engines.items()})
    assert sorted(got) == sorted(r.id for r in RECORDS)


# -- through Memory ---------------------------------------------------------------------
@pytest.fixture
def memories(tmp_path: Path, real_embedder: FastEmbedEmbedder) -> Iterator[dict[str, Memory]]:
    mems = {
        "edge": Memory(path=tmp_path / "mem", embedder=real_embedder),
        "local": Memory(location=":memory:", embedder=real_embedder),
    }
    yield mems
    for m in mems.values():
        m.close()


def _load(m: Memory) -> None:
    for r in RECORDS:
        m.add(
            r.text,
            **r.scope.as_dict(),
            kind=r.kind,
            layer=r.layer,
            metadata=r.metadata,
            event_time=r.event_time,
            entities=r.entities,
            importance=r.importance,
        )


def test_memory_api_is_congruent(memories: dict[str, Memory]) -> None:
    for m in memories.values():
        _load(m)
    # ids are deterministic: every engine assigns the data set's ids
    listed = same(
        {n: sorted(r.id for r in m.list(user_id="foo", limit=100)) for n, m in memories.items()}
    )
    assert listed == sorted(ids_of(RECORDS, user_id="foo"))
    for q in _QUERIES:
        same({n: [h.id for h in m.search(q, user_id="foo", limit=6)] for n, m in memories.items()})
    hits = same(
        {
            n: [
                h.text
                for h in m.search(
                    "seats",
                    user_id="foo",
                    filters={"metadata.topic": "travel", "kind": "preference"},
                )
            ]
            for n, m in memories.items()
        }
    )
    assert hits == ["I prefer window seats on long flights"]
    for user in ("foo", "foobar", "john_doe", "john-doe"):
        got = same(
            {
                n: {h.id for h in m.search("I prefer aisle seats", user_id=user, limit=50)}
                for n, m in memories.items()
            }
        )
        assert got == ids_of(RECORDS, user_id=user)

    # pagination through Memory.list with cursors
    def pages(m: Memory) -> list[list[str]]:
        out, cursor = [], None
        while True:
            page = m.list(user_id="foo", limit=5, cursor=cursor)
            out.append([r.id for r in page])
            cursor = page.next_cursor
            if cursor is None:
                return out

    all_pages = same({n: pages(m) for n, m in memories.items()})
    assert [len(p) for p in all_pages] == [5, 5, 5, 1]
    assert same({n: m.count(user_id="foo", layer="episodic") for n, m in memories.items()}) == 3
    stats = same(
        {
            n: {k: v for k, v in m.stats(user_id="foo").items() if k != "engine"}
            for n, m in memories.items()
        }
    )
    assert stats["total"] == 16 and stats["layers"] == {"semantic": 13, "episodic": 3}
    # update / delete / delete_all in scope
    target = RECORDS[7]
    for m in memories.values():
        m.update(
            target.id, user_id="foo", text="I love horror movies now", metadata={"changed": True}
        )
    top = same(
        {n: m.search("horror films", user_id="foo", limit=1)[0].text for n, m in memories.items()}
    )
    assert top == "I love horror movies now"
    assert same({n: m.delete(RECORDS[16].id, user_id="foo") for n, m in memories.items()}) is False
    assert same({n: m.delete_all(user_id="john_doe") for n, m in memories.items()}) == 2
    assert same({n: m.count(user_id="john-doe") for n, m in memories.items()}) == 2
    for m in memories.values():
        with pytest.raises(NotFoundError):
            m.get(RECORDS[19].id, user_id="john_doe")
