"""``prism bench extraction FILE``: what ``remember`` extracts, scored on labelled cases.

Design:
- A case (one JSON object per line) is a few turns (``speaker``, ``role``, ``text``, ``time``)
  and what a correct extractor writes: ``expect`` items (``type``, ``about``: ``user`` or a
  person's name, ``must``: value words, ``"a|b"`` for alternatives, ``date``) and ``stale``
  values a later turn replaced. ``kind`` (single, negative, third_party, update, temporal) and
  ``lang`` group the figures.
- Protocol: one fresh store per case (a temporary directory, the embedded engine); each turn is
  remembered in its own session at its own time, with its role and speaker name, then the
  session is ended. The extracted memories read back are the semantic layer's records except
  session digests (``summary``, ``reflection``) plus every ``event`` record (extracted events
  live in the episodic layer); turn records never count.
- Matching: an expected item is found when one *current* record contains all its value words
  (case-insensitive, hyphens as spaces, thousands separators ignored, a number never inside a
  longer one), its date when one is expected (the record's ``event_time`` in the turn's time
  zone, or an ISO date in its fields) and, when the record names whose it is (a preference's
  holder, a fact's subject or attribute, a person's name, an event's actor or participants),
  the right person. *Strict* (the headline) reads the record's text without a parenthesised
  verbatim quote of a turn and its fields without ``reasons``/``evidence``; *loose* reads
  everything.
- Reported: recall per kind, language and type (strict and loose), the precision proxy (current
  records that hold an expected item's words, over all current records; every record of a
  negative case counts against it), negative cases with any record, stale values retired (and
  how many were extracted then superseded, visible with ``include_history``), update cases fully
  right, date accuracy, the time spent extracting per user turn (``extract`` alone and the whole
  semantic step: extraction, store lookups, reconciliation) next to the time of ``remember``,
  and the misses and false positives. Writes ``extraction.json`` + ``extraction.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any

from prism_memory.records import MemoryRecord

from ._extraction_report import markdown

__all__ = ["add_arguments", "load_cases", "run", "score_cases"]

DIGESTS = frozenset({"summary", "reflection"})
EVIDENCE_FIELDS = frozenset({"reasons", "evidence"})
WHO_FIELD = {"Preference": "holder", "Fact": "subject", "Person": "name", "Event": "actor"}
ALSO_WHO = {"Fact": ("attribute",), "Event": ("participants",)}
SELF_NAMES = frozenset({"user", "the user", "i", "me", "myself", "self", "speaker", "我"})
_ISO_DAY = re.compile(r"\b(\d{4}-\d{2}-\d{2})")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


# -- matching -------------------------------------------------------------------------
def normalise(text: str) -> str:
    """Lower case, one apostrophe, hyphens as spaces, ``1,350`` as ``1350``, single spaces."""
    text = text.lower().replace("\u2019", "'").replace("-", " ")
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)
    return re.sub(r"\s+", " ", text)


def _values(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, dict):
        return [x for v in value.values() for x in _values(v)]
    if isinstance(value, (list, tuple, set)):
        return [x for v in value for x in _values(v)]
    if isinstance(value, float) and value.is_integer():
        return [str(int(value)), str(value)]
    return [str(value)]


def contains_word(haystack: str, word: str) -> bool:
    word = normalise(word).strip()
    if _NUMBER.fullmatch(word):
        return re.search(rf"(?<![\d.]){re.escape(word)}(?!\d)", haystack) is not None
    return word in haystack


def contains_all(haystack: str, must: Sequence[str]) -> bool:
    """Every ``must`` entry (``"a|b"``: either) occurs in ``haystack``."""
    return all(any(contains_word(haystack, alt) for alt in m.split("|")) for m in must)


def without_quotes(text: str, turns: Sequence[str]) -> str:
    """``text`` without parenthesised verbatim pieces of a turn (4+ words or 6+ CJK chars)."""
    said = [normalise(t) for t in turns]

    def drop(m: re.Match[str]) -> str:
        inner = normalise(m.group(1)).strip()
        long = len(inner.split()) >= 4 or len(re.findall(r"[\u4e00-\u9fff]", inner)) >= 6
        return " " if long and any(inner in t for t in said) else m.group(0)

    return re.sub(r"[(（]([^()（）]*)[)）]", drop, text)


class Extracted:
    """One record read back, with what the scorer matches against."""

    def __init__(self, record: MemoryRecord, turns: Sequence[str], zone: tzinfo | None) -> None:
        self.record = record
        self.kind = record.kind.value
        self.layer = record.layer.value
        self.current = record.valid_to is None and record.status.value not in (
            "superseded",
            "archived",
        )
        fields = record.fields or {}
        shown = {k: v for k, v in fields.items() if k not in EVIDENCE_FIELDS}
        self.loose = normalise(" ".join([record.text, *_values(fields)]))
        self.strict = normalise(" ".join([without_quotes(record.text, turns), *_values(shown)]))
        self.days = set(_ISO_DAY.findall(" ".join(_values(shown))))
        if record.event_time is not None:
            when = record.event_time
            if zone is not None:
                when = when.astimezone(zone)
            self.days.add(when.date().isoformat())
        who_field = WHO_FIELD.get(record.schema_name or "")
        self.owner: str | None = None
        self.names: str | None = None
        if who_field is not None:
            self.owner = " ".join(_values(fields.get(who_field))).strip().lower()
            names = [fields.get(who_field)] + [
                fields.get(k) for k in ALSO_WHO.get(record.schema_name or "", ())
            ]
            self.names = normalise(" ".join(x for v in names for x in _values(v)))

    def about(self, who: str, selves: AbstractSet[str]) -> bool | None:
        """Whether the record is about ``who``; ``None`` when it names nobody."""
        if self.owner is None:
            return None
        if who == "user":
            return self.owner == "" or self.owner in selves
        return normalise(who) in (self.names or "")

    def brief(self) -> dict[str, Any]:
        r = self.record
        return {
            "kind": self.kind,
            "layer": self.layer,
            "schema": r.schema_name,
            "text": r.text,
            "fields": {k: v for k, v in (r.fields or {}).items() if k not in EVIDENCE_FIELDS},
            "event_time": r.event_time.isoformat() if r.event_time else None,
            "current": self.current,
        }


def judge(
    item: dict[str, Any], records: Sequence[Extracted], selves: AbstractSet[str], strict: bool
) -> tuple[bool, str, bool | None]:
    """``(found, why not, whether a subject field was checked)`` for one expected item."""
    current = [r for r in records if r.current]

    def hay(r: Extracted) -> str:
        return r.strict if strict else r.loose

    worded = [r for r in current if contains_all(hay(r), item["must"])]
    if not worded:
        if strict and any(contains_all(r.loose, item["must"]) for r in current):
            return False, "words only in a verbatim quote / evidence field", None
        if any(contains_all(hay(r), item["must"]) for r in records):
            return False, "words only in a superseded record", None
        return False, "no current record with the words", None
    dated = [r for r in worded if not item.get("date") or item["date"] in r.days]
    if not dated:
        days = sorted({d for r in worded for d in r.days})
        return False, f"words found, wrong date (record dates {days})", None
    for r in dated:
        ok = r.about(item.get("about") or "user", selves)
        if ok is not False:
            return True, "", ok is not None
    owners = sorted({r.owner for r in dated if r.owner is not None})
    return False, f"words found, attributed to {owners}", None


# -- running a case -------------------------------------------------------------------
class _Timer:
    """Wall time and this thread's CPU time spent in a function (the CPU time does not grow
    when other work shares the machine)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.cpu_seconds = 0.0
        self.calls = 0

    def wrap(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start, cpu = time.perf_counter(), time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start
                self.cpu_seconds += time.thread_time() - cpu
                self.calls += 1

        return timed


@contextmanager
def _timed_extraction(extract_timer: _Timer, step_timer: _Timer) -> Iterator[None]:
    """Time the rule extractor and the whole semantic step of ``remember``."""
    from prism_memory.layers import semantic

    original_extract = getattr(semantic, "extract")  # noqa: B009 (the module's own binding)
    original_prepare = semantic.SemanticWriter.prepare
    setattr(semantic, "extract", extract_timer.wrap(original_extract))  # noqa: B010
    setattr(semantic.SemanticWriter, "prepare", step_timer.wrap(original_prepare))  # noqa: B010
    try:
        yield
    finally:
        setattr(semantic, "extract", original_extract)  # noqa: B010
        setattr(semantic.SemanticWriter, "prepare", original_prepare)  # noqa: B010


def run_case(
    case: dict[str, Any], make_memory: Callable[[str], Any]
) -> tuple[list[Extracted], float]:
    """Records extracted from one case (fresh store) and the seconds spent in ``remember``."""
    tmp = tempfile.mkdtemp(prefix="prism-extraction-")
    user = "bench-user"
    said = [t["text"] for t in case["turns"]]
    zone = datetime.fromisoformat(case["turns"][-1]["time"]).tzinfo
    remember_seconds = 0.0
    try:
        memory = make_memory(tmp)
        try:
            for i, turn in enumerate(case["turns"]):
                session = f"{case['id']}-s{i}"
                message = {"role": turn["role"], "content": turn["text"]}
                if turn.get("speaker"):
                    message["name"] = turn["speaker"]
                start = time.perf_counter()
                memory.remember(
                    [message], user_id=user, session_id=session, event_time=turn["time"]
                )
                remember_seconds += time.perf_counter() - start
                memory.end_session(user_id=user, session_id=session)
            out: list[Extracted] = []
            for layer in ("semantic", "episodic"):
                cursor = None
                while True:
                    page = memory.list(
                        user_id=user, layer=layer, include_history=True, limit=100, cursor=cursor
                    )
                    for record in page:
                        rec = Extracted(record, said, zone)
                        if (layer == "semantic" and rec.kind not in DIGESTS) or rec.kind == "event":
                            out.append(rec)
                    cursor = getattr(page, "next_cursor", None)
                    if not cursor:
                        break
            return out, remember_seconds
        finally:
            memory.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# -- scoring --------------------------------------------------------------------------
def _rate(hit: int, total: int) -> float | None:
    return round(hit / total, 3) if total else None


def score_cases(
    cases: Sequence[dict[str, Any]],
    results: Sequence[Sequence[Extracted]],
    *,
    max_list: int = 40,
) -> dict[str, Any]:
    """The report's figures from each case's extracted records (same order as ``cases``)."""
    tally = _Tally(max_list)
    for case, records in zip(cases, results, strict=True):
        right = tally.expected_items(case, records)
        right &= tally.stale_values(case, records)
        tally.current_records(case, records)
        tally.case_outcome(case, records, right)
    return tally.report()


def _counter(width: int) -> defaultdict[str, list[int]]:
    return defaultdict(lambda: [0] * width)


@dataclass
class _Tally:
    """The counts :func:`score_cases` adds up, one stage of a case at a time."""

    max_list: int
    found: defaultdict[str, list[int]] = field(default_factory=lambda: _counter(2))
    found_loose: defaultdict[str, list[int]] = field(default_factory=lambda: _counter(2))
    dates: defaultdict[str, list[int]] = field(default_factory=lambda: _counter(3))
    stale: defaultdict[str, list[int]] = field(default_factory=lambda: _counter(2))
    stale_in_history: int = 0
    precision: defaultdict[str, list[int]] = field(default_factory=lambda: _counter(2))
    person_only: int = 0
    negatives: list[int] = field(default_factory=lambda: [0, 0])
    updates: defaultdict[str, list[int]] = field(default_factory=lambda: _counter(2))
    misses: list[dict[str, Any]] = field(default_factory=list)
    false_positives: list[dict[str, Any]] = field(default_factory=list)
    stale_kept: list[dict[str, Any]] = field(default_factory=list)

    def expected_items(self, case: dict[str, Any], records: Sequence[Extracted]) -> bool:
        """Count each expected item found (strict and loose) and its date; True if all were."""
        right = True
        selves = SELF_NAMES | {
            t["speaker"].lower() for t in case["turns"] if t["role"] == "user" and t.get("speaker")
        }
        groups = ["all", f"kind:{case['kind']}", f"lang:{case['lang']}"]
        if case.get("shape"):
            groups.append(f"shape:{case['shape']}")
        for item in case["expect"]:
            ok, why, _ = judge(item, records, selves, strict=True)
            loose_ok = judge(item, records, selves, strict=False)[0]
            right &= ok
            for g in [*groups, f"type:{item['type']}"]:
                self.found[g][0] += ok
                self.found[g][1] += 1
                self.found_loose[g][0] += loose_ok
                self.found_loose[g][1] += 1
            if not ok and len(self.misses) < self.max_list:
                self.misses.append(
                    {
                        "id": case["id"],
                        "kind": case["kind"],
                        "lang": case["lang"],
                        "turns": [t["text"] for t in case["turns"]],
                        "expect": item,
                        "why": why,
                        "records": [r.brief() for r in records if r.current],
                    }
                )
            if item.get("date"):
                words_ok = ok or why.startswith("words found")
                for g in ("all dated items", f"kind:{case['kind']}"):
                    self.dates[g][0] += ok
                    self.dates[g][1] += words_ok
                    self.dates[g][2] += 1
        return right

    def stale_values(self, case: dict[str, Any], records: Sequence[Extracted]) -> bool:
        """Count the stale values retired; True if every one was."""
        right = True
        for old in case.get("stale", []):
            still = [
                r
                for r in records
                if r.current
                and contains_all(r.strict, old["must"])
                and (not old.get("date") or old["date"] in r.days)
                and not (old.get("not_if") and contains_all(r.strict, old["not_if"]))
            ]
            for g in _sets(case):
                self.stale[g][1] += 1
                self.stale[g][0] += not still
            right &= not still
            if still:
                self.stale_kept.append(
                    {"id": case["id"], "stale": old, "still_current": [r.brief() for r in still]}
                )
            else:
                self.stale_in_history += any(
                    not r.current and contains_all(r.strict, old["must"]) for r in records
                )
        return right

    def current_records(self, case: dict[str, Any], records: Sequence[Extracted]) -> None:
        """Precision proxy: each current record holds an expected item's words, or not."""
        others = {normalise(e["about"]) for e in case["expect"] if e.get("about", "user") != "user"}
        for r in records:
            if not r.current:
                continue
            good = any(contains_all(r.strict, e["must"]) for e in case["expect"])
            for g in _sets(case):
                self.precision[g][0] += good
                self.precision[g][1] += 1
            self.person_only += not good and any(o in (r.names or "") for o in others)
            if not good and len(self.false_positives) < self.max_list:
                self.false_positives.append(
                    {
                        "id": case["id"],
                        "kind": case["kind"],
                        "lang": case["lang"],
                        "turns": [t["text"] for t in case["turns"]],
                        "record": r.brief(),
                    }
                )

    def case_outcome(self, case: dict[str, Any], records: Sequence[Extracted], right: bool) -> None:
        """Update cases fully right; negative cases with any record."""
        if case["kind"] == "update":
            shape = [f"shape:{case['shape']}"] if case.get("shape") else []
            for g in [*_sets(case), *shape]:
                self.updates[g][0] += right
                self.updates[g][1] += 1
        if case["kind"] == "negative":
            self.negatives[0] += any(r.current for r in records)
            self.negatives[1] += 1

    def report(self) -> dict[str, Any]:
        found, stale, updates = self.found, self.stale, self.updates
        order = sorted(found, key=lambda g: (g != "all", g))
        return {
            "recall_strict": {
                g: {"found": found[g][0], "total": found[g][1], "recall": _rate(*found[g])}
                for g in order
            },
            "recall_loose": {g: _rate(*self.found_loose[g]) for g in order},
            "precision_proxy": self._precision_proxy(),
            "negatives_with_a_record": {
                "cases": self.negatives[0],
                "total": self.negatives[1],
                "rate": _rate(*self.negatives),
            },
            "stale_retired": {
                "retired": stale["all"][0],
                "total": stale["all"][1],
                "rate": _rate(*stale["all"]),
                "old_value_in_history": self.stale_in_history,
            },
            "update_cases_fully_right": {
                "right": updates["all"][0],
                "total": updates["all"][1],
                "rate": _rate(*updates["all"]),
            },
            "by_group": self._by_group(),
            "date_accuracy": {
                g: {
                    "right_date": v[0],
                    "words_found": v[1],
                    "total": v[2],
                    "accuracy": _rate(v[0], v[2]),
                    "accuracy_when_words_found": _rate(v[0], v[1]),
                }
                for g, v in self.dates.items()
            },
            "misses": self.misses,
            "false_positives": self.false_positives,
            "stale_not_retired": self.stale_kept[: self.max_list],
        }

    def _precision_proxy(self) -> dict[str, Any]:
        matching, records = self.precision["all"]
        return {
            "matching": matching,
            "records": records,
            "precision": _rate(matching, records),
            "unmatched_naming_an_expected_person": self.person_only,
            "precision_without_those": _rate(matching, records - self.person_only),
        }

    def _by_group(self) -> dict[str, Any]:
        precision, stale, updates = self.precision, self.stale, self.updates
        return {
            g: {
                "precision": _rate(*precision[g]) if g in precision else None,
                "stale_retired": list(stale[g]) if g in stale else None,
                "stale_retired_rate": _rate(*stale[g]) if g in stale else None,
                "updates_fully_right": list(updates[g]) if g in updates else None,
                "updates_fully_right_rate": _rate(*updates[g]) if g in updates else None,
            }
            for g in sorted(set(precision) | set(stale) | set(updates))
            if g != "all"
        }


def _sets(case: dict[str, Any]) -> list[str]:
    return ["all", f"set:{case['set']}"] if case.get("set") else ["all"]


def load_cases(path: str | Path) -> list[dict[str, Any]]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


# -- report ---------------------------------------------------------------------------
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file",
        metavar="FILE",
        nargs="+",
        help="labelled cases, one JSON object per line; several files are also scored one by one",
    )
    parser.add_argument(
        "--out", default="benchmarks/results", help="directory for extraction.json/.md"
    )
    parser.add_argument("--json", default=None, help="also write the JSON result to this path")
    parser.add_argument("--name", default="extraction", help="result file stem (extraction)")
    parser.add_argument("--only", default=None, help="comma-separated case ids")
    parser.add_argument("--limit", type=int, default=None, help="the first N cases only")
    parser.add_argument("--max-list", type=int, default=40, help="misses / false positives kept")
    parser.add_argument(
        "--in-memory",
        action="store_true",
        help="an in-memory store per case instead of a temporary directory (same records, faster)",
    )
    parser.add_argument(
        "--fake-embedder",
        action="store_true",
        help="hash embeddings instead of the model: same records, faster, timings not comparable",
    )


