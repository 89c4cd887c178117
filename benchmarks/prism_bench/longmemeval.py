"""``prism bench longmemeval FILE...``: evidence recall on LongMemEval_S haystacks.

Design (the protocol of the data's README, so dev and held-out figures compare):
- One fresh embedded store per question. Every haystack session, in date order, goes through
  the public write path: ``remember`` (one message per turn, its own role, id
  ``<session id>#<i>``, ``event_time`` = the session's date) then ``end_session``. Ingest speed
  is turns per second of that loop, embedding included.
- ``recall(question, budget_tokens=B, now=question_date)`` for each budget; every call is timed
  (recall cache off), so p50/p95 are over real haystacks of ~490 long turns.
- A context item covers an evidence turn (``has_answer``) if the turn is among its source ids
  (items with at most two of them) or if at least half of the turn's content words (lower-case
  tokens of 3+ characters or numbers, minus stopwords) appear in the item's text.
- Baseline in the same run: dense top-k over the same episodic turns with the same embedder,
  packed one line per turn into the same budgets with the library's token counter.
- Reported overall, per question type, and per evidence length (a question is "long" when one
  of its evidence turns has at least ``LONG_TURN`` characters). No LLM anywhere.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from prism_memory._validation import has_visible_text
from prism_memory.errors import ConfigError, ValidationError
from prism_memory.retrieval.text import STOPWORDS

from ._report import write_report
from .locomo import (
    _baseline_line,
    _pct,
    answer_recall,
    baseline_rankings,
    covered_turns,
    covered_turns_shown,
    json_items,
    pack_lines,
)

__all__ = [
    "BUDGETS",
    "LONG_TURN",
    "SHORT_ANSWER_WORDS",
    "LongMemQuestion",
    "add_arguments",
    "answer_string_found",
    "content_words",
    "evaluate_question",
    "ingest_question",
    "load_questions",
    "markdown",
    "parse_date",
    "run",
    "short_answer",
    "strict_recall",
    "summarise",
]

BUDGETS = (500, 1000, 2000)
#: characters from which an evidence turn counts as long (the issue's threshold)
LONG_TURN = 600
_TOKEN = re.compile(r"[a-z0-9]+")


@dataclass
class LongMemQuestion:
    """One LongMemEval question with its haystack, sessions sorted by date."""

    qid: str
    qtype: str
    question: str
    date: datetime
    answer: str
    sessions: list[tuple[str, datetime, list[dict[str, Any]]]]
    evidence: list[str] = field(default_factory=list)
    turn_text: dict[str, str] = field(default_factory=dict)

    @property
    def turns(self) -> int:
        return sum(len(s[2]) for s in self.sessions)

    @property
    def long_evidence(self) -> bool:
        return any(len(self.turn_text[e]) >= LONG_TURN for e in self.evidence)


def parse_date(value: str) -> datetime:
    """``"2023/05/20 (Sat) 02:21"`` -> an aware UTC datetime.

    >>> parse_date("2023/05/20 (Sat) 02:21").isoformat()
    '2023-05-20T02:21:00+00:00'
    """
    text = re.sub(r"\s*\([A-Za-z]+\)\s*", " ", str(value)).strip()
    for fmt in ("%Y/%m/%d %H:%M", "%Y/%m/%d"):
        try:
            return datetime.strptime(text, fmt).replace(tzinfo=timezone.utc)
        except ValueError:
            continue
    raise ValidationError(
        f"unrecognised LongMemEval date {value!r} (expected 2023/05/20 (Sat) 02:21)"
    )


def content_words(text: str) -> set[str]:
    """Lower-case tokens of 3+ characters or numbers, minus stopwords (the README's rule).

    >>> sorted(content_words("I paid 12 dollars for the cat"))
    ['12', 'cat', 'dollars', 'paid']
    """
    return {
        w
        for w in _TOKEN.findall(text.lower())
        if (len(w) >= 3 or w.isdigit()) and w not in STOPWORDS
    }


#: an answer of at most this many words (its first sentence) is checked as a string
SHORT_ANSWER_WORDS = 6
_NON_WORD = re.compile(r"[^0-9a-z]+")


def short_answer(answer: str) -> str | None:
    """The gold answer as a normalised string to look for, when it is short (its first
    sentence, at most ``SHORT_ANSWER_WORDS`` words, a leading article dropped), else ``None``.

    >>> short_answer("14 days. 15 days (including the last day) is also acceptable.")
    '14 days'
    >>> short_answer("The Sugar Factory at Icon Park."), short_answer("$270")
    ('sugar factory at icon park', '270')
    >>> short_answer("The user would prefer suggestions related to recent research papers") is None
    True
    """
    first = re.split(r"(?<=[.!?])\s", answer.strip(), maxsplit=1)[0]
    words = _NON_WORD.sub(" ", first.lower()).split()
    if words and words[0] in ("the", "a", "an") and len(words) > 1:
        words = words[1:]
    if not words or len(words) > SHORT_ANSWER_WORDS:
        return None
    return " ".join(words)


def answer_string_found(text: str, answer: str) -> float | None:
    """1.0 when the short gold answer appears in ``text`` as whole words, 0.0 when not,
    ``None`` for a long answer (not checked as a string)."""
    want = short_answer(answer)
    if want is None:
        return None
    have = " " + " ".join(_NON_WORD.sub(" ", text.lower()).split()) + " "
    return 1.0 if f" {want} " in have else 0.0


def _question(item: dict[str, Any], origin: str) -> LongMemQuestion:
    try:
        ids = [str(s) for s in item["haystack_session_ids"]]
        dates = [parse_date(d) for d in item["haystack_dates"]]
        sessions_raw = item["haystack_sessions"]
        if not (len(ids) == len(dates) == len(sessions_raw)):
            raise ValueError("haystack ids, dates and sessions differ in length")
        q = LongMemQuestion(
            qid=str(item["question_id"]),
            qtype=str(item["question_type"]),
            question=str(item["question"]),
            date=parse_date(item["question_date"]),
            answer=str(item.get("answer", "")),
            sessions=[],
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"{origin} is not a LongMemEval question: {exc}") from None
    # date order; the original position breaks ties so the order is stable
    for _, sid, when, turns in sorted(
        zip(range(len(ids)), ids, dates, sessions_raw), key=lambda x: (x[2], x[0])
    ):
        q.sessions.append((sid, when, list(turns)))
        for i, turn in enumerate(turns):
            tid = f"{sid}#{i}"
            q.turn_text[tid] = str(turn.get("content", ""))
            if turn.get("has_answer"):
                q.evidence.append(tid)
    return q


def load_questions(paths: Sequence[str | Path]) -> list[LongMemQuestion]:
    """Read LongMemEval files (one question per file, or a list of them); questions without
    evidence turns (the abstention type) are skipped."""
    out: list[LongMemQuestion] = []
    for p in paths:
        path = Path(p)
        for n, item in enumerate(json_items(path, "LongMemEval")):
            if not isinstance(item, dict):
                raise ConfigError(f"{path} item {n} is not a JSON object")
            q = _question(item, f"{path} item {n}")
            if q.evidence:
                out.append(q)
    if not out:
        raise ConfigError("no LongMemEval question with evidence turns in the given files")
    return out


class _ScreenTimer:
    """Adds up the seconds a Memory's poisoning screen takes (wraps its engine's ``screen``)."""

    def __init__(self, m: Any) -> None:
        self.seconds = 0.0
        engine = m._engine
        inner = engine.screen

        def screen(records: Any, keep_metadata: Any = ()) -> Any:
            t = time.perf_counter()
            try:
                return inner(records, keep_metadata)
            finally:
                self.seconds += time.perf_counter() - t

        engine.screen = screen


def ingest_question(m: Any, q: LongMemQuestion, user_id: str) -> float:
    """Write the haystack through ``remember`` + ``end_session``; returns seconds taken."""
    t0 = time.perf_counter()
    for sid, when, turns in q.sessions:
        messages = [
            {"role": str(t.get("role", "user")), "id": f"{sid}#{i}", "content": str(t["content"])}
            for i, t in enumerate(turns)
            if has_visible_text(str(t.get("content", "")))  # a few turns are a lone U+200B
        ]
        if messages:
            m.remember(messages, user_id=user_id, session_id=sid, event_time=when)
        m.end_session(user_id=user_id, session_id=sid)
    m.flush()
    return time.perf_counter() - t0


def _recall(records: Iterable[Any], q: LongMemQuestion) -> float:
    covered = covered_turns(records, q.turn_text, words=content_words)
    return sum(e in covered for e in q.evidence) / len(q.evidence)


def strict_recall(items: Iterable[Any], q: LongMemQuestion) -> float:
    """Evidence recall judged on the text actually shown: a whole turn covers itself; a
    passage or compressed item covers an evidence turn only when the shown text holds at
    least half of that turn's content words, or at least half of the answer's words that the
    turn holds (the passage kept what answers)."""
    items = list(items)
    covered = covered_turns_shown(items, q.turn_text, words=content_words)
    answer = content_words(q.answer)
    for it in items:
        if not it.compressed:
            continue
        have = content_words(it.shown)
        for sid in it.record.provenance.source_ids:
            bearing = answer & content_words(q.turn_text.get(sid, ""))
            if bearing and len(bearing & have) * 2 >= len(bearing):
                covered.add(sid)
    return sum(e in covered for e in q.evidence) / len(q.evidence)


def evaluate_question(
    m: Any, q: LongMemQuestion, user_id: str, budgets: Sequence[int] = BUDGETS
) -> dict[str, Any]:
    """PRISM and dense evidence recall at each budget, and the recall latencies."""
    cfg = m.config.retrieval.model_copy(update={"cache_size": 0})
    row: dict[str, Any] = {
        "id": q.qid,
        "type": q.qtype,
        "long_evidence": q.long_evidence,
        "prism": {},
        "dense": {},
        "prism_answer": {},
        "dense_answer": {},
        "prism_strict": {},
        "prism_string": {},
        "dense_string": {},
        "latency_ms": [],
        "stage_ms": [],
        "tokens": {},
    }
    for b in budgets:
        t0 = time.perf_counter()
        ctx = m.recall(q.question, user_id=user_id, budget_tokens=b, config=cfg, now=q.date)
        row["latency_ms"].append((time.perf_counter() - t0) * 1000)
        row["stage_ms"].append(dict(ctx.trace.timings_ms))
        row["prism"][str(b)] = _recall(ctx.records, q)
        row["tokens"][str(b)] = ctx.tokens
        row["prism_answer"][str(b)] = answer_recall(ctx.text, q.answer)
        row["prism_strict"][str(b)] = strict_recall(ctx.items, q)
        row["prism_string"][str(b)] = answer_string_found(ctx.text, q.answer)
    dense = baseline_rankings(m, user_id, q.question)["dense"]
    for b in budgets:
        packed = pack_lines(dense, b)
        row["dense"][str(b)] = _recall(packed, q)
        shown = "\n".join(_baseline_line(r) for r in packed)
        row["dense_answer"][str(b)] = answer_recall(shown, q.answer)
        row["dense_string"][str(b)] = answer_string_found(shown, q.answer)
    return row


def summarise(rows: list[dict[str, Any]], budgets: Sequence[int] = BUDGETS) -> dict[str, Any]:
    """Means overall, per type and per evidence length; latency percentiles over all calls."""
    out: dict[str, Any] = {
        "overall": _means(rows, budgets),
        "mean_context_tokens": {
            str(b): round(statistics.fmean(r["tokens"][str(b)] for r in rows if "tokens" in r), 1)
            for b in budgets
            if any("tokens" in r for r in rows)
        },
        "per_type": {
            t: _means([r for r in rows if r["type"] == t], budgets)
            for t in sorted({r["type"] for r in rows})
        },
        "per_evidence_length": {
            label: _means(sub, budgets)
            for label, sub in (
                (f"long (>= {LONG_TURN} chars)", [r for r in rows if r["long_evidence"]]),
                (f"short (< {LONG_TURN} chars)", [r for r in rows if not r["long_evidence"]]),
            )
            if sub
        },
        "recall_latency_ms": _latency(rows),
    }
    out.update(_stages(rows))
    return out


def _means(sub: list[dict[str, Any]], budgets: Sequence[int]) -> dict[str, Any]:
    """Each system's mean per budget over ``sub`` (strict and string recall when every row has
    them; string recall over the questions with a short answer only)."""

    def mean_of(system: str) -> dict[str, float]:
        return {str(b): round(statistics.fmean(r[system][str(b)] for r in sub), 4) for b in budgets}

    return {
        "questions": len(sub),
        **{
            system: mean_of(system) for system in ("prism", "dense", "prism_answer", "dense_answer")
        },
        **{
            system: mean_of(system) for system in ("prism_strict",) if all(system in r for r in sub)
        },
        **{
            system: {
                str(b): round(statistics.fmean(vals), 4)
                for b in budgets
                if (vals := [r[system][str(b)] for r in sub if r[system][str(b)] is not None])
            }
            for system in ("prism_string", "dense_string")
            if all(system in r for r in sub)
        },
        "short_answers": sum(
            1 for r in sub if r.get("prism_string", {}).get(str(budgets[0])) is not None
        ),
    }


def _latency(rows: list[dict[str, Any]]) -> dict[str, Any]:
    lat = [x for r in rows for x in r["latency_ms"]]
    out: dict[str, Any] = {
        "calls": len(lat),
        "p50": round(_pct(lat, 0.5), 1),
        "p95": round(_pct(lat, 0.95), 1),
    }
    # the first call on a store reads its pages and embeds the query; the next ones (other
    # budgets, same question) find both cached, as an agent's repeated recalls do
    first = [r["latency_ms"][0] for r in rows if r["latency_ms"]]
    later = [x for r in rows for x in r["latency_ms"][1:]]
    if first and later:
        out["first_call_p50"] = round(_pct(first, 0.5), 1)
        out["first_call_p95"] = round(_pct(first, 0.95), 1)
        out["later_calls_p50"] = round(_pct(later, 0.5), 1)
        out["later_calls_p95"] = round(_pct(later, 0.95), 1)
    return out


def _stages(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Recall's stages, p50 and p95 over all calls, and the query embedding of the first calls."""
    stages = [st for r in rows for st in r.get("stage_ms", [])]
    if not stages:
        return {}
    firsts = [r["stage_ms"][0] for r in rows if r.get("stage_ms")]
    return {
        "recall_stage_p50_ms": {
            k: round(_pct([st.get(k, 0.0) for st in stages], 0.5), 1)
            for k in ("embed", "retrieve", "construct")
        },
        "recall_stage_p95_ms": {
            k: round(_pct([st.get(k, 0.0) for st in stages], 0.95), 1)
            for k in ("embed", "retrieve", "construct")
        },
        "recall_query_embedding_ms": round(_pct([st["embed"] for st in firsts], 0.5), 1),
    }


