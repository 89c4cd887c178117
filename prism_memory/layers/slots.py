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
"""

from __future__ import annotations

import logging
import re
import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import PrismError
from ..extraction.candidate import FactCandidate
from ..extraction.change import about_person, holder_of, is_change_statement, told, told_of
from ..extraction.reconcile import entry_key
from ..extraction.schemas import person_entry
from ..extraction.sentences import is_cjk, speech_act, split_sentences
from ..records import Kind, Layer, MemoryRecord, Scope, Status
from ..stores import RecordFilter
from ..stores.base import RouteQuery
from ..stores.filters import Condition

if TYPE_CHECKING:
    from ..engine import Engine

__all__ = ["SlotChanges", "SlotMatcher", "embedder_floor", "holder_of_record", "noise_floor"]

log = logging.getLogger("prism_memory")

#: unrelated everyday statements (none about the same thing): their pairwise cosines are what
#: "no relation" looks like to an embedder
CALIBRATION = (
    "I fed the neighbour's cat while they were away.",
    "The printer at work keeps jamming on double-sided pages.",
    "We watched a documentary about deep-sea fish last night.",
    "My grandmother taught me to knit when I was seven.",
    "The train was twenty minutes late because of a signal fault.",
    "I repainted the bathroom a pale green colour.",
    "Our football club won the regional cup on penalties.",
    "I keep my passwords in a paper notebook in a drawer.",
    "The bakery on the corner sells out of croissants by nine.",
    "I sprained my wrist falling off a skateboard.",
    "Our team migrated the database to a new cluster.",
    "I planted tomatoes and basil on the balcony.",
    "The museum has a new exhibition about Roman coins.",
    "I bought a second-hand piano from a church sale.",
    "My laptop battery only lasts about two hours.",
    "We got stuck in a snowstorm driving through the mountains.",
)
ZH_CALIBRATION = (
    "我昨天帮邻居喂了猫。",
    "公司的打印机总是卡纸。",
    "我们晚上看了一部关于深海鱼的纪录片。",
    "奶奶在我七岁的时候教我织毛衣。",
    "火车因为信号故障晚点了二十分钟。",
    "我把浴室刷成了浅绿色。",
    "我们的球队点球赢得了比赛。",
    "街角的面包店九点就卖完了牛角包。",
    "我在阳台上种了西红柿和罗勒。",
    "博物馆有一个关于古罗马硬币的新展览。",
)
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
VALUE_SCHEMAS = frozenset({"Fact", "Preference"})


def noise_floor(vectors: np.ndarray, z: float = 2.0) -> float:
    """Mean + ``z`` standard deviations of the pairwise cosines of unrelated sentences.

    >>> round(noise_floor(np.eye(3)), 3)
    0.0
    """
    v = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    sims = v @ v.T
    upper = sims[np.triu_indices(len(v), k=1)]
    return float(upper.mean() + z * upper.std())


_FLOORS: weakref.WeakKeyDictionary[object, dict[tuple[bool, bool], float]] = (
    weakref.WeakKeyDictionary()
)
_FLOORS_LOCK = threading.Lock()


def embedder_floor(embedder: Any, cjk: bool, *, named: bool = True) -> float:
    """The noise floor of ``embedder`` for English or Chinese sentences, said by a named
    speaker (``"Sam: ..."``, as turns are embedded; mean + 2 sd) or plain (mean + 2.5 sd: the
    stricter bar of the word-level check). Measured once per embedder object."""
    slot = (cjk, named)
    with _FLOORS_LOCK:
        try:
            known = _FLOORS.setdefault(embedder, {})
        except TypeError:  # an embedder that cannot be weakly referenced: measured each time
            known = {}
        if slot in known:
            return known[slot]
    said = ZH_CALIBRATION if cjk else CALIBRATION
    texts = [(("王明: " if cjk else "Sam: ") + t) if named else t for t in said]
    vectors = np.asarray(embedder.embed_documents(texts), dtype=np.float64)
    floor = noise_floor(vectors, 2.0 if named else 2.5)
    with _FLOORS_LOCK:
        known[slot] = floor
    return floor


@dataclass
class SlotChanges:
    """What :meth:`SlotMatcher.revise` did: the candidates to reconcile, and the dense vectors
    it computed for whole turns (reused for the turn records, not embedded twice)."""

    candidates: list[FactCandidate]
    turn_vectors: dict[str, list[float]] = field(default_factory=dict)


def _is_value(record: MemoryRecord) -> bool:
    """A fact or preference: a schema's, or one stated as free text (``add``, a tool)."""
    if record.schema_name is None:
        return record.kind in (Kind.FACT, Kind.PREFERENCE) and record.layer == Layer.SEMANTIC
    return record.schema_name in VALUE_SCHEMAS


