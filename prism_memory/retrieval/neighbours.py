"""Neighbouring turns for recall's expansion: a short episodic hit is shown with the turns
around it, which it needs to be understood.

Design: three pure steps the pipeline's ``_expand`` composes, with one store call between the
second and the third: which ``(session, turn index)`` are wanted (:func:`neighbours_wanted`),
the ordered routes that fetch them (:func:`neighbour_routes`), and the candidates found that
are not selected already, each with the hit it neighbours (:func:`neighbour_candidates`).
Scoring them stays in the pipeline (a share of their hit's score).

Example:
    >>> [r.name for r in neighbour_routes({("s1", 3): None, ("s1", 5): None})]
    ['n0']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..config import RetrievalConfig
from ..records import MemoryRecord
from ..stores.base import RouteQuery
from ..stores.filters import Condition, RecordFilter
from ..tokens import count_tokens
from .construct import Scored
from .fusion import Candidate

__all__ = ["neighbour_candidates", "neighbour_routes", "neighbours_wanted"]


def neighbours_wanted(
    selected: list[Scored], cfg: RetrievalConfig
) -> dict[tuple[str, int], Scored]:
    """``(session, turn index)`` of the turns around short top episodic hits not already
    selected, each with the hit it neighbours."""
    seen_turns = {_turn_key(s.record) for s in selected}
    wanted: dict[tuple[str, int], Scored] = {}
    for s in selected[: cfg.expand_top]:
        r = s.record
        turn = r.metadata.get("turn_index")
        if s.section != "episodic" or not r.session_id or not isinstance(turn, int):
            continue
        if count_tokens(r.text) > cfg.expand_max_tokens:
            continue
        for d in range(1, cfg.expand_neighbors + 1):
            for t in (turn - d, turn + d):
                key = (r.session_id, t)
                if t >= 0 and key not in seen_turns and key not in wanted:
                    wanted[key] = s
    return wanted


def neighbour_routes(wanted: Mapping[tuple[str, int], Scored]) -> list[RouteQuery]:
    """One ordered route per session, for its wanted episodic turns."""
    by_session: dict[str, list[int]] = {}
    for sid, t in wanted:
        by_session.setdefault(sid, []).append(t)
    routes = []
    for i, (sid, turns) in enumerate(sorted(by_session.items())):
        flt = RecordFilter(
            must=[
                Condition("session_id", "eq", sid),
                Condition("layer", "any", ["episodic"]),
                Condition("metadata.turn_index", "any", sorted(turns)),
            ]
        )
        routes.append(RouteQuery(f"n{i}", "order", None, len(turns) * 2, flt))
    return routes


def neighbour_candidates(
    found: Mapping[str, Sequence[Any]],
    wanted: Mapping[tuple[str, int], Scored],
    have: set[str],
) -> tuple[list[Candidate], dict[str, Scored]]:
    """The neighbouring turns found (none already selected), and the hit each neighbours."""
    extra: list[Candidate] = []
    parent: dict[str, Scored] = {}
    for hits in found.values():
        for h in hits:
            turn = (
                h.payload.get("session_id"),
                (h.payload.get("metadata") or {}).get("turn_index"),
            )
            src = wanted.get(turn)  # type: ignore[arg-type]
            if src is None or h.id in have or h.id in parent:
                continue
            parent[h.id] = src
            extra.append(Candidate(h.id, h.payload, h.vector, 0.0, {"neighbour": 0}))
    return extra, parent


def _turn_key(r: MemoryRecord) -> tuple[str, int] | None:
    t = r.metadata.get("turn_index")
    return (r.session_id, t) if r.session_id and isinstance(t, int) else None
