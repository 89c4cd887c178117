"""A representative part of the LangChain and LlamaIndex adapter tests, run unchanged against
an in-process ``Memory`` and against ``RemoteMemory`` talking to a real ``prism serve`` child.

The cases are imported so pytest collects them here, where the ``memory`` / ``setup`` fixtures
below (same names) are parametrised over both back ends (the pattern of ``test_server.py``).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import SERVICE_KEYS  # type: ignore[import-not-found]
from test_langchain_frameworks import (  # type: ignore[import-not-found]
    test_create_agent_middleware_remembers_across_sessions,
    test_lcel_retriever_and_message_history,
)
from test_llamaindex_memory import (  # type: ignore[import-not-found]
    test_get_put_set_reset_semantics,
    test_simple_chat_engine_async_path,
    test_simple_chat_engine_remembers_a_preference_across_sessions,
    test_users_and_sessions_never_see_each_others_memories,
)
from test_llamaindex_retriever import (  # type: ignore[import-not-found]
    test_aretrieve_matches_retrieve,
    test_retrieve_returns_nodes_with_the_records_metadata,
    test_users_never_retrieve_each_others_memories,
)

from prism_memory import FastEmbedEmbedder, Memory, RemoteMemory

ADMIN = next(iter(SERVICE_KEYS))

__all__ = [
    "test_aretrieve_matches_retrieve",
    "test_create_agent_middleware_remembers_across_sessions",
    "test_get_put_set_reset_semantics",
    "test_lcel_retriever_and_message_history",
    "test_retrieve_returns_nodes_with_the_records_metadata",
    "test_simple_chat_engine_async_path",
    "test_simple_chat_engine_remembers_a_preference_across_sessions",
    "test_users_and_sessions_never_see_each_others_memories",
    "test_users_never_retrieve_each_others_memories",
]


@pytest.fixture(scope="module", params=["memory", "remote"])
def memory(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    real_embedder: FastEmbedEmbedder,
    prism_service: Any,
) -> Iterator[Any]:
    """The same adapter test on an in-process Memory and on RemoteMemory over HTTP."""
    if request.param == "memory":
        m: Any = Memory(path=tmp_path_factory.mktemp("adapters") / "store", embedder=real_embedder)
    else:
        m = RemoteMemory(prism_service.url, api_key=ADMIN)
    yield m
    m.close()


@pytest.fixture(scope="module")
def setup(memory: Any) -> tuple[Any, str, str]:
    """``test_llamaindex_retriever``'s data, written through the back end under test."""
    alice, bob = f"alice-{uuid.uuid4().hex[:6]}", f"bob-{uuid.uuid4().hex[:6]}"
    memory.add("I prefer window seats on long flights.", user_id=alice, kind="preference")
    memory.add(
        "My passport expires in March 2026.", user_id=alice, kind="fact", entities=["passport"]
    )
    memory.add("I live in Porto with my two cats.", user_id=alice, kind="fact")
    memory.add("I always book aisle seats, I get up a lot.", user_id=bob, kind="preference")
    return memory, alice, bob
