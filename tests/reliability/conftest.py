"""Fixtures of the reliability tests: one store a module, and a user id no other test uses."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from memories import open_memory

from prism_memory import Memory


@pytest.fixture(scope="module")
def mem(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Memory]:
    """One store for the module (opening and closing one costs a second); tests use fresh ids."""
    m = open_memory(tmp_path_factory.mktemp(request.module.__name__.rpartition(".")[2]) / "store")
    yield m
    m.close()


@pytest.fixture
def uid() -> str:
    """A user id no other test uses."""
    return f"u-{uuid.uuid4().hex[:8]}"
