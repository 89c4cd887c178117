"""Fixtures shared by the integration modules that use one store per module."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest

from prism_memory import FastEmbedEmbedder, Memory


@pytest.fixture(scope="module")
def memory(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    real_embedder: FastEmbedEmbedder,
) -> Iterator[Memory]:
    """One embedded store per test module (opening one costs seconds); tests use fresh ids."""
    name = request.module.__name__.rsplit(".", 1)[-1]
    m = Memory(path=tmp_path_factory.mktemp(name) / "store", embedder=real_embedder)
    yield m
    m.close()


@pytest.fixture
def uid() -> Callable[[str], str]:
    """``uid("alice")`` -> an id no other test uses."""
    suffix = uuid.uuid4().hex[:8]
    return lambda name: f"{name}-{suffix}"
