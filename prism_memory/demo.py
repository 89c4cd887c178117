"""``prism demo``: ingest a built-in three-session conversation, then answer memory questions.

Design:
- The sample (``data/demo_conversation.json``) is written for this demo: Maya plans a trip with
  a travel assistant over three sessions (preferences, a budget change, a meeting).
- The demo scope is wiped first, and record ids are deterministic, so reruns print the same.
- It uses the richest API the installed ``Memory`` has: ``remember`` + ``end_session`` and
  ``recall`` (layers, extraction, token-budgeted context) when present, else ``add_many`` +
  ``search``. Either way each hit is printed with its score, layer and the routes that found it.
- Offline and fast: ~20 short turns through the packaged MiniLM model.
"""

from __future__ import annotations

import inspect
import json
import shlex
import sys
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from importlib import resources
from typing import Any

from .records import Layer, MemoryRecord

__all__ = ["DemoHit", "answer", "ingest", "load_conversation", "run_demo"]

TOP_K = 3
FOUND_WITHIN = 5
RECALL_BUDGET_TOKENS = 300


@dataclass
class DemoHit:
    """One memory found for a question, in the shape the demo prints."""

    score: float
    layer: str
    kind: str
    routes: list[str]
    when: str
    text: str
    section: str | None = None


@dataclass
class DemoAnswer:
    question: str
    expect: str
    found: bool
    hits: list[DemoHit] = field(default_factory=list)
    context_tokens: int | None = None
    context: str | None = None


def load_conversation() -> dict[str, Any]:
    """The packaged sample conversation (sessions of turns, and the demo questions)."""
    text = (
        resources.files("prism_memory").joinpath("data/demo_conversation.json").read_text("utf-8")
    )
    data: dict[str, Any] = json.loads(text)
    return data


def _turns(conv: dict[str, Any], session: dict[str, Any]) -> list[dict[str, Any]]:
    start = datetime.fromisoformat(session["date"])
    names = conv.get("speakers", {})
    return [
        {
            "role": t["role"],
            "content": t["content"],
            "name": names.get(t["role"], t["role"]),
            "timestamp": start + timedelta(minutes=2 * i),
        }
        for i, t in enumerate(session["turns"])
    ]


def ingest(m: Any, conv: dict[str, Any]) -> dict[str, Any]:
    """Wipe the demo scope and write every session; returns what was written."""
    user = conv["user_id"]
    m.delete_all(user_id=user)
    api = "remember" if hasattr(m, "remember") and hasattr(m, "end_session") else "add_many"
    turns = 0
    for session in conv["sessions"]:
        sid = session["session_id"]
        items = _turns(conv, session)
        turns += len(items)
        if api == "remember":
            m.remember(
                items,
                user_id=user,
                session_id=sid,
                event_time=datetime.fromisoformat(session["date"]),
            )
            m.end_session(user_id=user, session_id=sid)
        else:
            m.add_many(
                [
                    {
                        "text": f"{t['name']}: {t['content']}",
                        "event_time": t["timestamp"],
                        "metadata": {"role": t["role"], "speaker": t["name"], "turn_index": i},
                    }
                    for i, t in enumerate(items)
                ],
                user_id=user,
                session_id=sid,
                layer=Layer.EPISODIC,
                kind="observation",
                source="user",
            )
    stats = m.stats(user_id=user)
    return {
        "api": api,
        "sessions": len(conv["sessions"]),
        "turns": turns,
        "memories": stats["total"],
        "layers": stats["layers"],
    }


def _with_speaker(record: MemoryRecord) -> str:
    if record.speaker and not record.text.startswith(f"{record.speaker}:"):
        return f"{record.speaker}: {record.text}"
    return record.text


def _hit(record: MemoryRecord, score: float, routes: list[str], section: str | None) -> DemoHit:
    return DemoHit(
        score=round(float(score), 4),
        layer=record.layer.value,
        kind=record.kind.value,
        routes=sorted(routes),
        when=record.time.strftime("%Y-%m-%d"),
        text=_with_speaker(record),
        section=section,
    )


