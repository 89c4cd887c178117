"""Recall is a function of the stored records: not of hash seeds, nor of how ties were cut."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from prism_memory.retrieval.routes import trim_ties
from prism_memory.stores.base import RouteHit

_SCRIPT = r"""
import sys
from datetime import datetime, timedelta, timezone
from prism_memory import Memory
from prism_memory.embeddings import FakeEmbedder

base = datetime(2023, 5, 8, tzinfo=timezone.utc)
topics = ["hiking trip", "pottery class", "adoption agency", "camping", "painting", "concert"]
with Memory(path=sys.argv[1], embedder=FakeEmbedder()) as m:
    for s in range(6):
        msgs = [
            {"role": "user", "name": ["Ann", "Bo"][t % 2], "id": f"D{s}:{t}",
             "content": f"I loved the {topics[(s + t) % 6]} and the {topics[t % 6]} we did"}
            for t in range(8)
        ]
        m.remember(msgs, user_id="u", session_id=f"s{s}", event_time=base + timedelta(days=7 * s))
        m.end_session(user_id="u", session_id=f"s{s}")
    for q in ["what did Ann do at the pottery class?", "when was the camping trip?", "concert"]:
        ctx = m.recall(q, user_id="u", budget_tokens=150, now=base + timedelta(days=60))
        print(ctx.text)
"""


def _run(tmp: Path, seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(tmp / f"store-{seed}")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return out.stdout


def test_context_text_is_the_same_under_different_hash_seeds(tmp_path: Path) -> None:
    a, b = _run(tmp_path, "1"), _run(tmp_path, "4242")
    assert "<memories" in a
    assert a == b


def test_a_tie_at_the_cut_is_dropped_whole_when_it_may_continue() -> None:
    hits = [RouteHit(i, s, {}) for i, s in [("z", 0.9), ("b", 0.4), ("a", 0.4), ("c", 0.7)]]
    # four fetched with limit 4: the 0.4 group may have more members the engine left out
    assert [h.id for h in trim_ties(hits, keep=3, fetched=4)] == ["z", "c"]
    # fewer than the limit came back: the group is complete, ties break on id
    assert [h.id for h in trim_ties(hits, keep=3, fetched=10)] == ["z", "c", "a"]
    # the engine's order of equal scores does not matter
    assert trim_ties(hits[::-1], keep=3, fetched=10) == trim_ties(hits, keep=3, fetched=10)


def test_order_routes_cut_on_timestamps() -> None:
    hits = [RouteHit(i, 0.0, {"ts": ts}) for i, ts in [("a", 5.0), ("b", 9.0), ("c", 5.0)]]
    assert [h.id for h in trim_ties(hits, keep=2, fetched=3, using="order")] == ["b"]
