"""A deletion means the data is gone: what was derived from a deleted record goes with it.

The rule (``prism_memory._delete_api``): a record whose ``provenance.source_ids`` name a
deleted record is deleted too, down the chain and across the scope's sessions, even when it
has other sources. ``delete``, ``delete_all`` of a session, ``delete_by_source`` and the
LangChain ``forget`` tool follow it. A refused deletion changes nothing and leaves no purge
journal; ``delete(..., purge=True)`` and ``purge()`` take the text off the disk too. Real
embedded engine, hashing fake embedder.
"""

from __future__ import annotations

import shutil
import uuid
from collections import namedtuple
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prism_memory import FakeEmbedder, Memory, Scope, StoreError
from prism_memory.stores.edge import PURGE_JOURNAL

PASSPORT = "QZ7781234"


@pytest.fixture(scope="module")
def mem(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    m = Memory(path=tmp_path_factory.mktemp("casc") / "store", embedder=FakeEmbedder(dim=64))
    yield m
    m.close()


def uid() -> str:
    return f"u-{uuid.uuid4().hex[:8]}"


def told_passport(m: Memory, user: str, session: str = "s1") -> tuple[str, str]:
    """A session in which the user gave their passport number; returns (user turn id,
    assistant turn id) once the fact and the session summary are derived."""
    m.remember(
        [
            {"role": "user", "content": f"My passport number is {PASSPORT}."},
            {"role": "assistant", "content": "Noted."},
        ],
        user_id=user,
        session_id=session,
    )
    m.end_session(user_id=user, session_id=session)
    m.flush()
    records = list(m.list(user_id=user, limit=100))
    turn = next(r for r in records if r.text.startswith("My passport"))
    reply = next(r for r in records if r.text == "Noted.")
    derived = [r for r in records if turn.id in r.provenance.source_ids]
    assert {r.kind.value for r in derived} >= {"fact", "summary"}, "nothing was derived"
    return turn.id, reply.id


def shows_passport(m: Memory, user: str) -> bool:
    texts = [r.text for r in m.list(user_id=user, limit=100)]
    recalled = m.recall("what is my passport number?", user_id=user).text
    return any(PASSPORT in t for t in texts) or PASSPORT in recalled


def test_deleting_a_turn_deletes_the_fact_and_summary_made_from_it(mem: Memory) -> None:
    alice = uid()
    turn, reply = told_passport(mem, alice)
    assert shows_passport(mem, alice)  # and the recall cache now holds it
    assert mem.delete(turn, user_id=alice) is True
    assert not shows_passport(mem, alice)
    assert [r.id for r in mem.list(user_id=alice)] == [reply]  # the other turn stays


def test_a_derived_record_goes_when_any_of_its_sources_goes(mem: Memory) -> None:
    alice = uid()
    _, reply = told_passport(mem, alice)
    mem.delete(reply, user_id=alice)  # the summary also came from the user's turn
    kinds = sorted(r.kind.value for r in mem.list(user_id=alice))
    assert kinds == ["fact", "observation"]  # the summary went; the fact had one source


def test_deleting_a_session_deletes_what_it_fed_into_long_term_memory(mem: Memory) -> None:
    alice = uid()
    told_passport(mem, alice, "s1")
    mem.add("Alice likes green tea", user_id=alice)  # not from the session: stays
    mem.delete_all(user_id=alice, session_id="s1", purge=False)
    assert not shows_passport(mem, alice)
    assert [r.text for r in mem.list(user_id=alice)] == ["Alice likes green tea"]


def test_a_chat_reset_can_keep_what_was_learned(mem: Memory) -> None:
    """``derived=False`` (what the chat-history adapters' ``clear()`` uses) deletes the
    session's own records and keeps the facts learned from them, as those adapters document."""
    alice = uid()
    told_passport(mem, alice, "s1")
    mem.delete_all(user_id=alice, session_id="s1", purge=False, derived=False)
    kinds = sorted(r.kind.value for r in mem.list(user_id=alice))
    assert "observation" not in kinds and "fact" in kinds


def test_the_langchain_forget_tool_cascades(mem: Memory) -> None:
    from langchain_prism import create_memory_tools

    alice = uid()
    turn, _ = told_passport(mem, alice)
    tools = {t.name: t for t in create_memory_tools(mem, user_id=alice)}
    assert tools["forget"].invoke({"memory_id": turn}) == "Forgotten."
    assert not shows_passport(mem, alice)


def test_deleting_again_finishes_an_interrupted_cascade(mem: Memory) -> None:
    """A crash between the derived records and the source leaves the source (deleted last);
    if the source is gone already, deleting it again still finds and deletes what remains."""
    alice = uid()
    turn, _ = told_passport(mem, alice)
    mem.record_store.delete([turn], Scope(user_id=alice))  # the source alone, as a crash would
    assert mem.delete(turn, user_id=alice) is False  # it was gone ...
    assert not shows_passport(mem, alice)  # ... and so is everything derived from it now


# -- property: nothing derived from a deleted source is served --------------------------------
Graph = namedtuple("Graph", "user ids sessions")


@st.composite
def graphs(draw: st.DrawFn) -> list[tuple[int, list[int]]]:
    """Records 0..n-1, each with a session (0-2) and sources among the earlier records."""
    n = draw(st.integers(2, 8))
    return [
        (draw(st.integers(0, 2)), draw(st.lists(st.integers(0, i - 1), max_size=2)) if i else [])
        for i in range(n)
    ]


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    graph=graphs(),
    how=st.sampled_from(["delete", "session", "source"]),
    pick=st.integers(0, 7),
)
def test_nothing_derived_from_a_deleted_record_remains(
    mem: Memory, graph: list[tuple[int, list[int]]], how: str, pick: int
) -> None:
    user = uid()
    ids: list[str] = []
    for i, (session, sources) in enumerate(graph):
        r = mem.add(
            f"record {i} of {user}",
            user_id=user,
            session_id=f"s{session}",
            source="derived" if sources else "user",
            source_ids=[ids[j] for j in sources],
        )
        ids.append(r.id)
    victim = pick % len(ids)
    if how == "delete":
        mem.delete(ids[victim], user_id=user)
    elif how == "session":
        mem.delete_all(user_id=user, session_id=f"s{graph[victim][0]}", purge=False)
    else:
        mem.delete_by_source(ids[victim], user_id=user)
    alive = {r.id: r for r in mem.list(user_id=user, limit=100)}
    assert ids[victim] not in alive
    for r in alive.values():  # no survivor names a record that is gone
        assert all(s in alive for s in r.provenance.source_ids), (how, graph, victim)


