"""``prism bench write``: the cost of a write, with each poisoning-screen mode and with none.

Design: one process, one embedded store per mode, the real offline embedding model on every
write (what a user waits for; ``--replay`` computes each text's vector once and replays it, so
the figures show the write path and the screen alone). Modes run interleaved, call by call, so
load on a shared machine falls on all of them alike.

- ``add``: ``Memory.add`` of one short text per call (``--adds`` calls per mode), p50/p95 ms;
  the default's cost relative to the screen-off path (target: at most 1.5x).
- ``add_many``: the LoCoMo turns (``FILE...``) in calls of ``--batch`` texts, texts/s.

Writes ``write.json`` and ``write.md`` to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["add_arguments", "run"]

MODES = ("off", "default", "strict")
SHORT = [
    "I prefer window seats on long flights",
    "My sister Ana lives in Porto",
    "Remind me to call the dentist on Friday",
    "The project deadline moved to March 3",
    "I'm allergic to peanuts",
    "Our wifi password is on the fridge",
    "Book the Lisbon hotel near the river",
    "I started learning the cello last spring",
]


class _ReplayEmbedder:
    """The real model's vectors, computed once per text and replayed."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.cache: dict[str, list[float]] = {}

    @property
    def dim(self) -> int:
        return int(self.inner.dim)

    @property
    def name(self) -> str:
        return str(self.inner.name)

    def warm(self, texts: Sequence[str]) -> None:
        todo = [t for t in dict.fromkeys(texts) if t not in self.cache]
        for t, v in zip(todo, self.inner.embed_documents(todo)):
            self.cache[t] = v

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.warm(texts)
        return [self.cache[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "files", nargs="*", metavar="FILE", help="LoCoMo-format JSON files (add_many texts)"
    )
    parser.add_argument("--out", default="benchmarks/results", help="directory for write.json/.md")
    parser.add_argument("--adds", type=int, default=300, help="Memory.add calls per mode")
    parser.add_argument("--batch", type=int, default=64, help="texts per add_many call")
    parser.add_argument(
        "--modes", default=",".join(MODES), help="screen modes to measure (comma-separated)"
    )
    parser.add_argument(
        "--replay", action="store_true", help="embed each text once and replay its vector"
    )


def _turns(files: Sequence[str]) -> list[str]:
    from .ingest import load_sessions

    return [
        f"{msg['content']}"
        for f in files
        for _, _, messages in load_sessions(f)
        for msg in messages
    ]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def _loadavg() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def run(args: argparse.Namespace) -> int:
    """Time ``add`` and ``add_many`` with each screen mode; write ``write.json`` and ``.md``."""
    from prism_memory.embeddings import FastEmbedEmbedder

    modes = _modes(args.modes)
    model = getattr(args, "embedder", None) or FastEmbedEmbedder()
    embedder: Any = _ReplayEmbedder(model) if args.replay else model
    turns = _turns(args.files)
    shorts = [f"{SHORT[i % len(SHORT)]} ({i})" for i in range(args.adds)]
    if args.replay:
        embedder.warm(shorts + turns)
    load_before = _loadavg()
    adds, many = _measure(modes, embedder, shorts, turns, args.batch)
    result: dict[str, Any] = {
        "command": "prism bench write " + " ".join(os.path.basename(f) for f in args.files),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "embedder": embedder.name + (" (vectors replayed)" if args.replay else ""),
        "load_average": {"start": load_before, "end": _loadavg()},
        "add": {
            mode: {
                "calls": len(adds[mode]),
                "p50_ms": round(statistics.median(adds[mode]), 2),
                "p95_ms": round(_pct(adds[mode], 0.95), 2),
            }
            for mode in modes
        },
        "add_many": {
            mode: {
                "texts": len(turns),
                "batch": args.batch,
                "seconds": round(many[mode], 3),
                "texts_per_s": round(len(turns) / many[mode], 1) if many[mode] else 0.0,
            }
            for mode in modes
        },
    }
    if "off" in modes and "default" in modes:
        off, default = result["add"]["off"]["p50_ms"], result["add"]["default"]["p50_ms"]
        result["default_vs_off_add_p50"] = round(default / off, 2) if off else None
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "write.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    (out / "write.md").write_text(_markdown(result), encoding="utf-8")
    print(_markdown(result))
    return 0


def _modes(raw: str) -> list[str]:
    """The screen modes asked for; ``strict`` is left out (said) when its extra is missing."""
    from prism_memory.safety import poisoning

    modes = [m.strip() for m in raw.split(",") if m.strip()]
    if "strict" in modes:
        try:
            poisoning.screen_ensemble().fires_many([])
            strict_ok = poisoning.screen_ensemble().transformer is not None
        except Exception:  # the screen extra is missing: measure what is installed
            strict_ok = False
        if not strict_ok:
            print("strict left out: pip install 'prism-memory[screen]' (make install does)")
            modes.remove("strict")
    return modes


def _measure(
    modes: list[str], embedder: Any, shorts: list[str], turns: list[str], batch: int
) -> tuple[dict[str, list[float]], dict[str, float]]:
    """Per mode: each ``add``'s milliseconds (modes interleaved, alternating order) and the
    seconds of ``add_many`` over the turns in batches."""
    from prism_memory.config import PrismConfig, SafetyConfig
    from prism_memory.memory import Memory

    with tempfile.TemporaryDirectory(prefix="prism-write-") as tmp:
        memories = {
            mode: Memory(
                path=Path(tmp) / mode,
                embedder=embedder,
                config=PrismConfig(safety=SafetyConfig(screen=mode)),  # type: ignore[arg-type]
            )
            for mode in modes
        }
        try:
            for m in memories.values():  # warm-up: models load, pages map
                m.add("warm-up text", user_id="warm")
            adds: dict[str, list[float]] = {mode: [] for mode in modes}
            for i, text in enumerate(shorts):
                for mode in modes if i % 2 else reversed(modes):
                    start = time.perf_counter()
                    memories[mode].add(text, user_id="bench")
                    adds[mode].append((time.perf_counter() - start) * 1000)
            many: dict[str, float] = {mode: 0.0 for mode in modes}
            for start_i in range(0, len(turns), batch):
                chunk = turns[start_i : start_i + batch]
                for mode in modes:
                    start = time.perf_counter()
                    memories[mode].add_many(chunk, user_id="bench-many", kind="observation")
                    many[mode] += time.perf_counter() - start
        finally:
            for m in memories.values():
                m.close()
    return adds, many


def _markdown(r: dict[str, Any]) -> str:
    lines = [
        "# Write cost by poisoning-screen mode",
        "",
        f"`{r['command']}` — {r['machine']}; embedder {r['embedder']}; load average "
        f"{r['load_average']['start']} → {r['load_average']['end']}.",
        "",
        "| mode | add p50 ms | add p95 ms | add_many texts/s |",
        "|---|---|---|---|",
    ]
    for mode, a in r["add"].items():
        lines.append(
            f"| {mode} | {a['p50_ms']} | {a['p95_ms']} | {r['add_many'][mode]['texts_per_s']} |"
        )
    if r.get("default_vs_off_add_p50") is not None:
        lines += ["", f"Default vs screen off (add p50): {r['default_vs_off_add_p50']}x."]
    return "\n".join(lines) + "\n"
