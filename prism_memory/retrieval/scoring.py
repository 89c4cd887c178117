"""PRISM multi-objective scoring and the utility feedback rule (pure functions).

Design:
- ``score = sum_i w_i * part_i / sum_i w_i + intent_boost * match``, parts in [0, 1]:
  ``semantic`` (fused rank blended with cosine to the query), ``fresh`` (half-life decay of
  the record's time: ``halflife.half_life_decay``, the one decay formula, below both this
  module and lifecycle's retention, which uses it too), ``task`` (distance in the task tree), ``utility`` (feedback),
  ``importance``. ``match`` is the share of the intent's soft constraints the record meets
  (kinds, layers, entities, speakers, time range).
- Relevance (:func:`relevance`) is the one meaning of a public hit's ``score`` everywhere
  (``Memory.search``, the recall items' ``relevance``, the LangChain / LlamaIndex retrievers,
  ``PrismStore``): the cosine similarity of the query vector and the record's dense vector,
  clipped to [0, 1]. Ranking never uses it directly; it is what a caller can threshold and
  compare with other vector stores' cosine scores.
- Utility feedback is a bounded, decaying step toward 1 (success) or 0 (failure): early
  feedback moves a record a lot, later feedback less, and utility never leaves [0, 1].
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from ..errors import ValidationError
from ..halflife import half_life_decay
from ..records import MemoryRecord
from .intent import WEIGHT_KEYS, Intent

__all__ = [
    "ScoreParts",
    "check_score_threshold",
    "combine",
    "cosine",
    "freshness",
    "half_life_decay",
    "informativeness",
    "intent_match",
    "relevance",
    "semantic_score",
    "task_relevance",
    "updated_utility",
]


def freshness(when: datetime, now: datetime, half_life_days: float) -> float:
    """:func:`half_life_decay` of the age of ``when`` at ``now``; a future time counts as fresh.

    >>> from datetime import timedelta, timezone
    >>> now = datetime(2024, 1, 31, tzinfo=timezone.utc)
    >>> round(freshness(now - timedelta(days=30), now, 30.0), 2)
    0.5
    """
    return half_life_decay((now - when).total_seconds() / 86400.0, half_life_days)


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity; 0.0 for a zero vector or vectors of different lengths.

    >>> cosine([1.0, 0.0], [1.0, 0.0]), cosine([1.0, 0.0], [0.0, 2.0]), cosine([1.0], [])
    (1.0, 0.0, 0.0)
    """
    if len(a) != len(b) or not len(a):
        return 0.0
    va = np.asarray(a, dtype=np.float64)
    vb = np.asarray(b, dtype=np.float64)
    na = float(np.sqrt(va @ va))
    nb = float(np.sqrt(vb @ vb))
    if na == 0.0 or nb == 0.0:
        return 0.0
    return float(va @ vb) / (na * nb)


def relevance(query: Sequence[float], vector: Sequence[float] | None) -> float:
    """A hit's relevance score: the cosine of query and record vectors, clipped to [0, 1].

    A record without a dense vector (none stored or none fetched) scores 0.0.

    >>> relevance([1.0, 0.0], [2.0, 0.0]), relevance([1.0, 0.0], [-1.0, 0.0])
    (1.0, 0.0)
    >>> relevance([1.0, 0.0], None)
    0.0
    """
    if not vector:
        return 0.0
    return min(1.0, max(0.0, cosine(query, vector)))


def check_score_threshold(value: object) -> float | None:
    """``score_threshold`` validated: ``None`` (keep every hit) or a number in [0, 1].

    >>> check_score_threshold(0.5), check_score_threshold(None)
    (0.5, None)
    """
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or math.isnan(value)
        or not 0.0 <= value <= 1.0
    ):
        raise ValidationError(
            "score_threshold must be None or a number in [0, 1] (a cosine relevance), "
            f"got {value!r}"
        )
    return float(value)


