"""The four memory layers, one module each: ``buffer`` (raw recent turns), ``working`` (task
state), ``episodic`` (turns moved out of the buffer, and events) and ``semantic`` (schema
facts). The write path (``prism_memory.write``) orchestrates them; each module owns its
layer's transitions and receives the engine, never the facade."""

from __future__ import annotations

from .working import TaskState

__all__ = ["TaskState"]
