"""The write path's embedding batches: padding-aware plans for one remember() call."""

from __future__ import annotations

import itertools
import random

import pytest

from prism_memory.embeddings.fastembed import plan_batches


def _cost(lengths: list[int], batches: list[tuple[int, int]], call_cost: int) -> int:
    return sum((end - start) * lengths[end - 1] + call_cost for start, end in batches)


@pytest.mark.parametrize("seed", range(20))
def test_plan_covers_every_text_once_in_order_and_beats_fixed_batches(seed: int) -> None:
    rng = random.Random(seed)
    lengths = sorted(rng.randint(5, 600) for _ in range(rng.randint(1, 60)))
    plan = plan_batches(lengths, max_batch=16)
    assert plan[0][0] == 0 and plan[-1][1] == len(lengths)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(plan))  # contiguous, no gap, no overlap
    assert all(0 < end - start <= 16 for start, end in plan)
    fixed = [(i, min(i + 16, len(lengths))) for i in range(0, len(lengths), 16)]
    assert _cost(lengths, plan, 128) <= _cost(lengths, fixed, 128)


def test_short_turns_are_not_padded_to_a_long_one() -> None:
    lengths = [40] * 12 + [900]
    assert plan_batches(lengths, max_batch=16) == [(0, 12), (12, 13)]
    assert plan_batches([], max_batch=16) == []
