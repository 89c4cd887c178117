"""The working layer: task state per ``(scope, task_id)``.

Design:
- One record per task (``layer=working``, ``kind=task``, scope without ``session_id``), its
  ``fields`` a validated :class:`TaskState`, its id deterministic from the task id, so updates
  are upserts and concurrent updates cannot create two states.
- Updates are pure (:func:`apply_task_update`): lists accumulate without duplicates, scalars are
  replaced, subgoal statuses are merged.
- A task that closes (done / failed / cancelled) leaves working memory: its state is summarised
  (:func:`task_summary`) into an episodic ``summary`` record and the working record is deleted.
- :class:`TaskState` is a schema of the engine's registry (:func:`register_task_schema`, a
  built-in users cannot replace; the extractors never fill it).
- :func:`load_task` / :func:`save_task` read and write that record through the engine; the
  write path calls them under the scope lock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticValidationError

from .._pydantic_errors import pydantic_reason
from ..errors import ValidationError
from ..extraction.schemas import SchemaRegistry, SchemaSpec
from ..records import Kind, Layer, Scope, Source, make_record_id
from ..results import RecordChange, RememberResult

if TYPE_CHECKING:
    from ..engine import Engine

__all__ = [
    "TaskChanges",
    "TaskState",
    "apply_changes",
    "apply_task_update",
    "load_task",
    "register_task_schema",
    "save_task",
    "task_record_id",
    "task_summary",
    "task_text",
]

_STATUSES = ("active", "paused", "done", "failed", "cancelled")


class TaskState(BaseModel):
    """Working memory of one task: goal, status, subgoals, entities, constraints, decisions.

    Example:
        >>> TaskState(task_id="trip-1", goal="book a hotel").status
        'active'
    """

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    task_id: str
    goal: str | None = None
    status: Literal["active", "paused", "done", "failed", "cancelled"] = "active"
    subgoals: dict[str, str] = Field(
        default_factory=dict, description="subgoal id -> status (active, done, ...)."
    )
    parent_task_id: str | None = None
    active_entities: list[str] = Field(default_factory=list)
    constraints: list[str] = Field(default_factory=list)
    decisions: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)

    @property
    def closed(self) -> bool:
        return self.status in ("done", "failed", "cancelled")


def task_text(f: dict[str, Any]) -> str:
    """The working record's text: task, status, goal, subgoals, entities, constraints."""
    parts = [f"Task {f.get('task_id')} ({f.get('status')})"]
    if f.get("goal"):
        parts.append(f"goal: {f['goal']}")
    if f.get("subgoals"):
        parts.append("subgoals: " + ", ".join(f"{k}={v}" for k, v in f["subgoals"].items()))
    for name in ("active_entities", "constraints", "decisions"):
        if f.get(name):
            parts.append(f"{name.replace('_', ' ')}: " + "; ".join(map(str, f[name])))
    return ". ".join(parts)


def register_task_schema(registry: SchemaRegistry) -> SchemaSpec:
    """Add :class:`TaskState` to a schema registry (keyed by ``task_id``)."""
    return registry.register_builtin(TaskState, ["task_id"], kind=Kind.TASK, render=task_text)


def task_record_id(scope: Scope, task_id: str) -> str:
    return make_record_id(scope, Layer.WORKING, f"task:{task_id}")


def _add_unique(items: list[str], new: Sequence[str] | str | None, what: str) -> list[str]:
    if new is None:
        return items
    values = [new] if isinstance(new, str) else list(new)
    for v in values:
        if not isinstance(v, str) or not v.strip():
            raise ValidationError(f"{what} must be non-empty strings, got {v!r}")
    seen = {v.casefold() for v in items}
    out = list(items)
    for v in values:
        if v.strip().casefold() not in seen:
            out.append(v.strip())
            seen.add(v.strip().casefold())
    return out


@dataclass(frozen=True, kw_only=True)
class TaskChanges:
    """The changes one task update makes (``Memory.task``'s keywords; ``None``: unchanged).
    ``Memory.task`` builds one; :func:`apply_changes` applies it."""

    goal: str | None = None
    status: str | None = None
    subgoal_id: str | None = None
    subgoal_status: str | None = None
    entities: Sequence[str] | str | None = None
    constraints: Sequence[str] | str | None = None
    decisions: Sequence[str] | str | None = None
    notes: Sequence[str] | str | None = None
    parent_task_id: str | None = None

    @property
    def is_read(self) -> bool:
        """Whether nothing is changed (the call only reads the state)."""
        return all(getattr(self, f.name) is None for f in fields(self))


def apply_task_update(state: TaskState, **changes: Any) -> TaskState:
    """:func:`apply_changes` with the changes as keywords (those of :class:`TaskChanges`).

    >>> s = apply_task_update(TaskState(task_id="t"), goal="book", constraints=["<= 800/night"])
    >>> apply_task_update(s, constraints="<= 800/night", subgoal_id="hotel").constraints
    ['<= 800/night']
    """
    return apply_changes(state, TaskChanges(**changes))


