"""Concurrency: threads and asyncio tasks writing to one store lose nothing and duplicate nothing."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from prism_bench.reliability import concurrency_trial
from prism_memory import FakeEmbedder, Memory


def test_sixteen_threads_times_100_adds_make_exactly_1600_records(tmp_path: Path) -> None:
    res = concurrency_trial(tmp_path / "s", threads=16, per_thread=100)
    assert res["errors"] == 0
    assert res["records"] == 1600
    assert res["same_fact_records"] == 1


@pytest.mark.slow
def test_sixteen_threads_times_500_adds_make_exactly_8000_records(tmp_path: Path) -> None:
    res = concurrency_trial(tmp_path / "s", threads=16, per_thread=500)
    assert res["errors"] == 0
    assert res["records"] == 8000
    assert res["same_fact_records"] == 1


def test_same_fact_added_by_16_threads_at_once_is_one_record(tmp_path: Path) -> None:
    with Memory(path=tmp_path / "s", embedder=FakeEmbedder()) as m:
        barrier = threading.Barrier(16)
        ids: list[str] = []

        def add() -> None:
            barrier.wait()
            ids.append(m.add("My passport expires in October 2027", user_id="alice").id)

        threads = [threading.Thread(target=add) for _ in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(set(ids)) == 1
        assert m.count(user_id="alice") == 1
        assert [r.text for r in m.list(user_id="alice")] == ["My passport expires in October 2027"]


def test_same_turn_remembered_concurrently_is_stored_once(tmp_path: Path) -> None:
    with Memory(path=tmp_path / "s", embedder=FakeEmbedder()) as m:
        barrier = threading.Barrier(8)
        msg = [{"role": "user", "content": "I moved to Porto last month", "id": "msg-1"}]

        def remember() -> None:
            barrier.wait()
            m.remember(msg, user_id="alice", session_id="s1")

        threads = [threading.Thread(target=remember) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        turns = m.session_turns(user_id="alice", session_id="s1")
        assert [t.text for t in turns] == ["I moved to Porto last month"]


async def test_async_adds_through_memory_and_adapters(tmp_path: Path) -> None:
    from langchain_prism import PrismRetriever, PrismStore

    with Memory(path=tmp_path / "s", embedder=FakeEmbedder()) as m:
        await asyncio.gather(
            *(m.aadd(f"async note {i} about gardening", user_id="alice") for i in range(64)),
            *(m.aadd("the same async fact", user_id="alice") for _ in range(16)),
        )
        assert m.count(user_id="alice") == 65

        store = PrismStore(m)
        await asyncio.gather(
            *(store.aput(("bob", "notes"), f"k{i}", {"text": f"bob note {i}"}) for i in range(32)),
            *(store.aput(("bob", "notes"), "same", {"text": "one key"}) for _ in range(16)),
        )
        items = await store.asearch(("bob", "notes"), limit=100)
        assert len(items) == 33
        assert len({(tuple(i.namespace), i.key) for i in items}) == 33

        retriever = PrismRetriever(m, user_id="alice", k=100)
        docs = await asyncio.gather(*(retriever.ainvoke("gardening") for _ in range(8)))
        for batch in docs:
            assert batch, "async retrieval found nothing"
            assert all("bob" not in d.page_content for d in batch)


@pytest.mark.slow
def test_concurrency_long_run_with_several_scopes(tmp_path: Path) -> None:
    with Memory(path=tmp_path / "s", embedder=FakeEmbedder()) as m:
        barrier = threading.Barrier(16)

        def writer(t: int) -> None:
            barrier.wait()
            for i in range(1000):
                m.add(f"writer {t} fact {i}", user_id=f"user-{t % 4}")
                m.add("shared fact of every writer", user_id=f"user-{t % 4}")

        threads = [threading.Thread(target=writer, args=(t,)) for t in range(16)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        for u in range(4):
            assert m.count(user_id=f"user-{u}") == 4 * 1000 + 1
