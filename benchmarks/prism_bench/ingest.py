"""``prism bench ingest``: write throughput of ``Memory.remember`` on LoCoMo-format conversations.

Design: each conversation is ingested into a fresh embedded store, session by session, the way
an agent would: one message per turn (role ``user``, ``name`` = speaker, ``id`` = dia_id, the
image caption appended as ``[shared image: ...]``), the session date as ``event_time``,
``end_session`` after each session, with rule extraction and consolidation on (on the
background worker, as a throughput-minded agent runs it; ``--foreground`` runs it inline; the
final ``flush`` waits for it either way, so all the work is in the time). It reports turns/s
through ``remember`` (+ ``end_session`` + ``flush``), the time spent embedding, the rest (the
write path itself), records per layer and the store's size on disk, and writes ``ingest.json``
+ ``ingest.md``.

For scale, the same run embeds the same turn texts through the model alone, twice: one call per
session (the write path's batching: one length-sorted call per ``remember``) and one call for
everything (global length sorting, the model's best case). The machine is shared: the load
averages (as ``uptime`` shows them) at the start and the end are part of the result.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from prism_memory.embeddings import Embedder, FastEmbedEmbedder
from prism_memory.extraction.dates import parse_session_date

__all__ = ["add_arguments", "load_sessions", "run"]


class _TimedEmbedder:
    """Wraps an embedder and adds up the time spent in it."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.texts = 0

    @property
    def dim(self) -> int:
        return self.inner.dim

    @property
    def name(self) -> str:
        return self.inner.name

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        start = time.perf_counter()
        try:
            return self.inner.embed_documents(texts)
        finally:
            self.seconds += time.perf_counter() - start
            self.texts += len(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "files", nargs="+", metavar="FILE", help="LoCoMo-format conversation JSON files"
    )
    parser.add_argument("--out", default="benchmarks/results", help="directory for ingest.json/.md")
    parser.add_argument("--json", default=None, help="also write the JSON result to this path")
    parser.add_argument("--engine", choices=["edge", "local"], default="edge")
    parser.add_argument(
        "--max-sessions", type=int, default=None, help="ingest only the first N sessions"
    )
    parser.add_argument("--no-consolidate", action="store_true", help="turn consolidation off")
    parser.add_argument(
        "--foreground",
        action="store_true",
        help="run consolidation inline instead of on the background worker",
    )


def _turn_text(turn: dict[str, Any]) -> str:
    text = str(turn.get("text", ""))
    if turn.get("blip_caption"):
        text = f"{text} [shared image: {turn['blip_caption']}]".strip()
    return text


def load_sessions(path: str | Path) -> list[tuple[str, Any, list[dict[str, Any]]]]:
    """``(session_id, event_time, messages)`` per session of a LoCoMo conversation, in order."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    conv = data.get("conversation", data)
    numbers = sorted(
        int(m.group(1)) for k in conv if (m := re.fullmatch(r"session_(\d+)", k)) and conv[k]
    )
    out = []
    for n in numbers:
        when = parse_session_date(str(conv.get(f"session_{n}_date_time", "")))
        messages = [
            {"role": "user", "name": t["speaker"], "id": t["dia_id"], "content": _turn_text(t)}
            for t in conv[f"session_{n}"]
            if _turn_text(t).strip()
        ]
        out.append((f"session_{n}", when, messages))
    return out


def _dir_size(path: Path) -> int:
    return sum(f.stat().st_blocks * 512 for f in path.rglob("*") if f.is_file())


def _ingest_one(path: str, embedder: _TimedEmbedder, args: argparse.Namespace) -> dict[str, Any]:
    """One file's sessions through ``remember`` + ``end_session`` into a fresh store, timed."""
    sessions = load_sessions(path)
    if args.max_sessions:
        sessions = sessions[: args.max_sessions]
    user = "locomo-" + Path(path).stem
    with tempfile.TemporaryDirectory(prefix="prism-ingest-") as tmp:
        store_path = Path(tmp) / "store"
        m = _open_store(args, embedder, store_path)
        embed_before, texts_before = embedder.seconds, embedder.texts
        turns, elapsed, cpu, alone = _remember_sessions(m, sessions, user, embedder)
        cpu_start, start = time.process_time(), time.perf_counter()
        m.flush()
        elapsed += time.perf_counter() - start
        cpu += time.process_time() - cpu_start
        stats = m.stats(user_id=user)
        size = _dir_size(store_path) if args.engine == "edge" else 0
        m.close()
    embed_seconds = embedder.seconds - embed_before
    return {
        "file": os.path.basename(path),
        "sessions": len(sessions),
        "turns": turns,
        "seconds": round(elapsed, 3),
        "turns_per_s": round(turns / elapsed, 1) if elapsed else 0.0,
        "embed_seconds": round(embed_seconds, 3),
        "write_path_seconds": round(elapsed - embed_seconds, 3),
        "cpu_seconds": round(cpu, 3),
        "embedded_texts": embedder.texts - texts_before,
        "embedder_alone_seconds": round(alone, 3),
        "embedder_alone_turns_per_s": round(turns / alone, 1) if alone else 0.0,
        "records": stats["total"],
        "layers": stats["layers"],
        "kinds": stats["kinds"],
        "status": stats["status"],
        "storage_bytes": size,
    }