def apply_changes(state: TaskState, changes: TaskChanges) -> TaskState:
    """A new state with the changes applied (the input is not modified): lists accumulate
    without duplicates, scalars are replaced, a subgoal's status is merged."""
    goal, status = changes.goal, changes.status
    subgoal_id, subgoal_status = changes.subgoal_id, changes.subgoal_status
    parent_task_id = changes.parent_task_id
    data = state.model_dump()
    if goal is not None:
        if not isinstance(goal, str) or not goal.strip():
            raise ValidationError(f"goal must be a non-empty string, got {goal!r}")
        data["goal"] = goal.strip()
    if status is not None:
        if status not in _STATUSES:
            raise ValidationError(
                f"unknown task status {status!r}; use one of {', '.join(_STATUSES)}"
            )
        data["status"] = status
    if subgoal_status is not None and subgoal_id is None:
        raise ValidationError("subgoal_status needs subgoal_id=... (which subgoal it is about)")
    if subgoal_id is not None:
        if not isinstance(subgoal_id, str) or not subgoal_id.strip():
            raise ValidationError(f"subgoal_id must be a non-empty string, got {subgoal_id!r}")
        sg_status = subgoal_status or data["subgoals"].get(subgoal_id, "active")
        if sg_status not in _STATUSES:
            raise ValidationError(
                f"unknown subgoal status {sg_status!r}; use one of {', '.join(_STATUSES)}"
            )
        data["subgoals"] = {**data["subgoals"], subgoal_id: sg_status}
    if parent_task_id is not None:
        if not isinstance(parent_task_id, str) or not parent_task_id.strip():
            raise ValidationError(
                f"parent_task_id must be a non-empty string, got {parent_task_id!r}"
            )
        data["parent_task_id"] = parent_task_id
    data["active_entities"] = _add_unique(data["active_entities"], changes.entities, "entities")
    data["constraints"] = _add_unique(data["constraints"], changes.constraints, "constraints")
    data["decisions"] = _add_unique(data["decisions"], changes.decisions, "decisions")
    data["notes"] = _add_unique(data["notes"], changes.notes, "notes")
    try:
        return TaskState.model_validate(data)
    except PydanticValidationError as exc:  # a field the checks above do not cover
        raise ValidationError(f"invalid task update: {pydantic_reason(exc)}") from None


def task_summary(state: TaskState) -> str:
    """The episodic summary written when a task closes."""
    parts = [f"Task {state.task_id} ended ({state.status})"]
    if state.goal:
        parts.append(f"goal: {state.goal}")
    if state.decisions:
        parts.append("decisions: " + "; ".join(state.decisions))
    if state.constraints:
        parts.append("constraints: " + "; ".join(state.constraints))
    if state.subgoals:
        parts.append("subgoals: " + ", ".join(f"{k}={v}" for k, v in state.subgoals.items()))
    if state.active_entities:
        parts.append("entities: " + ", ".join(state.active_entities))
    return ". ".join(parts)


def task_fields(state: TaskState) -> dict[str, Any]:
    return state.model_dump(mode="json")


def load_task(engine: Engine, scope: Scope, task_id: str) -> TaskState | None:
    """The task's current state, or ``None`` when it has none."""
    found = engine.store.get([task_record_id(scope, task_id)], scope)
    if not found:
        return None
    return TaskState.model_validate(found[0].fields)


def save_task(
    engine: Engine, spec: SchemaSpec, scope: Scope, state: TaskState, result: RememberResult
) -> None:
    """Write the task's working record; a closed task becomes an episodic summary.

    ``spec`` is the registry's ``TaskState`` schema (its text rendering and name).
    """
    rid = task_record_id(scope, state.task_id)
    if state.closed:
        summary = engine.build_record(
            task_summary(state),
            scope,
            kind=Kind.SUMMARY,
            layer=Layer.EPISODIC,
            task_id=state.task_id,
            fields=state.model_dump(mode="json"),
            schema=spec.name,
            entities=state.active_entities[:12],
            importance=0.7,
            source=Source.DERIVED,
            source_ids=[rid],
            metadata={"task_status": state.status},
        )
        engine.write_records([summary], screen=False)
        engine.delete([rid], scope)
        result.added.append(RecordChange(summary, f"task {state.task_id} closed: summarised"))
        return
    found = engine.store.get([rid], scope)
    record = engine.build_record(
        spec.text(state.model_dump(mode="json")),
        scope,
        kind=Kind.TASK,
        layer=Layer.WORKING,
        task_id=state.task_id,
        fields=state.model_dump(mode="json"),
        schema=spec.name,
        entities=state.active_entities[:12],
        importance=0.8,
        source=Source.SYSTEM,
        record_id=rid,
    )
    if found:
        record.created_at = found[0].created_at
    engine.write_records([record], screen=False)  # internal task state
    (result.updated if found else result.added).append(RecordChange(record, "task state"))
