"""Consolidation and reflection: episodic turns distilled into semantic summaries.

Design:
- Unconsolidated episodic turns of a scope are grouped per session and cut into windows of
  consecutive turns (``WINDOW`` turns, a new window where the topic changes: few shared words
  between neighbours). Each window becomes one ``summary`` record in the semantic layer,
  scoped without ``session_id``, ``source_ids`` = its turns, ``event_time`` = its first turn.
- Without an LLM the summary is extractive (:func:`extractive_summary`: the most informative
  statements, whole sentences told in the third person ("Ann adopted a puppy"), within a token
  bound); with one it is distilled by the model, with the extractive text as the fallback.
  A summary is written in its session's language: a Chinese session's sentences keep their
  own punctuation and take no spaces or English glue ("助手说：", not "The assistant said:"),
  and the model is asked for Chinese.
  Summaries are session digests: rendered in the timeline, never among the facts. Optional reflection asks the model for insights over the
  new summaries and writes ``reflection`` records.
- Turns are marked (their ``consolidated_at`` field, kept by ``update`` and by export/import)
  so a second run does no work: idempotent.
- Selecting the turns (:func:`select_turns`) and summarising them (:func:`consolidate_turns`)
  are separate steps: a background consolidation selects its turns when it is scheduled, in
  the caller's order, so what a summary covers never depends on when the worker thread runs.
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from collections.abc import Collection, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np
from pydantic import TypeAdapter

from ..extraction.english_words import third_person
from ..extraction.rules import score_importance
from ..extraction.sentences import is_cjk, speech_act, split_sentences
from ..llm.summaries import reflect_with_llm, summarise_with_llm
from ..records import Kind, Layer, MemoryRecord, Scope, Source, Trust, make_record_id, utcnow
from ..results import RecordChange, RememberResult
from ..stores import RecordFilter
from ..stores.filters import Condition
from ..tokens import count_tokens

if TYPE_CHECKING:
    from ..engine import Engine

__all__ = [
    "centroid",
    "consolidate_scope",
    "consolidate_turns",
    "extractive_summary",
    "is_chinese",
    "mark_changed",
    "select_turns",
    "split_windows",
]

log = logging.getLogger("prism_memory")
_DT = TypeAdapter(datetime)
WINDOW = 12
SUMMARY_TOKENS = 80
_WORD = re.compile(r"[\w\u4e00-\u9fff]{3,}")


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def split_windows(turns: Sequence[MemoryRecord], window: int = WINDOW) -> list[list[MemoryRecord]]:
    """Consecutive turns cut into windows of at most ``window``; a window closes early (after
    half its size) where two neighbours share no content word (a topic change)."""
    out: list[list[MemoryRecord]] = []
    current: list[MemoryRecord] = []
    for turn in turns:
        if current and (
            len(current) >= window
            or (len(current) >= window // 2 and not (_words(current[-1].text) & _words(turn.text)))
        ):
            out.append(current)
            current = []
        current.append(turn)
    if current:
        out.append(current)
    return out


def _told(sentence: str, turn: MemoryRecord) -> str:
    """A sentence of a turn told about its speaker ("I moved to Lisbon" -> "Ann moved to
    Lisbon"), so the summary reads as prose without speaker tags."""
    who = turn.speaker if turn.speaker and turn.speaker not in _ROLE_NAMES else None
    role = str(turn.metadata.get("role") or "user")
    if is_cjk(sentence):
        if role == "assistant":
            return f"助手说：{sentence}"
        # every 我 is the speaker ("我姐姐说我很像她" -> "李华姐姐说李华很像她"); 我们 stays
        return re.sub(r"我(?!们)", who or "用户", sentence)
    if role == "assistant":
        return f"The assistant said: {sentence}"
    sentence = _OPENER.sub("", sentence)
    sentence = sentence[:1].upper() + sentence[1:]
    if not re.search(r"\b(?:I|[Mm]y|me)\b", sentence):
        return sentence
    told = third_person(sentence, who or "The user")
    if not _SUBORDINATE.match(told):  # "X went up, Ann can pay" is two sentences' worth
        subject = re.escape(who or "the user")
        told = re.sub(rf",\s+(?={subject}\s+\w)", "; ", told)
    return told


# discourse openers that add nothing to a summary ("Actually, ...", "So ...")
_OPENER = re.compile(
    r"^(?:actually|so|well|anyway|oh|honestly|basically|okay|ok|um|hmm|yeah|yes|no)\b,?\s+",
    re.I,
)
# a sentence that opens with a subordinate clause: its comma is not a splice
_SUBORDINATE = re.compile(
    r"^(?:when|if|because|since|after|before|while|although|though|as|once|until|unless)\b",
    re.I,
)


# greetings and reactions carry no content worth a summary's tokens
_REACTION = re.compile(
    r"^\W*(?:hey|hi|hello|wow|whoa|thanks|thank you|good to see|great to see|nice to see|"
    r"long time|congrats|congratulations|omg|yay|aww|haha|lol|that's (?:great|awesome|cool|"
    r"amazing|so cool|wonderful)|that sounds|sounds (?:great|good|fun)|glad|so glad|same here|"
    r"me too|no way|oh)\b",
    re.I,
)
_ZH_REACTION = re.compile(
    r"^\W*(?:哈+|嗯+|哦+|噢|好的|好吧|谢谢|多谢|感谢|太好了|不错|是的|对的|没问题|收到|明白|"
    r"知道了|辛苦了|再见|拜拜|晚安|早安|你好|您好)[\W哈嗯啊呀哦吧]*$"
)
_ROLE_NAMES = frozenset({"user", "assistant", "system", "tool", "human", "ai"})


def _marker(labels: Collection[str]) -> str:
    return f" [since changed: {', '.join(sorted(labels))}]"


def mark_changed(summary: str, turn_text: str, labels: Collection[str]) -> str:
    """``summary`` with its sentences told from ``turn_text`` that state a value changed since
    marked ``[since changed: <labels>]``: a digest never presents an old value as current.

    Sentences that name a changed label are marked; if none of the turn's sentences does, all
    of them are (the label may name the slot in other words).

    >>> mark_changed("Ann's budget is 500 a night. Ann likes tea.", "My budget is 500 a night.", {"budget"})
    "Ann's budget is 500 a night. [since changed: budget] Ann likes tea."
    """
    if not labels:
        return summary
    said = _words(turn_text)
    label_words = {w for label in labels for w in _words(label)}
    parts = split_sentences(summary)
    from_turn = [
        i
        for i, p in enumerate(parts)
        if (words := _words(p)) and len(words & said) >= max(1, len(words) // 2)
    ]
    named = [i for i in from_turn if _words(parts[i]) & label_words]
    marker = _marker(labels)
    out = []
    for i, p in enumerate(parts):
        marked = "[since changed:" in p or (
            i + 1 < len(parts) and parts[i + 1].lstrip().startswith("[since changed:")
        )
        if i in (named or from_turn) and not marked:
            p = p.rstrip() + marker
        out.append(p.strip())
    return " ".join(out)


def _too_short(sentence: str) -> bool:
    """Too little to carry content: under 12 characters and 4 words, or, in Chinese (no
    spaces), under 6 characters."""
    if is_cjk(sentence):
        return len(sentence.strip()) < 6
    return len(sentence) < 12 or len(sentence.split()) < 4


def is_chinese(texts: Sequence[str]) -> bool:
    """True when Chinese characters are at least a third of the letters of the texts (the
    language a summary of them is written in).

    >>> is_chinese(["我下周去杭州出差。", "OK"]), is_chinese(["I fly to Rome on May 3."])
    (True, False)
    """
    han = sum(len(_HAN.findall(t)) for t in texts)
    latin = sum(len(_LATIN_WORD.findall(t)) for t in texts)
    return han > 0 and han >= 0.5 * latin  # a word of ~5 letters weighs about two characters


_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z]")


def _join(parts: Sequence[str]) -> str:
    """Sentences as one text: a Chinese one ends in 。 and takes no space after another."""
    out = ""
    chinese_before = False
    for part in parts:
        part = part.strip()
        if not part:
            continue
        chinese = is_cjk(part)
        if chinese and part[-1] not in "。！？!?…；;.":
            part += "。"
        if out and not (chinese and chinese_before):
            out += " "
        out += part
        chinese_before = chinese
    return out


def extractive_summary(turns: Sequence[MemoryRecord], max_tokens: int = SUMMARY_TOKENS) -> str:
    """The most informative statements of the turns, in order, told in the third person,
    within ``max_tokens``. Sentences, not turn fragments: split where a sentence ends (not at
    "Dr." or "St."), questions and chit-chat left out while there are statements to pick."""
    candidates: list[tuple[int, int, float, str, bool]] = []
    for i, turn in enumerate(turns):
        keys = {e.key for e in turn.entities}
        for j, sentence in enumerate(split_sentences(turn.text.strip())):
            if _too_short(sentence) or _REACTION.match(sentence) or _ZH_REACTION.match(sentence):
                continue
            statement = speech_act(sentence) == "statement"
            score = score_importance(sentence) + 0.1 * len(_words(sentence) & keys)
            if turn.metadata.get("role") == "assistant":
                score -= 0.2
            told = _told(sentence, turn)
            changed = turn.metadata.get("changed_later")
            if changed and isinstance(changed, list):  # a value stated here changed since
                told = mark_changed(told, sentence, [str(c) for c in changed])
            candidates.append((i, j, score, told, statement))
    statements = [c for c in candidates if c[4]]
    pool = statements or candidates
    if not pool:
        pool = [(i, 0, 0.0, _told(t.text[:200], t), False) for i, t in enumerate(turns)]
    chosen: list[tuple[int, int, float, str, bool]] = []
    used = 0
    for item in sorted(pool, key=lambda x: (-x[2], x[0], x[1])):
        cost = count_tokens(item[3])
        if used + cost > max_tokens and chosen:
            continue
        chosen.append(item)
        used += cost
        if used >= max_tokens:
            break
    chosen.sort(key=lambda x: (x[0], x[1]))
    return _join([text for _, _, _, text, _ in chosen])


def centroid(vectors: Sequence[Sequence[float]]) -> list[float] | None:
    """The unit-length mean of vectors (``None`` for none or a zero mean).

    >>> [round(x, 6) for x in centroid([[1.0, 0.0], [0.0, 1.0]])]
    [0.707107, 0.707107]
    """
    if not vectors:
        return None
    mean = np.asarray(vectors, dtype=np.float64).mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return None if norm == 0 else [float(x) for x in mean / norm]


def _reflect(engine: Engine, scope: Scope, summaries: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    if engine.llm is None:
        return []
    texts = [s.text for s in summaries]
    language = "Chinese" if is_chinese(texts) else "English"
    timeout_s = engine.config.lifecycle.llm_timeout_s
    insights = reflect_with_llm(engine.llm, texts, language, timeout_s)
    ids = [s.id for s in summaries]
    return [
        engine.build_record(
            insight,
            scope,
            kind=Kind.REFLECTION,
            layer=Layer.SEMANTIC,
            importance=0.7,
            confidence=0.6,
            source=Source.DERIVED,
            source_ids=ids,
            record_id=make_record_id(scope, Layer.SEMANTIC, f"reflection:{insight}"),
        )
        for insight in insights
    ]


def select_turns(
    engine: Engine, scope: Scope, exclude: Collection[str] = ()
) -> dict[str, list[MemoryRecord]]:
    """The scope's unconsolidated episodic turns (all sessions) not in ``exclude``, by session
    id in turn order. Quarantined turns are never summarised: nothing derived quotes them."""
    flt = RecordFilter(
        must=[
            Condition("layer", "eq", Layer.EPISODIC.value),
            Condition("kind", "eq", Kind.OBSERVATION.value),
            Condition("consolidated_at", "empty"),
        ],
        must_not=[Condition("trust", "eq", Trust.QUARANTINED.value)],
    )
    by_session: dict[str, list[MemoryRecord]] = defaultdict(list)
    for turn in engine.iter_records(scope, flt):
        if turn.id not in exclude:
            by_session[turn.session_id or ""].append(turn)
    for turns in by_session.values():
        turns.sort(key=lambda r: (int(r.metadata.get("turn_index", 0)), r.id))
    return {k: by_session[k] for k in sorted(by_session)}


def consolidate_scope(
    engine: Engine, scope: Scope, *, reflect: bool | None = None
) -> RememberResult:
    """Summarise the scope's unconsolidated episodic turns (all sessions); returns what was added."""
    return consolidate_turns(engine, scope, select_turns(engine, scope), reflect=reflect)


def consolidate_turns(
    engine: Engine,
    scope: Scope,
    by_session: dict[str, list[MemoryRecord]],
    *,
    reflect: bool | None = None,
) -> RememberResult:
    """Summarise the selected turns (:func:`select_turns`) and mark them consolidated."""
    result = RememberResult()
    if not by_session:
        return result
    summaries = [
        _summary(engine, scope, session_id, window)
        for session_id, turns in sorted(by_session.items())
        for window in split_windows(turns)
    ]
    reflections: list[MemoryRecord] = []
    if reflect if reflect is not None else engine.llm is not None:
        reflections = _reflect(engine, scope, summaries)
    dense = _centroids(engine, scope, summaries) if engine.llm is None else {}
    stamp = utcnow()
    with engine.scope_lock(scope):
        # what the turns said that changed since they were selected (a change written while
        # this ran): under the lock, so a digest is marked whichever came first
        _mark_changed_turns(engine, scope, by_session, summaries)
        written = engine.write_records(summaries + reflections, dense=dense, screen=False)
        for session_id, turns in by_session.items():
            session_scope = Scope.of(scope.user_id, scope.agent_id, session_id or None)
            engine.update(
                [t.id for t in turns],
                session_scope,
                {"consolidated_at": _DT.dump_python(stamp, mode="json")},
                announce=False,  # bookkeeping: what recall shows is unchanged
            )
    for rec in written:
        result.added.append(
            RecordChange(rec, f"consolidated from {len(rec.provenance.source_ids)} sources")
        )
    n_turns = sum(len(turns) for turns in by_session.values())
    log.debug("consolidated %d turns into %d records", n_turns, len(written))
    return result


def _summary(
    engine: Engine, scope: Scope, session_id: str, window: list[MemoryRecord]
) -> MemoryRecord:
    """The digest of one window of a session's turns: distilled by the LLM when the memory
    has one (the extractive summary when it fails), else extractive."""
    text = extractive_summary(window)
    if engine.llm is not None:
        language = "Chinese" if is_chinese([t.text for t in window]) else "English"
        lines = [f"{t.speaker}: {t.text}" for t in window]
        timeout_s = engine.config.lifecycle.llm_timeout_s
        distilled = summarise_with_llm(engine.llm, lines, language, timeout_s)
        text = distilled or text
    first, last = window[0], window[-1]
    key = (
        f"summary:{session_id}:{first.metadata.get('turn_index')}-{last.metadata.get('turn_index')}"
    )
    entities = list({e.key: e for t in window for e in t.entities}.values())[:12]
    return engine.build_record(
        text,
        scope,
        kind=Kind.SUMMARY,
        layer=Layer.SEMANTIC,
        event_time=first.event_time,
        entities=entities,
        importance=max(t.importance for t in window),
        confidence=0.8 if engine.llm is not None else 0.7,
        source=Source.DERIVED,
        source_ids=[i for t in window for i in [t.id, *t.provenance.source_ids]],
        metadata={
            "session_id": session_id,
            "turns": len(window),
            "first_turn": first.metadata.get("turn_index"),
            "last_turn": last.metadata.get("turn_index"),
        },
        record_id=make_record_id(scope, Layer.SEMANTIC, key),
    )


def _centroids(
    engine: Engine, scope: Scope, summaries: list[MemoryRecord]
) -> dict[str, list[float]]:
    """An extractive summary is made of its turns' sentences: the normalised centroid of
    their vectors represents it without another pass through the embedding model."""
    vectors = engine.store.get_vectors(
        [i for s in summaries for i in s.provenance.source_ids], scope
    )
    dense: dict[str, list[float]] = {}
    for summary in summaries:
        dense_vec = centroid([vectors[i] for i in summary.provenance.source_ids if i in vectors])
        if dense_vec is not None:
            dense[summary.id] = dense_vec
    return dense


def _mark_changed_turns(
    engine: Engine,
    scope: Scope,
    by_session: dict[str, list[MemoryRecord]],
    summaries: list[MemoryRecord],
) -> None:
    """Mark in each digest the sentences of its turns that state a value changed since
    (``metadata["changed_later"]`` on the turn, read now from the store)."""
    turn_ids = [t.id for turns in by_session.values() for t in turns]
    for turn in engine.store.get(turn_ids, scope) if summaries else []:
        labels = turn.metadata.get("changed_later")
        if not labels or not isinstance(labels, list):
            continue
        for summary in summaries:
            if turn.id in summary.provenance.source_ids:
                summary.text = mark_changed(summary.text, turn.text, [str(x) for x in labels])