def _open_store(args: argparse.Namespace, embedder: _TimedEmbedder, store_path: Path) -> Any:
    from prism_memory.config import LifecycleConfig, PrismConfig
    from prism_memory.memory import Memory

    config = PrismConfig(
        lifecycle=LifecycleConfig(consolidate_on_session_end=not args.no_consolidate)
    )
    kwargs: dict[str, Any] = (
        {"path": store_path} if args.engine == "edge" else {"location": ":memory:"}
    )
    return Memory(
        embedder=embedder,
        config=config,
        background=not getattr(args, "foreground", False),
        **kwargs,
    )


def _remember_sessions(
    m: Any, sessions: list[Any], user: str, embedder: _TimedEmbedder
) -> tuple[int, float, float, float]:
    """(turns, wall s, CPU s, the model alone's s) over every session."""
    turns = 0
    elapsed = cpu = alone = 0.0
    for session_id, when, messages in sessions:
        cpu_start, start = time.process_time(), time.perf_counter()
        m.remember(messages, user_id=user, session_id=session_id, event_time=when)
        m.end_session(user_id=user, session_id=session_id)
        if m._worker is not None:  # the session's background work is part of its time
            m._worker.join()
        elapsed += time.perf_counter() - start
        cpu += time.process_time() - cpu_start
        turns += len(messages)
        # the model alone on the same texts, right after: both see the same machine load
        start = time.perf_counter()
        embedder.inner.embed_documents([f"{t['name']}: {t['content']}" for t in messages])
        alone += time.perf_counter() - start
    return turns, elapsed, cpu, alone


def _loadavg() -> list[float] | None:
    """1, 5 and 15-minute load averages (what ``uptime`` prints), if the OS has them."""
    if not hasattr(os, "getloadavg"):
        return None
    return [round(x, 2) for x in os.getloadavg()]