def _table(title: str, groups: dict[str, dict[str, Any]], budgets: Sequence[str]) -> list[str]:
    head = (
        " | ".join(f"PRISM @{b}" for b in budgets)
        + " | "
        + " | ".join(f"dense @{b}" for b in budgets)
    )
    lines = [
        f"## {title}",
        "",
        f"| group | questions | {head} |",
        "|---|---|" + "---|" * (2 * len(budgets)),
    ]
    for name, g in groups.items():
        cells = [f"{g['prism'][b]:.3f}" for b in budgets] + [
            f"{g['dense'][b]:.3f}" for b in budgets
        ]
        lines.append(f"| {name} | {g['questions']} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def markdown(report: dict[str, Any]) -> str:
    """The human-readable report (same numbers as the JSON)."""
    budgets = list(report["overall"]["prism"])
    lines = [*_md_intro(report), "", _md_latency(report), ""]
    lines += _table("Overall", {"all": report["overall"]}, budgets)
    lines += _md_answer_recall(report, budgets)
    lines += _table("Per question type", report["per_type"], budgets)
    lines += _table("Per evidence length", report["per_evidence_length"], budgets)
    lines += _md_per_question(report, budgets)
    return "\n".join(lines) + "\n"


def _md_intro(report: dict[str, Any]) -> list[str]:
    ing = report["ingest"]
    o = report["overall"]
    return [
        "# LongMemEval_S evidence recall",
        "",
        f"Command: `{report['command']}`",
        "",
        f"Questions: {o['questions']} ({', '.join(report['questions'])}). One fresh embedded store "
        "per question; every haystack session through `remember` + `end_session`; "
        "`recall(question, budget_tokens=B, now=question_date)`. Dense baseline: top-k over the "
        "same episodic turns, same embedder, same budgets. No LLM. Load average (1 min, 2 cores "
        f"shared with other work): {report['load_avg']['start']} at the start, "
        f"{report['load_avg']['end']} at the end.",
        "",
        (
            f"Ingest: {ing['turns']} turns in {ing['seconds']} s = **{ing['turns_per_s']} "
            "turns/s** (remember + end_session, embedding included)."
            + (
                f" Of that time: the embedding model {ing['embedding_s']} s (the model alone "
                f"would take {ing['model_turns_per_s']} turns/s), the poisoning screen "
                f"{ing['screen_s']} s, everything else {ing['rest_s']} s."
                if "embedding_s" in ing
                else ""
            )
            if ing["turns"]
            else "Ingest: not measured (the stores of an earlier run were evaluated as kept)."
        ),
    ]


def _md_latency(report: dict[str, Any]) -> str:
    lat = report["recall_latency_ms"]
    return (
        f"Recall latency over {lat['calls']} calls (cache off, query embedding included): "
        f"p50 **{lat['p50']} ms**, p95 **{lat['p95']} ms**."
        + (
            f" First call per question p50 {lat['first_call_p50']} ms"
            + (f", p95 {lat['first_call_p95']} ms" if "first_call_p95" in lat else "")
            + f" (it embeds the query: {report['recall_query_embedding_ms']} ms p50 for the "
            "model alone); later calls (other budgets, query vector cached) p50 "
            f"{lat['later_calls_p50']} ms"
            + (f", p95 {lat['later_calls_p95']} ms" if "later_calls_p95" in lat else "")
            + "."
            if "first_call_p50" in lat and "recall_query_embedding_ms" in report
            else ""
        )
        + (
            " Stages, p50 over all calls: "
            + ", ".join(f"{k} {v} ms" for k, v in report["recall_stage_p50_ms"].items())
            + (
                "; p95: "
                + ", ".join(f"{k} {v} ms" for k, v in report["recall_stage_p95_ms"].items())
                if "recall_stage_p95_ms" in report
                else ""
            )
            + "."
            if "recall_stage_p50_ms" in report
            else ""
        )
    )


def _md_answer_recall(report: dict[str, Any], budgets: list[str]) -> list[str]:
    o = report["overall"]
    lines: list[str] = []
    lines += [
        "Answer-word recall (share of the gold answer's words, 3+ letters or digits, no "
        "stopwords, present in the context text; a passage covers its turn for evidence recall "
        "whatever it shows, this checks the words that matter survived): PRISM "
        + " / ".join(f"{o['prism_answer'][b]:.3f}" for b in budgets)
        + ", dense "
        + " / ".join(f"{o['dense_answer'][b]:.3f}" for b in budgets)
        + f" at {' / '.join(budgets)} tokens.",
        "",
    ]
    if "prism_strict" in o:
        lines += [
            "Shown-text (strict) evidence recall: a passage or compressed item is credited "
            "only when the text shown holds half of the evidence turn's content words or "
            "half of the answer's words in that turn: PRISM "
            + " / ".join(f"{o['prism_strict'][b]:.3f}" for b in budgets)
            + " (credited "
            + " / ".join(f"{o['prism'][b]:.3f}" for b in budgets)
            + ").",
            "",
        ]
    if o.get("prism_string"):
        lines += [
            f"Answer-string recall ({o['short_answers']} questions with a short answer, at "
            f"most {SHORT_ANSWER_WORDS} words, found as whole words in the context): PRISM "
            + " / ".join(f"{o['prism_string'].get(b, 0):.3f}" for b in budgets)
            + ", dense "
            + " / ".join(f"{o['dense_string'].get(b, 0):.3f}" for b in budgets)
            + ".",
            "",
        ]
    if report.get("mean_context_tokens"):
        lines += [
            "PRISM mean context tokens per question: "
            + ", ".join(f"@{b}: {v}" for b, v in report["mean_context_tokens"].items())
            + " (budgets are a ceiling: the relevance floor and the low-information rule leave "
            "room unspent).",
            "",
        ]
    return lines


def _md_per_question(report: dict[str, Any], budgets: list[str]) -> list[str]:
    lines: list[str] = []
    lines += [
        "## Per question",
        "",
        "| id | type | long | "
        + " | ".join(f"PRISM @{b}" for b in budgets)
        + " | "
        + " | ".join(f"dense @{b}" for b in budgets)
        + " |",
        "|---|---|---|" + "---|" * (2 * len(budgets)),
    ]
    for r in report["rows"]:
        cells = [f"{r['prism'][b]:.2f}" for b in budgets] + [
            f"{r['dense'][b]:.2f}" for b in budgets
        ]
        lines.append(
            f"| {r['id']} | {r['type']} | {'yes' if r['long_evidence'] else 'no'} | "
            + " | ".join(cells)
            + " |"
        )
    return lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", help="LongMemEval_S question files (official format)")
    parser.add_argument("--out", default="benchmarks/results", help="directory for the results")
    parser.add_argument("--name", default="longmemeval-dev", help="result file stem")
    parser.add_argument(
        "--json", dest="json_out", action="store_true", help="print the JSON report"
    )
    parser.add_argument(
        "--store",
        default=None,
        help="directory for the stores, kept (default: temporary); a store already there is "
        "evaluated without ingesting again",
    )
    parser.add_argument(
        "--routes",
        default=None,
        help="comma-separated recall routes instead of the default, e.g. "
        "dense,bm25,entity,time,recent,graph (RetrievalConfig.routes)",
    )


def _config(routes: str | None) -> Any:
    """The ``--routes`` option as a :class:`~prism_memory.PrismConfig` (None: the default)."""
    if not routes:
        return None
    from prism_memory.config import PrismConfig, RetrievalConfig

    names = [r.strip() for r in routes.split(",") if r.strip()]
    return PrismConfig(retrieval=RetrievalConfig(routes=names))


def run(args: argparse.Namespace, log: Callable[[str], None] = print) -> int:
    """Ingest and evaluate every question; write ``<name>.md`` and ``<name>.json``."""
    from prism_memory.embeddings import FastEmbedEmbedder

    questions = load_questions(args.files)
    load_start = round(os.getloadavg()[0], 2)
    embedder = getattr(args, "embedder", None) or FastEmbedEmbedder()
    tmp = None
    store_dir = args.store
    if store_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="prism-longmemeval-")
        store_dir = tmp.name
    try:
        rows, ingest = _ingest_and_evaluate(
            questions, Path(store_dir), embedder, log, _config(getattr(args, "routes", None))
        )
    finally:
        if tmp is not None:
            tmp.cleanup()
    report = summarise(rows)
    report["rows"] = [
        {k: v for k, v in r.items() if k not in ("latency_ms", "stage_ms")} for r in rows
    ]
    report["questions"] = [q.qid for q in questions]
    report["ingest"] = _ingest_report(*ingest)
    report["load_avg"] = {"start": load_start, "end": round(os.getloadavg()[0], 2)}
    report["command"] = (
        "prism bench longmemeval "
        + " ".join(f"{Path(f).parent.name}/{Path(f).name}" for f in args.files)
        + (f" --routes {args.routes}" if getattr(args, "routes", None) else "")
    )
    return write_report(args.out, args.name, report, markdown(report), as_json=args.json_out)


