"""What a change leaves on other records: the turns and digests that stated the old value are
marked, and memories that contradict each other are linked.

Design: functions over the :class:`~prism_memory.engine.Engine`, called by the semantic writer
(``semantic.py``) after it reconciled a batch, under the same scope lock. Payload updates only
(no re-embedding): a turn gets ``metadata["changed_later"]`` (what it said that changed since),
a session digest made from it gets the sentence marked ``[since changed: ...]``
(``lifecycle.consolidate.mark_changed``), and two current memories of one slot that contradict
each other without a change being said are linked ``conflicts`` both ways.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import PrismError
from ..lifecycle.consolidate import mark_changed
from ..records import Kind, MemoryRecord, Relation, Scope, Status, utcnow
from ..stores import RecordFilter
from ..stores.filters import Condition

if TYPE_CHECKING:
    from ..engine import Engine

__all__ = ["link_conflicts", "mark_changed_sources"]

log = logging.getLogger("prism_memory")


def link_conflicts(engine: Engine, new: MemoryRecord, ids: Sequence[str], scope: Scope) -> None:
    """Link ``new`` and the current records it contradicts (``conflicts``, both ways)."""
    try:
        olds = engine.store.get([i for i in ids if i != new.id], scope)
    except PrismError as exc:
        log.info("conflicting records not read: %s", exc)
        return
    for old in olds:
        if old.status != Status.ACTIVE or old.valid_to is not None:
            continue
        link = Relation(type="conflicts", target_id=new.id)
        if link not in old.relations:
            relations = [*old.relations, link]
            engine.update(
                [old.id],
                scope,
                {"relations": [r.model_dump(mode="json") for r in relations]},
                announce=False,  # the batch's write announces it
            )
        new.relations = [*new.relations, Relation(type="conflicts", target_id=old.id)]


def mark_changed_sources(engine: Engine, changed: dict[str, set[str]], scope: Scope) -> None:
    """Note on the source turns of superseded records what they said that later changed
    (``metadata["changed_later"]``): a context shows such a turn with that note, so the
    old value reads as history, not as what holds now."""
    turns = engine.store.get(list(changed), scope)
    said: dict[str, MemoryRecord] = {}
    for turn in turns:
        if turn.kind != Kind.OBSERVATION:
            continue
        said[turn.id] = turn
        labels = sorted(set(turn.metadata.get("changed_later") or []) | changed[turn.id])
        metadata = {**turn.metadata, "changed_later": labels}
        engine.update([turn.id], scope, {"metadata": metadata}, announce=False)
    if said:
        _mark_summaries(engine, said, changed, scope)


def _mark_summaries(
    engine: Engine, turns: dict[str, MemoryRecord], changed: dict[str, set[str]], scope: Scope
) -> None:
    """Session digests made from those turns mark the sentences that state a value which
    changed since (``lifecycle.consolidate.mark_changed``): a summary never presents an
    old value as current. The digest keeps its dense vector (BM25 follows the text)."""
    flt = RecordFilter(
        must=[
            Condition("kind", "eq", Kind.SUMMARY.value),
            Condition("status", "eq", Status.ACTIVE.value),
            Condition("source_ids", "any", list(turns)),
        ]
    )
    try:
        summaries = list(engine.iter_records(scope, flt))
    except PrismError as exc:
        log.info("summaries to mark not read: %s", exc)
        return
    for summary in summaries:
        text = summary.text
        for tid in summary.provenance.source_ids:
            if tid in turns:
                text = mark_changed(text, turns[tid].text, changed[tid])
        if text != summary.text:
            marked = summary.model_copy(update={"text": text, "updated_at": utcnow()})
            vectors = engine.store.get_vectors([summary.id], summary.scope)
            engine.rewrite([marked], dense=vectors, announce=False)
