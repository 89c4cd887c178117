"""Bad input gets a clear error and loses nothing.

Every rejected call is followed by a check that the store holds exactly what it held before
(same ids, texts and update times): no partial write, no lost record.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from prism_memory import (
    EmbeddingDimensionError,
    FakeEmbedder,
    FastEmbedEmbedder,
    ImportDataError,
    Memory,
    PrismError,
    ScopeError,
    StoreError,
    StoreLockedError,
    StoreUnavailableError,
    ValidationError,
)
from prism_memory.stores import QdrantStore

Snapshot = list[tuple[str, str, str]]


def snapshot(m: Memory) -> Snapshot:
    """Every record of every tenant: (id, text, updated_at)."""
    out: Snapshot = []
    cursor: str | None = None
    while True:
        records, cursor = m.store.scroll_all(limit=256, cursor=cursor)
        out += [(r.id, r.text, r.updated_at.isoformat()) for r in records]
        if cursor is None:
            return sorted(out)


@pytest.fixture(scope="module", params=["edge", "local"])
def seeded(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    real_embedder: FastEmbedEmbedder,
) -> Iterator[tuple[Memory, Snapshot]]:
    """A memory per engine with a few records in two look-alike scopes, and its snapshot.

    Shared by the module: every test using it only makes calls that must be rejected, and
    checks that the snapshot is unchanged afterwards (a test that wrote would fail itself).
    """
    if request.param == "edge":
        m = Memory(path=tmp_path_factory.mktemp("seeded") / "s", embedder=real_embedder)
    else:
        m = Memory(location=":memory:", embedder=real_embedder)
    m.add("I prefer window seats", user_id="foo", kind="preference", metadata={"topic": "travel"})
    m.add("My budget is 500 euros", user_id="foo")
    m.add("I prefer window seats", user_id="foobar")
    yield m, snapshot(m)
    m.close()


def rejected(m: Memory, before: Snapshot, error: type[Exception], call: Callable[[], Any]) -> str:
    """Run ``call``, expect ``error``, check nothing changed; return the message."""
    with pytest.raises(error) as info:
        call()
    assert snapshot(m) == before, "a rejected call changed the store"
    return str(info.value)


# -- missing scope -----------------------------------------------------------------------
def _scopeless_calls(m: Memory, rid: str, tmp: Path) -> dict[str, Callable[[], Any]]:
    return {
        "add": lambda: m.add("x"),
        "add_many": lambda: m.add_many(["x", "y"]),
        "search": lambda: m.search("window"),
        "get": lambda: m.get(rid),
        "list": lambda: m.list(),
        "count": lambda: m.count(),
        "update": lambda: m.update(rid, text="changed"),
        "delete": lambda: m.delete(rid),
        "delete_all": lambda: m.delete_all(),
        "export_jsonl": lambda: m.export_jsonl(tmp / "out.jsonl"),
        "stats": lambda: m.stats(),
        "aadd": lambda: asyncio.run(m.aadd("x")),
        "aadd_many": lambda: asyncio.run(m.aadd_many(["x"])),
        "asearch": lambda: asyncio.run(m.asearch("window")),
        "aget": lambda: asyncio.run(m.aget(rid)),
        "alist": lambda: asyncio.run(m.alist()),
        "adelete": lambda: asyncio.run(m.adelete(rid)),
        "adelete_all": lambda: asyncio.run(m.adelete_all()),
        "empty user_id": lambda: m.delete_all(user_id=""),
        "blank agent_id": lambda: m.search("window", agent_id="   "),
        "int user_id": lambda: m.list(user_id=42),  # type: ignore[arg-type]
    }


def test_every_public_method_requires_a_scope(
    seeded: tuple[Memory, Snapshot], tmp_path: Path
) -> None:
    m, before = seeded
    rid = m.list(user_id="foo")[0].id
    for name, call in _scopeless_calls(m, rid, tmp_path).items():
        msg = rejected(m, before, ScopeError, call)
        assert any(f in msg for f in ("user_id", "agent_id", "session_id")), name
    assert not (tmp_path / "out.jsonl").exists()


# -- text --------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["", "   ", "\n\t "])
def test_empty_text_is_rejected(seeded: tuple[Memory, Snapshot], text: str) -> None:
    m, before = seeded
    assert "empty" in rejected(m, before, ValidationError, lambda: m.add(text, user_id="foo"))
    rejected(m, before, ValidationError, lambda: m.search(text, user_id="foo"))
    rejected(m, before, ValidationError, lambda: m.add_many(["fine", text], user_id="foo"))
    rid = m.list(user_id="foo")[0].id
    rejected(m, before, ValidationError, lambda: m.update(rid, user_id="foo", text=text))


@pytest.mark.parametrize("text", [None, 42, b"bytes", ["a list"], {"text": "x"}])
def test_non_string_text_is_rejected(seeded: tuple[Memory, Snapshot], text: Any) -> None:
    m, before = seeded
    msg = rejected(m, before, ValidationError, lambda: m.add(text, user_id="foo"))
    assert "must be a string" in msg and type(text).__name__ in msg
    rejected(m, before, ValidationError, lambda: m.search(text, user_id="foo"))


def test_add_many_writes_nothing_when_one_item_is_bad(seeded: tuple[Memory, Snapshot]) -> None:
    m, before = seeded
    calls = 0 if not isinstance(m.embedder, FakeEmbedder) else m.embedder.calls
    msg = rejected(
        m, before, ValidationError, lambda: m.add_many(["ok one", "ok two", 3], user_id="foo")
    )
    assert msg.startswith("item 2")
    msg = rejected(
        m,
        before,
        ValidationError,
        lambda: m.add_many([{"text": "ok"}, {"txt": "typo"}], user_id="foo"),
    )
    assert "item 1" in msg and "txt" in msg
    rejected(m, before, ValidationError, lambda: m.add_many("not a list", user_id="foo"))  # type: ignore[arg-type]
    assert calls == (0 if not isinstance(m.embedder, FakeEmbedder) else m.embedder.calls)


def test_text_longer_than_the_model_embeds_a_truncation_and_says_so_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # a fresh embedder: the once-only warning is per embedder and the shared one may have used it
    emb = FastEmbedEmbedder()
    long_text = " ".join(  # far above 512 tokens
        f"On day {i} of the trip we hiked to viewpoint{i} and had lunch by the river."
        for i in range(400)
    )
    other_long = long_text.replace("viewpoint", "lake")
    with Memory(path=tmp_path / "s", embedder=emb) as m:
        with caplog.at_level(logging.INFO, logger="prism_memory"):
            rec = m.add(long_text, user_id="foo")
            m.add(other_long, user_id="foo")
            m.add("a short one", user_id="foo")
        warnings = [r for r in caplog.records if "longer than the embedding model" in r.message]
        assert len(warnings) == 1 and warnings[0].name == "prism_memory"
        assert "whole text is stored" in warnings[0].getMessage()
        # the whole text is stored ...
        assert m.get(rec.id, user_id="foo").text == long_text
        # ... and the vector is the embedding of its beginning: the tail changes nothing
        a, b = emb.embed_documents([long_text, long_text + " completely different ending"])
        assert sum(x * y for x, y in zip(a, b)) > 0.9999
        # BM25 still indexes the whole text: a word from the very end finds it
        hits = m.search("viewpoint399", user_id="foo", limit=1)
        assert hits[0].id == rec.id and "bm25" in hits[0].routes
        assert m.count(user_id="foo") == 3


def test_the_model_embeds_what_it_was_trained_on_256_word_pieces() -> None:
    """As sentence-transformers does for all-MiniLM-L6-v2 (max_seq_length 256): a text of
    300-500 word pieces is embedded by its first 256, so a different ending changes nothing,
    while a difference inside the first 256 does."""
    emb = FastEmbedEmbedder()
    body = " ".join(f"Note {i}: the garden needs water on day {i}." for i in range(30))
    a, b, c = emb.embed_documents(
        [body, body + " And then something else entirely.", "Changed start. " + body]
    )
    assert sum(x * y for x, y in zip(a, b)) > 0.9999
    assert sum(x * y for x, y in zip(a, c)) < 0.9999


# -- filters, limits, metadata -------------------------------------------------------------
@pytest.mark.parametrize(
    ("filters", "message"),
    [
        ({"colour": "red"}, "unknown filter key 'colour'"),
        ({"user_id": "foobar"}, "scope, not a filter"),
        ({"importance": {"above": 0.5}}, "gt, gte, lt, lte"),
        ({"event_time": {"gte": "yesterday"}}, "ISO-8601"),
        ("kind=fact", "must be a dict"),
        ({"id": "not-a-uuid"}, "is not a memory id"),
        ({"metadata.flag": True}, "boolean filter values are not supported"),
    ],
)
def test_bad_filters_are_rejected(
    seeded: tuple[Memory, Snapshot], filters: Any, message: str
) -> None:
    m, before = seeded
    assert message in rejected(
        m, before, ValidationError, lambda: m.search("window", user_id="foo", filters=filters)
    )
    assert message in rejected(
        m, before, ValidationError, lambda: m.list(user_id="foo", filters=filters)
    )


@pytest.mark.parametrize("limit", [0, -1, 1001, 2.5, "10", True, None])
def test_bad_search_limit(seeded: tuple[Memory, Snapshot], limit: Any) -> None:
    m, before = seeded
    msg = rejected(
        m, before, ValidationError, lambda: m.search("window", user_id="foo", limit=limit)
    )
    assert "limit must be an integer" in msg


@pytest.mark.parametrize("limit", [0, 10_001, "5"])
def test_bad_list_limit(seeded: tuple[Memory, Snapshot], limit: Any) -> None:
    m, before = seeded
    rejected(m, before, ValidationError, lambda: m.list(user_id="foo", limit=limit))


@pytest.mark.parametrize("cursor", ["junk", "12", 3.5])
def test_bad_list_cursor(seeded: tuple[Memory, Snapshot], cursor: Any) -> None:
    m, before = seeded
    msg = rejected(m, before, ValidationError, lambda: m.list(user_id="foo", cursor=cursor))
    assert "next_cursor" in msg


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"metadata": ["not", "a", "dict"]}, "metadata must be a dict"),
        ({"metadata": "topic=travel"}, "metadata must be a dict"),
        ({"metadata": {"when": object()}}, "JSON"),
        ({"metadata": {1: "one"}}, "metadata keys must be strings"),
        ({"kind": "opinion"}, "unknown kind 'opinion'"),
        ({"layer": "attic"}, "unknown layer"),
        ({"importance": 1.5}, "importance must be a number in [0, 1]"),
        ({"event_time": "2023-05-01"}, "event_time must be a datetime"),
        ({"entities": [{"type": "person"}]}, "entity"),
    ],
)
def test_wrong_typed_arguments_are_rejected(
    seeded: tuple[Memory, Snapshot], kwargs: dict[str, Any], message: str
) -> None:
    m, before = seeded
    msg = rejected(m, before, ValidationError, lambda: m.add("new text", user_id="foo", **kwargs))
    assert message in msg


def test_update_with_bad_values_changes_nothing(seeded: tuple[Memory, Snapshot]) -> None:
    m, before = seeded
    rid = m.search("window", user_id="foo", limit=1)[0].id
    rejected(m, before, ValidationError, lambda: m.update(rid, user_id="foo", metadata="x"))  # type: ignore[arg-type]
    rejected(m, before, ValidationError, lambda: m.update(rid, user_id="foo", importance=2))
    rejected(m, before, ValidationError, lambda: m.update(rid, user_id="foo", kind="nope"))
    rejected(
        m, before, ValidationError, lambda: m.update(rid, user_id="foo", metadata={"x": object()})
    )
    rejected(m, before, ValidationError, lambda: m.update(rid, user_id="foo", metadata={2: "b"}))
    assert m.get(rid, user_id="foo").metadata == {"topic": "travel"}


# -- dimension mismatch --------------------------------------------------------------------
def test_reopening_a_path_with_another_dimension(tmp_path: Path) -> None:
    path = tmp_path / "store"
    with Memory(path=path, embedder=FakeEmbedder(dim=64)) as m:
        m.add("kept safe", user_id="foo")
    with pytest.raises(EmbeddingDimensionError) as info:
        Memory(path=path, embedder=FakeEmbedder(dim=32, name="other"))
    msg = str(info.value)
    assert "64" in msg and "32" in msg and "new path" in msg
    with Memory(path=path, embedder=FakeEmbedder(dim=64)) as m:  # nothing lost, lock released
        assert [r.text for r in m.list(user_id="foo")] == ["kept safe"]


def test_existing_qdrant_collection_with_another_dimension() -> None:
    from qdrant_client import QdrantClient

    client = QdrantClient(location=":memory:")
    first = Memory(store=QdrantStore(dim=64, client=client), embedder=FakeEmbedder(dim=64))
    first.add("kept safe", user_id="foo")
    with pytest.raises(EmbeddingDimensionError) as info:
        QdrantStore(dim=384, client=client)
    assert "64" in str(info.value) and "384" in str(info.value)
    with pytest.raises(EmbeddingDimensionError, match=r"64.*32"):
        Memory(store=QdrantStore(dim=64, client=client), embedder=FakeEmbedder(dim=32))
    assert first.count(user_id="foo") == 1
    first.close()


# -- a locked path ----------------------------------------------------------------------------
_HOLDER = textwrap.dedent(
    """
    import sys
    from prism_memory import FakeEmbedder, Memory
    m = Memory(path=sys.argv[1], embedder=FakeEmbedder(dim=16))
    m.add("held by the other process", user_id="foo")
    m.flush()
    print("ready", flush=True)
    sys.stdin.readline()
    m.close()
    """
)


def test_a_path_open_in_another_process(tmp_path: Path) -> None:
    path = tmp_path / "shared"
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        with pytest.raises(StoreLockedError) as info:
            Memory(path=path, embedder=FakeEmbedder(dim=16))
        msg = str(info.value)
        assert str(path) in msg and "another process" in msg
        assert "one process per path" in msg.lower() and "Memory(url=" in msg  # the fixes
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(timeout=300)  # closing a store on a loaded machine may take a while
        holder.stdin.close()
        if holder.stdout is not None:
            holder.stdout.close()
    assert holder.returncode == 0
    with Memory(path=path, embedder=FakeEmbedder(dim=16)) as m:  # released: opens, data intact
        assert [r.text for r in m.list(user_id="foo")] == ["held by the other process"]


# two Memory objects on one path in one process share the store: test_shared_path.py


# -- an unreachable server --------------------------------------------------------------------
def _unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.filterwarnings("error::UserWarning")  # one clear error, no stray client warning
def test_a_qdrant_url_that_does_not_answer() -> None:
    url = f"http://127.0.0.1:{_unused_port()}"
    with pytest.raises(StoreUnavailableError) as info:
        Memory(url=url, embedder=FakeEmbedder(dim=16))
    msg = str(info.value)
    assert url in msg and "did not answer" in msg and "Memory(path=" in msg
    assert isinstance(info.value, PrismError)


# -- import ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def export_lines(
    tmp_path_factory: pytest.TempPathFactory, real_embedder: FastEmbedEmbedder
) -> list[str]:
    """The lines of a real five-record export (made once for the module)."""
    path = tmp_path_factory.mktemp("export") / "export.jsonl"
    with Memory(location=":memory:", embedder=real_embedder) as m:
        m.add_many([f"memory number {i}" for i in range(5)], user_id="foo")
        assert m.export_jsonl(path, user_id="foo") == 5
    return path.read_text().splitlines()


@pytest.mark.parametrize(
    "bad",
    [
        '{"text": "truncated',
        '["a", "list"]',
        '{"text": "no scope at all"}',
        '{"text": "   ", "user_id": "foo"}',
        '{"text": "bad score", "user_id": "foo", "importance": 7}',
        '{"text": "unknown kind", "user_id": "foo", "kind": "opinion"}',
    ],
)
def test_corrupt_jsonl_line_imports_nothing(
    export_lines: list[str], tmp_path: Path, real_embedder: FastEmbedEmbedder, bad: str
) -> None:
    lines = list(export_lines)
    lines.insert(2, bad)  # becomes line 3
    path = tmp_path / "export.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with Memory(location=":memory:", embedder=real_embedder) as fresh:
        fresh.add("already here", user_id="foo")
        before = snapshot(fresh)
        with pytest.raises(ImportDataError) as info:
            fresh.import_jsonl(path)
        msg = str(info.value)
        assert "line 3" in msg and "Nothing was imported" in msg and "skip_bad" in msg
        assert snapshot(fresh) == before
        report = fresh.import_jsonl(path, skip_bad=True)
        assert report.imported == 5 and report.skipped == 1
        assert len(report.errors) == 1 and report.errors[0].startswith("line 3:")
        assert sorted(r.text for r in fresh.list(user_id="foo")) == [
            "already here",
            *(f"memory number {i}" for i in range(5)),
        ]


def test_import_of_a_missing_file(seeded: tuple[Memory, Snapshot], tmp_path: Path) -> None:
    m, before = seeded
    msg = rejected(m, before, ValidationError, lambda: m.import_jsonl(tmp_path / "nope.jsonl"))
    assert "cannot read" in msg and "nope.jsonl" in msg


def test_import_skips_blank_lines(tmp_path: Path, real_embedder: FastEmbedEmbedder) -> None:
    line = json.dumps({"text": "hello", "user_id": "foo"})
    path = tmp_path / "x.jsonl"
    path.write_text(f"\n{line}\n\n   \n")
    with Memory(location=":memory:", embedder=real_embedder) as m:
        assert m.import_jsonl(path).imported == 1
        assert m.count(user_id="foo") == 1


# -- unusable paths ---------------------------------------------------------------------------
def test_a_path_that_is_a_file(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("not a store")
    for path in (afile, afile / "sub"):
        with pytest.raises(StoreError, match="directory path"):
            Memory(path=path, embedder=FakeEmbedder(dim=8))
    assert afile.read_text() == "not a store"


def test_an_unreadable_store_description(tmp_path: Path) -> None:
    path = tmp_path / "s"
    with Memory(path=path, embedder=FakeEmbedder(dim=8)) as m:
        m.add("kept", user_id="foo")
    (path / "prism-store.json").write_text("{broken")
    with pytest.raises(StoreError, match=r"prism-store\.json is unreadable"):
        Memory(path=path, embedder=FakeEmbedder(dim=8))
    (path / "prism-store.json").write_text('{"dim": 8}')  # the fix the message gives
    with Memory(path=path, embedder=FakeEmbedder(dim=8)) as m:
        assert m.count(user_id="foo") == 1


_MAJOR, _MINOR = (int(x) for x in version("qdrant-client").split(".")[:2])


@pytest.mark.parametrize(
    ("server", "warns"),
    [
        (f"{_MAJOR}.{_MINOR}.9", False),
        (f"{_MAJOR}.{_MINOR + 1}.0", False),
        (f"{_MAJOR}.{_MINOR + 2}.0", True),
        (f"{_MAJOR + 1}.0.0", True),
    ],
)
def test_a_server_of_a_distant_version_is_logged(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, server: str, warns: bool
) -> None:
    from types import SimpleNamespace

    store = QdrantStore(location=":memory:", dim=8)
    monkeypatch.setattr(store._client, "info", lambda: SimpleNamespace(version=server))
    with caplog.at_level(logging.WARNING, logger="prism_memory"):
        store._check_server_version()
    assert any("upgrade the older one" in r.getMessage() for r in caplog.records) is warns
    store.close()
