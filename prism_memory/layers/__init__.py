"""The four memory layers: buffer (raw recent turns), working (task state), episodic (turns and
events) and semantic (schema facts). ``Memory`` orchestrates them; these modules hold the logic."""

from __future__ import annotations

from .messages import Turn, parse_messages
from .result import RecordChange, RememberResult
from .working import TaskState

__all__ = ["RecordChange", "RememberResult", "TaskState", "Turn", "parse_messages"]