def holder_of_record(record: MemoryRecord) -> str:
    """Whose record it is (the user is ``"user"``, whatever the speaker's name)."""
    f = record.fields
    if record.schema_name == "Event":
        return str(f.get("actor") or "user").lower()
    if record.schema_name == "Preference":
        return str(f.get("holder") or "user").lower()
    return str(f.get("subject") or "user").lower()


def _label(record: MemoryRecord) -> str:
    f = record.fields
    if record.schema_name == "Fact":
        return str(f.get("attribute") or "")
    if record.schema_name == "Preference":  # the category, never the old value itself
        if f.get("category"):
            return str(f["category"])
        return "偏好" if is_cjk(record.text) else "preference"
    words = str(f.get("description") or record.text).split()
    return " ".join(words[:4])


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

        Stages: the user's sentences that may change a slot (:func:`_change_sentences`), their
        vectors and noise floors (:meth:`_embedded`), then each matched against the holder's
        records (:meth:`_revise_one`)."""
        out = SlotChanges(list(candidates))
        found = _change_sentences(turns, out.candidates, people or set())
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
        self, found: Sequence[_Found]
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
                said = _content_words(sentence)
                hits = [h for h in hits if said & _content_words(h.text)]
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
            if not _is_value(record) and record.schema_name != "Event":
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
            texts = [sentence] + [_without_names(r.text, names) for _, r in scored]
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
            value = _content_words(str(c.fields.get("subject") or ""))
            other = [h.id for h in hits if _is_value(h) and not value <= _content_words(h.text)]
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
        value_hits = [h.id for h in hits if _is_value(h)]
        event_hits = [h.id for h in hits if h.schema_name == "Event"]
        if structured and value_hits:
            for c in structured:
                c.replaces = list(dict.fromkeys([*c.replaces, *value_hits]))
            return
        if events and not value_hits:
            old = next(h for h in hits if h.schema_name == "Event")
            for c in events:
                c.replaces = list(dict.fromkeys([*c.replaces, *event_hits]))
                _same_event(c, old, turn)
            return
        new = _new_value(turn, sentence, hits)
        out.candidates = [
            c for c in out.candidates if not (c in mine and c.schema in VALUE_SCHEMAS)
        ]
        out.candidates.append(new)


def _new_value(turn: MemoryRecord, sentence: str, hits: list[MemoryRecord]) -> FactCandidate:
    """A ``Fact`` made from a change sentence no structured candidate holds: the best hit's
    label as attribute, the sentence told in the third person as the value, keyed like the
    best hit when that is a keyed fact (its versions form one chain), replacing the hits."""
    best = hits[0]
    who = turn.speaker or None
    value, predicate = told(sentence, who)
    label = _label(best) or ("情况" if is_cjk(sentence) else "news")
    fields: dict[str, object] = {"attribute": label, "value": value}
    if who:
        fields["subject"] = who
    if predicate is not None:
        fields["predicate"] = predicate
    key = None
    if best.schema_name == "Fact" and isinstance(best.metadata.get("entity_key"), str):
        key = str(best.metadata["entity_key"])
    new = FactCandidate(
        "Fact",
        fields,
        confidence=max(0.6, best.confidence),
        importance=max(0.5, best.importance),
        entities=list(best.entities),
        event_time=turn.event_time or turn.created_at,
        source_ids=[*turn.provenance.source_ids, turn.id],
        evidence=sentence,
        extractor="slots",
        key=key,
        replaces=[h.id for h in hits if not (key and h.id == best.id)],
    )
    return new


#: a sentence that may change a slot: (turn, sentence, whose) where whose is "self" or
#: "thing" for the speaker's own change, "conflict" for a preference that may contradict one
#: that holds, or "@<person>" for a change of someone the user knows
_Found = tuple[MemoryRecord, str, str]


def _change_sentences(
    turns: Sequence[MemoryRecord], candidates: Sequence[FactCandidate], known: set[str]
) -> list[_Found]:
    """The sentences of the user's (not quarantined) turns that may change a slot."""
    found: list[_Found] = []
    for turn in turns:
        if turn.metadata.get("role") != "user" or turn.provenance.trust.value == "quarantined":
            continue
        for sentence in split_sentences(turn.text):
            sentence = sentence.strip()
            whose = is_change_statement(sentence, known)
            if whose is not None:
                found.append((turn, sentence, whose))
            elif (
                any(
                    c.schema == "Preference"
                    and c.evidence.strip() == sentence
                    and turn.id in c.source_ids
                    for c in candidates
                )
                and holder_of(sentence, known) == "self"
            ):
                # a preference said without a change: it may contradict one that holds
                found.append((turn, sentence, "conflict"))
            elif speech_act(sentence) in ("statement", "reported"):
                # "Lars told me he's quit": the user reports a change of someone they know
                person = about_person(sentence, known)
                if person is not None:
                    found.append((turn, sentence, "@" + person))
    return found


