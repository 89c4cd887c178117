"""The record-level ``Memory`` API on both engines: what a user relies on after each call."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from prism_memory import (
    FakeEmbedder,
    FastEmbedEmbedder,
    Memory,
    NotFoundError,
    PrismError,
    ScopeError,
)
from prism_memory.memory import RecordPage


def test_add_returns_the_stored_record(any_memory: Memory) -> None:
    when = datetime(2023, 5, 1, 9, 30, tzinfo=timezone.utc)
    rec = any_memory.add(
        "I prefer window seats",
        user_id="alice",
        kind="preference",
        metadata={"topic": "travel"},
        event_time=when,
        entities=["Lisbon", {"type": "person", "name": "Zhang"}],
        importance=0.8,
    )
    got = any_memory.get(rec.id, user_id="alice")
    assert got == rec
    assert got.kind.value == "preference" and got.layer.value == "semantic"
    assert got.event_time == when and got.importance == 0.8
    assert got.entity_keys == ["lisbon", "zhang"]


def test_re_adding_is_an_upsert_keeping_created_at(any_memory: Memory) -> None:
    first = any_memory.add("I prefer window seats", user_id="alice", metadata={"a": 1})
    again = any_memory.add("  i prefer WINDOW seats ", user_id="alice", metadata={"b": 2})
    assert again.id == first.id
    assert any_memory.count(user_id="alice") == 1
    stored = any_memory.get(first.id, user_id="alice")
    assert stored.created_at == first.created_at
    assert stored.updated_at >= first.updated_at
    assert stored.metadata == {"a": 1, "b": 2}
    assert stored.text == "  i prefer WINDOW seats "  # the latest spelling is kept
    # the same text in another scope is another record
    other = any_memory.add("I prefer window seats", user_id="alice2")
    assert other.id != first.id and any_memory.count(user_id="alice") == 1


def test_add_many_is_one_embedding_batch_and_one_upsert(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    emb = FakeEmbedder(dim=32)
    with Memory(path=tmp_path / "s", embedder=emb) as m:
        upserts: list[int] = []
        real_upsert = m.store.upsert
        monkeypatch.setattr(
            m.store, "upsert", lambda points: (upserts.append(len(points)), real_upsert(points))
        )
        before = emb.calls
        records = m.add_many(
            ["first memory", {"text": "second memory", "kind": "preference"}, "first memory"],
            user_id="alice",
        )
        assert emb.calls == before + 1
        assert upserts == [2]  # one upsert; the repeated text is one record
        assert [r.text for r in records] == ["first memory", "second memory", "first memory"]
        assert records[0].id == records[2].id and records[1].kind.value == "preference"
        assert m.count(user_id="alice") == 2
        assert m.add_many([], user_id="alice") == []


def test_update_re_embeds_and_keeps_the_id(any_memory: Memory) -> None:
    m = any_memory
    rec = m.add("I live in Porto", user_id="alice", metadata={"a": 1})
    m.add("My cat is called Miso", user_id="alice")
    vec_before = m.store.get_vectors([rec.id], rec.scope)[rec.id]
    new = m.update(rec.id, user_id="alice", text="I moved to Berlin", metadata={"b": 2})
    assert new.id == rec.id and new.created_at == rec.created_at
    assert new.updated_at > rec.updated_at
    # the caller's keys are merged; the version bookkeeping that history() reads sits beside them
    assert {k: new.metadata[k] for k in ("a", "b")} == {"a": 1, "b": 2}
    assert new.metadata["version"] == 2 and new.metadata["change"]["event"] == "updated"
    assert [v.text for v in m.history(rec.id, user_id="alice")][-2:] == [
        "I live in Porto",
        "I moved to Berlin",
    ]
    vec_after = m.store.get_vectors([rec.id], rec.scope)[rec.id]
    assert sum(a * b for a, b in zip(vec_before, vec_after)) < 0.95
    top = m.search("which city does she live in now, Berlin?", user_id="alice", limit=1)[0]
    assert top.id == rec.id and top.text == "I moved to Berlin"
    # two memories; the earlier text is kept as a superseded state, counted with the history
    assert m.count(user_id="alice", include_history=False) == 2
    assert m.count(user_id="alice") == 3
    with pytest.raises(NotFoundError):
        m.update(rec.id, user_id="bob", text="hijack")
    assert m.get(rec.id, user_id="alice").text == "I moved to Berlin"


def test_update_of_importance_and_kind_only(any_memory: Memory) -> None:
    rec = any_memory.add("Quarterly report due Friday", user_id="alice")
    new = any_memory.update(rec.id, user_id="alice", importance=0.9, kind="event")
    assert (new.importance, new.kind.value, new.text) == (0.9, "event", rec.text)


def test_get_and_delete_are_scoped(any_memory: Memory) -> None:
    m = any_memory
    mine = m.add("john_doe's secret", user_id="john_doe")
    theirs = m.add("john-doe's secret", user_id="john-doe")
    with pytest.raises(NotFoundError, match="no memory"):
        m.get(mine.id, user_id="john-doe")
    with pytest.raises(NotFoundError):
        m.get("not-a-uuid", user_id="john_doe")
    assert m.delete(mine.id, user_id="john-doe") is False
    assert m.get(mine.id, user_id="john_doe") == mine
    assert m.delete(mine.id, user_id="john_doe") is True
    assert m.delete(mine.id, user_id="john_doe") is False
    assert m.get(theirs.id, user_id="john-doe") == theirs


def test_list_pages_and_filters(any_memory: Memory) -> None:
    m = any_memory
    m.add_many([f"note {i}" for i in range(7)], user_id="alice")
    m.add("I prefer tea", user_id="alice", kind="preference")
    m.add("turn one", user_id="alice", session_id="s1", layer="episodic", kind="observation")
    page = m.list(user_id="alice", limit=4)
    assert isinstance(page, RecordPage) and len(page) == 4 and page.next_cursor
    seen = [r.id for r in page]
    while page.next_cursor:
        page = m.list(user_id="alice", limit=4, cursor=page.next_cursor)
        seen += [r.id for r in page]
    assert len(seen) == len(set(seen)) == 9
    assert [r.text for r in m.list(user_id="alice", kind="preference")] == ["I prefer tea"]
    assert [r.text for r in m.list(user_id="alice", layer="episodic")] == ["turn one"]
    assert len(m.list(user_id="alice", session_id="s1")) == 1
    assert m.count(user_id="alice", layer="semantic") == 8


def test_delete_all_only_in_scope_across_every_page(any_memory: Memory) -> None:
    m = any_memory
    m.add_many([f"foo memory number {i}" for i in range(300)], user_id="foo")
    m.add_many([f"foo session turn {i}" for i in range(5)], user_id="foo", session_id="s")
    m.add_many([f"foobar memory number {i}" for i in range(3)], user_id="foobar")
    m.add("agent rule", agent_id="foo")
    assert m.count(user_id="foo") == 305
    assert m.delete_all(user_id="foo") == 305
    assert m.count(user_id="foo") == 0
    assert m.list(user_id="foo") == []
    assert m.search("memory number", user_id="foo") == []
    assert m.count(user_id="foobar") == 3 and m.count(agent_id="foo") == 1
    assert m.delete_all(user_id="foo") == 0


def test_delete_all_of_a_session_keeps_the_rest_of_the_user(any_memory: Memory) -> None:
    m = any_memory
    m.add("long-term fact", user_id="alice")
    m.add_many(["turn a", "turn b"], user_id="alice", session_id="s1")
    m.add("other session", user_id="alice", session_id="s2")
    assert m.delete_all(user_id="alice", session_id="s1") == 2
    assert sorted(r.text for r in m.list(user_id="alice")) == ["long-term fact", "other session"]


def test_export_import_round_trip(
    any_memory: Memory, tmp_path: Path, real_embedder: FastEmbedEmbedder
) -> None:
    m = any_memory
    m.add(
        "Zhang moved to Shanghai",
        user_id="alice",
        kind="event",
        metadata={"topic": "friends", "nested": {"x": [1, 2]}},
        event_time=datetime(2023, 5, 1, tzinfo=timezone.utc),
        entities=[{"type": "person", "name": "Zhang"}],
        source="tool",
        source_ids=["call-1"],
    )
    m.add_many([f"fact {i}" for i in range(5)], user_id="alice")
    m.add("a session turn", user_id="alice", session_id="s1", layer="episodic")
    m.add("bob's own", user_id="bob")
    path = tmp_path / "alice.jsonl"
    assert m.export_jsonl(path, user_id="alice") == 7
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert {d["user_id"] for d in lines} == {"alice"}
    assert all("vector" not in d and "dense" not in d for d in lines)  # one encoded vector:
    assert all(set(d["_embedding"]) == {"model", "dim", "f32"} for d in lines)
    original = {r.id: r.model_dump() for r in m.list(user_id="alice", limit=100)}
    with Memory(location=":memory:", embedder=real_embedder) as other:
        progress: list[int] = []
        report = other.import_jsonl(path, progress=progress.append)
        assert (report.imported, report.skipped, report.errors) == (7, 0, [])
        assert sum(progress) == 7
        copied = {r.id: r.model_dump() for r in other.list(user_id="alice", limit=100)}
        assert copied == original  # identical payloads: ids, times, scores, provenance
        assert other.count(user_id="bob") == 0
        # imported records are searchable (the exported vectors, same model)
        assert other.search("where did Zhang move", user_id="alice", limit=1)[0].text == (
            "Zhang moved to Shanghai"
        )
        # importing twice is idempotent (same ids)
        other.import_jsonl(path)
        assert other.count(user_id="alice") == 7


def test_export_all_scopes(any_memory: Memory, tmp_path: Path) -> None:
    any_memory.add("one", user_id="a")
    any_memory.add("two", agent_id="b")
    path = tmp_path / "all.jsonl"
    assert any_memory.export_jsonl(path, all_scopes=True) == 2
    with pytest.raises(PrismError, match="either a scope or all_scopes"):
        any_memory.export_jsonl(path, user_id="a", all_scopes=True)


def test_stats(any_memory: Memory) -> None:
    any_memory.add("fact one", user_id="alice")
    any_memory.add("I like tea", user_id="alice", kind="preference")
    any_memory.add("turn", user_id="alice", session_id="s", layer="episodic", kind="observation")
    any_memory.add("other user", user_id="alice2")
    stats = any_memory.stats(user_id="alice")
    assert stats["scope"] == {"user_id": "alice"} and stats["total"] == 3
    assert stats["layers"] == {"semantic": 2, "episodic": 1}
    assert stats["kinds"] == {"fact": 1, "preference": 1, "observation": 1}
    assert stats["status"] == {"active": 3}
    assert stats["engine"]["dim"] == 384
    # the engine's point counts cover every tenant: never part of a scope's figures
    assert not {"points", "indexed_vectors", "segments", "store_total"} & {
        *stats,
        *stats["engine"],
    }
    assert any_memory.stats(user_id="alice2")["total"] == 1


def test_stats_of_the_whole_store(any_memory: Memory) -> None:
    any_memory.add("fact one", user_id="alice")
    any_memory.add("other user", user_id="bob")
    any_memory.add("an agent's note", agent_id="planner")
    whole = any_memory.stats(all_scopes=True)
    assert whole["scope"] == {} and whole["store_total"]["points"] == 3
    assert whole["engine"]["dim"] == 384 and "points" not in whole["engine"]
    with pytest.raises(PrismError, match="either a scope or all_scopes"):
        any_memory.stats(user_id="alice", all_scopes=True)
    with pytest.raises(ScopeError):
        any_memory.stats()


def test_context_manager_releases_the_lock(
    tmp_path: Path, real_embedder: FastEmbedEmbedder
) -> None:
    path = tmp_path / "store"
    with Memory(path=path, embedder=real_embedder) as m:
        rec = m.add("survives a restart", user_id="alice")
    with Memory(path=path, embedder=real_embedder) as again:
        assert again.get(rec.id, user_id="alice") == rec
        assert again.search("restart", user_id="alice")[0].id == rec.id
    m2 = Memory(path=path, embedder=real_embedder)
    m2.close()
    m2.close()  # closing twice is harmless
    with Memory(path=path, embedder=real_embedder) as third:
        assert third.count(user_id="alice") == 1


def test_a_closed_memory_says_so(any_memory: Memory, tmp_path: Path) -> None:
    m = any_memory
    rec = m.add("before close", user_id="alice")
    m.close()
    calls = {
        "add": lambda: m.add("x", user_id="alice"),
        "add_many": lambda: m.add_many(["x"], user_id="alice"),
        "search": lambda: m.search("x", user_id="alice"),
        "get": lambda: m.get(rec.id, user_id="alice"),
        "list": lambda: m.list(user_id="alice"),
        "count": lambda: m.count(user_id="alice"),
        "update": lambda: m.update(rec.id, user_id="alice", text="y"),
        "delete": lambda: m.delete(rec.id, user_id="alice"),
        "delete_all": lambda: m.delete_all(user_id="alice"),
        "export": lambda: m.export_jsonl(tmp_path / "x.jsonl", user_id="alice"),
        "import": lambda: m.import_jsonl(tmp_path / "x.jsonl"),
        "stats": lambda: m.stats(user_id="alice"),
        "flush": m.flush,
        "aadd": lambda: asyncio.run(m.aadd("x", user_id="alice")),
    }
    for name, call in calls.items():
        with pytest.raises(PrismError, match="this Memory is closed; create a new Memory"):
            call()
        assert name


async def test_async_shells(any_memory: Memory) -> None:
    m = any_memory
    rec = await m.aadd("I prefer window seats", user_id="alice", kind="preference")
    many = await m.aadd_many(["budget is 500", "vegetarian"], user_id="alice")
    assert len(many) == 2
    hits = await m.asearch("window seat", user_id="alice", limit=1)
    assert hits[0].id == rec.id
    assert await m.aget(rec.id, user_id="alice") == rec
    assert len(await m.alist(user_id="alice")) == 3
    assert await m.adelete(rec.id, user_id="alice") is True
    assert await m.adelete_all(user_id="alice") == 2
    results = await asyncio.gather(*(m.aadd(f"parallel {i}", user_id="bob") for i in range(4)))
    assert len({r.id for r in results}) == 4 and m.count(user_id="bob") == 4


def test_search_hits_carry_scores_and_routes(any_memory: Memory) -> None:
    m = any_memory
    m.add("I prefer window seats", user_id="alice")
    m.add("I am allergic to peanuts", user_id="alice")
    m.add("quantum chromodynamics lecture notes", user_id="alice")
    hits = m.search("peanuts allergy", user_id="alice", limit=3)
    assert hits[0].text == "I am allergic to peanuts"
    assert set(hits[0].routes) == {"dense", "bm25"}
    assert set(hits[0].route_scores) == {"dense", "bm25"}
    # ordered by the fused value; score is the relevance in [0, 1]
    assert [h.rank_score for h in hits] == sorted((h.rank_score for h in hits), reverse=True)
    assert all(0.0 <= h.score <= 1.0 for h in hits)
    assert all(h.routes == ["dense"] for h in hits[1:])  # no shared word: dense only
    assert m.search("peanuts", user_id="alice", limit=1, filters={"kind": "preference"}) == []


def test_the_packaged_model_runs_without_busy_waiting_threads(
    real_embedder: FastEmbedEmbedder,
) -> None:
    """ONNX Runtime's spinning worker threads would steal the CPU from the read path on small
    machines; the packaged model's session is reopened with spinning off, same vectors."""
    import numpy as np

    vec = real_embedder.embed_query("window seat on long flights")
    session = real_embedder._load().session
    opts = session.get_session_options()
    assert opts.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert len(vec) == 384
    assert abs(float(np.linalg.norm(vec)) - 1.0) < 1e-3
    other = real_embedder.embed_query("aisle seat preference for flights")
    assert float(np.dot(vec, other)) > 0.5