def _ingest_and_evaluate(
    questions: list[LongMemQuestion],
    store_dir: Path,
    embedder: Any,
    log: Callable[[str], None],
    config: Any = None,
) -> tuple[list[dict[str, Any]], tuple[int, float, float, float]]:
    """Each question's row, and (turns, ingest s, embedding s, screen s) of the ingests; a kept
    store (``--store``) is evaluated as it is; ``config``: the ``--routes`` PrismConfig."""
    from prism_memory.memory import Memory

    from .scale import TimedEmbedder

    rows: list[dict[str, Any]] = []
    ingest_s = embed_s = screen_s = 0.0
    turns = 0
    timed = TimedEmbedder(embedder)
    for n, q in enumerate(questions, 1):
        user = f"lme-{q.qid}"
        with Memory(path=store_dir / q.qid, embedder=timed, config=config) as m:
            if m.count(user_id=user) == 0:
                screen = _ScreenTimer(m)
                timed.seconds = 0.0
                secs = ingest_question(m, q, user)
                ingest_s += secs
                embed_s += timed.seconds
                screen_s += screen.seconds
                turns += q.turns
            else:
                secs = 0.0
            rows.append(evaluate_question(m, q, user))
        log(
            f"[{n}/{len(questions)}] {q.qid} ({q.qtype}): {q.turns} turns in {secs:.1f} s; "
            f"PRISM @1000 {rows[-1]['prism'].get('1000', 0):.2f}, dense "
            f"{rows[-1]['dense'].get('1000', 0):.2f}"
        )
    return rows, (turns, ingest_s, embed_s, screen_s)


def _ingest_report(turns: int, ingest_s: float, embed_s: float, screen_s: float) -> dict[str, Any]:
    out: dict[str, Any] = {
        "turns": turns,
        "seconds": round(ingest_s, 1),
        "turns_per_s": round(turns / ingest_s, 1) if ingest_s else 0.0,
    }
    if ingest_s:
        out.update(
            embedding_s=round(embed_s, 3),
            model_turns_per_s=round(turns / embed_s, 1) if embed_s else 0.0,
            screen_s=round(screen_s, 3),
            rest_s=round(ingest_s - embed_s - screen_s, 3),
        )
    return out
