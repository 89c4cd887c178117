"""PrismStore on the embedded engine with the fake embedder: the LangGraph BaseStore contract."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from langgraph.store.base import GetOp, InvalidNamespaceError, ListNamespacesOp, PutOp, SearchOp

from langchain_prism import PrismStore
from langchain_prism._namespaces import (
    encode_namespace,
    matches_filter,
    matches_namespace,
    namespace_user_id,
)
from prism_memory import FakeEmbedder, Memory


@pytest.fixture
def store() -> Iterator[PrismStore]:
    m = Memory(location=":memory:", embedder=FakeEmbedder(dim=64))
    yield PrismStore(m)
    m.close()


def test_encoding_is_injective_per_segment() -> None:
    spellings = [("john_doe",), ("john-doe",), ("a/b",), ("a", "b"), ("a%2Fb",), ("John_doe",)]
    assert len({encode_namespace(ns) for ns in spellings}) == len(spellings)
    assert len({namespace_user_id(ns) for ns in spellings}) == len(spellings)
    long_ns = ("x" * 400, "y" * 400)
    assert namespace_user_id(long_ns).startswith("nsh:")
    assert namespace_user_id(long_ns) != namespace_user_id(("x" * 400, "y" * 399))


def test_namespace_matching_is_by_whole_segment() -> None:
    assert matches_namespace(("memories", "john_doe"), prefix=("memories",))
    assert not matches_namespace(("john_doe",), prefix=("john",))
    assert not matches_namespace(("john-doe",), prefix=("john_doe",))
    assert matches_namespace(("a", "b", "c"), prefix=("a", "*"), suffix=("c",))
    assert not matches_namespace(("a",), prefix=("a", "b"))


def test_value_filters_follow_langgraph_semantics() -> None:
    value = {"type": "note", "score": 4, "meta": {"lang": "en"}, "tags": ["a", "b"]}
    assert matches_filter(value, {"type": "note", "meta": {"lang": "en"}})
    assert matches_filter(value, {"score": {"$gte": 4, "$lt": 5}, "type": {"$ne": "x"}})
    assert not matches_filter(value, {"score": {"$gt": 4}})
    assert matches_filter(value, {"tags": ["a", "b"]})
    assert not matches_filter(value, {"missing": "x"})


def test_put_get_update_keeps_created_at(store: PrismStore) -> None:
    ns = ("memories", "alice")
    store.put(ns, "food", {"text": "Alice is vegetarian"})
    first = store.get(ns, "food")
    assert first is not None and first.value == {"text": "Alice is vegetarian"}
    store.put(ns, "food", {"text": "Alice eats fish now"})
    second = store.get(ns, "food")
    assert second is not None
    assert second.value == {"text": "Alice eats fish now"}
    assert second.created_at == first.created_at
    assert second.updated_at >= first.updated_at
    assert store.get(ns, "FOOD") is None  # keys are exact, case-sensitive
    assert store.get(("memories",), "food") is None


def test_same_value_under_two_keys_is_two_items(store: PrismStore) -> None:
    ns = ("docs",)
    store.put(ns, "a", {"text": "same"})
    store.put(ns, "b", {"text": "same"})
    assert {i.key for i in store.search(ns)} == {"a", "b"}


def test_no_leak_between_similar_namespaces(store: PrismStore) -> None:
    store.put(("john_doe",), "k", {"text": "underscore secret"})
    store.put(("john-doe",), "k", {"text": "dash secret"})
    store.put(("john_doe", "sub"), "k2", {"text": "nested secret"})
    got = store.get(("john-doe",), "k")
    assert got is not None and got.value["text"] == "dash secret"
    dash = store.search(("john-doe",), query="secret")
    assert [i.value["text"] for i in dash] == ["dash secret"]
    under = store.search(("john_doe",), query="secret")
    assert {i.value["text"] for i in under} == {"underscore secret", "nested secret"}
    assert all(i.namespace[0] == "john_doe" for i in under)
    assert store.search(("john",), query="secret") == []


def test_search_query_filter_offset_limit(store: PrismStore) -> None:
    ns = ("notes", "u1")
    for i in range(6):
        store.put(
            ns,
            f"n{i}",
            {
                "text": f"note number {i} about hiking",
                "n": i,
                "kind": "even" if i % 2 == 0 else "odd",
            },
        )
    hits = store.search(ns, query="hiking note", limit=3)
    assert len(hits) == 3 and all(h.score is not None for h in hits)
    # the order is PRISM's hybrid rank; the score is the cosine similarity, in [0, 1]
    assert all(h.score is not None and 0.0 <= h.score <= 1.0 for h in hits)
    more = store.search(ns, query="hiking note", limit=3, offset=3)
    assert {h.key for h in hits}.isdisjoint({h.key for h in more})
    even = store.search(ns, query="hiking", filter={"kind": "even"}, limit=10)
    assert sorted(h.key for h in even) == ["n0", "n2", "n4"]
    big = store.search(ns, filter={"n": {"$gte": 4}})
    assert sorted(h.key for h in big) == ["n4", "n5"] and all(h.score is None for h in big)


def test_index_fields_and_index_false(store: PrismStore) -> None:
    ns = ("kb",)
    store.put(ns, "a", {"title": "kayak rental prices", "body": "zzz"}, index=["title"])
    store.put(ns, "b", {"title": "unrelated", "body": "kayak"}, index=False)
    hits = store.search(ns, query="kayak rental", limit=5)
    assert hits[0].key == "a" and hits[0].score is not None
    assert [h.key for h in hits if h.score is None] == ["b"]  # unindexed items come last
    assert store.get(ns, "b") is not None


def test_delete_and_list_namespaces(store: PrismStore) -> None:
    store.put(("a", "x"), "k", {"v": 1})
    store.put(("a", "y"), "k", {"v": 2})
    store.put(("b",), "k", {"v": 3})
    assert store.list_namespaces() == [("a", "x"), ("a", "y"), ("b",)]
    assert store.list_namespaces(prefix=("a",)) == [("a", "x"), ("a", "y")]
    assert store.list_namespaces(suffix=("y",)) == [("a", "y")]
    assert store.list_namespaces(max_depth=1) == [("a",), ("b",)]
    assert store.list_namespaces(limit=1, offset=1) == [("a", "y")]
    store.delete(("a", "x"), "k")
    assert store.get(("a", "x"), "k") is None
    assert store.list_namespaces(prefix=("a",)) == [("a", "y")]


def test_batch_reads_before_puts_and_invalid_namespace(store: PrismStore) -> None:
    # as InMemoryStore: every read of a batch sees the state before it, then the puts apply
    # (this test used to assert that the ops ran in order, which InMemoryStore does not do)
    store.put(("t",), "old", {"text": "before"})
    results = store.batch(
        [
            PutOp(("t",), "k", {"text": "hello"}),
            GetOp(("t",), "k"),
            SearchOp(("t",), query="hello"),
            ListNamespacesOp(),
            PutOp(("t",), "k", None),
            PutOp(("t",), "k", {"text": "last put wins"}),
            GetOp(("t",), "old"),
        ]
    )
    assert results[0] is None and results[1] is None
    assert [i.key for i in results[2]] == ["old"]  # type: ignore[union-attr]
    assert results[3] == [("t",)] and results[6].value == {"text": "before"}  # type: ignore[union-attr]
    got = store.get(("t",), "k")
    assert got is not None and got.value == {"text": "last put wins"}
    with pytest.raises(InvalidNamespaceError):
        store.batch([GetOp(("a.b",), "k")])


def test_async_api(store: PrismStore) -> None:
    async def run() -> None:
        await store.aput(("u",), "k", {"text": "async value"})
        item = await store.aget(("u",), "k")
        assert item is not None and item.value["text"] == "async value"
        assert [i.key for i in await store.asearch(("u",), query="value")] == ["k"]
        await store.adelete(("u",), "k")
        assert await store.aget(("u",), "k") is None

    asyncio.run(run())


def test_persists_across_reopen(tmp_path: Path) -> None:
    m = Memory(path=tmp_path / "s", embedder=FakeEmbedder(dim=64))
    PrismStore(m).put(("p",), "k", {"text": "durable"})
    m.close()
    m2 = Memory(path=tmp_path / "s", embedder=FakeEmbedder(dim=64))
    try:
        store = PrismStore(m2)
        assert store.list_namespaces() == [("p",)]
        item = store.get(("p",), "k")
        assert item is not None and item.value == {"text": "durable"}
    finally:
        m2.close()


def test_user_namespace_is_the_users_memory(store: PrismStore) -> None:
    """Issue 26: ("memories", user) items live in the user's scope: recalled with the user's
    memories, deleted with them; a namespace with no items is never listed."""
    memory = store.memory
    store.put(("memories", "carol"), "k1", {"content": "Carol climbs on Sundays"})
    store.put(("notes", "x"), "n1", {"text": "a store-only note"})
    assert store.scope_of(("memories", "carol")) == {"user_id": "carol", "agent_id": "langgraph"}
    assert store.user_of(("notes", "x")) is None
    assert [r.text for r in memory.list(user_id="carol")] == ["Carol climbs on Sundays"]
    assert "Sundays" in memory.recall("when does carol climb?", user_id="carol").text
    assert store.list_namespaces() == [("memories", "carol"), ("notes", "x")]
    report = memory.delete_all(user_id="carol")
    assert report.by_surface == {"langgraph_store": 1}
    memory.delete_all(**store.scope_of(("notes", "x")))  # a store-only scope, by hand
    assert store.list_namespaces() == []
    assert store.get(("memories", "carol"), "k1") is None
    with pytest.raises(ValueError, match="user_namespace"):
        PrismStore(memory, user_namespace=("memories", "x"))
    off = PrismStore(memory, agent_id="plain", user_namespace=None)
    off.put(("memories", "dan"), "k", {"content": "store-only"})
    assert memory.count(user_id="dan") == 0
