"""The validated request forms of the public API (``retrieval/request.py``)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from prism_memory import FakeEmbedder, Memory, ValidationError
from prism_memory.extraction.schemas import SchemaDecl
from prism_memory.layers.working import TaskChanges
from prism_memory.lifecycle.forget import ForgetCriteria
from prism_memory.records import Scope
from prism_memory.retrieval.request import SearchRequest


def test_requests_are_keyword_only() -> None:
    with pytest.raises(TypeError):
        SearchRequest("q", Scope(user_id="a"), 5, None, False, None, None)  # type: ignore[misc]
    req = SearchRequest(
        query="q",
        scope=Scope(user_id="a"),
        limit=5,
        filters=None,
        include_history=False,
        score_threshold=None,
        as_of=None,
    )
    assert req.limit == 5


def test_thread_texts_must_be_a_list_of_strings() -> None:
    m = Memory(location=":memory:", embedder=FakeEmbedder(dim=32))
    m.add("I am vegetarian", user_id="a")
    with pytest.raises(ValidationError, match=r"list of strings.*\[text\]"):
        m.recall("what do I eat?", user_id="a", thread_texts="I am vegetarian")
    with pytest.raises(ValidationError, match="strings only"):
        m.recall("what do I eat?", user_id="a", thread_texts=["ok", 3])  # type: ignore[list-item]
    # a generator is read once and kept: the thread it names is still left out
    ctx = m.recall("I am vegetarian", user_id="a", thread_texts=(t for t in ["I am vegetarian"]))
    assert "vegetarian" not in ctx.text
    assert "vegetarian" in m.recall("I am vegetarian", user_id="a").text
    m.close()


def test_forget_builds_one_keyword_only_criteria() -> None:
    with pytest.raises(TypeError):
        ForgetCriteria(None, None, "episodic", "archive", True)  # type: ignore[misc]
    m = Memory(location=":memory:", embedder=FakeEmbedder(dim=32))
    m.add("I am vegetarian", user_id="a")
    with pytest.raises(ValidationError, match="unknown layer 'nope'"):
        m.forget(user_id="a", layer="nope")
    with pytest.raises(ValidationError, match="below_utility"):
        m.forget(user_id="a", layer="semantic", below_utility=2)
    assert [r.text for r in m.list(user_id="a")] == ["I am vegetarian"]  # nothing changed
    assert m.forget(user_id="a", layer="semantic") == 1
    m.close()


def test_task_changes_are_one_keyword_only_request() -> None:
    with pytest.raises(TypeError):
        TaskChanges("book a trip")  # type: ignore[misc]
    assert TaskChanges().is_read and not TaskChanges(notes="x").is_read
    m = Memory(location=":memory:", embedder=FakeEmbedder(dim=32))
    assert m.task("trip", user_id="a").goal is None  # a read writes nothing
    state = m.task("trip", user_id="a", goal="Lisbon in May", constraints="<= 800/night")
    assert (state.goal, state.constraints) == ("Lisbon in May", ["<= 800/night"])
    m.close()


def test_register_schema_builds_one_checked_declaration() -> None:
    class Pet(BaseModel):
        name: str
        species: str = ""

    with pytest.raises(TypeError):
        SchemaDecl(Pet)  # type: ignore[misc]
    m = Memory(location=":memory:", embedder=FakeEmbedder(dim=32))
    with pytest.raises(ValidationError, match="unknown policy 'newest'"):
        m.register_schema(Pet, key=["name"], policies={"species": "newest"})
    assert "Pet" not in m.schemas  # a bad declaration registers nothing
    assert m.register_schema(Pet, key=["name"], kind="fact").kind.value == "fact"
    m.close()
