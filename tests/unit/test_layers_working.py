"""Working memory: task state per (scope, task_id), closing into an episodic summary."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from prism_memory import FakeEmbedder, Memory, ScopeError, ValidationError
from prism_memory.layers.working import TaskState, apply_task_update, task_summary

_users = itertools.count()


@pytest.fixture(scope="module")
def m() -> Iterator[Memory]:
    mem = Memory(location=":memory:", embedder=FakeEmbedder(dim=32))
    yield mem
    mem.close()


@pytest.fixture
def user() -> str:
    return f"w{next(_users)}"


def test_update_is_pure_and_accumulates_without_duplicates() -> None:
    s0 = TaskState(task_id="t")
    s1 = apply_task_update(s0, goal="trip", constraints=["< 800"], subgoal_id="hotel")
    s2 = apply_task_update(
        s1, constraints="< 800", decisions="Hilton", subgoal_id="hotel", subgoal_status="done"
    )
    assert s0.goal is None and s1.subgoals == {"hotel": "active"}
    assert (
        s2.constraints == ["< 800"]
        and s2.decisions == ["Hilton"]
        and s2.subgoals == {"hotel": "done"}
    )
    assert "decisions: Hilton" in task_summary(s2)


def test_task_read_update_and_isolation(m: Memory, user: str) -> None:
    state = m.task("trip", user_id=user, goal="plan Kyoto trip", constraints=["under 800/night"])
    assert state.goal == "plan Kyoto trip"
    again = m.task(
        "trip", user_id=user, session_id="other-session"
    )  # working memory spans sessions
    assert again == state
    assert m.task("trip", user_id=user + "-other").goal is None  # another user sees nothing
    (rec,) = m.list(user_id=user, layer="working")
    assert rec.kind.value == "task" and rec.task_id == "trip" and rec.session_id is None


def test_remember_with_task_id_updates_its_state(m: Memory, user: str) -> None:
    m.remember(
        "Book a hotel in Kyoto, it must be near the station",
        user_id=user,
        session_id="s",
        task_id="kyoto",
        subgoal_id="hotel",
    )
    m.remember("Let's take the Hotel Granvia", user_id=user, session_id="s", task_id="kyoto")
    state = m.task("kyoto", user_id=user)
    assert state.goal and state.goal.startswith("Book a hotel in Kyoto")
    assert state.subgoals == {"hotel": "active"}
    assert "Kyoto" in state.active_entities
    assert state.decisions == ["Let's take the Hotel Granvia"]


def test_closed_task_is_summarised_into_episodic_and_leaves_working(m: Memory, user: str) -> None:
    m.task("report", user_id=user, goal="write the Q3 report", decisions=["use the new template"])
    m.task("report", user_id=user, status="done")
    assert m.list(user_id=user, layer="working") == []
    (summary,) = m.list(user_id=user, layer="episodic", kind="summary")
    assert "write the Q3 report" in summary.text and "use the new template" in summary.text
    assert summary.task_id == "report"


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"status": "finished"}, "unknown task status"),
        ({"goal": ""}, "goal"),
        ({"subgoal_status": "done"}, "needs subgoal_id"),
        ({"constraints": [""]}, "non-empty"),
        ({"subgoal_id": "x", "subgoal_status": "meh"}, "unknown subgoal status"),
    ],
)
def test_bad_task_updates_change_nothing(
    m: Memory, user: str, kwargs: dict[str, object], words: str
) -> None:
    m.task("t", user_id=user, goal="keep me")
    with pytest.raises(ValidationError, match=words):
        m.task("t", user_id=user, **kwargs)  # type: ignore[arg-type]
    assert m.task("t", user_id=user).goal == "keep me"


def test_task_needs_an_id_and_a_scope(m: Memory) -> None:
    with pytest.raises(ValidationError, match="task_id"):
        m.task("", user_id="x")
    with pytest.raises(ScopeError):
        m.task("t")