def _loadavg() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def run(args: argparse.Namespace) -> int:
    """Score the cases, print the summary, write ``<name>.json`` and ``<name>.md``; 0 on success."""
    files = [args.file] if isinstance(args.file, str) else list(args.file)
    missing = [f for f in files if not os.path.isfile(f)]
    if missing:
        print(f"error: no such file: {', '.join(missing)} (give JSONL case files)")
        return 2
    cases = _select(args, _load_all(files))
    embedder = _warm_up(args)
    load_start = _loadavg()
    started = time.perf_counter()
    results, timers, remember_seconds = _run_cases(args, cases, embedder)
    elapsed = time.perf_counter() - started
    timing = _timing(cases, results, *timers, remember_seconds)
    score = score_cases(cases, results, max_list=args.max_list)
    report = {
        "command": "prism bench extraction " + " ".join(os.path.basename(f) for f in files),
        "cases_file": " + ".join(os.path.basename(f) for f in files),
        "cases": len(cases),
        "embedder": getattr(embedder, "name", type(embedder).__name__),
        "store": "in memory" if args.in_memory else "embedded, a temporary directory per case",
        "seconds": round(elapsed, 1),
        "load_average": {"start": load_start, "end": _loadavg()},
        "timing": timing,
        "score": score,
    }
    _write(args, report)
    return 0