# -- a refused deletion leaves nothing behind; purge takes text off the disk -------------------
def files_containing(root: Path, needle: str) -> list[str]:
    raw = needle.encode()
    return [str(p) for p in root.rglob("*") if p.is_file() and raw in p.read_bytes()]


def test_a_refused_delete_all_leaves_no_purge_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "s"
    with Memory(path=root, embedder=FakeEmbedder(dim=32)) as m:
        m.add_many(["one", "two"], user_id="alice")
        full = shutil.disk_usage(root)._replace(free=1024 * 1024)  # 1 MB left: refused
        monkeypatch.setattr("prism_memory.stores.edge.shutil.disk_usage", lambda _p: full)
        with pytest.raises(StoreError, match="free"):
            m.delete_all(user_id="alice")
        monkeypatch.undo()
        assert not list(root.rglob(PURGE_JOURNAL))
        assert m.count(user_id="alice") == 2  # and nothing was deleted


def test_delete_with_purge_and_purge_take_the_text_off_the_disk(tmp_path: Path) -> None:
    root = tmp_path / "s"
    gone, later = "CANARYdelete9k", "CANARYlater4m"
    with Memory(path=root, embedder=FakeEmbedder(dim=32)) as m:
        m.add_many([f"note {i}" for i in range(20)], user_id="bob")
        doomed = m.add(f"{gone} locker code", user_id="alice")
        second = m.add(f"{later} old address", user_id="alice")
        m.flush()
        assert files_containing(root, gone)
        assert m.delete(doomed.id, user_id="alice", purge=True)
        assert files_containing(root, gone) == []
        assert m.delete(second.id, user_id="alice")  # hidden at once, on disk until a purge
        m.flush()
        m.purge()
        assert files_containing(root, later) == []
        assert m.count(user_id="bob") == 20
    assert files_containing(root, gone) == [] and files_containing(root, later) == []


def test_cli_delete_with_purge_erases_the_text(tmp_path: Path) -> None:
    from prism_memory.cli import main

    root, fake = tmp_path / "s", FakeEmbedder(dim=32)
    with Memory(path=root, embedder=fake) as m:
        rid = m.add("CANARYcli7q locker code", user_id="alice").id
    argv = ["--path", str(root), "delete", rid, "--user", "alice", "--purge", "--json"]
    assert main(argv, embedder=fake) == 0
    assert files_containing(root, "CANARYcli7q") == []
