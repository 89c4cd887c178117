"""Tenant isolation: the real Memory beside a dict model, across adversarial tenant ids.

A Hypothesis state machine adds, remembers, deletes and reads for >= 50 tenants whose ids are
built to break naive isolation (wildcards, prefixes, separators, Unicode look-alikes, 512-char
ids). Every text carries its owner's marker ``ownerQ<i>Q``; no read path — search, recall, get,
list, buffer, task state, export, delete — may ever return or render another tenant's marker.
Adapters are checked the same way: LangGraph namespaces, LangChain retriever, LlamaIndex memory.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from prism_bench.reliability import ADVERSARIAL_IDS, isolation_trial
from prism_memory import FakeEmbedder, Memory, NotFoundError, Scope, ScopeError

USERS = list(ADVERSARIAL_IDS)
assert len(USERS) >= 50
WORDS = ["coffee", "trip", "budget", "doctor", "piano", "garden"]
_MARK = re.compile(r"ownerQ(\d+)Q")


def marker(user: str) -> str:
    return f"ownerQ{USERS.index(user)}Q"


def foreign_markers(text: str, user: str) -> set[str]:
    mine = str(USERS.index(user))
    return {m for m in _MARK.findall(text) if m != mine}


_SHARED: dict[str, Any] = {}


def shared_memory() -> Memory:
    """One embedded store for every Hypothesis example (opening a store per example is slow)."""
    if "m" not in _SHARED:
        _SHARED["dir"] = tempfile.TemporaryDirectory(prefix="prism-iso-")
        _SHARED["m"] = Memory(path=Path(_SHARED["dir"].name) / "s", embedder=FakeEmbedder())
    m: Memory = _SHARED["m"]
    return m


@pytest.fixture(scope="module", autouse=True)
def _close_shared() -> Iterator[None]:
    yield
    if "m" in _SHARED:
        _SHARED.pop("m").close()
        _SHARED.pop("dir").cleanup()


users = st.sampled_from(USERS)
words = st.sampled_from(WORDS)


class IsolationMachine(RuleBasedStateMachine):
    """The real Memory and a dict model {user: {record id: text}} must agree."""

    @initialize()
    def fresh(self) -> None:
        self.m = shared_memory()
        by_scope: dict[Any, list[str]] = {}
        for r in list(self.m._engine.iter_all()):  # start every example from an empty store
            by_scope.setdefault(r.scope, []).append(r.id)
        for scope, ids in by_scope.items():
            self.m.store.delete(ids, scope)
        self.model: dict[str, dict[str, str]] = {}
        self.owned: dict[str, str] = {}  # every record id ever created -> its owner
        self.n = 0

    def _text(self, user: str, word: str) -> str:
        self.n += 1
        return f"{word} note {self.n} {marker(user)}"

    @rule(user=users, word=words)
    def add(self, user: str, word: str) -> None:
        rec = self.m.add(self._text(user, word), user_id=user)
        assert rec.user_id == user
        self.model.setdefault(user, {})[rec.id] = rec.text
        self.owned[rec.id] = user

    @rule(user=users, word=words)
    def add_many(self, user: str, word: str) -> None:
        recs = self.m.add_many([self._text(user, word), self._text(user, word)], user_id=user)
        for rec in recs:
            self.model.setdefault(user, {})[rec.id] = rec.text
            self.owned[rec.id] = user

    @rule(user=users, word=words)
    def remember(self, user: str, word: str) -> None:
        res = self.m.remember(f"I like {word} a lot, {marker(user)}", user_id=user, session_id="s")
        for change in res.added + res.updated:
            assert change.record.user_id == user
            self.owned[change.record.id] = user

    @rule(user=users, word=words)
    def search(self, user: str, word: str) -> None:
        for hit in self.m.search(word, user_id=user, limit=50):
            assert hit.record.user_id == user
            assert self.owned.get(hit.record.id, user) == user
            assert not foreign_markers(hit.record.text, user)

    @rule(user=users, word=words)
    def recall(self, user: str, word: str) -> None:
        ctx = self.m.recall(word, user_id=user, session_id="s", budget_tokens=400)
        assert all(r.user_id == user for r in ctx.records)
        assert not foreign_markers(ctx.text, user)

    @rule(user=users)
    def buffer_and_history(self, user: str) -> None:
        for rec in self.m.buffer(user_id=user, session_id="s"):
            assert (rec.user_id, rec.session_id) == (user, "s")
            assert not foreign_markers(rec.text, user)

    @rule(user=users, other=users)
    def task_state(self, user: str, other: str) -> None:
        self.m.task("trip-planning", user_id=user, goal=f"plan {marker(user)}")
        state = self.m.task("trip-planning", user_id=other)
        assert not foreign_markers(json.dumps(state.model_dump(mode="json")), other)

    @rule(user=users)
    def list_all(self, user: str) -> None:
        page = self.m.list(user_id=user, limit=10_000, include_history=True)
        assert all(r.user_id == user for r in page)
        assert set(self.model.get(user, {})) <= {r.id for r in page}

    @precondition(lambda self: bool(self.owned))
    @rule(user=users, data=st.data())
    def get_any(self, user: str, data: st.DataObject) -> None:
        rid = data.draw(st.sampled_from(sorted(self.owned)))
        if self.owned[rid] == user and rid in self.model.get(user, {}):
            assert self.m.get(rid, user_id=user).text == self.model[user][rid]
        elif self.owned[rid] != user:
            with pytest.raises(NotFoundError):
                self.m.get(rid, user_id=user)

    @precondition(lambda self: bool(self.owned))
    @rule(user=users, data=st.data())
    def delete_foreign(self, user: str, data: st.DataObject) -> None:
        rid = data.draw(st.sampled_from(sorted(self.owned)))
        if self.owned[rid] != user:
            assert self.m.delete(rid, user_id=user) is False

    @rule(user=users)
    def delete_all(self, user: str) -> None:
        self.m.delete_all(user_id=user, purge=False)
        self.model.pop(user, None)
        assert self.m.count(user_id=user) == 0

    @rule(user=users)
    def export(self, user: str) -> None:
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "x.jsonl"
            n = self.m.export_jsonl(path, user_id=user)
            rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert len(rows) == n
        assert all(r["user_id"] == user for r in rows)
        assert set(self.model.get(user, {})) <= {r["id"] for r in rows}

    @invariant()
    def model_records_are_intact(self) -> None:
        for user, records in self.model.items():
            found = {
                r.id: r.text for r in self.m.store.get(list(records), Scope.of(user, None, None))
            }
            assert found == records


IsolationMachine.TestCase.settings = settings(
    max_examples=6,
    stateful_step_count=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
test_isolation_state_machine = IsolationMachine.TestCase


class SlowIsolationMachine(IsolationMachine):
    pass


SlowIsolationMachine.TestCase.settings = settings(
    max_examples=60,
    stateful_step_count=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
test_isolation_state_machine_long = pytest.mark.slow(SlowIsolationMachine.TestCase)


def test_random_operations_across_adversarial_ids_never_cross(tmp_path: Path) -> None:
    res = isolation_trial(tmp_path / "s", ops=250, seed=3)
    assert res["tenants"] >= 50
    assert res["cross_tenant_results"] == 0


def test_empty_and_missing_scopes_always_raise(fake_memory: Memory, tmp_path: Path) -> None:
    m = fake_memory
    rec = m.add("a fact", user_id="alice")
    calls = [
        lambda **s: m.add("x", **s),
        lambda **s: m.add_many(["x"], **s),
        lambda **s: m.search("x", **s),
        lambda **s: m.get(rec.id, **s),
        lambda **s: m.list(**s),
        lambda **s: m.count(**s),
        lambda **s: m.stats(**s),
        lambda **s: m.update(rec.id, text="y", **s),
        lambda **s: m.delete(rec.id, **s),
        lambda **s: m.delete_all(**s),
        lambda **s: m.delete_by_source("tool", **s),
        lambda **s: m.export_jsonl(tmp_path / "e.jsonl", **s),
        lambda **s: m.recall("x", **s),
        lambda **s: m.remember("hello", **s),
        lambda **s: m.buffer(**s),
        lambda **s: m.task("t", **s),
    ]
    for call in calls:
        with pytest.raises(ScopeError):
            call()
        for empty in ("", "   "):
            with pytest.raises(ScopeError):
                call(user_id=empty)
    assert m.count(user_id="alice") == 1


def _check_namespaces(memory: Memory, namespaces: list[tuple[str, ...]]) -> None:
    from langchain_prism import PrismStore

    store = PrismStore(memory)
    for i, ns in enumerate(namespaces):
        store.put(ns, "k", {"text": f"coffee secret ownerQ{i}Q"})
    for i, ns in enumerate(namespaces):
        item = store.get(ns, "k")
        assert item is not None and item.value["text"].endswith(f"ownerQ{i}Q")
        hits = store.search(ns, query="coffee secret", limit=50)
        own = [h for h in hits if tuple(h.namespace) == ns]
        assert len(own) == 1
        for h in hits:  # a prefix search may include child namespaces, never siblings
            assert tuple(h.namespace[: len(ns)]) == ns


def test_langgraph_store_namespaces_match_exactly(fake_memory: Memory) -> None:
    from langchain_prism import PrismStore

    _check_namespaces(
        fake_memory,
        [
            ("foo",), ("foobar",), ("foo", "bar"), ("foo/bar",), ("foo%2Fbar",), ("john_doe",),
            ("john-doe",), ("_",), ("%",), ("аlice",), ("alice",), ("a" * 200,), ("a" * 199,),
        ],
    )  # fmt: skip
    store = PrismStore(fake_memory)
    store.delete(("foo",), "k")
    assert store.get(("foo",), "k") is None
    assert store.get(("foobar",), "k") is not None
    assert store.get(("foo", "bar"), "k") is not None


def test_langgraph_store_tenant_named_star_sees_only_its_items(fake_memory: Memory) -> None:
    # LangGraph's own stores match a search prefix literally; "*" is a wildcard only in
    # list_namespaces match conditions. A tenant whose id is "*" must not see ("%",)'s items.
    _check_namespaces(fake_memory, [("%",), ("*",), ("x",)])


def test_langchain_retriever_and_llamaindex_memory_stay_in_their_tenant(
    fake_memory: Memory,
) -> None:
    from llama_index.core.base.llms.types import ChatMessage

    from langchain_prism import PrismRetriever
    from llamaindex_prism import PrismMemory

    pairs = [("foo", "foobar"), ("john_doe", "john-doe"), ("alice", "аlice"), ("_", "%")]
    for a, b in pairs:
        for user in (a, b):
            fake_memory.add(f"coffee preference {marker(user)}", user_id=user)
            chat = PrismMemory(fake_memory, user_id=user, session_id="chat")
            chat.put(ChatMessage(role="user", content=f"my coffee order {marker(user)}"))
    for a, b in pairs:
        for user in (a, b):
            for mode in ("search", "recall"):
                docs = PrismRetriever(fake_memory, user_id=user, k=20, mode=mode).invoke("coffee")
                assert docs
                assert not any(foreign_markers(d.page_content, user) for d in docs)
            chat = PrismMemory(fake_memory, user_id=user, session_id="chat")
            text = "\n".join(str(msg.content) for msg in chat.get("coffee"))
            assert marker(user) in text
            assert not foreign_markers(text, user)
