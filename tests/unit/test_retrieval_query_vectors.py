"""Query vectors are cached per embedder object for the process, shared by every Memory."""

from __future__ import annotations

import gc
from pathlib import Path

from prism_memory import FakeEmbedder, Memory
from prism_memory.retrieval.query_vectors import QueryVectors


class _Counting(FakeEmbedder):
    """A fake embedder that records the texts it embeds as queries."""

    def __init__(self) -> None:
        super().__init__(dim=32)
        self.queries: list[str] = []

    def embed_query(self, text: str) -> list[float]:
        self.queries.append(text)
        return super().embed_query(text)


_TURNS = [
    {"role": "user", "content": "I adopted a cat named Luna last spring."},
    {"role": "assistant", "content": "Luna is a lovely name for a cat!"},
]


def test_a_store_opened_later_does_not_embed_the_speakers_names_again(tmp_path: Path) -> None:
    emb = _Counting()
    for n in (1, 2):  # one store per user, as a multi-tenant agent process keeps them
        with Memory(path=tmp_path / f"s{n}", embedder=emb) as m:
            m.remember(_TURNS, user_id="u", session_id="s1")
            m.end_session(user_id="u", session_id="s1")
            ctx = m.recall("What is my cat called?", user_id="u")
            assert "Luna" in ctx.text
    # the query and each speaker's name once for the process, not once per store
    assert sorted(emb.queries) == sorted(set(emb.queries))
    assert {"user:", "assistant:"} <= set(emb.queries)


def test_vectors_belong_to_one_embedder_object_and_go_with_it() -> None:
    vectors = QueryVectors(size=2)
    a, b = _Counting(), _Counting()
    assert vectors.get(a, "x") == vectors.get(b, "x")  # same model, separate caches
    assert a.queries == ["x"] and b.queries == ["x"]
    vectors.get(a, "y")
    vectors.get(a, "z")  # the LRU keeps two texts per embedder
    vectors.get(a, "x")
    assert a.queries == ["x", "y", "z", "x"]
    del a
    gc.collect()
    assert len(vectors._by_id) == 1  # the collected embedder took its vectors with it
