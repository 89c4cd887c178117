"""``TransferAPI``: JSONL export and import of a :class:`~prism_memory.Memory`.

Exports hold the records' JSON (no vectors); imports validate every line first and re-embed,
so an export moves between engines and embedders. A bad line names its number and, unless
``skip_bad=True``, nothing is imported.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError as PydanticValidationError

from ._engine import Engine
from ._validation import check_record, check_text
from .errors import ImportDataError, PrismError, ValidationError, pydantic_reason
from .records import MemoryRecord, Scope, is_record_id

__all__ = ["ImportReport", "TransferAPI"]


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

    def export_jsonl(
        self,
        path: str | os.PathLike[str],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        all_scopes: bool = False,
    ) -> int:
        """Write records (one JSON object a line, vectors not included) and return how many."""
        self.engine.check_open()
        if all_scopes:
            if any(v is not None for v in (user_id, agent_id, session_id)):
                raise ValidationError("pass either a scope or all_scopes=True, not both")
            pages: Iterator[MemoryRecord] = self.engine.iter_all()
        else:
            pages = self.engine.iter_records(Scope.of(user_id, agent_id, session_id))
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
                for record in pages:
                    fh.write(
                        json.dumps(
                            record.model_dump(mode="json", by_alias=True), ensure_ascii=False
                        )
                    )
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

    def import_jsonl(
        self,
        path: str | os.PathLike[str],
        *,
        skip_bad: bool = False,
        batch_size: int = 256,
        progress: Callable[[int], None] | None = None,
    ) -> ImportReport:
        """Read an export and write its records (re-embedded) with their ids and scopes."""
        self.engine.check_open()
        report = ImportReport()
        records: list[MemoryRecord] = []
        try:
            fh = open(path, "rb")
        except OSError as exc:
            raise ValidationError(f"cannot read {path}: {exc.strerror}") from None
        with fh:
            for lineno, raw in enumerate(fh, start=1):
                try:
                    line = raw.decode("utf-8")
                    if not line.strip():
                        continue
                    record = _parse_line(line)
                except (ValueError, RecursionError, PrismError) as exc:
                    msg = f"line {lineno}: {_reason(exc)}"
                    if not skip_bad:
                        raise ImportDataError(
                            f"{path}: {msg}. Nothing was imported; fix the line or pass "
                            "skip_bad=True (--skip-bad) to import the other lines"
                        ) from None
                    report.skipped += 1
                    report.errors.append(msg)
                    continue
                records.append(record)
        for start in range(0, len(records), batch_size):
            chunk = records[start : start + batch_size]
            self.engine.write_records(chunk)
            report.imported += len(chunk)
            if progress is not None:
                progress(len(chunk))
        return report


def _parse_line(line: str) -> MemoryRecord:
    """One export line as a record, checked for everything the engine checks on write (so an
    import that starts writing does not stop half-way)."""
    data = json.loads(line)
    if not isinstance(data, dict):
        raise ValueError("a line must hold a JSON object")
    if data.get("id") not in (None, "") and not is_record_id(data["id"]):
        raise ValidationError(
            f"id {str(data['id'])[:60]!r} is not a UUID; ids are UUID strings as export_jsonl "
            "writes them (drop the id to have one derived from the text)"
        )
    record = MemoryRecord.model_validate(data)
    record.scope  # noqa: B018 - raises when the line has no scope
    check_text(record.text)
    return check_record(record, "the record")


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
