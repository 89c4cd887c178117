"""Embedders: the fake, the LangChain adapter, resolution of ``embedder=``, offline packaging."""

from __future__ import annotations

import math
import os

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from prism_memory import ConfigError, Embedder, FakeEmbedder, FastEmbedEmbedder
from prism_memory.embeddings import LangChainEmbedder, offline_model_available, resolve_embedder
from prism_memory.sparse import SparseEncoder, SparseVec


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b))


def test_fake_is_deterministic_normalised_and_counts_calls() -> None:
    e = FakeEmbedder(dim=32)
    v1 = e.embed_documents(["I prefer window seats", "budget 500"])
    v2 = FakeEmbedder(dim=32).embed_documents(["I prefer window seats", "budget 500"])
    assert v1 == v2 and len(v1[0]) == 32 == e.dim
    assert all(math.isclose(math.sqrt(sum(x * x for x in v)), 1.0) for v in v1)
    assert e.embed_query("I prefer window seats") == v1[0]
    assert e.calls == 2
    assert isinstance(e, Embedder) and e.name == "fake-hash"


def test_fake_similarity_follows_shared_words() -> None:
    e = FakeEmbedder(dim=256)
    q = e.embed_query("window seats")
    near = e.embed_query("I prefer window seats")
    far = e.embed_query("my budget is five hundred euros")
    assert _cos(q, near) > _cos(q, far)


def test_fake_handles_text_without_words() -> None:
    assert len(FakeEmbedder(dim=8).embed_query("!!!")) == 8


def test_langchain_adapter_normalises_and_probes_dim() -> None:
    e = LangChainEmbedder(DeterministicFakeEmbedding(size=12))
    assert e.dim == 12 and e.name.startswith("langchain:DeterministicFakeEmbedding")
    vecs = e.embed_documents(["a", "b"])
    assert all(math.isclose(math.sqrt(sum(x * x for x in v)), 1.0) for v in vecs)
    assert e.embed_documents([]) == []
    assert e.embed_query("a") == vecs[0]
    assert LangChainEmbedder(DeterministicFakeEmbedding(size=4), name="x", dim=4).name == "x"


def test_resolve_embedder() -> None:
    fake = FakeEmbedder()
    assert resolve_embedder(fake, "ignored") is fake
    wrapped = resolve_embedder(DeterministicFakeEmbedding(size=6), "ignored")
    assert isinstance(wrapped, LangChainEmbedder) and wrapped.dim == 6
    default = resolve_embedder(None, "sentence-transformers/all-MiniLM-L6-v2", 8)
    assert isinstance(default, FastEmbedEmbedder) and default.dim == 384
    named = resolve_embedder("BAAI/bge-small-en-v1.5", "ignored")
    assert isinstance(named, FastEmbedEmbedder) and named.name == "BAAI/bge-small-en-v1.5"
    with pytest.raises(ConfigError, match="LangChain Embeddings"):
        resolve_embedder(42, "ignored")


def test_offline_model_is_packaged_and_lazy() -> None:
    assert offline_model_available()
    e = FastEmbedEmbedder()
    assert e.dim == 384 and e.name == "sentence-transformers/all-MiniLM-L6-v2"
    assert e._model is None  # constructing never loads (no side effects until first use)
    assert e.embed_documents([]) == []


def test_warm_up_loads_the_packaged_model_before_the_first_call() -> None:
    e = FastEmbedEmbedder()
    e.warm_up()  # what Memory's warm-up thread calls as a store opens
    assert e._model is not None
    assert len(e.embed_query("window seat")) == 384


def test_sparse_encoder_is_deterministic_and_skips_stopwords() -> None:
    enc = SparseEncoder()
    doc = enc.document("I prefer window seats")
    assert isinstance(doc, SparseVec) and doc and doc == enc.document("I prefer window seats")
    assert len(doc.indices) == len(doc.values)
    assert enc.query("seats").indices[0] in doc.indices  # stemmed "seat" is shared
    assert not enc.query("the of a")  # stopwords only: an empty (falsy) vector
    assert enc.documents(["a b", "window"])[1] == enc.document("window")


def test_the_packaged_model_loads_where_memfd_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A sandbox that refuses memfd_create (seccomp, vm.memfd_noexec=2) gets the model through
    a temporary file, removed once loaded, and the same vectors."""
    import errno
    import tempfile

    from prism_memory.embeddings.fastembed import _offline_paths
    from prism_memory.embeddings.packaged import PackagedMiniLM

    def refused(*_: object) -> int:
        raise PermissionError(errno.EPERM, "Operation not permitted")

    expected = FastEmbedEmbedder().embed_query("window seat")
    monkeypatch.setattr(os, "memfd_create", refused, raising=False)
    before = set(os.listdir(tempfile.gettempdir()))
    runner = PackagedMiniLM(*_offline_paths())
    assert set(os.listdir(tempfile.gettempdir())) - before == set()  # the file is removed
    ((ids, _cut),) = runner.tokenize(["window seat"])
    assert runner.embed_ids([ids])[0] == pytest.approx(expected, abs=1e-6)
