"""Consolidation: episodic turns -> semantic summaries (extractive or distilled), reflection."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.language_models.fake_chat_models import FakeListChatModel

from prism_memory import FakeEmbedder, LifecycleConfig, Memory, PrismConfig
from prism_memory.lifecycle.consolidate import centroid, extractive_summary, split_windows
from prism_memory.records import MemoryRecord, Scope

TURNS = [
    "I adopted a puppy named Biscuit last weekend.",
    "Biscuit is a golden retriever and loves the park.",
    "We go to the park every morning before work.",
    "The vet said Biscuit is healthy and growing fast.",
]


def _m(**kw: Any) -> Memory:
    return Memory(location=":memory:", embedder=FakeEmbedder(dim=32), **kw)


def test_windows_and_extractive_summary() -> None:
    recs = [
        MemoryRecord(text=t, user_id="a", speaker="Ann", metadata={"turn_index": i})
        for i, t in enumerate(TURNS * 5)
    ]
    windows = split_windows(recs, window=8)
    assert sum(len(w) for w in windows) == 20 and max(len(w) for w in windows) <= 8
    summary = extractive_summary(recs[:4], max_tokens=40)
    # whole sentences told about the speaker, not turns glued with speaker tags
    assert summary.startswith("Ann adopted a puppy named Biscuit") and "Ann: " not in summary
    assert centroid([]) is None and centroid([[0.0, 0.0]]) is None


def test_end_session_consolidates_into_linked_summaries_once() -> None:
    m = _m()
    m.remember(
        [{"role": "user", "content": t, "id": f"d{i}"} for i, t in enumerate(TURNS)],
        user_id="a",
        session_id="s1",
    )
    res = m.end_session(user_id="a", session_id="s1")
    summaries = [c.record for c in res.added if c.record.kind.value == "summary"]
    assert summaries and all(
        s.session_id is None and s.layer.value == "semantic" for s in summaries
    )
    covered = {i for s in summaries for i in s.provenance.source_ids}
    assert {"d0", "d1", "d2", "d3"} <= covered
    assert not m.consolidate(user_id="a").added  # idempotent: nothing new to consolidate
    # the extractive summary's vector is the centroid of its turns (no extra embedding)
    vec = m.store.get_vectors([summaries[0].id], Scope(user_id="a"))[summaries[0].id]
    assert abs(sum(x * x for x in vec) - 1.0) < 1e-5
    m.close()


def test_automatic_consolidation_every_n_turns() -> None:
    cfg = PrismConfig(
        lifecycle=LifecycleConfig(consolidate_every_turns=3, consolidate_on_session_end=False)
    )
    cfg.buffer.max_turns = 1
    m = _m(config=cfg)
    for t in TURNS:
        m.remember(t, user_id="a", session_id="s")
    assert m.list(user_id="a", kind="summary")
    m.close()


def test_llm_distils_and_reflects_and_falls_back_on_errors() -> None:
    llm = FakeListChatModel(
        responses=[
            "Ann adopted Biscuit, a golden retriever.",
            json.dumps({"insights": ["Ann is a dog owner"]}),
        ]
    )
    cfg = PrismConfig()
    cfg.extraction.use_llm = False
    m = _m(llm=llm, config=cfg)
    m.remember(TURNS, user_id="a", session_id="s")
    res = m.end_session(user_id="a", session_id="s")
    kinds = {c.record.kind.value: c.record for c in res.added}
    assert kinds["summary"].text == "Ann adopted Biscuit, a golden retriever."
    assert kinds["reflection"].text == "Ann is a dog owner"
    assert kinds["summary"].id in kinds["reflection"].provenance.source_ids
    m.close()

    class Broken(FakeListChatModel):
        def _call(self, *a: Any, **k: Any) -> str:
            raise RuntimeError("down")

    m2 = _m(llm=Broken(responses=["x"]), config=cfg)
    m2.remember(TURNS, user_id="a", session_id="s")
    res2 = m2.end_session(user_id="a", session_id="s")
    (summary,) = [c.record for c in res2.added if c.record.kind.value == "summary"]
    assert "Biscuit" in summary.text and not [
        c for c in res2.added if c.record.kind.value == "reflection"
    ]
    m2.close()


def test_background_consolidation_runs_on_the_worker() -> None:
    m = _m(background=True)
    m.remember(TURNS, user_id="a", session_id="s")
    res = m.end_session(user_id="a", session_id="s")
    assert not [c for c in res.added if c.record.kind.value == "summary"]
    m.flush()
    assert m.list(user_id="a", kind="summary")
    m.close()
