"""Relationship links an extractor stated, resolved to record ids and stored on both ends.

Design:
- An extractor states links between its candidates, or from a candidate to a record it was
  shown (``FactCandidate.links``: ``caused_by``, ``before``, ``after``, ``contradicts``; the
  LLM path, ``llm/extraction.py``). Which id a candidate writes is known only once the batch
  is reconciled (a new record, a merge into the slot's current one, a version), so the links
  are resolved here, after ``SemanticWriter.reconcile`` identified every candidate, under the
  same scope lock.
- Each link is stored as a :class:`~prism_memory.records.Relation` on its source and its
  inverse on its target (``before`` <-> ``after``, ``caused_by`` <-> ``causes``, a stated
  contradiction as ``conflicts`` both ways, the link the write path already keeps between two
  current memories that disagree; ``contradicts`` stays the version lineage). Recall follows
  relations from its best records (``retrieval/graph.py``), so a link is useful from either
  end: "what happened after the roadtrip" reaches the hike from the roadtrip's record.
- A record of this batch gets the link in the record about to be written; a stored one (a
  skipped duplicate, a turn shown to the model) by a payload update through the engine. A
  link whose end was not written (an invalid candidate, a record gone) or that points at its
  own source is dropped and counted, never an error.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..extraction.candidate import FactCandidate
from ..links import INVERSE_RELATION, STORED_RELATION
from ..records import MemoryRecord, Relation, Scope

if TYPE_CHECKING:
    from ..engine import Engine

__all__ = ["link_edges", "store_links"]


def link_edges(
    written: Sequence[tuple[FactCandidate, str]],
) -> tuple[list[tuple[str, str, str]], Counter[str]]:
    """The ``(source id, relation type, target id)`` edges the candidates' links state, given
    the id each candidate writes, and the links dropped by reason (``dangling``: the target
    candidate writes nothing; ``self``: both ends are one record).

    >>> a, b = FactCandidate("Event", {"description": "rain"}), FactCandidate("Event", {})
    >>> from prism_memory.extraction.candidate import CandidateLink
    >>> b.links = [CandidateLink("caused_by", item=a), CandidateLink("before", item=b)]
    >>> link_edges([(a, "id-a"), (b, "id-b")])
    ([('id-b', 'caused_by', 'id-a')], Counter({'self': 1}))
    """
    rid_of = {id(c): rid for c, rid in written}
    dropped: Counter[str] = Counter()
    edges: list[tuple[str, str, str]] = []
    for cand, rid in written:
        for link in cand.links:
            target = link.record_id if link.record_id is not None else rid_of.get(id(link.item))
            if target is None:
                dropped["dangling"] += 1
            elif target == rid:
                dropped["self"] += 1
            elif link.type in STORED_RELATION:
                edge = (rid, STORED_RELATION[link.type], target)
                if edge not in edges:
                    edges.append(edge)
            else:
                dropped["unknown_type"] += 1
    return edges, dropped


def store_links(
    engine: Engine,
    written: Sequence[tuple[FactCandidate, str]],
    pending: Mapping[str, MemoryRecord],
    scope: Scope,
) -> dict[str, int]:
    """Store the candidates' links on both ends (see the module docstring): on the records
    of ``pending`` (this batch's, written by the caller next) in place, on stored records by
    one payload update each. Returns the links dropped, by reason. The caller holds the
    scope lock."""
    edges, dropped = link_edges(written)
    if not edges:
        return dict(sorted(dropped.items()))
    outside = sorted({i for s, _, t in edges for i in (s, t) if i not in pending})
    stored = {r.id: r for r in engine.store.get(outside, scope)} if outside else {}
    changed: dict[str, MemoryRecord] = {}
    for source, kind, target in edges:
        a, b = pending.get(source) or stored.get(source), pending.get(target) or stored.get(target)
        if a is None or b is None:
            dropped["dangling"] += 1
            continue
        for rec, rel in (
            (a, Relation(type=kind, target_id=target)),
            (b, Relation(type=INVERSE_RELATION[kind], target_id=source)),
        ):
            if rel not in rec.relations:
                rec.relations = [*rec.relations, rel]
                if rec.id not in pending:
                    changed[rec.id] = rec
    for rec in changed.values():
        engine.update(
            [rec.id],
            scope,
            {"relations": [r.model_dump(mode="json") for r in rec.relations]},
            announce=False,  # the batch's write announces it
        )
    return dict(sorted(dropped.items()))
