"""The five write-path scenarios of the issue, on the real embedded store and embedding model."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, HumanMessage
from pydantic import BaseModel

from prism_memory import FastEmbedEmbedder, Memory, PrismConfig
from prism_memory.tokens import count_tokens

_users = itertools.count()
T0 = datetime(2024, 5, 8, 9, 30, tzinfo=timezone.utc)  # a Wednesday


@pytest.fixture(scope="module")
def edge(
    tmp_path_factory: pytest.TempPathFactory, real_embedder: FastEmbedEmbedder
) -> Iterator[Memory]:
    m = Memory(path=tmp_path_factory.mktemp("scenarios") / "store", embedder=real_embedder)
    yield m
    m.close()


@pytest.fixture
def user() -> str:
    return f"scenario-{next(_users)}"


def test_travel_planning_budget_supersedes_and_preferences(edge: Memory, user: str) -> None:
    edge.remember(
        [HumanMessage("My budget is 500 a night", id="u1"), AIMessage("Got it, 500 per night.")],
        user_id=user,
        session_id="plan",
        event_time=T0,
    )
    edge.remember("I love seafood", user_id=user, session_id="plan", event_time=T0)
    edge.remember("window seat please", user_id=user, session_id="plan", event_time=T0)
    res = edge.remember(
        [HumanMessage("I can go up to 800 now", id="u9")],
        user_id=user,
        session_id="plan",
        event_time=T0 + timedelta(days=2),
    )
    assert len(res.superseded) == 1 and res.superseded[0].record.fields["amount"] == 500.0

    budgets = edge.list(user_id=user, kind="fact")
    assert [(b.fields["attribute"], b.fields["amount"]) for b in budgets] == [("budget", 800.0)]
    assert "u9" in budgets[0].provenance.source_ids
    hits = edge.search("what is my hotel budget per night?", user_id=user, filters={"kind": "fact"})
    assert hits[0].record.fields["amount"] == 800.0 and len(hits) == 1
    history = edge.search(
        "hotel budget", user_id=user, filters={"kind": "fact"}, include_history=True
    )
    assert sorted(h.record.fields["amount"] for h in history) == [500.0, 800.0]

    prefs = {
        p.fields["subject"]: p.fields["polarity"]
        for p in edge.list(user_id=user, kind="preference")
    }
    assert prefs == {"seafood": "like", "window seat": "need"}
    top = edge.search(
        "what food does the user enjoy?", user_id=user, filters={"kind": "preference"}
    )
    assert top[0].record.fields["subject"] == "seafood"


def test_meeting_assistant_event_entity_task_and_later_question(edge: Memory, user: str) -> None:
    res = edge.remember(
        "move tomorrow's 3pm meeting with Mr. Zhang to 4pm and notify him",
        user_id=user,
        session_id="monday",
        task_id="meetings",
        subgoal_id="zhang",
        event_time=T0,
    )
    (event,) = [c.record for c in res.added if c.record.kind.value == "event"]
    assert event.fields["when"] == "2024-05-09T16:00:00+00:00"
    assert event.event_time == datetime(2024, 5, 9, 16, tzinfo=timezone.utc)
    assert "zhang" in event.entity_keys and event.layer.value == "episodic"
    turn = next(c.record for c in res.added if c.record.layer.value == "buffer")
    assert turn.id in event.provenance.source_ids
    state = edge.task("meetings", user_id=user)
    assert state.subgoals == {"zhang": "active"} and "Zhang" in state.active_entities

    edge.end_session(user_id=user, session_id="monday")
    later = T0 + timedelta(days=7)
    edge.remember(
        "Can you check the weather for the weekend?",
        user_id=user,
        session_id="next-week",
        event_time=later,
    )
    hits = edge.search("when did I move the Zhang meeting?", user_id=user, limit=5)
    kinds = {h.record.kind.value: h.record for h in hits}
    assert "event" in kinds and kinds["event"].id == event.id
    assert any(h.record.layer.value == "episodic" and "Zhang" in h.record.text for h in hits[:3])


class BookInterest(BaseModel):
    """A book the user is interested in, and why."""

    title: str
    reasons: list[str] = []


def test_book_interest_user_schema_is_merged_not_duplicated(
    tmp_path: Path, real_embedder: FastEmbedEmbedder
) -> None:
    def answer(reason: str) -> str:
        return json.dumps(
            {
                "items": [
                    {
                        "schema": "BookInterest",
                        "fields": {"title": "Three-Body", "reasons": [reason]},
                    }
                ]
            }
        )

    llm = FakeListChatModel(
        responses=[answer("read the first two books"), answer("favourite series")]
    )
    m = Memory(path=tmp_path / "store", embedder=real_embedder, llm=llm)
    m.register_schema(BookInterest, key=["title"], policies={"reasons": "accumulate"})
    m.remember("I read the first two Three-Body books", user_id="reader", session_id="s1")
    res = m.remember("Three-Body is my favourite", user_id="reader", session_id="s2")
    records = m.list(user_id="reader", filters={"schema": "BookInterest"})
    assert len(records) == 1
    assert records[0].fields["reasons"] == ["read the first two books", "favourite series"]
    assert any(c.record.id == records[0].id for c in res.updated)
    # the merge is a version of the one memory, not a second memory
    versions = m.history(records[0].id, user_id="reader")
    assert [v.event for v in versions] == ["added", "updated"]
    assert "favourite" not in (versions[0].text or "") and "favourite" in (versions[1].text or "")
    hit = m.search(
        "which books does the reader like?", user_id="reader", filters={"schema": "BookInterest"}
    )
    assert hit[0].record.fields["title"] == "Three-Body"
    m.close()


def test_long_session_keeps_buffer_bounded_and_loses_no_turn(edge: Memory, user: str) -> None:
    cfg = edge.config.buffer
    topics = ["hiking", "cooking", "chess", "jazz", "python", "gardening", "tennis", "poetry"]
    for i in range(0, 200, 10):
        batch = [
            {
                "role": "user" if j % 2 == 0 else "assistant",
                "id": f"t{j}",
                "content": f"turn {j}: a few words about {topics[j % len(topics)]} "
                + "and more " * (j % 7),
            }
            for j in range(i, i + 10)
        ]
        edge.remember(batch, user_id=user, session_id="long", event_time=T0)
        buf = edge.buffer(user_id=user, session_id="long")
        assert len(buf) <= cfg.max_turns
        assert sum(count_tokens(r.text) for r in buf) <= cfg.max_tokens
    history = edge.session_turns(user_id=user, session_id="long")
    assert [r.metadata["turn_index"] for r in history] == list(range(200))
    assert [r.provenance.source_ids for r in history] == [[f"t{j}"] for j in range(200)]
    assert edge.count(user_id=user, layer="episodic") >= 200 - cfg.max_turns


class RaisingChatModel(FakeListChatModel):
    def _call(self, *args: Any, **kwargs: Any) -> str:
        raise TimeoutError("the provider timed out")


@pytest.mark.parametrize(
    "responses, expected_conf, extractor",
    [
        (
            [
                json.dumps(
                    {
                        "items": [
                            {
                                "schema": "Fact",
                                "fields": {
                                    "attribute": "budget",
                                    "value": "500 per night",
                                    "amount": 500,
                                },
                                "confidence": 0.95,
                            }
                        ]
                    }
                )
            ],
            0.95,
            "llm",
        ),
        (["I think the budget is 500?", "still not json"], 0.4, "rules (LLM fallback"),
        (None, 0.4, "rules (LLM fallback"),
    ],
    ids=["valid-json", "invalid-json", "raising"],
)
def test_llm_extractor_write_always_succeeds(
    tmp_path: Path,
    real_embedder: FastEmbedEmbedder,
    responses: list[str] | None,
    expected_conf: float,
    extractor: str,
) -> None:
    llm = (
        RaisingChatModel(responses=["x"])
        if responses is None
        else FakeListChatModel(responses=responses)
    )
    m = Memory(path=tmp_path / "store", embedder=real_embedder, llm=llm, config=PrismConfig())
    res = m.remember(
        [{"role": "user", "content": "My budget is 500 a night", "id": "b1"}],
        user_id="u",
        session_id="s",
        event_time=T0,
    )
    assert [c.reason for c in res.added if c.record.layer.value == "buffer"] == ["buffered turn"]
    (fact,) = m.list(user_id="u", kind="fact")
    assert fact.fields["amount"] == 500.0 and fact.confidence == expected_conf
    assert fact.metadata["extractor"].startswith(extractor) and "b1" in fact.provenance.source_ids
    assert m.search("budget", user_id="u", filters={"kind": "fact"})[0].record.id == fact.id
    m.close()


def _facts_section(text: str) -> str:
    return text.split("## Facts", 1)[1].split("##", 1)[0] if "## Facts" in text else ""


def test_an_update_supersedes_the_old_value_and_recall_shows_the_current_one(
    edge: Memory, user: str
) -> None:
    turns = [
        ("I live in Ghent, near the old docks.", T0),
        ("My hourly rate is 45 euros.", T0 + timedelta(days=1)),
        ("Big news: we live in Antwerp now.", T0 + timedelta(days=30)),
        ("I raised my hourly rate to 55 euros.", T0 + timedelta(days=31)),
    ]
    for i, (text, when) in enumerate(turns):
        msg = {"role": "user", "content": text, "name": "Lotte"}
        edge.remember([msg], user_id=user, session_id=f"u{i}", event_time=when)
        edge.end_session(user_id=user, session_id=f"u{i}")
    current = {r.fields["attribute"]: r for r in edge.list(user_id=user, kind="fact")}
    assert current["home city"].fields["value"] == "Antwerp"
    assert current["hourly rate"].fields["amount"] == 55.0
    history = edge.list(user_id=user, kind="fact", include_history=True)
    old = [r for r in history if r.status.value == "superseded"]
    assert sorted(r.fields["value"] for r in old) == ["45 euros", "Ghent, near the old docks"]
    assert all(r.valid_to is not None for r in old)
    assert all(any(rel.type == "contradicts" for rel in r.relations) for r in old)
    # the current values only; a turn that stated an old one is marked as history
    ctx = edge.recall("Where does Lotte live and what is her hourly rate?", user_id=user)
    assert "Antwerp" in ctx.text and "55 euros" in ctx.text
    for line in ctx.text.splitlines():
        if "Ghent" in line or "45 euros" in line:
            assert "[later changed: " in line, line
    assert "Ghent" not in _facts_section(ctx.text)


def test_a_rescheduled_event_retires_the_old_date(edge: Memory, user: str) -> None:
    edge.remember(
        [{"role": "user", "content": "My dentist check-up is on June 3 at 9am.", "name": "Ines"}],
        user_id=user,
        session_id="a",
        event_time=T0,
    )
    edge.remember(
        [{"role": "user", "content": "The clinic moved my check-up to June 10.", "name": "Ines"}],
        user_id=user,
        session_id="b",
        event_time=T0 + timedelta(days=3),
    )
    events = edge.list(user_id=user, kind="event")
    assert [e.fields["when"][:10] for e in events] == ["2024-06-10"]
    old = [
        e for e in edge.list(user_id=user, kind="event", include_history=True) if e not in events
    ]
    assert [e.fields["when"][:10] for e in old] == ["2024-06-03"] and old[0].valid_to is not None


def test_assistant_suggestions_questions_and_hypotheticals_write_no_fact(
    edge: Memory, user: str
) -> None:
    edge.remember(
        [
            {"role": "user", "content": "Any ideas for a day trip from Utrecht?"},
            {"role": "assistant", "content": "You could visit Haarlem, it's lovely in spring."},
            {"role": "user", "content": "If I went in April, would the tulips be out?"},
        ],
        user_id=user,
        session_id="trip",
        event_time=T0,
    )
    edge.end_session(user_id=user, session_id="trip")
    extracted = [r for r in edge.list(user_id=user, layer="semantic") if r.kind.value != "summary"]
    assert extracted == [] and edge.list(user_id=user, kind="event") == []
