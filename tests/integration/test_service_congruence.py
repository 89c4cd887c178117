"""``RemoteMemory`` is ``Memory`` over HTTP: the same methods with the same signatures, and the
same operations give the same results (ids, texts, order, contexts, errors) on an in-process
``Memory`` and on a real ``prism serve`` child with the same embedding model."""

from __future__ import annotations

import inspect
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import SERVICE_KEYS  # type: ignore[import-not-found]

from prism_memory import (
    FastEmbedEmbedder,
    Memory,
    NotFoundError,
    PermissionDeniedError,
    PrismError,
    RemoteMemory,
    ScopeError,
    ValidationError,
)

ADMIN, ALICE = list(SERVICE_KEYS)[:2]
#: Memory's public names RemoteMemory does not mirror, and why
NOT_MIRRORED = {
    # schemas hold Python callables (render / extract): they are registered in the server's process
    "register_schema",
    "aregister_schema",
    "schemas",
    # the engine's parts and state, which live in the server process
    "config",
    "llm",
    "store",
    "embedder",
    "cjk_embedder",
    "sparse",
    "background_errors",
    "access_log",
    "intents",
    "visible_filter",
    "iter_records",
    # whole-record access for integrations in the same process (PrismStore)
    "record_store",
}


def test_remote_memory_has_every_method_of_memory_with_the_same_signature() -> None:
    public = [n for n in dir(Memory) if not n.startswith("_") and n not in NOT_MIRRORED]
    assert len(public) > 50
    for name in public:
        assert hasattr(RemoteMemory, name), f"RemoteMemory lacks {name}"
        ours, theirs = getattr(Memory, name), getattr(RemoteMemory, name)
        assert inspect.iscoroutinefunction(ours) == inspect.iscoroutinefunction(theirs), name
        a = list(inspect.signature(ours).parameters.values())
        b = list(inspect.signature(theirs).parameters.values())
        strip = name != "build_record"  # a static method has no self
        if strip:
            a, b = a[1:], b[1:]
        assert [(p.name, p.kind, p.default) for p in a] == [
            (p.name, p.kind, p.default) for p in b
        ], name


@pytest.fixture(scope="module")
def pair(
    tmp_path_factory: pytest.TempPathFactory, real_embedder: FastEmbedEmbedder, prism_service: Any
) -> Iterator[tuple[Memory, RemoteMemory]]:
    local = Memory(path=tmp_path_factory.mktemp("congruence") / "store", embedder=real_embedder)
    remote = RemoteMemory(prism_service.url, api_key=ADMIN)
    yield local, remote
    local.close()
    remote.close()


def _shape(value: Any) -> Any:
    """What must match between the two back ends (no timestamps, which differ by design)."""
    from prism_memory import MemoryContext, MemoryRecord, RememberResult, ScoredRecord
    from prism_memory.versions import MemoryVersion

    if isinstance(value, MemoryRecord):
        return (
            value.id,
            value.text,
            value.layer,
            value.kind,
            value.scope,
            value.status,
            value.provenance.trust,
            value.importance,
            value.metadata,
        )
    if isinstance(value, MemoryVersion):
        return (value.event, value.version, value.text, value.previous_text, value.reason)
    if isinstance(value, ScoredRecord):
        return (_shape(value.record), round(value.score, 4), sorted(value.routes))
    if isinstance(value, MemoryContext):
        return (
            value.text,
            value.tokens,
            [_shape(r) for r in value.records],
            [(i.section, i.shown, sorted(i.routes)) for i in value.items],
            sorted(value.trace.cut()),
        )
    if isinstance(value, RememberResult):
        return {
            k: [(_shape(c.record), c.reason) for c in getattr(value, k)]
            for k in ("added", "updated", "superseded", "skipped", "quarantined")
        }
    if isinstance(value, list):
        return [_shape(v) for v in value]
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items() if k != "engine"}
    return value


def _both(pair: tuple[Memory, RemoteMemory], name: str, *args: Any, **kwargs: Any) -> Any:
    local, remote = pair
    results = []
    for m in (local, remote):
        try:
            results.append(("ok", _shape(getattr(m, name)(*args, **kwargs))))
        except Exception as exc:  # the same error class is part of the contract
            results.append(("error", type(exc).__name__))
    assert results[0] == results[1], f"{name}: {results[0]} != {results[1]}"
    return results[0]


