"""Supersession by meaning: a change statement replaces the holder's record of the same slot.

Design:
- The clause rules key the slots they know ("budget", "home city"), so a later value of such
  a slot supersedes the earlier one by key. Everything else a person says about themselves is
  a record of its own, and a change said in other words ("Switched to a Pixel 8" after "My
  phone is an iPhone 12", "我换车了，现在开比亚迪") would leave the old value current.
- A user sentence that is a change statement (``extraction/change.py``: a statement about the
  speaker that marks a change and adds nothing) is matched *by meaning* against the holder's
  current facts, preferences and events: its vector (``"<speaker>: <sentence>"``, embedded like
  a turn) in one filtered dense query. The records above the embedder's noise floor and
  within a small margin of the best are the slot it changes. The floor is calibrated to the
  embedder in use, never a fixed cosine: the mean plus two standard deviations of the cosines
  between unrelated everyday sentences, measured once per memory.
- The change becomes the slot's new value through the same reconciliation as every other
  candidate (``semantic.py``): a structured candidate the rules made from the sentence keeps
  its fields and names the records it ``replaces``; otherwise a ``Fact`` is made from the
  sentence (the old record's label as attribute, the sentence told in the third person as the
  value) — keyed like the old fact when that is a fact, so its versions form one chain. The
  generic partial readings of that sentence are dropped (the new value says all of it).
- Mere mentions never supersede: no change marker, another holder, a question, an additive
  "also", or nothing of the holder near enough in meaning leaves everything as it is. The LLM
  extractor's candidates go through the same step (the LLM proposes, this decides).
- This module is the matcher (queries and decisions over the store); the embedder's noise
  floor is measured in ``calibration.py`` and the pure functions over records and sentences
  (which sentences may change a slot, what they become) are in ``slot_values.py``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import PrismError
from ..extraction.candidate import FactCandidate
from ..extraction.change import told_of
from ..extraction.reconcile import entry_key
from ..extraction.schemas import person_entry
from ..extraction.sentences import is_cjk
from ..records import Kind, Layer, MemoryRecord, Scope, Status
from ..stores import RecordFilter
from ..stores.base import RouteQuery
from ..stores.filters import Condition
from .calibration import embedder_floor, noise_floor
from .slot_values import (
    VALUE_SCHEMAS,
    Found,
    change_sentences,
    content_words,
    holder_of_record,
    is_value,
    new_value,
    same_event,
    without_names,
)

if TYPE_CHECKING:
    from ..engine import Engine

__all__ = ["SlotChanges", "SlotMatcher", "embedder_floor", "holder_of_record", "noise_floor"]

log = logging.getLogger("prism_memory")


#: a floor this high means the embedder cannot tell this script's sentences apart (an English
#: model on Chinese): the slot is then found by the characters the sentence shares with a record
BLIND_FLOOR = 0.85
#: grammatical characters (pronouns, particles, aspect, measure words, time and change words):
#: what two Chinese sentences share without being about the same thing
ZH_FUNCTION = frozenset(
    "我你他她它们的地得了着过是在有一个这那就都也还把被给和与跟很最要会能想去来到吗呢吧啊呀"
    "每月年日天号上下不没现已经改换变以后近从此再又只才刚正将"
)
#: records within this cosine of the best match name the same slot (two readings of one turn)
MARGIN = 0.05
MAX_HITS = 4
VECTOR_CACHE = 2048


@dataclass
class SlotChanges:
    """What :meth:`SlotMatcher.revise` did: the candidates to reconcile, and the dense vectors
    it computed for whole turns (reused for the turn records, not embedded twice)."""

    candidates: list[FactCandidate]
    turn_vectors: dict[str, list[float]] = field(default_factory=dict)


class SlotMatcher:
    """Finds the records a change statement replaces, by meaning (see the module docstring).

    Example (the real embedding model; a hash embedder cannot tell meanings apart):
        >>> m = Memory(path="./.prism")  # doctest: +SKIP
        >>> _ = m.remember("My phone is an iPhone 12.", user_id="a", session_id="s1")  # doctest: +SKIP
        >>> _ = m.remember("Switched to a Pixel 8 over the weekend.", user_id="a", session_id="s2")  # doctest: +SKIP
        >>> [r.text for r in m.list(user_id="a", kind="fact")]  # doctest: +SKIP
        ["User's phone: Switched to a Pixel 8 over the weekend"]
    """

    def __init__(
        self, engine: Engine, record_id: Callable[[FactCandidate, Scope], str | None]
    ) -> None:
        self.engine = engine
        self.record_id = record_id  # the id a candidate writes (semantic.py's identity)
        self._vectors: dict[str, list[float]] = {}  # short text -> vector (insertion order)
        self._lock = threading.Lock()

    def _embed_texts(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors of short texts; a record's own text recurs across turns (the same facts
        are matched again and again), so recent ones are kept (bounded, per memory)."""
        with self._lock:
            known = {t: self._vectors[t] for t in texts if t in self._vectors}
        missing = [t for t in dict.fromkeys(texts) if t not in known]
        if missing:
            made = self.engine.embedder.embed_documents(missing)
            with self._lock:
                for t, v in zip(missing, made, strict=True):
                    if len(self._vectors) >= VECTOR_CACHE:
                        self._vectors.pop(next(iter(self._vectors)))
                    known[t] = self._vectors[t] = [float(x) for x in v]
        return [known[t] for t in texts]

    def floor(self, cjk: bool = False) -> float:
        """The embedder's noise floor for English or Chinese text (measured once)."""
        return embedder_floor(self.engine.embedder, cjk)

    def revise(
        self,
        turns: Sequence[MemoryRecord],
        candidates: Sequence[FactCandidate],
        scope: Scope,
        people: set[str] | None = None,
    ) -> SlotChanges:
        """The candidates with what each change statement replaces (see the module docstring).

        Stages: the user's sentences that may change a slot (:func:`change_sentences`), their
        vectors and noise floors (:meth:`_embedded`), then each matched against the holder's
        records (:meth:`_revise_one`)."""
        out = SlotChanges(list(candidates))
        found = change_sentences(turns, out.candidates, people or set())
        if not found:
            return out
        embedded = self._embedded(found)
        if embedded is None:
            return out
        vectors, floors = embedded
        for (turn, sentence, whose), vector in zip(found, vectors, strict=True):
            floor = floors[(is_cjk(sentence), bool(turn.speaker) or whose.startswith("@"))]
            self._revise_one(out, turn, sentence, whose, [float(x) for x in vector], floor, scope)
        return out

    def _embedded(
        self, found: Sequence[Found]
    ) -> tuple[list[list[float]], dict[tuple[bool, bool], float]] | None:
        """Each sentence's vector (embedded as ``"<speaker>: <sentence>"``, or with the person
        it is about) and the floors they are compared at, keyed ``(cjk, named)``; None when
        the embedder fails (the write must not fail because a vector could not be made)."""
        texts = [
            f"{p[1:]}: {s}" if p.startswith("@") else f"{t.speaker}: {s}" if t.speaker else s
            for t, s, p in found
        ]
        try:
            vectors = self.engine.embedder.embed_documents(texts)
            # a sentence embedded with a speaker's name is compared at the named floor, one
            # without (a stated fact, an unnamed speaker) at the plain one
            floors = {
                (cjk, named): embedder_floor(self.engine.embedder, cjk, named=named)
                for cjk, named in {
                    (is_cjk(s), bool(t.speaker) or p.startswith("@")) for t, s, p in found
                }
            }
        except Exception as exc:
            log.info("change statements not matched: %s", exc)
            return None
        return [list(v) for v in vectors], floors

    def _revise_one(
        self,
        out: SlotChanges,
        turn: MemoryRecord,
        sentence: str,
        whose: str,
        vec: list[float],
        floor: float,
        scope: Scope,
    ) -> None:
        """One change sentence: the records of the slot it changes (by meaning, or by shared
        characters for a script the embedder cannot read) become what it replaces or
        contradicts; a change about a known person revises their card."""
        if whose.startswith("@"):
            self._person_change(out, turn, sentence, whose[1:], vec, floor, scope)
            return
        if " ".join(sentence.split()) == " ".join(turn.text.split()) and turn.speaker:
            out.turn_vectors[turn.id] = vec
        if floor >= BLIND_FLOOR:
            hits = self._records_sharing_words(sentence, turn, scope)
        else:
            hits = self._slot_records(vec, sentence, turn, scope, floor)
            if whose == "thing":  # "Standup got moved": the record must name the same thing
                said = content_words(sentence)
                hits = [h for h in hits if said & content_words(h.text)]
        rewritten = {self.record_id(c, scope) for c in out.candidates if turn.id in c.source_ids}
        hits = [h for h in hits if h.id not in rewritten]
        if hits and whose == "conflict":
            self._conflicts(out, turn, sentence, hits)
        elif hits:
            self._apply(out, turn, sentence, hits)

    def _person_change(
        self,
        out: SlotChanges,
        turn: MemoryRecord,
        sentence: str,
        person: str,
        vector: list[float],
        floor: float,
        scope: Scope,
    ) -> None:
        """A change said about a known person replaces the entry of their card it matches by
        meaning ("Lars ... is driving a taxi now" replaces "works as chef"), unless the rules
        read it as a keyed entry already ("occupation: teacher" replaces "occupation: ...")."""
        card = self._current_card(person, scope)
        entries = [str(e) for e in card.fields.get("attributes") or []] if card else []
        if card is None or not entries:
            return
        mine = [
            c
            for c in out.candidates
            if c.schema == "Person"
            and str(c.fields.get("name")) == person
            and turn.id in c.source_ids
        ]
        keys = {entry_key(e) for e in entries} - {None}
        if any(entry_key(e) in keys for c in mine for e in c.fields.get("attributes") or []):
            return  # a keyed entry of the same key: the merge replaces it
        best = self._matching_entry(person, entries, vector, floor)
        if best is None:
            return
        attributes = [*entries[:best], told_of(sentence, person), *entries[best + 1 :]]
        fields: dict[str, Any] = {"name": person, "attributes": attributes}
        if card.fields.get("relationship"):
            fields["relationship"] = card.fields["relationship"]
        out.candidates = [c for c in out.candidates if c not in mine]
        out.candidates.append(
            FactCandidate(
                "Person",
                fields,
                confidence=max(0.6, card.confidence),
                importance=max(0.5, card.importance),
                entities=list(card.entities),
                event_time=turn.event_time or turn.created_at,
                source_ids=[*turn.provenance.source_ids, turn.id],
                evidence=sentence,
                extractor="slots",
            )
        )

    def _current_card(self, person: str, scope: Scope) -> MemoryRecord | None:
        """The person's card if it is stored and current (None when it cannot be read)."""
        card_id = self.record_id(FactCandidate("Person", {"name": person}), scope)
        if card_id is None:
            return None
        try:
            cards = self.engine.store.get([card_id], scope)
        except PrismError as exc:
            log.info("card of %s not read: %s", person, exc)
            return None
        card = cards[0] if cards else None
        if card is None or card.status != Status.ACTIVE or card.valid_to is not None:
            return None
        return card

    def _matching_entry(
        self, person: str, entries: Sequence[str], vector: list[float], floor: float
    ) -> int | None:
        """The index of the card entry closest in meaning to the change, if above ``floor``."""
        texts = [f"{person}: {person} {person_entry(e)}" for e in entries]
        try:
            shown = np.asarray(self.engine.embedder.embed_documents(texts), dtype=np.float64)
        except Exception as exc:
            log.info("card entries of %s not embedded: %s", person, exc)
            return None
        q = np.asarray(vector, dtype=np.float64)
        sims = shown @ q / np.maximum(np.linalg.norm(shown, axis=1) * np.linalg.norm(q), 1e-12)
        best = int(np.argmax(sims))
        if float(sims[best]) < floor:
            return None
        return best

    def _holder_records(self, turn: MemoryRecord, scope: Scope, limit: int) -> list[MemoryRecord]:
        flt = RecordFilter(
            must=[
                Condition(
                    "kind", "any", [Kind.FACT.value, Kind.PREFERENCE.value, Kind.EVENT.value]
                ),
                Condition("layer", "any", [Layer.SEMANTIC.value, Layer.EPISODIC.value]),
                Condition("status", "eq", Status.ACTIVE.value),
            ]
        )
        holders = {"user"} | ({turn.speaker.lower()} if turn.speaker else set())
        out: list[MemoryRecord] = []
        try:
            for record in self.engine.iter_records(scope, flt):
                if (
                    record.valid_to is None
                    and turn.id not in record.provenance.source_ids
                    and record.schema_name in ("Fact", "Preference", "Event")
                    and holder_of_record(record) in holders
                ):
                    out.append(record)
                if len(out) >= limit:
                    break
        except PrismError as exc:
            log.info("records of the holder not read: %s", exc)
        return out

    def _records_sharing_words(
        self, sentence: str, turn: MemoryRecord, scope: Scope
    ) -> list[MemoryRecord]:
        """For a script the embedder cannot read: the holder's records whose source sentence
        shares the most content characters with this one (none shared: no slot)."""
        name = set(turn.speaker or "")
        mine = {ch for ch in sentence if is_cjk(ch) and ch not in ZH_FUNCTION and ch not in name}
        scored: list[tuple[int, MemoryRecord]] = []
        for record in self._holder_records(turn, scope, 512):
            said = str(record.metadata.get("evidence") or record.text)
            shared = len(mine & {ch for ch in said if ch not in name})
            if shared:
                scored.append((shared, record))
        if not scored:
            return []
        best = max(n for n, _ in scored)
        return [r for n, r in scored if n == best][:MAX_HITS]

    def _slot_records(
        self, vector: list[float], sentence: str, turn: MemoryRecord, scope: Scope, floor: float
    ) -> list[MemoryRecord]:
        """The holder's current records of the slot the sentence changes (best first)."""
        flt = RecordFilter(
            must=[
                Condition(
                    "kind", "any", [Kind.FACT.value, Kind.PREFERENCE.value, Kind.EVENT.value]
                ),
                Condition("layer", "any", [Layer.SEMANTIC.value, Layer.EPISODIC.value]),
                Condition("status", "eq", Status.ACTIVE.value),
            ]
        )
        try:
            routes = self.engine.store.query_routes(
                scope, [RouteQuery("slot", "dense", vector, MAX_HITS)], flt
            )
        except PrismError as exc:
            log.info("slot lookup failed: %s", exc)
            return []
        holders = {"user"} | ({turn.speaker.lower()} if turn.speaker else set())
        scored: list[tuple[float, MemoryRecord]] = []
        for hit in routes.get("slot", []):
            try:
                record = MemoryRecord.from_payload(hit.payload)
            except Exception:  # a payload this version cannot read is not a slot
                continue
            if record.valid_to is not None or turn.id in record.provenance.source_ids:
                continue
            if not is_value(record) and record.schema_name != "Event":
                continue
            if holder_of_record(record) not in holders:
                continue
            scored.append((hit.score, record))
        scored = [(s, r) for s, r in scored if s >= floor]
        if not scored:
            return []
        # the turn's vector is shared by every clause of it and carries the speaker's name:
        # the slot is decided on the words alone (the sentence against each record's own
        # text, names removed), above that comparison's own noise floor
        names = [n for n in (turn.speaker, "User", "user") if n]
        try:
            texts = [sentence] + [without_names(r.text, names) for _, r in scored]
            vecs = np.asarray(self._embed_texts(texts), dtype=np.float64)
            plain = embedder_floor(self.engine.embedder, is_cjk(sentence), named=False)
        except Exception as exc:
            log.info("slot records not embedded: %s", exc)
            return []
        q, own = vecs[0], vecs[1:]
        sims = own @ q / np.maximum(np.linalg.norm(own, axis=1) * np.linalg.norm(q), 1e-12)
        best = float(sims.max())
        log.debug("slot of %r: %s (floor %.3f)", sentence, sims.round(3).tolist(), plain)
        if best < plain:
            return []
        ranked = sorted(zip(sims, (r for _, r in scored), strict=True), key=lambda p: -p[0])
        return [r for x, r in ranked if x >= best - MARGIN]

    def _conflicts(
        self, out: SlotChanges, turn: MemoryRecord, sentence: str, hits: list[MemoryRecord]
    ) -> None:
        """The sentence's preferences contradict the slot's current records (a different
        value, no change said): both stay current, linked, and the context says so."""
        for c in out.candidates:
            if c.schema != "Preference" or c.evidence.strip() != sentence:
                continue
            value = content_words(str(c.fields.get("subject") or ""))
            other = [h.id for h in hits if is_value(h) and not value <= content_words(h.text)]
            c.conflicts = list(dict.fromkeys([*c.conflicts, *other]))

    def _apply(
        self, out: SlotChanges, turn: MemoryRecord, sentence: str, hits: list[MemoryRecord]
    ) -> None:
        """Attach ``replaces`` to the sentence's own candidates, or make the new value."""
        mine = [
            c for c in out.candidates if c.evidence.strip() == sentence and turn.id in c.source_ids
        ]
        when = turn.event_time or turn.created_at
        # a past event is history, never replaced; a plan (an event still ahead) may be moved
        hits = [
            h
            for h in hits
            if h.schema_name != "Event" or (h.event_time is not None and h.event_time > when)
        ]
        if not hits:
            return
        structured = [
            c for c in mine if c.schema in VALUE_SCHEMAS and not c.generic and c.schema != "Person"
        ]
        events = [c for c in mine if c.schema == "Event"]
        value_hits = [h.id for h in hits if is_value(h)]
        event_hits = [h.id for h in hits if h.schema_name == "Event"]
        if structured and value_hits:
            for c in structured:
                c.replaces = list(dict.fromkeys([*c.replaces, *value_hits]))
            return
        if events and not value_hits:
            old = next(h for h in hits if h.schema_name == "Event")
            for c in events:
                c.replaces = list(dict.fromkeys([*c.replaces, *event_hits]))
                same_event(c, old, turn)
            return
        new = new_value(turn, sentence, hits)
        out.candidates = [
            c for c in out.candidates if not (c in mine and c.schema in VALUE_SCHEMAS)
        ]
        out.candidates.append(new)
