"""Bad input: filters, scopes, JSONL import, message formats and the renderer under Hypothesis.

Any input either works or raises a ``PrismError`` subclass with a message; nothing else escapes.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prism_memory import FakeEmbedder, Memory, PrismError

FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

_M: dict[str, Any] = {}


@pytest.fixture(scope="module")
def mem() -> Iterator[Memory]:
    with tempfile.TemporaryDirectory() as d:
        m = Memory(path=Path(d) / "s", embedder=FakeEmbedder())
        m.add_many(["I like tea", "My cat is called Miso", "Trip to Rome in May"], user_id="alice")
        yield m
        m.close()


def outcome(fn: Callable[[], Any]) -> Any:
    """Run ``fn``; a PrismError is a clean rejection, anything else fails the test."""
    try:
        return fn()
    except PrismError as exc:
        assert str(exc).strip(), "a rejection must say what is wrong"
        return exc


scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=20),
    st.datetimes().map(lambda d: d.isoformat()), st.binary(max_size=8),
)  # fmt: skip
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
keys = st.one_of(
    st.sampled_from(
        ["layer", "kind", "entities", "event_time", "importance", "metadata.topic", "id",
         "user_id", "status", "trust", "source_ids", "created_at", "utility", "schema"]
    ),
    st.text(max_size=12),
    st.integers(),
)  # fmt: skip
filters = st.one_of(values, st.dictionaries(keys, values, max_size=4))


@FUZZ
@given(flt=filters, limit=st.one_of(st.integers(-5, 2000), st.none(), st.text(max_size=3)))
def test_filters_and_limits(mem: Memory, flt: Any, limit: Any) -> None:
    outcome(lambda: mem.search("tea", user_id="alice", filters=flt))
    outcome(lambda: mem.list(user_id="alice", filters=flt, limit=limit))


scope_values = st.one_of(
    st.none(), st.text(max_size=600), st.integers(), st.binary(max_size=4),
    st.lists(st.text(max_size=3), max_size=2), st.sampled_from(["", " ", "\x00", "a\x00b", "*", "%"]),
)  # fmt: skip


@FUZZ
@given(user=scope_values, agent=scope_values, session=scope_values)
def test_scopes(mem: Memory, user: Any, agent: Any, session: Any) -> None:
    scope = {"user_id": user, "agent_id": agent, "session_id": session}
    added = outcome(lambda: mem.add("fuzz fact", **scope))
    outcome(lambda: mem.search("fuzz", **scope))
    outcome(lambda: mem.list(**scope))
    outcome(lambda: mem.recall("fuzz", **scope))
    if not isinstance(added, PrismError):
        assert added.user_id == user and added.agent_id == agent and added.session_id == session
        assert mem.delete(added.id, **scope) is True


messages = st.one_of(
    st.text(max_size=50),
    st.lists(
        st.one_of(
            st.fixed_dictionaries(
                {"role": st.sampled_from(["user", "assistant", "system", "tool", "human", "ai", "", "x"]),
                 "content": st.one_of(st.text(max_size=40), st.integers(), st.none(),
                                      st.lists(st.text(max_size=5), max_size=2))},
                optional={"name": st.text(max_size=5), "id": st.one_of(st.text(max_size=5), st.integers()),
                          "timestamp": st.one_of(st.text(max_size=12), st.floats(), st.integers())},
            ),
            st.dictionaries(st.text(max_size=6), values, max_size=3),
            st.text(max_size=10),
            st.integers(),
            st.none(),
        ),
        max_size=4,
    ),
    st.integers(),
    st.none(),
    st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=2),
)  # fmt: skip


@FUZZ
@given(
    msgs=messages, event_time=st.one_of(st.none(), st.text(max_size=12), st.floats(), st.integers())
)
def test_message_formats(mem: Memory, msgs: Any, event_time: Any) -> None:
    outcome(lambda: mem.remember(msgs, user_id="fuzz-msg", session_id="s", event_time=event_time))


lines = st.lists(
    st.one_of(
        st.text(max_size=60),
        st.dictionaries(st.text(max_size=8), values, max_size=5).map(lambda d: json.dumps(d, default=str)),
        st.fixed_dictionaries(
            {"text": st.one_of(st.text(max_size=20), st.integers(), st.none())},
            optional={"user_id": scope_values.filter(lambda v: not isinstance(v, bytes)),
                      "layer": st.text(max_size=8), "kind": st.text(max_size=8),
                      "importance": st.one_of(st.floats(allow_nan=False), st.text(max_size=3)),
                      "created_at": st.text(max_size=12), "id": st.text(max_size=12),
                      "provenance": st.dictionaries(st.text(max_size=6), st.text(max_size=6), max_size=2)},
        ).map(lambda d: json.dumps(d, default=str)),
    ),
    max_size=6,
)  # fmt: skip


@FUZZ
@given(content=lines, skip_bad=st.booleans())
def test_jsonl_import(mem: Memory, content: list[str], skip_bad: bool) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "in.jsonl"
        path.write_text("\n".join(content), encoding="utf-8")
        with open(path, encoding="utf-8") as fh:
            n_lines = sum(1 for line in fh if line.strip())
        res = outcome(lambda: mem.import_jsonl(path, skip_bad=skip_bad))
    if not isinstance(res, PrismError):
        assert res.imported + res.skipped == n_lines


@FUZZ
@given(
    query=st.one_of(st.text(max_size=80), st.integers(), st.none()),
    budget=st.one_of(st.integers(-10, 5000), st.floats(), st.text(max_size=3), st.none()),
    stored=st.text(min_size=1, max_size=200),
)
def test_renderer(mem: Memory, query: Any, budget: Any, stored: str) -> None:
    outcome(lambda: mem.add(stored, user_id="fuzz-render"))
    ctx = outcome(lambda: mem.recall(query, user_id="fuzz-render", budget_tokens=budget))
    if not isinstance(ctx, PrismError):
        assert ctx.tokens <= budget
        assert (
            "</memories>" not in ctx.text[: -len("</memories>")]
            or ctx.text.count("</memories>") == 1
        )