_WORDS = re.compile(r"[\w']+")


_STOP = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "but",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "with",
        "from",
        "by",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "has",
        "have",
        "had",
        "got",
        "get",
        "gets",
        "this",
        "that",
        "it",
        "its",
        "my",
        "our",
        "your",
        "their",
        "his",
        "her",
        "now",
        "new",
        "just",
        "then",
        "than",
    ]
)


def _content_words(text: str) -> set[str]:
    """Lower-case words of 3+ letters that are not function words (plural -s folded)."""
    words = {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z-]{2,}", text)}
    return {w[:-1] if w.endswith("s") and len(w) > 3 else w for w in words} - _STOP


def _without_names(text: str, names: Sequence[str]) -> str:
    """A record's text without its holder's name ("Maya's budget: 1800" -> "budget: 1800")."""
    for name in names:
        text = re.sub(rf"\b{re.escape(name)}(?:'s|')?\s*", "", text)
    return text.strip() or text


def _same_event(new: FactCandidate, old: MemoryRecord, turn: MemoryRecord) -> None:
    """A rescheduled event is the same event: it keeps the old description when the new one
    says less ("Sam's appointment" for "Sam's dentist appointment"), and stays a plan when
    the old one was a plan (a moved flight is not in the past because "rebooked" is)."""
    said = str(new.fields.get("description") or "")
    before = str(old.fields.get("description") or "")
    if said and before and set(_WORDS.findall(said.lower())) <= set(_WORDS.findall(before.lower())):
        new.fields["description"] = before
    now = turn.event_time or turn.created_at
    if old.event_time is None or new.event_time is None or old.event_time <= now:
        return
    when: datetime = new.event_time
    if when < now:
        moved = _next_year(when)
        if moved is not None and moved > now:
            new.event_time = moved
            text = new.fields.get("when")
            if isinstance(text, str) and text[:4].isdigit():
                new.fields["when"] = f"{moved.year:04d}{text[4:]}"


def _next_year(when: datetime) -> datetime | None:
    try:
        return when.replace(year=when.year + 1)
    except ValueError:  # 29 February
        return None