def _load_all(files: list[str]) -> list[dict[str, Any]]:
    """Every case of every file; with several files each case names its set (the file stem)."""
    cases = []
    for f in files:
        loaded = load_cases(f)
        if len(files) > 1:
            for case in loaded:
                case["set"] = Path(f).stem
        cases += loaded
    return cases


def _select(args: argparse.Namespace, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if args.only:
        keep = set(args.only.split(","))
        cases = [c for c in cases if c["id"] in keep]
    if args.limit:
        cases = cases[: args.limit]
    return cases


def _warm_up(args: argparse.Namespace) -> Any:
    """The embedder, warmed up with the extractor: one-time start-up (dateparser's language
    data, regex compilation) stays out of the timings."""
    from prism_memory.embeddings import FakeEmbedder, FastEmbedEmbedder

    embedder: Any = FakeEmbedder() if args.fake_embedder else FastEmbedEmbedder()
    embedder.embed_documents(["warm up the model"])
    from prism_memory.extraction.rules import extract

    extract(
        "Next Friday I fly to Rome, I love it. 下周三我要去上海。",
        event_time=datetime.now().astimezone(),
    )
    return embedder


def _run_cases(
    args: argparse.Namespace, cases: list[dict[str, Any]], embedder: Any
) -> tuple[list[list[Extracted]], tuple[_Timer, _Timer], float]:
    """Each case's records, the extraction and semantic-step timers, the seconds in remember."""
    from prism_memory.memory import Memory

    extract_timer, step_timer = _Timer(), _Timer()
    results: list[list[Extracted]] = []
    remember_seconds = 0.0
    with _timed_extraction(extract_timer, step_timer):
        for case in cases:
            records, seconds = run_case(
                case,
                (lambda _: Memory(location=":memory:", embedder=embedder))
                if args.in_memory
                else (lambda path: Memory(path=path, embedder=embedder)),
            )
            results.append(records)
            remember_seconds += seconds
    return results, (extract_timer, step_timer), remember_seconds


def _timing(
    cases: list[dict[str, Any]],
    results: list[list[Extracted]],
    extract_timer: _Timer,
    step_timer: _Timer,
    remember_seconds: float,
) -> dict[str, Any]:
    turns = sum(len(c["turns"]) for c in cases)
    user_turns = sum(t["role"] == "user" for c in cases for t in c["turns"])
    written = sum(1 for rs in results for r in rs)
    return {
        "turns": turns,
        "user_turns": user_turns,
        "extract_ms_per_user_turn": round(
            1000 * extract_timer.seconds / max(1, extract_timer.calls), 3
        ),
        "extract_cpu_ms_per_user_turn": round(
            1000 * extract_timer.cpu_seconds / max(1, extract_timer.calls), 3
        ),
        "semantic_step_ms_per_turn": round(1000 * step_timer.seconds / max(1, turns), 3),
        "semantic_step_cpu_ms_per_turn": round(1000 * step_timer.cpu_seconds / max(1, turns), 3),
        "remember_ms_per_turn": round(1000 * remember_seconds / max(1, turns), 2),
        "records_per_user_turn": round(written / max(1, user_turns), 2),
    }


def _write(args: argparse.Namespace, report: dict[str, Any]) -> None:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    text = json.dumps(report, ensure_ascii=False, indent=1, default=str)
    (out / f"{args.name}.json").write_text(text, encoding="utf-8")
    if args.json:
        Path(args.json).write_text(text, encoding="utf-8")
    md = markdown(report)
    (out / f"{args.name}.md").write_text(md, encoding="utf-8")
    head = md.split("\n## Misses")[0]
    print(head)
