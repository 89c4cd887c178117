"""``prism bench ingest``: write throughput of ``Memory.remember`` on LoCoMo-format conversations.

Design: each conversation is ingested into a fresh embedded store, session by session, the way
an agent would: one message per turn (role ``user``, ``name`` = speaker, ``id`` = dia_id, the
image caption appended as ``[shared image: ...]``), the session date as ``event_time``,
``end_session`` after each session, with rule extraction and consolidation on. It reports
turns/s through ``remember`` (+ ``end_session``), the share of time spent embedding, records
per layer and the store's size on disk, and writes ``ingest.json`` + ``ingest.md``.
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

from ..embeddings import Embedder, FastEmbedEmbedder
from ..extraction.dates import parse_session_date

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
    from ..config import LifecycleConfig, PrismConfig
    from ..memory import Memory

    sessions = load_sessions(path)
    if args.max_sessions:
        sessions = sessions[: args.max_sessions]
    config = PrismConfig(
        lifecycle=LifecycleConfig(consolidate_on_session_end=not args.no_consolidate)
    )
    user = "locomo-" + Path(path).stem
    with tempfile.TemporaryDirectory(prefix="prism-ingest-") as tmp:
        store_path = Path(tmp) / "store"
        kwargs: dict[str, Any] = (
            {"path": store_path} if args.engine == "edge" else {"location": ":memory:"}
        )
        m = Memory(embedder=embedder, config=config, **kwargs)
        embed_before, texts_before = embedder.seconds, embedder.texts
        turns = 0
        start = time.perf_counter()
        for session_id, when, messages in sessions:
            m.remember(messages, user_id=user, session_id=session_id, event_time=when)
            m.end_session(user_id=user, session_id=session_id)
            turns += len(messages)
        m.flush()
        elapsed = time.perf_counter() - start
        stats = m.stats(user_id=user)
        size = _dir_size(store_path) if args.engine == "edge" else 0
        m.close()
    return {
        "file": os.path.basename(path),
        "sessions": len(sessions),
        "turns": turns,
        "seconds": round(elapsed, 3),
        "turns_per_s": round(turns / elapsed, 1) if elapsed else 0.0,
        "embed_seconds": round(embedder.seconds - embed_before, 3),
        "embedded_texts": embedder.texts - texts_before,
        "records": stats["total"],
        "layers": stats["layers"],
        "kinds": stats["kinds"],
        "status": stats["status"],
        "storage_bytes": size,
    }


def _markdown(result: dict[str, Any]) -> str:
    lines = [
        "# Ingest benchmark (`prism bench ingest`)",
        "",
        f"Command: `{result['command']}`  ",
        f"Machine: {result['machine']}; engine `{result['engine']}`; embedder `{result['embedder']}`; "
        f"rule extraction on, consolidation {'on' if result['consolidation'] else 'off'}; "
        f"1-minute load average {result['load_average_1m']['start']} at the start, "
        f"{result['load_average_1m']['end']} at the end.",
        "",
        "| file | sessions | turns | s | turns/s | embedding s (share) | texts embedded | records | "
        "buffer | episodic | semantic | working | storage |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in result["runs"]:
        layers = r["layers"]
        share = r["embed_seconds"] / r["seconds"] if r["seconds"] else 0.0
        lines.append(
            f"| {r['file']} | {r['sessions']} | {r['turns']} | {r['seconds']} | **{r['turns_per_s']}** | "
            f"{r['embed_seconds']} ({share:.0%}) | {r['embedded_texts']} | {r['records']} | "
            f"{layers.get('buffer', 0)} | {layers.get('episodic', 0)} | {layers.get('semantic', 0)} | "
            f"{layers.get('working', 0)} | {r['storage_bytes'] / 1e6:.1f} MB |"
        )
    t = result["total"]
    lines += [
        "",
        f"Total: {t['turns']} turns in {t['seconds']} s = **{t['turns_per_s']} turns/s**; "
        f"{t['embed_seconds']} s of it embedding {t['embedded_texts']} texts. The same turn texts "
        f"through the embedding model alone, in the same run: {t['embedder_alone_turns_per_s']} "
        "turns/s (the ceiling on this machine at that moment; it is shared, so absolute figures "
        "vary with its load).",
        "",
        "Kinds per file: " + "; ".join(f"{r['file']}: {r['kinds']}" for r in result["runs"]),
        "",
    ]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Ingest every file, print a table, write ``ingest.json`` and ``ingest.md``; 0 on success."""
    missing = [f for f in args.files if not os.path.isfile(f)]
    if missing:
        print(f"error: no such file: {', '.join(missing)}")
        return 2
    load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    embedder = _TimedEmbedder(FastEmbedEmbedder())
    embedder.embed_documents(["warm up the model"])
    embedder.seconds, embedder.texts = 0.0, 0
    runs = [_ingest_one(f, embedder, args) for f in args.files]
    # the same turn texts through the embedding model alone, for scale on this machine now
    texts = [
        f"{msg['name']}: {msg['content']}"
        for f in args.files
        for _, _, messages in load_sessions(f)[: args.max_sessions or None]
        for msg in messages
    ]
    start = time.perf_counter()
    embedder.inner.embed_documents(texts)
    embed_only = len(texts) / (time.perf_counter() - start)
    turns = sum(r["turns"] for r in runs)
    seconds = sum(r["seconds"] for r in runs)
    result = {
        "command": "prism bench ingest " + " ".join(os.path.basename(f) for f in args.files),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "engine": args.engine,
        "embedder": embedder.name,
        "consolidation": not args.no_consolidate,
        "load_average_1m": {
            "start": None if load_before is None else round(load_before, 2),
            "end": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        },
        "runs": runs,
        "total": {
            "turns": turns,
            "seconds": round(seconds, 3),
            "turns_per_s": round(turns / seconds, 1) if seconds else 0.0,
            "embed_seconds": round(sum(r["embed_seconds"] for r in runs), 3),
            "embedded_texts": sum(r["embedded_texts"] for r in runs),
            "embedder_alone_turns_per_s": round(embed_only, 1),
        },
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    text = json.dumps(result, indent=2)
    (out / "ingest.json").write_text(text + "\n", encoding="utf-8")
    (out / "ingest.md").write_text(_markdown(result), encoding="utf-8")
    if args.json:
        Path(args.json).write_text(text + "\n", encoding="utf-8")
    print(_markdown(result))
    return 0
