"""``TransferAPI``: JSONL export and import of a :class:`~prism_memory.Memory`.

Design:
- One line per record: the record's JSON plus, by default, its dense vector under
  ``"_embedding"`` (``{"model", "dim", "f32"}``: base64 of little-endian float32). Importing
  with the same embedding model (name and dimension) reuses the vectors, so an import is a
  batched store write (embedding dominated the time: ~100-160 records/s on two cores); another
  model, ``reembed=True``, PII redaction on, or a line without a vector re-embeds the text, so
  an export still moves between engines and embedders.
- Imports validate every line first (the vector too); a bad line names its number and, unless
  ``skip_bad=True``, nothing is imported. Writes go in batches (``batch_size``), screened like
  any write, and ``progress`` is called after each batch.
- A line is a claim, not a fact. Its id may not name a record of another scope (stored, or
  written by an earlier line): ids are predictable (uuid5 of scope and content), so a line
  that could replace another tenant's record is refused like any bad line. Its provenance
  is screened like any outside write: ``"source": "derived"`` (which the engine's own
  derivations never pass through here) is read as outside content, and ``"trust"`` can only
  be escalated to ``quarantined``, never asserted as ``trusted``.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import json
import math
import os
import struct
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import ValidationError as PydanticValidationError

from ._pydantic_errors import pydantic_reason
from ._validation import check_record, check_text
from .engine import Engine
from .errors import ImportDataError, PrismError, ValidationError
from .records import MemoryRecord, Scope, Source, Trust, is_record_id

__all__ = ["ImportReport", "TransferAPI", "line_scopes"]


@dataclass
class ImportReport:
    """What ``import_jsonl`` did: records written and lines skipped (with line numbers)."""

    imported: int = 0
    skipped: int = 0
    errors: list[str] = field(default_factory=list)


class TransferAPI:
    """export_jsonl / import_jsonl, over an engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def export_jsonl(self, path: str | os.PathLike[str], scope: Scope | None, vectors: bool) -> int:
        """Write the scope's records (``None``: every tenant's) to ``path``, one JSON object a
        line, through a temporary file; how many."""
        pages: Iterator[MemoryRecord] = (
            self.engine.iter_all() if scope is None else self.engine.iter_records(scope)
        )
        target = Path(path)
        if not target.parent.is_dir():
            raise ValidationError(
                f"cannot export to {target}: the directory {target.parent} does not exist; "
                "create it first or pick another path"
            )
        tmp = target.with_name(target.name + ".tmp")
        n = 0
        try:
            with open(tmp, "w", encoding="utf-8") as fh:
                while page := list(itertools.islice(pages, 256)):
                    found = self._vectors_of(page) if vectors else {}
                    for record in page:
                        data: dict[str, Any] = record.model_dump(mode="json", by_alias=True)
                        vector = found.get(record.id)
                        if vector is not None:
                            data[_VECTOR_KEY] = self._encode_vector(vector)
                        fh.write(json.dumps(data, ensure_ascii=False))
                        fh.write("\n")
                        n += 1
            os.replace(tmp, target)
        except BaseException as exc:
            tmp.unlink(missing_ok=True)  # no half-written file is left behind
            if isinstance(exc, OSError):
                raise ValidationError(
                    f"cannot export to {target}: {exc.strerror or exc}; pick a path this "
                    "process can write to"
                ) from None
            raise
        return n

    def _vectors_of(self, records: Sequence[MemoryRecord]) -> dict[str, list[float]]:
        """The stored dense vectors of ``records`` (one store read per scope among them)."""
        by_scope: dict[Any, list[MemoryRecord]] = {}
        for record in records:
            by_scope.setdefault(record.scope.key(), []).append(record)
        out: dict[str, list[float]] = {}
        for group in by_scope.values():
            out.update(self.engine.store.get_vectors([r.id for r in group], group[0].scope))
        return out

    def _encode_vector(self, vector: Sequence[float]) -> dict[str, Any]:
        packed = struct.pack(f"<{len(vector)}f", *vector)
        return {
            "model": self.engine.embedder.name,
            "dim": len(vector),
            "f32": base64.b64encode(packed).decode("ascii"),
        }

    def import_jsonl(
        self,
        path: str | os.PathLike[str],
        skip_bad: bool,
        batch_size: int,
        progress: Callable[[int], None] | None,
        reembed: bool,
    ) -> ImportReport:
        """Validate every line of an export, then write its records in batches with their ids,
        scopes and (when the model matches) vectors."""
        self.engine.check_open()
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
            raise ValidationError(f"batch_size must be a positive integer, got {batch_size!r}")
        report = ImportReport()
        records: list[MemoryRecord] = []
        dense: dict[str, list[float]] = {}
        reuse = not reembed and not self.engine.config.safety.redact_pii
        model, dim = self.engine.embedder.name, self.engine.store.dim
        try:
            fh = open(path, "rb")
        except OSError as exc:
            raise ValidationError(f"cannot read {path}: {exc.strerror}") from None

        def refuse(lineno: int, reason: str) -> None:
            msg = f"line {lineno}: {reason}"
            if not skip_bad:
                raise ImportDataError(
                    f"{path}: {msg}. Nothing was imported; fix the line or pass "
                    "skip_bad=True (--skip-bad) to import the other lines"
                ) from None
            report.skipped += 1
            report.errors.append(msg)

        parsed: list[tuple[int, MemoryRecord, tuple[str, list[float]] | None]] = []
        with fh:
            for lineno, line in _lines(fh):
                try:
                    if isinstance(line, UnicodeDecodeError):
                        raise line
                    if not line.strip():
                        continue
                    record, vector = _parse_line(line)
                except (ValueError, RecursionError, PrismError) as exc:
                    refuse(lineno, _reason(exc))
                    continue
                parsed.append((lineno, record, vector))
        for _lineno, record, vector in self._own_scope_only(parsed, refuse):
            records.append(record)
            if reuse and vector is not None and vector[0] == model and len(vector[1]) == dim:
                dense[record.id] = vector[1]
        for start in range(0, len(records), batch_size):
            chunk = records[start : start + batch_size]
            self.engine.write_records(
                chunk, dense={r.id: dense[r.id] for r in chunk if r.id in dense}
            )
            report.imported += len(chunk)
            if progress is not None:
                progress(len(chunk))
        return report

    def _own_scope_only(
        self,
        parsed: list[tuple[int, MemoryRecord, tuple[str, list[float]] | None]],
        refuse: Callable[[int, str], None],
    ) -> list[tuple[int, MemoryRecord, tuple[str, list[float]] | None]]:
        """The parsed lines that write only in their own scope; ``refuse`` the others: a line
        whose id names a stored record of another scope, or a record of another scope an
        earlier line of the file wrote. (Ids are predictable, so an id is a claim too.)"""
        first: dict[str, str] = {}
        kept: list[tuple[int, MemoryRecord, tuple[str, list[float]] | None]] = []
        for lineno, record, vector in parsed:
            key = record.scope.key()
            if first.setdefault(record.id, key) != key:
                refuse(lineno, _FOREIGN_ID.format(id=record.id, whose="an earlier line"))
                continue
            kept.append((lineno, record, vector))
        taken = self.engine.foreign_ids([r for _, r, _ in kept])
        out = []
        for lineno, record, vector in kept:
            if record.id in taken:
                refuse(lineno, _FOREIGN_ID.format(id=record.id, whose="a stored record"))
                continue
            out.append((lineno, record, vector))
        return out


