"""Recall counts accesses of the records it returns, in the background, batched."""

from __future__ import annotations

import time
from pathlib import Path

from prism_memory import Memory, RetrievalConfig
from prism_memory.embeddings import FakeEmbedder
from prism_memory.records import Scope
from prism_memory.retrieval.access import AccessLog


def _memory(tmp_path: Path, flush_s: float = 60.0) -> Memory:
    from prism_memory.config import PrismConfig

    cfg = PrismConfig(retrieval=RetrievalConfig(access_flush_s=flush_s))
    return Memory(path=tmp_path / "m", embedder=FakeEmbedder(), config=cfg)


def test_recall_updates_access_statistics_off_the_hot_path(tmp_path: Path) -> None:
    with _memory(tmp_path) as m:
        m.add_many(["I prefer window seats", "My hotel budget is $220"], user_id="a")
        ctx = m.recall("window seats", user_id="a", budget_tokens=200)
        shown = ctx.ids
        assert shown
        # nothing written yet: the recall only queued the ids
        assert all(r.access_count == 0 for r in m.store.get(shown, Scope(user_id="a")))
        m.recall("window seats", user_id="a", budget_tokens=200)  # a cache hit counts too
        assert m.flush_access() == len(shown)
        after = {r.id: r for r in m.store.get(shown, Scope(user_id="a"))}
        assert all(after[i].access_count == 2 for i in shown)
        assert all(after[i].last_accessed is not None for i in shown)


def test_background_flush_and_close_write_pending_accesses(tmp_path: Path) -> None:
    m = _memory(tmp_path, flush_s=0.05)
    m.add_many(["We went camping with the kids"], user_id="a")
    ids = m.recall("camping", user_id="a").ids
    deadline = time.monotonic() + 120  # a loaded machine may starve the thread for a while
    while m.access_log.pending() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert m.store.get(ids, Scope(user_id="a"))[0].access_count == 1
    m.recall("kids camping", user_id="a")
    m.close()  # flushes what the thread has not written yet
    with _memory(tmp_path) as again:
        assert again.store.get(ids, Scope(user_id="a"))[0].access_count == 2


def test_tracking_can_be_switched_off(tmp_path: Path) -> None:
    with _memory(tmp_path) as m:
        m.add_many(["I like jazz"], user_id="a")
        m.recall("jazz", user_id="a", config=RetrievalConfig(track_access=False))
        assert m.access_log.pending() == 0


def test_a_failing_writer_never_reaches_the_caller() -> None:
    def boom(*_: object) -> None:
        raise RuntimeError("store closed")

    log = AccessLog(boom, flush_s=60)
    log.add(Scope(user_id="u"), [("x", 0)])
    assert log.flush() == 0
    assert isinstance(log.last_error, RuntimeError)
    log.close()


def test_counts_build_on_what_was_written_even_from_a_stale_cached_view() -> None:
    written: list[dict[str, int]] = []
    log = AccessLog(lambda scope, counts, when: written.append(counts), flush_s=60)
    scope = Scope(user_id="u")
    log.add(scope, [("a", 3)])
    log.flush()
    log.add(scope, [("a", 3)])  # a cached context still shows the old count
    log.add(scope, [("a", 3)])
    log.flush()
    assert written == [{"a": 4}, {"a": 6}]
    log.close()
