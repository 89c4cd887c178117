"""A store that opens loads what its first recall would wait for, on a background thread."""

from __future__ import annotations

import threading
from pathlib import Path

from prism_memory import FakeEmbedder, Memory, PrismConfig
from prism_memory.config import RetrievalConfig


class _Warmable(FakeEmbedder):
    """A fake with a model to load: ``warm_up`` says it was called, and from which thread."""

    def __init__(self) -> None:
        super().__init__(dim=32)
        self.warmed = threading.Event()
        self.thread = ""
        self.embedded: list[str] = []

    def warm_up(self) -> None:
        self.thread = threading.current_thread().name
        self.warmed.set()

    def embed_query(self, text: str) -> list[float]:
        self.embedded.append(text)
        return super().embed_query(text)


def test_opening_a_store_warms_the_embedder_in_the_background(tmp_path: Path) -> None:
    emb = _Warmable()
    with Memory(path=tmp_path / "s", embedder=emb) as m:
        assert emb.warmed.wait(30)  # set by the warm-up thread, not by this one
        assert emb.thread == "prism-warm-up" and emb.embedded == []
        m.add("My cat is called Luna", user_id="u")
        assert "Luna" in m.recall("What is my cat called?", user_id="u").text


def test_no_warm_up_when_turned_off_or_when_the_embedder_offers_none(tmp_path: Path) -> None:
    emb = _Warmable()
    off = PrismConfig(retrieval=RetrievalConfig(warm_up=False))
    with Memory(path=tmp_path / "off", embedder=emb, config=off) as m:
        assert m._recall.warm_up is None
    assert not emb.warmed.is_set()
    plain = _Counting()
    with Memory(path=tmp_path / "plain", embedder=plain) as m:
        thread = m._recall.warm_up
        assert thread is not None
        thread.join(30)
        assert not thread.is_alive()
    assert plain.calls == 0  # an embedder without warm_up(), a remote API say, is not called


class _Counting(FakeEmbedder):
    def __init__(self) -> None:
        super().__init__(dim=32)
        self.calls = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        return super().embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        self.calls += 1
        return super().embed_query(text)