_FOREIGN_ID = (
    "id {id} is the id of {whose} of another scope; a line may only write in its own scope "
    "(drop the id to have one derived from the line's scope and text)"
)
_VECTOR_KEY = "_embedding"


def line_scopes(path: str | os.PathLike[str]) -> Iterator[tuple[int, Scope]]:
    """``(line number, scope)`` of each line of an export that :meth:`TransferAPI.import_jsonl`
    would write, read exactly as the import reads it (the same line breaks, the same parse);
    lines the import would refuse are left out. The service checks them against a key."""
    with open(path, "rb") as fh:
        for lineno, line in _lines(fh):
            if isinstance(line, UnicodeDecodeError) or not line.strip():
                continue
            try:
                record, _ = _parse_line(line)
            except (ValueError, RecursionError, PrismError):
                continue  # the import reports it with its number
            yield lineno, record.scope


def _lines(fh: BinaryIO) -> Iterator[tuple[int, str | UnicodeDecodeError]]:
    """``(line number, text)`` with universal newlines (``\n``, ``\r\n``, ``\r``), as a text
    editor and ``open()`` count them; a line that is not UTF-8 comes as its decode error."""
    lineno = 0
    for raw in fh:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            lineno += 1
            yield lineno, exc
            continue
        body = text[:-1] if text.endswith("\n") else text
        body = body[:-1] if body.endswith("\r") else body
        for part in body.split("\r"):
            lineno += 1
            yield lineno, part


