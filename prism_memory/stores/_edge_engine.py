"""The embedded engine (``qdrant-edge-py``) as ``EdgeStore`` speaks to it: import, errors,
filters.

Design:
- The engine is imported on first use (:func:`qdrant_edge`), never at import time.
- Its failures are translated once (:func:`engine_error`, applied to every public call by
  :func:`engine_call`): a Rust panic or an engine runtime error becomes :class:`StoreError`
  with what to do; anything else passes unchanged.
- PRISM's filters (a ``Scope`` and ``RecordFilter`` conditions) become the engine's ``Filter``
  in one pure translation (:func:`edge_filter`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast

from ..errors import PrismError, StoreError
from ..records import Scope
from .base import DATETIME_FIELDS, DATETIME_INDEXES
from .filters import Condition, RecordFilter

__all__ = ["edge_filter", "engine_call", "engine_error", "qdrant_edge"]


def qdrant_edge() -> Any:
    """The engine's module, imported on first use."""
    import qdrant_edge as q

    return q


def engine_error(exc: BaseException, path: Path) -> StoreError | None:
    """The :class:`StoreError` for an exception the engine raised, or ``None`` (re-raise it).

    Two kinds are translated: a Rust panic (``pyo3_runtime.PanicException``, a
    ``BaseException`` that ``except Exception`` would miss) and the engine's own runtime
    errors (``Exception: Service runtime error: ...``), which on a read mean the files are
    damaged. Anything else (a ``TypeError`` from an argument PRISM should have refused,
    ``KeyboardInterrupt``) passes unchanged.

    Example::

        engine_error(RuntimeError("boom"), Path("./.prism"))   # None: not the engine's
    """
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
    if type(exc).__name__ == "PanicException":
        return StoreError(
            f"the embedded engine (qdrant-edge) panicked on the store at {path}: {first}. The "
            "call was not carried out; if later calls fail too, close the Memory and open it "
            "again. Please report the call that caused it"
        )
    if not isinstance(exc, Exception) or "Service runtime error" not in first:
        return None
    if any(w in first.lower() for w in ("decode", "decompress", "deserializ", "corrupt")):
        return StoreError(
            f"the memory store at {path} is damaged and a record could not be read ({first}). "
            "Its files were changed or cut short outside PRISM (a disk fault, a copy taken "
            f"while it was open, an edit): restore {path} from a backup"
        )
    return StoreError(f"the embedded engine failed on the store at {path}: {first}")


class _HasPath(Protocol):
    path: Path


_F = TypeVar("_F", bound=Callable[..., Any])


def engine_call(fn: _F) -> _F:
    """Turn the engine's panics and runtime errors in the method ``fn`` (of an object with a
    ``path``) into :class:`StoreError`."""

    @functools.wraps(fn)
    def wrapper(self: _HasPath, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(self, *args, **kwargs)
        except PrismError:
            raise
        except BaseException as exc:
            err = engine_error(exc, self.path)
            if err is None:
                raise
            raise err from exc

    return cast(_F, wrapper)


def _condition(c: Condition) -> Any:
    q = qdrant_edge()
    if c.key == "id":
        ids = c.value if c.op == "any" else [c.value]
        return q.HasIdCondition(point_ids={str(i) for i in ids})
    if c.op == "eq":
        return q.FieldCondition(key=c.key, match=q.MatchValue(c.value))
    if c.op == "any":
        return q.FieldCondition(key=c.key, match=q.MatchAny(list(c.value)))
    if c.op == "empty":
        return q.IsEmptyCondition(key=c.key)
    if c.op == "range":
        if c.key in DATETIME_INDEXES or c.key in DATETIME_FIELDS:
            return q.FieldCondition(key=c.key, range=q.RangeDateTime(**c.value))
        return q.FieldCondition(key=c.key, range=q.RangeFloat(**c.value))
    raise StoreError(f"unsupported filter operation {c.op!r}")


def _scope_conditions(scope: Scope) -> list[Any]:
    q = qdrant_edge()
    return [q.FieldCondition(key=k, match=q.MatchValue(v)) for k, v in scope.as_dict().items()]


def edge_filter(
    scope: Scope | None, flt: RecordFilter | None = None, extra: RecordFilter | None = None
) -> Any:
    """The engine's ``Filter`` for ``scope`` (every field of it must match) and the conditions
    of ``flt`` and ``extra``."""
    q = qdrant_edge()
    must = _scope_conditions(scope) if scope is not None else []
    must_not: list[Any] = []
    for f in (flt, extra):
        if f is not None:
            must += [_condition(c) for c in f.must]
            must_not += [_condition(c) for c in f.must_not]
    return q.Filter(must=must, must_not=must_not or None)
