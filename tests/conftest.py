"""Shared fixtures. The real offline embedder is loaded once per test session."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from prism_memory import FakeEmbedder, FastEmbedEmbedder, Memory

# No per-example deadline anywhere: a shared CI runner or a loaded workstation can stall any
# example past Hypothesis's default 200 ms, which says nothing about the code under test.
settings.register_profile("prism", deadline=None)
settings.load_profile("prism")


@pytest.fixture(scope="session")
def real_embedder() -> FastEmbedEmbedder:
    """The packaged offline all-MiniLM-L6-v2 (int8), shared by every integration test."""
    return FastEmbedEmbedder()


@pytest.fixture
def fake_embedder() -> FakeEmbedder:
    return FakeEmbedder(dim=64)


@pytest.fixture
def edge_memory(tmp_path: Path, real_embedder: FastEmbedEmbedder) -> Iterator[Memory]:
    """A real embedded (Qdrant Edge) memory with the real embedding model."""
    m = Memory(path=tmp_path / "store", embedder=real_embedder)
    yield m
    m.close()


@pytest.fixture
def local_memory(real_embedder: FastEmbedEmbedder) -> Iterator[Memory]:
    """qdrant-client local mode (":memory:") with the real embedding model."""
    m = Memory(location=":memory:", embedder=real_embedder)
    yield m
    m.close()


@pytest.fixture
def fake_memory(tmp_path: Path, fake_embedder: FakeEmbedder) -> Iterator[Memory]:
    """Embedded store with the hashing fake embedder (fast unit-level tests)."""
    m = Memory(path=tmp_path / "store", embedder=fake_embedder)
    yield m
    m.close()


@pytest.fixture(params=["edge", "local"])
def any_memory(
    request: pytest.FixtureRequest, tmp_path: Path, real_embedder: FastEmbedEmbedder
) -> Iterator[Memory]:
    """The same test on both engines (congruence)."""
    if request.param == "edge":
        m = Memory(path=tmp_path / "store", embedder=real_embedder)
    else:
        m = Memory(location=":memory:", embedder=real_embedder)
    yield m
    m.close()