def _parse_vector(spec: Any) -> tuple[str, list[float]]:
    """``(model, vector)`` of a line's ``"_embedding"``; ValueError when it is malformed."""
    how = 'expected {"model": name, "dim": n, "f32": base64 float32}; drop it to re-embed'
    if not isinstance(spec, dict) or set(spec) != {"model", "dim", "f32"}:
        raise ValueError(f"_embedding: {how}")
    model, dim, f32 = spec["model"], spec["dim"], spec["f32"]
    if not isinstance(model, str) or not isinstance(f32, str):
        raise ValueError(f"_embedding: {how}")
    if not isinstance(dim, int) or isinstance(dim, bool) or not 0 < dim <= 65536:
        raise ValueError(f"_embedding: dim must be a positive integer, got {dim!r}")
    try:
        raw = base64.b64decode(f32, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(f"_embedding: f32 is not base64; {how}") from None
    if len(raw) != 4 * dim:
        raise ValueError(f"_embedding: {len(raw)} bytes for dim {dim} (needs {4 * dim})")
    vector = list(struct.unpack(f"<{dim}f", raw))
    if not all(math.isfinite(x) for x in vector):
        raise ValueError("_embedding: the vector holds NaN or infinity; drop it to re-embed")
    return model, vector


def _parse_line(line: str) -> tuple[MemoryRecord, tuple[str, list[float]] | None]:
    """One export line as a record (and its exported vector, if any), checked for everything
    the engine checks on write (so an import that starts writing does not stop half-way)."""
    data = json.loads(line)
    if not isinstance(data, dict):
        raise ValueError("a line must hold a JSON object")
    vector = _parse_vector(data.pop(_VECTOR_KEY)) if _VECTOR_KEY in data else None
    if data.get("id") not in (None, "") and not is_record_id(data["id"]):
        raise ValidationError(
            f"id {str(data['id'])[:60]!r} is not a UUID; ids are UUID strings as export_jsonl "
            "writes them (drop the id to have one derived from the text)"
        )
    record = MemoryRecord.model_validate(data)
    record.scope  # noqa: B018 - raises when the line has no scope
    prov = record.provenance
    if prov.trust != Trust.QUARANTINED:  # a claimed trust is re-derived from the source
        prov.trust = (
            Trust.TRUSTED if prov.source in (Source.USER, Source.SYSTEM) else Trust.UNTRUSTED
        )
    check_text(record.text)
    return check_record(record, "the record"), vector


def _reason(exc: BaseException) -> str:
    """One line on why a line was refused."""
    if isinstance(exc, UnicodeDecodeError):
        return (
            f"not valid UTF-8 (byte 0x{exc.object[exc.start]:02x} at byte {exc.start}); "
            "re-encode the file as UTF-8"
        )
    if isinstance(exc, RecursionError):
        return "JSON nested too deeply to read"
    if isinstance(exc, PydanticValidationError):
        return pydantic_reason(exc)[:200]
    return str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
