"""Every public sync method of ``Memory`` has an async twin with the same parameters, and
``async with Memory(...)`` closes the memory."""

from __future__ import annotations

import asyncio
import inspect

from prism_memory import FakeEmbedder, Memory

# no I/O to move off the event loop: a filter builder, and a lazy iterator (use ``alist``)
NOT_BLOCKING = {"visible_filter", "iter_records"}


def _public_sync_methods() -> list[str]:
    return sorted(
        name
        for name, value in vars(Memory).items()
        if not name.startswith("_")
        and inspect.isfunction(value)
        and not inspect.iscoroutinefunction(value)
        and not (name.startswith("a") and name[1:] in vars(Memory))
        and name not in NOT_BLOCKING
    )


def test_every_public_method_has_an_async_twin_with_its_signature() -> None:
    names = _public_sync_methods()
    assert {"add", "recall", "remember", "update", "count", "stats", "delete_by_source"} <= set(
        names
    )
    assert {"export_jsonl", "import_jsonl", "close", "flush"} <= set(names)
    for name in names:
        twin = getattr(Memory, f"a{name}", None)
        assert twin is not None, f"Memory.{name} has no async twin a{name}"
        assert inspect.iscoroutinefunction(twin), f"a{name} is not a coroutine function"
        sync_params = list(inspect.signature(getattr(Memory, name)).parameters.values())
        async_params = list(inspect.signature(twin).parameters.values())
        assert [(p.name, p.kind, p.default) for p in async_params] == [
            (p.name, p.kind, p.default) for p in sync_params
        ], name


def test_async_twins_run_the_sync_methods() -> None:
    async def run() -> Memory:
        async with Memory(location=":memory:", embedder=FakeEmbedder()) as m:
            rec = await m.aadd("I prefer window seats", user_id="alice", kind="preference")
            assert (await m.aget(rec.id, user_id="alice")).text == rec.text
            assert await m.acount(user_id="alice") == 1
            updated = await m.aupdate(rec.id, user_id="alice", importance=0.9)
            assert updated.importance == 0.9
            assert (await m.astats(user_id="alice"))["total"] == 1
            ctx = await m.arecall("which seat?", user_id="alice")
            assert ctx.records and ctx.records[0].id == rec.id
            assert await m.adelete_by_source(rec.id, user_id="alice") == 1
            return m

    m = asyncio.run(run())
    assert m._engine.closed
