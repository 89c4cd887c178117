"""Facts stated outright (a memory tool, LangMem, an application): the extracted facts' path.

Design:
- A model's ``remember("User is vegan")`` and a user's "I'm vegan" must end as one memory,
  and a later "User is vegetarian now" must supersede, not sit beside, the earlier value. So a
  stated fact takes the path extracted facts take: the rule extractor reads the text as a
  statement, a change said in other words is matched to the slot it changes by meaning
  (``slots.py``), and the candidates are reconciled against the store per field policy
  (merged, superseded, or new) by the semantic layer, under the scope lock.
- A new fact keeps the words it was stated in (the schema's fields key and merge it); a
  merged or superseding value is written the way extraction writes it.
- When no schema recognises the text, it is kept as a free fact, unless the scope already
  holds a current semantic record saying the same thing (cosine at or above
  ``RetrievalConfig.dedup_threshold``, the threshold recall deduplicates by): then that
  record is kept, refreshed, and reported as ``skipped`` with its id.
- ``source_ids`` name the messages the fact came from (the user turn a tool call answered):
  recall then shows either the turn or the fact, never both (``construct.place``).
- ``surface`` is written to ``metadata["surface"]`` so ``delete_all`` can report it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..engine import Engine
from ..records import Kind, Layer, MemoryRecord, Scope, Source, Status, utcnow
from ..results import RecordChange, RememberResult
from ..retrieval.hybrid import hybrid_query
from ..stores import RecordFilter
from .semantic import SemanticWriter

__all__ = ["StatedFacts"]


class StatedFacts:
    """``Memory.remember_fact``: a stated fact through extraction and reconciliation."""

    def __init__(self, engine: Engine, semantic: SemanticWriter) -> None:
        self.engine = engine
        self.semantic = semantic

    def remember_fact(
        self,
        text: str,
        scope: Scope,
        *,
        kind: Kind | str,
        source: Source | str,
        source_ids: Sequence[str],
        surface: str | None,
    ) -> RememberResult:
        """The fact through the rule extractor and reconciliation; the text kept unless said."""
        self.engine.check_open()
        meta = {"surface": surface} if surface else {}
        statement = self.engine.build_record(
            text,
            scope,
            kind=Kind.OBSERVATION,
            layer=Layer.EPISODIC,
            metadata={"role": "user"},  # read as a statement about the user
            source=source,
            source_ids=list(source_ids) or None,
        )
        fact = self.engine.build_record(
            text,
            scope,
            kind=kind,
            layer=Layer.SEMANTIC,
            metadata=meta,
            source=source,
            source_ids=list(source_ids) or None,
        )
        result = RememberResult()
        with self.engine.scope_lock(scope):
            self.engine.screen([statement])
            if statement.provenance.trust.value == "quarantined":
                fact.provenance = statement.provenance
                written = self.engine.write_records([fact], screen=False)
                result.quarantined.append(RecordChange(written[0], fact.provenance.reason or ""))
                return result
            candidates = self.semantic.revised_candidates([statement], scope).candidates
            for c in candidates:  # from the messages, not from a turn that is never stored
                c.source_ids = list(source_ids)
            records = self.semantic.reconcile(candidates, scope, result)
            new_ids = {c.record.id for c in result.added}
            for r in records:
                r.metadata.update(meta)
                r.provenance.source = Source(source) if isinstance(source, str) else source
                if len(records) == 1 and r.id in new_ids:
                    r.text = fact.text  # a new fact keeps the words it was stated in
            if not records:
                same = self._same(fact, scope)
                if same is not None:
                    same.updated_at = utcnow()
                    self.engine.write_records([same], screen=False)
                    result.skipped.append(RecordChange(same, f"already remembered as {same.id}"))
                    return result
                records = [fact]
                result.added.append(RecordChange(fact, "stated fact"))
            self.engine.write_records(records, screen=False)
        return result

    def _same(self, fact: MemoryRecord, scope: Scope) -> MemoryRecord | None:
        """A current semantic record of ``scope`` that says what ``fact`` says (cosine at or
        above the recall dedup threshold), or ``None``."""
        engine = self.engine
        flt = engine.visible_filter() & RecordFilter.eq("layer", Layer.SEMANTIC.value)
        hits = hybrid_query(
            engine.store,
            scope,
            engine.embedder.embed_query(fact.text),
            engine.sparse.query(fact.text),
            flt,
            limit=3,
            score_threshold=engine.config.retrieval.dedup_threshold,
        )
        for hit in hits:
            if hit.record.status == Status.ACTIVE:
                return hit.record
        return None
