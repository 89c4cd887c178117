"""Throughput of the screen's classifier: numpy reference against ``prism_screen`` (onnxruntime).

Usage (from the repository root)::

    PYTHONPATH=$PWD:$PWD/screen .venv/bin/python research/screen/bench_onnx.py \\
        ../shared/bench/locomo-dev/*.json

Inputs: LoCoMo turns as ``"user: {text}"`` (chat-like: short, of mixed length) and the
poisoning fixtures as ``"{source}: {text}"`` (longer, more of them truncated). Reports the rate
of the numpy forward pass one text at a time, of onnxruntime one call per text, and of
onnxruntime in calls of 32 and 64 texts (one padded run per call, or length-sorted runs), for
1 and 2 threads. Every figure is the best of ``--repeats`` passes, in texts per wall second and
per CPU second (the machine is shared: CPU time is the steadier measure).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from export_onnx import fixture_texts
from numpy_reference import NumpyScreen, base_dir


def locomo_turns(paths: Sequence[Path], limit: int) -> list[str]:
    """``"user: {text}"`` for the turns of LoCoMo conversation files, in order."""
    out: list[str] = []
    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        conv = data.get("conversation", data)
        sessions = sorted(
            (k for k, v in conv.items() if k.startswith("session_") and isinstance(v, list)),
            key=lambda k: int(k.split("_")[1]),
        )
        for key in sessions:
            out.extend(f"user: {turn['text']}" for turn in conv[key])
    return out[:limit]


def rate(
    run: Callable[[list[str]], object], texts: list[str], batch: int, repeats: int
) -> tuple[float, float]:
    """Texts per wall second and per CPU second of ``run`` over ``texts`` in calls of ``batch``.

    The best of ``repeats`` passes. CPU time (every thread of this process) is what the
    classifier costs; wall time is what a caller waits, which other work on the machine inflates.
    """
    wall = cpu = float("inf")
    for _ in range(repeats):
        started, used = time.perf_counter(), time.process_time()
        for i in range(0, len(texts), batch):
            run(texts[i : i + batch])
        wall = min(wall, time.perf_counter() - started)
        cpu = min(cpu, time.process_time() - used)
    return len(texts) / wall, len(texts) / cpu


def show(label: str, figures: tuple[float, float]) -> None:
    print(f"  {label:<48} {figures[0]:7.1f} texts/s {figures[1]:7.1f} texts/CPU-s", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("locomo", type=Path, nargs="+")
    ap.add_argument("--texts", type=int, default=640)
    ap.add_argument("--numpy-texts", type=int, default=160)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args()
    from prism_screen._runner import TransformerScreen

    base = base_dir()
    sets = {
        "locomo": locomo_turns(args.locomo, args.texts),
        "fixtures": fixture_texts(100_000)[:: 25_000 // args.texts][: args.texts],
    }
    reference = NumpyScreen(base)
    screens = {t: TransformerScreen(base, threads=t) for t in args.threads}
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    for name, texts in sets.items():
        tokens = [len(e.ids) for e in reference._tokenizer.encode_batch(texts)]
        print(
            f"\n{name}: {len(texts)} texts, tokens mean {np.mean(tokens):.0f}, "
            f"median {np.median(tokens):.0f}, max {max(tokens)}, "
            f"{sum(t >= 128 for t in tokens)} truncated"
        )
        sub = texts[: args.numpy_texts]
        show(f"numpy, one at a time ({len(sub)} texts)", rate(reference.logits, sub, 1, 1))
        for threads, screen in screens.items():
            show(
                f"onnx {threads} thread(s), one call per text",
                rate(screen.logits, texts, 1, args.repeats),
            )
            for batch in (32, 64):
                for split in (False, True):
                    screen._split_runs = split
                    how = "length-sorted runs" if split else "one padded run"
                    figures = rate(screen.logits, texts, batch, args.repeats)
                    show(f"onnx {threads} thread(s), calls of {batch}, {how}", figures)
        print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
