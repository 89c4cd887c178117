"""``VersionAPI``: the versions of a memory — history, restore, and a new version on change.

Design:
- A lineage is read by following the links every change leaves (see ``versions.py``):
  ``supersedes`` relations backward, ``superseded_by`` / ``contradicts`` forward, a few
  ``get`` calls by id (breadth first, at most :data:`MAX_STATES` states); it is ordered by
  when each state took effect and handed to :func:`~prism_memory.versions.build_history`.
- :func:`new_version` is the one way a record changes its content in place: the current
  state is copied (with its vectors, not re-embedded) to ``<id>#v<n>``, closed and linked to
  its successor, and the record keeps its id with the new content, ``version`` n + 1 and a
  ``change`` note. ``Memory.update`` and ``Memory.restore`` use it.
- It holds the :class:`~prism_memory.engine.Engine` only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .engine import Engine
from .errors import NotFoundError, ValidationError
from .records import MemoryRecord, Relation, Scope, Status, make_record_id, utcnow
from .versions import MemoryVersion, VersionEvent, build_history, change_note

__all__ = ["MAX_STATES", "VersionAPI", "new_version", "version_ids", "version_of"]

MAX_STATES = 64


def version_of(record: MemoryRecord) -> int:
    """The version number of a record's current state (1 for its first content)."""
    value = record.metadata.get("version")
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 1


def version_ids(record: MemoryRecord) -> list[str]:
    """The ids of the earlier versions kept for a record (``<id>#v1`` .. ``#v<n-1>``)."""
    return [
        make_record_id(record.scope, record.layer, f"{record.id}#v{k}")
        for k in range(1, version_of(record))
    ]


def new_version(
    engine: Engine,
    current: MemoryRecord,
    change: Callable[[MemoryRecord], None],
    *,
    event: VersionEvent,
    reason: str,
    source: str | None = None,
) -> MemoryRecord:
    """Keep ``current`` as a version, apply ``change`` to a copy and write it under the same id.

    The caller holds the scope lock. Returns the new current state.
    """
    scope = current.scope
    now = utcnow()
    n = version_of(current)
    old = current.model_copy(deep=True)
    old.id = make_record_id(scope, current.layer, f"{current.id}#v{n}")
    old.status = Status.SUPERSEDED
    old.valid_to = max(now, old.valid_from or now)
    old.updated_at = now
    old.relations = [*old.relations, Relation(type="contradicts", target_id=current.id)]
    old.metadata = {**old.metadata, "superseded_by": current.id}
    dense = engine.store.get_vectors([current.id], scope).get(current.id)
    # the successor's write announces both
    engine.rewrite([old], dense=None if dense is None else {old.id: dense}, announce=False)
    new = current.model_copy(deep=True)
    change(new)
    new.metadata = {
        **new.metadata,
        "version": n + 1,
        "change": change_note(event, reason, source),
    }
    new.valid_from = now
    new.valid_to = None
    new.status = Status.ACTIVE
    new.updated_at = now
    new.relations = [
        *[r for r in new.relations if r.type not in ("supersedes", "contradicts")],
        Relation(type="supersedes", target_id=old.id),
    ]
    if new.text == current.text and dense is not None:
        engine.rewrite([new], dense={new.id: dense})
        return new
    return engine.write_records([new], screen=new.text != current.text)[0]


def _links(record: MemoryRecord) -> list[str]:
    out = [r.target_id for r in record.relations if r.type in ("supersedes", "contradicts")]
    successor = record.metadata.get("superseded_by")
    if isinstance(successor, str):
        out.append(successor)
    return out


class VersionAPI:
    """history / restore over an engine (see the module docstring)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def lineage(self, memory_id: str, scope: Scope) -> list[MemoryRecord]:
        """Every state linked to ``memory_id`` by a change, ordered by when it took effect."""
        first = self.engine.store.get([str(memory_id)], scope)
        if not first:
            raise NotFoundError(
                f"no memory {memory_id!r} in this scope; pass the id a write returned "
                "(m.list(..., include_history=True) lists every state) and the same "
                "user_id / agent_id it was written with"
            )
        seen: dict[str, MemoryRecord] = {first[0].id: first[0]}
        todo = [*_links(first[0]), *version_ids(first[0])]
        while todo and len(seen) < MAX_STATES:
            ids = [i for i in dict.fromkeys(todo) if i not in seen][: MAX_STATES - len(seen)]
            todo = []
            for record in self.engine.store.get(ids, scope) if ids else []:
                if record.id in seen:
                    continue
                seen[record.id] = record
                todo += _links(record)
        return sorted(
            seen.values(),
            key=lambda r: (r.valid_from or r.created_at, r.valid_to is None, version_of(r)),
        )

    def history(self, memory_id: str, scope: Scope) -> list[MemoryVersion]:
        """The events of the memory's lineage, oldest first."""
        self.engine.check_open()
        return build_history(str(memory_id), self.lineage(memory_id, scope))

    def restore(
        self, memory_id: str, version: int, scope: Scope, reason: str | None = None
    ) -> MemoryRecord:
        """Make version ``version`` of the memory's history its current state again."""
        self.engine.check_open()
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise ValidationError(f"version must be a positive integer, got {version!r}")
        with self.engine.scope_lock(scope):
            states = self.lineage(memory_id, scope)
            if version > len(states):
                raise ValidationError(
                    f"memory {memory_id!r} has {len(states)} version(s); pass a version "
                    f"between 1 and {len(states)} (see m.history({memory_id!r}, ...))"
                )
            chosen = states[version - 1]
            current = [s for s in states if s.status == Status.ACTIVE and s.valid_to is None]
            head = current[-1] if current else states[-1]
            if chosen.id == head.id and head.status == Status.ACTIVE:
                return head

            def apply(r: MemoryRecord) -> None:
                r.text = chosen.text
                r.fields = dict(chosen.fields)
                if chosen.schema_name is not None:
                    r.schema_name = chosen.schema_name
                r.kind = chosen.kind

            restored = new_version(
                self.engine,
                head,
                apply,
                event="restored",
                reason=reason or f"restored version {version}",
            )
            for other in current[:-1]:  # another current state of the same lineage closes
                self._close(other, restored)
            return restored

    def _close(self, old: MemoryRecord, by: MemoryRecord) -> None:
        now = utcnow()
        payload: dict[str, Any] = {
            "status": Status.SUPERSEDED.value,
            "valid_to": max(now, old.valid_from or now).isoformat(),
            "metadata": {**old.metadata, "superseded_by": by.id},
            "updated_at": now.isoformat(),
        }
        # after the restored state's write: announced itself, so readers drop the closed state
        self.engine.update([old.id], old.scope, payload)
