"""The same remember sequence stores the same records in any process.

Two fresh interpreters with different ``PYTHONHASHSEED`` values (one with the background
worker) ingest the packaged demo conversation plus a superseded budget, a task and Chinese
turns into their own embedded store with the real embedding model; the stored records (ids,
texts, layers, kinds, status, event times) must be identical. Dict/set order, clock readings
and the worker's timing must not leak into what is written.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

_SCRIPT = r"""
import json, sys
from datetime import datetime, timezone
from prism_memory import Memory
from prism_memory.demo import ingest, load_conversation
from prism_memory.records import Scope

path, background = sys.argv[1], sys.argv[2] == "1"
m = Memory(path=path, background=background)
conv = load_conversation()
ingest(m, conv)
user = conv["user_id"]
t = datetime(2024, 4, 20, 9, tzinfo=timezone.utc)
m.remember([{"role": "user", "content": "My budget is 500 a night", "id": "b1"}],
           user_id=user, session_id="extra", event_time=t, task_id="trip")
m.remember("I can go up to 800 now, my budget is 800 a night", user_id=user,
           session_id="extra", event_time=t, task_id="trip")
m.remember("Actually my budget is 650 a night", user_id=user, session_id="extra", event_time=t)
m.remember(["我喜欢川菜", "明天下午三点和张先生开会", "我打算5月13日去北京"],
           user_id=user, session_id="extra", event_time=t)
m.end_session(user_id=user, session_id="extra")
m.flush()
rows = sorted(
    [r.id, r.text, r.layer.value, r.kind.value, r.status.value, r.session_id,
     r.event_time.isoformat() if r.event_time else None, sorted(r.provenance.source_ids)]
    for r in m.iter_records(Scope.of(user, None, None))
)
m.close()
print(json.dumps(rows, ensure_ascii=False))
"""


def _run(tmp_path: Path, seed: str, background: bool) -> list[Any]:
    env = {**os.environ, "PYTHONHASHSEED": seed, "HF_HUB_OFFLINE": "1"}
    store = tmp_path / f"store-{seed}"
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(store), "1" if background else "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    rows: list[Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return rows


def test_same_input_gives_same_records_across_processes_and_hash_seeds(tmp_path: Path) -> None:
    first = _run(tmp_path, "1", background=False)
    second = _run(tmp_path, "4242", background=True)
    assert len(first) > 30
    kinds = {row[3] for row in first}
    assert {"observation", "event", "summary", "preference", "fact"} <= kinds
    assert any(row[4] == "superseded" for row in first)  # the budget history is part of it
    assert first == second
