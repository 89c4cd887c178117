"""The memory lifecycle: consolidation and reflection, decay signals, forgetting by policy, and
the background worker that runs the heavy steps off the agent's turn."""

from __future__ import annotations

from .consolidate import consolidate_scope, extractive_summary
from .decay import record_access, retention
from .forget import forget_records
from .worker import BackgroundWorker

__all__ = [
    "BackgroundWorker",
    "consolidate_scope",
    "extractive_summary",
    "forget_records",
    "record_access",
    "retention",
]