def test_the_same_operations_give_the_same_results(
    pair: tuple[Memory, RemoteMemory], tmp_path: Path
) -> None:
    u, s = f"cong-{uuid.uuid4().hex[:6]}", "s1"
    scope = {"user_id": u}
    _both(
        pair,
        "add",
        "I prefer window seats on long flights",
        **scope,
        kind="preference",
        metadata={"src": "t"},
    )
    _both(
        pair,
        "add_many",
        ["My sister lives in Porto", {"text": "I am allergic to peanuts", "importance": 0.9}],
        **scope,
    )
    _both(
        pair,
        "remember",
        [
            {"role": "user", "content": "My budget is 400 euros a night", "id": "m1"},
            {"role": "assistant", "content": "Noted, 400 euros."},
        ],
        **scope,
        session_id=s,
    )
    _both(
        pair,
        "remember",
        [{"role": "user", "content": "My budget is 400 euros a night", "id": "m1"}],
        **scope,
        session_id=s,
    )
    _both(pair, "buffer", **scope, session_id=s)
    _both(pair, "session_turns", **scope, session_id=s)
    _both(pair, "search", "where does my sister live?", **scope, limit=3)
    _both(pair, "search", "seat", **scope, filters={"kind": "preference"})
    _both(
        pair,
        "recall",
        "what is my hotel budget and seat preference?",
        **scope,
        session_id=s,
        budget_tokens=150,
    )
    _both(pair, "end_session", **scope, session_id=s)
    _both(pair, "count", **scope)
    _both(pair, "stats", **scope)
    page = _both(pair, "list", **scope, limit=2)
    assert len(page[1]) == 2
    rid = pair[0].search("peanuts", **scope, limit=1)[0].id
    _both(pair, "get", rid, **scope)
    _both(
        pair, "update", rid, **scope, text="I am allergic to peanuts and cashews", importance=0.95
    )
    versions = _both(pair, "history", rid, **scope)
    assert [v[0] for v in versions[1]] == ["added", "updated"]
    _both(pair, "restore", rid, 1, **scope, reason="kept the first")
    _both(pair, "feedback", [rid], True, **scope)
    _both(pair, "task", "trip", **scope, goal="book Kyoto", constraints=["under 400 euros"])
    # errors: the same class on both sides
    assert _both(pair, "get", str(uuid.uuid4()), **scope) == ("error", "NotFoundError")
    assert _both(pair, "add", "   ", **scope) == ("error", "ValidationError")
    assert _both(pair, "search", "x") == ("error", "ScopeError")
    assert _both(pair, "remember", [{"role": "user"}], **scope) == ("error", "ValidationError")
    _both(pair, "delete", rid, **scope)
    _both(pair, "delete", rid, **scope)
    # export from one, import into the other: the same records
    pair[1].export_jsonl(tmp_path / "remote.jsonl", **scope)
    pair[0].export_jsonl(tmp_path / "local.jsonl", **scope)
    ids = lambda p: sorted(line.split('"id": "', 1)[1][:36] for line in p.read_text().splitlines())  # noqa: E731
    assert ids(tmp_path / "remote.jsonl") == ids(tmp_path / "local.jsonl")
    _both(pair, "delete_all", **scope, purge=False)
    report = pair[1].import_jsonl(tmp_path / "remote.jsonl")
    assert (
        report.imported == len(ids(tmp_path / "remote.jsonl"))
        and pair[1].count(**scope) == report.imported
    )


async def test_async_twins_answer_like_the_sync_methods(pair: tuple[Memory, RemoteMemory]) -> None:
    local, remote = pair
    u = f"async-{uuid.uuid4().hex[:6]}"
    a = await local.aadd("I run every Sunday morning", user_id=u)
    b = await remote.aadd("I run every Sunday morning", user_id=u)
    assert _shape(a) == _shape(b)
    assert _shape(await local.asearch("running", user_id=u)) == _shape(
        await remote.asearch("running", user_id=u)
    )
    ctx = await remote.arecall("when do I run?", user_id=u, budget_tokens=100)
    assert "Sunday" in ctx.text and ctx.items[0].record.id == a.id
    with pytest.raises(NotFoundError):
        await remote.aget(str(uuid.uuid4()), user_id=u)
    await remote.aclose()


def test_a_tenant_key_raises_permission_denied_outside_its_scope(prism_service: Any) -> None:
    with RemoteMemory(prism_service.url, api_key=ALICE) as alice:
        alice.add("alice's own memory", user_id="alice")
        with pytest.raises(PermissionDeniedError, match="may not use user_id 'bob'"):
            alice.search("anything", user_id="bob")
        with pytest.raises(PermissionDeniedError, match="admin"):
            alice.stats(all_scopes=True)
        with pytest.raises(ScopeError):
            alice.search("anything")
        with pytest.raises(ValidationError):
            alice.add("", user_id="alice")
        assert alice.delete_all(user_id="alice", purge=False) >= 1


def test_input_the_library_refuses_is_refused_alike_over_http(
    pair: tuple[Memory, RemoteMemory], prism_service: Any
) -> None:
    # the client sends it as the library would receive it, so the answer is the library's error
    # (it failed to encode on the client, with UnicodeEncodeError or ValueError)
    remote = RemoteMemory(prism_service.url, api_key=ADMIN)
    pair = (pair[0], remote)
    scope = {"user_id": f"cong-{uuid.uuid4().hex[:6]}"}
    assert _both(pair, "add", "a lone \ud800 surrogate", **scope) == ("error", "ValidationError")
    assert _both(pair, "add", "fine", user_id="\udc00") == ("error", "ScopeError")
    assert _both(pair, "count", user_id="\udc00") == ("error", "ScopeError")
    assert _both(pair, "add", "fine", **scope, importance=float("nan")) == (
        "error",
        "ValidationError",
    )
    assert _both(pair, "search", "caf\u00e9 \u4e2d\u6587", **scope) == ("ok", [])
    # and a closed client answers like a closed Memory (httpx raised RuntimeError)
    remote.close()
    with pytest.raises(PrismError, match="closed"):
        remote.count(**scope)