def task_relevance(record: MemoryRecord, intent: Intent) -> float:
    """Closeness in the PRISM task tree: same subgoal/step 1.0, same task 0.7, parent/child
    task 0.4, untasked record 0.2, another task 0.0. Without a task in the intent, 0.

    >>> r = MemoryRecord(text="x", user_id="u", task_id="trip", subgoal_id="book_hotel")
    >>> task_relevance(r, Intent(task_id="trip", step="book_hotel"))
    1.0
    """
    step = intent.subgoal_id or intent.step
    if intent.task_id is None and step is None:
        return 0.0
    if (
        step is not None
        and record.subgoal_id == step
        and (intent.task_id is None or record.task_id in (intent.task_id, None))
    ):
        return 1.0
    if intent.task_id is not None:
        if record.task_id == intent.task_id:
            return 0.7
        if intent.task_id in (record.parent_task_id,) or (
            record.task_id is not None and record.metadata.get("parent_task_id") == intent.task_id
        ):
            return 0.4
    if step is not None and record.metadata.get("step") == step:
        return 1.0
    if record.task_id is None:
        return 0.2
    return 0.0


def semantic_score(fused_rel: float, cosine: float | None, mix: float) -> float:
    """Blend of the fused rank score (relative to the best, in [0, 1]) and the cosine.

    >>> semantic_score(1.0, 0.5, 0.5)
    0.75
    """
    cos = 0.0 if cosine is None else min(1.0, max(0.0, cosine))
    if cosine is None:
        return fused_rel
    return mix * fused_rel + (1.0 - mix) * cos


def intent_match(record: MemoryRecord, intent: Intent) -> float:
    """Share of the intent's soft constraints this record meets (0 when there are none)."""
    checks: list[bool] = []
    if intent.kinds:
        checks.append(record.kind in intent.kinds)
    if intent.layers:
        checks.append(record.layer in intent.layers)
    if intent.entities:
        keys = set(record.entity_keys)
        text = record.text.casefold()
        checks.append(any(e in keys or e in text for e in intent.entities))
    if intent.speakers:
        checks.append((record.speaker or "").casefold() in intent.speakers)
    if intent.time_range is not None:
        lo, hi = intent.time_range
        t = record.time
        checks.append((lo is None or t >= lo) and (hi is None or t < hi))
    return sum(checks) / len(checks) if checks else 0.0


@dataclass
class ScoreParts:
    semantic: float
    fresh: float
    task: float
    utility: float
    importance: float
    match: float

    def as_dict(self) -> dict[str, float]:
        return {k: round(v, 4) for k, v in self.__dict__.items()}


def combine(parts: ScoreParts, weights: Mapping[str, float], intent_boost: float) -> float:
    """Weighted mean of the objectives plus the intent match boost.

    >>> p = ScoreParts(semantic=1, fresh=0, task=0, utility=0.5, importance=0.5, match=1)
    >>> combine(p, {"semantic": 1.0}, 0.2)
    1.2
    """
    total_w = sum(weights.get(k, 0.0) for k in WEIGHT_KEYS)
    if total_w <= 0:
        base = parts.semantic
    else:
        base = sum(weights.get(k, 0.0) * getattr(parts, k) for k in WEIGHT_KEYS) / total_w
    return base + intent_boost * parts.match


def informativeness(speaker_cosine: float, exponent: float) -> float:
    """Score factor for how much a record says beyond who said it.

    ``speaker_cosine`` is the cosine between the record's vector and the vector of its
    speaker's name alone (``"Priya:"``). Records are embedded with their speaker, so a short
    reaction ("Priya: Wow, great!") sits close to that name-only vector and close to any
    question naming Priya, without saying anything. The factor is
    ``(1 - max(0, speaker_cosine)) ** exponent`` (1 when the exponent is 0).

    >>> round(informativeness(0.64, 0.5), 2), informativeness(-0.1, 0.5)
    (0.6, 1.0)
    """
    if exponent <= 0:
        return 1.0
    return float((1.0 - min(1.0, max(0.0, speaker_cosine))) ** exponent)


def updated_utility(
    utility: float, success: bool, feedback_count: int, *, step: float = 0.3, decay: float = 0.5
) -> float:
    """Move utility toward 1 (success) or 0 (failure) by a step that shrinks with use.

    ``step_n = step / (1 + decay * n)``; the result stays in [0, 1].

    >>> updated_utility(0.5, True, 0)
    0.65
    >>> updated_utility(0.5, False, 0)
    0.35
    """
    target = 1.0 if success else 0.0
    eta = step / (1.0 + decay * max(0, feedback_count))
    return round(min(1.0, max(0.0, utility + eta * (target - utility))), 6)
