"""``WritePath``: the write path of :class:`~prism_memory.Memory` (remember, layers, lifecycle).

Design:
- It holds the :class:`~prism_memory.engine.Engine` and orchestrates the layer modules:
  ``layers/buffer.py`` (recent turns), ``layers/working.py`` (task state),
  ``layers/episodic.py`` (the move out of the buffer), ``layers/semantic.py`` (facts), and
  ``lifecycle/`` (consolidation, forgetting). Each stage gets the engine, never the facade.
- ``remember`` validates everything first, then under the scope lock: buffer the turns (one
  embedding batch for the turns and the facts extracted from them), reconcile the facts with
  what is stored, update the task's working state, and move overflowing turns to the episodic
  layer (a payload update: each turn is embedded exactly once).
- LLM extraction and consolidation are "heavy steps": with ``Memory(background=True)`` they run
  on a worker thread and ``remember`` returns once the turns are durable; ``flush()`` waits.
- A user turn waiting for LLM extraction is written with ``extraction="pending"`` (in the
  same upsert as the turn), cleared once its facts are written. A process that dies first
  leaves the mark: opening the embedded store resumes those turns (with the LLM when one is
  set, else the rules), so no remembered turn is left unextracted.
- Same input, same records: ids are derived from content, scope and position (never from the
  clock or a random source), and a background consolidation is given the turns it covers when
  it is scheduled (claimed until it has run), so the worker's timing changes nothing stored.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from pydantic import TypeAdapter

from .._messages import Turn, parse_messages, parse_time
from .._validation import check_utc
from ..engine import Engine, WriteEvent
from ..errors import ValidationError
from ..extraction.rules import task_hints, turn_annotations
from ..extraction.schemas import SchemaRegistry
from ..layers.buffer import (
    BufferedTurn,
    BufferIndex,
    SessionBuffer,
    message_candidates,
    message_slots,
    overflow_count,
    turn_filter,
    turn_record_id,
)
from ..layers.episodic import move_to_episodic
from ..layers.semantic import SemanticWriter
from ..layers.working import (
    TaskChanges,
    TaskState,
    apply_changes,
    apply_task_update,
    load_task,
    register_task_schema,
    save_task,
)
from ..lifecycle.consolidate import consolidate_turns, select_turns
from ..lifecycle.decay import record_access
from ..lifecycle.forget import ForgetCriteria, forget_records
from ..lifecycle.worker import BackgroundWorker
from ..records import Kind, Layer, MemoryRecord, Scope, Source, Trust, utcnow
from ..results import RecordChange, RememberResult
from ..stores import EdgeStore, RecordFilter
from ..tokens import count_tokens

__all__ = ["DEFAULT_SESSION", "WritePath"]

log = logging.getLogger("prism_memory")

DEFAULT_SESSION = "default"
_ROLE_SOURCE = {
    "user": Source.USER,
    "assistant": Source.ASSISTANT,
    "system": Source.SYSTEM,
    "tool": Source.TOOL,
}
_DT = TypeAdapter(datetime)


def _opt_id(value: Any, what: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{what} must be a non-empty string, got {value!r}")
    return value


def _session(scope: Scope) -> Scope:
    """The caller's scope with the default session filled in."""
    return Scope.of(scope.user_id, scope.agent_id, scope.session_id or DEFAULT_SESSION)


