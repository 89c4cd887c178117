"""The MCP server, tested with the official SDK's own client: ``prism mcp`` over stdio (a child
process) and ``/mcp`` on the session's ``prism serve`` child (streamable HTTP, same API keys).
Tool scopes come from the command line or the key, never from the model's arguments."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx
from conftest import SERVICE_KEYS  # type: ignore[import-not-found]
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from prism_memory import FastEmbedEmbedder, Memory

ADMIN, ALICE, BOB = list(SERVICE_KEYS)[:3]
TOOLS = {"remember", "recall", "search", "forget", "list_memories"}


def _data(result: Any) -> Any:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


def http_client(svc: Any, key: str | None, **headers: str) -> Client:
    hdrs = dict(headers)
    if key:
        hdrs["Authorization"] = f"Bearer {key}"
    transport = streamable_http_client(
        svc.url + "/mcp", http_client=create_mcp_http_client(headers=hdrs)
    )
    return Client(transport)


async def test_mcp_over_http_scopes_every_tool_by_the_api_key(prism_service: Any) -> None:
    async with http_client(prism_service, ALICE) as alice:
        tools = {t.name: t for t in (await alice.list_tools()).tools}
        assert set(tools) == TOOLS
        for tool in tools.values():  # the model cannot name a scope
            props = tool.input_schema.get("properties", {})
            assert not {"user_id", "agent_id", "session_id"} & set(props), tool.name
        assert "budget_tokens" in tools["recall"].input_schema["properties"]
        saved = _data(
            await alice.call_tool("remember", {"text": "My cat is called Miso", "kind": "fact"})
        )
        ctx = _data(
            await alice.call_tool(
                "recall", {"query": "what is my cat called?", "budget_tokens": 200}
            )
        )
        assert (
            "Miso" in ctx["text"]
            and ctx["items"][0]["id"] == saved["id"]
            and ctx["items"][0]["why"]
        )
        hits = _data(await alice.call_tool("search", {"query": "cat"}))["results"]
        assert hits[0]["id"] == saved["id"]
        listed = _data(await alice.call_tool("list_memories", {}))["results"]
        assert saved["id"] in [r["id"] for r in listed]
    # bob's key sees none of it, and cannot forget it
    async with http_client(prism_service, BOB) as bob:
        assert not _data(await bob.call_tool("search", {"query": "cat Miso"}))["results"]
        assert _data(await bob.call_tool("forget", {"memory_id": saved["id"]}))["deleted"] is False
    # a header naming another user is checked against the key like any API call
    async with http_client(prism_service, ALICE, **{"X-Prism-User-Id": "bob"}) as sneaky:
        result = await sneaky.call_tool("search", {"query": "cat"})
        assert result.is_error and "may not use user_id 'bob'" in result.content[0].text
    async with http_client(prism_service, ALICE) as alice:
        assert _data(await alice.call_tool("forget", {"memory_id": saved["id"]}))["deleted"] is True
    # no key: refused before any MCP session starts
    r = httpx.post(
        prism_service.url + "/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    )
    assert r.status_code == 401 and r.json()["error"] == "AuthenticationError"


async def test_prism_mcp_over_stdio_uses_the_command_line_scope(
    tmp_path: Path, real_embedder: FastEmbedEmbedder
) -> None:
    # the store is written here (the session's model is loaded already); the child lists and
    # forgets, which needs no model, so the test pays for one process start only
    with Memory(path=tmp_path / "store", embedder=real_embedder) as m:
        mine = m.add("I teach chemistry at a high school", user_id="carol").id
        m.add("I teach history", user_id="dave")
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "prism_memory.cli",
            "mcp",
            "--path",
            str(tmp_path / "store"),
            "--user-id",
            "carol",
        ],
        env={"HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false", **_pythonpath()},
    )
    async with Client(params) as client:
        assert {t.name for t in (await client.list_tools()).tools} == TOOLS
        listed = _data(await client.call_tool("list_memories", {"limit": 5}))["results"]
        assert [r["id"] for r in listed] == [mine], "carol's memories only"
        assert _data(await client.call_tool("forget", {"memory_id": mine}))["deleted"] is True
    # the child is gone; carol's memory went through it, dave's is untouched
    with Memory(path=tmp_path / "store", embedder=real_embedder) as m:
        assert m.count(user_id="carol") == 0 and m.count(user_id="dave") == 1


def _pythonpath() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k in ("PYTHONPATH", "PATH", "HOME")}
