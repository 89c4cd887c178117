"""The semantic layer writer: extraction candidates -> validated, reconciled records.

Design:
- A keyed schema's current record has a deterministic id (uuid5 of scope + schema + entity key),
  so "is there already a record for this key?" is one ``get`` by id — inside the scope lock that
  makes check-and-write atomic; concurrent or retried writes of one fact leave one record.
- Superseding keeps history: the old version is copied (with its vector, not re-embedded) to a
  version id (the key's id + its version number ``metadata["version"]``, never a clock reading,
  so the same writes give the same ids) with ``status=superseded``, ``valid_to`` closed and a ``contradicts`` link to the
  current id; the new version takes the current id and links ``supersedes`` to the copy.
- A candidate may carry its own identity (``FactCandidate.key``): a *slot* ("budget", "home city",
  "favourite coffee shop") keeps one current value, so a new value supersedes the old one even
  when the schema's natural key differs (a new favourite); a statement that can hold many
  values is keyed with its value and never supersedes a sibling.
- A candidate may name what it replaces (``FactCandidate.retire``: "the Madrid flight is now on
  March 19" -> ``madrid``; ``retire_date``: "五一的计划改了"): the holder's current events and
  facts from other turns that contain all those words (or fall on that day) are closed
  (``valid_to``, ``status=superseded``, linked both ways) when it is written.
- Keyless schemas (events) are deduplicated by content. Extracted events live in the episodic
  layer, facts/preferences/persons in the semantic layer; all are scoped without ``session_id``.
  A rule record's dense vector is its source sentence's (shared with the turn when the turn is
  that one sentence); its sparse vector is its own short text.
- The rule extractor gets the names of persons already known in the scope (read once per
  scope, then kept up to date), so "Jonah quit accounting" is a statement about Jonah.
- It receives the :class:`~prism_memory.engine.Engine` and the schema registry; task state
  (the working layer) is ``layers/working.py``'s. Keeping versions and closing what a change
  replaces is ``supersede.py``'s (:class:`~prism_memory.layers.supersede.Supersession`);
  finding the slot a change statement means is ``slots.py``'s.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import PrismError
from ..extraction.reconcile import MergeOutcome, merge_fields
from ..extraction.rules import FactCandidate, extract
from ..extraction.schemas import SchemaRegistry, SchemaSpec, entity_key
from ..records import (
    Entity,
    Kind,
    Layer,
    MemoryRecord,
    Relation,
    Scope,
    Source,
    Status,
    make_record_id,
    utcnow,
)
from ..results import RecordChange, RememberResult
from ..stores import RecordFilter
from ..stores.filters import Condition
from ..versions import change_note
from .aging import link_conflicts, mark_changed_sources
from .relations import store_links
from .slots import SlotChanges, SlotMatcher
from .supersede import Supersession, note_changed, version_of

if TYPE_CHECKING:
    from ..engine import Engine

__all__ = ["SemanticWriter", "key_record_id"]

log = logging.getLogger("prism_memory")
MAX_SOURCE_IDS = 64


def key_record_id(scope: Scope, spec: SchemaSpec, key: str) -> str:
    layer = Layer.EPISODIC if spec.kind == Kind.EVENT else Layer.SEMANTIC
    return make_record_id(scope, layer, f"key:{key}")


def _source_ids(turn: MemoryRecord) -> list[str]:
    return [*turn.provenance.source_ids, turn.id]


def _field_entities(spec: SchemaSpec, fields: dict[str, Any]) -> list[Entity]:
    out: list[Entity] = []
    if spec.name == "Person" and fields.get("name"):
        out.append(Entity(type="person", name=str(fields["name"])))
    elif spec.name == "Preference" and fields.get("subject"):
        out.append(Entity(type="thing", name=str(fields["subject"])[:80]))
    elif spec.name == "Event":
        out.extend(Entity(type="person", name=str(p)) for p in fields.get("participants") or [])
    else:
        for k in spec.key:
            if isinstance(fields.get(k), str) and fields[k] and k != "subject":
                out.append(Entity(type=k, name=str(fields[k])[:80]))
    return out


def _redact_candidates(candidates: Sequence[FactCandidate]) -> None:
    """Identifiers out of candidates (an LLM's answer may hold some) before the entity key,
    the record id and the text are derived from their fields."""
    from ..safety import redact, redact_value

    for c in candidates:
        c.fields = redact_value(c.fields)
        c.entities = [Entity(type=e.type, name=redact(e.name)) for e in c.entities]
        c.evidence = redact(c.evidence)


#: a candidate with its schema, validated fields, slot key and the id of its record
_Keyed = tuple[FactCandidate, SchemaSpec, dict[str, Any], str, str]


@dataclass
class _Batch:
    """What one :meth:`SemanticWriter.reconcile` call builds up: the records to write by id,
    and, by turn id, what a turn said that changed since."""

    scope: Scope
    result: RememberResult
    pending: dict[str, MemoryRecord] = field(default_factory=dict)
    changed_turns: dict[str, set[str]] = field(default_factory=dict)


def _outcome(
    spec: SchemaSpec, current: MemoryRecord, fields: dict[str, Any], cand: FactCandidate
) -> MergeOutcome:
    """How a candidate merges with the slot's current value (the schema's field policy),
    or a supersession: a change statement states the slot anew (``slots.py``), and a
    keyed candidate whose natural key differs says the slot holds something else now."""
    outcome = merge_fields(
        spec,
        current.fields,
        current.confidence,
        fields,
        cand.confidence,
        explicit=set(cand.fields),
    )
    natural_old, natural_new = spec.key_string(current.fields), spec.key_string(fields)
    if cand.extractor == "slots" or (
        cand.key and natural_old is not None and natural_old != natural_new
    ):
        return MergeOutcome(
            "supersede", dict(fields), list(spec.key), list(spec.key), cand.confidence
        )
    return outcome


class SemanticWriter:
    """Turns extraction candidates into semantic records, over an engine.

    Example:
        >>> from prism_memory import Memory, FakeEmbedder
        >>> m = Memory(location=":memory:", embedder=FakeEmbedder())
        >>> _ = m.remember("I love seafood", user_id="a")
        >>> [r.text for r in m.list(user_id="a", kind="preference")]
        ['User likes seafood']
        >>> m.close()
    """

    def __init__(self, engine: Engine, schemas: SchemaRegistry) -> None:
        self.engine = engine
        self.schemas = schemas
        self._people: dict[str, set[str]] = {}  # scope key -> names of known persons
        self.slots = SlotMatcher(engine, self.candidate_id)
        self.history = Supersession(engine)

    def known_people(self, scope: Scope) -> set[str]:
        """Names of the persons recorded in the scope (read from the store once per scope)."""
        key = scope.key()
        names = self._people.get(key)
        if names is None:
            flt = RecordFilter(
                must=[
                    Condition("schema", "eq", "Person"),
                    Condition("status", "eq", Status.ACTIVE.value),
                ]
            )
            names = set()
            try:
                for record in self.engine.iter_records(scope, flt):
                    name = record.fields.get("name")
                    if isinstance(name, str) and name:
                        names.add(name)
            except PrismError as exc:  # a read failure must not fail the write
                log.debug("known persons of %s not read: %s", key, exc)
            if len(self._people) > 1024:
                self._people.clear()
            self._people[key] = names
        return names

    # -- candidates -----------------------------------------------------------------------
    def rule_candidates(
        self, turns: Sequence[MemoryRecord], scope: Scope | None = None
    ) -> list[FactCandidate]:
        out: list[FactCandidate] = []
        user_specs = [s for s in self.schemas.user_schemas() if s.extract is not None]
        for turn in turns:
            if turn.metadata.get("role") != "user":
                continue
            when = turn.event_time or turn.created_at
            people = self.known_people(scope) if scope is not None else set()
            found = extract(turn.text, event_time=when, speaker=turn.speaker, people=people)
            people.update(
                str(c.fields["name"])
                for c in found
                if c.schema == "Person" and c.fields.get("name")
            )
            for spec in user_specs:
                assert spec.extract is not None
                try:
                    items = spec.extract(turn.text, {"event_time": when, "speaker": turn.speaker})
                except Exception as exc:  # a user rule must not break the write
                    log.warning("extract rule of schema %s failed: %s", spec.name, exc)
                    continue
                for item in items or []:
                    if isinstance(item, dict):
                        found.append(
                            FactCandidate(spec.name, dict(item), 0.8, 0.7, evidence=turn.text)
                        )
            for c in found:
                c.source_ids = _source_ids(turn)
                c.event_time = c.event_time or when
            out.extend(found)
        return out

    def revised_candidates(self, turns: Sequence[MemoryRecord], scope: Scope) -> SlotChanges:
        """The rule candidates of user turns, with what each change statement replaces or
        contradicts matched by meaning (``slots.py``): the one input ``reconcile`` takes,
        for extracted turns and for stated facts (``stated.py``) alike."""
        return self.slots.revise(
            turns, self.rule_candidates(turns, scope), scope, self.known_people(scope)
        )

    def prepare(
        self, turns: Sequence[MemoryRecord], scope: Scope, result: RememberResult
    ) -> tuple[list[MemoryRecord], dict[str, str], dict[str, list[float]]]:
        """Records to write (in the caller's embedding batch) for the rule candidates of turns,
        ``{record id: turn id}`` and ``{record id: dense vector}``. A rule record's dense vector
        is that of the sentence it comes from (what it states, in its own words: "Mel: I have
        a cat named Bailey"), so it is found by the same questions as that sentence and not by
        every question with its holder's name; from a one-sentence turn it shares the turn's
        vector (no embedding). Its sparse vector is its own short text."""
        changes = self.revised_candidates(turns, scope)
        records = self.reconcile(changes.candidates, scope, result)
        by_id = {t.id: t for t in turns}
        shared: dict[str, str] = {}
        texts: dict[str, str] = {}
        for r in records:
            turn = by_id.get(r.provenance.source_ids[-1]) if r.provenance.source_ids else None
            if turn is None:
                continue
            sentence = str(r.metadata.get("evidence") or "").strip()
            if not sentence or " ".join(sentence.split()) == " ".join(turn.text.split()):
                shared[r.id] = turn.id
            else:
                texts[r.id] = f"{turn.speaker}: {sentence}" if turn.speaker else sentence
        dense: dict[str, list[float]] = {}
        if texts:
            ids = list(texts)
            vectors = self.engine.embedder.embed_documents([texts[i] for i in ids])
            dense = {i: list(map(float, v)) for i, v in zip(ids, vectors, strict=True)}
        dense.update(changes.turn_vectors)  # a one-sentence change statement: the turn's vector
        return records, shared, dense

    # -- reconciliation -------------------------------------------------------------------
    def _identity(self, cand: FactCandidate) -> tuple[SchemaSpec, dict[str, Any], str]:
        """The candidate's schema, validated fields and entity key (raises ``PrismError``)."""
        spec = self.schemas.get(cand.schema)
        fields = spec.validate_fields(cand.fields)
        key = cand.key or spec.key_string(fields)
        if key is None:
            key = spec.name + "|" + spec.text(fields)
        elif cand.key:
            key = "|".join(entity_key(part) for part in key.split("|"))
        return spec, fields, key

    def candidate_id(self, cand: FactCandidate, scope: Scope) -> str | None:
        """The id of the record the candidate writes (``None`` if it is invalid)."""
        try:
            spec, _, key = self._identity(cand)
        except PrismError:
            return None
        return key_record_id(scope, spec, key)

    def reconcile(
        self, candidates: Sequence[FactCandidate], scope: Scope, result: RememberResult
    ) -> list[MemoryRecord]:
        """Validate and merge candidates against the store; supersessions are written here.

        Stages: identify each candidate (schema, fields, slot key, record id), read every
        stored current value the batch may merge with in one read, merge each candidate
        (:meth:`_merge`), close what change statements replace (``Supersession.retire``), link
        conflicts, and mark the source turns of superseded values.

        The caller holds ``scope_lock(scope)`` and writes the returned records.
        """
        batch = _Batch(scope, result)
        keyed = self._keyed(candidates, scope)
        rids = list(dict.fromkeys(rid for *_, rid in keyed))
        stored = {r.id: r for r in self.engine.store.get(rids, scope)} if rids else {}
        for cand, spec, fields, key, rid in keyed:
            self._merge(batch, cand, spec, fields, key, rid, stored.get(rid))
        pending = batch.pending
        retiring = [
            (c, rid)
            for c, _, _, _, rid in keyed
            if (c.retire or c.retire_date or c.replaces) and rid in pending
        ]
        if retiring:
            self.history.retire(retiring, pending, scope, result, batch.changed_turns)
        for c, _, _, _, rid in keyed:
            if c.conflicts and rid in pending:
                link_conflicts(self.engine, pending[rid], c.conflicts, scope)
        if any(c.links for c, *_ in keyed):  # relationships the extractor stated
            dropped = store_links(self.engine, [(c, rid) for c, *_, rid in keyed], pending, scope)
            result.count_dropped_links(dropped)
        if batch.changed_turns:
            mark_changed_sources(self.engine, batch.changed_turns, scope)
        return list(pending.values())

    def _keyed(self, candidates: Sequence[FactCandidate], scope: Scope) -> list[_Keyed]:
        """Each valid candidate (redacted when on) with its schema, fields, slot key and the
        id of the record it writes; an invalid one is dropped (logged)."""
        if self.engine.config.safety.redact_pii:
            _redact_candidates(candidates)
        keyed: list[_Keyed] = []
        for cand in candidates:
            try:
                spec, fields, key = self._identity(cand)
            except PrismError as exc:
                log.info("candidate %s dropped: %s", cand.schema, exc)
                continue
            keyed.append((cand, spec, fields, key, key_record_id(scope, spec, key)))
        return keyed

    def _merge(
        self,
        batch: _Batch,
        cand: FactCandidate,
        spec: SchemaSpec,
        fields: dict[str, Any],
        key: str,
        rid: str,
        stored: MemoryRecord | None,
    ) -> None:
        """Merge one candidate with the current value of its slot (this batch's, else the
        stored one): added when there is none, else skipped, updated or superseded by the
        schema's field policy (:func:`_outcome`)."""
        current = batch.pending.get(rid) or stored
        try:
            new = self._record(spec, fields, cand, batch.scope, rid, key)
        except PrismError as exc:
            log.info("candidate %s dropped: %s", cand.schema, exc)
            return
        if current is None or current.status != Status.ACTIVE:
            batch.pending[rid] = new
            batch.result.added.append(
                RecordChange(new, f"extracted {spec.name} ({cand.extractor})")
            )
            return
        outcome = _outcome(spec, current, fields, cand)
        if outcome.action == "skip":
            self._skip(batch, current, cand, rid, outcome)
            return
        new.fields = outcome.fields
        new.text = spec.text(outcome.fields)
        new.confidence = outcome.confidence
        new.provenance.source_ids = list(
            dict.fromkeys(current.provenance.source_ids + cand.source_ids)
        )[-MAX_SOURCE_IDS:]
        new.entities = list({e.key: e for e in current.entities + new.entities}.values())
        if outcome.action == "update":
            self._update(batch, current, new, rid, outcome)
        else:
            self._replace(batch, current, new, rid, cand, spec, outcome)

    def _skip(
        self,
        batch: _Batch,
        current: MemoryRecord,
        cand: FactCandidate,
        rid: str,
        outcome: MergeOutcome,
    ) -> None:
        """Nothing new said: the stored value only gains the candidate's source turns."""
        merged_ids = list(dict.fromkeys(current.provenance.source_ids + cand.source_ids))
        if merged_ids != current.provenance.source_ids and rid not in batch.pending:
            current.provenance.source_ids = merged_ids[-MAX_SOURCE_IDS:]
            self.engine.update(
                [rid],
                batch.scope,
                {"provenance": current.provenance.model_dump(mode="json")},
                announce=False,  # the batch's write announces it
            )
        batch.result.skipped.append(RecordChange(current, outcome.reason))

    def _update(
        self,
        batch: _Batch,
        current: MemoryRecord,
        new: MemoryRecord,
        rid: str,
        outcome: MergeOutcome,
    ) -> None:
        """Merge fields into the slot's value; a merge that changes what a stored record
        says keeps the state before it as a version (history)."""
        version = version_of(current)
        from_store = rid not in batch.pending  # a state another write left (not this batch's)
        if from_store and new.text != current.text:
            when = new.valid_from or utcnow()
            old_copy = self.history.keep_version(current, rid, batch.scope, when, False)
            new.metadata["version"] = version + 1
            new.metadata["change"] = change_note("updated", outcome.reason)
            new.created_at = current.created_at
            new.relations = [
                *[r for r in current.relations if r.type not in ("supersedes", "contradicts")],
                Relation(type="supersedes", target_id=old_copy.id),
            ]
        else:
            new.metadata["version"] = version
            new.created_at = current.created_at
            new.valid_from = current.valid_from
            new.relations = current.relations
        new.access_count, new.last_accessed = current.access_count, current.last_accessed
        new.utility = current.utility
        new.importance = max(current.importance, new.importance)
        batch.pending[rid] = new
        batch.result.updated.append(RecordChange(new, outcome.reason))

    def _replace(
        self,
        batch: _Batch,
        current: MemoryRecord,
        new: MemoryRecord,
        rid: str,
        cand: FactCandidate,
        spec: SchemaSpec,
        outcome: MergeOutcome,
    ) -> None:
        """A new value of the slot: the current one is kept as a closed version, linked to
        its successor, and the turns that stated it are noted as changed since."""
        when = new.valid_from or utcnow()
        old_copy = self.history.keep_version(current, rid, batch.scope, when, rid in batch.pending)
        note_changed(batch.changed_turns, current, cand.source_ids)
        new.metadata["version"] = version_of(current) + 1
        new.metadata["change"] = change_note(
            "superseded",
            f"a change of the same slot, said as {cand.evidence!r}"
            if cand.extractor == "slots"
            else outcome.reason,
        )
        new.relations = [
            *[r for r in current.relations if r.type not in ("supersedes", "contradicts")],
            Relation(type="supersedes", target_id=old_copy.id),
        ]
        batch.pending[rid] = new
        batch.result.superseded.append(RecordChange(old_copy, outcome.reason))
        batch.result.added.append(RecordChange(new, f"new value of {spec.name} ({outcome.reason})"))

    def _record(
        self,
        spec: SchemaSpec,
        fields: dict[str, Any],
        cand: FactCandidate,
        scope: Scope,
        rid: str,
        key: str,
    ) -> MemoryRecord:
        entities = list(
            {e.key: e for e in [*cand.entities, *_field_entities(spec, fields)]}.values()
        )
        record = self.engine.build_record(
            spec.text(fields),
            scope,
            kind=spec.kind,
            layer=Layer.EPISODIC if spec.kind == Kind.EVENT else Layer.SEMANTIC,
            metadata={
                "entity_key": key,
                "extractor": cand.extractor,
                "evidence": cand.evidence[:500],
            },
            event_time=cand.event_time,
            entities=entities,
            importance=cand.importance,
            confidence=cand.confidence,
            source=Source.USER,
            source_ids=cand.source_ids[-MAX_SOURCE_IDS:],
            fields=fields,
            schema=spec.name,
            record_id=rid,
        )
        return record

    # -- LLM pass -------------------------------------------------------------------------
    def llm_pass(self, turns: Sequence[MemoryRecord], scope: Scope) -> RememberResult:
        """Run the LLM extractor over user turns and write what it found (never raises)."""
        from ..llm.extraction import LLMExtractor

        result = RememberResult()
        try:
            extractor = LLMExtractor(self.engine.llm, self.schemas, self.engine.config.extraction)
            parsed = extractor.extract(turns, fallback=self.rule_candidates)
            result.count_dropped_links(parsed.dropped_links)
            with self.engine.scope_lock(scope):
                changes = self.slots.revise(
                    turns, parsed.candidates, scope, self.known_people(scope)
                )
                records = self.reconcile(changes.candidates, scope, result)
                self.engine.write_records(records, screen=False)  # derived from screened turns
                self._done(turns, scope)
        except Exception as exc:  # the agent's turn must never fail because of extraction
            log.warning("LLM extraction pass failed: %s", exc)
            self.engine.report_error(f"llm extraction: {exc}", logged=True)
        if result.dropped_links:  # a background pass returns to nobody: the log says it
            log.info("LLM extraction: links not stored %s", result.dropped_links)
        return result

    def _done(self, turns: Sequence[MemoryRecord], scope: Scope) -> None:
        """Clear the turns' ``extraction="pending"`` mark: their facts are written."""
        pending = [t.id for t in turns if t.extraction == "pending"]
        if pending:
            self.engine.update(pending, scope, {"extraction": None}, announce=False)
            for t in turns:
                t.extraction = None

    def resume(self, turns: Sequence[MemoryRecord], scope: Scope) -> RememberResult:
        """Extract turns a dead process left ``extraction="pending"``: with the LLM when the
        memory has one (:meth:`llm_pass`), else with the rules."""
        if self.engine.llm_extraction:
            return self.llm_pass(turns, scope)
        result = RememberResult()
        with self.engine.scope_lock(scope):
            records = self.reconcile(self.rule_candidates(turns), scope, result)
            self.engine.write_records(records, screen=False)
            self._done(turns, scope)
        return result