class WritePath:
    """remember / buffer / end_session / task / register_schema / consolidate / forget."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.schemas = SchemaRegistry()
        register_task_schema(self.schemas)
        self.buffers = BufferIndex()
        self.semantic = SemanticWriter(engine, self.schemas)
        self.worker: BackgroundWorker | None = (
            BackgroundWorker(on_error=engine.report_error) if engine.background else None
        )
        self._turns_since_consolidation: dict[str, int] = {}
        self._claimed: set[str] = set()  # turns a scheduled background consolidation covers
        self._claim_lock = threading.Lock()
        engine.on_write(self._on_write)

    def _on_write(self, event: WriteEvent) -> None:
        if event.reindex:  # a cleared scope or forgotten turns: rebuild from the store
            self.buffers.forget_all()

    # -- remember -------------------------------------------------------------------------
    def remember(
        self,
        messages: Any,
        scope: Scope,
        task_id: str | None,
        subgoal_id: str | None,
        event_time: datetime | str | float | None,
    ) -> RememberResult:
        """Validate the turns, then under the scope lock: buffer them with the facts the rules
        find in them, update the task, move overflowing turns on; the heavy steps after."""
        scope = _session(scope)
        task = _opt_id(task_id, "task_id")
        subgoal = _opt_id(subgoal_id, "subgoal_id")
        when = parse_time(event_time, "event_time")
        turns = self._redacted(parse_messages(messages))
        result = RememberResult()
        with self.engine.scope_lock(scope):
            state = self.buffers.session(self.engine.store, scope)
            records = self._new_turns(turns, scope, state, when, task, subgoal, result)
            if not records:
                return result
            self._write_turns(records, scope, state, result)
            if task is not None:
                self._touch_task(scope, task, subgoal, records, result)
            result.extend(self._evict(scope, force=False))
        result.extend(self._after_turns(scope, records))
        return result

    def _redacted(self, turns: list[Turn]) -> list[Turn]:
        """With PII redaction on, the turns redacted before anything (entities, speaker) is
        derived from them."""
        if not self.engine.config.safety.redact_pii:
            return turns
        from ..safety import redact  # the safety screens load on first use

        return [
            replace(t, text=redact(t.text), name=None if t.name is None else redact(t.name))
            for t in turns
        ]

    def _new_turns(
        self,
        turns: list[Turn],
        scope: Scope,
        state: SessionBuffer,
        when: datetime | None,
        task: str | None,
        subgoal: str | None,
        result: RememberResult,
    ) -> list[MemoryRecord]:
        """The turns as buffer records at the session's next indexes (a message id
        remembered before is skipped, reported in ``result``)."""
        message_ids = [t.id for t in turns if t.id is not None]
        candidates = [c for i in message_ids for c in message_candidates(scope, i)]
        stored = {r.id: r for r in self.engine.store.get(candidates, scope)}
        known, slots = message_slots(scope, message_ids, stored)
        records: list[MemoryRecord] = []
        now = utcnow()
        for turn in turns:
            rid = (
                slots[turn.id]
                if turn.id is not None
                else turn_record_id(scope, None, state.next_index)
            )
            rec = self._turn_record(turn, scope, rid, state.next_index, when or now, task, subgoal)
            if turn.id is not None and turn.id in known:
                result.skipped.append(
                    RecordChange(rec, f"message id {turn.id!r} was already remembered")
                )
                continue
            state.next_index += 1
            records.append(rec)
        return records

    def _write_turns(
        self,
        records: list[MemoryRecord],
        scope: Scope,
        state: SessionBuffer,
        result: RememberResult,
    ) -> None:
        """Screen the turns, then write them and the facts the rules extract from the clean
        ones in one embedding batch and one upsert; the session's buffer takes them in."""
        try:
            # screened (and redacted) before anything is derived from them: a quarantined
            # turn yields no fact and supersedes nothing
            self.engine.screen(records)
            clean = [r for r in records if r.provenance.trust != Trust.QUARANTINED]
            if self.engine.llm_extraction:  # durable: a process killed before the pass resumes it
                for r in clean:
                    if r.metadata.get("role") == "user":
                        r.extraction = "pending"
            semantic, shared, dense = (
                ([], {}, {})
                if self.engine.llm_extraction
                else self.semantic.prepare(clean, scope.widen(session=True), result)
            )
            written = self.engine.write_records(
                records + semantic, dense=dense, same_vector_as=shared, screen=False
            )
        except BaseException:
            state.next_index -= len(records)  # nothing was stored: the indexes are free again
            raise
        for rec in written[: len(records)]:
            if rec.provenance.trust == Trust.QUARANTINED:
                result.quarantined.append(RecordChange(rec, rec.provenance.reason or ""))
            else:
                result.added.append(RecordChange(rec, "buffered turn"))
            state.turns.append(
                BufferedTurn(rec.id, count_tokens(rec.text), int(rec.metadata["turn_index"]))
            )

    def _turn_record(
        self,
        turn: Turn,
        scope: Scope,
        record_id: str,
        index: int,
        default_time: datetime,
        task_id: str | None,
        subgoal_id: str | None,
    ) -> MemoryRecord:
        entities, importance = turn_annotations(turn.text)
        meta: dict[str, Any] = {"role": turn.role, "turn_index": index}
        if turn.name:
            meta["name"] = turn.name
        return self.engine.build_record(
            turn.text,
            scope,
            kind=Kind.OBSERVATION,
            layer=Layer.BUFFER,
            metadata=meta,
            event_time=turn.timestamp or default_time,
            task_id=task_id,
            subgoal_id=subgoal_id,
            entities=entities,
            importance=importance,
            source=_ROLE_SOURCE[turn.role],
            source_ids=[turn.id] if turn.id is not None else None,
            speaker=turn.name or turn.role,
            record_id=record_id,
        )

    def on_open(self) -> None:
        """Finish work an earlier process left undone (run once the parts are set up), when
        this engine opened the embedded store: one process per path, so nobody else is on
        those turns; a ``Memory`` joining a path open in this process leaves them to the
        first one."""
        if isinstance(self.engine.store, EdgeStore) and self.engine.opened_store:
            self.resume_extraction()

    def resume_extraction(self) -> int:
        """Extract the facts of every turn still marked ``extraction="pending"`` (on the worker
        when there is one); how many turns there were."""
        self.engine.check_open()
        flt = RecordFilter.eq("extraction", "pending")
        groups: dict[str, tuple[Scope, list[MemoryRecord]]] = {}
        cursor: str | None = None
        while True:
            found, cursor = self.engine.store.scroll_all(flt, limit=256, cursor=cursor)
            for r in found:
                wide = r.scope.widen(session=True)
                groups.setdefault(wide.key(), (wide, []))[1].append(r)
            if cursor is None:
                break
        for wide, turns in groups.values():
            if self.worker is not None:
                self.worker.submit(functools.partial(self.semantic.resume, turns, wide))
            else:
                self.semantic.resume(turns, wide)
        if groups:
            log.info(
                "resumed extraction of %d remembered turns", sum(len(t) for _, t in groups.values())
            )
        return sum(len(t) for _, t in groups.values())

    def _evict(self, scope: Scope, *, force: bool) -> RememberResult:
        """Move overflowing (or, with ``force``, all) buffered turns to the episodic layer."""
        result = RememberResult()
        state = self.buffers.session(self.engine.store, scope)
        cfg = self.engine.config.buffer
        n = (
            len(state.turns)
            if force
            else overflow_count([t.tokens for t in state.turns], cfg.max_turns, cfg.max_tokens)
        )
        if n == 0:
            return result
        moving = [state.turns[i].id for i in range(n)]
        moved = move_to_episodic(self.engine, scope, moving)
        for _ in range(n):
            state.turns.popleft()
        for rec in moved:
            result.updated.append(RecordChange(rec, "moved from the buffer to the episodic layer"))
        return result

    def _after_turns(self, scope: Scope, records: Sequence[MemoryRecord]) -> RememberResult:
        """Heavy steps after the turns are durable: LLM extraction, periodic consolidation.

        They run inline (their changes are returned) or, with ``background=True``, on the worker.
        """
        result = RememberResult()
        wide = scope.widen(session=True)
        user_turns = [
            r
            for r in records
            if r.metadata.get("role") == "user" and r.provenance.trust != Trust.QUARANTINED
        ]
        if self.engine.llm_extraction and user_turns:
            if self.worker is not None:
                self.worker.submit(lambda: self.semantic.llm_pass(user_turns, wide))
            else:
                result.extend(self.semantic.llm_pass(user_turns, wide))
        every = self.engine.config.lifecycle.consolidate_every_turns
        if every:
            count = self._turns_since_consolidation.get(wide.key(), 0) + len(records)
            self._turns_since_consolidation[wide.key()] = 0 if count >= every else count
            if count >= every:
                result.extend(self._schedule_consolidation(wide))
        return result

    def _schedule_consolidation(self, scope: Scope) -> RememberResult:
        """Consolidate now, or select the turns now and summarise them on the worker."""
        if self.worker is None:
            return self._consolidate_scope(scope)
        with self._claim_lock:
            turns = select_turns(self.engine, scope, exclude=self._claimed)
            ids = [t.id for session in turns.values() for t in session]
            self._claimed.update(ids)
        if not ids:
            return RememberResult()

        def job() -> None:
            try:
                consolidate_turns(self.engine, scope, turns)
            finally:  # the turns are marked consolidated (or the job failed): release them
                with self._claim_lock:
                    self._claimed.difference_update(ids)

        self.worker.submit(job)
        return RememberResult()

    # -- buffer and history ---------------------------------------------------------------
    def buffer(self, scope: Scope) -> list[MemoryRecord]:
        """The session's buffered turns, by turn index."""
        scope = _session(scope)
        records = list(self.engine.iter_records(scope, turn_filter(Layer.BUFFER)))
        return sorted(records, key=lambda r: int(r.metadata.get("turn_index", 0)))

    def session_turns(self, scope: Scope, limit: int | None) -> list[MemoryRecord]:
        """The session's turns, buffered and episodic, by turn index (the last ``limit``)."""
        scope = _session(scope)
        if limit is not None and (
            not isinstance(limit, int) or isinstance(limit, bool) or limit < 1
        ):
            raise ValidationError(f"limit must be a positive integer, got {limit!r}")
        records = sorted(
            self.engine.iter_records(scope, turn_filter()),
            key=lambda r: int(r.metadata.get("turn_index", 0)),
        )
        return records[-limit:] if limit is not None else records

    def flush_buffer(self, scope: Scope) -> RememberResult:
        """Move every buffered turn of the session to the episodic layer."""
        scope = _session(scope)
        with self.engine.scope_lock(scope):
            return self._evict(scope, force=True)

    def end_session(self, scope: Scope, consolidate: bool | None) -> RememberResult:
        """Flush the session's buffer, forget its index, and consolidate by policy (or as
        ``consolidate`` says)."""
        scope = _session(scope)
        with self.engine.scope_lock(scope):
            result = self._evict(scope, force=True)
        self.buffers.forget_session(scope)
        run = (
            self.engine.config.lifecycle.consolidate_on_session_end
            if consolidate is None
            else consolidate
        )
        if run:
            result.extend(self._schedule_consolidation(scope.widen(session=True)))
        return result

    # -- working memory -------------------------------------------------------------------
    def task(self, task_id: str, scope: Scope, changes: TaskChanges) -> TaskState:
        """Read the task's state (no change given) or apply ``changes`` under the scope lock."""
        tid = _opt_id(task_id, "task_id")
        if tid is None:
            raise ValidationError("task_id is required, e.g. m.task('trip-123', user_id=...)")
        scope = scope.widen(session=True)
        if changes.is_read:  # a read: never writes, not even an empty state
            return load_task(self.engine, scope, tid) or TaskState(task_id=tid)
        with self.engine.scope_lock(scope):
            current = load_task(self.engine, scope, tid)
            state = apply_changes(current or TaskState(task_id=tid), changes)
            if state != current:
                self._save_task(scope, state, RememberResult())
            return state

    def _touch_task(
        self,
        scope: Scope,
        task_id: str,
        subgoal_id: str | None,
        records: Sequence[MemoryRecord],
        result: RememberResult,
    ) -> None:
        wide = scope.widen(session=True)
        current = load_task(self.engine, wide, task_id)
        user_texts = [r.text for r in records if r.metadata.get("role") == "user"]
        hints = task_hints(user_texts)
        state = apply_task_update(
            current or TaskState(task_id=task_id),
            goal=(user_texts[0] if user_texts else None)
            if current is None or not current.goal
            else None,
            subgoal_id=subgoal_id,
            entities=[e.name for r in records for e in r.entities] or None,
            constraints=hints.constraints or None,
            decisions=hints.decisions or None,
        )
        if state != current:
            self._save_task(wide, state, result)

    def _save_task(self, scope: Scope, state: TaskState, result: RememberResult) -> None:
        save_task(self.engine, self.schemas.get("TaskState"), scope, state, result)

    # -- lifecycle --------------------------------------------------------------------------
    def consolidate(self, scope: Scope, reflect: bool | None) -> RememberResult:
        """Consolidate the scope's episodic turns (every session of the user / agent) now."""
        scope = scope.widen(session=True)
        return self._consolidate_scope(scope, reflect=reflect)

    def _consolidate_scope(self, scope: Scope, reflect: bool | None = None) -> RememberResult:
        with self._claim_lock:  # turns a scheduled background run covers are left to it
            turns = select_turns(self.engine, scope, exclude=self._claimed)
        return consolidate_turns(self.engine, scope, turns, reflect=reflect)

    def forget(self, scope: Scope, criteria: ForgetCriteria) -> int:
        """Archive or delete the scope's records matching ``criteria`` under the scope lock."""
        with self.engine.scope_lock(scope):
            return forget_records(self.engine, scope, criteria)

    def touch(
        self, records: Sequence[str | MemoryRecord], scope: Scope, now: datetime | None
    ) -> int:
        """Record an access of the records (or ids) of the scope (every session of the user /
        agent) for decay; how many."""
        scope = scope.widen(session=True)
        if not isinstance(records, (list, tuple, set)) or not all(
            isinstance(i, (str, MemoryRecord)) for i in records
        ):
            raise ValidationError(
                f"records must be a list of records or id strings, got "
                f"{type(records).__name__}; pass e.g. ctx.records or [record.id]"
            )
        if now is not None and not isinstance(now, datetime):
            raise ValidationError(f"now must be a datetime, got {type(now).__name__}")
        when = None if now is None else check_utc(now, "now")  # naive = UTC
        return record_access(self.engine, scope, list(records), now=when)

    def join(self, timeout: float | None = None) -> None:
        """Wait for background steps (extraction, consolidation)."""
        if self.worker is not None:
            self.worker.join(timeout)

    def close(self) -> None:
        """Stop the background worker (what it was running is finished first)."""
        if self.worker is not None and not self.engine.closed:
            self.worker.stop()