def answer(
    m: Any, question: str, expect: str, user_id: str, now: datetime | None = None
) -> DemoAnswer:
    """Ask one question with ``recall`` (if available) or ``search``.

    ``now`` pins the clock of recall's freshness scoring, so the demo ranks the same any day.
    """
    if hasattr(m, "recall"):
        kwargs: dict[str, Any] = {"user_id": user_id, "budget_tokens": RECALL_BUDGET_TOKENS}
        if now is not None and "now" in inspect.signature(m.recall).parameters:
            kwargs["now"] = now
        ctx = m.recall(question, **kwargs)
        items = list(getattr(ctx, "items", None) or [])
        if items:
            hits = [
                _hit(i.record, i.score, list(i.routes), getattr(i, "section", None)) for i in items
            ]
        else:
            hits = [_hit(r, 0.0, [], None) for r in ctx.records]
        found = expect.lower() in ctx.text.lower()
        return DemoAnswer(question, expect, found, hits, int(ctx.tokens), ctx.text)
    scored = m.search(question, user_id=user_id, limit=FOUND_WITHIN)
    hits = [_hit(h.record, h.score, list(h.routes), None) for h in scored]
    found = any(expect.lower() in h.text.lower() for h in hits)
    return DemoAnswer(question, expect, found, hits)


def _print_answer(a: DemoAnswer) -> None:
    print(f"\nQ: {a.question}")
    for rank, h in enumerate(a.hits[:TOP_K], start=1):
        routes = "+".join(h.routes) or "-"
        text = " ".join(h.text.split())
        if len(text) > 88:
            text = text[:87] + "…"
        print(
            f"  {rank}. {h.score:.4f}  {h.layer + '/' + h.kind:<22} {routes:<18} {h.when}  {text}"
        )
    extra = f", context {a.context_tokens} tokens" if a.context_tokens is not None else ""
    mark = "yes" if a.found else "NO"
    print(f"  -> expected {a.expect!r} in what the agent gets: {mark}{extra}")


def _quote(text: str) -> str:
    """A shell word for ``text``: in double quotes when that is safe (an apostrophe reads
    better than shlex's ``'"'"'``), else shlex's quoting."""
    if not any(c in text for c in '"$`\\!'):
        return f'"{text}"'
    return shlex.quote(text)


def next_commands(user: str, conv: dict[str, Any], path: str | None) -> list[str]:
    """Three ``prism`` commands to try on the demo's memories (its user id and store path)."""
    where = f" --path {shlex.quote(str(path))}" if path else ""
    first, last = str(conv["questions"][0]["question"]), str(conv["questions"][-1]["question"])
    return [
        f"prism search {_quote(first)} --user {user}{where}",
        f"prism recall {_quote(last)} --user {user}{where}",
        f"prism list --user {user} --layer semantic{where}",
    ]


def run_demo(m: Any, *, json_output: bool = False) -> int:
    """Ingest the sample into ``m`` and answer its questions; prints a report. Returns 0."""
    conv = load_conversation()
    summary = ingest(m, conv)
    user = conv["user_id"]
    # the questions are asked the day after the last session
    now = datetime.fromisoformat(conv["sessions"][-1]["date"]) + timedelta(days=1)
    answers = [answer(m, q["question"], q["expect"], user, now) for q in conv["questions"]]
    engine = m.store.info()
    nxt = next_commands(user, conv, engine.get("path"))
    if json_output:
        print(
            json.dumps(
                {
                    "engine": engine,
                    "user_id": user,
                    "ingested": summary,
                    "answers": [asdict(a) for a in answers],
                    "next": nxt,
                },
                indent=2,
                ensure_ascii=False,
                default=str,
            )
        )
        return 0
    where = engine.get("path") or engine.get("engine")
    print(f"PRISM demo: store {where} ({engine.get('engine')})")
    layers = ", ".join(f"{k} {v}" for k, v in sorted(summary["layers"].items()))
    print(
        f"ingested {summary['sessions']} sessions, {summary['turns']} turns with "
        f"{summary['api']}() -> {summary['memories']} memories ({layers})"
    )
    print("each hit: score  layer/kind  routes  date  text")
    for a in answers:
        _print_answer(a)
    found = sum(a.found for a in answers)
    print(f"\nanswered {found}/{len(answers)} questions from memory")
    last = answers[-1]
    if last.context:
        print(f"\ncontext the agent would get for {last.question!r}:\n{last.context}")
    print(f"\nthe demo's memories belong to user id {user!r}; try next:")
    for command in nxt:
        print(f"  {command}")
    sys.stdout.flush()
    return 0
