"""Request bodies of the JSON API: the keywords of ``Memory``'s methods, as pydantic models.

Design: one model per method that takes a body, its fields named and typed exactly as the
method's keywords (``user_id`` / ``agent_id`` / ``session_id`` included), ``extra="forbid"`` so
a misspelt field is a 422 naming it instead of being ignored. Routes pass ``model_dump`` of a
body straight to the method; nothing here decides anything.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "AddBody",
    "AddManyBody",
    "ConsolidateBody",
    "DeleteBySourceBody",
    "EndSessionBody",
    "FeedbackBody",
    "ForgetBody",
    "IntentBody",
    "RecallBody",
    "ReleaseBody",
    "RememberBody",
    "RememberFactBody",
    "RestoreBody",
    "ScopeBody",
    "SearchBody",
    "TaskBody",
    "TouchBody",
    "UpdateBody",
]


class ScopeBody(BaseModel):
    """The scope of a call: at least one of the three, as in the library."""

    model_config = ConfigDict(extra="forbid")

    user_id: str | None = Field(default=None, examples=["alice"])
    agent_id: str | None = None
    session_id: str | None = None

    def scope(self) -> dict[str, str | None]:
        return {"user_id": self.user_id, "agent_id": self.agent_id, "session_id": self.session_id}

    def rest(self) -> dict[str, Any]:
        """The body's other fields (the method's remaining keywords)."""
        return {
            k: v for k, v in self.__dict__.items() if k not in ("user_id", "agent_id", "session_id")
        }


class AddBody(ScopeBody):
    text: str = Field(examples=["I prefer window seats"])
    kind: str = "fact"
    layer: str = "semantic"
    metadata: dict[str, Any] | None = None
    event_time: datetime | None = None
    task_id: str | None = None
    subgoal_id: str | None = None
    entities: list[str | dict[str, str]] | None = None
    importance: float | None = None
    source: str = "user"
    source_ids: list[str] | None = None


class AddManyBody(ScopeBody):
    items: list[str | dict[str, Any]]
    kind: str = "fact"
    layer: str = "semantic"
    event_time: datetime | None = None
    source: str = "user"


class UpdateBody(ScopeBody):
    text: str | None = None
    metadata: dict[str, Any] | None = None
    importance: float | None = None
    kind: str | None = None
    reason: str | None = Field(default=None, description="Why it changed (kept in its history).")


class RestoreBody(ScopeBody):
    version: int = Field(description="The version number Memory.history shows.")
    reason: str | None = None


class ReleaseBody(ScopeBody):
    note: str | None = None


class SearchBody(ScopeBody):
    query: str = Field(examples=["which seat?"])
    limit: int = 10
    filters: dict[str, Any] | None = None
    include_history: bool = False
    score_threshold: float | None = None
    as_of: datetime | None = Field(default=None, description="Search what was valid then.")


class RecallBody(ScopeBody):
    query: str = Field(examples=["which seat?"])
    budget_tokens: int = 1000
    intent: dict[str, Any] | None = Field(
        default=None, description="An Intent's fields (step, kinds, layers, entities, ...)."
    )
    config: dict[str, Any] | None = Field(
        default=None,
        description="A RetrievalConfig's fields, replacing the server's for this call.",
    )
    now: datetime | None = None
    as_of: datetime | None = Field(default=None, description="Answer from what was valid then.")
    thread_session: str | None = Field(
        default=None, description="A session whose turns the prompt already shows."
    )
    thread_texts: list[str] = Field(
        default_factory=list, description="Messages the prompt already shows."
    )


class RememberFactBody(ScopeBody):
    text: str
    kind: str = "fact"
    source: str = "assistant"
    source_ids: list[str] = Field(default_factory=list)
    surface: str | None = None


class RememberBody(ScopeBody):
    messages: str | list[str | dict[str, Any]] = Field(
        description='A string, or a list of {"role", "content"[, "name", "timestamp", "id"]}.'
    )
    task_id: str | None = None
    subgoal_id: str | None = None
    event_time: datetime | float | str | None = None


class EndSessionBody(ScopeBody):
    consolidate: bool | None = None


class ConsolidateBody(ScopeBody):
    reflect: bool | None = None


class DeleteBySourceBody(ScopeBody):
    source: str
    purge: bool = False


class TaskBody(ScopeBody):
    goal: str | None = None
    status: str | None = None
    subgoal_id: str | None = None
    subgoal_status: str | None = None
    entities: list[str] | str | None = None
    constraints: list[str] | str | None = None
    decisions: list[str] | str | None = None
    notes: list[str] | str | None = None
    parent_task_id: str | None = None


class ForgetBody(ScopeBody):
    older_than: datetime | float | str | None = None
    below_utility: float | None = None
    layer: str | None = None
    mode: str = "archive"
    include_history: bool = True


class TouchBody(ScopeBody):
    records: list[str]
    now: datetime | None = None


class FeedbackBody(ScopeBody):
    record_ids: list[str]
    success: bool = True


class IntentBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    fields: dict[str, Any] = Field(default_factory=dict)
