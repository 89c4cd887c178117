"""The one decay formula: a value halves every ``half_life_days``.

Design: recall's freshness (``retrieval.scoring.freshness``) and lifecycle's retention
(``lifecycle.decay.retention``) both age records by it; it sits below both so neither stage
imports the other (``tests/unit/test_import_graph.py``).
"""

from __future__ import annotations

__all__ = ["half_life_decay"]


def half_life_decay(age_days: float, half_life_days: float) -> float:
    """``0.5 ** (age / half_life)``: 1.0 now (or for a future time), 0.5 after one half-life.

    The one decay formula: recall's freshness and lifecycle's retention both use it.

    >>> half_life_decay(0, 30), half_life_decay(30, 30), half_life_decay(-5, 30)
    (1.0, 0.5, 1.0)
    """
    if half_life_days <= 0:
        raise ValueError("half_life_days must be > 0")
    return float(0.5 ** (max(0.0, age_days) / half_life_days))
