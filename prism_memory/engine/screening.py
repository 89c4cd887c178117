"""The safety stage of every write from outside: PII redaction, the poisoning screen and its
optional LLM judge.

Design:
- Functions of the engine's settings (``PrismConfig``) and its LLM, no state of their own;
  ``Engine.redact`` and ``Engine.screen`` are one-line calls of :func:`redact_records` and
  :func:`screen_records`.
- One screen batch per call: each record's text, and its speaker name when it has one
  (shown with the text, so screened as the source's words too; a quarantined name
  quarantines the record). A borderline verdict goes to the LLM judge when
  ``SafetyConfig.llm_judge`` is on; an attack it names quarantines the record.
- Quarantine only escalates: an already quarantined record stays quarantined. Memory text
  reaches the logs at DEBUG level at most (ids and reasons at INFO).
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..config import PrismConfig
from ..records import MemoryRecord, Trust

if TYPE_CHECKING:
    from ..safety.poisoning import ScreenVerdict

__all__ = ["redact_records", "screen_records"]

log = logging.getLogger("prism_memory")

_ROLE_NAMES = frozenset({"user", "assistant", "system", "tool"})


def redact_records(
    config: PrismConfig, records: Sequence[MemoryRecord], keep_metadata: Collection[str] = ()
) -> None:
    """With ``config.safety.redact_pii``: identifiers in every content field of the records
    (text, fields, speaker, entity names, metadata values but ``keep_metadata``) become
    placeholders, in place (:func:`~prism_memory.safety.redact_record`).

    Example::

        redact_records(PrismConfig(), [record])   # a no-op unless redact_pii is on
    """
    if not config.safety.redact_pii:
        return
    from ..safety import redact_record

    for record in records:
        redact_record(record, keep_metadata=keep_metadata)


def screen_records(
    config: PrismConfig,
    llm: Any,
    records: list[MemoryRecord],
    keep_metadata: Collection[str] = (),
) -> list[MemoryRecord]:
    """Redact (when on), then mark the instruction-like records ``trust=quarantined`` with a
    reason (``SafetyConfig.screen``; one batch for the whole call); returns ``records``."""
    redact_records(config, records, keep_metadata)
    todo = [r for r in records if r.provenance.trust != Trust.QUARANTINED]
    if not todo or config.safety.screen == "off":
        return records
    for record, verdict in zip(todo, _verdicts(config, todo)):
        verdict = _second_opinion(config, llm, record, verdict)
        if verdict.quarantined:
            record.provenance.trust = Trust.QUARANTINED
            record.provenance.reason = verdict.reason
            # ids and reasons only: memory text reaches the logs at DEBUG level at most
            log.info("quarantined memory %s: %s", record.id, verdict.reason)
            log.debug("quarantined text of %s: %r", record.id, record.text)
    return records


def _verdicts(config: PrismConfig, todo: Sequence[MemoryRecord]) -> list[ScreenVerdict]:
    """The screen's verdict on each record, one batch: its text, and its speaker name
    (shown with the text, so screened as the source's words too; a quarantined name
    quarantines the record)."""
    from ..safety.poisoning import screen_batch

    cfg = config.safety
    items = [(r.text, r.provenance.source.value) for r in todo]
    named = [
        i
        for i, r in enumerate(todo)
        if r.speaker and r.speaker.strip().casefold() not in _ROLE_NAMES
    ]
    items += [(str(todo[i].speaker), todo[i].provenance.source.value) for i in named]
    verdicts = screen_batch(
        items,
        mode=cfg.screen,
        user=cfg.quarantine_threshold_user,
        external=cfg.quarantine_threshold_external,
    )
    text_verdicts = verdicts[: len(todo)]
    for i, speaker_verdict in zip(named, verdicts[len(todo) :]):
        if speaker_verdict.quarantined and not text_verdicts[i].quarantined:
            text_verdicts[i] = replace(
                speaker_verdict, reason=f"speaker name: {speaker_verdict.reason}"
            )
    return text_verdicts


def _second_opinion(
    config: PrismConfig, llm: Any, record: MemoryRecord, verdict: ScreenVerdict
) -> ScreenVerdict:
    """A borderline verdict judged by the LLM when ``SafetyConfig.llm_judge`` is on: an
    attack it names quarantines the record; otherwise the screen's verdict stands."""
    from ..llm.judge import is_borderline, judge_with_llm

    cfg = config.safety
    if not (cfg.llm_judge and llm is not None and is_borderline(verdict)):
        return verdict
    source = record.provenance.source.value
    judged = judge_with_llm(llm, record.text, source, cfg.llm_judge_timeout_s)
    if judged is None or not judged.attack:
        return verdict
    return replace(
        verdict,
        quarantined=True,
        reason=f"instruction-like content from {source} (LLM judge: "
        f"{judged.reason or 'attack'}; signals: {', '.join(verdict.signals)})",
    )
