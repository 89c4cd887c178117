"""Fixtures shared by the integration modules that use one store per module."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

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


# -- the memory service: one real `prism serve` child for the whole session -------------------
#: API keys of the service fixture: an admin, two tenants, and an agent key
SERVICE_KEYS = {
    "admin-key-0123456789": {"admin": True, "name": "admin"},
    "alice-key-0123456789": {"user_ids": ["alice"], "name": "alice"},
    "bob-key-01234567890": {"user_ids": ["bob"], "name": "bob"},
    "agent-key-0123456789": {"agent_ids": ["planner"], "name": "planner"},
    "dana-key-01234567890": {"user_ids": ["dana"], "name": "dana"},
}


@pytest.fixture(scope="session")
def prism_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A `prism serve` subprocess on a free loopback port (real embedded store, real model),
    started once and ready when it answers GET /v1/health."""
    from prism_memory.server.process import ServiceProcess, write_keys

    root = tmp_path_factory.mktemp("service")
    keys = write_keys(root / "keys.json", SERVICE_KEYS)
    with ServiceProcess.start(path=root / "store", keys_file=keys) as svc:
        yield svc


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: Any, call: Any) -> Iterator[None]:
    """Keep each phase's report on the test item (``item.rep_call``): the browser tests take a
    screenshot when their call failed."""
    outcome = yield
    rep = outcome.get_result()
    setattr(item, f"rep_{rep.when}", rep)