def _markdown(result: dict[str, Any]) -> str:
    load = result["load_average"]
    lines = [
        "# Ingest benchmark (`prism bench ingest`)",
        "",
        f"Command: `{result['command']}`  ",
        f"Machine: {result['machine']}; engine `{result['engine']}`; embedder `{result['embedder']}` "
        f"(length-sorted, padding-aware batches of at most {result['embed_batch_size']}); rule "
        f"extraction on, consolidation "
        f"{result['consolidation']}.  ",
        f"Load average (1, 5, 15 min, as `uptime` shows it): {load['start']} at the start, "
        f"{load['end']} at the end.",
        "",
        "| file | sessions | turns | s | turns/s | model alone turns/s | embedding s (share) | "
        "write path s | CPU s | texts embedded | records | buffer | episodic | semantic | "
        "working | storage |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in result["runs"]:
        layers = r["layers"]
        share = r["embed_seconds"] / r["seconds"] if r["seconds"] else 0.0
        lines.append(
            f"| {r['file']} | {r['sessions']} | {r['turns']} | {r['seconds']} | "
            f"**{r['turns_per_s']}** | {r['embedder_alone_turns_per_s']} | "
            f"{r['embed_seconds']} ({share:.0%}) | "
            f"{r['write_path_seconds']} | {r['cpu_seconds']} | {r['embedded_texts']} | "
            f"{r['records']} | {layers.get('buffer', 0)} | {layers.get('episodic', 0)} | "
            f"{layers.get('semantic', 0)} | {layers.get('working', 0)} | "
            f"{r['storage_bytes'] / 1e6:.1f} MB |"
        )
    t = result["total"]
    alone = result["embedder_alone"]
    lines += [
        "",
        f"Total: {t['turns']} turns in {t['seconds']} s = **{t['turns_per_s']} turns/s**; "
        f"{t['embed_seconds']} s of it embedding {t['embedded_texts']} texts "
        f"({t['embed_texts_per_s']} texts/s inside the write path), "
        f"{t['write_path_seconds']} s everything else "
        f"({t['write_path_ms_per_turn']} ms a turn: extraction, screening, store, consolidation).",
        "",
        "The same turn texts through the embedding model alone, in the same run: "
        f"**{t['embedder_alone_turns_per_s']} turns/s** with one call per session, each right "
        "after that session was written (the write path's batching, under the same load); "
        f"{alone['all_at_once_turns_per_s']} turns/s in one call after the run (global length "
        f"sorting). The write path reaches {t['share_of_model_alone']:.0%} of the model alone. "
        "Without the embedding it would run at "
        f"{t['write_path_only_turns_per_s']} turns/s. The machine is shared, so absolute figures "
        "vary with its load (see the load averages above).",
        "",
        "Kinds per file: " + "; ".join(f"{r['file']}: {r['kinds']}" for r in result["runs"]),
        "",
    ]
    return "\n".join(lines)


def _embed_all_at_once(embedder: Embedder, texts: list[str]) -> dict[str, float]:
    start = time.perf_counter()
    embedder.embed_documents(texts)
    return {"all_at_once_turns_per_s": round(len(texts) / (time.perf_counter() - start), 1)}


def run(args: argparse.Namespace) -> int:
    """Ingest every file, print a table, write ``ingest.json`` and ``ingest.md``; 0 on success."""
    from prism_memory.tokens import count_tokens

    missing = [f for f in args.files if not os.path.isfile(f)]
    if missing:
        print(f"error: no such file: {', '.join(missing)}")
        return 2
    load_before = _loadavg()
    inner = FastEmbedEmbedder()
    embedder = _TimedEmbedder(inner)
    # one-time process start-up stays out of the timings: the model and the tokenizer tables
    embedder.embed_documents(["warm up the model"])
    count_tokens("warm up the tokenizer")
    embedder.seconds, embedder.texts = 0.0, 0
    runs = [_ingest_one(f, embedder, args) for f in args.files]
    # the same turn texts (as the write path embeds them) through the embedding model alone
    texts = [
        f"{msg['name']}: {msg['content']}"
        for f in args.files
        for _, _, messages in load_sessions(f)[: args.max_sessions or None]
        for msg in messages
    ]
    alone = _embed_all_at_once(inner, texts)
    load_after = _loadavg()
    consolidation = (
        "off"
        if args.no_consolidate
        else ("inline" if getattr(args, "foreground", False) else "on the background worker")
    )
    result = {
        "command": "prism bench ingest " + " ".join(os.path.basename(f) for f in args.files),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "engine": args.engine,
        "embedder": embedder.name,
        "embed_batch_size": getattr(inner, "_batch_size", None),
        "consolidation": consolidation,
        "load_average": {"start": load_before, "end": load_after},
        "runs": runs,
        "total": _total(runs),
        "embedder_alone": alone,
    }
    _write(args, result)
    return 0


def _total(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The runs added up: throughput, the model's share and the write path's own cost."""
    alone_seconds = sum(r["embedder_alone_seconds"] for r in runs)
    turns = sum(r["turns"] for r in runs)
    seconds = sum(r["seconds"] for r in runs)
    embed_seconds = sum(r["embed_seconds"] for r in runs)
    embedded = sum(r["embedded_texts"] for r in runs)
    rest = max(seconds - embed_seconds, 1e-9)
    return {
        "turns": turns,
        "seconds": round(seconds, 3),
        "turns_per_s": round(turns / seconds, 1) if seconds else 0.0,
        "embed_seconds": round(embed_seconds, 3),
        "embedded_texts": embedded,
        "embed_texts_per_s": round(embedded / embed_seconds, 1) if embed_seconds else 0.0,
        "write_path_seconds": round(seconds - embed_seconds, 3),
        "write_path_ms_per_turn": round(1000 * (seconds - embed_seconds) / turns, 2)
        if turns
        else 0.0,
        "write_path_only_turns_per_s": round(turns / rest, 1),
        "cpu_seconds": round(sum(r["cpu_seconds"] for r in runs), 3),
        "embedder_alone_seconds": round(alone_seconds, 3),
        "embedder_alone_turns_per_s": round(turns / alone_seconds, 1) if alone_seconds else 0.0,
        "share_of_model_alone": round(alone_seconds / seconds, 3) if seconds else 0.0,
    }


def _write(args: argparse.Namespace, result: dict[str, Any]) -> None:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    text = json.dumps(result, indent=2)
    (out / "ingest.json").write_text(text + "\n", encoding="utf-8")
    (out / "ingest.md").write_text(_markdown(result), encoding="utf-8")
    if args.json:
        Path(args.json).write_text(text + "\n", encoding="utf-8")
    print(_markdown(result))
